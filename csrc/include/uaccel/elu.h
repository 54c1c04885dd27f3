#pragma once
// C++ API of the ELU-family operators. Every call goes through the PyTorch dispatcher, so device
// dispatch and autograd (reverse and forward mode) behave exactly as for `torch.ops.uaccel.*`.
#include <ATen/core/Tensor.h>
#include <c10/core/Scalar.h>

#include <uaccel/export.h>

namespace uaccel {

// y = scale * x where x > 0, else alpha * scale * expm1(input_scale * x) (ATen's parametrisation;
// ELU is scale = input_scale = 1). Differentiable to any order, in reverse and forward mode.
UACCEL_API at::Tensor elu(
    const at::Tensor& self,
    const at::Scalar& alpha = 0.1,
    const at::Scalar& scale = 1,
    const at::Scalar& input_scale = 1);

// The same in place; returns `self`. With autograd it needs alpha >= 0 (the gradient is computed
// from the output, as for ATen's elu_).
UACCEL_API at::Tensor& elu_(
    at::Tensor& self, const at::Scalar& alpha = 0.1, const at::Scalar& scale = 1, const at::Scalar& input_scale = 1);

// dL/dx of elu from dL/dy. `saved` is y when is_result (valid for alpha >= 0), else x.
UACCEL_API at::Tensor elu_backward(
    const at::Tensor& grad_output,
    const at::Tensor& saved,
    const at::Scalar& alpha,
    bool is_result,
    const at::Scalar& scale = 1,
    const at::Scalar& input_scale = 1);

} // namespace uaccel
