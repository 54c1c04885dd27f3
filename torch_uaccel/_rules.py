"""How PyTorch's transforms and tensor subclasses handle the uaccel pointwise ops (those whose
schema carries torch.Tag.pointwise, csrc/ops/*.h): batching rules for vmap, sharding rules for
DTensor, rules for jagged nested tensors, and how Dynamo sees ELUFunction. (Autograd, forward-mode
AD and torch.func's grad/jvp need nothing here: the ops' C++ autograd kernels serve them.)

Every pointwise op maps each element on its own, its tensor arguments share one shape, and an
in-place one returns nothing; so a batch dimension, a shard or a jagged layout passes through
unchanged, and one rule of each kind serves every such op.
"""

import importlib.abc
import importlib.util
import sys

import torch

from . import _library

_POINTWISE_OPS = _library.pointwise_ops()
_mutates_first_argument = _library.mutates_first_argument


# -- vmap -------------------------------------------------------------------------------------------


def _vmap_rule(op: torch._ops.OpOverload):
    """The batch dimension goes in front of every batched tensor and unbatched tensors are expanded
    (no copy) when there are several; one tensor keeps its batch dimension where it is. Arguments
    the dispatcher dropped (equal to their default) stay dropped: `op` fills them in again."""

    def rule(info, in_dims, *args):
        dims = [d for d, arg in zip(in_dims, args, strict=False) if isinstance(arg, torch.Tensor)]
        if _mutates_first_argument(op) and dims[0] is None:
            raise RuntimeError(
                f"vmap: {op._name} writes its first argument in place, which is not batched while "
                "another argument is; batch it too (or use the out-of-place op)"
            )
        if len(dims) == 1:
            result, out_dim = op(*args), dims[0]
        else:
            args = [
                (arg.movedim(d, 0) if d is not None else arg.expand(info.batch_size, *arg.shape))
                if isinstance(arg, torch.Tensor)
                else arg
                for arg, d in zip(args, in_dims, strict=False)
            ]
            result, out_dim = op(*args), 0
        return (None, None) if _mutates_first_argument(op) else (result, out_dim)

    return rule


for _op in _POINTWISE_OPS:
    torch.library.register_vmap(_op._name, _vmap_rule(_op))


# -- DTensor -----------------------------------------------------------------------------------------


def _register_sharding() -> None:
    """Each tensor argument Shard(d) (the same d) or Replicate, the output alike. No Partial: a sum
    of shards does not pass through elu."""
    if not torch.distributed.is_available():
        return
    from torch.distributed.tensor import Replicate, Shard
    from torch.distributed.tensor.experimental import register_sharding

    def shardings(args, has_output):
        tensors = [hasattr(arg, "ndim") for arg in args]  # DTensor hands tensors over as strategies
        ndim = next(arg.ndim for arg in args if hasattr(arg, "ndim"))
        placements = [Replicate()] + [Shard(d) for d in range(ndim)]
        return [([p] if has_output else [], [p if is_tensor else None for is_tensor in tensors]) for p in placements]

    for op in _POINTWISE_OPS:
        has_output = not _mutates_first_argument(op)
        register_sharding(op)(lambda *args, _has_output=has_output, **kwargs: shardings(args, _has_output))


# -- jagged nested tensors ---------------------------------------------------------------------------


def _register_nested() -> None:
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
        return NestedTensor(values, **extract_kwargs(layout))

    for op in _POINTWISE_OPS:
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


def _when_imported(module: str, register) -> None:
    if module in sys.modules:
        register()
    else:
        sys.meta_path.insert(0, _AfterImport(module, register))


# -- torch.compile ----------------------------------------------------------------------------------


def _trace_elu_function_as_one_call() -> None:
    """Dynamo refuses to trace a torch.autograd.Function that defines `jvp` ("Unsupported custom
    jvp", torch/_dynamo/variables/misc.py). Allowed in the graph, ELUFunction.apply becomes one call
    that AOTAutograd traces through with its own forward and backward, so it compiles fullgraph."""
    from .ops import ELUFunction

    torch._dynamo.allow_in_graph(ELUFunction)


_when_imported("torch.distributed.tensor", _register_sharding)
_when_imported("torch._dynamo", _trace_elu_function_as_one_call)
_register_nested()
