"""What the framework reads from a pointwise op's schemas: which ops a library has (tagged pointwise),
their inputs, parameters, in-place forms and tensor_scalars overloads. The fakes, transform rules,
dynamic scalars and generated faces are written against these, for every library's ops alike."""

import torch

TENSOR_SCALARS = "tensor_scalars"  # the overload of an op with Scalar parameters taking them as tensors


def pointwise_ops(namespace: str = "uaccel") -> list[torch._ops.OpOverload]:
    """The ops of `namespace` whose schema carries torch.Tag.pointwise (one header each, on the framework):
    the fake kernels and the transform rules written once for all of them apply."""
    prefix = namespace + "::"
    names = {name.split(".")[0] for name in torch._C._dispatch_get_all_op_names() if name.startswith(prefix)}
    packets = getattr(torch.ops, namespace)
    overloads = [getattr(packets, name.removeprefix(prefix)).default for name in sorted(names)]
    return [op for op in overloads if torch.Tag.pointwise in op.tags]


def forward_ops(namespace: str = "uaccel") -> list[torch._ops.OpOverload]:
    """The pointwise ops that are neither in place nor a backward: one per op header."""
    return [op for op in pointwise_ops(namespace) if op._schema.returns and not op._schema.name.endswith("_backward")]


def _packet(op: torch._ops.OpOverload, suffix: str = ""):
    """The OpOverloadPacket of `op` (with `suffix`, of its <name><suffix>), or None."""
    return getattr(getattr(torch.ops, op.namespace), op._schema.name.split("::")[1] + suffix, None)


def has_inplace(op: torch._ops.OpOverload) -> bool:
    """Whether the op has an in-place form (<op>_)."""
    return _packet(op, "_") is not None


def tensor_inputs(op: torch._ops.OpOverload) -> int:
    """How many tensors lead the op's arguments (its inputs; a backward's grad_output and saved tensors)."""
    kinds = [argument.type.kind() for argument in op._schema.arguments]
    return next((i for i, kind in enumerate(kinds) if kind != "TensorType"), len(kinds))


def scalar_positions(op: torch._ops.OpOverload) -> list[int]:
    """Where the op's Scalar and float parameters are (TorchScript's type system calls Scalar a NumberType)."""
    return [i for i, argument in enumerate(op._schema.arguments) if argument.type.kind() in ("NumberType", "FloatType")]


def tensor_scalars_overload(op: torch._ops.OpOverload) -> torch._ops.OpOverload | None:
    """The op's tensor_scalars overload (torch_uaccel/_dynamic_scalars.py), if it has one."""
    packet = _packet(op)
    return getattr(packet, TENSOR_SCALARS) if TENSOR_SCALARS in packet.overloads() else None


def bind(op: torch._ops.OpOverload, args, kwargs) -> list:
    """All of the op's arguments, by position, defaults filled in."""
    bound = list(args)
    for argument in op._schema.arguments[len(args) :]:
        bound.append(kwargs.get(argument.name, argument.default_value))
    return bound


def mutates_first_argument(op: torch._ops.OpOverload) -> bool:
    """A pointwise op in place: writes its first argument and returns nothing."""
    return not op._schema.returns
