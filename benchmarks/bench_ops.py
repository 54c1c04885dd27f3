"""The ops' benchmark: the op table's benchmarked rows (torch_uaccel._testing.op_table, `benchmark=True`) against
ATen, torch.compile and the roof (an op moving the same bytes with trivial math), in one process; and
each forward op's training step (forward and backward through autograd, as each library runs it).

Medians of torch.utils.benchmark's blocked_autorange. Writes JSON rows, a PNG plot (GB/s with the
roof's, and ratio against ATen, by size) and, with --update-readme, the journal's benchmark table.

    python benchmarks/bench_ops.py                    # CPU, sizes 2^10..2^24, 1 thread and the machine's count
    python benchmarks/bench_ops.py --device cuda      # GPU, sizes 2^16..2^30
"""

import argparse
import dataclasses
import pathlib
import sys

import torch
import torch.nn.functional as F
from report import ROOT, machine_name, publish
from torch.utils import benchmark

import torch_uaccel
from torch_uaccel import memory
from torch_uaccel._testing.op_table import OPS
from torch_uaccel._testing.timing import contention, gradient_step, median_seconds, time_row

ALPHA = 1.0


def training_step(row):
    """`row` forward then backward, each library saving what its autograd saves: x read, y written;
    then dy and the saved tensor read, dx written. The roof: the roof op's step (relu's)."""
    return dataclasses.replace(
        row,
        name=f"{row.name} forward+backward",
        op=gradient_step(row.op),
        reference=gradient_step(row.reference),
        roof=gradient_step(row.roof),
        inputs_from=lambda x: {"": (x.detach().requires_grad_(), torch.randn_like(x))},
        traffic=row.traffic + 3,
    )


def cases(names=None):
    """(row, the reference under torch.compile): the benchmarked rows (those named, if given), then the
    training step of each one-input op among them."""
    rows = [row for row in OPS if row.benchmark and (names is None or row.name in names)]
    steps = [row for row in rows if row.supports_grad and len(row.plain_inputs(torch.empty(1))) == 1]
    return [(row, torch.compile(row.reference, fullgraph=True)) for row in rows] + [
        (training_step(row), gradient_step(torch.compile(row.reference, fullgraph=True))) for row in steps
    ]


def run(device, dtypes, sizes, thread_counts, min_run_time, names=None):
    torch._dynamo.config.cache_size_limit = 256
    rows, measurements = [], []
    for threads in thread_counts:
        torch.set_num_threads(threads)
        for row, compiled in cases(names):
            label = f"{row.name} ({device}, {threads} thread{'s' * (threads > 1)})"
            for dtype in dtypes:
                for numel in sizes:
                    result, timed = time_row(
                        row, device, dtype, numel, min_run_time=min_run_time, compiled=compiled, label=label
                    )
                    rows.append(dict(result, threads=threads))
                    print(progress_line(rows[-1]), flush=True)  # a run cut short still shows what it timed
                    measurements += timed
        if device != "cpu":
            break  # thread count only matters on the CPU
    benchmark.Compare(measurements).print()
    return rows


def progress_line(r):
    ratios = " ".join(f"vs {name} {r[f'vs_{name}']:.2f}x" for name in ("aten", "compiled", "roof") if f"vs_{name}" in r)
    return (
        f"{r['op']} {r['dtype']} 2^{r['numel'].bit_length() - 1} {r['threads']}t: uaccel {r['uaccel_us']:.1f} us, "
        f"{ratios}, spread {r['spread']:.2f}"
    )


def large_outputs_under_the_allocator(dtypes, thread_counts, min_run_time):
    """2^24 elements with the uaccel CPU allocator installed, so each call's output reuses a cached,
    huge-page-backed block instead of faulting in fresh pages: uaccel.elu against x.clone() (the
    same bytes, no math) in that regime. The target is <= 1.25x clone's time."""
    rows = []
    with memory.cpu_allocator():
        for threads in thread_counts:
            torch.set_num_threads(threads)
            for dtype in dtypes:
                x = torch.randn(2**24).to(dtype)
                ours, _ = median_seconds(torch_uaccel.elu, x, ALPHA, min_run_time=min_run_time)
                clone, _ = median_seconds(torch.clone, x, min_run_time=min_run_time)
                dtype_name = str(dtype).removeprefix("torch.")
                row = {"dtype": dtype_name, "threads": threads, "uaccel_us": ours * 1e6, "clone_us": clone * 1e6}
                rows.append(row | {"vs_clone": ours / clone})
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
    copies = ", ".join(f"{k} fp32 {v:.1f} GB/s" for k, v in result["copy_GBps"].items())
    notes = [
        f"Measured on {machine}. Ratio > 1: uaccel faster (median time of the other / median time of uaccel).",
        f"Plain copy in the same run: {copies}.",
        (
            f"Saved activations, MLP with 3 ELU layers (batch 256, width 1024): nn.ELU {saved['nn.ELU'] / 2**20:.1f} MiB, "
            f"torch_uaccel.ELU {saved['torch_uaccel.ELU'] / 2**20:.1f} MiB."
        ),
    ]
    if "per_call_overhead" in result:
        o = result["per_call_overhead"]
        notes.append(f"Per call on a one-element tensor: uaccel {o['uaccel_us']:.2f} µs, F.elu {o['aten_us']:.2f} µs.")
    if "large_outputs_under_the_allocator" in result:
        large = ", ".join(
            f"{r['dtype']} {r['threads']}t {r['vs_clone']:.2f}x" for r in result["large_outputs_under_the_allocator"]
        )
        notes.append(f"2^24 elements with the uaccel allocator installed, uaccel.elu's time over x.clone()'s: {large}.")
    notes.append(
        "Roof: an op moving the same bytes with trivial math (relu, mul; relu's training step); "
        "of roof = roof time / uaccel time, 1 at best."
    )
    lines = [
        " ".join(notes),
        "",
        (
            "| op | dtype | threads | elements | uaccel µs | ATen µs | vs ATen | vs torch.compile | uaccel GB/s | "
            "roof GB/s | of roof |"
        ),
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        vs_compile = f"{r['vs_compiled']:.2f}x" if "vs_compiled" in r else "—"
        lines.append(
            f"| {r['op']} | {r['dtype']} | {r['threads']} | 2^{r['numel'].bit_length() - 1} | "
            f"{r['uaccel_us']:.1f} | {r['aten_us']:.1f} | {r['vs_aten']:.2f}x | {vs_compile} | "
            f"{r['uaccel_GBps']:.1f} | {r['roof_GBps']:.1f} | {r['vs_roof']:.2f} |"
        )
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
        style = {
            "marker": "o",
            "label": tag,
            "linestyle": "-" if threads == 1 else "--",
            "color": f"C{sorted({s[:2] for s in series}).index((op, dtype))}",
        }
        bandwidth.plot(sizes, [r["uaccel_GBps"] for r in pts], **style)
        bandwidth.plot(sizes, [r["roof_GBps"] for r in pts], color=style["color"], linestyle=":", lw=0.8)
        ratio.plot(sizes, [r["vs_aten"] for r in pts], **style)
    for ax, title in ((bandwidth, "uaccel GB/s (dotted: the roof's)"), (ratio, "speed vs ATen (>1: uaccel faster)")):
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
    parser.add_argument("--ops", type=str, default=None, help="only these op-table rows, comma-separated names")
    parser.add_argument("--log2-sizes", type=str, default=None, help="the sizes, log2, comma-separated (e.g. 20,24,28)")
    parser.add_argument("--min-run-time", type=float, default=0.2)
    parser.add_argument(
        "--out", type=pathlib.Path, default=None, help="JSON path (default benchmarks/results/ops_<device>.json)"
    )
    parser.add_argument("--update-readme", action="store_true")
    args = parser.parse_args(argv)

    machine = machine_name(args.device)
    max_log2 = args.max_log2 or (24 if args.device == "cpu" else 30)
    sizes = [2**k for k in range(10 if args.device == "cpu" else 16, max_log2 + 1, 2)]
    if args.log2_sizes:
        sizes = [2 ** int(k) for k in args.log2_sizes.split(",")]
    machine_threads = torch.get_num_threads()  # torch's default: the machine's cores
    threads = sorted({1, machine_threads}) if args.device == "cpu" else [machine_threads]
    contended = contention(machine_threads) if args.device == "cpu" else None
    if contended:  # multi-threaded timings would be the scheduler's quantum, not the op: time 1 thread only
        print(f"The machine is contended ({contended}): timing 1 thread only.")
        threads = [1]
    names = args.ops.split(",") if args.ops else None
    rows = run(args.device, (torch.float32, torch.bfloat16), sizes, threads, args.min_run_time, names)
    result = {
        "machine": machine,
        "torch": torch.__version__,
        "uaccel": torch_uaccel.__version__,
        "build": torch_uaccel.build_info(),
        "rows": rows,
        "contention": contended,
    }
    copy_log2 = 24 if args.device == "cpu" else 28
    result["copy_GBps"] = {f"2^{copy_log2}": copy_bandwidth(args.device, 2**copy_log2, args.min_run_time)}
    result["saved_activation_bytes"] = {
        "nn.ELU": saved_activation_bytes(torch.nn.ELU, args.device),
        "torch_uaccel.ELU": saved_activation_bytes(lambda: torch_uaccel.ELU(1.0), args.device),
    }
    if args.device == "cpu":
        dtypes = (torch.float32, torch.bfloat16)
        result["large_outputs_under_the_allocator"] = large_outputs_under_the_allocator(
            dtypes, threads, args.min_run_time
        )
        torch.set_num_threads(max(threads))
        result["per_call_overhead"] = per_call_overhead(args.min_run_time)
    for key in ("copy_GBps", "saved_activation_bytes", "per_call_overhead", "large_outputs_under_the_allocator"):
        if key in result:
            print(f"{key}: {result[key]}")

    out = args.out or ROOT / "benchmarks" / "results" / f"ops_{args.device}.json"
    publish(f"ops-{args.device}", out, result, markdown_table(rows, machine, result), args.update_readme, args.device)
    plot(rows, out.with_suffix(".png"))


if __name__ == "__main__":
    sys.exit(main())
