"""Allocator benchmark: alloc+free pairs through the uaccel CPU hook against PyTorch's default CPU
allocator, 64 B to 64 MiB, 1 and 2 threads; a small CPU training loop with and without the hook; and
the first touch of fresh large tensors (time, page faults, RSS) with and without huge pages.

    python benchmarks/bench_memory.py [--update-readme]
"""

import argparse
import os
import statistics
import subprocess
import sys
import threading
import time

import torch
from report import ROOT, machine_name, publish

from torch_uaccel import memory
from torch_uaccel._testing.timing import median_seconds

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
                        timings[hooked], _ = median_seconds(
                            lambda nbytes=nbytes: torch.empty(nbytes, dtype=torch.uint8), min_run_time=min_run_time
                        )
                    else:
                        timings[hooked] = pair_seconds_threads(nbytes, threads)
                finally:
                    if hooked:
                        memory.uninstall_cpu_allocator()
            rows.append(
                {
                    "bytes": nbytes,
                    "threads": threads,
                    "default_us": timings[False] * 1e6,
                    "uaccel_us": timings[True] * 1e6,
                    "speedup": timings[False] / timings[True],
                }
            )
    return rows


def training_step_factory():
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Linear(256, 512), torch.nn.ELU(), torch.nn.Linear(512, 512), torch.nn.ELU(), torch.nn.Linear(512, 10)
    )
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


# One process per regime: THP_MEM_ALLOC_ENABLE is read when torch starts, and page-fault counts must
# not mix. Each call allocates a fresh tensor and writes it once (its first touch).
_FIRST_TOUCH = """
import resource, statistics, sys, time
import torch
from torch_uaccel import memory
nbytes, regime, calls = int(sys.argv[1]), sys.argv[2], 15
torch.set_num_threads(1)
if regime.startswith("uaccel"):
    memory.install_cpu_allocator(64)
times, faults = [], []
for _ in range(calls):
    if regime == "uaccel fresh":
        memory.empty_cache()  # every block new from the system, as on a first call
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    start = time.perf_counter()
    torch.empty(nbytes, dtype=torch.uint8).fill_(1)
    times.append(time.perf_counter() - start)
    faults.append(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
print(statistics.median(times), statistics.median(faults), resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""
FIRST_TOUCH_REGIMES = {
    "torch": {},
    "torch, THP_MEM_ALLOC_ENABLE=1": {"THP_MEM_ALLOC_ENABLE": "1"},
    "uaccel fresh": {},  # a new block each call: 2 MiB aligned, huge pages advised
    "uaccel reuse": {},  # the cached block again: no faults at all
}


def first_touch_rows(sizes=(2 << 20, 16 << 20, 64 << 20)):
    """Allocate and write a fresh tensor: time, page faults per call and peak RSS, per allocator regime."""
    rows = []
    for nbytes in sizes:
        for regime, env in FIRST_TOUCH_REGIMES.items():
            out = subprocess.run(
                [sys.executable, "-c", _FIRST_TOUCH, str(nbytes), regime],
                env={**os.environ, **env, "OMP_NUM_THREADS": "1"},
                capture_output=True,
                text=True,
                check=True,
            ).stdout.split()
            seconds, faults, max_rss_kib = float(out[0]), float(out[1]), int(out[2])
            rows.append(
                {
                    "bytes": nbytes,
                    "regime": regime,
                    "us": seconds * 1e6,
                    "faults": faults,
                    "max_rss_MiB": max_rss_kib / 1024,
                }
            )
            print(f"first touch {nbytes >> 20} MiB, {regime}: {seconds * 1e6:.0f} µs, {faults:.0f} page faults")
    return rows


def markdown(rows, training, machine, first_touch=()):
    lines = [
        f"Measured on {machine}. Median time of one `torch.empty(n, dtype=torch.uint8)` alloc+free pair; "
        "speedup > 1: the uaccel hook is faster than PyTorch's default CPU allocator.",
        "",
        "| bytes | threads | default µs | uaccel hook µs | speedup |",
        "|---|---|---|---|---|",
    ]
    lines += [
        f"| {r['bytes']} | {r['threads']} | {r['default_us']:.2f} | {r['uaccel_us']:.2f} | {r['speedup']:.2f}x |"
        for r in rows
    ]
    lines += [
        "",
        f"Training step (MLP 256-512-512-10, batch 256, Adam): default {training['default_ms']:.2f} ms, "
        f"under the hook {training['uaccel_ms']:.2f} ms ({training['speedup']:.2f}x).",
    ]
    if first_touch:
        lines += [
            "",
            "First touch: allocate a tensor and write it once, 1 thread (median of 15 calls, one process per "
            "regime). uaccel backs blocks of 2 MiB and more with transparent huge pages.",
            "",
            "| bytes | regime | µs | page faults per call | peak RSS MiB |",
            "|---|---|---|---|---|",
        ]
        lines += [
            f"| {r['bytes']} | {r['regime']} | {r['us']:.0f} | {r['faults']:.0f} | {r['max_rss_MiB']:.0f} |"
            for r in first_touch
        ]
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--min-run-time", type=float, default=0.3)
    parser.add_argument("--update-readme", action="store_true")
    args = parser.parse_args(argv)
    rows = pair_rows(args.min_run_time)
    training = training_row(args.min_run_time * 3)
    first_touch = first_touch_rows()
    machine = machine_name("cpu")
    result = {"machine": machine, "pairs": rows, "training": training, "first_touch": first_touch}
    publish(
        "memory",
        ROOT / "benchmarks" / "results" / "memory_cpu.json",
        result,
        markdown(rows, training, machine, first_touch),
        args.update_readme,
    )


if __name__ == "__main__":
    sys.exit(main())
