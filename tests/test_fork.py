"""What a forked child inherits from libuaccel, and that no child hangs however busy the parent was.

A child inherits (csrc/common/fork_safety.h; README "Processes"): the installed allocator, its cache
and its statistics as they stood at fork(), which keep working there; no open track() block (ending
one opened in the parent raises, naming fork); its copies of the parent's registrations, with no
page locks (mlock's are not inherited, CUDA does not survive fork()): closing them there releases
nothing, and new registrations lock the child's own pages. Every child is waited for under a bound.
"""

import json
import os
import subprocess
import sys
import threading
import warnings

import pytest
import torch
import torch.nn.functional as F
from conftest import UNDER_ASAN, status_kib
from forking import CHILD_TIMEOUT, in_forked_child

import torch_uaccel
from torch_uaccel import memory

HERE = os.path.dirname(os.path.abspath(__file__))
FORKS = int(os.environ.get("UACCEL_FORKS", "1000"))


STATS_KEYS = ("allocated_bytes", "cached_bytes", "allocations", "frees", "alignment")


def test_the_allocator_its_cache_and_statistics_carry_on_in_a_child():
    with memory.cpu_allocator(alignment=4096):
        memory.empty_cache()
        torch.empty(1 << 18)  # 1 MiB, freed at once into the cache
        at_fork = memory.stats()

        def child():
            inherited = memory.stats()
            reused = torch.empty(1 << 18)  # the cached block, reused
            after = memory.stats()
            return inherited, reused.data_ptr() % 4096, after

        inherited, misalignment, after = in_forked_child(child)
        assert {k: inherited[k] for k in STATS_KEYS} == {k: at_fork[k] for k in STATS_KEYS}
        assert misalignment == 0
        assert after["allocations"] == at_fork["allocations"] + 1
        assert after["cached_bytes"] == at_fork["cached_bytes"] - (1 << 20)
        assert memory.stats()["allocations"] == at_fork["allocations"]  # the parent's counts are its own


def test_a_child_starts_with_no_open_track_block():
    with memory.cpu_allocator(), memory.track() as outer:
        kept_by_parent = torch.empty(100)

        def child():
            with pytest.raises(RuntimeError, match=r"uaccel\.memory_track_end: .*this is a forked child"):
                outer.__exit__(None, None, None)  # the parent's block, inherited open
            with memory.track() as own:
                kept = torch.empty(300)
            del kept
            return [leak.size for leak in own.leaks]

        assert in_forked_child(child) == [1200]
    assert [leak.size for leak in outer.leaks] == [400]  # none of the child's allocations
    del kept_by_parent


def test_registrations_in_a_child_hold_no_page_locks_and_never_release_the_parents():
    buffer = bytearray(8 * 4096)
    reg = torch_uaccel.register_host(buffer)
    reg.host[:4] = torch.tensor([1, 2, 3, 4], dtype=torch.uint8)
    locked_in_parent = status_kib("VmLck")

    def child():
        inherited_locks = status_kib("VmLck")  # mlock's locks are not inherited
        contents = reg.host[:4].tolist()
        again = torch_uaccel.register_host(buffer)  # the same pages, locked by the child itself
        locked_again = status_kib("VmLck")
        reg.close()  # the parent's registration: releases nothing, above all not the child's own lock
        after_close = status_kib("VmLck")
        again.close()
        return inherited_locks, contents, locked_again, after_close, status_kib("VmLck")

    inherited_locks, contents, locked_again, after_close, after_all = in_forked_child(child)
    assert contents == [1, 2, 3, 4]
    if not UNDER_ASAN:  # ASan ignores mlock
        assert locked_in_parent >= 32
        assert (inherited_locks, after_all) == (0, 0)
        assert locked_again >= 32 and after_close == locked_again
    assert not reg.closed and status_kib("VmLck") == locked_in_parent  # the parent's lock is untouched
    reg.close()


def test_no_child_hangs_while_threads_allocate_track_and_register():
    """The failure as users met it: a child inheriting a mutex another thread held at fork()."""
    command = [sys.executable, os.path.join(HERE, "fork_stress.py"), "--forks", str(FORKS)]
    if UNDER_ASAN:  # ASan's own allocator is not fork-safe: forks wait for the threads' steps in progress
        command.append("--rounds-apart")
    done = subprocess.run(command, capture_output=True, text=True, timeout=1200 if UNDER_ASAN else 600)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.splitlines()[-1])
    assert (result["hung"], result["failed"]) == (0, 0), (result, done.stderr[-3000:])


class ActivatedSamples(torch.utils.data.Dataset):
    """A dataset whose items are made by the ops, through the allocator the parent installed."""

    def __len__(self):
        return 64

    def __getitem__(self, index):
        x = torch.linspace(-3, 3, 1000, dtype=torch.float64) * (index + 1)
        return torch_uaccel.elu(x, 0.5), torch_uaccel.selu(x), memory.stats()["alignment"]


def test_a_dataloader_with_fork_workers_uses_the_ops_and_the_allocator():
    stop = threading.Event()
    # Its own generator: each worker seeds torch's default one, whose mutex (torch's, not ours) a thread
    # drawing from it may hold at fork() -- a hang seen with torch 2.15 whatever the allocator.
    own = torch.Generator().manual_seed(0)

    def allocate_meanwhile():
        while not stop.is_set():
            torch_uaccel.elu(torch.randn(4096, generator=own), 0.3)
            memory.aligned_empty(1000, alignment=256)

    # Lazy first-call work (imports, C++ statics) racing a fork() can hang a child in Python or torch
    # whatever the allocator (fork_stress.py says more): done once before the workers start.
    ActivatedSamples()[0]
    with memory.cpu_allocator(alignment=256):
        busy = threading.Thread(target=allocate_meanwhile, daemon=True)
        busy.start()
        try:
            with warnings.catch_warnings():
                warnings.filterwarnings("ignore", message=".*use of fork\\(\\)", category=DeprecationWarning)
                loader = torch.utils.data.DataLoader(
                    ActivatedSamples(),
                    batch_size=8,
                    num_workers=2,
                    multiprocessing_context="fork",
                    timeout=CHILD_TIMEOUT,
                )
                batches = list(loader)
        finally:
            stop.set()
            busy.join()
    x = torch.linspace(-3, 3, 1000, dtype=torch.float64)
    for b, (elu, selu, alignment) in enumerate(batches):
        scale = torch.arange(8 * b + 1, 8 * b + 9, dtype=torch.float64)[:, None]
        torch.testing.assert_close(elu, F.elu(x * scale, 0.5))
        torch.testing.assert_close(selu, F.selu(x * scale))
        assert alignment.tolist() == [256] * 8  # the workers allocate through the inherited hook
    assert len(batches) == 8
