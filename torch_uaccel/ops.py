"""Python face of the uaccel operators: fake kernels for tracing, and the user-facing API.

The operators themselves (schemas, CPU/CUDA kernels, autograd) are C++; see csrc/.
"""
import torch
from torch import nn

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
def _elu_fake(self: torch.Tensor, alpha: float = 0.1) -> torch.Tensor:
    _check_floating("uaccel.elu", "self", self)
    return torch.ops.aten.elu.default(self, alpha)


@torch.library.register_fake("uaccel::elu_backward")
def _elu_backward_fake(grad_output: torch.Tensor, saved: torch.Tensor, alpha: float, is_result: bool) -> torch.Tensor:
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
    return torch.ops.aten.elu_backward.default(grad_output, alpha, 1, 1, False, saved)


def elu(x: torch.Tensor, alpha: float = 0.1) -> torch.Tensor:
    """ELU: ``x`` where ``x > 0``, else ``alpha * expm1(x)``; same as ``F.elu(x, alpha)``.

    Differentiable (twice); works under torch.compile and torch.export.

    >>> torch_uaccel.elu(torch.tensor([-1.0, 0.0, 2.0]), alpha=1.0)
    tensor([-0.6321,  0.0000,  2.0000])
    """
    return torch.ops.uaccel.elu(x, alpha)


class ELUFunction(torch.autograd.Function):
    """ELU as a Python autograd.Function over the two ops: ``ELUFunction.apply(x, alpha)``.

    Saves the output when ``alpha >= 0`` (the gradient needs no exp then), else the input.
    """

    @staticmethod
    def forward(ctx, x: torch.Tensor, alpha: float = 0.1) -> torch.Tensor:
        y = torch.ops.uaccel.elu(x, alpha)
        ctx.alpha = alpha
        ctx.is_result = alpha >= 0
        ctx.save_for_backward(y if ctx.is_result else x)
        return y

    @staticmethod
    def backward(ctx, grad_output: torch.Tensor):
        (saved,) = ctx.saved_tensors
        return torch.ops.uaccel.elu_backward(grad_output, saved, ctx.alpha, ctx.is_result), None


class ELU(nn.Module):
    """Drop-in for ``nn.ELU`` backed by ``uaccel.elu`` (default alpha 0.1, as the library's op)."""

    def __init__(self, alpha: float = 0.1) -> None:
        super().__init__()
        self.alpha = alpha

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.ops.uaccel.elu(x, self.alpha)

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}"


def build_info() -> dict:
    """How the extension was built: torch version, whether CUDA kernels are in, their archs."""
    info = dict(line.split("=", 1) for line in torch.ops.uaccel.build_info().splitlines() if line)
    info["cuda"] = info["cuda"] == "1"
    return info
