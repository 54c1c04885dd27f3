"""Per-call cost on small tensors: what a user pays for each call of ours against ATen's, where the
math is nothing (1 element) and where it begins to count (2^10 elements), 1 thread, float32.

For each activation: the op overload (`torch.ops.uaccel.<op>.default` against `torch.ops.aten.<op>`),
the function (`torch_uaccel.<op>` against `F.<op>`), the module's forward, and a training step (the
module forward, `.sum()`, `.backward()`: our autograd Node against ATen's). Medians of
torch.utils.benchmark's blocked_autorange, microseconds, with the interquartile range; `--repeat`
runs everything again in the same process so the spread between runs shows too.

    python benchmarks/bench_per_call.py [--repeat 2] [--json out.json]
"""

import argparse
import json

import torch
import torch.nn.functional as F
from torch.utils import benchmark

import torch_uaccel


def step(module):
    def run(x):
        module(x).sum().backward()

    return run


def cases():
    """(name, ours, ATen's, input requires grad)."""
    elu, aten_elu = torch.ops.uaccel.elu.default, torch.ops.aten.elu.default
    silu, aten_silu = torch.ops.uaccel.silu.default, torch.ops.aten.silu.default
    return [
        ("elu op", lambda x: elu(x, 1.0), lambda x: aten_elu(x, 1.0), False),
        ("elu function", lambda x: torch_uaccel.elu(x, 1.0), lambda x: F.elu(x, 1.0), False),
        ("ELU module", torch_uaccel.ELU(1.0), torch.nn.ELU(1.0), False),
        ("ELU training step", step(torch_uaccel.ELU(1.0)), step(torch.nn.ELU(1.0)), True),
        ("silu op", silu, aten_silu, False),
        ("silu function", torch_uaccel.silu, F.silu, False),
        ("SiLU module", torch_uaccel.SiLU(), torch.nn.SiLU(), False),
        ("SiLU training step", step(torch_uaccel.SiLU()), step(torch.nn.SiLU()), True),
    ]


def measure(fn, x, min_run_time):
    m = benchmark.Timer("fn(x)", globals={"fn": fn, "x": x}, num_threads=1).blocked_autorange(min_run_time=min_run_time)
    return m.median * 1e6, m.iqr * 1e6


def run(sizes, min_run_time):
    rows = []
    for size in sizes:
        for name, ours, theirs, requires_grad in cases():
            x = torch.randn(size).requires_grad_(requires_grad)
            (ours_us, ours_iqr), (aten_us, aten_iqr) = measure(ours, x, min_run_time), measure(theirs, x, min_run_time)
            rows.append(
                {
                    "case": name,
                    "elements": size,
                    "ours_us": ours_us,
                    "ours_iqr_us": ours_iqr,
                    "aten_us": aten_us,
                    "aten_iqr_us": aten_iqr,
                    "ratio": ours_us / aten_us,
                }
            )
            print(
                f"{name:22s} {size:6d}  ours {ours_us:7.2f} us (iqr {ours_iqr:5.2f})  "
                f"ATen {aten_us:7.2f} us (iqr {aten_iqr:5.2f})  ratio {ours_us / aten_us:5.2f}",
                flush=True,
            )
    return rows


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 1024])
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--min-run-time", type=float, default=0.5)
    parser.add_argument("--json", help="write the rows here")
    args = parser.parse_args()
    torch.set_num_threads(1)
    runs = []
    for i in range(args.repeat):
        print(f"-- run {i + 1} of {args.repeat}, torch {torch.__version__}, 1 thread")
        runs.append(run(args.sizes, args.min_run_time))
    if args.json:
        with open(args.json, "w") as out:
            json.dump(runs, out, indent=1)
