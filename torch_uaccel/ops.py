"""The user-facing API of the pointwise ops (the ELU family: ELU, SELU, CELU; SiLU; GELU; the gated ops) over
torch.ops.uaccel: a function and an nn module per op face, each made from one description (a Face,
torch_uaccel/_faces.py): the ELU family's written in _elu.py, every other op's from its schema.

The operators themselves (schemas, CPU/CUDA kernels, autograd in both modes) are C++, see csrc/;
their fake kernels are in _fake.py, and their rules for vmap, DTensor and nested tensors in _rules.py.
"""

import torch
from torch import nn  # noqa: F401  (the generated modules subclass its modules)

from . import _elu, _faces, _native
from ._elu import SELU_ALPHA, SELU_SCALE, ELUFunction  # noqa: F401  (torch_uaccel's)
from ._norms import RMSNorm, add_rms_norm, rms_norm  # noqa: F401  (torch_uaccel's)

# Called on every call, so bound here: no attribute lookups. TorchScript knows is_scripting by the
# function, whatever its name, and drops the branches it rules out.
_is_scripting, _dynamo_tracing = torch.jit.is_scripting, torch.compiler.is_dynamo_compiling

globals().update(_elu.FACE_GLOBALS)  # the names the ELU family's faces call
for _face in _elu.FACES:
    _faces.define(globals(), _face)
# Every other op's face comes from its schema alone (and F's and nn's of its name), as another library's.
_GENERATED = _faces.define_from_schemas(globals(), "uaccel", frozenset(face.op for face in _elu.FACES))


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


def build_info() -> dict:
    """How the extension was built and what it runs here: torch version, whether CUDA kernels are in
    and their archs, the CPU kernel path (``cpu_kernels``) and why (``cpu_kernels_reason``), the CPU
    flags that choice looked at and every path this CPU can run (``cpu_runnable``, lowest first)."""
    return _native.build_facts()


_ALL_FACES = (*_elu.FACES, *_GENERATED)
__all__ = sorted(  # torch_uaccel's too
    [
        *(f.name for f in _ALL_FACES),
        *(f.module for f in _ALL_FACES if f.module),
        *("ELUFunction", "RMSNorm", "add_rms_norm", "build_info", "gelu_and_mul", "rms_norm", "silu_and_mul"),
    ]
)
