"""ELU inside a compiled model: `F.elu` (which Inductor fuses), `uaccel.elu` called as one opaque
kernel (the default) and `uaccel.elu` decomposed by `torch_uaccel.inductor.decompose(True)` (fused
again, at our accuracy), in three models: elu alone, a pointwise chain (x * 2 -> elu -> + 1) and a
Linear -> ELU -> Linear block, forward and forward+backward.

Each variant runs in a process of its own: the decomposition switch must be set before the first
compilation, and Inductor's caches do not key on it. Medians of torch.utils.benchmark.

    python benchmarks/bench_compiled.py                  # CPU, 2^20 elements, 1 thread
    python benchmarks/bench_compiled.py --device cuda    # GPU, 2^24 elements
"""

import argparse
import json
import pathlib
import subprocess
import sys

import torch
import torch.nn.functional as F
from report import ROOT, machine_name, publish

import torch_uaccel
from torch_uaccel import inductor
from torch_uaccel._testing.timing import gradient_step, median_seconds, spread

VARIANTS = ("F.elu", "opaque", "decomposed")
WIDTH = 256  # the Linear block's width: its matmuls dominate, as in a real MLP


def models(elu, device, dtype):
    """name -> (module-like callable, its input's shape from numel)."""
    torch.manual_seed(0)
    block = torch.nn.Sequential(torch.nn.Linear(WIDTH, WIDTH), torch.nn.Linear(WIDTH, WIDTH)).to(device, dtype)
    return {
        "elu": (lambda x: elu(x, 1.0), lambda n: (n,)),
        "x*2 -> elu -> +1": (lambda x: elu(x * 2, 1.0) + 1, lambda n: (n,)),
        "Linear -> elu -> Linear": (lambda x: block[1](elu(block[0](x), 1.0)), lambda n: (n // WIDTH, WIDTH)),
    }


def measure(variant, device, numel, min_run_time):
    """This process's rows: every model, forward and training step, float32 and bfloat16."""
    inductor.decompose(variant == "decomposed")
    elu = F.elu if variant == "F.elu" else torch_uaccel.elu
    rows = []
    for dtype in (torch.float32, torch.bfloat16):
        for model, (fn, shape) in models(elu, device, dtype).items():
            x = torch.randn(shape(numel), device=device, dtype=dtype)
            compiled = torch.compile(fn, fullgraph=True)
            for kind, timed, args in (
                ("forward", compiled, (x,)),
                ("forward+backward", gradient_step(compiled), (x.detach().requires_grad_(), torch.randn_like(x))),
            ):
                seconds, measurement = median_seconds(timed, *args, min_run_time=min_run_time)
                dtype_name = str(dtype).removeprefix("torch.")
                row = {"variant": variant, "model": model, "kind": kind, "dtype": dtype_name}
                rows.append(row | {"us": seconds * 1e6, "spread": spread(measurement)})
    return rows


def markdown_table(rows, machine, numel):
    """One line per model, pass and dtype: each variant's median µs and the ratios against F.elu."""
    lines = [
        f"Measured on {machine}, {numel} elements (the Linear block: {numel // WIDTH} x {WIDTH}). Medians; "
        "ratio > 1: faster than compiled F.elu.",
        "",
        "| model | pass | dtype | F.elu µs | opaque µs | decomposed µs | opaque vs F.elu | decomposed vs F.elu |",
        "|---|---|---|---|---|---|---|---|",
    ]
    by_key = {(r["model"], r["kind"], r["dtype"], r["variant"]): r["us"] for r in rows}
    for model, kind, dtype in dict.fromkeys((r["model"], r["kind"], r["dtype"]) for r in rows):
        t = {v: by_key[model, kind, dtype, v] for v in VARIANTS}
        lines.append(
            f"| {model} | {kind} | {dtype} | {t['F.elu']:.1f} | {t['opaque']:.1f} | {t['decomposed']:.1f} | "
            f"{t['F.elu'] / t['opaque']:.2f}x | {t['F.elu'] / t['decomposed']:.2f}x |"
        )
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--numel", type=int, default=None, help="elements (default 2^20 CPU, 2^24 GPU)")
    parser.add_argument("--threads", type=int, default=1, help="CPU threads (default 1)")
    parser.add_argument("--min-run-time", type=float, default=0.2)
    parser.add_argument("--out", type=pathlib.Path, default=None)
    parser.add_argument("--update-readme", action="store_true")
    parser.add_argument("--variant", choices=VARIANTS, help=argparse.SUPPRESS)  # a child process's one variant
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    numel = args.numel or (2**20 if args.device == "cpu" else 2**24)

    if args.variant:
        print(json.dumps(measure(args.variant, args.device, numel, args.min_run_time)))
        return 0
    rows = []
    for variant in VARIANTS:
        child = [sys.executable, __file__, f"--variant={variant}", f"--device={args.device}", f"--numel={numel}"]
        child += [f"--threads={args.threads}", f"--min-run-time={args.min_run_time}"]
        output = subprocess.run(child, check=True, capture_output=True, text=True).stdout
        rows += json.loads(output.strip().splitlines()[-1])
    machine = machine_name(args.device)
    result = {"machine": machine, "torch": torch.__version__, "numel": numel, "rows": rows}
    out = args.out or ROOT / "benchmarks" / "results" / f"compiled_{args.device}.json"
    publish(
        f"compiled-{args.device}", out, result, markdown_table(rows, machine, numel), args.update_readme, args.device
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
