#pragma once
// The activations' first and second derivatives as differentiable tensor ops: what the backward ops'
// own derivatives (Op::backward_wrt_saved: double backward, forward over reverse) are made of. Inputs
// are clamped where the derivatives are 0 or 1 (no inf * 0 from a huge finite x), but +-inf give NaN,
// as ATen's do.
#include <ATen/ATen.h>

#include <string_view>
#include <utility>

#include "gelu.h"
#include "silu.h"

namespace uaccel::math {

// (f'(x), f''(x)).
using Derivatives = std::pair<at::Tensor, at::Tensor>;

// SiLU: s (1 + x (1 - s)) and s (1 - s) (2 + x (1 - 2 s)), s = sigmoid(x).
inline Derivatives silu_derivatives(const at::Tensor& x) {
  const auto s = at::sigmoid(x), one_minus_s = at::sigmoid(-x);  // 1 - s without cancellation
  return {s * (1 + x * one_minus_s), s * one_minus_s * (2 + x * (one_minus_s - s))};
}

// GELU: Phi(x) + x phi(x) and (2 - x^2) phi(x); with the tanh approximation, s = sigmoid(v),
// s (1 + x (1 - s) v') and s (1 - s) (2 v' + x (v'' + v'^2 (1 - 2 s))), v' = 2 sqrt(2/pi) (1 + 3 kappa x^2),
// v'' = 12 sqrt(2/pi) kappa x.
inline Derivatives gelu_derivatives(const at::Tensor& x, std::string_view approximate) {
  constexpr double limit = ActivationConstants<double>::kLimit;
  const auto xc = x.clamp(-limit, limit);
  const auto nan_at_infinity = x * 0;
  if (approximate == "tanh") {
    constexpr double beta2 = 2 * 0.79788456080286535588, kappa = 0.044715;
    const auto v = beta2 * (xc + kappa * xc * xc * xc);
    const auto s = at::sigmoid(v), one_minus_s = at::sigmoid(-v);
    const auto slope = beta2 * (1 + 3 * kappa * xc * xc);
    return {
        s * (1 + xc * one_minus_s * slope) + nan_at_infinity,
        s * one_minus_s * (2 * slope + xc * (6 * beta2 * kappa * xc + slope * slope * (one_minus_s - s))) +
            nan_at_infinity};
  }
  const auto density = at::exp(-0.5 * xc * xc) * kRsqrt2Pi;
  return {
      0.5 * at::erfc(xc * -ActivationConstants<double>::kRsqrt2Hi) + xc * density + nan_at_infinity,
      (2 - xc * xc) * density + nan_at_infinity};
}

} // namespace uaccel::math
