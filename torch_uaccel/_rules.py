"""How PyTorch's transforms and tensor subclasses handle the uaccel ELU ops: batching rules for
vmap, sharding rules for DTensor, rules for jagged nested tensors, and how Dynamo sees ELUFunction. (Autograd, forward-mode AD
and torch.func's grad/jvp need nothing here: the ops' C++ autograd kernels serve them.)

The rules are pointwise: every op maps each element on its own, so a batch dimension, a shard or
a jagged layout passes through unchanged.
"""
import importlib.abc
import importlib.util
import sys

import torch

_POINTWISE_OPS = ("elu", "elu_", "elu_backward")


# -- vmap -------------------------------------------------------------------------------------------
# The dispatcher drops trailing arguments equal to their schema default, so each rule defaults them too.


@torch.library.register_vmap("uaccel::elu")
def _elu_vmap(info, in_dims, x, alpha=0.1, scale=1, input_scale=1):
    return torch.ops.uaccel.elu(x, alpha, scale, input_scale), in_dims[0]


@torch.library.register_vmap("uaccel::elu_")
def _elu_inplace_vmap(info, in_dims, x, alpha=0.1, scale=1, input_scale=1):
    torch.ops.uaccel.elu_(x, alpha, scale, input_scale)
    return None, None


@torch.library.register_vmap("uaccel::elu_backward")
def _elu_backward_vmap(info, in_dims, grad_output, saved, alpha, is_result, scale=1, input_scale=1):
    # Both tensors get the batch dimension in front; an unbatched one is expanded (no copy).
    def batched(t, dim):
        return t.movedim(dim, 0) if dim is not None else t.expand(info.batch_size, *t.shape)

    grad_output, saved = batched(grad_output, in_dims[0]), batched(saved, in_dims[1])
    return torch.ops.uaccel.elu_backward(grad_output, saved, alpha, is_result, scale, input_scale), 0


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

    for name in _POINTWISE_OPS:
        in_place = name.endswith("_")  # returns nothing: its only output is its first argument
        register_sharding(getattr(torch.ops.uaccel, name).default)(
            lambda *args, _has_output=not in_place, **kwargs: shardings(args, _has_output)
        )


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
        if values is None:  # elu_ wrote into layout._values
            return None
        return NestedTensor(values, **extract_kwargs(layout))

    for name in _POINTWISE_OPS:
        torch.library.register_torch_dispatch(f"uaccel::{name}", NestedTensor, pointwise)


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
