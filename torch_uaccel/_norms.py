"""RMSNorm's Python side (the ops: csrc/rowwise/rms_norm.cpp): the functions (rms_norm, add_rms_norm) and
the nn module users call, the fakes of the ops, and their vmap rules.

The model families' conventions are options of the op, so their modules can be matched within their
dtype's precision: F.rms_norm's (and Qwen3's q/k norms', and Mistral's) weight multiplied in float32,
then one cast (the default); Llama's and Qwen2's normalised value cast to the input's dtype before the
weight (``cast_before_weight=True``); Gemma's ``1 + weight`` (``weight_offset=1.0``).
"""

import torch
from torch import nn

from . import _checks, _fake, _rules

_OP, _ADD_OP = "uaccel.rms_norm", "uaccel.add_rms_norm"


def rms_norm(
    input: torch.Tensor,
    normalized_shape: int | list[int] | tuple[int, ...] | torch.Size,
    weight: torch.Tensor | None = None,
    eps: float | None = None,
    *,
    weight_offset: float = 0.0,
    cast_before_weight: bool = False,
) -> torch.Tensor:
    """RMSNorm over the trailing ``normalized_shape`` dimensions, as ``F.rms_norm(input, normalized_shape,
    weight, eps)``: ``input / sqrt(mean(input^2) + eps) * (weight + weight_offset)``, the statistics in
    float64 (float32 inputs and the half types: one float32 rounding of the result); ``eps`` defaults to
    the machine epsilon of float32 (float64 for float64 inputs). ``cast_before_weight``: the normalised
    value is cast to the input's dtype before the weight multiplies it (Llama's convention).

    Differentiable to any order in reverse and forward mode, under torch.compile and torch.export.

    >>> torch_uaccel.rms_norm(torch.tensor([[3.0, 4.0]]), [2])
    tensor([[0.8485, 1.1314]])
    """
    shape = [normalized_shape] if isinstance(normalized_shape, int) else list(normalized_shape)
    # The overload, not the packet: a jagged tensor's __torch_function__ takes any function named
    # "rms_norm" for F.rms_norm and refuses our options.
    return torch.ops.uaccel.rms_norm.default(
        input, shape, weight, eps, weight_offset=weight_offset, cast_before_weight=cast_before_weight
    )


def add_rms_norm(
    input: torch.Tensor,
    residual: torch.Tensor,
    normalized_shape: int | list[int] | tuple[int, ...] | torch.Size,
    weight: torch.Tensor | None = None,
    eps: float | None = None,
    *,
    weight_offset: float = 0.0,
    cast_before_weight: bool = False,
) -> tuple[torch.Tensor, torch.Tensor]:
    """A transformer block's residual add and the next norm in one pass: ``residual_out = input + residual``
    (in their dtype, as ``+``) and ``out = rms_norm(residual_out, ...)``; returns ``(out, residual_out)``,
    both differentiable. ``input`` and ``residual`` have one shape and dtype."""
    shape = [normalized_shape] if isinstance(normalized_shape, int) else list(normalized_shape)
    return torch.ops.uaccel.add_rms_norm(
        input, residual, shape, weight, eps, weight_offset=weight_offset, cast_before_weight=cast_before_weight
    )


class RMSNorm(nn.RMSNorm):
    """Drop-in for ``nn.RMSNorm`` backed by ``uaccel.rms_norm`` (a subclass of it: the same parameters,
    state dict and ``repr``), with the op's ``weight_offset`` and ``cast_before_weight`` options."""

    def __init__(
        self,
        normalized_shape,
        eps: float | None = None,
        elementwise_affine: bool = True,
        device=None,
        dtype=None,
        *,
        weight_offset: float = 0.0,
        cast_before_weight: bool = False,
    ) -> None:
        super().__init__(normalized_shape, eps, elementwise_affine, device, dtype)
        self.weight_offset = weight_offset
        self.cast_before_weight = cast_before_weight

    def forward(self, input: torch.Tensor) -> torch.Tensor:
        return rms_norm(
            input,
            self.normalized_shape,
            self.weight,
            self.eps,
            weight_offset=self.weight_offset,
            cast_before_weight=self.cast_before_weight,
        )


# -- Fakes: the checks of the C++ kernels, the outputs' shapes and dtypes --------------------------------


def _math_dtype(input: torch.Tensor) -> torch.dtype:
    return torch.float64 if input.dtype == torch.float64 else torch.float32


def _check(op: str, input, normalized_shape, weight) -> None:
    _checks.floating(op, "input", input)
    _checks.trailing_shape(op, "input", input, normalized_shape)
    if weight is not None:
        _checks.floating(op, "weight", weight)
        _checks.normalized_shape(op, "weight", weight, normalized_shape)
        _checks.same_device(op, "input", input, "weight", weight)


def _out_dtype(input, weight, cast_before_weight: bool) -> torch.dtype:
    """The input's, but for Llama's convention with a weight of another dtype: the product promotes."""
    if cast_before_weight and weight is not None and weight.dtype != input.dtype:
        return torch.promote_types(input.dtype, weight.dtype)
    return input.dtype


@_fake.own_fake("uaccel::_rms_norm_forward")
def _forward_fake(input, normalized_shape, weight, eps, weight_offset, cast_before_weight):
    _check(_OP, input, normalized_shape, weight)
    out = input.new_empty(input.shape, dtype=_out_dtype(input, weight, cast_before_weight))
    rstd = input.new_empty(input.shape[: input.dim() - len(normalized_shape)], dtype=_math_dtype(input))
    return out, rstd


@_fake.own_fake("uaccel::rms_norm")
def _rms_norm_fake(input, normalized_shape, weight=None, eps=None, *, weight_offset=0.0, cast_before_weight=False):
    return _forward_fake(input, normalized_shape, weight, eps, weight_offset, cast_before_weight)[0]


def _check_residual(op: str, input, residual) -> None:
    _checks.same_shape(op, "input", input, "residual", residual)
    _checks.same_dtype(op, "input", input, "residual", residual)
    _checks.same_device(op, "input", input, "residual", residual)


@_fake.own_fake("uaccel::_add_rms_norm_forward")
def _add_forward_fake(input, residual, normalized_shape, weight, eps, weight_offset, cast_before_weight):
    _check(_ADD_OP, input, normalized_shape, weight)
    _check_residual(_ADD_OP, input, residual)
    out, rstd = _forward_fake(input, normalized_shape, weight, eps, weight_offset, cast_before_weight)
    return out, torch.empty_like(input, memory_format=torch.contiguous_format), rstd


@_fake.own_fake("uaccel::add_rms_norm")
def _add_rms_norm_fake(
    input, residual, normalized_shape, weight=None, eps=None, *, weight_offset=0.0, cast_before_weight=False
):
    out, residual_out, _ = _add_forward_fake(
        input, residual, normalized_shape, weight, eps, weight_offset, cast_before_weight
    )
    return out, residual_out


@_fake.own_fake("uaccel::rms_norm_backward")
def _backward_fake(grad_output, input, rstd, normalized_shape, weight, eps, weight_offset, cast_before_weight, mask):
    _check("uaccel.rms_norm_backward", input, normalized_shape, weight)
    grad_input = torch.empty_like(input, memory_format=torch.contiguous_format) if mask[0] else None
    grad_weight = (
        torch.empty_like(weight, memory_format=torch.contiguous_format) if mask[1] and weight is not None else None
    )
    return grad_input, grad_weight


# -- vmap: a batch dimension of the input is one more row dimension ----------------------------------------


def _rms_norm_vmap(
    info, in_dims, input, normalized_shape, weight=None, eps=None, *, weight_offset=0.0, cast_before_weight=False
):
    input_dim, weight_dim = in_dims[0], in_dims[2]
    options = {"weight_offset": weight_offset, "cast_before_weight": cast_before_weight}
    if weight_dim is None:
        return torch.ops.uaccel.rms_norm(input.movedim(input_dim, 0), normalized_shape, weight, eps, **options), 0
    # A weight per sample: the op normalises without it, the product is ATen's, batched.
    weights = weight.movedim(weight_dim, 0)
    x = input.movedim(input_dim, 0) if input_dim is not None else input.expand(weights.shape[0], *input.shape)
    weights = weights.reshape(weights.shape[0], *[1] * (x.dim() - weights.dim()), *weights.shape[1:])
    if cast_before_weight:
        return torch.ops.uaccel.rms_norm(x, normalized_shape, None, eps) * (weights + weight_offset), 0
    math = _math_dtype(x)
    normalised = torch.ops.uaccel.rms_norm(x.to(math), normalized_shape, None, eps)  # exact: the input widened
    return (normalised * (weights.to(math) + weight_offset)).to(x.dtype), 0


torch.library.register_vmap("uaccel::rms_norm", _rms_norm_vmap)


def _add_rms_norm_vmap(
    info,
    in_dims,
    input,
    residual,
    normalized_shape,
    weight=None,
    eps=None,
    *,
    weight_offset=0.0,
    cast_before_weight=False,
):
    """input and residual with their batch dimension first (expanded where one has none); a weight per
    sample: the add, then rms_norm's rule."""
    input_dim, residual_dim, weight_dim = in_dims[0], in_dims[1], in_dims[3]
    size = info.batch_size
    x = input.movedim(input_dim, 0) if input_dim is not None else input.expand(size, *input.shape)
    r = residual.movedim(residual_dim, 0) if residual_dim is not None else residual.expand(size, *residual.shape)
    options = {"weight_offset": weight_offset, "cast_before_weight": cast_before_weight}
    if weight_dim is None:
        out, residual_out = torch.ops.uaccel.add_rms_norm(x, r, normalized_shape, weight, eps, **options)
        return (out, residual_out), (0, 0)
    residual_out = x + r
    out, _ = _rms_norm_vmap(info, (0, None, weight_dim), residual_out, normalized_shape, weight, eps, **options)
    return (out, residual_out), (0, 0)


torch.library.register_vmap("uaccel::add_rms_norm", _add_rms_norm_vmap)


# -- Jagged nested tensors: the rows of the values buffer ------------------------------------------------


def _register_nested() -> None:
    """On a jagged tensor's values (its batch and ragged dimensions are one dimension of rows there),
    where the normalised dimensions are after the ragged one, as F.rms_norm takes them; the row outputs
    rewrapped with the input's structure, the weight's gradient dense."""
    from torch.nested._internal.nested_tensor import NestedTensor

    def on_values(cls, func, types, args, kwargs):
        from torch.nested._internal.ops import extract_kwargs

        layout = next(arg for arg in args if isinstance(arg, NestedTensor))
        position = [argument.name for argument in func._schema.arguments].index("normalized_shape")
        shape = args[position] if position < len(args) else kwargs["normalized_shape"]
        if layout.dim() - len(shape) <= layout._ragged_idx:
            op = func._schema.name.replace("::_", "::").removesuffix("_forward").replace("::", ".")  # the public op
            raise ValueError(
                f"{op}: expected normalized_shape to leave out the jagged dimension {layout._ragged_idx} of the "
                f"input (shape {list(layout.shape)}), but got {list(shape)}"
            )
        result = func(*(arg._values if isinstance(arg, NestedTensor) else arg for arg in args), **kwargs)
        row_outputs = {0} if func._schema.name == "uaccel::rms_norm_backward" else None  # grad_weight is dense
        if not isinstance(result, tuple):
            return NestedTensor(result, **extract_kwargs(layout))
        return tuple(
            NestedTensor(r, **extract_kwargs(layout)) if row_outputs is None or k in row_outputs else r
            for k, r in enumerate(result)
        )

    for name in ("rms_norm", "_rms_norm_forward", "add_rms_norm", "_add_rms_norm_forward", "rms_norm_backward"):
        torch.library.register_torch_dispatch(f"uaccel::{name}", NestedTensor, on_values)


_register_nested()


# -- DTensor: rows sharded as a pointwise op's elements ----------------------------------------------------


def _register_sharding() -> None:
    """Each op's strategies: all replicated, or sharded on one dimension before the normalised ones (every
    row tensor on it, the weight replicated; the weight's gradient then a partial sum). A sharded normalised
    dimension is in none of them: DTensor redistributes it, as its own strategy for F.rms_norm does."""
    if not torch.distributed.is_available():
        return
    from torch.distributed.tensor import Partial, Replicate, Shard
    from torch.distributed.tensor.experimental import register_sharding

    def strategies(op):
        names = [argument.name for argument in op._schema.arguments]
        outputs = len(op._schema.returns)
        weight_gradient = 1 if op._schema.name == "uaccel::rms_norm_backward" else None  # its second output

        def shardings(*args, **kwargs):
            bound = dict(zip(names, args, strict=False))
            row_dims = bound["input"].ndim - len(bound["normalized_shape"])

            def inputs(rows):
                return [
                    (Replicate() if name == "weight" else rows) if hasattr(arg, "ndim") else None
                    for name, arg in zip(names, args, strict=False)
                ]

            found = [([Replicate()] * outputs, inputs(Replicate()))]
            for d in range(row_dims):
                placements = [Shard(d)] * outputs
                if weight_gradient is not None:
                    placements[weight_gradient] = Partial()
                found.append((placements, inputs(Shard(d))))
            return found

        return shardings

    for name in ("rms_norm", "_rms_norm_forward", "add_rms_norm", "_add_rms_norm_forward", "rms_norm_backward"):
        op = getattr(torch.ops.uaccel, name).default
        register_sharding(op)(strategies(op))


_rules.when_imported("torch.distributed.tensor", _register_sharding)
