#pragma once
// ELU math, written once for the CPU and CUDA kernels. `T` is the math type: float for
// float16/bfloat16/float32 inputs, double for float64.
//
// Branch conditions follow ATen so NaN propagates the same way: the forward sends NaN to
// alpha * expm1(NaN) = NaN; the backward treats NaN `saved` as positive and passes the grad through.
#include <c10/macros/Macros.h>

#include <math.h>

namespace uaccel::elu_ops {

C10_HOST_DEVICE inline float expm1_(float x) { return ::expm1f(x); }
C10_HOST_DEVICE inline double expm1_(double x) { return ::expm1(x); }
C10_HOST_DEVICE inline float exp_(float x) { return ::expf(x); }
C10_HOST_DEVICE inline double exp_(double x) { return ::exp(x); }

// expm1, not exp(x) - 1: the latter loses every significant digit for |x| near 0.
template <typename T>
struct ForwardOp {
  T alpha;
  C10_HOST_DEVICE T operator()(T x) const { return x > T(0) ? x : alpha * expm1_(x); }
};

// saved = x:  dx = g where x > 0, else g * alpha * exp(x).
template <typename T>
struct BackwardFromInputOp {
  T alpha;
  C10_HOST_DEVICE T operator()(T g, T x) const { return x <= T(0) ? g * alpha * exp_(x) : g; }
};

// saved = y (alpha >= 0): alpha * exp(x) == y + alpha on the negative side, so no exp is needed.
template <typename T>
struct BackwardFromResultOp {
  T alpha;
  C10_HOST_DEVICE T operator()(T g, T y) const { return y <= T(0) ? g * (y + alpha) : g; }
};

} // namespace uaccel::elu_ops
