"""Concurrency and leak soak across every op, the allocator hook, track() and registration.
UACCEL_SOAK_ITERATIONS (default 2000) sets the soak length; the issue's long run is 100000."""

import gc
import mmap
import os
import threading
import time

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from conftest import UNDER_ASAN, run_threads, status_kib
from forking import CHILD_TIMEOUT, RoundsApart, in_forked_child

import torch_uaccel
from torch_uaccel import memory

SOAK = int(os.environ.get("UACCEL_SOAK_ITERATIONS", "2000"))


def test_many_threads_use_every_op_under_the_hook_and_tracking():
    """The hook and track() are process-wide: one install and one track block cover all threads."""
    memory.empty_cache()
    base = memory.stats()

    def work(index):
        gen = torch.Generator().manual_seed(index)
        for step in range(40):
            x = torch.randn(257, 33, generator=gen, dtype=torch.float64).requires_grad_()
            y = torch_uaccel.elu(x, 0.7)
            (dx,) = torch.autograd.grad(y.sum(), x)
            expected = torch.where(x > 0, 1.0, 0.7 * x.detach().exp())
            torch.testing.assert_close(dx, expected)
            dst = torch.empty(33, 257, dtype=torch.float64).t()
            torch_uaccel.async_copy(dst, y.detach())
            assert torch.equal(dst, y.detach())
            aligned = memory.aligned_empty(1000 + step, alignment=4096, dtype=torch.uint8)
            assert aligned.data_ptr() % 4096 == 0
            buffer = np.full(5000, index, dtype=np.uint8)
            with torch_uaccel.register_host(buffer) as reg:
                assert int(reg.host.sum()) == 5000 * index

    with memory.cpu_allocator(alignment=256), memory.track() as tracked:
        run_threads(work, 8)
        gc.collect()
    assert tracked.leaks == []
    after = memory.stats()
    assert after["allocated_bytes"] == base["allocated_bytes"]
    assert after["allocations"] - after["frees"] == base["allocations"] - base["frees"]


def test_long_ops_release_the_gil():
    x = torch.randn(1 << 26)
    progress = []
    stop = threading.Event()

    def count():
        n = 0
        while not stop.is_set():
            n += 1
            progress.append(n)

    counter = threading.Thread(target=count)
    counter.start()
    time.sleep(0.01)
    try:
        before = len(progress)
        torch.ops.uaccel.elu(x, 1.0)  # one C++ call of tens of milliseconds
        during = len(progress) - before
    finally:
        stop.set()
        counter.join()
    assert during > 0, "no Python thread ran while the op ran: the GIL was held"


def owner_closed_resized_and_collected_around_registrations():
    """The owner tries to free, close or resize its memory while registered (refused), and may once
    the registration and its views are gone; an owner only the registration holds is collected."""
    mapped = mmap.mmap(-1, 2 * 4096)
    reg = torch_uaccel.register_host(mapped)
    with pytest.raises(BufferError):
        mapped.close()
    reg.host[0] = 1
    reg.close()
    mapped.close()
    grown = bytearray(5000)
    with torch_uaccel.register_host(grown) as reg:
        with pytest.raises(BufferError):
            grown.extend(b"x" * 4096)
        reg.host[-1] = 2
    grown.extend(b"x")
    orphan = torch_uaccel.register_host(bytearray(4096))
    host = orphan.host
    del orphan  # the registration closes on collection; the view keeps the bytes (and export) alive
    host[0] = 3


class Soak:
    """One round uses every op, a registration (and its owner's refusals), the hook's install and
    uninstall; the inputs are made once."""

    def __init__(self):
        self.x, self.g, self.dst = torch.randn(1000), torch.randn(1000), torch.empty(1000)
        self.buffer = bytearray(3 * 4096)

    def round(self):
        y = torch.ops.uaccel.elu(self.x, 0.5)
        torch.ops.uaccel.elu_backward(self.g, y, 0.5, True)
        torch.ops.uaccel.async_copy_(self.dst, y)
        memory.aligned_empty(300, alignment=64)
        with torch_uaccel.register_host(self.buffer):
            pass
        owner_closed_resized_and_collected_around_registrations()
        memory.install_cpu_allocator(64)
        torch.empty(100)
        memory.uninstall_cpu_allocator()

    def run(self, rounds):
        for _ in range(rounds):
            self.round()
        torch.testing.assert_close(self.dst, F.elu(self.x, 0.5))


def test_soak_every_op_registration_and_hook_install():
    memory.empty_cache()
    gc.collect()
    base_live = memory.stats()["allocated_bytes"]
    base_locked = status_kib("VmLck")
    soak = Soak()
    soak.run(200)  # warm up caches before measuring
    gc.collect()
    rss_before = status_kib("VmRSS")
    soak.run(SOAK)
    gc.collect()
    rss_growth_kib = status_kib("VmRSS") - rss_before
    if not UNDER_ASAN:
        assert rss_growth_kib < 8 * 1024, f"resident memory grew by {rss_growth_kib} KiB over {SOAK} rounds"
    assert memory.stats()["allocated_bytes"] == base_live
    assert status_kib("VmLck") == base_locked


def _soak_in_spawned_child(_index, rounds):
    Soak().run(rounds)


def test_soak_in_forked_and_spawned_children():
    """The soak's rounds in children: forked ones while a parent thread runs them too, and processes
    started by torch.multiprocessing with spawn (a fresh interpreter that loads the library anew)."""
    stop = threading.Event()
    # Made here: the thread must not draw from torch's default generator, whose mutex (torch's) it
    # could hold at fork(). Its first round does first-call work (imports, statics) before any fork.
    parent_soak = Soak()
    parent_soak.run(1)
    rounds = RoundsApart(apart=UNDER_ASAN)

    def parent_rounds():
        while not stop.is_set():
            with rounds.round():
                parent_soak.round()

    busy = threading.Thread(target=parent_rounds, daemon=True)
    busy.start()
    try:
        for _ in range(20):
            in_forked_child(
                lambda: Soak().run(max(SOAK // 100, 1)),
                around_fork=rounds.between_rounds,
            )
    finally:
        stop.set()
        busy.join()
    context = torch.multiprocessing.start_processes(
        _soak_in_spawned_child, args=(max(SOAK // 10, 1),), nprocs=2, join=False, start_method="spawn"
    )
    deadline = time.monotonic() + CHILD_TIMEOUT * 5
    while not context.join(timeout=5):  # raises if a child failed
        if time.monotonic() > deadline:
            for process in context.processes:
                process.kill()
            pytest.fail("a spawned soak child did not finish in time")
