"""The ELU family's Python side, the one op whose faces take more than its schema says: alpha as
F.elu takes it, SELU's and CELU's parametrisations (ops.py defines these faces with the others),
ELUFunction (ELU as a Python autograd.Function), elu_backward's fake check on alpha, and the
decompositions torch_uaccel.inductor registers on request."""

import math
import numbers

import torch

from . import _checks, _faces, _fake, _rules


def _selu_constants() -> tuple[float, float]:
    """ATen's SELU alpha and scale (aten/src/ATen/native/Activation.cpp); a function, because
    TorchScript reads no float a module holds."""
    return 1.6732632423543772848170429916717, 1.0507009873554804934193349852946


SELU_ALPHA, SELU_SCALE = _selu_constants()

# alpha's default as the schema writes it (ATen's, 1.0): every Python face takes it from here.
ELU_DEFAULT_ALPHA = float(torch.ops.uaccel.elu.default._schema.arguments[1].default_value)


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


# The names the faces' source calls, beside those every face's does (ops.py puts them in its namespace).
FACE_GLOBALS = {"_alpha": _alpha, "_selu_constants": _selu_constants, "ELU_DEFAULT_ALPHA": ELU_DEFAULT_ALPHA}

_ALPHA_CHECK = "if type(alpha) is not float:  # the common case skips a call\n    alpha = _alpha({label!r}, alpha)"


# The family's faces. Each compiles under torch.jit.script, as F's functions and nn's modules do.
FACES = (
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
    attributes, ``repr`` and state dict (each module of torch_uaccel is such a subclass).
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
        prelude=(
            "if alpha == 0:\n"
            "    raise ValueError('torch_uaccel.celu: expected a nonzero alpha (it divides the input), but got 0')"
        ),
        module="CELU",
        module_doc="Drop-in for ``nn.CELU`` on the ELU kernels.",
        module_init_check="_alpha('torch_uaccel.CELU', alpha)",
    ),
)


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


def _trace_elu_function_as_one_call() -> None:
    """Dynamo refuses to trace a torch.autograd.Function that defines `jvp` ("Unsupported custom
    jvp", torch/_dynamo/variables/misc.py). Allowed in the graph, ELUFunction.apply becomes one call
    that AOTAutograd traces through with its own forward and backward, so it compiles fullgraph."""
    torch._dynamo.allow_in_graph(ELUFunction)


_rules.when_imported("torch._dynamo", _trace_elu_function_as_one_call)


# elu and elu_ take the pointwise fake; elu_backward adds its check on alpha.
@_fake.own_fake("uaccel::elu_backward")
def _elu_backward_fake(grad_output, saved, alpha, is_result: bool, scale=1, input_scale=1) -> torch.Tensor:
    out = _fake.pointwise_fake(torch.ops.uaccel.elu_backward.default)(grad_output, saved)
    torch._check(
        not is_result or alpha >= 0, lambda: _checks.message("elu.is_result", op="uaccel.elu_backward", alpha=alpha)
    )
    return out


# -- Inductor's decompositions (torch_uaccel.inductor.decompose) --------------------------------------


def _expm1_nonpositive(x: torch.Tensor) -> torch.Tensor:
    """expm1 for x <= 0 from ops every Inductor lowers exactly: exp(x) - 1 where the result is at
    least 0.39 in magnitude (x <= -1/2), the Taylor series nearer 0 (degree 8 reaches float's
    precision on [-1/2, 0], 14 double's)."""
    degree = 14 if x.dtype == torch.float64 else 8
    series = torch.full_like(x, 1 / math.factorial(degree))
    for k in range(degree - 1, 0, -1):
        series = series * x + 1 / math.factorial(k)
    return torch.where(x > -0.5, series * x, torch.exp(x) - 1)


def _nonnegative_number(value) -> bool:
    return isinstance(value, (int, float)) and value >= 0


def _elu_decomposed(x, alpha=ELU_DEFAULT_ALPHA, scale=1, input_scale=1):
    if not _nonnegative_number(input_scale):  # a negative input_scale flips the side: keep the kernel
        return NotImplemented
    negative_side = alpha * scale * _expm1_nonpositive(torch.clamp_max(x * input_scale, 0))
    return torch.where(x < 0, negative_side, x * scale)  # the kernels' sides: NaN and -0.0 as they do


def _elu_backward_decomposed(grad_output, saved, alpha, is_result, scale=1, input_scale=1):
    if not _nonnegative_number(input_scale):
        return NotImplemented
    if is_result:  # saved = y: y + alpha * scale on the negative side
        negative_side = grad_output * input_scale * (saved + alpha * scale)
    else:
        negative_side = grad_output * (input_scale * alpha * scale) * torch.exp(saved * input_scale)
    return torch.where(saved <= 0, negative_side, grad_output * scale)


DECOMPOSITIONS = {
    torch.ops.uaccel.elu.default: _elu_decomposed,
    torch.ops.uaccel.elu_backward.default: _elu_backward_decomposed,
}
