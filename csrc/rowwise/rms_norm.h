#pragma once
// RMSNorm's kernels, CPU (rms_norm_isa.cpp, compiled once per instruction set) and CUDA (rms_norm_cuda.cu),
// and what the op's implementation (rms_norm.cpp) hands them: rows of n elements, contiguous, and the weight (times
// weight_offset added) in the math type, float (double for double inputs).
#include <ATen/core/Tensor.h>

#include <uaccel/detail/cpu_dispatch.h>

namespace uaccel::rowwise {

// out[r] = x[r] * rstd[r] (rounded to x's type first where cast_before_weight) * weight, rstd[r] =
// 1 / sqrt(mean(x[r]^2) + eps), the mean accumulated in double. Where residual is defined, x + residual
// (rounded to x's type, as ATen's add) is written to sum and normalised in x's place.
using RmsNormForwardKernel = void (*)(
    const at::Tensor& x,
    const at::Tensor& residual,
    const at::Tensor& weight,
    double eps,
    bool cast_before_weight,
    at::Tensor& out,
    at::Tensor& sum,
    at::Tensor& rstd);
// grad_input[r] = rstd (gw - xhat mean(xhat gw)), gw = grad_out[r] * weight, xhat = x[r] * rstd[r]; and
// grad_weight = sum over rows of grad_out[r] * xhat (xhat rounded to x's type where cast_before_weight),
// summed in a fixed order whatever the thread count. Either output may be undefined: not computed.
using RmsNormBackwardKernel = void (*)(
    const at::Tensor& grad_out,
    const at::Tensor& x,
    const at::Tensor& rstd,
    const at::Tensor& weight,
    bool cast_before_weight,
    at::Tensor& grad_input,
    at::Tensor& grad_weight);

extern cpu::CpuDispatch<RmsNormForwardKernel> rms_norm_forward_dispatch;
extern cpu::CpuDispatch<RmsNormBackwardKernel> rms_norm_backward_dispatch;
#ifdef UACCEL_WITH_CUDA
extern const RmsNormForwardKernel rms_norm_forward_cuda;
extern const RmsNormBackwardKernel rms_norm_backward_cuda;
#endif

} // namespace uaccel::rowwise
