"""async_copy_ with CUDA: the current stream, no host blocking, pinned and pageable host memory.
Needs a GPU (run by benchmarks/gpu_check.sh)."""

import threading
import time

import pytest
import torch
from conftest import HAS_CUDA

import torch_uaccel

pytestmark = [pytest.mark.cuda, pytest.mark.skipif(not HAS_CUDA, reason="needs a CUDA device")]

SLEEP_CYCLES = 200_000_000  # ~0.1 s of GPU time: long enough that the host can look before it ends


def test_copy_is_ordered_on_a_non_default_stream():
    stream = torch.cuda.Stream()
    host = torch.empty(1 << 20, pin_memory=True)
    with torch.cuda.stream(stream):
        x = torch.full((1 << 20,), 2.0, device="cuda")
        x = torch_uaccel.elu(x * 3 - 7, 1.0)  # kernels queued on `stream`
        torch_uaccel.async_copy(host, x)  # ordered after them
        y = torch.empty_like(x)
        torch_uaccel.async_copy(y, x * 2)  # device to device, same stream
    stream.synchronize()
    expected = torch.nn.functional.elu(torch.full((1 << 20,), -1.0), 1.0)
    torch.testing.assert_close(host, expected)
    torch.testing.assert_close(y.cpu(), expected * 2)


def test_copy_uses_the_calling_threads_own_stream_and_does_not_block():
    results = {}

    def worker():
        stream = torch.cuda.Stream()
        src = torch.full((1024,), 5.0, device="cuda")
        dst = torch.zeros(1024, pin_memory=True)
        torch.cuda.synchronize()
        with torch.cuda.stream(stream):
            torch.cuda._sleep(SLEEP_CYCLES)  # the stream is busy for a while
            torch_uaccel.async_copy(dst, src)  # so the copy waits behind the sleep, on this stream
            results["before"] = dst.clone()  # the host did not wait for it
        stream.synchronize()
        results["after"] = dst.clone()

    thread = threading.Thread(target=worker)
    thread.start()
    thread.join()
    assert torch.equal(results["before"], torch.zeros(1024))
    assert torch.equal(results["after"], torch.full((1024,), 5.0))


def test_host_call_returns_before_a_256_mib_pinned_transfer_finishes():
    src = torch.randn(64 << 20, pin_memory=True)  # 256 MiB
    dst = torch.empty(64 << 20, device="cuda")
    torch.cuda.synchronize()
    start = time.perf_counter()
    torch_uaccel.async_copy(dst, src)
    call = time.perf_counter() - start
    torch.cuda.synchronize()
    total = time.perf_counter() - start
    assert call < 0.25 * total, (call, total)
    assert torch.equal(dst.cpu(), src)


@pytest.mark.parametrize("direction", ["h2d", "d2h", "d2h-strided"])
def test_pageable_memory_is_staged_with_right_values(direction):
    cpu = torch.randn(513, 257)
    cuda = torch.randn(513, 257, device="cuda")
    if direction == "h2d":
        torch_uaccel.async_copy(cuda, cpu)
        torch.cuda.synchronize()
        assert torch.equal(cuda.cpu(), cpu)
    elif direction == "d2h":
        torch_uaccel.async_copy(cpu, cuda)  # lands through a host function on the stream
        torch.cuda.synchronize()
        assert torch.equal(cpu, cuda.cpu())
    else:
        dst = torch.zeros(513, 514)[:, ::2]
        torch_uaccel.async_copy(dst, cuda)
        torch.cuda.synchronize()
        assert torch.equal(dst, cuda.cpu())


def test_device_view_of_a_registration_is_read_and_written_by_uaccel_kernels():
    np = pytest.importorskip("numpy")
    array = np.linspace(-2, 2, 4096, dtype=np.float32)
    with torch_uaccel.register_host(array) as reg:
        assert reg.host.is_pinned()
        assert reg.device is not None and reg.device.is_cuda
        y = torch_uaccel.elu(reg.device, 1.0)  # a kernel reading host memory
        torch_uaccel.async_copy(reg.device, y * 10)  # and writing it
        torch.cuda.synchronize()
    expected = torch.nn.functional.elu(torch.linspace(-2, 2, 4096), 1.0) * 10
    torch.testing.assert_close(torch.from_numpy(array), expected)


def test_memory_already_pinned_by_torch_is_refused():
    pinned = torch.empty(4096, pin_memory=True)
    with pytest.raises(
        RuntimeError, match=r"uaccel\.register_host: expected pageable memory, but these pages are already page-locked"
    ):
        torch_uaccel.register_host(pinned)
