"""Fake (meta) kernels of every uaccel operator, for torch.compile, torch.export and FakeTensor.

Each mirrors the checks of its C++ kernel (same conditions, same messages) and produces exactly
the output the real kernel produces (shape, dtype, device, strides), without reading concrete sizes.
The C++ library points here (m.set_python_module), so tracing tells users to import it if needed.
"""
import torch

_FLOATING = (torch.float16, torch.bfloat16, torch.float32, torch.float64)


def _check_floating(op: str, name: str, t: torch.Tensor) -> None:
    torch._check(
        t.dtype in _FLOATING,
        lambda: f"{op}: expected {name} to be a floating-point tensor (float16, bfloat16, float32 or float64), "
        f"but got {t.dtype}",
    )


# Fake kernels mirror every check of the C++ kernels (csrc/elu/elu_common.cpp) and produce the
# same strides. The C++ kernels allocate through TensorIterator, exactly as ATen's elu does, so
# ATen's own meta kernels give the output layout (symbolic shapes included).
@torch.library.register_fake("uaccel::elu")
def _elu_fake(self: torch.Tensor, alpha=0.1, scale=1, input_scale=1) -> torch.Tensor:
    _check_floating("uaccel.elu", "self", self)
    return torch.ops.aten.elu.default(self, alpha, scale, input_scale)


@torch.library.register_fake("uaccel::elu_")
def _elu_inplace_fake(self: torch.Tensor, alpha=0.1, scale=1, input_scale=1) -> None:
    _check_floating("uaccel.elu_", "self", self)


@torch.library.register_fake("uaccel::elu_backward")
def _elu_backward_fake(grad_output: torch.Tensor, saved: torch.Tensor, alpha, is_result: bool, scale=1, input_scale=1) -> torch.Tensor:
    op = "uaccel.elu_backward"
    _check_floating(op, "grad_output", grad_output)
    _check_floating(op, "saved", saved)
    torch._check(
        grad_output.dtype == saved.dtype,
        lambda: f"{op}: expected grad_output and saved to have the same dtype, but got "
        f"{grad_output.dtype} and {saved.dtype}",
    )
    torch._check(
        grad_output.shape == saved.shape,
        lambda: f"{op}: expected grad_output and saved to have the same shape, but got "
        f"{list(grad_output.shape)} and {list(saved.shape)}",
    )
    torch._check(
        grad_output.device == saved.device,
        lambda: f"{op}: expected grad_output and saved on the same device, but got "
        f"{grad_output.device} and {saved.device}",
    )
    torch._check(
        not is_result or alpha >= 0,
        lambda: f"{op}: is_result=True (saved is the forward output) needs alpha >= 0, because the output "
        f"does not determine the input when alpha < 0; got alpha={alpha}",
    )
    return torch.ops.aten.elu_backward.default(grad_output, alpha, scale, input_scale, False, saved)


MAX_ALIGNMENT = 2**30


def check_alignment(op: str, alignment: int) -> None:
    torch._check(
        1 <= alignment <= MAX_ALIGNMENT and alignment & (alignment - 1) == 0,
        lambda: f"{op}: expected alignment to be a power of two between 1 and {MAX_ALIGNMENT} bytes, but got {alignment}",
    )


@torch.library.register_fake("uaccel::aligned_empty")
def _aligned_empty_fake(size, *, alignment=64, dtype=None, device=None):
    # A compiled graph allocates its own buffers: the alignment could not hold, so refuse the trace.
    if torch.compiler.is_compiling():
        raise RuntimeError("uaccel.aligned_empty: eager-only (a compiled graph allocates its own, unaligned "
                           "buffers); allocate outside the compiled function and pass the tensor in")
    check_alignment("uaccel.aligned_empty", alignment)
    for dim in size:
        torch._check(dim >= 0, lambda: f"uaccel.aligned_empty: expected sizes >= 0, but got {list(size)}")
    return torch.empty(size, dtype=dtype, device=device or "cpu")


@torch.library.register_fake("uaccel::async_copy_")
def _async_copy_fake(dst: torch.Tensor, src: torch.Tensor) -> None:
    # Overlap between dst and src needs real addresses; only the real kernels can check it.
    op = "uaccel.async_copy_"
    torch._check(dst.dtype == src.dtype,
                 lambda: f"{op}: expected dst and src to have the same dtype, but got {dst.dtype} and {src.dtype}")
    torch._check(dst.shape == src.shape,
                 lambda: f"{op}: expected dst and src to have the same shape, but got {list(dst.shape)} and {list(src.shape)}")
