#pragma once
// ELU-family math, written once for the CPU and CUDA kernels. `T` is the math type: float for
// float16/bfloat16/float32 inputs, double for float64.
//
// ATen's parametrisation, so ELU, SELU and CELU are one kernel:
//   y = x > 0 ? scale * x : alpha * scale * expm1(input_scale * x)
// ELU = (alpha, 1, 1), SELU = (1.6732632423543772, 1.0507009873554805, 1), CELU = (alpha, 1, 1/alpha).
//
// Branch conditions follow ATen's results: the forward passes zeros of either sign through as
// scale * x (so elu(0, alpha=inf) is 0, not inf * 0 = NaN) and NaN stays NaN; the backward treats
// NaN `saved` as positive and passes the grad through.
#include <c10/macros/Macros.h>

#include <math.h>

namespace uaccel::elu_ops {

C10_HOST_DEVICE inline float expm1_(float x) { return ::expm1f(x); }
C10_HOST_DEVICE inline double expm1_(double x) { return ::expm1(x); }
C10_HOST_DEVICE inline float exp_(float x) { return ::expf(x); }
C10_HOST_DEVICE inline double exp_(double x) { return ::exp(x); }

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
  C10_HOST_DEVICE T operator()(T g, T y) const { return y <= T(0) ? g * c.negiptcoef * (y + c.negcoef) : g * c.poscoef; }
};

} // namespace uaccel::elu_ops
