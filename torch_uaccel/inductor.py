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

from torch._inductor import decomposition as inductor_decomposition
from torch._inductor.decomposition import decompositions, register_decomposition

from ._elu import DECOMPOSITIONS


def decompose(enabled: bool = True) -> None:
    """Fuse the ELU ops into compiled code (True) or call the uaccel kernels there (False, the default)."""
    for op, decomposition in DECOMPOSITIONS.items():
        if enabled:
            register_decomposition(op)(decomposition)
        else:
            decompositions.pop(op, None)
    # Inductor copies its table once (torch 2.11-2.14: fast_random_decomps, functools.cache): drop the copy.
    getattr(inductor_decomposition.fast_random_decomps, "cache_clear", lambda: None)()


def decomposed() -> bool:
    return all(op in decompositions for op in DECOMPOSITIONS)
