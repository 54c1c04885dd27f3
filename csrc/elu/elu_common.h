#pragma once
// Argument checks and output allocation shared by the CPU and CUDA kernels. The Python fake
// kernels (torch_uaccel/_fake.py) mirror these checks one for one.
#include <ATen/TensorIterator.h>
#include <ATen/core/Tensor.h>

#include "elu/elu_math.h"

namespace uaccel::elu_ops {

// ATen's coefficients (alpha * scale, scale, input_scale) in the math type T. Converting a Scalar
// that does not fit T (alpha=1e308 for a float tensor) raises, as ATen does.
template <typename T>
Coefficients<T> coefficients(const at::Scalar& alpha, const at::Scalar& scale, const at::Scalar& input_scale) {
  return {alpha.to<T>() * scale.to<T>(), scale.to<T>(), input_scale.to<T>()};
}

// Checks `self` and builds the iterator that allocates the output the way ATen's elu does.
at::TensorIterator forward_iter(const at::Tensor& self);

// The same for the in-place form: writes into `self`.
at::TensorIterator forward_inplace_iter(const at::Tensor& self);

// Checks the backward's arguments and builds its iterator (inputs: grad_output, saved).
at::TensorIterator backward_iter(
    const at::Tensor& grad_output,
    const at::Tensor& saved,
    const at::Scalar& alpha,
    bool is_result);

} // namespace uaccel::elu_ops
