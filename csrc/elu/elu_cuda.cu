// CUDA kernels of uaccel::elu and uaccel::elu_backward: launched on the current stream of the
// input's device; the math is elu_math.h's, shared with the CPU.
#include <ATen/Dispatch.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/library.h>

#include "common/cuda_loops.cuh"
#include "elu/elu_common.h"
#include "elu/elu_math.h"

namespace uaccel::elu_ops {
namespace {

at::Tensor elu_cuda(const at::Tensor& self, double alpha) {
  const c10::cuda::CUDAGuard device_guard(self.device());
  auto iter = forward_iter(self);
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, iter.dtype(), "uaccel.elu", [&] {
    using T = at::opmath_type<scalar_t>;
    cuda::elementwise<scalar_t, 1>(iter, ForwardOp<T>{static_cast<T>(alpha)});
  });
  return iter.output();
}

at::Tensor elu_backward_cuda(const at::Tensor& grad_output, const at::Tensor& saved, double alpha, bool is_result) {
  const c10::cuda::CUDAGuard device_guard(saved.device());
  auto iter = backward_iter(grad_output, saved, alpha, is_result);
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, iter.dtype(), "uaccel.elu_backward", [&] {
    using T = at::opmath_type<scalar_t>;
    if (is_result) {
      cuda::elementwise<scalar_t, 2>(iter, BackwardFromResultOp<T>{static_cast<T>(alpha)});
    } else {
      cuda::elementwise<scalar_t, 2>(iter, BackwardFromInputOp<T>{static_cast<T>(alpha)});
    }
  });
  return iter.output();
}

} // namespace

TORCH_LIBRARY_IMPL(uaccel, CUDA, m) {
  m.impl("elu", &elu_cuda);
  m.impl("elu_backward", &elu_backward_cuda);
}

} // namespace uaccel::elu_ops
