"""Copy benchmark: uaccel.async_copy against Tensor.copy_ in one process (medians of
torch.utils.benchmark). CPU: large tensors, contiguous and transposed. CUDA: host<->device GB/s
with pinned and pageable memory, and zero-copy reads through a registration's device view against
copy-then-compute.

    python benchmarks/bench_copy.py [--device cuda] [--update-readme]
"""

import argparse
import sys

import numpy as np
import torch
from report import ROOT, machine_name, publish

import torch_uaccel
from torch_uaccel._testing.timing import median_seconds


def synchronized(fn):
    def run(*args):
        fn(*args)
        torch.cuda.synchronize()

    return run


def row(name, nbytes, ours, reference, min_run_time, reference_name="copy_"):
    ours_s, _ = median_seconds(ours, min_run_time=min_run_time)
    ref_s, _ = median_seconds(reference, min_run_time=min_run_time)
    return {
        "case": name,
        "bytes": nbytes,
        "uaccel_GBps": nbytes / ours_s / 1e9,
        "reference": reference_name,
        "reference_GBps": nbytes / ref_s / 1e9,
        "ratio": ref_s / ours_s,
    }


def cpu_rows(min_run_time):
    rows = []
    for log2 in (16, 20, 24, 26):
        src = torch.randn(1 << log2)
        dst = torch.empty_like(src)
        rows.append(
            row(
                f"cpu contiguous 2^{log2} fp32",
                src.nbytes,
                lambda dst=dst, src=src: torch_uaccel.async_copy(dst, src),
                lambda dst=dst, src=src: dst.copy_(src),
                min_run_time,
            )
        )
    side = 1 << 12
    src = torch.randn(side, side)
    dst = torch.empty(side, side).t()
    rows.append(
        row(
            f"cpu transposed {side}x{side} fp32",
            src.nbytes,
            lambda: torch_uaccel.async_copy(dst, src),
            lambda: dst.copy_(src),
            min_run_time,
        )
    )
    return rows


def cuda_rows(min_run_time):
    rows = []
    n = 64 << 20  # 256 MiB of fp32
    device = torch.empty(n, device="cuda")
    for pinned in (True, False):
        host = torch.randn(n, pin_memory=pinned)
        kind = "pinned" if pinned else "pageable"
        rows.append(
            row(
                f"H2D {kind} 256 MiB",
                host.nbytes,
                synchronized(lambda host=host: torch_uaccel.async_copy(device, host)),
                synchronized(lambda host=host: device.copy_(host, non_blocking=True)),
                min_run_time,
                "copy_(non_blocking=True)",
            )
        )
        rows.append(
            row(
                f"D2H {kind} 256 MiB",
                host.nbytes,
                synchronized(lambda host=host: torch_uaccel.async_copy(host, device)),
                synchronized(lambda host=host: host.copy_(device, non_blocking=True)),
                min_run_time,
                "copy_(non_blocking=True)",
            )
        )
    # Zero-copy: a kernel reads host memory through the registration's device view, against
    # copying to the device first and then reading it there.
    array = np.random.rand(n).astype(np.float32)
    with torch_uaccel.register_host(array) as reg:
        staging = torch.empty(n, device="cuda")
        rows.append(
            row(
                "zero-copy read 256 MiB (sum)",
                array.nbytes,
                synchronized(lambda: reg.device.sum()),
                synchronized(lambda: staging.copy_(reg.host, non_blocking=True).sum()),
                min_run_time,
                "copy then sum",
            )
        )
    return rows


def markdown(rows, machine):
    lines = [
        f"Measured on {machine}. Ratio > 1: uaccel faster.",
        "",
        "| case | uaccel GB/s | reference | reference GB/s | ratio |",
        "|---|---|---|---|---|",
    ]
    lines += [
        f"| {r['case']} | {r['uaccel_GBps']:.1f} | {r['reference']} | {r['reference_GBps']:.1f} | {r['ratio']:.2f}x |"
        for r in rows
    ]
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--min-run-time", type=float, default=0.3)
    parser.add_argument("--out", default=None)
    parser.add_argument("--update-readme", action="store_true")
    args = parser.parse_args(argv)
    rows = cpu_rows(args.min_run_time) if args.device == "cpu" else cuda_rows(args.min_run_time)
    machine = machine_name(args.device)
    out = args.out or ROOT / "benchmarks" / "results" / f"copy_{args.device}.json"
    publish(
        f"copy-{args.device}",
        out,
        {"machine": machine, "rows": rows},
        markdown(rows, machine),
        args.update_readme,
        args.device,
    )


if __name__ == "__main__":
    sys.exit(main())
