"""Every user-facing error, one case each: the exception type, a message that names the op and the
bad value, and nothing changed by the failed call (tensor arguments untouched, no registration or
locked page left behind, allocator statistics unchanged)."""

import warnings

import numpy as np
import pytest
import torch
from conftest import HAS_CUDA, status_kib

import torch_uaccel
from torch_uaccel import memory


def readonly_array():
    array = np.zeros(64)
    array.setflags(write=False)
    return array


x = torch.randn(4, 5)


def _quantized():
    """A quantized tensor, which users still pass: torch 2.15 deprecates creating them (and warns)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="torch.quantize_per_tensor.*deprecated", category=UserWarning)
        return torch.quantize_per_tensor(torch.ones(4), 0.1, 0, torch.qint8)


shared = torch.arange(20.0)

# (name, call, exception type, pattern); each call gets fresh arguments so they can be compared after.
CATALOGUE = [
    (
        "elu-integer",
        lambda: torch_uaccel.elu(torch.ones(3, dtype=torch.int32)),
        RuntimeError,
        r"uaccel\.elu: expected self to be a floating-point tensor .* but got torch\.int32",
    ),
    (
        "elu-complex",
        lambda: torch_uaccel.elu(torch.ones(3, dtype=torch.complex64)),
        RuntimeError,
        r"uaccel\.elu: expected self .* but got torch\.complex64",
    ),
    (
        "elu_backward-negative-alpha-from-result",
        lambda: torch.ops.uaccel.elu_backward(x, x, -0.5, True),
        RuntimeError,
        r"uaccel\.elu_backward: is_result=True .* needs alpha >= 0, .*got alpha=-0\.5",
    ),
    (
        "elu_backward-shape",
        lambda: torch.ops.uaccel.elu_backward(x, x[:, :2], 0.1, False),
        RuntimeError,
        r"uaccel\.elu_backward: expected grad_output and saved to have the same shape, but got \[4, 5\] and \[4, 2\]",
    ),
    (
        "elu_backward-dtype",
        lambda: torch.ops.uaccel.elu_backward(x, x.double(), 0.1, False),
        RuntimeError,
        r"uaccel\.elu_backward: expected grad_output and saved to have the same dtype, but got torch\.float32 and torch\.float64",
    ),
    (
        "elu_backward-integer-grad",
        lambda: torch.ops.uaccel.elu_backward(x.long(), x, 0.1, False),
        RuntimeError,
        r"uaccel\.elu_backward: expected grad_output to be a floating-point tensor .* but got torch\.int64",
    ),
    (
        "async_copy-dtype",
        lambda: torch_uaccel.async_copy(x, x.double()),
        RuntimeError,
        r"uaccel\.async_copy_: expected dst and src to have the same dtype, but got torch\.float32 and torch\.float64",
    ),
    (
        "async_copy-shape",
        lambda: torch_uaccel.async_copy(x, torch.ones(5, 4)),
        RuntimeError,
        r"uaccel\.async_copy_: expected dst and src to have the same shape, but got \[4, 5\] and \[5, 4\]",
    ),
    (
        "async_copy-overlap",
        lambda: torch_uaccel.async_copy(shared[:10], shared[5:15]),
        RuntimeError,
        r"uaccel\.async_copy_: expected dst and src in separate memory, but they overlap",
    ),
    (
        "async_copy-expanded-dst",
        lambda: torch_uaccel.async_copy(torch.zeros(1, 5).expand(4, 5), x),
        RuntimeError,
        r"uaccel\.async_copy_: expected dst whose elements do not share memory, but got strides \[0, 1\]",
    ),
    (
        "aligned_empty-alignment",
        lambda: memory.aligned_empty(8, alignment=48),
        RuntimeError,
        r"uaccel\.aligned_empty: expected alignment to be a power of two .* but got 48",
    ),
    (
        "aligned_empty-negative-size",
        lambda: memory.aligned_empty((3, -2)),
        RuntimeError,
        r"uaccel\.aligned_empty: expected sizes >= 0, but got \[3, -2\]",
    ),
    (
        "cpu_allocator-alignment",
        lambda: memory.install_cpu_allocator(0),
        RuntimeError,
        r"uaccel\.install_cpu_allocator: expected alignment to be a power of two .* but got 0",
    ),
    (
        "cpu_allocator-uninstall-without-install",
        memory.uninstall_cpu_allocator,
        RuntimeError,
        r"uaccel\.uninstall_cpu_allocator: expected an installed uaccel CPU allocator, but none is installed",
    ),
    (
        "cache-limit-negative",
        lambda: memory.set_cache_limit(-5),
        RuntimeError,
        r"uaccel\.memory_set_cache_limit: expected a byte count >= 0, but got -5",
    ),
    (
        "track-end-without-begin",
        lambda: torch.ops.uaccel.memory_track_end(0),
        RuntimeError,
        r"uaccel\.memory_track_end: expected the token of a track\(\) block open in this process, but got 0$",
    ),
    (
        "register_host-read-only",
        lambda: torch_uaccel.register_host(readonly_array()),
        RuntimeError,
        r"uaccel\.register_host: expected a writable array, but this NumPy array is read-only",
    ),
    (
        "register_host-non-contiguous",
        lambda: torch_uaccel.register_host(np.zeros((8, 8))[:, ::2]),
        RuntimeError,
        r"uaccel\.register_host: expected a C-contiguous array, but got strides \(64, 16\)",
    ),
    (
        "register_host-type",
        lambda: torch_uaccel.register_host("text"),
        TypeError,
        r"uaccel\.register_host: expected a CPU tensor, a NumPy array or a writable buffer .* but got str",
    ),
    (
        "unregister_host-unknown",
        lambda: torch.ops.uaccel.unregister_host(123456789),
        RuntimeError,
        r"uaccel\.unregister_host: expected the id of an open registration, but got 123456789",
    ),
    (
        "cuda_pool-without-cuda",
        lambda: memory.cuda_pool(4096),
        RuntimeError,
        r"uaccel\.cuda_pool: expected a CUDA (device|build of torch_uaccel)",
    ),
    # Arguments that used to get the dispatcher's words.
    (
        "aligned_empty-huge-alignment",
        lambda: memory.aligned_empty(10, alignment=2**63),
        ValueError,
        r"uaccel\.aligned_empty: expected alignment to fit in 64 bits, but got 9223372036854775808",
    ),
    (
        "aligned_empty-string-size",
        lambda: memory.aligned_empty("10"),
        TypeError,
        r"uaccel\.aligned_empty: expected sizes to be ints, but got str \('10'\)",
    ),
    (
        "aligned_empty-float-size",
        lambda: memory.aligned_empty(10.5),
        TypeError,
        r"uaccel\.aligned_empty: expected sizes to be ints, but got float \(10\.5\)",
    ),
    (
        "aligned_empty-string-dtype",
        lambda: memory.aligned_empty(10, dtype="float32"),
        TypeError,
        r"uaccel\.aligned_empty: expected dtype to be a torch\.dtype, but got str \('float32'\)",
    ),
    (
        "aligned_empty-quantized-dtype",
        lambda: memory.aligned_empty(10, dtype=torch.qint8),
        TypeError,
        r"uaccel\.aligned_empty: expected a numeric dtype, but got torch\.qint8",
    ),
    (
        "aligned_empty-bad-device",
        lambda: memory.aligned_empty(10, device="gpu"),
        ValueError,
        r"uaccel\.aligned_empty: expected a device such as 'cpu' or 'cuda:0', but got 'gpu'",
    ),
    (
        "cache-limit-huge",
        lambda: memory.set_cache_limit(2**70),
        ValueError,
        r"uaccel\.memory\.set_cache_limit: expected nbytes to fit in 64 bits, but got 1180591620717411303424",
    ),
    (
        "track-exit-without-enter",
        lambda: memory.track().__exit__(None, None, None),
        RuntimeError,
        r"uaccel\.memory\.track: __exit__ without __enter__",
    ),
    (
        "register_host-sparse",
        lambda: torch_uaccel.register_host(torch.eye(3).to_sparse()),
        TypeError,
        r"uaccel\.register_host: expected a dense \(strided\) CPU tensor, but got a sparse_coo tensor",
    ),
    (
        "register_host-quantized",
        lambda: torch_uaccel.register_host(_quantized()),
        TypeError,
        r"uaccel\.register_host: expected a dense \(strided\) CPU tensor, but got a quantized tensor",
    ),
    (
        "async_copy-sparse",
        lambda: torch_uaccel.async_copy(x, torch.ones(4, 5).to_sparse()),
        RuntimeError,
        r"uaccel\.async_copy_: expected src to be a dense \(strided\) tensor, but got a Sparse tensor",
    ),
    (
        "async_copy-meta-src",
        lambda: torch_uaccel.async_copy(x, torch.empty(4, 5, device="meta")),
        RuntimeError,
        r"uaccel\.async_copy_: expected dst and src on the same device, or one on the CPU and one on CUDA, but got cpu and meta",
    ),
    (
        "async_copy-into-leaf-requiring-grad",
        lambda: torch_uaccel.async_copy(torch.zeros(4, 5, requires_grad=True), x),
        RuntimeError,
        r"uaccel\.async_copy_: is not differentiable; .* but got dst\.requires_grad=True",
    ),
    (
        "async_copy-from-grad",
        lambda: torch_uaccel.async_copy(torch.zeros(4, 5), x.clone().requires_grad_()),
        RuntimeError,
        r"uaccel\.async_copy_: is not differentiable; .* src\.requires_grad=True",
    ),
    (
        "elu-tensor-alpha",
        lambda: torch_uaccel.elu(x, torch.tensor(0.5, requires_grad=True)),
        TypeError,
        r"torch_uaccel\.elu: expected alpha to be a real number or a 0-dim real tensor that does not require grad "
        r"\(as F\.elu\), but got a torch\.float32 Tensor of shape \(\) on cpu that requires grad",
    ),
    ("elu-alpha-overflows-float32", lambda: torch_uaccel.elu(x, 1e308), RuntimeError, r"overflow"),
]


def test_async_copy_into_an_inference_tensor_outside_inference_mode():
    with torch.inference_mode():
        dst = torch.zeros(4, 5)
    with pytest.raises(RuntimeError, match="Inplace update to inference tensor outside InferenceMode"):
        torch_uaccel.async_copy(dst, x)
    assert not dst.any()  # refused before the write
    with torch.inference_mode():
        torch_uaccel.async_copy(dst, x)  # inside inference_mode it is allowed, as for copy_
    assert torch.equal(dst, x)


def test_absent_cuda_device_in_aligned_empty():
    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA")
    with pytest.raises(RuntimeError, match=r"uaccel\.aligned_empty: expected an available device, but got cuda"):
        memory.aligned_empty(10, device="cuda")


def test_elu_of_zero_with_infinite_alpha_is_zero_as_f_elu():
    zeros = torch.tensor([0.0, -0.0])
    out = torch_uaccel.elu(zeros, float("inf"))
    expected = torch.nn.functional.elu(zeros, float("inf"))
    assert torch.equal(out, expected) and torch.equal(out.signbit(), expected.signbit())


@pytest.mark.parametrize("name, call, error_type, pattern", CATALOGUE, ids=[c[0] for c in CATALOGUE])
def test_error(name, call, error_type, pattern):
    if name == "cuda_pool-without-cuda" and HAS_CUDA:
        pytest.skip("this machine has CUDA")
    before_tensors = (x.clone(), shared.clone())
    before_stats = memory.stats()
    before_locked = status_kib("VmLck")
    with pytest.raises(error_type, match=pattern):
        call()
    assert torch.equal(x, before_tensors[0]) and torch.equal(shared, before_tensors[1])
    after = memory.stats()
    assert after["allocated_bytes"] == before_stats["allocated_bytes"]
    assert after["allocations"] - after["frees"] == before_stats["allocations"] - before_stats["frees"]
    assert status_kib("VmLck") == before_locked
    torch.empty(10)  # the CPU allocator hook is not left installed: this is not counted
    assert memory.stats()["allocations"] == after["allocations"]
