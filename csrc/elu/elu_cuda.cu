// CUDA kernels of the ELU ops: launched on the current stream of the input's device; the math is
// elu_kernels.h's, shared with the CPU.
#include <ATen/Dispatch.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/library.h>

#include "common/cuda_loops.cuh"
#include "elu/elu_kernels.h"

namespace uaccel::elu_ops {
namespace {

void launch_forward(
    at::TensorIteratorBase& iter, const at::Scalar& alpha, const at::Scalar& scale, const at::Scalar& input_scale) {
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, iter.dtype(), "uaccel.elu", [&] {
    using T = at::opmath_type<scalar_t>;
    cuda::elementwise<scalar_t, 1>(iter, ForwardOp<T>{coefficients<T>(alpha, scale, input_scale)});
  });
}

at::Tensor elu_cuda(
    const at::Tensor& self, const at::Scalar& alpha, const at::Scalar& scale, const at::Scalar& input_scale) {
  const c10::cuda::CUDAGuard device_guard(self.device());
  auto iter = elementwise::unary("uaccel.elu", self);
  launch_forward(iter, alpha, scale, input_scale);
  return iter.output();
}

void elu_inplace_cuda(
    const at::Tensor& self, const at::Scalar& alpha, const at::Scalar& scale, const at::Scalar& input_scale) {
  const c10::cuda::CUDAGuard device_guard(self.device());
  auto iter = elementwise::unary_inplace("uaccel.elu_", self);
  launch_forward(iter, alpha, scale, input_scale);
}

at::Tensor elu_backward_cuda(
    const at::Tensor& grad_output,
    const at::Tensor& saved,
    const at::Scalar& alpha,
    bool is_result,
    const at::Scalar& scale,
    const at::Scalar& input_scale) {
  const c10::cuda::CUDAGuard device_guard(saved.device());
  auto iter = backward_iter(grad_output, saved, alpha, is_result);
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, iter.dtype(), "uaccel.elu_backward", [&] {
    using T = at::opmath_type<scalar_t>;
    const auto c = coefficients<T>(alpha, scale, input_scale);
    if (is_result) {
      cuda::elementwise<scalar_t, 2>(iter, BackwardFromResultOp<T>{c});
    } else {
      cuda::elementwise<scalar_t, 2>(iter, BackwardFromInputOp<T>{c});
    }
  });
  return iter.output();
}

} // namespace

TORCH_LIBRARY_IMPL(uaccel, CUDA, m) {
  m.impl("elu", &elu_cuda);
  m.impl("elu_", &elu_inplace_cuda);
  m.impl("elu_backward", &elu_backward_cuda);
}

} // namespace uaccel::elu_ops
