"""The CPU kernels against the machine's limits, in one process, at 1 thread and at the machine's thread
count (torch's default): ns and cycles per element (the clock measured here: a chain of dependent integer
adds, one per cycle, compiled at run time), each beside its roof (torch.relu or torch.mul: the same bytes
with trivial math), for the targets of the CPU-speed work: forward <= 2.75x relu; bfloat16 forward <=
float32 forward; backward from the input <= 1.3x the forward; backward from the result <= 1.5x mul; 2^24
elements with the uaccel allocator <= 1.25x x.clone(); GELU >= 2x F.gelu (backward 1.5x), SiLU >= 2x
F.silu, the gated ops >= 1.5x the unfused chains (also at 2^24, and a training step at 2^20, with the
uaccel allocator: glibc's fresh pages would time page faults: with glibc, each training step's minor
faults a call are printed where 100 or more). Then, per op, the speed-up against ATen at the machine's
thread count and the scaling from 1 thread to it (ours and ATen's), and at 1 thread the speed-up over
input spreads x = sigma * N(0, 1), sigma 0.5 to 5. Medians of torch.utils.benchmark, each the best of
`--repeat` runs (the spread between runs is printed). Per-call costs are benchmarks/bench_per_call.py's.

    python benchmarks/bench_targets.py [--repeat 3]
"""

import argparse
import ctypes
import functools
import pathlib
import resource
import subprocess
import tempfile
import time

import torch
import torch.nn.functional as F
from report import write_json

import torch_uaccel
from torch_uaccel import memory
from torch_uaccel._testing.timing import SIGMAS, best_of, using_threads

CLOCK_SOURCE = r"""
#include <stdint.h>
/* n dependent register adds: n cycles on any out-of-order x86. Not adds of an immediate: a Xeon (AMX)
   ran those at 2 a cycle (7.1-8.0 GHz read where an imul chain reads 3.9), its renamer folding them */
uint64_t spin(uint64_t n) {
  uint64_t x = 0, one = 1;
  for (uint64_t i = 0; i < n; ++i) __asm__ volatile("add %1, %0" : "+r"(x) : "r"(one));
  return x;
}
"""


def clock_hz() -> float:
    """Cycles per second, measured: the loop's add chain (1 cycle each) plus its own increment and branch,
    which run beside it; the best of 5."""
    with tempfile.TemporaryDirectory() as tmp:
        source, library = pathlib.Path(tmp, "clock.c"), pathlib.Path(tmp, "clock.so")
        source.write_text(CLOCK_SOURCE)
        subprocess.run(["cc", "-O2", "-shared", "-fPIC", str(source), "-o", str(library)], check=True)
        spin = ctypes.CDLL(str(library)).spin
        spin.argtypes, spin.restype = [ctypes.c_uint64], ctypes.c_uint64
        n = 200_000_000
        best = float("inf")
        for _ in range(5):
            start = time.perf_counter()
            spin(n)
            best = min(best, time.perf_counter() - start)
        return n / best


def unfused_silu(gate, up):
    return F.silu(gate) * up


def unfused_gelu(gate, up, approximate="none"):
    return F.gelu(gate, approximate=approximate) * up


gelu_mul_tanh = functools.partial(torch.ops.uaccel.gelu_mul.default, approximate="tanh")
aten_elu_backward = torch.ops.aten.elu_backward.default
# Ours and ATen's (or the unfused chain's) name for the same work, in targets()' timings.
AGAINST_ATEN = {
    "elu": "F.elu",
    "elu_backward from input": "aten elu_backward from input",
    "elu_backward from result": "aten elu_backward from result",
    "silu": "F.silu",
    "silu_backward": "aten silu_backward",
    "gelu none": "F.gelu none",
    "gelu tanh": "F.gelu tanh",
    "gelu_backward none": "aten gelu_backward none",
    "gelu_backward tanh": "aten gelu_backward tanh",
    "silu_mul": "F.silu(gate) * up",
    "gelu_mul": "F.gelu(gate) * up",
    "gelu_mul tanh": "F.gelu(gate, tanh) * up",
    "silu_mul fwd+bwd": "unfused silu fwd+bwd",
    "gelu_mul fwd+bwd": "unfused gelu fwd+bwd",
    "gelu_mul tanh fwd+bwd": "unfused gelu tanh fwd+bwd",
}
unfused_gelu_tanh = functools.partial(unfused_gelu, approximate="tanh")


def training(fn, gate, up, grad):
    """A gated op's forward and backward, as a training step runs them."""
    return torch.autograd.grad(fn(gate, up), (gate, up), grad)


def best_of_training(fn, gate, up, grad, repeat):
    """best_of of a training step, and the minor page faults a call took meanwhile: glibc returns the freed
    blocks at the top of its heap to the system past a threshold and the next step faults them back in.
    Which chain that befalls depends on the heap's layout when it is timed (ours or the unfused one,
    seen both ways), so the count says when a ratio times the allocator rather than the kernels."""
    calls = 0

    def step(*args):
        nonlocal calls
        calls += 1
        return training(*args)

    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    timing = best_of(step, fn, gate, up, grad, repeat=repeat)
    return timing, (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) / calls


def targets(hz: float, r: int) -> dict:
    """The targets' timings at torch's thread count, printed, and returned by size and dtype."""
    results = {}
    elu, elu_backward = torch.ops.uaccel.elu.default, torch.ops.uaccel.elu_backward.default
    silu, silu_backward = torch.ops.uaccel.silu.default, torch.ops.uaccel.silu_backward.default
    gelu, gelu_backward = torch.ops.uaccel.gelu.default, torch.ops.uaccel.gelu_backward.default
    silu_mul, gelu_mul = torch.ops.uaccel.silu_mul.default, torch.ops.uaccel.gelu_mul.default
    for log2 in (16, 20, 22):
        n = 2**log2
        forward = {}
        for dtype in (torch.float32, torch.bfloat16):
            x, g = torch.randn(n, dtype=dtype), torch.randn(n, dtype=dtype)
            y = elu(x, 1.0)
            times = {
                "relu": best_of(torch.relu, x, repeat=r),
                "mul": best_of(torch.mul, g, x, repeat=r),
                "elu": best_of(elu, x, 1.0, repeat=r),
                "F.elu": best_of(F.elu, x, 1.0, repeat=r),
                "elu_backward from input": best_of(elu_backward, g, x, -0.5, False, repeat=r),
                "elu_backward from result": best_of(elu_backward, g, y, 1.0, True, repeat=r),
                "aten elu_backward from input": best_of(aten_elu_backward, g, -0.5, 1, 1, False, x, repeat=r),
                "aten elu_backward from result": best_of(aten_elu_backward, g, 1.0, 1, 1, True, y, repeat=r),
                "silu": best_of(silu, x, repeat=r),
                "F.silu": best_of(F.silu, x, repeat=r),
                "silu_backward": best_of(silu_backward, g, x, repeat=r),
                "aten silu_backward": best_of(torch.ops.aten.silu_backward.default, g, x, repeat=r),
            }
            for approximate in ("none", "tanh"):
                keywords = {"approximate": approximate}
                times[f"gelu {approximate}"] = best_of(functools.partial(gelu, **keywords), x, repeat=r)
                times[f"F.gelu {approximate}"] = best_of(functools.partial(F.gelu, **keywords), x, repeat=r)
                times[f"gelu_backward {approximate}"] = best_of(
                    functools.partial(gelu_backward, **keywords), g, x, repeat=r
                )
                aten_backward = functools.partial(torch.ops.aten.gelu_backward.default, **keywords)
                times[f"aten gelu_backward {approximate}"] = best_of(aten_backward, g, x, repeat=r)
            up = torch.randn(n, dtype=dtype)
            times["silu_mul"] = best_of(silu_mul, x, up, repeat=r)
            times["F.silu(gate) * up"] = best_of(unfused_silu, x, up, repeat=r)
            times["gelu_mul"] = best_of(gelu_mul, x, up, repeat=r)
            times["F.gelu(gate) * up"] = best_of(unfused_gelu, x, up, repeat=r)
            times["gelu_mul tanh"] = best_of(gelu_mul_tanh, x, up, repeat=r)
            times["F.gelu(gate, tanh) * up"] = best_of(unfused_gelu_tanh, x, up, repeat=r)
            gate_, up_ = x.clone().requires_grad_(), up.clone().requires_grad_()
            # The first training step timed at a size pays glibc's trimming, whichever chain it is (seen
            # both ways): a discarded one first, so that the faults left are a chain's own.
            best_of_training(unfused_silu, gate_, up_, g, 1)
            faults = {}
            for op, fn in (
                ("silu_mul fwd+bwd", silu_mul),
                ("unfused silu fwd+bwd", unfused_silu),
                ("gelu_mul fwd+bwd", gelu_mul),
                ("unfused gelu fwd+bwd", unfused_gelu),
                ("gelu_mul tanh fwd+bwd", gelu_mul_tanh),
                ("unfused gelu tanh fwd+bwd", unfused_gelu_tanh),
            ):
                times[op], faults[op] = best_of_training(fn, gate_, up_, g, r)
            forward[dtype] = times["elu"][0]
            name = str(dtype).removeprefix("torch.")
            print(f"\n2^{log2} {name}: ns/element, cycles/element, ratio to its roof (spread between runs)")
            results[f"2^{log2} {name}"] = {
                op: {"ns_per_element": t / n * 1e9, "cycles_per_element": t / n * hz, "spread": spread}
                | ({"page_faults_per_call": faults[op]} if op in faults else {})
                for op, (t, spread) in times.items()
            }
            for op, (t, spread) in times.items():
                roof = "mul" if "backward" in op or "mul" in op or "*" in op or "bwd" in op else "relu"
                ratio = f"{t / times[roof][0]:5.2f}x {roof}" if op not in ("relu", "mul") else ""
                faulted = f"  {faults[op]:.0f} page faults a call" if faults.get(op, 0) >= 100 else ""
                print(f"  {op:26s} {t / n * 1e9:6.3f} ns  {t / n * hz:5.2f} cyc  {ratio:12s} (+{spread:.0%}){faulted}")
            print(
                f"  targets: elu {times['elu'][0] / times['relu'][0]:.2f}x relu (<= 2.75); backward from input "
                f"{times['elu_backward from input'][0] / times['elu'][0]:.2f}x forward (<= 1.3); from result "
                f"{times['elu_backward from result'][0] / times['mul'][0]:.2f}x mul (<= 1.5); silu "
                f"{times['silu'][0] / times['F.silu'][0]:.2f}x F.silu (<= 0.5)"
            )
            wanted = {  # how many times faster than ATen's (AGAINST_ATEN) each should be
                "gelu none": 2,
                "gelu tanh": 2,
                "gelu_backward none": 1.5,
                "gelu_backward tanh": 1.5,
                "silu_mul": 1.5,
                "gelu_mul": 1.5,
                "silu_mul fwd+bwd": 1.5,
                "gelu_mul fwd+bwd": 1.5,
                "gelu_mul tanh": 1.5,
                "gelu_mul tanh fwd+bwd": 1.5,
            }
            print(
                "  speedups: "
                + ", ".join(
                    f"{ours} {times[AGAINST_ATEN[ours]][0] / times[ours][0]:.2f}x (>= {target})"
                    for ours, target in wanted.items()
                )
            )
        print(
            f"  target: bfloat16 forward / float32 forward = {forward[torch.bfloat16] / forward[torch.float32]:.2f} (<= 1)"
        )
    with memory.cpu_allocator():
        for dtype in (torch.float32, torch.bfloat16):
            x = torch.randn(2**24).to(dtype)
            ours, _ = best_of(elu, x, 1.0, repeat=r)
            clone, _ = best_of(torch.clone, x, repeat=r)
            name = str(dtype).removeprefix("torch.")
            print(f"\n2^24 {name} with the uaccel allocator: elu {ours / clone:.2f}x x.clone() (<= 1.25)")
            results[f"2^24 {name} with the uaccel allocator"] = {"elu_over_clone": ours / clone}
        # The gated ops where fresh outputs would page-fault: glibc trims the freed blocks of a training
        # step at 2^20 float32 and maps every block at 2^24 anew, which would time the kernel's page faults.
        for log2 in (20, 24):
            for dtype in (torch.float32, torch.bfloat16):
                gate, up, g = (torch.randn(2**log2).to(dtype) for _ in range(3))
                gate_, up_ = gate.clone().requires_grad_(), up.clone().requires_grad_()
                pairs = {
                    "silu_mul": (best_of(silu_mul, gate, up, repeat=r), best_of(unfused_silu, gate, up, repeat=r)),
                    "gelu_mul": (best_of(gelu_mul, gate, up, repeat=r), best_of(unfused_gelu, gate, up, repeat=r)),
                    "silu_mul fwd+bwd": (
                        best_of(training, silu_mul, gate_, up_, g, repeat=r),
                        best_of(training, unfused_silu, gate_, up_, g, repeat=r),
                    ),
                    "gelu_mul fwd+bwd": (
                        best_of(training, gelu_mul, gate_, up_, g, repeat=r),
                        best_of(training, unfused_gelu, gate_, up_, g, repeat=r),
                    ),
                    "gelu_mul tanh": (
                        best_of(gelu_mul_tanh, gate, up, repeat=r),
                        best_of(unfused_gelu_tanh, gate, up, repeat=r),
                    ),
                    "gelu_mul tanh fwd+bwd": (
                        best_of(training, gelu_mul_tanh, gate_, up_, g, repeat=r),
                        best_of(training, unfused_gelu_tanh, gate_, up_, g, repeat=r),
                    ),
                }
                name = str(dtype).removeprefix("torch.")
                print(
                    f"2^{log2} {name} with the uaccel allocator, the unfused chain's time over ours (>= 1.5): "
                    + ", ".join(f"{op} {theirs[0] / ours[0]:.2f}x" for op, (ours, theirs) in pairs.items())
                )
                results[f"2^{log2} {name} gated with the uaccel allocator"] = {
                    op: {"ours_ns_per_element": ours[0] / 2**log2 * 1e9, "unfused_over_ours": theirs[0] / ours[0]}
                    for op, (ours, theirs) in pairs.items()
                }
    return results


def print_scaling(single: dict, multi: dict, threads: int) -> dict:
    """Per size, dtype and op: the speed-up against ATen at `threads`, and the scaling from 1 thread to
    `threads` (time at 1 over time at `threads`) of ours and of ATen's."""
    print(f"\n=== 1 -> {threads} threads: speed-up against ATen at {threads}; scaling, ours / ATen's")
    scaling = {}
    for case, ops in multi.items():
        if "with the uaccel allocator" in case:
            continue
        print(f"  {case}:")
        for ours, theirs in AGAINST_ATEN.items():
            speedup = ops[theirs]["ns_per_element"] / ops[ours]["ns_per_element"]
            own = single[case][ours]["ns_per_element"] / ops[ours]["ns_per_element"]
            aten = single[case][theirs]["ns_per_element"] / ops[theirs]["ns_per_element"]
            scaling[f"{case} {ours}"] = {"speedup": speedup, "scaling": own, "aten_scaling": aten}
            print(f"    {ours:26s} {speedup:5.2f}x ATen   scaling {own:4.2f} / {aten:4.2f}")
    return scaling


def spread_sweep(r: int) -> dict:
    """Speed-up against ATen (the gated ops: the unfused chain) at 2^16 elements of x = sigma * N(0, 1), at
    torch's thread count: a vector with a lane past a fast path's reach takes a slower path."""
    n = 2**16
    cases = {
        "silu": (torch.ops.uaccel.silu.default, F.silu),
        "gelu none": (torch.ops.uaccel.gelu.default, F.gelu),
        "gelu tanh": (
            functools.partial(torch.ops.uaccel.gelu.default, approximate="tanh"),
            functools.partial(F.gelu, approximate="tanh"),
        ),
        "silu_backward": (torch.ops.uaccel.silu_backward.default, torch.ops.aten.silu_backward.default),
        "gelu_backward none": (torch.ops.uaccel.gelu_backward.default, torch.ops.aten.gelu_backward.default),
        "silu_mul": (torch.ops.uaccel.silu_mul.default, unfused_silu),
        "gelu_mul": (torch.ops.uaccel.gelu_mul.default, unfused_gelu),
        "gelu_mul tanh": (gelu_mul_tanh, unfused_gelu_tanh),
    }
    sweep = {}
    for dtype in (torch.float32, torch.bfloat16):
        name = str(dtype).removeprefix("torch.")
        print(f"\n=== input spread, {name} 2^16, speed-up against ATen, x = sigma * N(0, 1)")
        print(f"  {'op':20s} " + " ".join(f"{'sigma ' + str(sigma):>10s}" for sigma in SIGMAS))
        for op, (ours, theirs) in cases.items():
            ratios = []
            for sigma in SIGMAS:
                x, other = (torch.randn(n) * sigma).to(dtype), torch.randn(n, dtype=dtype)
                # (x), a gated op's (gate, up), a backward's (grad_output, x)
                args = (x, other) if "mul" in op else (other, x) if "backward" in op else (x,)
                ratios.append(best_of(theirs, *args, repeat=r)[0] / best_of(ours, *args, repeat=r)[0])
            sweep[f"{name} {op}"] = dict(zip(map(str, SIGMAS), ratios, strict=True))
            print(f"  {op:20s} " + " ".join(f"{ratio:>10.2f}" for ratio in ratios))
    return sweep


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", help="write the timings here, stamped (report.py)")
    args = parser.parse_args()
    machine_threads = torch.get_num_threads()
    torch.set_num_threads(1)
    hz = clock_hz()
    info = torch_uaccel.build_info()
    print(f"torch {torch.__version__}, CPU kernels {info['cpu_kernels']}, clock {hz / 1e9:.2f} GHz (measured)")
    results = {}
    for count in sorted({1, machine_threads}):
        print(f"\n=== {count} thread{'s' * (count > 1)}")
        with using_threads(count):
            results[f"{count} threads"] = targets(hz, args.repeat)
    if machine_threads > 1:
        results["scaling"] = print_scaling(results["1 threads"], results[f"{machine_threads} threads"], machine_threads)
    with using_threads(1):
        results["spread sweep"] = spread_sweep(args.repeat)
    if args.json:
        write_json(args.json, {"clock_hz": hz, "timings": results})


if __name__ == "__main__":
    main()
