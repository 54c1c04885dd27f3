"""The user-facing API of the ELU family over torch.ops.uaccel.elu / elu_ / elu_backward.

The operators themselves (schemas, CPU/CUDA kernels, autograd in both modes) are C++, see csrc/;
their fake kernels are in _fake.py, and their rules for vmap, DTensor and nested tensors in _rules.py.
"""

import numbers

import torch
from torch import nn

# ATen's SELU constants (aten/src/ATen/native/Activation.cpp).
SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


def _check_scalar(fn: str, name: str, value):
    """A Python number (or a symbolic one under torch.compile), returned as the op takes it. A tensor
    is refused, as F.elu refuses it: the op would read it once as a constant and it would never get
    a gradient. An int past 64 bits is passed as the float it denotes."""
    if type(value) is float:  # the common case first: this runs on every call
        return value
    if isinstance(value, (bool, torch.Tensor)) or not isinstance(value, (numbers.Real, torch.SymInt, torch.SymFloat)):
        raise TypeError(f"{fn}: expected {name} to be a real number, but got {type(value).__name__} ({value!r})")
    if isinstance(value, int) and not -(2**63) <= value < 2**63:
        return float(value)
    return value


# The overloads themselves: calling them skips the packet's overload resolution on every call.
_ELU, _ELU_INPLACE = torch.ops.uaccel.elu.default, torch.ops.uaccel.elu_.default


def _elu(x: torch.Tensor, alpha, scale, input_scale, inplace: bool) -> torch.Tensor:
    if inplace:
        _ELU_INPLACE(x, alpha, scale, input_scale)
        return x
    return _ELU(x, alpha, scale, input_scale)


def elu(x: torch.Tensor, alpha: float = 0.1, inplace: bool = False) -> torch.Tensor:
    """ELU: ``x`` where ``x > 0``, else ``alpha * expm1(x)``; as ``F.elu(x, alpha, inplace)``.

    Differentiable to any order, in reverse and forward mode; works under torch.func, vmap,
    torch.compile, torch.export, DTensor and jagged nested tensors. ``inplace=True`` overwrites ``x``
    (with autograd that needs ``alpha >= 0``, as for ``F.elu``).

    >>> torch_uaccel.elu(torch.tensor([-1.0, 0.0, 2.0]), alpha=1.0)
    tensor([-0.6321,  0.0000,  2.0000])
    """
    alpha = _check_scalar("torch_uaccel.elu", "alpha", alpha)
    return _elu(x, alpha, 1, 1, inplace)


def selu(x: torch.Tensor, inplace: bool = False) -> torch.Tensor:
    """SELU, as ``F.selu``: ``scale * elu(x, alpha)`` with ATen's constants, on the ELU kernels."""
    return _elu(x, SELU_ALPHA, SELU_SCALE, 1, inplace)


def celu(x: torch.Tensor, alpha: float = 1.0, inplace: bool = False) -> torch.Tensor:
    """CELU, as ``F.celu``: ``x`` where ``x > 0``, else ``alpha * expm1(x / alpha)``."""
    alpha = _check_scalar("torch_uaccel.celu", "alpha", alpha)
    if alpha == 0:
        raise ValueError("torch_uaccel.celu: expected a nonzero alpha (it divides the input), but got 0")
    return _elu(x, alpha, 1, 1.0 / alpha, inplace)


class ELUFunction(torch.autograd.Function):
    """ELU as a Python autograd.Function over the two ops: ``ELUFunction.apply(x, alpha)``.

    Saves the output for the backward when ``alpha >= 0`` (no exp needed), else the input; has a
    forward-mode formula (``jvp``) and a generated vmap rule, so it works under every torch.func
    transform and compiles with ``fullgraph=True`` -- except forward over forward mode, which PyTorch
    gets wrong for every Python autograd.Function and which is therefore refused (``elu`` does it).
    """

    generate_vmap_rule = True  # forward, backward and jvp call ops that have batching rules

    @staticmethod
    def forward(x: torch.Tensor, alpha: float = 0.1) -> torch.Tensor:
        return torch.ops.uaccel.elu(x, alpha)

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, alpha = inputs[0], (inputs[1] if len(inputs) > 1 else 0.1)
        ctx.alpha = alpha
        ctx.is_result = alpha >= 0
        ctx.save_for_backward(output if ctx.is_result else x)
        ctx.save_for_forward(x)

    @staticmethod
    def backward(ctx, grad_output: torch.Tensor):
        (saved,) = ctx.saved_tensors
        return torch.ops.uaccel.elu_backward(grad_output, saved, ctx.alpha, ctx.is_result), None

    @staticmethod
    def jvp(ctx, x_tangent: torch.Tensor, _alpha_tangent=None) -> torch.Tensor:
        _refuse_nested_forward_mode()
        (x,) = ctx.saved_tensors
        return torch.ops.uaccel.elu_backward(x_tangent, x, ctx.alpha, False)


def _refuse_nested_forward_mode() -> None:
    """Forward mode over forward mode (jacfwd(jacfwd(f)), jvp(jvp(f))) through any Python
    autograd.Function returns zeros for the second-order terms: torch.func runs the Function's jvp
    one level at a time (torch/_functorch/autograd_function.py, generate_single_level_function),
    so the outer level never sees it (reproduced with a pure-ATen Function). Raise, never wrong."""
    from torch._C._functorch import TransformType
    from torch._functorch.pyfunctorch import retrieve_all_functorch_interpreters

    if sum(i.key() == TransformType.Jvp for i in retrieve_all_functorch_interpreters()) > 1:
        raise RuntimeError(
            "torch_uaccel.ELUFunction: forward mode over forward mode (e.g. jacfwd(jacfwd(f))) through a Python "
            "autograd.Function drops the second-order terms in PyTorch; use torch_uaccel.elu, whose C++ autograd "
            "supports it"
        )


class ELU(nn.ELU):
    """Drop-in for ``nn.ELU`` backed by ``uaccel.elu`` (default alpha 0.1, as the library's op).

    A subclass of ``nn.ELU``, so code that finds activations with ``isinstance(m, nn.ELU)``
    (module surgery, quantization and pruning passes) keeps finding it; same ``alpha``/``inplace``
    attributes, ``repr`` and state dict.
    """

    def __init__(self, alpha: float = 0.1, inplace: bool = False) -> None:
        super().__init__(_check_scalar("torch_uaccel.ELU", "alpha", alpha), inplace)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return elu(x, self.alpha, self.inplace)


class SELU(nn.SELU):
    """Drop-in for ``nn.SELU`` on the ELU kernels (a subclass of it, as :class:`ELU`)."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return selu(x, self.inplace)


class CELU(nn.CELU):
    """Drop-in for ``nn.CELU`` on the ELU kernels (a subclass of it, as :class:`ELU`)."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return celu(x, self.alpha, self.inplace)


def build_info() -> dict:
    """How the extension was built and what it runs here: torch version, whether CUDA kernels are in
    and their archs, the CPU kernel path (``cpu_kernels``) and why (``cpu_kernels_reason``), the CPU
    flags that choice looked at and every path this CPU can run (``cpu_runnable``, lowest first)."""
    info = dict(line.split("=", 1) for line in torch.ops.uaccel.build_info().splitlines() if line)
    info["cuda"] = info["cuda"] == "1"
    info["cpu_flags"] = info["cpu_flags"].split()
    info["cpu_runnable"] = info["cpu_runnable"].split()
    return info
