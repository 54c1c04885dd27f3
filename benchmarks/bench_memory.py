"""Allocator benchmark: alloc+free pairs through the uaccel CPU hook against PyTorch's default CPU
allocator, 64 B to 64 MiB, 1 and 2 threads, and a small CPU training loop with and without the hook.

    python benchmarks/bench_memory.py [--update-readme]
"""
import argparse
import statistics
import sys
import threading
import time

import torch

from torch_uaccel import memory
from torch_uaccel.benchmark import median_seconds

from report import ROOT, machine_name, publish
SIZES = [64, 4096, 1 << 16, 1 << 20, 16 << 20, 64 << 20]


def pair_seconds_threads(nbytes, threads, pairs=2000, repeats=5):
    """Wall time per alloc+free pair with `threads` Python threads allocating at once (median of repeats)."""
    def work():
        for _ in range(pairs):
            torch.empty(nbytes, dtype=torch.uint8)

    times = []
    for _ in range(repeats):
        workers = [threading.Thread(target=work) for _ in range(threads)]
        start = time.perf_counter()
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        times.append((time.perf_counter() - start) / (pairs * threads))
    return statistics.median(times)


def pair_rows(min_run_time):
    rows = []
    for nbytes in SIZES:
        for threads in (1, 2):
            timings = {}
            for hooked in (False, True):
                if hooked:
                    memory.install_cpu_allocator(64)
                try:
                    if threads == 1:
                        timings[hooked], _ = median_seconds(lambda: torch.empty(nbytes, dtype=torch.uint8), min_run_time=min_run_time)
                    else:
                        timings[hooked] = pair_seconds_threads(nbytes, threads)
                finally:
                    if hooked:
                        memory.uninstall_cpu_allocator()
            rows.append({"bytes": nbytes, "threads": threads, "default_us": timings[False] * 1e6,
                         "uaccel_us": timings[True] * 1e6, "speedup": timings[False] / timings[True]})
    return rows


def training_step_factory():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(256, 512), torch.nn.ELU(), torch.nn.Linear(512, 512), torch.nn.ELU(),
                                torch.nn.Linear(512, 10))
    optimizer = torch.optim.Adam(model.parameters())
    data, target = torch.randn(256, 256), torch.randint(0, 10, (256,))

    def step():
        optimizer.zero_grad(set_to_none=True)
        torch.nn.functional.cross_entropy(model(data), target).backward()
        optimizer.step()

    return step


def training_row(min_run_time):
    step = training_step_factory()
    step()
    default, _ = median_seconds(step, min_run_time=min_run_time)
    with memory.cpu_allocator(64):
        step()
        hooked, _ = median_seconds(step, min_run_time=min_run_time)
    return {"default_ms": default * 1e3, "uaccel_ms": hooked * 1e3, "speedup": default / hooked}


def markdown(rows, training, machine):
    lines = [f"Measured on {machine}. Median time of one `torch.empty(n, dtype=torch.uint8)` alloc+free pair; "
             "speedup > 1: the uaccel hook is faster than PyTorch's default CPU allocator.", "",
             "| bytes | threads | default µs | uaccel hook µs | speedup |", "|---|---|---|---|---|"]
    lines += [f"| {r['bytes']} | {r['threads']} | {r['default_us']:.2f} | {r['uaccel_us']:.2f} | {r['speedup']:.2f}x |" for r in rows]
    lines += ["", f"Training step (MLP 256-512-512-10, batch 256, Adam): default {training['default_ms']:.2f} ms, "
              f"under the hook {training['uaccel_ms']:.2f} ms ({training['speedup']:.2f}x)."]
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--min-run-time", type=float, default=0.3)
    parser.add_argument("--update-readme", action="store_true")
    args = parser.parse_args(argv)
    rows = pair_rows(args.min_run_time)
    training = training_row(args.min_run_time * 3)
    machine = machine_name("cpu")
    result = {"machine": machine, "pairs": rows, "training": training}
    publish("memory", ROOT / "benchmarks" / "results" / "memory_cpu.json", result, markdown(rows, training, machine),
            args.update_readme)


if __name__ == "__main__":
    sys.exit(main())
