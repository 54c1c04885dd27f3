"""ELU benchmark: uaccel against ATen (F.elu / aten.elu_backward) and torch.compile, in one process.

Medians of torch.utils.benchmark's blocked_autorange. Writes JSON rows, a PNG plot (GB/s and
ratio against ATen by size) and, with --update-readme, the README's benchmark table.

    python benchmarks/bench_elu.py                    # CPU, sizes 2^10..2^24, 1 and 2 threads
    python benchmarks/bench_elu.py --device cuda      # GPU, sizes 2^16..2^30
"""
import argparse
import pathlib
import sys

import torch
import torch.nn.functional as F
from torch.utils import benchmark

import torch_uaccel
from torch_uaccel.benchmark import median_seconds

from report import ROOT, machine_name, publish
ALPHA = 1.0


def autograd_step(fn):
    def step(x, g):
        (dx,) = torch.autograd.grad(fn(x, ALPHA), x, g)
        return dx

    return step


def cases():
    """name -> (uaccel fn, ATen fn, argument builder, bytes moved per element / element size)."""
    compiled_forward = torch.compile(F.elu, fullgraph=True)

    def forward_args(x):
        return (x, ALPHA)

    def backward_args(x):
        return torch.randn_like(x), F.elu(x, ALPHA), x

    return {
        "forward": dict(
            uaccel=torch.ops.uaccel.elu, aten=F.elu, compiled=compiled_forward, args=forward_args, traffic=2),
        # Each library's backward as its autograd runs it: uaccel from the saved output (no exp),
        # ATen from the saved input.
        "backward": dict(
            uaccel=lambda g, y, x: torch.ops.uaccel.elu_backward(g, y, ALPHA, True),
            aten=lambda g, y, x: torch.ops.aten.elu_backward(g, ALPHA, 1, 1, False, x),
            compiled=None, args=backward_args, traffic=3),
        "forward+backward": dict(
            uaccel=autograd_step(torch.ops.uaccel.elu), aten=autograd_step(F.elu),
            compiled=autograd_step(torch.compile(F.elu, fullgraph=True)),
            args=lambda x: (x.detach().requires_grad_(), torch.randn_like(x)), traffic=5),
    }


def run(device, dtypes, sizes, thread_counts, min_run_time):
    torch._dynamo.config.cache_size_limit = 256
    rows, measurements = [], []
    for threads in thread_counts:
        torch.set_num_threads(threads)
        for name, case in cases().items():
            for dtype in dtypes:
                for numel in sizes:
                    x = torch.randn(numel, device=device, dtype=dtype)
                    args = case["args"](x)
                    label = f"ELU {name} ({device}, {threads} thread{'s' * (threads > 1)})"
                    sub = f"{str(dtype).removeprefix('torch.')} 2^{numel.bit_length() - 1}"
                    row = dict(op=name, device=device, dtype=str(dtype).removeprefix("torch."), numel=numel, threads=threads)
                    for impl in ("uaccel", "aten", "compiled"):
                        if case[impl] is None:
                            continue
                        seconds, m = median_seconds(case[impl], *args, min_run_time=min_run_time,
                                                    label=label, sub_label=sub, description=impl)
                        measurements.append(m)
                        row[f"{impl}_us"] = seconds * 1e6
                    row["vs_aten"] = row["aten_us"] / row["uaccel_us"]
                    if "compiled_us" in row:
                        row["vs_compile"] = row["compiled_us"] / row["uaccel_us"]
                    row["uaccel_GBps"] = case["traffic"] * numel * x.element_size() / row["uaccel_us"] / 1e3
                    rows.append(row)
        if device != "cpu":
            break  # thread count only matters on the CPU
    benchmark.Compare(measurements).print()
    return rows


def copy_bandwidth(device, numel, min_run_time):
    """GB/s of a plain device copy (read + write) of numel fp32: the bar for a memory-bound kernel."""
    src = torch.randn(numel, device=device)
    dst = torch.empty_like(src)
    seconds, _ = median_seconds(dst.copy_, src, min_run_time=min_run_time)
    return 2 * src.nbytes / seconds / 1e9


def saved_activation_bytes(activation, device="cpu"):
    """Bytes autograd keeps for backward in one training step of an MLP with 3 activation layers,
    counting each storage once (a tensor saved by two layers costs its bytes once)."""
    torch.manual_seed(0)
    width = 1024
    layers = []
    for _ in range(3):
        layers += [torch.nn.Linear(width, width), activation()]
    model = torch.nn.Sequential(*layers, torch.nn.Linear(width, 1)).to(device)
    storages = {}

    def pack(t):
        storages[t.untyped_storage().data_ptr()] = t.untyped_storage().nbytes()
        return t

    x = torch.randn(256, width, device=device)
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        loss = model(x).sum()
    loss.backward()
    parameters = {p.untyped_storage().data_ptr() for p in model.parameters()}
    return sum(n for ptr, n in storages.items() if ptr not in parameters)


def per_call_overhead(min_run_time):
    x = torch.randn(1)
    ours, _ = median_seconds(torch.ops.uaccel.elu, x, ALPHA, min_run_time=min_run_time)
    aten, _ = median_seconds(F.elu, x, ALPHA, min_run_time=min_run_time)
    return {"uaccel_us": ours * 1e6, "aten_us": aten * 1e6, "extra_us": (ours - aten) * 1e6}


def markdown_table(rows, machine, result):
    saved = result["saved_activation_bytes"]
    notes = [f"Measured on {machine}. Ratio > 1: uaccel faster (median time of the other / median time of uaccel). "
             f"Plain copy in the same run: {', '.join(f'{k} fp32 {v:.1f} GB/s' for k, v in result['copy_GBps'].items())}. "
             f"Saved activations, MLP with 3 ELU layers (batch 256, width 1024): nn.ELU {saved['nn.ELU'] / 2**20:.1f} MiB, "
             f"torch_uaccel.ELU {saved['torch_uaccel.ELU'] / 2**20:.1f} MiB."]
    if "per_call_overhead" in result:
        o = result["per_call_overhead"]
        notes.append(f"Per call on a one-element tensor: uaccel {o['uaccel_us']:.2f} µs, F.elu {o['aten_us']:.2f} µs.")
    lines = [" ".join(notes), "",
             "| op | dtype | threads | elements | uaccel µs | ATen µs | vs ATen | vs torch.compile | uaccel GB/s |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        vs_compile = f"{r['vs_compile']:.2f}x" if "vs_compile" in r else "—"
        lines.append(f"| {r['op']} | {r['dtype']} | {r['threads']} | 2^{r['numel'].bit_length() - 1} | {r['uaccel_us']:.1f} | "
                     f"{r['aten_us']:.1f} | {r['vs_aten']:.2f}x | {vs_compile} | {r['uaccel_GBps']:.1f} |")
    return "\n".join(lines)


def plot(rows, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (bandwidth, ratio) = plt.subplots(1, 2, figsize=(13, 4.5))
    series = sorted({(r["op"], r["dtype"], r["threads"]) for r in rows})
    for op, dtype, threads in series:
        pts = [r for r in rows if (r["op"], r["dtype"], r["threads"]) == (op, dtype, threads)]
        sizes = [r["numel"] for r in pts]
        tag = f"{op} {dtype} {threads}t"
        style = dict(marker="o", label=tag, linestyle="-" if threads == 1 else "--",
                     color=f"C{sorted({s[:2] for s in series}).index((op, dtype))}")
        bandwidth.plot(sizes, [r["uaccel_GBps"] for r in pts], **style)
        ratio.plot(sizes, [r["vs_aten"] for r in pts], **style)
    for ax, title in ((bandwidth, "uaccel GB/s"), (ratio, "speed vs ATen (>1: uaccel faster)")):
        ax.set_xscale("log", base=2)
        ax.set_xlabel("elements")
        ax.set_title(title)
        ax.grid(True, alpha=0.3)
    ratio.axhline(1.0, color="black", lw=0.8)
    ratio.set_yscale("log", base=2)
    ratio.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--max-log2", type=int, default=None, help="largest size, log2 (default 24 CPU, 30 GPU)")
    parser.add_argument("--min-run-time", type=float, default=0.2)
    parser.add_argument("--out", type=pathlib.Path, default=None, help="JSON path (default benchmarks/results/elu_<device>.json)")
    parser.add_argument("--update-readme", action="store_true")
    args = parser.parse_args(argv)

    machine = machine_name(args.device)
    max_log2 = args.max_log2 or (24 if args.device == "cpu" else 30)
    sizes = [2**k for k in range(10 if args.device == "cpu" else 16, max_log2 + 1, 2)]
    threads = [1, 2] if args.device == "cpu" else [torch.get_num_threads()]
    rows = run(args.device, (torch.float32, torch.bfloat16), sizes, threads, args.min_run_time)
    result = {"machine": machine, "torch": torch.__version__, "uaccel": torch_uaccel.__version__,
              "build": torch_uaccel.build_info(), "rows": rows}
    copy_log2 = 24 if args.device == "cpu" else 28
    result["copy_GBps"] = {f"2^{copy_log2}": copy_bandwidth(args.device, 2**copy_log2, args.min_run_time)}
    result["saved_activation_bytes"] = {
        "nn.ELU": saved_activation_bytes(torch.nn.ELU, args.device),
        "torch_uaccel.ELU": saved_activation_bytes(lambda: torch_uaccel.ELU(1.0), args.device),
    }
    if args.device == "cpu":
        torch.set_num_threads(max(threads))
        result["per_call_overhead"] = per_call_overhead(args.min_run_time)
    for key in ("copy_GBps", "saved_activation_bytes", "per_call_overhead"):
        if key in result:
            print(f"{key}: {result[key]}")

    out = args.out or ROOT / "benchmarks" / "results" / f"elu_{args.device}.json"
    publish(f"elu-{args.device}", out, result, markdown_table(rows, machine, result), args.update_readme)
    plot(rows, out.with_suffix(".png"))


if __name__ == "__main__":
    sys.exit(main())
