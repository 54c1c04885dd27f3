"""Timing helpers shared by `python -m torch_uaccel` and benchmarks/: medians of
torch.utils.benchmark's blocked_autorange, with the competitors timed in the same process."""
import torch
import torch.nn.functional as F
from torch.utils import benchmark


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


def elu_forward_row(device: str, dtype: torch.dtype, numel: int, alpha: float = 1.0, min_run_time: float = 0.2) -> dict:
    """uaccel.elu against F.elu on one tensor: medians, the ratio (>1: uaccel faster) and GB/s."""
    x = torch.randn(numel, device=device, dtype=dtype)
    ours, _ = median_seconds(torch.ops.uaccel.elu, x, alpha, min_run_time=min_run_time)
    aten, _ = median_seconds(F.elu, x, alpha, min_run_time=min_run_time)
    bytes_moved = 2 * x.numel() * x.element_size()
    return {
        "device": device,
        "dtype": str(dtype).removeprefix("torch."),
        "numel": numel,
        "uaccel_us": ours * 1e6,
        "aten_us": aten * 1e6,
        "speedup_vs_aten": aten / ours,
        "uaccel_GBps": bytes_moved / ours / 1e9,
    }
