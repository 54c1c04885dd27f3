"""Fake (meta) kernels of every uaccel operator, for torch.compile, torch.export and FakeTensor.

Each mirrors the checks of its C++ kernel (same conditions, same messages) and produces exactly
the output the real kernel produces (shape, dtype, device, strides), without reading concrete sizes.
The C++ library points here (m.set_python_module), so tracing tells users to import it if needed.
"""

import functools

import torch

from . import _checks, _library

_FAKES: dict = {}  # qualified name -> fake: a fake written below, else (pointwise ops) _pointwise_fake's


def _own_fake(qualname: str):
    def register(fake):
        _FAKES[qualname] = fake
        return torch.library.register_fake(qualname)(fake)

    return register


def _pointwise_fake(op: torch._ops.OpOverload):
    """The fake of a pointwise op (torch.Tag.pointwise) that has none of its own below: the shared
    checks of csrc/common/elementwise.h on its tensor arguments, and the output of ATen's
    TensorIterator on the same tensors (any ATen pointwise op allocates as our kernels do; a fake
    one reads no data), or None in place."""
    label = op._name.replace("::", ".")
    names = [argument.name for argument in op._schema.arguments]

    def fake(*args, **kwargs):
        tensors = [(name, arg) for name, arg in zip(names, args, strict=False) if isinstance(arg, torch.Tensor)]
        for name, tensor in tensors:
            _checks.floating(label, name, tensor)
        first_name, first = tensors[0]
        for name, tensor in tensors[1:]:
            _checks.same_dtype(label, first_name, first, name, tensor)
            _checks.same_shape(label, first_name, first, name, tensor)
            _checks.same_device(label, first_name, first, name, tensor)
        if _library.mutates_first_argument(op):
            return None
        layout_operands = [tensor for _, tensor in tensors] * (2 if len(tensors) == 1 else 1)
        return functools.reduce(torch.ops.aten.mul.Tensor, layout_operands)

    return fake


# elu and elu_ take the pointwise fake; elu_backward adds its check on alpha.
@_own_fake("uaccel::elu_backward")
def _elu_backward_fake(grad_output, saved, alpha, is_result: bool, scale=1, input_scale=1) -> torch.Tensor:
    out = _pointwise_fake(torch.ops.uaccel.elu_backward.default)(grad_output, saved)
    torch._check(
        not is_result or alpha >= 0, lambda: _checks.message("elu.is_result", op="uaccel.elu_backward", alpha=alpha)
    )
    return out


@_own_fake("uaccel::aligned_empty")
def _aligned_empty_fake(size, *, alignment=64, dtype=None, device=None):
    # A compiled graph allocates its own buffers: the alignment could not hold, so refuse the trace.
    # torch 2.11's Dynamo does not report is_compiling() while it propagates fakes through an op
    # called with no tensor inputs; its tracing context is there in every version.
    if torch.compiler.is_compiling() or torch._guards.TracingContext.try_get() is not None:
        raise RuntimeError(
            "uaccel.aligned_empty: eager-only (a compiled graph allocates its own, unaligned "
            "buffers); allocate outside the compiled function and pass the tensor in"
        )
    _checks.alignment("uaccel.aligned_empty", alignment)
    for dim in size:
        torch._check(dim >= 0, lambda: f"uaccel.aligned_empty: expected sizes >= 0, but got {list(size)}")
    return torch.empty(size, dtype=dtype, device=device or "cpu")


@_own_fake("uaccel::async_copy_")
def _async_copy_fake(dst: torch.Tensor, src: torch.Tensor) -> None:
    # Overlap between dst and src needs real addresses; only the real kernels can check it.
    _checks.same_dtype("uaccel.async_copy_", "dst", dst, "src", src)
    _checks.same_shape("uaccel.async_copy_", "dst", dst, "src", src)


for _op in _library.pointwise_ops():
    if _op._name not in _FAKES:
        _FAKES[_op._name] = torch.library.register_fake(_op._name)(_pointwise_fake(_op))


def _tensor_scalars_fake(op: torch._ops.OpOverload):
    """The fake of op.tensor_scalars: op's own, each tensor Scalar given as 1 (the values were checked
    by op's fake, which saw them before torch_uaccel/_dynamic_scalars.py rewrote the call)."""
    positions = set(_library.scalar_positions(op))
    fake = _FAKES[op._name]

    def tensor_scalars_fake(*args):
        return fake(*(1 if i in positions else arg for i, arg in enumerate(args)))

    return tensor_scalars_fake


for _op in _library.pointwise_ops():
    if (_twin := _library.tensor_scalars_overload(_op)) is not None:
        torch.library.register_fake(f"{_op._name}.{_library.TENSOR_SCALARS}")(_tensor_scalars_fake(_op))
