#pragma once
// GELU, y = x * Phi(x) as F.gelu, Phi the standard normal distribution: exactly (approximate='none',
// Phi(x) = erfc(-x / sqrt(2)) / 2) or with the tanh approximation (approximate='tanh',
// Phi(x) ~ (1 + tanh(u)) / 2 = sigmoid(2u), u = sqrt(2/pi) (x + 0.044715 x^3)). Both without the
// cancellation of 1 + erf or 1 + tanh on the negative side, which costs ATen's float32 kernel its
// relative accuracy there (common/activation_math.h): float32 is within 2 ulp of float64 wherever
// the result is normal.
#include "pointwise/pointwise.h"

namespace uaccel::ops::gelu {
inline namespace CPU_CAPABILITY {

template <typename T>
struct Erf : pointwise::Formula<Erf<T>> {
  template <typename V>
  C10_HOST_DEVICE V apply(V x) const {
    V gaussian;
    return x * math::normal_cdf<T>(x, gaussian);
  }
};

template <typename T>
struct Tanh : pointwise::Formula<Tanh<T>> {
  template <typename V>
  C10_HOST_DEVICE V apply(V x) const {
    V v_lo;
    const V v = math::tanh_exponent<T>(x, v_lo);
    return math::times_sigmoid<T>(x, math::exp_neg_abs<T>(v, v_lo));
  }
};

// dx = g * (Phi(x) + x * phi(x)), phi(x) = exp(-x^2 / 2) / sqrt(2 pi).
template <typename T>
struct ErfBackward : pointwise::Formula<ErfBackward<T>> {
  template <typename V>
  C10_HOST_DEVICE V apply(V g, V x) const {
    V gaussian;
    const V cdf = math::normal_cdf<T>(x, gaussian);
    return g * math::fma(x * V(T(math::kRsqrt2Pi)), gaussian, cdf);
  }
};

// dx = g * d/dx (x s), s = sigmoid(v): g * s * (1 + x (1 - s) v'(x)), v'(x) = 2 sqrt(2/pi) (1 + 3 kappa x^2);
// s and 1 - s from one division, as SiLU's backward.
template <typename T>
struct TanhBackward : pointwise::Formula<TanhBackward<T>> {
  template <typename V>
  C10_HOST_DEVICE V apply(V g, V x) const {
    using C = math::ActivationConstants<T>;
    V v_lo;
    const V v = math::tanh_exponent<T>(x, v_lo);
    const V e = math::exp_nonpositive(math::neg_abs(v));
    const V r = V(T(1)) / (V(T(1)) + e);
    const auto negative = x < V(T(0));
    const V s = math::select(negative, e * r, r), one_minus_s = math::select(negative, r, e * r);
    // From x clamped as v is (the result for |x| > 16 is g or 0 exactly), but +-inf give NaN, as in ATen.
    const V clamped = math::clamp_to_limit<T>(x);
    const V slope = V(C::kBeta2Hi) * math::fma(V(T(3) * C::kKappaHi), clamped * clamped, V(T(1)));
    return math::fma(x, V(T(0)), g * s * math::fma(clamped * one_minus_s, slope, V(T(1))));
  }
};

} // namespace CPU_CAPABILITY

struct Op {
  static constexpr const char* kName = "gelu";
  static constexpr pointwise::Schemas kSchemas{
      .forward = "gelu(Tensor self, *, str approximate='none') -> Tensor",
      .inplace = "gelu_(Tensor(a!) self, *, str approximate='none') -> ()",
      .backward = "gelu_backward(Tensor grad_output, Tensor self, *, str approximate='none') -> Tensor",
  };
  using Params = std::tuple<std::string_view>;
  static constexpr std::array<pointwise::Choice, 1> kChoices{{{"approximate", "none tanh"}}};

  template <typename T, typename Run>
  static void forward(const Run& run, std::string_view approximate) {
    if (approximate == "tanh") {
      run(Tanh<T>{});
    } else {
      run(Erf<T>{});
    }
  }
  template <typename T, typename Run>
  static void backward(const Run& run, std::string_view approximate) {
    if (approximate == "tanh") {
      run(TanhBackward<T>{});
    } else {
      run(ErfBackward<T>{});
    }
  }

  // d/dx of the backward's factor: for 'none', (2 - x^2) phi(x); for 'tanh', with s = sigmoid(v) and
  // v' as in TanhBackward, s (1 - s) (2 v' + x (v'' + v'^2 (1 - 2 s))), v'' = 12 sqrt(2/pi) kappa x.
  // x is clamped where the result is 0 (no inf * 0 from huge x), but +-inf give NaN, as in ATen.
  static at::Tensor backward_wrt_saved(const at::Tensor& h, const at::Tensor& x, std::string_view approximate) {
    const auto xc = x.clamp(-math::ActivationConstants<double>::kLimit, math::ActivationConstants<double>::kLimit);
    const auto nan_at_infinity = x * 0;
    if (approximate == "tanh") {
      constexpr double beta2 = 2 * 0.79788456080286535588, kappa = 0.044715;
      const auto v = beta2 * (xc + kappa * xc * xc * xc);
      const auto s = at::sigmoid(v), one_minus_s = at::sigmoid(-v);  // 1 - s without cancellation
      const auto slope = beta2 * (1 + 3 * kappa * xc * xc);
      const auto second = s * one_minus_s * (2 * slope + xc * (6 * beta2 * kappa * xc + slope * slope * (one_minus_s - s)));
      return h * second + nan_at_infinity;
    }
    return h * ((2 - xc * xc) * at::exp(-0.5 * xc * xc) * math::kRsqrt2Pi) + nan_at_infinity;
  }
};

} // namespace uaccel::ops::gelu
