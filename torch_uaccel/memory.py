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
import math
from dataclasses import dataclass

import torch

from . import _checks, _native

__all__ = [
    "Leak",
    "MemoryLeakError",
    "aligned_empty",
    "cpu_allocator",
    "cuda_pool",
    "empty_cache",
    "install_cpu_allocator",
    "reset_peak_stats",
    "set_cache_limit",
    "stats",
    "track",
    "uninstall_cpu_allocator",
]

_INT64_MAX = 2**63 - 1


def _int64(fn: str, name: str, value) -> int:
    """An int that fits the ops' 64-bit argument (the range itself is checked by the op)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{fn}: expected {name} to be an int, but got {type(value).__name__} ({value!r})")
    if not -_INT64_MAX - 1 <= value <= _INT64_MAX:
        raise ValueError(f"{fn}: expected {name} to fit in 64 bits, but got {value}")
    return value


def _sizes(fn: str, size: tuple) -> list:
    """torch.empty's forms: aligned_empty(2, 3) or aligned_empty((2, 3)) / ([2, 3]) / (torch.Size)."""
    if len(size) == 1 and isinstance(size[0], (tuple, list, torch.Size)):
        size = tuple(size[0])
    for dim in size:
        if isinstance(dim, bool) or not isinstance(dim, (int, torch.SymInt)):
            raise TypeError(f"{fn}: expected sizes to be ints, but got {type(dim).__name__} ({dim!r}) in {size!r}")
        if isinstance(dim, int):
            _int64(fn, "sizes", dim)
    return list(size)


def _available_device(fn: str, device) -> torch.device:
    """A device this process has, with the CUDA index filled in; an absent one is an error naming it.
    A bare int is a CUDA index, as torch.cuda's functions take it."""
    if isinstance(device, int) and not isinstance(device, bool):
        device = f"cuda:{device}"
    try:
        device = torch.device(device)
    except (RuntimeError, TypeError, ValueError) as error:
        raise ValueError(f"{fn}: expected a device such as 'cpu' or 'cuda:0', but got {device!r} ({error})") from None
    if device.type == "cuda":
        count = torch.cuda.device_count()
        index = device.index if device.index is not None else (torch.cuda.current_device() if count else 0)
        if not 0 <= index < count:
            raise RuntimeError(
                f"{fn}: expected an available device, but got {device} "
                f"({count} CUDA device(s) here{'' if count else ': torch.cuda.is_available() is False'})"
            )
        return torch.device("cuda", index)
    if device.type != "cpu":
        raise RuntimeError(f"{fn}: expected a cpu or cuda device, but got {device}")
    return device


def aligned_empty(*size, alignment: int = 64, dtype=None, device=None, requires_grad: bool = False) -> torch.Tensor:
    """An uninitialised contiguous tensor whose ``data_ptr()`` is a multiple of ``alignment``
    (a power of two, 1 B to 1 GiB). Sizes as for ``torch.empty``: ``aligned_empty(2, 3)`` or
    ``aligned_empty((2, 3))``. Its storage cannot be resized (that would drop the alignment).

    Eager-only: a compiled graph allocates its own buffers, which would not keep the alignment, so
    tracing it (torch.compile, torch.export) is refused with an error rather than silently unaligned.
    """
    fn = "uaccel.aligned_empty"
    if torch.compiler.is_compiling():
        raise RuntimeError(
            f"{fn}: eager-only (a compiled graph allocates its own, unaligned buffers); "
            "allocate outside the compiled function and pass the tensor in"
        )
    sizes = _sizes(fn, size)
    _int64(fn, "alignment", alignment)
    if dtype is not None and not isinstance(dtype, torch.dtype):
        raise TypeError(f"{fn}: expected dtype to be a torch.dtype, but got {type(dtype).__name__} ({dtype!r})")
    if dtype is not None and str(dtype).removeprefix("torch.").startswith(("qint", "quint", "bits")):
        raise TypeError(f"{fn}: expected a numeric dtype, but got {dtype}")
    if all(isinstance(dim, int) for dim in sizes):
        nbytes = math.prod(sizes) * (dtype or torch.get_default_dtype()).itemsize
        if nbytes > _INT64_MAX:
            raise ValueError(f"{fn}: expected at most {_INT64_MAX} bytes, but sizes {sizes} need {nbytes}")
    if device is not None:
        device = _available_device(fn, device)
    out = torch.ops.uaccel.aligned_empty(sizes, alignment=alignment, dtype=dtype, device=device)
    return out.requires_grad_(requires_grad) if requires_grad else out


def install_cpu_allocator(alignment: int = 64) -> None:
    """Make the uaccel allocator PyTorch's CPU allocator (``c10::SetCPUAllocator``). Nestable:
    each ``uninstall_cpu_allocator()`` restores exactly what the matching install replaced."""
    torch.ops.uaccel.install_cpu_allocator(_int64("uaccel.install_cpu_allocator", "alignment", alignment))


def uninstall_cpu_allocator() -> None:
    torch.ops.uaccel.uninstall_cpu_allocator()


@contextlib.contextmanager
def cpu_allocator(alignment: int = 64):
    """Every CPU tensor allocated inside comes from the uaccel allocator: aligned, counted and
    cached. Tensors made inside stay valid after the block and free through the uaccel allocator."""
    install_cpu_allocator(alignment)
    try:
        yield
    finally:
        uninstall_cpu_allocator()


def stats(device="cpu") -> dict:
    """allocated_bytes (live), peak_bytes, allocations, frees, cached_bytes, alignment."""
    device = _available_device("uaccel.memory.stats", device)
    return dict(zip(_checks.MEMORY_STATS_FIELDS, torch.ops.uaccel.memory_stats(device), strict=True))


def reset_peak_stats(device="cpu") -> None:
    torch.ops.uaccel.memory_reset_peak_stats(_available_device("uaccel.memory.reset_peak_stats", device))


def empty_cache(device="cpu") -> None:
    """Give every cached free block back to the system."""
    torch.ops.uaccel.memory_empty_cache(_available_device("uaccel.memory.empty_cache", device))


def set_cache_limit(nbytes: int) -> None:
    """Most bytes of freed CPU blocks kept for reuse (default 256 MiB); 0 disables the cache."""
    torch.ops.uaccel.memory_set_cache_limit(_int64("uaccel.memory.set_cache_limit", "nbytes", nbytes))


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
        if self._token is None:
            raise RuntimeError("uaccel.memory.track: __exit__ without __enter__; use it as `with track() as t:`")
        token, self._token = self._token, None
        sizes, devices, where = torch.ops.uaccel.memory_track_end(token)
        self.leaks = [Leak(s, d, w) for s, d, w in zip(sizes, devices, where, strict=True)]
        if self.raise_on_leak and self.leaks and exc_type is None:
            total = sum(leak.size for leak in self.leaks)
            details = "\n".join(f"  {leak.size} B on {leak.device} at {leak.where}" for leak in self.leaks[:10])
            raise MemoryLeakError(
                f"uaccel.memory.track: {len(self.leaks)} allocation(s), {total} bytes, "
                f"still alive at the end of the block:\n{details}"
            )
        return False


def cuda_pool(alignment: int = 256) -> "torch.cuda.MemPool":
    """A ``torch.cuda.MemPool`` whose segments come from the uaccel CUDA allocator
    (``uaccel_cuda_alloc``/``uaccel_cuda_free`` in the extension, through
    ``torch.cuda.memory.CUDAPluggableAllocator``). Use with ``torch.cuda.use_mem_pool(pool)``;
    PyTorch's caching, stream-ordered reuse and ``torch.cuda.memory_stats`` keep working, and the
    segments show in ``stats("cuda")``. The alignment is shared by all uaccel pools and only grows."""
    _checks.alignment("uaccel.cuda_pool", alignment)
    library = ctypes.CDLL(str(_native.path))
    if not hasattr(library, "uaccel_cuda_alloc"):
        raise RuntimeError("uaccel.cuda_pool: expected a CUDA build of torch_uaccel, but this one is CPU-only")
    if not torch.cuda.is_available():
        raise RuntimeError("uaccel.cuda_pool: expected a CUDA device, but torch.cuda.is_available() is False")
    library.uaccel_cuda_set_alignment(ctypes.c_size_t(alignment))
    allocator = torch.cuda.memory.CUDAPluggableAllocator(str(_native.path), "uaccel_cuda_alloc", "uaccel_cuda_free")
    # MemPool's keyword arguments differ across torch 2.11-2.14; pass only those this one has.
    options = {"use_on_oom": False} if "use_on_oom" in inspect.signature(torch.cuda.MemPool).parameters else {}
    return torch.cuda.MemPool(allocator.allocator(), **options)
