"""`python -m torch_uaccel`: what was built, whether every op matches its reference on every
available device, and how fast ELU is against ATen here."""
import argparse
import platform
import sys

import torch
import torch.nn.functional as F

import torch_uaccel
from torch_uaccel import memory
from torch_uaccel.benchmark import NOISY_SPREAD, contention, elu_forward_row

DTYPES = (torch.float16, torch.bfloat16, torch.float32, torch.float64)


def devices() -> list[str]:
    return ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])


def print_build() -> None:
    info = torch_uaccel.build_info()
    print(f"torch_uaccel {torch_uaccel.__version__} on Python {platform.python_version()}, {platform.machine()}")
    print(f"  torch {torch.__version__} (extension built against {info['torch_build']}), CUDA runtime {torch.version.cuda}")
    print(f"  CUDA kernels: {'yes, archs ' + info['cuda_archs'] if info['cuda'] else 'no (CPU-only build)'}")
    print(f"  CPU: ATen dispatches {torch.backends.cpu.get_cpu_capability()}; uaccel CPU kernels: {info['cpu_kernels']} "
          f"({info['cpu_kernels_reason']}); this CPU runs {', '.join(info['cpu_runnable'])}")
    for index in range(torch.cuda.device_count()):
        print(f"  cuda:{index}: {torch.cuda.get_device_name(index)}")
    if info["cuda"] and not torch.cuda.is_available():
        print("  CUDA checks and benchmarks: skipped, no CUDA device here (torch.cuda.is_available() is False)")


def check_ops() -> bool:
    """ELU forward and backward against F.elu evaluated in float64, on every device and dtype."""
    print("\nChecks against references (F.elu in float64, Tensor.copy_):")
    all_ok = True
    for device in devices():
        for dtype in DTYPES:
            x = (torch.randn(4099, dtype=torch.float64, device=device) * 3).to(dtype).requires_grad_()
            grad = torch.randn_like(x)
            results = []
            for alpha in (1.0, 0.1, -0.5):
                y = torch_uaccel.elu(x, alpha)
                (dx,) = torch.autograd.grad(y, x, grad)
                x64 = x.detach().double().requires_grad_()
                y64 = F.elu(x64, alpha)
                (dx64,) = torch.autograd.grad(y64, x64, grad.double())
                tolerance = 4 * torch.finfo(dtype).eps
                results.append(
                    torch.allclose(y.double(), y64, rtol=tolerance, atol=tolerance)
                    and torch.allclose(dx.double(), dx64, rtol=tolerance, atol=tolerance * 10)
                )
            ok = all(results)
            all_ok &= ok
            print(f"  {device:5s} {str(dtype).removeprefix('torch.'):9s} elu + elu_backward, alpha in (1, 0.1, -0.5): {'ok' if ok else 'MISMATCH'}")
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
            yield f"{device:5s} async_copy to cpu {'contiguous' if dst.is_contiguous() else 'transposed'} vs copy_", torch.equal(dst, src.cpu())
        aligned = all(memory.aligned_empty(1000, alignment=1 << k, device=device).data_ptr() % (1 << k) == 0 for k in range(22))
        yield f"{device:5s} aligned_empty, alignments 1 B .. 2 MiB", aligned
    before = memory.stats()["allocations"]
    with memory.cpu_allocator(alignment=4096):
        x = torch.randn(1000, 100) @ torch.randn(100, 10)
    yield "cpu   allocator hook: 4 KiB aligned and counted", x.data_ptr() % 4096 == 0 and memory.stats()["allocations"] > before
    buffer = bytearray(10_000)
    with torch_uaccel.register_host(buffer) as reg:
        reg.host[7] = 9
        same = buffer[7] == 9 and (reg.device is None) == (not torch.cuda.is_available())
    yield "cpu   register_host: zero-copy views", same


def print_benchmark(quick: bool) -> None:
    seen = contention()
    if seen:
        torch.set_num_threads(1)
        print(f"\nThe machine is contended ({seen}); timing with 1 thread instead.")
    print(f"\nELU forward, median of torch.utils.benchmark, {torch.get_num_threads()} CPU thread(s) "
          "(ratio > 1: uaccel faster than F.elu; '~' marks a spread over "
          f"{NOISY_SPREAD:.0%} of the median, not to be trusted):")
    print(f"  {'device':6s} {'dtype':9s} {'elements':>10s} {'uaccel µs':>11s} {'F.elu µs':>10s} {'ratio':>7s} {'GB/s':>8s}")
    sizes = (2**16, 2**20) if quick else (2**16, 2**20, 2**24)
    for device in devices():
        for dtype in (torch.float32, torch.bfloat16):
            for numel in sizes:
                row = elu_forward_row(device, dtype, numel, min_run_time=0.05 if quick else 0.2)
                noisy = " ~" if row["spread"] > NOISY_SPREAD else ""
                print(f"  {row['device']:6s} {row['dtype']:9s} {numel:>10d} {row['uaccel_us']:>11.1f} "
                      f"{row['aten_us']:>10.1f} {row['speedup_vs_aten']:>7.2f} {row['uaccel_GBps']:>8.1f}{noisy}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m torch_uaccel", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="smaller, shorter benchmark")
    args = parser.parse_args(argv)
    print_build()
    ok = check_ops()
    print_benchmark(args.quick)
    print("\nall checks passed" if ok else "\nSOME CHECKS FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
