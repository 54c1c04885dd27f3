"""The half-type tables (uaccel/detail/cpu_loops.h): a formula's tabulated input in bfloat16 (float16 too on
AVX2) is looked up in tables the float kernel fills on its first use in the process, without a lock."""

import subprocess
import sys

import pytest

pytestmark = [pytest.mark.cpu_kernels]

# In a fresh process (no table built yet), threads released together each run every tabulated op, in
# orders of their own, on every bit pattern: each gets the bits the process computes afterwards.
RACE = r"""
import threading
import torch
from torch_uaccel._testing.op_table import OPS

torch.set_num_threads(1)
rows = [row for row in OPS if row.overload is not None and row.name.startswith(("silu", "gelu"))]
patterns = torch.arange(-(2**15), 2**15, dtype=torch.int32).to(torch.int16)
cases = [(row, row.plain_inputs(patterns.view(dtype))) for row in rows for dtype in (torch.bfloat16, torch.float16)]

def bits(result):
    return [t.view(torch.int16).clone() for t in (result if isinstance(result, tuple) else (result,))]

THREADS = 8
start = threading.Barrier(THREADS)
seen = [None] * THREADS

def work(index):
    start.wait(timeout=60)
    order = cases[index % len(cases):] + cases[:index % len(cases)]
    seen[index] = {id(inputs): bits(row.run(*inputs)) for row, inputs in order}

threads = [threading.Thread(target=work, args=(i,)) for i in range(THREADS)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
for row, inputs in cases:
    expected = bits(row.run(*inputs))
    for index in range(THREADS):
        got = seen[index][id(inputs)]
        assert all(map(torch.equal, got, expected)), (row.name, inputs[0].dtype, index)
print(len(cases), "cases")
"""


def test_threads_racing_to_build_the_tables_get_the_same_bits():
    done = subprocess.run([sys.executable, "-c", RACE], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "cases" in done.stdout
