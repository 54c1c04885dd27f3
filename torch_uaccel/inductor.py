"""Whether torch.compile fuses the ELU ops into the code around them (opt-in), or calls our kernels.

By default Inductor calls `uaccel.elu` as one opaque kernel: the fastest ELU on its own, and the op
stays visible (an AOTInductor package calls it through the C++ runtime). Inside a chain of
pointwise ops, though, Inductor fuses everything else into one pass over memory and ELU adds passes
of its own. `decompose(True)` registers Inductor-only decompositions (eager keeps the kernel), so
the ops fuse. They keep our accuracy: expm1 is exp(x) - 1 only where that is exact to an ulp and a
Taylor series near 0 (torch <= 2.13 lowers torch.expm1 itself as exp(x) - 1, which loses all
relative precision there).

Decomposed wins inside pointwise chains, the kernel wins alone (as after a Linear, whose matmul does
not fuse; benchmarks/bench_compiled.py measures both): so the default stays the kernel, and
decompose(True) is for models with long pointwise chains. (torch 2.13 lowers a compiled F.elu as
exp(x) - 1: fast, and wrong in relative terms near 0; the decomposition keeps our accuracy.)
Switch before the first compilation: compiled functions and Inductor's caches (in memory and on
disk, whose keys do not include the switch) keep the code they were compiled with.
"""

import math

import torch
from torch._inductor import decomposition as inductor_decomposition
from torch._inductor.decomposition import decompositions, register_decomposition

from .ops import ELU_DEFAULT_ALPHA


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


def _elu(x, alpha=ELU_DEFAULT_ALPHA, scale=1, input_scale=1):
    if not _nonnegative_number(input_scale):  # a negative input_scale flips the side: keep the kernel
        return NotImplemented
    negative_side = alpha * scale * _expm1_nonpositive(torch.clamp_max(x * input_scale, 0))
    return torch.where(x < 0, negative_side, x * scale)  # the kernels' sides: NaN and -0.0 as they do


def _elu_backward(grad_output, saved, alpha, is_result, scale=1, input_scale=1):
    if not _nonnegative_number(input_scale):
        return NotImplemented
    if is_result:  # saved = y: y + alpha * scale on the negative side
        negative_side = grad_output * input_scale * (saved + alpha * scale)
    else:
        negative_side = grad_output * (input_scale * alpha * scale) * torch.exp(saved * input_scale)
    return torch.where(saved <= 0, negative_side, grad_output * scale)


_DECOMPOSITIONS = {torch.ops.uaccel.elu.default: _elu, torch.ops.uaccel.elu_backward.default: _elu_backward}


def decompose(enabled: bool = True) -> None:
    """Fuse the ELU ops into compiled code (True) or call the uaccel kernels there (False, the default)."""
    for op, decomposition in _DECOMPOSITIONS.items():
        if enabled:
            register_decomposition(op)(decomposition)
        else:
            decompositions.pop(op, None)
    # Inductor copies its table once (torch 2.11-2.14: fast_random_decomps, functools.cache): drop the copy.
    getattr(inductor_decomposition.fast_random_decomps, "cache_clear", lambda: None)()


def decomposed() -> bool:
    return all(op in decompositions for op in _DECOMPOSITIONS)
