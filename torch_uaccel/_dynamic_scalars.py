"""Float parameters that vary under torch.compile: one graph for every value, as with ATen's ops.

After a float argument changes once, Dynamo traces it as a symbolic float (a SymFloat read from a
0-dim tensor input). Before Inductor compiles, AOTAutograd's tensorify pass turns every SymFloat
back into tensor math (torch/fx/passes/_tensorify_python_scalars.py); one that reaches an op it
cannot rewrite is specialised to its value, with a guard, and the next value compiles a new graph.
ATen's ops escape because Inductor decomposes them into tensor math; ours stay one kernel.

So while a graph is traced (ProxyTorchDispatchMode: AOTAutograd, make_fx), a pointwise op called
with a symbolic Scalar becomes its `<op>.tensor_scalars` overload (uaccel/pointwise.h), each
Scalar handed over as a 0-dim float64 CPU tensor made by a multiplication the tensorify pass does
rewrite. The kernels read the values from those tensors at run time (on the CPU: no device sync).
Concrete Scalars keep the op as it is: nothing changes for graphs without symbolic parameters.
"""

import torch
from torch.fx.experimental.proxy_tensor import ProxyTorchDispatchMode

from . import _schemas


def _symbolic(value) -> bool:
    return isinstance(value, (torch.SymFloat, torch.SymInt, torch.SymBool))


def _trace_with_tensor_scalars(op: torch._ops.OpOverload, twin: torch._ops.OpOverload):
    positions = _schemas.scalar_positions(op)

    def rule(mode, func, types, args, kwargs):
        bound = _schemas.bind(op, args, kwargs)
        if not any(_symbolic(bound[i]) for i in positions):
            return mode.__torch_dispatch__(func, types, args, kwargs)
        with mode:  # traced: the multiplications are what the tensorify pass rewrites
            for i in positions:
                bound[i] = torch.ones((), dtype=torch.float64) * bound[i]
            return twin(*bound)

    return rule


def register(ops: list[torch._ops.OpOverload]) -> None:
    """The rewrite for each of a library's pointwise ops that has a tensor_scalars overload."""
    for op in ops:
        if (twin := _schemas.tensor_scalars_overload(op)) is not None:
            torch.library.register_torch_dispatch(op, ProxyTorchDispatchMode, _trace_with_tensor_scalars(op, twin))
