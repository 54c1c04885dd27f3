#pragma once
// C++ API of the pointwise operators (uaccel/dispatch.h: through the dispatcher, as torch.ops.uaccel.*).
#include <ATen/core/Tensor.h>
#include <c10/core/Scalar.h>

#include <uaccel/dispatch.h>

namespace uaccel {

// The ELU family.
// alpha's default, as at::elu's (the schema's, csrc/ops/elu.h; the seed kernel's 0.1 is alpha = 0.1).
inline constexpr double kEluDefaultAlpha = 1.0;

// y = scale * x where x > 0, else alpha * scale * expm1(input_scale * x) (ATen's parametrisation;
// ELU is scale = input_scale = 1). Differentiable to any order, in reverse and forward mode.
inline at::Tensor elu(
    const at::Tensor& self,
    const at::Scalar& alpha = kEluDefaultAlpha,
    const at::Scalar& scale = 1,
    const at::Scalar& input_scale = 1) {
  static const auto op =
      detail::op<at::Tensor(const at::Tensor&, const at::Scalar&, const at::Scalar&, const at::Scalar&)>("elu");
  return op.call(self, alpha, scale, input_scale);
}

// The same in place; returns `self`. With autograd it needs alpha >= 0 (the gradient is computed
// from the output, as for ATen's elu_).
inline at::Tensor& elu_(
    at::Tensor& self,
    const at::Scalar& alpha = kEluDefaultAlpha,
    const at::Scalar& scale = 1,
    const at::Scalar& input_scale = 1) {
  static const auto op =
      detail::op<void(const at::Tensor&, const at::Scalar&, const at::Scalar&, const at::Scalar&)>("elu_");
  op.call(self, alpha, scale, input_scale);
  return self;
}

// dL/dx of elu from dL/dy. `saved` is y when is_result (valid for alpha >= 0), else x.
inline at::Tensor elu_backward(
    const at::Tensor& grad_output,
    const at::Tensor& saved,
    const at::Scalar& alpha,
    bool is_result,
    const at::Scalar& scale = 1,
    const at::Scalar& input_scale = 1) {
  static const auto op = detail::op<
      at::Tensor(const at::Tensor&, const at::Tensor&, const at::Scalar&, bool, const at::Scalar&, const at::Scalar&)>(
      "elu_backward");
  return op.call(grad_output, saved, alpha, is_result, scale, input_scale);
}

// SiLU: y = x * sigmoid(x), as at::silu. Differentiable to any order, in reverse and forward mode.
inline at::Tensor silu(const at::Tensor& self) {
  static const auto op = detail::op<at::Tensor(const at::Tensor&)>("silu");
  return op.call(self);
}

// The same in place; returns `self` (with autograd it keeps a copy of the input, as at::silu_).
inline at::Tensor& silu_(at::Tensor& self) {
  static const auto op = detail::op<void(const at::Tensor&)>("silu_");
  op.call(self);
  return self;
}

// dL/dx of silu from dL/dy and the input.
inline at::Tensor silu_backward(const at::Tensor& grad_output, const at::Tensor& self) {
  static const auto op = detail::op<at::Tensor(const at::Tensor&, const at::Tensor&)>("silu_backward");
  return op.call(grad_output, self);
}

} // namespace uaccel
