"""Timing helpers shared by `python -m torch_uaccel` and benchmarks/: medians of
torch.utils.benchmark's blocked_autorange, with the competitors timed in the same process, their
spread, and a guard that says when the machine is too contended for the timings to mean much."""
import logging

import torch
import torch.nn.functional as F

# torch.utils.benchmark imports cpp_extension, which logs "No CUDA runtime is found, using
# CUDA_HOME=..." on every machine without a GPU: noise for a timing helper, so silenced here.
_cpp_extension_log = logging.getLogger("torch.utils.cpp_extension")
_level = _cpp_extension_log.level
_cpp_extension_log.setLevel(logging.ERROR)
from torch.utils import benchmark  # noqa: E402

_cpp_extension_log.setLevel(_level)

NOISY_SPREAD = 0.25  # interquartile range over median above which a row is flagged


def median_seconds(fn, *args, min_run_time: float = 0.2, label: str = "", sub_label: str = "", description: str = ""):
    """Median time of fn(*args) and the Measurement (for torch.utils.benchmark.Compare)."""
    timer = benchmark.Timer(
        stmt="fn(*args)",
        globals={"fn": fn, "args": args},
        label=label,
        sub_label=sub_label,
        description=description,
        num_threads=torch.get_num_threads(),
    )
    measurement = timer.blocked_autorange(min_run_time=min_run_time)
    return measurement.median, measurement


def spread(measurement) -> float:
    """Interquartile range over median: 0 for perfectly steady timings."""
    return measurement.iqr / measurement.median if measurement.median > 0 else 0.0


def contention(threads: int | None = None) -> str | None:
    """None when `threads` OpenMP threads get the cores they ask for; else what was seen. When another
    process holds a core, multi-threaded timings collapse to the scheduler's quantum (several ms for
    anything), so a parallel op is no faster, often slower, than on one thread."""
    threads = threads or torch.get_num_threads()
    if threads <= 1:
        return None
    x = torch.randn(2**21)
    previous = torch.get_num_threads()
    try:
        torch.set_num_threads(1)
        single, _ = median_seconds(torch.relu, x, min_run_time=0.05)
        torch.set_num_threads(threads)
        multi, _ = median_seconds(torch.relu, x, min_run_time=0.05)
    finally:
        torch.set_num_threads(previous)
    if multi <= 0.8 * single:
        return None
    return (f"relu on 2^21 floats took {multi * 1e6:.0f} µs with {threads} threads against {single * 1e6:.0f} µs "
            f"with 1: another process holds a core")


def elu_forward_row(device: str, dtype: torch.dtype, numel: int, alpha: float = 1.0, min_run_time: float = 0.2) -> dict:
    """uaccel.elu against F.elu on one tensor: medians, their spread, the ratio (>1: uaccel faster), GB/s."""
    x = torch.randn(numel, device=device, dtype=dtype)
    ours, ours_m = median_seconds(torch.ops.uaccel.elu, x, alpha, min_run_time=min_run_time)
    aten, aten_m = median_seconds(F.elu, x, alpha, min_run_time=min_run_time)
    bytes_moved = 2 * x.numel() * x.element_size()
    return {
        "device": device,
        "dtype": str(dtype).removeprefix("torch."),
        "numel": numel,
        "uaccel_us": ours * 1e6,
        "aten_us": aten * 1e6,
        "spread": max(spread(ours_m), spread(aten_m)),
        "speedup_vs_aten": aten / ours,
        "uaccel_GBps": bytes_moved / ours / 1e9,
    }
