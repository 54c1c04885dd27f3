"""Per-call cost on small tensors: what a user pays for each call of ours against ATen's, where the
math is nothing (1 element) and where it begins to count (2^10 elements), 1 thread, float32.

For each activation: the op overload (`torch.ops.uaccel.<op>.default` against `torch.ops.aten.<op>`),
the function (`torch_uaccel.<op>` against `F.<op>`), the module's forward, and a training step (the
module forward, `.sum()`, `.backward()`: our autograd Node against ATen's). Paired, because the
machine's speed drifts within seconds: `--rounds` rounds per case, each timing ours and then ATen's
(medians of torch.utils.benchmark's blocked_autorange); printed are the median over rounds of each
time, in microseconds, and the median of the rounds' ratios with their range. `--repeat` runs
everything again in the same process.

    python benchmarks/bench_per_call.py [--repeat 2] [--rounds 5] [--json out.json]
"""

import argparse
import statistics

import torch
import torch.nn.functional as F
from report import write_json

import torch_uaccel
from torch_uaccel._testing.timing import median_seconds


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


def microseconds(fn, x, min_run_time):
    return median_seconds(fn, x, min_run_time=min_run_time)[0] * 1e6


def run(sizes, min_run_time, rounds):
    rows = []
    for size in sizes:
        for name, ours, theirs, requires_grad in cases():
            x = torch.randn(size).requires_grad_(requires_grad)
            pairs = [
                (microseconds(ours, x, min_run_time), microseconds(theirs, x, min_run_time)) for _ in range(rounds)
            ]
            ours_us, aten_us = (statistics.median(times) for times in zip(*pairs, strict=True))
            ratios = sorted(o / a for o, a in pairs)
            rows.append(
                {
                    "case": name,
                    "elements": size,
                    "ours_us": ours_us,
                    "aten_us": aten_us,
                    "ratio": statistics.median(ratios),
                    "ratio_min": ratios[0],
                    "ratio_max": ratios[-1],
                }
            )
            print(
                f"{name:22s} {size:6d}  ours {ours_us:7.2f} us  ATen {aten_us:7.2f} us  "
                f"ratio {statistics.median(ratios):5.2f} ({ratios[0]:.2f}-{ratios[-1]:.2f} over {rounds} rounds)",
                flush=True,
            )
    return rows


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 1024])
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--min-run-time", type=float, default=0.1, help="per measurement, seconds")
    parser.add_argument("--json", help="write the rows here")
    args = parser.parse_args()
    torch.set_num_threads(1)
    runs = []
    for i in range(args.repeat):
        print(f"-- run {i + 1} of {args.repeat}, torch {torch.__version__}, 1 thread")
        runs.append(run(args.sizes, args.min_run_time, args.rounds))
    if args.json:
        write_json(args.json, runs)
