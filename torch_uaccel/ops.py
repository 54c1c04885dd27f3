"""The user-facing API of the pointwise ops (the ELU family: ELU, SELU, CELU; SiLU; GELU) over torch.ops.uaccel:
a function and an nn module per op face, each made from one description (_FACES, torch_uaccel/_faces.py).

The operators themselves (schemas, CPU/CUDA kernels, autograd in both modes) are C++, see csrc/;
their fake kernels are in _fake.py, and their rules for vmap, DTensor and nested tensors in _rules.py.
"""

import numbers

import torch
from torch import nn  # noqa: F401  (the generated modules subclass its modules)

from . import _faces, _native


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


# Called on every call, so bound here: no attribute lookups. TorchScript knows is_scripting by the
# function, whatever its name, and drops the branches it rules out.
_is_scripting, _dynamo_tracing = torch.jit.is_scripting, torch.compiler.is_dynamo_compiling

# alpha's default as the schema writes it (ATen's, 1.0): every Python face takes it from here.
ELU_DEFAULT_ALPHA = float(torch.ops.uaccel.elu.default._schema.arguments[1].default_value)

_ALPHA_CHECK = "if type(alpha) is not float:  # the common case skips a call\n    alpha = _alpha({label!r}, alpha)"

# The ELU family's faces, which take more than their op's schema says (alpha as F.elu takes it, SELU's
# and CELU's parametrisations); torch_uaccel/_faces.py makes them. Each compiles under torch.jit.script,
# as F's functions and nn's modules do.
_FACES = (
    _faces.Face(
        "elu",
        "elu",
        """ELU: ``x`` where ``x > 0``, else ``alpha * expm1(x)``; as ``F.elu(x, alpha, inplace)``.

    Differentiable to any order, in reverse and forward mode; works under torch.func, vmap,
    torch.compile, torch.export, torch.jit.script, DTensor and jagged nested tensors. ``alpha`` is a
    number or a 0-dim tensor (as for F.elu). ``inplace=True`` overwrites ``x`` (with autograd that
    needs ``alpha >= 0``, as for ``F.elu``).

    >>> torch_uaccel.elu(torch.tensor([-1.0, 0.0, 2.0]))
    tensor([-0.6321,  0.0000,  2.0000])
    """,
        parameters="alpha: float = ELU_DEFAULT_ALPHA, inplace: bool = False",
        arguments="alpha",
        check=_ALPHA_CHECK.format(label="torch_uaccel.elu"),
        module="ELU",
        module_doc="""Drop-in for ``nn.ELU`` backed by ``uaccel.elu`` (the same default alpha, 1.0).

    A subclass of ``nn.ELU``, so code that finds activations with ``isinstance(m, nn.ELU)``
    (module surgery, quantization and pruning passes) keeps finding it; same ``alpha``/``inplace``
    attributes, ``repr`` and state dict (each module below is such a subclass).
    """,
        module_init_check="_alpha('torch_uaccel.ELU', alpha)  # refused now rather than at the first call",
    ),
    _faces.Face(
        "selu",
        "elu",
        """SELU, as ``F.selu``: ``scale * elu(x, alpha)`` with ATen's constants, on the ELU kernels.""",
        parameters="inplace: bool = False",
        arguments="alpha, scale",
        prelude="alpha, scale = _selu_constants()",
        module="SELU",
        module_doc="Drop-in for ``nn.SELU`` on the ELU kernels.",
    ),
    _faces.Face(
        "celu",
        "elu",
        """CELU, as ``F.celu``: ``x`` where ``x > 0``, else ``alpha * expm1(x / alpha)``.""",
        parameters="alpha: float = 1.0, inplace: bool = False",
        arguments="alpha, 1.0, 1.0 / alpha",
        check=_ALPHA_CHECK.format(label="torch_uaccel.celu"),
        prelude="if alpha == 0:\n    raise ValueError('torch_uaccel.celu: expected a nonzero alpha (it divides the input), but got 0')",
        module="CELU",
        module_doc="Drop-in for ``nn.CELU`` on the ELU kernels.",
        module_init_check="_alpha('torch_uaccel.CELU', alpha)",
    ),
)

for _face in _FACES:
    _faces.define(globals(), _face)
# Every other op's face comes from its schema alone (and F's and nn's of its name), as another library's.
_GENERATED = _faces.define_from_schemas(globals(), "uaccel", frozenset(face.op for face in _FACES))


def _halves(fn: str, x: torch.Tensor) -> list[torch.Tensor]:
    """x's last dimension split in two: the gate, then up (vLLM's layout)."""
    if x.dim() == 0 or x.shape[-1] % 2 != 0:
        raise ValueError(f"{fn}: expected x's last dimension to be even (gate, then up), but got shape {list(x.shape)}")
    return list(x.chunk(2, dim=-1))


def silu_and_mul(x: torch.Tensor) -> torch.Tensor:
    """``silu(x[..., :d]) * x[..., d:]`` for ``x`` of shape ``[..., 2d]``: vLLM's ``silu_and_mul``, differentiable
    (a view of each half into :func:`silu_mul`, no copy)."""
    gate, up = _halves("torch_uaccel.silu_and_mul", x)
    return silu_mul(gate, up)  # noqa: F821  (generated from its schema above)


def gelu_and_mul(x: torch.Tensor, approximate: str = "none") -> torch.Tensor:
    """``gelu(x[..., :d], approximate) * x[..., d:]``, as :func:`silu_and_mul` is to :func:`silu_mul`."""
    gate, up = _halves("torch_uaccel.gelu_and_mul", x)
    return gelu_mul(gate, up, approximate)  # noqa: F821


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


def build_info() -> dict:
    """How the extension was built and what it runs here: torch version, whether CUDA kernels are in
    and their archs, the CPU kernel path (``cpu_kernels``) and why (``cpu_kernels_reason``), the CPU
    flags that choice looked at and every path this CPU can run (``cpu_runnable``, lowest first)."""
    info = _native.build_facts()
    info["cuda"] = info["cuda"] == "1"
    info["cpu_flags"] = info["cpu_flags"].split()
    info["cpu_runnable"] = info["cpu_runnable"].split()
    return info


_ALL_FACES = (*_FACES, *_GENERATED)
__all__ = sorted(  # torch_uaccel's too
    [
        *(f.name for f in _ALL_FACES),
        *(f.module for f in _ALL_FACES if f.module),
        *("ELUFunction", "build_info", "gelu_and_mul", "silu_and_mul"),
    ]
)
