"""`python -m torch_uaccel`: what was built, whether every op of the op table (torch_uaccel._testing.op_table)
matches its reference on every available device and dtype, and how fast the benchmarked ones are
here against ATen and against the roof (an op moving the same bytes with trivial math)."""

import argparse
import platform
import sys

import torch

import torch_uaccel
from torch_uaccel import memory
from torch_uaccel._testing.op_table import FLOATING_DTYPES, OPS
from torch_uaccel._testing.timing import NOISY_SPREAD, SIGMAS, contention, time_row, using_threads


def devices() -> list[str]:
    return ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])


def print_build() -> None:
    info = torch_uaccel.build_info()
    print(f"torch_uaccel {torch_uaccel.__version__} on Python {platform.python_version()}, {platform.machine()}")
    print(
        f"  torch {torch.__version__} (extension built against {info['torch_build']}), "
        f"CUDA runtime {torch.version.cuda}"
    )
    print(f"  CUDA kernels: {'yes, archs ' + ' '.join(info['cuda_archs']) if info['cuda'] else 'no (CPU-only build)'}")
    print(
        f"  CPU: ATen dispatches {torch.backends.cpu.get_cpu_capability()}; "
        f"uaccel CPU kernels: {info['cpu_kernels']} ({info['cpu_kernels_reason']}); "
        f"this CPU runs {', '.join(info['cpu_runnable'])}"
    )
    for index in range(torch.cuda.device_count()):
        print(f"  cuda:{index}: {torch.cuda.get_device_name(index)}")
    if info["cuda"] and not torch.cuda.is_available():
        print("  CUDA checks and benchmarks: skipped, no CUDA device here (torch.cuda.is_available() is False)")


def mismatches(device: str, dtype: torch.dtype) -> dict[str, str]:
    """Each row of the op table against its reference in float64 (and its gradient, where it has one)
    on 4099 values of both signs: row name -> the first line of what went wrong."""
    x = (torch.randn(4099, dtype=torch.float64, generator=torch.Generator().manual_seed(0)) * 3).to(device, dtype)
    failed = {}
    for row in OPS:
        if dtype not in row.dtypes:
            continue
        for variant, made in row.inputs_from(x).items():
            inputs = tuple(t.detach().clone().requires_grad_(row.supports_grad) for t in made)
            try:
                row.assert_matches_reference(inputs, msg=variant or "plain")
            except AssertionError as error:
                failed.setdefault(row.name, str(error).splitlines()[0])
    return failed


def check_ops() -> bool:
    """Every op of the table, with its gradient, on every device and dtype; then the plumbing."""
    print(f"\nChecks against references ({len(OPS)} ops and their gradients against ATen in float64; Tensor.copy_):")
    all_ok = True
    for device in devices():
        for dtype in FLOATING_DTYPES:
            failed = mismatches(device, dtype)
            all_ok &= not failed
            print(f"  {device:5s} {str(dtype).removeprefix('torch.'):9s} ", end="")
            print("ok" if not failed else "MISMATCH: " + "; ".join(f"{name}: {why}" for name, why in failed.items()))
    for name, ok in check_plumbing():
        all_ok &= ok
        print(f"  {name}: {'ok' if ok else 'MISMATCH'}")
    return all_ok


def check_plumbing():
    """async_copy against copy_, aligned allocation, the allocator hook, host registration."""
    for device in devices():
        src = torch.randn(513, 257, device=device)
        for dst in (torch.empty(513, 257), torch.empty(257, 513).t()):
            torch_uaccel.async_copy(dst, src)
            if device == "cuda":
                torch.cuda.synchronize()
            layout = "contiguous" if dst.is_contiguous() else "transposed"
            yield f"{device:5s} async_copy to cpu {layout} vs copy_", torch.equal(dst, src.cpu())
        aligned = all(
            memory.aligned_empty(1000, alignment=1 << k, device=device).data_ptr() % (1 << k) == 0 for k in range(22)
        )
        yield f"{device:5s} aligned_empty, alignments 1 B .. 2 MiB", aligned
    before = memory.stats()["allocations"]
    with memory.cpu_allocator(alignment=4096):
        x = torch.randn(1000, 100) @ torch.randn(100, 10)
    counted = memory.stats()["allocations"] > before
    yield "cpu   allocator hook: 4 KiB aligned and counted", x.data_ptr() % 4096 == 0 and counted
    buffer = bytearray(10_000)
    with torch_uaccel.register_host(buffer) as reg:
        reg.host[7] = 9
        same = buffer[7] == 9 and (reg.device is None) == (not torch.cuda.is_available())
    yield "cpu   register_host: zero-copy views", same


def print_benchmark(quick: bool) -> None:
    """Each benchmarked row at 1 thread and at torch's thread count (the machine's, unless told), the
    scaling from one to the other of ours and of ATen's, then the speed-up against ATen over input spreads."""
    machine_threads = torch.get_num_threads()
    counts = sorted({1, machine_threads})
    seen = contention(machine_threads)
    if seen:
        counts = [1]
        print(f"\nThe machine is contended ({seen}); timing with 1 thread only.")
    print(
        f"\nAgainst ATen and the roof, medians of torch.utils.benchmark at {' and '.join(map(str, counts))} CPU "
        "thread(s), inputs N(0, 1) (vs ATen > 1: uaccel faster; of roof: the roof op's time over ours, 1 at best; "
        "scaling: time at 1 thread over time at this count, ours / ATen's; '~' marks a spread over "
        f"{NOISY_SPREAD:.0%} of the median, not to be trusted):"
    )
    print(
        f"  {'op':26s} {'device':6s} {'dtype':9s} {'elements':>10s} {'threads':>7s} {'uaccel µs':>11s} "
        f"{'ATen µs':>10s} {'vs ATen':>8s} {'of roof':>8s} {'GB/s':>8s} {'scaling':>13s}"
    )
    sizes = (2**16, 2**20) if quick else (2**16, 2**20, 2**22)
    min_run_time = 0.05 if quick else 0.2
    rows = [row for row in OPS if row.benchmark]
    for row in rows:
        for device in devices():
            for dtype in (torch.float32, torch.bfloat16):
                for numel in sizes:
                    single = None
                    for count in counts if device == "cpu" else [machine_threads]:
                        with using_threads(count):
                            r, _ = time_row(row, device, dtype, numel, min_run_time=min_run_time)
                        single = single or r
                        scaling = (
                            f"{single['uaccel_us'] / r['uaccel_us']:.2f} / {single['aten_us'] / r['aten_us']:.2f}"
                            if count > 1
                            else ""
                        )
                        noisy = " ~" if r["spread"] > NOISY_SPREAD else ""
                        print(
                            f"  {row.name:26s} {device:6s} {r['dtype']:9s} {numel:>10d} {count:>7d} "
                            f"{r['uaccel_us']:>11.1f} {r['aten_us']:>10.1f} {r['vs_aten']:>8.2f} {r['vs_roof']:>8.2f} "
                            f"{r['uaccel_GBps']:>8.1f} {scaling:>13s}{noisy}"
                        )
    print(
        "\nInput spread, 1 thread, float32, 2^16 elements: uaccel's speed-up against ATen for x = sigma * N(0, 1) "
        "(a row's vector with lanes past a fast path's reach takes a slower one):"
    )
    print(f"  {'op':26s} " + " ".join(f"{'sigma ' + str(sigma):>10s}" for sigma in SIGMAS))
    with using_threads(1):
        for row in rows:
            ratios = [
                time_row(row, "cpu", torch.float32, 2**16, min_run_time=min_run_time, sigma=sigma)[0]["vs_aten"]
                for sigma in SIGMAS
            ]
            print(f"  {row.name:26s} " + " ".join(f"{ratio:>10.2f}" for ratio in ratios))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m torch_uaccel", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="smaller, shorter benchmark")
    parser.add_argument("--no-benchmark", action="store_true", help="build info and checks only")
    args = parser.parse_args(argv)
    print_build()
    ok = check_ops()
    if not args.no_benchmark:
        print_benchmark(args.quick)
    print("\nall checks passed" if ok else "\nSOME CHECKS FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
