#pragma once
// C++ API of the ELU operators. Both calls go through the PyTorch dispatcher, so device
// dispatch and autograd behave exactly as for `torch.ops.uaccel.elu` from Python.
#include <ATen/core/Tensor.h>

#include <uaccel/export.h>

namespace uaccel {

// y = x where x > 0, else alpha * expm1(x). Differentiable (twice) through torch::autograd.
UACCEL_API at::Tensor elu(const at::Tensor& self, double alpha = 0.1);

// dL/dx of elu from dL/dy. `saved` is y when is_result (valid for alpha >= 0), else x.
UACCEL_API at::Tensor elu_backward(
    const at::Tensor& grad_output,
    const at::Tensor& saved,
    double alpha,
    bool is_result);

} // namespace uaccel
