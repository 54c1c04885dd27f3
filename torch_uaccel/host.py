"""Pinned zero-copy host registration.

    reg = torch_uaccel.register_host(numpy_array)    # no copy; pages locked
    reg.host      # CPU tensor over the same bytes
    reg.device    # CUDA tensor over the same bytes (None without CUDA)
    reg.close()   # or `with torch_uaccel.register_host(buf) as reg:`

Eager-only (the wrapper is torch.compiler.disable'd); the C++ entry points are
torch.ops.uaccel.host_register / host_unregister.
"""
import numpy as np
import torch

__all__ = ["HostRegistration", "register_host"]


def _host_tensor(obj) -> torch.Tensor:
    """A CPU tensor over obj's own bytes (no copy), after checking that it may be registered."""
    op = "uaccel.register_host"
    if isinstance(obj, torch.Tensor):
        if obj.device.type != "cpu":
            raise RuntimeError(f"{op}: expected a CPU tensor, but got one on {obj.device}")
        if not obj.is_contiguous():
            raise RuntimeError(f"{op}: expected a contiguous tensor, but got strides {obj.stride()} for shape {tuple(obj.shape)}")
        return obj.detach()
    if isinstance(obj, np.ndarray):
        if not obj.flags.writeable:
            raise RuntimeError(f"{op}: expected a writable array, but this NumPy array is read-only")
        if not obj.flags.c_contiguous:
            raise RuntimeError(f"{op}: expected a C-contiguous array, but got strides {obj.strides} for shape {obj.shape}")
        return torch.from_numpy(obj)
    try:
        view = memoryview(obj)
    except TypeError:
        raise TypeError(f"{op}: expected a CPU tensor, a NumPy array or a writable buffer (bytearray, memoryview, "
                        f"mmap), but got {type(obj).__name__}") from None
    with view:
        if view.readonly:
            raise RuntimeError(f"{op}: expected a writable buffer, but this {type(obj).__name__} is read-only")
        if not view.c_contiguous:
            raise RuntimeError(f"{op}: expected a C-contiguous buffer, but this {type(obj).__name__} is not")
        nbytes = view.nbytes
    if nbytes == 0:
        return torch.empty(0, dtype=torch.uint8)
    return torch.frombuffer(obj if not isinstance(obj, memoryview) else obj.cast("B"), dtype=torch.uint8)


class HostRegistration:
    """Pages of a host buffer, locked for the device, with views over the same bytes.

    ``host``: CPU tensor over the bytes (obj's dtype and shape; uint8 for raw buffers).
    ``device``: CUDA tensor over the same bytes (``cudaHostRegister`` mapped +
    ``cudaHostGetDevicePointer``) when CUDA is available, else None.
    ``close()`` (idempotent, also on context exit or garbage collection) ends the registration;
    pages shared with other registrations, or under a still-alive ``device`` view, stay locked
    until those end too. obj stays alive while any view is alive.
    """

    def __init__(self, obj):
        self.host = _host_tensor(obj)
        self._id, self.device = torch.ops.uaccel.host_register(self.host)

    @property
    def closed(self) -> bool:
        return self._id is None

    def close(self) -> None:
        if self._id is not None:
            registration_id, self._id = self._id, None
            torch.ops.uaccel.host_unregister(registration_id)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __del__(self):
        if getattr(self, "_id", None) is not None:
            self.close()

    def __repr__(self) -> str:
        state = "closed" if self.closed else "open"
        return f"HostRegistration({state}, {self.host.nbytes} bytes at {self.host.data_ptr():#x}, device={self.device is not None})"


@torch.compiler.disable
def register_host(obj) -> HostRegistration:
    """Register obj's memory (CPU tensor, NumPy array, bytearray, memoryview, mmap) with no copy."""
    return HostRegistration(obj)
