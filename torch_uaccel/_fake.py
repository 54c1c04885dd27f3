"""Fake (meta) kernels of every uaccel operator, for torch.compile, torch.export and FakeTensor.

Each mirrors the checks of its C++ kernel (same conditions, same messages) and produces exactly
the output the real kernel produces (shape, dtype, device, strides), without reading concrete sizes.
The C++ library points here (m.set_python_module), so tracing tells users to import it if needed.
"""
import torch

from . import _checks


# Fake kernels run every check of the C++ kernels (csrc/common/elementwise.h, csrc/elu/elu_kernels.h)
# and produce the same strides. The C++ kernels allocate through TensorIterator, exactly as ATen's elu does, so
# ATen's own meta kernels give the output layout (symbolic shapes included).
@torch.library.register_fake("uaccel::elu")
def _elu_fake(self: torch.Tensor, alpha=0.1, scale=1, input_scale=1) -> torch.Tensor:
    _checks.floating("uaccel.elu", "self", self)
    return torch.ops.aten.elu.default(self, alpha, scale, input_scale)


@torch.library.register_fake("uaccel::elu_")
def _elu_inplace_fake(self: torch.Tensor, alpha=0.1, scale=1, input_scale=1) -> None:
    _checks.floating("uaccel.elu_", "self", self)


@torch.library.register_fake("uaccel::elu_backward")
def _elu_backward_fake(grad_output: torch.Tensor, saved: torch.Tensor, alpha, is_result: bool, scale=1, input_scale=1) -> torch.Tensor:
    op = "uaccel.elu_backward"
    _checks.floating(op, "grad_output", grad_output)
    _checks.floating(op, "saved", saved)
    _checks.same_dtype(op, "grad_output", grad_output, "saved", saved)
    _checks.same_shape(op, "grad_output", grad_output, "saved", saved)
    _checks.same_device(op, "grad_output", grad_output, "saved", saved)
    torch._check(
        not is_result or alpha >= 0,
        lambda: f"{op}: is_result=True (saved is the forward output) needs alpha >= 0, because the output "
        f"does not determine the input when alpha < 0; got alpha={alpha}",
    )
    return torch.ops.aten.elu_backward.default(grad_output, alpha, scale, input_scale, False, saved)


@torch.library.register_fake("uaccel::aligned_empty")
def _aligned_empty_fake(size, *, alignment=64, dtype=None, device=None):
    # A compiled graph allocates its own buffers: the alignment could not hold, so refuse the trace.
    if torch.compiler.is_compiling():
        raise RuntimeError("uaccel.aligned_empty: eager-only (a compiled graph allocates its own, unaligned "
                           "buffers); allocate outside the compiled function and pass the tensor in")
    _checks.alignment("uaccel.aligned_empty", alignment)
    for dim in size:
        torch._check(dim >= 0, lambda: f"uaccel.aligned_empty: expected sizes >= 0, but got {list(size)}")
    return torch.empty(size, dtype=dtype, device=device or "cpu")


@torch.library.register_fake("uaccel::async_copy_")
def _async_copy_fake(dst: torch.Tensor, src: torch.Tensor) -> None:
    # Overlap between dst and src needs real addresses; only the real kernels can check it.
    _checks.same_dtype("uaccel.async_copy_", "dst", dst, "src", src)
    _checks.same_shape("uaccel.async_copy_", "dst", dst, "src", src)
