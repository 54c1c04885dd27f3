"""How PyTorch's transforms and tensor subclasses handle pointwise ops on the framework (those whose
schema carries torch.Tag.pointwise: uaccel's, csrc/ops/*.h, and those of every library loaded by
torch_uaccel.library): batching rules for vmap, sharding rules for DTensor, rules for jagged nested
tensors. (Autograd, forward-mode AD and torch.func's grad/jvp need nothing here: the ops' C++
autograd kernels serve them.)

Every pointwise op maps each element on its own, its tensor arguments share one shape, and an
in-place one returns nothing; so a batch dimension, a shard or a jagged layout passes through
unchanged, and one rule of each kind serves every such op.
"""

import importlib.abc
import importlib.util
import sys

import torch

from . import _schemas

_mutates_first_argument = _schemas.mutates_first_argument


# -- vmap -------------------------------------------------------------------------------------------


def _vmap_rule(op: torch._ops.OpOverload):
    """One tensor keeps its batch dimension where it is. With several, each batched tensor's batch
    dimension goes in front, and its own dimensions are padded with 1s to the highest logical rank, so
    that they broadcast as the logical tensors do; unbatched ones stay as they are, or, where they must
    broadcast to no shape but their own (a one-input op's backward) or get a gradient of their own (a
    backward's outputs), are expanded along the batch. A backward's output k comes back in the logical
    shape of its saved tensor k, batched in front. Arguments the dispatcher dropped (equal to their
    default) stay dropped: `op` fills them in again."""
    inputs = _schemas.tensor_inputs(op)
    outputs = len(op._schema.returns)
    expand_all = outputs > 1 or op._schema.name.endswith("_backward")

    def rule(info, in_dims, *args, **kwargs):
        dims, tensors = in_dims[:inputs], args[:inputs]
        if _mutates_first_argument(op) and dims[0] is None:
            raise RuntimeError(
                f"vmap: {op._name} writes its first argument in place, which is not batched while "
                "another argument is; batch it too (or use the out-of-place op)"
            )
        if inputs == 1:
            result = op(*args, **kwargs)
            return (None, None) if _mutates_first_argument(op) else (result, dims[0])
        shapes = [t.shape if d is None else t.shape[:d] + t.shape[d + 1 :] for t, d in zip(tensors, dims, strict=True)]
        rank = max(len(shape) for shape in shapes)
        batched = []
        for t, d, shape in zip(tensors, dims, shapes, strict=True):
            if d is None and not expand_all:
                batched.append(t)
                continue
            t = t.expand(info.batch_size, *t.shape) if d is None else t.movedim(d, 0)
            batched.append(t.reshape(info.batch_size, *[1] * (rank - len(shape)), *shape))
        result = op(*batched, *args[inputs:], **kwargs)
        if outputs == 1:
            return result, 0
        return tuple(r.reshape(info.batch_size, *shape) for r, shape in zip(result, shapes[1:], strict=True)), (
            0,
        ) * outputs

    return rule


# -- DTensor -----------------------------------------------------------------------------------------


def _register_sharding(ops: list[torch._ops.OpOverload]) -> None:
    """All Replicate, or the output sharded on one dimension d of the broadcast shape: each tensor
    argument Shard on its own dimension aligned with d where it has it in full, else Replicate (it
    broadcasts there). A backward's gradient k is sharded as its saved tensor k, or, where that tensor
    was broadcast along d, a partial sum. No Partial inputs: a sum of shards does not pass through
    the ops."""
    if not torch.distributed.is_available():
        return
    from torch.distributed.tensor import Partial, Replicate, Shard
    from torch.distributed.tensor.experimental import register_sharding

    def shardings(args, outputs):
        specs = [arg for arg in args if hasattr(arg, "ndim")]  # DTensor hands tensors over as specs
        shapes = [tuple(spec.shape) for spec in specs]
        full = torch.broadcast_shapes(*shapes)
        is_tensor = [hasattr(arg, "ndim") for arg in args]

        def arrange(placements):
            it = iter(placements)
            return [next(it) if tensor else None for tensor in is_tensor]

        found = [([Replicate()] * outputs, arrange([Replicate()] * len(specs)))]
        for d in range(len(full)):
            placements = []
            for shape in shapes:
                own = d - (len(full) - len(shape))
                placements.append(Shard(own) if own >= 0 and shape[own] == full[d] else Replicate())
            if outputs <= 1:
                out = [Shard(d)] * outputs
            else:
                out = [p if isinstance(p, Shard) else Partial() for p in placements[1:]]
            found.append((out, arrange(placements)))
        return found

    for op in ops:
        outputs = len(op._schema.returns)
        register_sharding(op)(lambda *args, _outputs=outputs, **kwargs: shardings(args, _outputs))


# -- jagged nested tensors ---------------------------------------------------------------------------


def _register_nested(ops: list[torch._ops.OpOverload]) -> None:
    """On the flat values buffer, rewrapped with the first nested argument's structure (offsets,
    lengths, ragged dimension), as PyTorch's own jagged pointwise ops do."""
    # Private modules: a tensor subclass's rules can only be written against the subclass itself.
    # (torch imports nested_tensor itself; nested ops is imported on first use.)
    from torch.nested._internal.nested_tensor import NestedTensor

    def pointwise(cls, func, types, args, kwargs):
        from torch.nested._internal.ops import extract_kwargs

        layout = next(arg for arg in args if isinstance(arg, NestedTensor))
        values = func(*(arg._values if isinstance(arg, NestedTensor) else arg for arg in args), **kwargs)
        if values is None:  # an in-place op wrote into layout._values
            return None
        if isinstance(values, tuple):  # a backward's gradients, one per input of that one layout
            return tuple(NestedTensor(v, **extract_kwargs(layout)) for v in values)
        return NestedTensor(values, **extract_kwargs(layout))

    for op in ops:
        torch.library.register_torch_dispatch(op._name, NestedTensor, pointwise)


class _AfterImport(importlib.abc.MetaPathFinder):
    """Runs `register` right after `module` is first imported: importing torch.distributed.tensor or
    torch._dynamo costs over a second, which `import torch_uaccel` must not pay for users of neither."""

    def __init__(self, module: str, register) -> None:
        self.module, self.register = module, register

    def find_spec(self, fullname, path, target=None):
        if fullname != self.module:
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(fullname)
        execute = spec.loader.exec_module

        def exec_then_register(module):
            execute(module)
            self.register()

        spec.loader.exec_module = exec_then_register
        return spec


def when_imported(module: str, register) -> None:
    if module in sys.modules:
        register()
    else:
        sys.meta_path.insert(0, _AfterImport(module, register))


def register(ops: list[torch._ops.OpOverload]) -> None:
    """The rules for a library's pointwise ops (DTensor's once torch.distributed.tensor is imported)."""
    for op in ops:
        torch.library.register_vmap(op._name, _vmap_rule(op))
    _register_nested(ops)
    when_imported("torch.distributed.tensor", lambda: _register_sharding(ops))
