#pragma once
// SiLU (swish), y = x * sigmoid(x) as F.silu, on the pointwise framework (csrc/pointwise/pointwise.h).
// sigmoid(x) from e = exp(-|x|), which is at most 1, so nothing overflows or cancels: 1 / (1 + e) for
// x >= 0, e / (1 + e) below. The quotient x * (x < 0 ? e : 1) / (1 + e) is compensated: the product's
// and the sum's rounding errors (by fma) and the quotient's residual go into one correction, so the
// result is off by e's error and one rounding (float32: under 2 ulp of float64 where the result is
// normal; below x = -87.3 e is flushed to 0, and so is the result, as F.silu's own kernel does).
#include <limits>

#include "pointwise/pointwise.h"

namespace uaccel::ops::silu {
inline namespace CPU_CAPABILITY {

template <typename T>
struct Forward {
  C10_HOST_DEVICE T operator()(T x) const {
    const T e = math::exp(x < T(0) ? x : -x);
    const T m = x < T(0) ? e : T(1);
    const T num = x * m, den = T(1) + e, inv = T(1) / den, q = num * inv;
    const T residual = math::fma(-q, den, num) + math::fma(x, m, -num) - q * ((T(1) - den) + e);
    return x == INFINITY ? x : math::fma(residual, inv, q);  // inf - inf would make it NaN
  }
#ifdef CPU_CAPABILITY
  Vec<T> vec(Vec<T> x) const {
    const Vec<T> one(T(1));
    const auto e = cpu::exp_nonpositive(x | Vec<T>(T(-0.0)));  // -|x|: the sign bit set
    const auto m = Vec<T>::blendv(one, e, x < Vec<T>(T(0)));
    const auto num = x * m, den = one + e;
    const auto inv = one / den, q = num * inv;
    const auto residual = cpu::fma(q.neg(), den, num) + cpu::fma(x, m, num.neg()) - q * ((one - den) + e);
    return Vec<T>::blendv(at::vec::fmadd(residual, inv, q), x, x == Vec<T>(std::numeric_limits<T>::infinity()));
  }
#endif
};

// dx = g * s * (1 + x * (1 - s)), s = sigmoid(x): s and 1 - s from one division.
template <typename T>
struct Backward {
  C10_HOST_DEVICE T operator()(T g, T x) const {
    const T e = math::exp(x < T(0) ? x : -x);
    const T r = T(1) / (T(1) + e);
    return g * (x < T(0) ? e * r : r) * (T(1) + x * (x < T(0) ? r : e * r));
  }
#ifdef CPU_CAPABILITY
  Vec<T> vec(Vec<T> g, Vec<T> x) const {
    const auto e = cpu::exp_nonpositive(x | Vec<T>(T(-0.0)));
    const auto r = Vec<T>(T(1)) / (Vec<T>(T(1)) + e);
    const auto negative = x < Vec<T>(T(0));
    const auto s = Vec<T>::blendv(r, e * r, negative);
    return g * s * (Vec<T>(T(1)) + x * Vec<T>::blendv(e * r, r, negative));
  }
#endif
};

} // namespace CPU_CAPABILITY

struct Op {
  static constexpr const char* kName = "silu";
  static constexpr pointwise::Schemas kSchemas{
      .forward = "silu(Tensor self) -> Tensor",
      .inplace = "silu_(Tensor(a!) self) -> ()",
      .backward = "silu_backward(Tensor grad_output, Tensor self) -> Tensor",
  };

  template <typename T, typename Run>
  static void forward(const Run& run) {
    run(Forward<T>{});
  }
  template <typename T, typename Run>
  static void backward(const Run& run) {
    run(Backward<T>{});
  }
  // silu''(x) = s (1 - s) (2 + x (1 - 2 s)).
  static at::Tensor backward_wrt_saved(const at::Tensor& h, const at::Tensor& x) {
    const auto s = at::sigmoid(x);
    return h * s * (1 - s) * (2 + x * (1 - 2 * s));
  }
};

} // namespace uaccel::ops::silu
