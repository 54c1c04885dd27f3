"""The CPU benchmark record: the op table's benchmarked rows (`benchmark=True` in
torch_uaccel/_testing/op_table.py) against ATen, the gated ops against the unfused chain, in float32 and
bfloat16, at 2^16 and 2^20 elements, at 1 thread and the machine's count (torch's default). `make bench`
runs it, so that the main README's benchmark numbers are a generated record rather than hand-copied ones:

- docs/benchmarks/cpu-<ISA path>.csv: every timing, one row each (tidy: op, dtype, numel, threads, impl,
  run, median_s, iqr_s, and the stamp of what produced it), so that any table can be redrawn from it;
- docs/benchmarks/cpu-<ISA path>.png: the speed-up per op, both sizes, 1 thread and the machine's count;
- the README's table between <!-- bench:cpu:start --> and <!-- bench:cpu:end -->: ns per element, ours
  and ATen's, and the speed-up (ATen's time / ours), one number per cell, each the median of the runs.

Each run times every case once (time_row: ours, then ATen on the same inputs), so the runs are independent
and drift over the minutes hits ours and ATen's alike.

    python benchmarks/bench_report.py           # the record: 5 runs, 0.1 s a timing (3 to 4 minutes on 2 cores)
    python benchmarks/bench_report.py --quick   # 2 short runs, marked as such in the README: for development
"""

import argparse
import csv
import dataclasses
import datetime
import itertools
import statistics
import time

import torch
from report import ROOT, cpu_model, stamp, update_readme

from torch_uaccel._testing.op_table import OPS
from torch_uaccel._testing.timing import NOISY_SPREAD, contention, spread, time_row, using_threads

DTYPES = {"float32": "fp32", "bfloat16": "bf16"}  # torch's names, and the README's short ones
SIZES = (2**16, 2**20)
RECORDS = ROOT / "docs" / "benchmarks"
README = ROOT / "README.md"


def log2(numel: int) -> int:
    return numel.bit_length() - 1


def is_gated(row) -> bool:
    """SwiGLU's and GeGLU's gating (the `*_mul` ops): ATen has no fused form, so their reference is the
    unfused chain, and the README shows them apart."""
    return row.overload is not None and row.overload.endswith("_mul")


def benchmarked_rows():
    """The op table's benchmarked rows, the one-input ops and their backwards first, then the gated ops; the
    roof left out (the record compares with ATen only, and the roof would add half the time)."""
    rows = [dataclasses.replace(row, roof=None) for row in OPS if row.benchmark]
    return sorted(rows, key=is_gated)


def measure(rows, thread_counts, runs: int, min_run_time: float) -> list[dict]:
    """One record per timing (ours or ATen's, impl "uaccel" or "aten"): `runs` passes over every case."""
    records = []
    for run in range(runs):
        started = time.perf_counter()
        for threads in thread_counts:
            with using_threads(threads):
                for row, dtype, numel in itertools.product(rows, DTYPES, SIZES):
                    _, measurements = time_row(row, "cpu", getattr(torch, dtype), numel, min_run_time=min_run_time)
                    records += [
                        {
                            "op": row.name,
                            "dtype": dtype,
                            "numel": numel,
                            "threads": threads,
                            "impl": m.description,
                            "run": run,
                            "median_s": m.median,
                            "iqr_s": m.iqr,
                            "noisy": spread(m) > NOISY_SPREAD,
                        }
                        for m in measurements
                    ]
        print(f"run {run + 1}/{runs}: {time.perf_counter() - started:.0f} s", flush=True)
    return records


def cell_medians(records) -> dict:
    """(op, dtype, numel, threads, impl) -> the median over the runs of each run's median time."""
    runs = {}
    for r in records:
        runs.setdefault((r["op"], r["dtype"], r["numel"], r["threads"], r["impl"]), []).append(r["median_s"])
    return {key: statistics.median(times) for key, times in runs.items()}


def speedup(cells, op, dtype, numel, threads) -> float:
    """The README's one meaning of "x": ATen's time over ours, > 1 when ours is faster."""
    return cells[op, dtype, numel, threads, "aten"] / cells[op, dtype, numel, threads, "uaccel"]


def record_stamp(quick: bool) -> dict:
    """report.stamp's fields, its machine line split into the CPU and ATen's path, with the date and whether
    this was a --quick run: a CSV column each, and the README's caption."""
    fields = stamp("cpu")
    del fields["machine"]
    return fields | {
        "cpu": cpu_model(),
        "aten_capability": torch.backends.cpu.get_cpu_capability(),
        "date": datetime.date.today().isoformat(),
        "quick": quick,
    }


def write_csv(path, records, stamp_: dict) -> None:
    """The stamp on every row, so that the files of several machines concatenate into one table."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="") as out:
        columns = ["op", "dtype", "numel", "threads", "impl", "run", "median_s", "iqr_s", *stamp_]
        writer = csv.DictWriter(out, columns, extrasaction="ignore", lineterminator="\n")
        writer.writeheader()
        for r in records:
            writer.writerow(r | {"median_s": f"{r['median_s']:.4g}", "iqr_s": f"{r['iqr_s']:.3g}"} | stamp_)
    print(f"wrote {path}")


def markdown_table(cells, rows, thread_counts) -> str:
    """One table, a row per op: at 1 thread ns per element, ours and ATen's, and x, for each dtype and size;
    then x at the machine's count. The gated ops follow under a row of their own (a second table would
    cost the README two lines more)."""
    cases = list(itertools.product(DTYPES, SIZES))
    many = [t for t in thread_counts if t > 1]
    head = ["op: 1 thread, ns/element"]
    head += [f"{DTYPES[dtype]} 2^{log2(n)} {what}" for dtype, n in cases for what in ("ours", "ATen", "x")]
    head += [f"x {t} threads {DTYPES[dtype]} 2^{log2(n)}" for t in many for dtype, n in cases]
    lines = ["| " + " | ".join(head) + " |", "|---" + "|---:" * (len(head) - 1) + "|"]
    for index, row in enumerate(rows):
        if is_gated(row) and (index == 0 or not is_gated(rows[index - 1])):
            lines.append("| **gated op: its ATen is the unfused chain, `F.silu(gate) * up` or `F.gelu(gate) * up`** |")
        cells_ = []
        for dtype, n in cases:
            ours, aten = (cells[row.name, dtype, n, 1, impl] / n * 1e9 for impl in ("uaccel", "aten"))
            cells_ += [f"{ours:.3f}", f"{aten:.3f}", f"{speedup(cells, row.name, dtype, n, 1):.2f}"]
        cells_ += [f"{speedup(cells, row.name, dtype, n, t):.2f}" for t in many for dtype, n in cases]
        lines.append(f"| `{row.name}` | " + " | ".join(cells_) + " |")
    return "\n".join(lines)


def caption(stamp_: dict, thread_counts, runs: int, name: str, contended: str | None) -> str:
    """What produced the table and how to read it, with links to the rest of the record."""
    quick = "**A quick run (`--quick`), not a record.** " if stamp_["quick"] else ""
    many = [t for t in thread_counts if t > 1]
    threads = f"1 thread, and x at torch's {many[0]} threads too" if many else "1 thread"
    if contended:
        threads += f" (the machine's count not timed: {contended})"
    return (
        f"{quick}CPU: {stamp_['cpu']}; ISA path {stamp_['cpu_kernels']} (ATen's {stamp_['aten_capability']}); "
        f"torch {stamp_['torch']}; commit {stamp_['commit']}; {stamp_['date']}; {threads}; median of {runs} runs. "
        "Ours and ATen: ns per element; x: ATen's time / ours (> 1: ours faster). "
        f"Written by `make bench` ([how](benchmarks/README.md)) with [the plot](docs/benchmarks/{name}.png) and "
        f"[every timing](docs/benchmarks/{name}.csv); measurements it does not repeat (CUDA, copies, allocator, "
        "memory, per call, another project's ops): [the journal](benchmarks/JOURNAL.md#other-measurements)."
    )


def plot(cells, rows, thread_counts, path, title: str) -> None:
    """Speed-up per op, a panel per dtype: a dot per (threads, size), on a log scale around 1."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    series = list(itertools.product(thread_counts, SIZES))
    fig, axes = plt.subplots(1, len(DTYPES), figsize=(12, 1.5 + 0.45 * len(rows)), sharey=True)
    for ax, dtype in zip(axes, DTYPES, strict=True):
        for i, (threads, numel) in enumerate(series):
            offset = (i - (len(series) - 1) / 2) * 0.15
            ax.scatter(
                [speedup(cells, row.name, dtype, numel, threads) for row in rows],
                [k + offset for k in range(len(rows))],
                marker="o" if numel == SIZES[0] else "s",
                color=f"C{thread_counts.index(threads)}",
                label=f"{threads} thread{'s' * (threads > 1)}, 2^{log2(numel)}",
            )
        ax.axvline(1.0, color="black", lw=0.8)
        ax.set_xscale("log", base=2)
        ax.set_xlabel("ATen's time / ours (> 1: ours faster)")
        ax.set_title(dtype)
        ax.grid(True, axis="x", alpha=0.3)
    axes[0].set_yticks(range(len(rows)), [row.name + " (vs unfused)" * is_gated(row) for row in rows])
    axes[0].invert_yaxis()
    axes[-1].legend(fontsize=8)
    fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    print(f"wrote {path}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5, help="independent runs; each cell is their median (>= 2)")
    parser.add_argument("--min-run-time", type=float, default=0.1, help="seconds of blocked_autorange a timing")
    parser.add_argument("--quick", action="store_true", help="--runs 2 --min-run-time 0.01, marked in the README")
    args = parser.parse_args(argv)
    if args.quick:
        args.runs, args.min_run_time = 2, 0.01
    if args.runs < 2:
        parser.error("--runs must be at least 2: a cell is the median of independent runs")

    machine_threads = torch.get_num_threads()  # torch's default: the machine's cores
    thread_counts = sorted({1, machine_threads})
    contended = contention(machine_threads)
    if contended:  # multi-threaded timings would be the scheduler's quantum, not the op: time 1 thread only
        print(f"The machine is contended ({contended}): timing 1 thread only.")
        thread_counts = [1]
    stamp_ = record_stamp(args.quick)  # before anything is written: the commit as it was run
    rows = benchmarked_rows()
    records = measure(rows, thread_counts, args.runs, args.min_run_time)
    if len(thread_counts) > 1 and (late := contention(machine_threads)):
        print(
            f"The machine was contended by the end ({late}): its {machine_threads}-thread timings may be the scheduler's."
        )
    cells = cell_medians(records)
    noisy = sum(r["noisy"] for r in records)
    if noisy:
        print(f"{noisy} of {len(records)} timings had an interquartile range over {NOISY_SPREAD:.0%} of their median")

    name = f"cpu-{stamp_['cpu_kernels'].lower()}"
    write_csv(RECORDS / f"{name}.csv", records, stamp_)
    title = (
        f"{stamp_['cpu']}, {stamp_['cpu_kernels']} path, torch {stamp_['torch']}, {stamp_['commit']}, "
        f"{stamp_['date']}, median of {args.runs} runs" + (" (quick run)" * args.quick)
    )
    plot(cells, rows, thread_counts, RECORDS / f"{name}.png", title)
    table = (
        f"{markdown_table(cells, rows, thread_counts)}\n\n{caption(stamp_, thread_counts, args.runs, name, contended)}"
    )
    print(table)
    update_readme("cpu", table, README)
    print(f"wrote {README.name}'s table")


if __name__ == "__main__":
    main()
