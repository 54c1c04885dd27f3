"""Fake (meta) kernels of every uaccel operator, and of every library of pointwise ops loaded
(torch_uaccel.library), for torch.compile, torch.export and FakeTensor.

Each mirrors the checks of its C++ kernel (same conditions, same messages) and produces exactly
the output the real kernel produces (shape, dtype, device, strides), without reading concrete sizes.
The C++ libraries point here (m.set_python_module), so tracing tells users to import it if needed.
"""

import functools

import torch

from . import _checks, _schemas

_FAKES: dict = {}  # qualified name -> fake: an op's own (own_fake), else (pointwise ops) pointwise_fake's


def own_fake(qualname: str):
    def register(fake):
        _FAKES[qualname] = fake
        return torch.library.register_fake(qualname)(fake)

    return register


def pointwise_fake(op: torch._ops.OpOverload):
    """The fake of a pointwise op (torch.Tag.pointwise) that has none of its own below, as the framework
    (uaccel/pointwise.h, csrc/include/uaccel/detail/elementwise.h) checks and allocates: its str parameters
    against their accepted values; its tensors floating and on one device, then either of one shape and
    dtype (a one-input op's backward) or broadcastable; the output of ATen's TensorIterator on the same
    tensors (any ATen pointwise op allocates and promotes as our kernels do; a fake one reads no data),
    and a backward's gradients in their inputs' shapes and dtypes; None in place."""
    label = op._name.replace("::", ".")
    name = op._schema.name.split("::")[1]
    names = [argument.name for argument in op._schema.arguments]
    inputs = _schemas.tensor_inputs(op)
    choices = {n: c for n in names[inputs:] if (c := _checks.choices(op.namespace, name, n)) is not None}
    outputs = len(op._schema.returns)
    one_shape = outputs == 1 and inputs == 2 and name.endswith("_backward")

    def fake(*args, **kwargs):
        bound = _schemas.bind(op, args, kwargs)
        for parameter, accepted in choices.items():
            _checks.choice(label, parameter, accepted, bound[names.index(parameter)])
        tensors = list(zip(names[:inputs], bound[:inputs], strict=True))
        for tensor_name, tensor in tensors:
            _checks.floating(label, tensor_name, tensor)
        (first_name, first), rest = tensors[0], tensors[1:]
        for tensor_name, tensor in rest:
            if one_shape:
                _checks.same_dtype(label, first_name, first, tensor_name, tensor)
                _checks.same_shape(label, first_name, first, tensor_name, tensor)
            _checks.same_device(label, first_name, first, tensor_name, tensor)
        for k, (b_name, b) in enumerate(tensors):
            for a_name, a in tensors[:k]:
                _checks.broadcastable(label, a_name, a, b_name, b)
        if _schemas.mutates_first_argument(op):
            return None
        operands = [tensor for _, tensor in tensors] * (2 if inputs == 1 else 1)
        full = functools.reduce(torch.ops.aten.mul.Tensor, operands)
        if outputs == 1:
            return full
        return tuple(  # one per saved tensor, as elementwise::reduce_to makes it
            (torch.empty_like(full) if full.shape == t.shape else full.sum_to_size(t.shape)).to(t.dtype)
            for _, t in tensors[1:]
        )

    return fake


@own_fake("uaccel::aligned_empty")
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


@own_fake("uaccel::async_copy_")
def _async_copy_fake(dst: torch.Tensor, src: torch.Tensor) -> None:
    # Overlap between dst and src needs real addresses; only the real kernels can check it.
    _checks.same_dtype("uaccel.async_copy_", "dst", dst, "src", src)
    _checks.same_shape("uaccel.async_copy_", "dst", dst, "src", src)


def _tensor_scalars_fake(op: torch._ops.OpOverload):
    """The fake of op.tensor_scalars: op's own, each tensor Scalar given as 1 (the values were checked
    by op's fake, which saw them before torch_uaccel/_dynamic_scalars.py rewrote the call)."""
    positions = set(_schemas.scalar_positions(op))
    fake = _FAKES[op._name]

    def tensor_scalars_fake(*args):
        return fake(*(1 if i in positions else arg for i, arg in enumerate(args)))

    return tensor_scalars_fake


def register_pointwise(ops: list[torch._ops.OpOverload]) -> None:
    """The fakes of a library's pointwise ops (and of their tensor_scalars overloads), but those with
    their own (own_fake, registered before: torch_uaccel/_elu.py's)."""
    for op in ops:
        if op._name not in _FAKES:
            _FAKES[op._name] = torch.library.register_fake(op._name)(pointwise_fake(op))
        if _schemas.tensor_scalars_overload(op) is not None:
            torch.library.register_fake(f"{op._name}.{_schemas.TENSOR_SCALARS}")(_tensor_scalars_fake(op))
