#pragma once
// What SiLU's and GELU's math (silu.h, gelu.h) share, written once for a
// scalar V (float, double: CUDA and the CPU's strided loops) and a vector V (at::vec::Vectorized, the
// CPU's vector loops) through the functions scalar_math.h and vec_math.h both define. T is V's
// element type. Accuracy is relative, to the end of the normal range: the negative tails, where the
// textbook formulas cancel (1 + erf, 1 + tanh), are computed without cancellation, and where an
// argument's rounding error would be amplified (e^v for large |v|), the argument is carried as the
// sum of two values, its rounding error included.
#include <c10/macros/Macros.h>

#include <array>

#include <uaccel/math/scalar_math.h>
#include "activation_parts.h"
#include "activation_tables.h"
#ifdef CPU_CAPABILITY
#include <uaccel/math/vec_math.h>
#endif

// Inlined into the kernels' loops, whose constants then stay in registers from one vector to the next.
#define UACCEL_ACTIVATION C10_HOST_DEVICE C10_ALWAYS_INLINE

namespace uaccel::math {

// Constants rounded to T (Hi) and what that rounding left (Lo).
template <typename T>
struct ActivationConstants;
template <>
struct ActivationConstants<float> {
  static constexpr float kRsqrt2Hi = 0x1.6a09e6p-1f, kRsqrt2Lo = 0x1.9fcef4p-27f;  // 1/sqrt(2)
  static constexpr float kBeta2Hi = 0x1.988454p+0f, kBeta2Lo = -0x1.857936p-25f;   // 2 sqrt(2/pi)
  static constexpr float kKappaHi = 0x1.6e4e26p-5f, kKappaLo = 0x1.a9003ep-30f;    // 0.044715
  static constexpr float kSlopeSquare = 0x1.b6676cp-3f;                            // 3 kappa 2 sqrt(2/pi)
  static constexpr float kLimit = 16;  // |x| past which Phi(x) and sigmoid(v(x)) are 0 or 1 in T
};
template <>
struct ActivationConstants<double> {
  static constexpr double kRsqrt2Hi = 0x1.6a09e667f3bcdp-1, kRsqrt2Lo = -0x1.bdd3413b26456p-55;
  static constexpr double kBeta2Hi = 0x1.9884533d43651p+0, kBeta2Lo = -0x1.cbc0d30ebfd15p-54;
  static constexpr double kKappaHi = 0x1.6e4e26d4801f7p-5, kKappaLo = 0x1.441355475a31ap-59;
  static constexpr double kSlopeSquare = 0x1.b6676bf7450f0p-3;
  static constexpr double kLimit = 40;
};
inline constexpr double kTwoOverSqrtPi = 1.12837916709551257390;
inline constexpr double kRsqrt2Pi = 0.39894228040143267794;  // 1/sqrt(2 pi)

// x clamped to [-kLimit, kLimit], NaN kept.
template <typename T, typename V>
UACCEL_ACTIVATION V clamp_to_limit(V x) {
  using C = ActivationConstants<T>;
  return math::clamp(x, V(-C::kLimit), V(C::kLimit));
}

// x * sigmoid(v) given e (+ e_lo, with kLow) = exp(-|v|) and v of x's sign: x * (v < 0 ? e : 1) / (1 + e).
// Compensated: e_lo, the product's and the sum's rounding errors (by fma) and the quotient's residual
// go into one correction, so the result is off by e's own error and one rounding (the correction, a
// Newton step on the quotient, also makes an estimate of 1 / (1 + e) good enough). x = +inf gives x
// (inf - inf would make it NaN); x = -inf gives NaN, as -inf * 0 does.
template <typename T, bool kLow, typename V>
UACCEL_ACTIVATION V times_sigmoid(V x, V e, V e_lo) {
  const auto negative = less(x, V(T(0)));
  const V m = select(negative, e, V(T(1)));
  const V num = x * m, den = V(T(1)) + e, inv = reciprocal_estimate(den), q = num * inv;
  V num_lo = fms(x, m, num), den_lo = (V(T(1)) - den) + e;
  if constexpr (kLow) {
    num_lo = num_lo + x * select(negative, e_lo, V(T(0)));
    den_lo = den_lo + e_lo;
  }
  const V residual = fnma(q, den, num) + num_lo - q * den_lo;
  return select(equal(x, V(T(INFINITY))), x, fma(residual, inv, q));
}

// exp(-|v|) for v = v_hi + v_lo, as e + e_lo.
template <typename T, typename V>
UACCEL_ACTIVATION V exp_neg_abs(V v, V v_lo, V& e_lo) {
  V lo;
  const V e = exp_nonpositive(neg_abs(v), lo);
  e_lo = fma(e, select(less(v, V(T(0))), v_lo, neg(v_lo)), lo);
  return e;
}

// F(a) for a >= 0 from Table's polynomial for a's interval (activation_tables.h; each coefficient one
// lookup). The interval k = round(a / w) is left in the low bits of a sum with a magic number, as in
// exp's reduction; d = a - k w is exact. Where w is a power of 2, an addition finds k (and on AVX-512
// VREDUCEPS d), sparing the multiplier, which the polynomial keeps busy. Where Table::kSplitConstant,
// returned as hi + lo.
#if defined(CPU_CAPABILITY_AVX512) || defined(CPU_CAPABILITY_AVX2)
constexpr int fraction_bits(float w) {  // the doublings that bring w < 1 to at least 1
  int bits = 0;
  for (; w < 1.0f; w *= 2.0f) {
    ++bits;
  }
  return bits;
}
constexpr bool is_power_of_two(float w) {
  return w * static_cast<float>(1 << fraction_bits(w)) == 1.0f;
}

template <typename Table, typename V>
UACCEL_ACTIVATION V interval_of(V a, V& d) {
  constexpr float kMagic = 0x1.8p23f;  // adding it rounds to an integer, left in the low bits
  constexpr float kWidth = Table::kWidth;
  if constexpr (is_power_of_two(kWidth)) {
    const V biased = a + V(kMagic * kWidth);  // its last place is w: k w + kMagic w
#if defined(CPU_CAPABILITY_AVX512)
    d = _mm512_reduce_ps(a, (fraction_bits(kWidth) << 4) | _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
#else
    d = a - (biased - V(kMagic * kWidth));
#endif
    return biased;
  } else {
    const V biased = fma(a, V(1.0f / kWidth), V(kMagic));
    d = fma(biased - V(kMagic), V(-kWidth), a);
    return biased;
  }
}

template <typename Table, typename V>
UACCEL_ACTIVATION V polynomial_by_table(V a, V& lo) {
  static_assert(Table::kSplitConstant);
  V d;
  const V biased = interval_of<Table>(a, d);
  const auto& c = Table::kCoefficients;
  V inner = lookup(c[Table::kDegree + 1], biased);
  for (int j = Table::kDegree; j >= 2; --j) {
    inner = fma(inner, d, lookup(c[j], biased));
  }
  lo = fma(d, inner, lookup(c[1], biased));
  return lookup(c[0], biased);
}

// The same in an interval already found (tables of one w share it).
template <typename Table, typename V>
UACCEL_ACTIVATION V polynomial_in_interval(V biased, V d) {
  static_assert(!Table::kSplitConstant);
  const auto& c = Table::kCoefficients;
  V sum = lookup(c[Table::kDegree], biased);
  for (int j = Table::kDegree - 1; j >= 0; --j) {
    sum = fma(sum, d, lookup(c[j], biased));
  }
  return sum;
}

template <typename Table, typename V>
UACCEL_ACTIVATION V polynomial_by_table(V a) {
  V d;
  const V biased = interval_of<Table>(a, d);
  return polynomial_in_interval<Table>(biased, d);
}
#endif

// How far a table reaches: its last interval's centre, where a rounds to its k, not to the next (which
// would index interval 0).
template <typename Table>
inline constexpr float kReach = (Table::kIntervals - 1) * Table::kWidth;

// The tables of this instruction set (AVX-512's elsewhere, where none is looked up).
#if defined(CPU_CAPABILITY_AVX2)
using SigmoidTableHere = SigmoidTableAvx2;
using GeluTableHere = GeluTableAvx2;
using GeluDerivativeTableHere = GeluDerivativeTableAvx2;
using TanhCdfTableHere = TanhCdfTableAvx2;
using GeluTanhTableHere = GeluTanhTableAvx2;
using GaussianTailTableHere = GaussianTailTableAvx2;
#else
using SigmoidTableHere = SigmoidTable;
using GeluTableHere = GeluTable;
using GeluDerivativeTableHere = GeluDerivativeTable;
using TanhCdfTableHere = TanhCdfTable;
using GeluTanhTableHere = GeluTanhTable;
using GaussianTailTableHere = GaussianTailTable;
#endif

// A distribution's lower tail F(-a) = hi + lo, a = |x| (or clamped where F(-a) no longer counts), from
// Table: x F(x) = max(x, 0) - a (hi + lo), as the forwards by table, and F(x) = hi + lo or 1 - (hi + lo),
// returned. F is the sigmoid (SiLU) or, for GELU's tanh approximation, sigmoid(v(x)).
#if defined(CPU_CAPABILITY_AVX512) || defined(CPU_CAPABILITY_AVX2)
template <typename Table, typename V>
UACCEL_ACTIVATION V cdf_by_table(V x, V a, V& tail, V& x_times_cdf) {
  V lo;
  const V hi = polynomial_by_table<Table>(a, lo);
  x_times_cdf = positive_part(x) - fma(a, hi, a * lo);
  tail = hi + lo;
  return select(sign_bit_set(x), tail, V(1.0f) - tail);
}
#endif

} // namespace uaccel::math
