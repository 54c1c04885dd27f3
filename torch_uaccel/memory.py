"""Aligned allocation, PyTorch allocator hooks, statistics and leak tracking.

    with torch_uaccel.memory.cpu_allocator(alignment=4096):
        x = torch.empty(1000)                 # from the uaccel allocator, 4 KiB aligned
    torch_uaccel.memory.stats()               # {'allocated_bytes': ..., 'peak_bytes': ..., ...}

    with torch_uaccel.memory.cpu_allocator(), torch_uaccel.memory.track() as t:
        step()
    for leak in t.leaks: print(leak)          # Leak(size=..., device='cpu', where='train.py:12 in step <- ...')

The C++ side (csrc/memory, uaccel/memory.h) is registered in TORCH_LIBRARY(uaccel), so LibTorch
programs reach the same allocator. These helpers are eager-only.
"""
import contextlib
import ctypes
import inspect
from dataclasses import dataclass

import torch

from . import _C
from ._fake import check_alignment

__all__ = [
    "Leak", "MemoryLeakError", "aligned_empty", "cpu_allocator", "cuda_pool", "empty_cache", "install",
    "reset_peak_stats", "set_cache_limit", "stats", "track", "uninstall",
]

_STAT_NAMES = ("allocated_bytes", "peak_bytes", "allocations", "frees", "cached_bytes", "alignment")


def aligned_empty(size, *, alignment: int = 64, dtype=None, device=None) -> torch.Tensor:
    """An uninitialised contiguous tensor whose ``data_ptr()`` is a multiple of ``alignment``
    (a power of two, 1 B to 1 GiB). Its storage cannot be resized (that would drop the alignment)."""
    if isinstance(size, int):
        size = (size,)
    return torch.ops.uaccel.aligned_empty(list(size), alignment=alignment, dtype=dtype, device=device)


def install(alignment: int = 64) -> None:
    """Make the uaccel allocator PyTorch's CPU allocator (``c10::SetCPUAllocator``). Nestable:
    each ``uninstall()`` restores exactly what the matching ``install`` replaced."""
    torch.ops.uaccel.cpu_allocator_install(alignment)


def uninstall() -> None:
    torch.ops.uaccel.cpu_allocator_uninstall()


@contextlib.contextmanager
def cpu_allocator(alignment: int = 64):
    """Every CPU tensor allocated inside comes from the uaccel allocator: aligned, counted and
    cached. Tensors made inside stay valid after the block and free through the uaccel allocator."""
    install(alignment)
    try:
        yield
    finally:
        uninstall()


def _device(device) -> torch.device:
    device = torch.device(device)
    if device.type == "cuda" and device.index is None:
        device = torch.device("cuda", torch.cuda.current_device() if torch.cuda.is_available() else 0)
    return device


def stats(device="cpu") -> dict:
    """allocated_bytes (live), peak_bytes, allocations, frees, cached_bytes, alignment."""
    return dict(zip(_STAT_NAMES, torch.ops.uaccel.memory_stats(_device(device))))


def reset_peak_stats(device="cpu") -> None:
    torch.ops.uaccel.memory_reset_peak_stats(_device(device))


def empty_cache(device="cpu") -> None:
    """Give every cached free block back to the system."""
    torch.ops.uaccel.memory_empty_cache(_device(device))


def set_cache_limit(nbytes: int) -> None:
    """Most bytes of freed CPU blocks kept for reuse (default 256 MiB); 0 disables the cache."""
    torch.ops.uaccel.cpu_allocator_set_cache_limit(nbytes)


@dataclass(frozen=True)
class Leak:
    size: int
    device: str
    where: str


class MemoryLeakError(RuntimeError):
    pass


class track:
    """Records what the uaccel allocators hand out inside the block and is not freed by its end:
    ``t.leaks`` lists size, device and the allocating Python frames. ``raise_on_leak=True`` raises
    MemoryLeakError on exit instead. Nestable; sees only allocations made through the uaccel
    allocators (inside ``cpu_allocator()``, ``cuda_pool()`` or ``aligned_empty``)."""

    def __init__(self, raise_on_leak: bool = False):
        self.raise_on_leak = raise_on_leak
        self.leaks: list[Leak] = []
        self._token = None

    def __enter__(self):
        self._token = torch.ops.uaccel.memory_track_begin()
        return self

    def __exit__(self, exc_type, exc, tb):
        sizes, devices, where = torch.ops.uaccel.memory_track_end(self._token)
        self.leaks = [Leak(s, d, w) for s, d, w in zip(sizes, devices, where)]
        if self.raise_on_leak and self.leaks and exc_type is None:
            total = sum(leak.size for leak in self.leaks)
            details = "\n".join(f"  {leak.size} B on {leak.device} at {leak.where}" for leak in self.leaks[:10])
            raise MemoryLeakError(f"uaccel.memory.track: {len(self.leaks)} allocation(s), {total} bytes, "
                                  f"still alive at the end of the block:\n{details}")
        return False


def cuda_pool(alignment: int = 256) -> "torch.cuda.MemPool":
    """A ``torch.cuda.MemPool`` whose segments come from the uaccel CUDA allocator
    (``uaccel_cuda_alloc``/``uaccel_cuda_free`` in the extension, through
    ``torch.cuda.memory.CUDAPluggableAllocator``). Use with ``torch.cuda.use_mem_pool(pool)``;
    PyTorch's caching, stream-ordered reuse and ``torch.cuda.memory_stats`` keep working, and the
    segments show in ``stats("cuda")``. The alignment is shared by all uaccel pools and only grows."""
    check_alignment("uaccel.cuda_pool", alignment)
    library = ctypes.CDLL(_C.__file__)
    if not hasattr(library, "uaccel_cuda_alloc"):
        raise RuntimeError("uaccel.cuda_pool: expected a CUDA build of torch_uaccel, but this one is CPU-only")
    if not torch.cuda.is_available():
        raise RuntimeError("uaccel.cuda_pool: expected a CUDA device, but torch.cuda.is_available() is False")
    library.uaccel_cuda_set_alignment(ctypes.c_size_t(alignment))
    allocator = torch.cuda.memory.CUDAPluggableAllocator(_C.__file__, "uaccel_cuda_alloc", "uaccel_cuda_free")
    # MemPool's keyword arguments differ across torch 2.11-2.14; pass only those this one has.
    options = {"use_on_oom": False} if "use_on_oom" in inspect.signature(torch.cuda.MemPool).parameters else {}
    return torch.cuda.MemPool(allocator.allocator(), **options)
