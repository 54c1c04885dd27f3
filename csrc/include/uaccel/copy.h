#pragma once
// C++ API of uaccel::async_copy_ (through the dispatcher, like torch.ops.uaccel.async_copy_).
#include <ATen/core/Tensor.h>

#include <uaccel/export.h>

namespace uaccel {

// Copies src into dst (same dtype and shape, any strides, no shared memory). With CUDA involved it
// is enqueued on the current stream of the CUDA device and the host does not wait.
UACCEL_API void async_copy_(const at::Tensor& dst, const at::Tensor& src);

} // namespace uaccel
