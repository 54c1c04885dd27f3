#pragma once
// Argument checks and output allocation shared by the CPU and CUDA kernels. The Python fake
// kernels in torch_uaccel/ops.py mirror these checks one for one.
#include <ATen/TensorIterator.h>
#include <ATen/core/Tensor.h>

namespace uaccel::elu_ops {

// Checks `self` and builds the iterator that allocates the output the way ATen's elu does.
at::TensorIterator forward_iter(const at::Tensor& self);

// Checks the backward's arguments and builds its iterator (inputs: grad_output, saved).
at::TensorIterator backward_iter(
    const at::Tensor& grad_output,
    const at::Tensor& saved,
    double alpha,
    bool is_result);

} // namespace uaccel::elu_ops
