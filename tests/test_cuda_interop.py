"""The CUDA-Python world the library grew from: CuPy and Numba arrays through DLPack or the CUDA
array interface into the ops with no copy, CuPy streams made current as torch.cuda.ExternalStream,
and registered host memory seen by CuPy kernels and ours. Needs a GPU and CuPy / numba-cuda (the lent
GPU machine has both; run by benchmarks/gpu_check.sh)."""

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from conftest import HAS_CUDA

import torch_uaccel

pytestmark = [pytest.mark.cuda, pytest.mark.skipif(not HAS_CUDA, reason="needs a CUDA device")]
cupy = pytest.importorskip("cupy") if HAS_CUDA else None

# Spins for `cycles` GPU clock cycles, then writes `value` everywhere: anything that reads `out`
# without being ordered after it on the stream sees the old contents.
SPIN_THEN_FILL = r"""
extern "C" __global__ void spin_then_fill(float* out, long long n, float value, long long cycles) {
  long long start = clock64();
  while (clock64() - start < cycles) {}
  for (long long i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) out[i] = value;
}
"""
CYCLES = 200_000_000  # ~0.1 s


def test_cupy_arrays_through_dlpack_are_not_copied():
    array = cupy.linspace(-4, 4, 1 << 20, dtype=cupy.float32)
    x = torch.from_dlpack(array)
    assert x.data_ptr() == array.data.ptr
    y = torch_uaccel.elu(x, 0.5)
    torch.testing.assert_close(y, F.elu(x.clone(), 0.5))
    torch_uaccel.elu(x, 0.5, inplace=True)  # written through to the CuPy array
    cupy.testing.assert_allclose(array, cupy.from_dlpack(y), rtol=1e-6)


def test_numba_device_arrays_are_not_copied():
    numba_cuda = pytest.importorskip("numba.cuda")
    array = numba_cuda.to_device(np.linspace(-4, 4, 4096, dtype=np.float32))
    x = torch.as_tensor(array, device="cuda")  # __cuda_array_interface__
    assert x.data_ptr() == array.device_ctypes_pointer.value
    torch.testing.assert_close(torch_uaccel.elu(x, 0.5), F.elu(torch.from_numpy(array.copy_to_host()), 0.5).cuda())


def test_ops_and_async_copy_run_on_a_cupy_stream_made_current():
    kernel = cupy.RawKernel(SPIN_THEN_FILL, "spin_then_fill")
    n = 1 << 16
    stream = cupy.cuda.Stream(non_blocking=True)
    data = cupy.zeros(n, dtype=cupy.float32)
    host = torch.zeros(n).pin_memory()
    with stream:
        kernel((64,), (256,), (data, cupy.int64(n), cupy.float32(-2.0), cupy.int64(CYCLES)))
    with torch.cuda.stream(torch.cuda.ExternalStream(stream.ptr)):
        y = torch_uaccel.elu(torch.from_dlpack(data), 1.0)  # must wait for the fill: same stream
        torch_uaccel.async_copy(host, y)
        done = torch.cuda.Event()
        done.record()
    done.synchronize()
    torch.testing.assert_close(host, F.elu(torch.full((n,), -2.0), 1.0))
    # async_copy recorded the stream on the pinned block (as copy_(non_blocking=True) does), and PyTorch's
    # host allocator records an event on that stream when the block is freed: the tensors go before
    # CuPy destroys its stream (freed after it, the event's record fails in the deleter and aborts).
    del host, y, done


def test_registered_host_memory_is_shared_with_cupy_kernels():
    frames = np.zeros(1 << 16, dtype=np.float32)
    with torch_uaccel.register_host(frames) as reg:
        assert reg.device is not None
        view = cupy.from_dlpack(reg.device)  # CuPy's view of the same mapped host pages
        view[:] = -1.5  # a CuPy kernel writes host memory
        cupy.cuda.get_current_stream().synchronize()
        assert (frames == -1.5).all()
        out = torch_uaccel.elu(reg.device, 1.0)  # our kernel reads it
        torch.testing.assert_close(out.cpu(), F.elu(torch.from_numpy(frames), 1.0))
