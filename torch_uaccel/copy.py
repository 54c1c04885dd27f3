"""Copies that stay on the caller's stream: ``torch_uaccel.async_copy(dst, src) -> dst``."""

import torch

__all__ = ["async_copy"]


def async_copy(dst: torch.Tensor, src: torch.Tensor) -> torch.Tensor:
    """Copy src into dst (same dtype and shape, any strides, no shared memory) and return dst.

    With CUDA involved the copy is enqueued on the current stream of the CUDA device and the host
    does not wait (pageable host memory is staged through PyTorch's pinned host allocator); read
    the result after synchronising that stream, as with any asynchronous CUDA work. With both
    tensors on the CPU it is a parallel copy, finished when it returns.
    """
    for name, value in (("dst", dst), ("src", src)):
        if not isinstance(value, torch.Tensor):
            raise TypeError(
                f"uaccel.async_copy: expected {name} to be a tensor, but got {type(value).__name__} ({value!r})"
            )
    torch.ops.uaccel.async_copy_(dst, src)
    return dst
