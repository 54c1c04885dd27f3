"""The user-facing API of the pointwise ops (the ELU family: ELU, SELU, CELU; SiLU) over torch.ops.uaccel.

The operators themselves (schemas, CPU/CUDA kernels, autograd in both modes) are C++, see csrc/;
their fake kernels are in _fake.py, and their rules for vmap, DTensor and nested tensors in _rules.py.
"""

import numbers

import torch
from torch import nn

__all__ = [  # torch_uaccel's too
    "CELU",
    "ELU",
    "SELU",
    "ELUFunction",
    "SiLU",
    "build_info",
    "celu",
    "elu",
    "selu",
    "silu",
]


def _selu_constants() -> tuple[float, float]:
    """ATen's SELU alpha and scale (aten/src/ATen/native/Activation.cpp); a function, because
    TorchScript reads no float a module holds."""
    return 1.6732632423543772848170429916717, 1.0507009873554804934193349852946


SELU_ALPHA, SELU_SCALE = _selu_constants()


def _alpha(fn: str, value):
    """``alpha`` as the op takes it, accepting what ``F.elu`` accepts: a real number (Python or NumPy,
    bool included; a symbolic one under torch.compile) or a 0-dim real tensor that does not require
    grad, read as the number it holds. A tensor that requires grad is refused, as F.elu refuses it:
    alpha would never get its gradient. An int past 64 bits is passed as the float it denotes."""
    if type(value) is float:  # the common case first: this runs on every call
        return value
    if isinstance(value, torch.Tensor):
        if value.dim() != 0 or value.requires_grad or value.is_complex() or value.is_meta:
            got = f"a {value.dtype} Tensor of shape {tuple(value.shape)} on {value.device}"
            raise TypeError(
                f"{fn}: expected alpha to be a real number or a 0-dim real tensor that does not require grad "
                f"(as F.elu), but got {got}{' that requires grad' if value.requires_grad else ''}"
            )
        value = value.item()
    if isinstance(value, (torch.SymInt, torch.SymFloat)):
        return value
    if not isinstance(value, numbers.Real):
        raise TypeError(f"{fn}: expected alpha to be a real number, but got {type(value).__name__} ({value!r})")
    if isinstance(value, numbers.Integral):  # bool and NumPy's ints too: the schema takes Python numbers
        value = int(value)
        return value if -(2**63) <= value < 2**63 else float(value)
    return float(value)


def _entry_point(overload: torch._ops.OpOverload):
    """The C++ callable behind an OpOverload, the one its ``__call__`` hands every call to: the same
    dispatch (every key; ``__torch_function__`` handled in C++) without that Python frame, a measurable
    part of a call on a small tensor (benchmarks/bench_per_call.py). (torch 2.15 may swap ``_op`` for an
    experimental dispatcher and keeps the C++ one as ``_cpp_dispatch_handle``.) Dynamo cannot trace it (a
    pybind builtin), so the wrappers call the overload itself while Dynamo traces them."""
    return getattr(overload, "_cpp_dispatch_handle", overload._op)


# Called on every call, so bound here: no attribute lookups. TorchScript knows is_scripting by the
# function, whatever its name, and drops the branches it rules out.
_is_scripting, _dynamo_tracing = torch.jit.is_scripting, torch.compiler.is_dynamo_compiling

_ELU, _ELU_INPLACE = torch.ops.uaccel.elu.default, torch.ops.uaccel.elu_.default
# alpha's default as the schema writes it (ATen's, 1.0): every Python face takes it from here.
ELU_DEFAULT_ALPHA = float(_ELU._schema.arguments[1].default_value)
_ELU_ENTRY, _ELU_INPLACE_ENTRY = _entry_point(_ELU), _entry_point(_ELU_INPLACE)


def _elu(x: torch.Tensor, alpha: float, scale: float, input_scale: float, inplace: bool) -> torch.Tensor:
    if _is_scripting():  # TorchScript resolves the ops by name (the eager branches are not compiled)
        if inplace:
            torch.ops.uaccel.elu_(x, alpha, scale, input_scale)
            return x
        return torch.ops.uaccel.elu(x, alpha, scale, input_scale)
    if _dynamo_tracing():
        if inplace:
            _ELU_INPLACE(x, alpha, scale, input_scale)
            return x
        return _ELU(x, alpha, scale, input_scale)
    if inplace:
        _ELU_INPLACE_ENTRY(x, alpha, scale, input_scale)
        return x
    return _ELU_ENTRY(x, alpha, scale, input_scale)


# The wrappers and modules compile under torch.jit.script, as F.elu and nn.ELU do: their argument
# checks sit in `if not _is_scripting()` blocks, which TorchScript leaves out (where it
# types alpha as float itself).


def elu(x: torch.Tensor, alpha: float = ELU_DEFAULT_ALPHA, inplace: bool = False) -> torch.Tensor:
    """ELU: ``x`` where ``x > 0``, else ``alpha * expm1(x)``; as ``F.elu(x, alpha, inplace)``.

    Differentiable to any order, in reverse and forward mode; works under torch.func, vmap,
    torch.compile, torch.export, torch.jit.script, DTensor and jagged nested tensors. ``alpha`` is a
    number or a 0-dim tensor (as for F.elu). ``inplace=True`` overwrites ``x`` (with autograd that
    needs ``alpha >= 0``, as for ``F.elu``).

    >>> torch_uaccel.elu(torch.tensor([-1.0, 0.0, 2.0]))
    tensor([-0.6321,  0.0000,  2.0000])
    """
    if not _is_scripting():  # TorchScript types alpha as float itself
        if type(alpha) is not float:  # the common case skips a call
            alpha = _alpha("torch_uaccel.elu", alpha)
        if not _dynamo_tracing():  # as _elu's eager branch, one call less: the per-call cost of most users
            if inplace:
                _ELU_INPLACE_ENTRY(x, alpha)
                return x
            return _ELU_ENTRY(x, alpha)
    return _elu(x, alpha, 1.0, 1.0, inplace)


def selu(x: torch.Tensor, inplace: bool = False) -> torch.Tensor:
    """SELU, as ``F.selu``: ``scale * elu(x, alpha)`` with ATen's constants, on the ELU kernels."""
    alpha, scale = _selu_constants()
    return _elu(x, alpha, scale, 1.0, inplace)


def celu(x: torch.Tensor, alpha: float = 1.0, inplace: bool = False) -> torch.Tensor:
    """CELU, as ``F.celu``: ``x`` where ``x > 0``, else ``alpha * expm1(x / alpha)``."""
    if not _is_scripting():
        alpha = _alpha("torch_uaccel.celu", alpha)
    if alpha == 0:
        raise ValueError("torch_uaccel.celu: expected a nonzero alpha (it divides the input), but got 0")
    return _elu(x, alpha, 1.0, 1.0 / alpha, inplace)


class ELUFunction(torch.autograd.Function):
    """ELU as a Python autograd.Function over the two ops: ``ELUFunction.apply(x, alpha)``.

    Saves the output for the backward when ``alpha >= 0`` (no exp needed), else the input; has a
    forward-mode formula (``jvp``) and a generated vmap rule, so it works under every torch.func
    transform and compiles with ``fullgraph=True`` -- except forward over forward mode, which PyTorch
    gets wrong for every Python autograd.Function and which is therefore refused (``elu`` does it).
    """

    generate_vmap_rule = True  # forward, backward and jvp call ops that have batching rules

    @staticmethod
    def forward(x: torch.Tensor, alpha: float = ELU_DEFAULT_ALPHA) -> torch.Tensor:
        return torch.ops.uaccel.elu(x, alpha)

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, alpha = inputs[0], (inputs[1] if len(inputs) > 1 else ELU_DEFAULT_ALPHA)
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
    """Drop-in for ``nn.ELU`` backed by ``uaccel.elu`` (the same default alpha, 1.0).

    A subclass of ``nn.ELU``, so code that finds activations with ``isinstance(m, nn.ELU)``
    (module surgery, quantization and pruning passes) keeps finding it; same ``alpha``/``inplace``
    attributes, ``repr`` and state dict.
    """

    def __init__(self, alpha: float = ELU_DEFAULT_ALPHA, inplace: bool = False) -> None:
        _alpha("torch_uaccel.ELU", alpha)  # refused now rather than at the first call
        super().__init__(alpha, inplace)  # kept as given (a 0-dim tensor too), as nn.ELU keeps it

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if _is_scripting():  # an int alpha is typed int there (nn.ELU(1) does not script)
            return elu(x, float(self.alpha), self.inplace)
        return elu(x, self.alpha, self.inplace)


class SELU(nn.SELU):
    """Drop-in for ``nn.SELU`` on the ELU kernels (a subclass of it, as :class:`ELU`)."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return selu(x, self.inplace)


class CELU(nn.CELU):
    """Drop-in for ``nn.CELU`` on the ELU kernels (a subclass of it, as :class:`ELU`)."""

    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        _alpha("torch_uaccel.CELU", alpha)
        super().__init__(alpha, inplace)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if _is_scripting():  # as ELU.forward
            return celu(x, float(self.alpha), self.inplace)
        return celu(x, self.alpha, self.inplace)


_SILU, _SILU_INPLACE = torch.ops.uaccel.silu.default, torch.ops.uaccel.silu_.default
_SILU_ENTRY, _SILU_INPLACE_ENTRY = _entry_point(_SILU), _entry_point(_SILU_INPLACE)


def silu(x: torch.Tensor, inplace: bool = False) -> torch.Tensor:
    """SiLU (swish): ``x * sigmoid(x)``, as ``F.silu(x, inplace)``; the same reach as :func:`elu`. In place
    with autograd it keeps a copy of the input for the gradient, as ``F.silu`` does.

    >>> torch_uaccel.silu(torch.tensor([-1.0, 0.0, 2.0]))
    tensor([-0.2689,  0.0000,  1.7616])
    """
    if _is_scripting():  # as _elu
        if inplace:
            torch.ops.uaccel.silu_(x)
            return x
        return torch.ops.uaccel.silu(x)
    if not _dynamo_tracing():
        if inplace:
            _SILU_INPLACE_ENTRY(x)
            return x
        return _SILU_ENTRY(x)
    if inplace:
        _SILU_INPLACE(x)
        return x
    return _SILU(x)


class SiLU(nn.SiLU):
    """Drop-in for ``nn.SiLU`` backed by ``uaccel.silu`` (a subclass of it, as :class:`ELU`)."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return silu(x, self.inplace)


def build_info() -> dict:
    """How the extension was built and what it runs here: torch version, whether CUDA kernels are in
    and their archs, the CPU kernel path (``cpu_kernels``) and why (``cpu_kernels_reason``), the CPU
    flags that choice looked at and every path this CPU can run (``cpu_runnable``, lowest first)."""
    info = dict(line.split("=", 1) for line in torch.ops.uaccel.build_info().splitlines() if line)
    info["cuda"] = info["cuda"] == "1"
    info["cpu_flags"] = info["cpu_flags"].split()
    info["cpu_runnable"] = info["cpu_runnable"].split()
    return info
