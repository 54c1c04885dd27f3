"""The CPU kernel path: ATEN_CPU_CAPABILITY is a ceiling, never a licence to run instructions the CPU
lacks. The choice is a pure function of (request, CPU flags), so any CPU can be played here."""

import ast
import os
import subprocess
import sys

import pytest
import torch

import torch_uaccel

pytestmark = pytest.mark.cpu_kernels

AVX2_FLAGS = ["avx2", "fma"]
AVX512_FLAGS = [*AVX2_FLAGS, "avx512f", "avx512bw", "avx512vl", "avx512dq"]


def choose(requested, flags):
    return torch.ops.uaccel._choose_cpu_capability(requested, flags)


@pytest.mark.parametrize(
    "requested, flags, expected",
    [
        ("avx512", AVX512_FLAGS, "AVX512"),
        ("AVX512", AVX2_FLAGS, "AVX2"),  # the SIGILL case: AVX-512 asked for on an AVX2-only CPU
        ("avx512", [], "DEFAULT"),
        ("avx2", AVX512_FLAGS, "AVX2"),
        ("avx2", ["avx2"], "DEFAULT"),  # AVX2 without FMA is not ATen's AVX2
        ("default", AVX512_FLAGS, "DEFAULT"),
        ("", AVX512_FLAGS, "AVX512"),
        ("", AVX2_FLAGS, "AVX2"),
        ("sve256", AVX2_FLAGS, "AVX2"),  # another architecture's name
    ],
)
def test_choice_never_exceeds_the_cpu(requested, flags, expected):
    capability, reason = choose(requested, flags)
    assert capability == expected
    assert reason


@pytest.mark.parametrize("missing", ["avx512f", "avx512bw", "avx512vl", "avx512dq"])
def test_each_avx512_flag_is_required_and_named(missing):
    capability, reason = choose("avx512", [f for f in AVX512_FLAGS if f != missing])
    assert capability == "AVX2"
    assert f"lacks {missing}" in reason and "fell back to AVX2" in reason


def test_this_process_runs_a_path_this_cpu_has():
    info = torch_uaccel.build_info()
    assert info["cpu_kernels"] in info["cpu_runnable"]
    assert info["cpu_runnable"][0] == "DEFAULT"
    expected, _ = choose(torch.backends.cpu.get_cpu_capability(), info["cpu_flags"])
    assert info["cpu_kernels"] == expected


def test_cpu_flags_agree_with_proc_cpuinfo():
    with open("/proc/cpuinfo") as cpuinfo:
        proc_flags = set(next(line for line in cpuinfo if line.startswith("flags")).split(":", 1)[1].split())
    assert set(torch_uaccel.build_info()["cpu_flags"]) <= proc_flags


UNRUNNABLE = [c for c in ("avx512", "avx2") if c.upper() not in torch_uaccel.build_info()["cpu_runnable"]]


@pytest.mark.skipif(not UNRUNNABLE, reason="this CPU runs every path; the choice is tested with played flags above")
@pytest.mark.parametrize("capability", UNRUNNABLE)
def test_forcing_a_path_the_cpu_lacks_falls_back(capability):
    """In a child process (a wrong choice is SIGILL): only our kernels run, no ATen vector kernel,
    since ATen itself trusts the variable."""
    script = (
        "import torch, torch_uaccel\n"
        "x = torch.tensor([-2.0, -0.5, 0.0, 1.5] * 16)\n"
        "y = torch.ops.uaccel.elu(x, 1.0)\n"
        "info = torch_uaccel.build_info()\n"
        "print(info['cpu_kernels'], '|', info['cpu_kernels_reason'], '|', y.tolist()[:4])\n"
    )
    env = dict(os.environ, ATEN_CPU_CAPABILITY=capability)
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    chosen, reason, values = (part.strip() for part in done.stdout.split("|"))
    assert chosen == torch_uaccel.build_info()["cpu_runnable"][-1]
    assert f"requested {capability.upper()}" in reason and "lacks" in reason
    expected = torch.nn.functional.elu(torch.tensor([-2.0, -0.5, 0.0, 1.5], dtype=torch.float64), 1.0)
    torch.testing.assert_close(
        torch.tensor(ast.literal_eval(values), dtype=torch.float64), expected, rtol=1e-6, atol=1e-7
    )
