"""The user-facing ELU API over torch.ops.uaccel.elu / elu_backward.

The operators themselves (schemas, CPU/CUDA kernels, autograd) are C++, see csrc/; their fake
kernels are in _fake.py.
"""
import torch
from torch import nn

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
