"""Pinned zero-copy host registration.

    reg = torch_uaccel.register_host(numpy_array)    # no copy; pages locked
    reg.host      # CPU tensor over the same bytes
    reg.device    # CUDA tensor over the same bytes (None without CUDA)
    reg.close()   # or `with torch_uaccel.register_host(buf) as reg:`

Eager-only (refused under torch.compile/export); the C++ entry points are
torch.ops.uaccel.register_host / unregister_host.
"""

import numpy as np
import torch

__all__ = ["HostRegistration", "register_host"]


def _host_tensor(obj) -> torch.Tensor:
    """A CPU tensor over obj's own bytes (no copy), after checking that it may be registered.

    For raw buffers the tensor holds a buffer export (PEP 3118) of obj for as long as it, or any
    tensor sharing its storage (the device view included), lives: while it does, the owner cannot
    free, close or resize the memory (``mmap.close()``, ``bytearray.extend`` raise ``BufferError``),
    as with NumPy views. NumPy arrays and tensors are held by reference, which does the same."""
    op = "uaccel.register_host"
    if isinstance(obj, torch.Tensor):
        if obj.layout != torch.strided or obj.is_nested or obj.is_quantized:
            kind = (
                "nested"
                if obj.is_nested
                else "quantized"
                if obj.is_quantized
                else str(obj.layout).removeprefix("torch.")
            )
            raise TypeError(f"{op}: expected a dense (strided) CPU tensor, but got a {kind} tensor")
        if obj.device.type != "cpu":
            raise RuntimeError(f"{op}: expected a CPU tensor, but got one on {obj.device}")
        if not obj.is_contiguous():
            raise RuntimeError(
                f"{op}: expected a contiguous tensor, but got strides {obj.stride()} for shape {tuple(obj.shape)}"
            )
        return obj.detach()
    if isinstance(obj, np.ndarray):
        if not obj.flags.writeable:
            raise RuntimeError(f"{op}: expected a writable array, but this NumPy array is read-only")
        if not obj.flags.c_contiguous:
            raise RuntimeError(
                f"{op}: expected a C-contiguous array, but got strides {obj.strides} for shape {obj.shape}"
            )
        return torch.from_numpy(obj)
    try:
        export = memoryview(obj)
    except TypeError:
        raise TypeError(
            f"{op}: expected a CPU tensor, a NumPy array or a writable buffer (bytearray, memoryview, "
            f"mmap), but got {type(obj).__name__}"
        ) from None
    if export.readonly:
        export.release()
        raise RuntimeError(f"{op}: expected a writable buffer, but this {type(obj).__name__} is read-only")
    if not export.c_contiguous:
        export.release()
        raise RuntimeError(f"{op}: expected a C-contiguous buffer, but this {type(obj).__name__} is not")
    if export.nbytes == 0:
        export.release()
        return torch.empty(0, dtype=torch.uint8)
    # frombuffer keeps a reference to `export` (not an export of its own): the tensor's storage owns it.
    return torch.frombuffer(export.cast("B"), dtype=torch.uint8)


class HostRegistration:
    """Pages of a host buffer, locked for the device, with views over the same bytes.

    ``host``: CPU tensor over the bytes (obj's dtype and shape; uint8 for raw buffers).
    ``device``: CUDA tensor over the same bytes (``cudaHostRegister`` mapped +
    ``cudaHostGetDevicePointer``) when CUDA is available, else None.
    ``close()`` (idempotent, also on context exit or garbage collection) ends the registration and
    drops its views (``host`` and ``device`` become None); pages shared with other registrations,
    or under a still-alive ``device`` view, stay locked until those end too. obj, and its buffer
    export, stay alive while any view is alive, so the memory can never be freed under a view.
    """

    def __init__(self, obj):
        self.host = _host_tensor(obj)
        self.nbytes = self.host.nbytes
        self._id, self.device = torch.ops.uaccel.register_host(self.host)

    @property
    def closed(self) -> bool:
        return self._id is None

    def close(self) -> None:
        if self._id is not None:
            registration_id, self._id = self._id, None
            self.host = self.device = None  # the owner's buffer export goes with the last view
            torch.ops.uaccel.unregister_host(registration_id)

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
        where = f" at {self.host.data_ptr():#x}" if self.host is not None else ""
        return f"HostRegistration({state}, {self.nbytes} bytes{where}, device={self.device is not None})"


def register_host(obj) -> HostRegistration:
    """Register obj's memory (CPU tensor, NumPy array, bytearray, memoryview, mmap) with no copy.

    Eager-only: locking pages and handing out views over them has no meaning inside a traced graph.
    """
    # Not @torch.compiler.disable: that imports torch._dynamo (over a second) at import time.
    if torch.compiler.is_compiling():
        raise RuntimeError(
            "uaccel.register_host: eager-only (it locks pages and returns views over them); "
            "call it outside the function given to torch.compile or torch.export"
        )
    return HostRegistration(obj)
