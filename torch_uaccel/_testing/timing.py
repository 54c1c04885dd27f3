"""The timing helpers of `python -m torch_uaccel` and benchmarks/ (their one home): medians of
torch.utils.benchmark's blocked_autorange of an op-table row, with its competitors (ATen, the roof,
torch.compile) timed in the same process, their spread, and a guard that says when the machine is too
contended for the timings to mean much."""

import logging

import torch

# torch.utils.benchmark imports cpp_extension, which logs "No CUDA runtime is found, using
# CUDA_HOME=..." on every machine without a GPU: noise for a timing helper, so silenced here.
_cpp_extension_log = logging.getLogger("torch.utils.cpp_extension")
_level = _cpp_extension_log.level
_cpp_extension_log.setLevel(logging.ERROR)
from torch.utils import benchmark  # noqa: E402

_cpp_extension_log.setLevel(_level)

NOISY_SPREAD = 0.25  # interquartile range over median above which a row is flagged
SIGMAS = (0.5, 1.0, 2.0, 3.0, 5.0)  # the input spreads the sweeps time: x = sigma * N(0, 1)


def gradient_step(fn):
    """fn's training step as one callable (x, dy) -> dx: forward, then backward through autograd."""

    def run(x, dy):
        (dx,) = torch.autograd.grad(fn(x), x, dy)
        return dx

    return run


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


def best_of(fn, *args, repeat: int, min_run_time: float = 0.3) -> tuple[float, float]:
    """The best of `repeat` medians of fn(*args), in seconds, and how far the worst was above it (0.1: 10%)."""
    runs = sorted(median_seconds(fn, *args, min_run_time=min_run_time)[0] for _ in range(repeat))
    return runs[0], runs[-1] / runs[0] - 1


def spread(measurement) -> float:
    """Interquartile range over median: 0 for perfectly steady timings."""
    return measurement.iqr / measurement.median if measurement.median > 0 else 0.0


class using_threads:
    """A context in which torch runs on `count` threads (restored after)."""

    def __init__(self, count: int):
        self.count = count

    def __enter__(self):
        self.previous = torch.get_num_threads()
        torch.set_num_threads(self.count)

    def __exit__(self, *exc):
        torch.set_num_threads(self.previous)


def contention(threads: int | None = None) -> str | None:
    """None when `threads` OpenMP threads get the cores they ask for; else what was seen. When another
    process holds a core, multi-threaded timings collapse to the scheduler's quantum (several ms for
    anything), so a parallel op is no faster, often slower, than on one thread."""
    threads = threads or torch.get_num_threads()
    if threads <= 1:
        return None
    x = torch.randn(2**21)
    with using_threads(1):
        single, _ = median_seconds(torch.relu, x, min_run_time=0.05)
    with using_threads(threads):
        multi, _ = median_seconds(torch.relu, x, min_run_time=0.05)
    if multi <= 0.8 * single:
        return None
    return (
        f"relu on 2^21 floats took {multi * 1e6:.0f} µs with {threads} threads against {single * 1e6:.0f} µs "
        f"with 1: another process holds a core"
    )


def time_row(
    row,
    device: str,
    dtype: torch.dtype,
    numel: int,
    *,
    min_run_time: float = 0.2,
    compiled=None,
    label: str = "",
    sigma: float = 1.0,
) -> tuple[dict, list]:
    """One op-table row on `numel` elements of sigma * N(0, 1), in the same process and on the same
    inputs: ours, ATen's reference, its roof (the same bytes with trivial math: how fast this could be)
    and, if given, the reference under torch.compile, at torch's thread count. Medians, their worst
    spread, ratios (> 1: uaccel faster; of the roof, 1 at best), GB/s; and the Measurements for
    torch.utils.benchmark.Compare."""
    inputs = row.plain_inputs((torch.randn(numel, dtype=torch.float32) * sigma).to(device, dtype))
    competitors = {"uaccel": row.op, "aten": row.reference, "roof": row.roof, "compiled": compiled}
    result = {
        "op": row.name,
        "device": device,
        "dtype": str(dtype).removeprefix("torch."),
        "numel": numel,
        "threads": torch.get_num_threads(),
        "sigma": sigma,
    }
    measurements = []
    for name, fn in competitors.items():
        if fn is None:
            continue
        seconds, measurement = median_seconds(
            fn,
            *inputs,
            min_run_time=min_run_time,
            label=label,
            description=name,
            sub_label=f"{result['dtype']} 2^{numel.bit_length() - 1}",
        )
        result[f"{name}_us"] = seconds * 1e6
        measurements.append(measurement)
    result["spread"] = max(spread(m) for m in measurements)
    for name in ("aten", "roof", "compiled"):
        if f"{name}_us" in result:
            result[f"vs_{name}"] = result[f"{name}_us"] / result["uaccel_us"]
    for name in ("uaccel", "roof"):
        if f"{name}_us" in result:
            result[f"{name}_GBps"] = row.bytes_per_element(dtype) * numel / result[f"{name}_us"] / 1e3
    return result, measurements
