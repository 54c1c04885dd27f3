#pragma once
// Argument checks and dtype-agnostic helpers shared by the CPU and CUDA kernels of
// uaccel::async_copy_. The Python fake kernel (torch_uaccel/_fake.py) mirrors the checks.
#include <ATen/TensorIterator.h>
#include <ATen/core/Tensor.h>
#include <c10/util/Exception.h>

#include <cstdint>

namespace uaccel::copy {

constexpr const char* kOp = "uaccel.async_copy_";

// Before dispatch (the Autograd kernel): dense tensors (no sparse, quantized or nested ones, which
// would otherwise meet the dispatcher's generic "could not run" error) on devices a kernel serves:
// the same device, or the CPU and a CUDA device.
void check_copy_operands(const at::Tensor& dst, const at::Tensor& src);

// Same dtype and shape; dst not self-overlapping; dst and src not sharing bytes.
void check_copy_args(const at::Tensor& dst, const at::Tensor& src);

// True when one memcpy of nbytes moves src onto dst: both dense with identical strides.
bool same_dense_layout(const at::Tensor& a, const at::Tensor& b);

// An iterator over (dst, src) on one device; dst keeps its strides.
at::TensorIterator copy_iter(const at::Tensor& dst, const at::Tensor& src);

// A copy moves bytes, not values: elements are moved as unsigned words of their size.
struct alignas(16) Word16 {
  uint64_t lo, hi;
};

template <typename F>
void dispatch_by_element_size(size_t element_size, F&& f) {
  switch (element_size) {
    case 1:
      return f(uint8_t{});
    case 2:
      return f(uint16_t{});
    case 4:
      return f(uint32_t{});
    case 8:
      return f(uint64_t{});
    case 16:
      return f(Word16{});
    default:
      TORCH_CHECK(false, kOp, ": unsupported element size ", element_size, " bytes");
  }
}

// The CPU copy (parallel over ATen's grain size); finished when it returns.
void copy_on_cpu(const at::Tensor& dst, const at::Tensor& src);

} // namespace uaccel::copy
