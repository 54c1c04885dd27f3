#pragma once
// SiLU, x sigmoid(x), and its derivative s (1 + x (1 - s)), s = sigmoid(x): silu<T>(x) and
// silu_derivative<T>(g, x, value), the variant for each path chosen in those two functions.
//   path                         forward                                   derivative
//   AVX-512 float vectors        table of a sigmoid(-a), a = |x| <= 7.75;  table of sigmoid(-a) where a is within
//                                else silu_as_quotient                     its reach; else from e^-|x|
//   AVX2 float vectors           silu_by_division where x is in [-16.25,   8-interval table of sigmoid(-a) (to 7);
//                                88]; else the compensated quotient        else from e^-|x|
//   scalars (CUDA, strided),     times_sigmoid(x, e^-|x|): the quotient,   from e^-|x|, compensated
//   DEFAULT's vectors, double    compensated
// Domain: every x; below -87.3 the result may be flushed to 0 (as F.silu's). Bound (tests/test_expm1_accuracy.py;
// measured per path: docs/accuracy.md): float32 within 2 ulp of float64 where the result is normal, the
// derivative within 3.5 ulp of its larger term; 16-bit types are computed in float.
#include "activation_math.h"

namespace uaccel::math {

// SiLU as x / (1 + e) for e = exp(-x), on AVX-512's float vectors beyond silu_by_table's reach: the
// numerator exact, the sum's rounding error (two-sum, larger term first) and the quotient's residual in
// one correction, so the result is off by e's own error and one rounding. x is clamped to where e is
// finite and 1 / (1 + e) normal; below -87.3 (exp(x) subnormal) the result is flushed to 0 and the
// special values are fixed at the end.
#if defined(CPU_CAPABILITY_AVX512)
template <typename V>
UACCEL_ACTIVATION V silu_as_quotient(V x) {
  constexpr float kFlushBelow = -87.3f;
  const V e = exp_in_range(neg(math::clamp(x, V(kFlushBelow), V(88.0f))));
  const V one(1.0f), den = one + e;
  const V den_lo = (at::vec::clamp_min(e, one) - den) + at::vec::clamp_max(e, one);
  const V inv = reciprocal_estimate(den), q = x * inv;
  const V residual = fnma(q, den_lo, fnma(q, den, x));
  return with_silu_special_values(fma(residual, inv, q), x, kFlushBelow);
}
#endif

// SiLU for AVX-512's float vectors by table, where every |x| is at most kSiluByTableTo: t = a sigmoid(-a)
// for a = |x| from the table (the product by a is in the fit), then x sigmoid(x) = max(x, 0) - t (-t where
// x < 0; a - t elsewhere, t <= a / 2: no cancellation), so the result is off by the fit's error and the
// polynomial's last two roundings. Beyond (and for NaN), silu_as_quotient.
#if defined(CPU_CAPABILITY_AVX512)
inline constexpr float kSiluByTableTo = kReach<SiluTable>;
template <typename V>
UACCEL_ACTIVATION V silu_by_table(V x) {
  return positive_part(x) - polynomial_by_table<SiluTable>(x.abs());
}
#endif

// SiLU as x / (1 + e), e = exp(-x), on AVX2's float vectors where every x is within [kSiluByDivisionFrom,
// kSiluByDivisionTo]: the sum rounded once (one_plus_exp: 2^n + 1 is exact there, 2^n normal or 0), then
// one division, so the result is off by e's error and two roundings (docs/accuracy.md has the figures).
// A table would take a VPERMPS a coefficient on the one port that shuffles, where this keeps the
// two that multiply busy, the division beside them. Beyond (and for NaN, +-inf), the compensated
// quotient.
#if defined(CPU_CAPABILITY_AVX2)
inline constexpr float kSiluByDivisionFrom = -16.25f, kSiluByDivisionTo = 88.0f;
template <typename V>
UACCEL_ACTIVATION V silu_by_division(V x) {
  return x / one_plus_exp(neg(x));
}
#endif

// SiLU, x * sigmoid(x), to 2 ulp (exp's error and one rounding), by each path (docs/accuracy.md).
template <typename T, typename V>
UACCEL_ACTIVATION V silu(V x) {
  const auto by_quotient = [](V x) { return times_sigmoid<T, false>(x, exp_nonpositive(neg_abs(x)), V(T(0))); };
  if constexpr (kByAnyTable<V>) {
#if defined(CPU_CAPABILITY_AVX512)
    return C10_LIKELY(all_at_most(x.abs(), kSiluByTableTo)) ? silu_by_table(x) : silu_as_quotient(x);
#elif defined(CPU_CAPABILITY_AVX2)
    return C10_LIKELY(all_within(x, kSiluByDivisionFrom, kSiluByDivisionTo)) ? silu_by_division(x) : by_quotient(x);
#endif
  } else {
    return by_quotient(x);
  }
}

// g (s + x s (1 - s)), s = sigmoid(x), and g x s, from q = sigmoid(-|x|) = e / (1 + e), e = exp(-|x|),
// compensated (times_sigmoid of -1 gives -q): s = q or 1 - q, s (1 - s) = q (1 - q), no cancellation.
template <typename T, typename V>
UACCEL_ACTIVATION V silu_derivative_from_exp(V g, V x, V& value) {
  const V q = neg(times_sigmoid<T, false>(V(T(-1)), exp_nonpositive(neg_abs(x)), V(T(0))));
  const V s = select(less(x, V(T(0))), q, V(T(1)) - q);
  value = g * (x * s);
  return g * fma(x, fnma(q, q, q), s);
}

// The same, q by table where kByAnyTable and every |x| is within SigmoidTable's reach (x s then as
// silu_by_table's); beyond (and for NaN, +-inf), from exp.
template <typename T, typename V>
UACCEL_ACTIVATION V silu_derivative(V g, V x, V& value) {
  if constexpr (kByAnyTable<V>) {
    const V a = x.abs();
    if (C10_LIKELY(all_at_most(a, kReach<SigmoidTableHere>))) {
      V q, x_times_s;
      const V s = cdf_by_table<SigmoidTableHere>(x, a, q, x_times_s);
      value = g * x_times_s;
      return g * fma(x, fnma(q, q, q), s);
    }
  }
  return silu_derivative_from_exp<T>(g, x, value);
}

} // namespace uaccel::math
