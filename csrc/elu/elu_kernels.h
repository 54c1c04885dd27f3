#pragma once
// ELU-family math, written once for the CPU and CUDA kernels, and what both kernels share: ATen's
// coefficients, the checked iterators, and the CPU kernels' dispatch points (elu_cpu_isa.cpp).
// `T` is the math type: float for float16/bfloat16/float32 inputs, double for float64.
//
// ATen's parametrisation, so ELU, SELU and CELU are one kernel:
//   y = x > 0 ? scale * x : alpha * scale * expm1(input_scale * x)
// ELU = (alpha, 1, 1), SELU = (1.6732632423543772, 1.0507009873554805, 1), CELU = (alpha, 1, 1/alpha).
//
// Branch conditions follow ATen's results: the forward passes zeros of either sign through as
// scale * x (so elu(0, alpha=inf) is 0, not inf * 0 = NaN) and NaN stays NaN; the backward treats
// NaN `saved` as positive and passes the grad through.
#include <ATen/TensorIterator.h>
#include <ATen/core/Formatting.h>  // prints the Scalar in the alpha check
#include <c10/macros/Macros.h>

#include <math.h>

#include "common/cpu_dispatch.h"
#include "common/elementwise.h"

namespace uaccel::elu_ops {

C10_HOST_DEVICE inline float expm1_(float x) {
  return ::expm1f(x);
}
C10_HOST_DEVICE inline double expm1_(double x) {
  return ::expm1(x);
}
C10_HOST_DEVICE inline float exp_(float x) {
  return ::expf(x);
}
C10_HOST_DEVICE inline double exp_(double x) {
  return ::exp(x);
}

// The three coefficients in the math type, named as ATen names them.
template <typename T>
struct Coefficients {
  T negcoef;     // alpha * scale
  T poscoef;     // scale
  T negiptcoef;  // input_scale
};

// expm1, not exp(x) - 1: the latter loses every significant digit for |x| near 0.
template <typename T>
struct ForwardOp {
  Coefficients<T> c;
  C10_HOST_DEVICE T operator()(T x) const { return x < T(0) ? c.negcoef * expm1_(x * c.negiptcoef) : x * c.poscoef; }
};

// saved = x:  dx = g * scale where x > 0, else g * input_scale * alpha * scale * exp(input_scale * x).
template <typename T>
struct BackwardFromInputOp {
  Coefficients<T> c;
  C10_HOST_DEVICE T operator()(T g, T x) const {
    return x <= T(0) ? g * c.negiptcoef * c.negcoef * exp_(x * c.negiptcoef) : g * c.poscoef;
  }
};

// saved = y (alpha >= 0): alpha * scale * exp(input_scale * x) == y + alpha * scale on the negative
// side, so no exp is needed.
template <typename T>
struct BackwardFromResultOp {
  Coefficients<T> c;
  C10_HOST_DEVICE T operator()(T g, T y) const {
    return y <= T(0) ? g * c.negiptcoef * (y + c.negcoef) : g * c.poscoef;
  }
};

// ATen's coefficients (alpha * scale, scale, input_scale) in the math type T. Converting a Scalar
// that does not fit T (alpha=1e308 for a float tensor) raises, as ATen does.
template <typename T>
Coefficients<T> coefficients(const at::Scalar& alpha, const at::Scalar& scale, const at::Scalar& input_scale) {
  return {alpha.to<T>() * scale.to<T>(), scale.to<T>(), input_scale.to<T>()};
}

// The backward's iterator (inputs: grad_output, saved) after its checks.
inline at::TensorIterator backward_iter(
    const at::Tensor& grad_output, const at::Tensor& saved, const at::Scalar& alpha, bool is_result) {
  constexpr const char* op = "uaccel.elu_backward";
  auto iter = elementwise::binary(op, "grad_output", grad_output, "saved", saved);
  TORCH_CHECK(
      !is_result || alpha.to<double>() >= 0, op,
      ": is_result=True (saved is the forward output) needs alpha >= 0, because the output does not "
      "determine the input when alpha < 0; got alpha=",
      alpha);
  return iter;
}

// The CPU kernels, one per instruction set (elu_cpu_isa.cpp).
using ForwardFn = void (*)(
    at::TensorIteratorBase& iter, const at::Scalar& alpha, const at::Scalar& scale, const at::Scalar& input_scale);
using BackwardFn = void (*)(
    at::TensorIteratorBase& iter,
    const at::Scalar& alpha,
    const at::Scalar& scale,
    const at::Scalar& input_scale,
    bool is_result);
UACCEL_DECLARE_CPU_DISPATCH(forward_stub, ForwardFn);
UACCEL_DECLARE_CPU_DISPATCH(backward_stub, BackwardFn);

} // namespace uaccel::elu_ops
