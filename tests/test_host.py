"""Pinned zero-copy host registration on this machine: no copies, pages really locked (mlock without
a CUDA device, visible as VmLck), reference counting of shared pages, lifetimes, errors, threads."""

import mmap
import resource
import subprocess
import sys

import numpy as np
import pytest
import torch
from conftest import HAS_CUDA, UNDER_ASAN, run_threads, status_kib

import torch_uaccel

PAGE = mmap.PAGESIZE


def vmlck_kib() -> int:
    return status_kib("VmLck")


needs_mlock = pytest.mark.skipif(
    HAS_CUDA or UNDER_ASAN,
    reason="pages are pinned by cudaHostRegister with a CUDA device; AddressSanitizer ignores mlock",
)


@pytest.fixture
def mlock_allowed():
    soft, _ = resource.getrlimit(resource.RLIMIT_MEMLOCK)
    probe = bytearray(PAGE * 2)
    try:
        with torch_uaccel.register_host(probe):
            pass
    except RuntimeError as error:
        pytest.skip(f"mlock is not permitted here (RLIMIT_MEMLOCK soft limit {soft}): {error}")


def page_aligned_array(nbytes, dtype=np.uint8):
    """A NumPy array starting on a page boundary (so page counts are exact)."""
    raw = np.zeros(nbytes + PAGE, dtype=np.uint8)
    offset = (-raw.ctypes.data) % PAGE
    return raw[offset : offset + nbytes].view(dtype)


def buffers():
    """(name, object, dtype of its host tensor) for each kind of object register_host takes."""
    array = np.arange(1000, dtype=np.float32)
    yield "numpy", array, torch.float32
    yield "tensor", torch.arange(1000, dtype=torch.int64), torch.int64
    yield "bytearray", bytearray(range(256)) * 4, torch.uint8
    yield "memoryview", memoryview(bytearray(3000)), torch.uint8
    mapped = mmap.mmap(-1, 3 * PAGE)
    yield "mmap", mapped, torch.uint8


@pytest.mark.parametrize("kind", ["numpy", "tensor", "bytearray", "memoryview", "mmap"])
def test_registration_shares_bytes_both_ways(kind):
    _, obj, dtype = next(b for b in buffers() if b[0] == kind)
    as_numpy = np.asarray(obj) if kind != "tensor" else obj.numpy()
    as_numpy = as_numpy.view(np.uint8).reshape(-1) if kind in ("bytearray", "memoryview", "mmap") else as_numpy
    with torch_uaccel.register_host(obj) as reg:
        assert reg.host.dtype == dtype and reg.host.device.type == "cpu"
        assert reg.host.data_ptr() == as_numpy.ctypes.data  # the same bytes: nothing was copied
        reg.host[3] = 42  # a write through the tensor...
        assert as_numpy[3] == 42
        as_numpy[5] = 7  # ...and one through the object
        assert int(reg.host[5]) == 7
        if HAS_CUDA:
            assert reg.device is not None and reg.device.is_cuda and reg.device.shape == reg.host.shape
        else:
            assert reg.device is None


@needs_mlock
def test_pages_stay_locked_while_registered(mlock_allowed):
    base = vmlck_kib()
    array = page_aligned_array(64 * PAGE)
    reg = torch_uaccel.register_host(array)
    assert vmlck_kib() - base == 64 * PAGE // 1024
    reg.close()
    assert vmlck_kib() == base
    reg.close()  # idempotent
    assert reg.closed and vmlck_kib() == base


@needs_mlock
def test_two_registrations_on_one_page_unlock_only_after_both_close(mlock_allowed):
    base = vmlck_kib()
    page = page_aligned_array(PAGE)
    first = torch_uaccel.register_host(page[:100])
    second = torch_uaccel.register_host(page[200:300])  # same page: shared, not an error
    assert vmlck_kib() - base == PAGE // 1024
    first.close()
    assert vmlck_kib() - base == PAGE // 1024  # still held by `second`
    second.close()
    assert vmlck_kib() == base


@needs_mlock
def test_overlapping_registrations_spanning_several_ranges(mlock_allowed):
    base = vmlck_kib()
    array = page_aligned_array(10 * PAGE)
    middle = torch_uaccel.register_host(array[3 * PAGE : 5 * PAGE])
    whole = torch_uaccel.register_host(array)  # covers the middle chunk and locks only the rest
    assert vmlck_kib() - base == 10 * PAGE // 1024
    middle.close()
    assert vmlck_kib() - base == 10 * PAGE // 1024
    whole.close()
    assert vmlck_kib() == base


def test_views_stay_valid_after_the_object_is_deleted():
    array = np.arange(4096, dtype=np.float64)
    reg = torch_uaccel.register_host(array)
    host = reg.host
    del array, reg  # the registration closes on collection; the view keeps the bytes alive
    assert float(host.sum()) == sum(range(4096))


def test_empty_buffer_registers():
    with torch_uaccel.register_host(bytearray()) as reg:
        assert reg.host.numel() == 0


def test_read_only_buffers_are_refused():
    array = np.zeros(100)
    array.setflags(write=False)
    with pytest.raises(
        RuntimeError, match=r"uaccel\.register_host: expected a writable array, but this NumPy array is read-only"
    ):
        torch_uaccel.register_host(array)
    with pytest.raises(
        RuntimeError, match=r"uaccel\.register_host: expected a writable buffer, but this bytes is read-only"
    ):
        torch_uaccel.register_host(b"immutable")


def test_non_contiguous_buffers_are_refused():
    with pytest.raises(RuntimeError, match=r"uaccel\.register_host: expected a C-contiguous array"):
        torch_uaccel.register_host(np.zeros((10, 10))[:, ::2])
    with pytest.raises(RuntimeError, match=r"uaccel\.register_host: expected a contiguous tensor"):
        torch_uaccel.register_host(torch.zeros(10, 10).t())
    with pytest.raises(RuntimeError, match=r"uaccel\.register_host: expected a contiguous tensor"):
        torch.ops.uaccel.register_host(torch.zeros(10, 10).t())  # the C++ entry point checks too


def test_other_objects_are_refused():
    with pytest.raises(
        TypeError, match=r"uaccel\.register_host: expected a CPU tensor, a NumPy array or a writable buffer"
    ):
        torch_uaccel.register_host(12)
    with pytest.raises(
        RuntimeError, match=r"uaccel\.unregister_host: expected the id of an open registration, but got -5"
    ):
        torch.ops.uaccel.unregister_host(-5)


@pytest.mark.slow
def test_registration_is_eager_only():
    """A fullgraph trace through it must refuse, saying why."""

    def register(t):
        with torch_uaccel.register_host(t) as reg:
            return reg.host.sum()

    buffer = torch.ones(16)
    assert float(register(buffer)) == 16.0
    torch._dynamo.reset()
    with pytest.raises(Exception, match=r"uaccel\.register_host: eager-only"):
        torch.compile(register, fullgraph=True)(buffer)


@needs_mlock
def test_eight_threads_register_and_close_distinct_and_overlapping_buffers(mlock_allowed):
    base = vmlck_kib()
    shared = page_aligned_array(16 * PAGE)

    def work(index):
        own = page_aligned_array(4 * PAGE)
        for step in range(200):
            start = (index + step) % 12 * PAGE + index * 8
            with (
                torch_uaccel.register_host(shared[start : start + 3 * PAGE]) as a,
                torch_uaccel.register_host(own) as b,
            ):
                a.host[0] = index
                b.host[-1] = step % 256
            assert own[-1] == step % 256

    run_threads(work, 8)
    assert vmlck_kib() == base


USE_AFTER_FREE = """
import mmap, torch, torch_uaccel
mapped = mmap.mmap(-1, 8192)
reg = torch_uaccel.register_host(mapped)
try:
    mapped.close()
except BufferError:
    pass
reg.host[0] = 1  # after a successful close this was a SIGSEGV
grown = bytearray(4096)
reg2 = torch_uaccel.register_host(grown)
try:
    grown.extend(bytes(1 << 20))
except BufferError:
    pass
reg2.host[100] = 5  # after a successful extend this corrupted the heap
kept = reg.host
reg.close()
try:
    mapped.close()
except BufferError:
    pass
kept[1] = 2  # a view kept past close() still holds the export
print("survived", int(kept[0]), int(kept[1]), grown[100])
"""


def test_owner_cannot_free_memory_under_a_registration_in_a_child_process():
    """Run in a child so that a regression (a crash) fails this test instead of killing the run."""
    done = subprocess.run([sys.executable, "-c", USE_AFTER_FREE], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, f"child died with {done.returncode}: {done.stderr[-2000:]}"
    assert done.stdout.split() == ["survived", "1", "2", "5"]
