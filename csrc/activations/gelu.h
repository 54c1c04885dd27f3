#pragma once
// GELU, x Phi(x) (approximate='none'), and its tanh approximation x sigmoid(v(x)), v(x) = 2 sqrt(2/pi)
// (x + 0.044715 x^3), with their derivatives: gelu<T>, gelu_derivative<T>, gelu_tanh<T> and
// gelu_tanh_derivative<T>, the variant for each path chosen in those four functions.
//   path                         'none' and its derivative                 'tanh' and its derivative
//   AVX-512 float vectors        tables of a Phi(-a) and Phi(-a) - a phi(a) tables of sigmoid(-v(a)) where a is
//                                where x >= -4.5; else the Gaussian tail,  within their reach; else from e^-|v|,
//                                e^(-a^2/2) R(a), R from GaussianTailTable compensated
//   AVX2 float vectors           the same from 8-interval tables (a <= 3.5) the same from 8-interval tables
//   float scalars (CUDA,         Phi in double (normal_cdf_float_in_double), from e^-|v|, compensated
//   strided)                     rounded once
//   double, DEFAULT's vectors    erfc's two parts (erfc_parts), one rounding from e^-|v|, compensated
// (a = |x|.) Domain: every x; below -12.9 ('none') and -9.95 ('tanh') the result may be flushed to 0.
// Bound (tests/test_expm1_accuracy.py; measured per path: docs/accuracy.md): float32 forwards within 2 ulp
// of float64 where the result is normal, derivatives within 2 ulp of their larger term ('none'; the DEFAULT set's
// vectors 4; 'tanh' 4.5); 16-bit types are computed in float.
#include "activation_math.h"

namespace uaccel::math {

// Phi(x), the standard normal distribution, as erfc(z) / 2 for z = -x / sqrt(2), in two parts: `tail`
// = erfc(z_hi) and the returned correction for z_lo, z = z_hi + z_lo (erfc's slope, -2 / sqrt(pi)
// exp(-z^2), times z_lo: z_hi's rounding would cost 2 z^2 ulps at the tail's end, 200 at z = 10);
// and in `gaussian`, exp(-x^2 / 2) = exp(-z^2), z^2's rounding error and z_lo's share carried (as a
// factor 1 - square_lo). Phi(x) = (tail + correction) / 2.
template <typename T, typename V>
UACCEL_ACTIVATION V erfc_parts(V x, V& tail, V& gaussian) {
  using C = ActivationConstants<T>;
  const V clamped = clamp_to_limit<T>(x);  // no inf - inf in z_lo
  const V z = clamped * V(-C::kRsqrt2Hi);
  const V z_lo = fms(clamped, V(-C::kRsqrt2Hi), z) - clamped * V(C::kRsqrt2Lo);
  const V square = z * z, square_lo = fma(z + z, z_lo, fms(z, z, square));  // z^2 = square + square_lo
  const V e = exp_nonpositive(neg(square));
  gaussian = fnma(e, square_lo, e);
  tail = erfc(z);
  return V(T(-kTwoOverSqrtPi)) * gaussian * z_lo;
}

// Phi(x) for a double or double lanes, to float's accuracy (GELU's float math is evaluated in double:
// `widened`), from Phi(-|x|) = erfcx(|x| / sqrt(2)) e^(-x^2 / 2) / 2, with `gaussian` = e^(-x^2 / 2).
// erfcx(a) (|x| + K) / 2 is a polynomial in t = (|x| - K) / (|x| + K), Shepherd and Laframboise's
// variable, fitted (tools/fit_polynomials.py) to a relative 4.9e-9 for |x| <= 16; past 16 Phi(-|x|) is below
// float's range. From x clamped to 40, where gaussian is 0, -inf gives NaN (-inf * 0) and +inf inf.
template <typename V>
UACCEL_ACTIVATION V normal_cdf_float_in_double(V x, V& gaussian) {
  constexpr double kK = 4.25;
  constexpr double kR[] = {0x1.84e44ap-1,  -0x1.401104p-1,  0x1.ac43dap-2, -0x1.c39d42p-3,  0x1.5d467ap-4,
                           -0x1.3d59c4p-6, -0x1.8b9f4ep-11, 0x1.1ec3eep-9, -0x1.74d062p-12, -0x1.e1c954p-13};
  const V magnitude = neg(neg_abs(clamp_to_limit<double>(x)));
  gaussian = exp_nonpositive_float_in_double(magnitude * magnitude * V(-0.5));
  const V r = reciprocal_float_in_double(magnitude + V(kK));
  const V t = fms(magnitude + magnitude, r, V(1.0));
  V polynomial = V(kR[9]);
  for (int k = 8; k >= 0; --k) {
    polynomial = fma(polynomial, t, V(kR[k]));
  }
  const V tail = r * polynomial * gaussian;
  return select(less(x, V(0.0)), tail, V(1.0) - tail);
}

// v = 2 sqrt(2/pi) (x + 0.044715 x^3), the argument of GELU's tanh approximation doubled
// (0.5 (1 + tanh(v / 2)) = sigmoid(v)), as v_hi + v_lo from error-free products and sums (x clamped
// to where sigmoid(v) is 0 or 1, so nothing overflows).
template <typename T, typename V>
UACCEL_ACTIVATION V tanh_exponent(V x, V& v_lo) {
  using C = ActivationConstants<T>;
  x = clamp_to_limit<T>(x);
  const V square = x * x, square_lo = fms(x, x, square);
  const V t = V(C::kKappaHi) * square;
  const V t_lo = fms(V(C::kKappaHi), square, t) + fma(V(C::kKappaHi), square_lo, V(C::kKappaLo) * square);
  const V w = V(T(1)) + t, carried = w - V(T(1));  // w + w_lo = 1 + t + t_lo (Knuth's two-sum)
  const V w_lo = ((V(T(1)) - (w - carried)) + (t - carried)) + t_lo;
  const V a = V(C::kBeta2Hi) * x, a_lo = fms(V(C::kBeta2Hi), x, a) + V(C::kBeta2Lo) * x;
  const V v = a * w;
  v_lo = fms(a, w, v) + fma(a, w_lo, a_lo * w);
  return v;
}

// The derivative of GELU's tanh approximation x s, s = sigmoid(v(x)): s + x s (1 - s) v'(x), v'(x) = 2
// sqrt(2/pi) (1 + 3 kappa x^2) = 2 sqrt(2/pi) + kSlopeSquare x^2, from q = sigmoid(-|v(x)|) (s = q or 1 - q:
// s (1 - s) = q (1 - q), no cancellation) and x clamped where the second term is 0 in T; +-inf give NaN
// (inf * 0), as in ATen.
template <typename T, typename V>
UACCEL_ACTIVATION V gelu_tanh_derivative_of_tail(V x, V clamped, V s, V q) {
  using C = ActivationConstants<T>;
  const V slope = fma(V(C::kSlopeSquare), clamped * clamped, V(C::kBeta2Hi));
  return fma(clamped * fnma(q, q, q), slope, fma(x, V(T(0)), s));
}

// GELU for float vectors by table, where kByAnyTable and gelu_table_covers<Table>(x): t = a Phi(-a)
// for a = |x| (for the tanh approximation, Phi(-a) = sigmoid(-v(a))) from the table (the product by a
// in the fit), then x Phi(x) = max(x, 0) - t, as SiLU's. AVX-512's tables reach a = 5.8 ('tanh') and
// 7.75 ('none'), where a is clamped (+inf gives inf): past there, t < 2e-8 leaves a unchanged and the
// derivatives differ from 1 by less than 4e-9. Below kGeluByTableFrom the fits' relative error grows.
// AVX2's, 8 intervals, reach |x| <= 3.5: a vector of 8 floats from N(0, 1) leaves them once in about
// 270. Elsewhere, and for NaN, gelu_by_gaussian_tail.
inline constexpr float kGeluByTableFrom = -4.5f;
#if defined(CPU_CAPABILITY_AVX512)
template <typename Table, typename V>
UACCEL_ACTIVATION bool gelu_table_covers(V x) {
  return all_at_least(x, kGeluByTableFrom);
}
template <typename Table, typename V>
UACCEL_ACTIVATION V gelu_table_argument(V x) {
  return at::vec::clamp_max(x.abs(), V(kReach<Table>));
}
#elif defined(CPU_CAPABILITY_AVX2)
template <typename Table, typename V>
UACCEL_ACTIVATION bool gelu_table_covers(V x) {
  return all_at_most(x.abs(), kReach<Table>);
}
template <typename Table, typename V>
UACCEL_ACTIVATION V gelu_table_argument(V x) {
  return x.abs();
}
#endif
#if defined(CPU_CAPABILITY_AVX512) || defined(CPU_CAPABILITY_AVX2)
template <typename Table, typename V>
UACCEL_ACTIVATION V gelu_by_table(V x) {
  return positive_part(x) - polynomial_by_table<Table>(gelu_table_argument<Table>(x));
}
#endif

#if defined(CPU_CAPABILITY_AVX512) || defined(CPU_CAPABILITY_AVX2)
// GELU's derivative, Phi(x) + x phi(x), and GELU, each from its table in the interval of a = |x| that
// both share (one w): the derivative at -a, D(a) = Phi(-a) - a phi(a), fitted to its larger term (they
// cancel where it crosses 0), gives D(a) where x < 0 and 1 - D(a) elsewhere: one polynomial, no exp.
// +inf passes AVX-512's test of the table's reach: x * 0 makes its derivative NaN (inf * 0), as ATen's.
template <typename V>
UACCEL_ACTIVATION V gelu_derivative_by_table(V x, V& value) {
  static_assert(GeluTableHere::kWidth == GeluDerivativeTableHere::kWidth);
  V d;
  const V biased = interval_of<GeluTableHere>(gelu_table_argument<GeluTableHere>(x), d);
  value = positive_part(x) - polynomial_in_interval<GeluTableHere>(biased, d);
  const V at_minus = polynomial_in_interval<GeluDerivativeTableHere>(biased, d);
  const V derivative = select(sign_bit_set(x), at_minus, V(1.0f) - at_minus);
#if defined(CPU_CAPABILITY_AVX512)
  return fma(x, V(0.0f), derivative);
#else
  return derivative;
#endif
}

// GELU's tanh approximation x s, s = sigmoid(v(x)), and its derivative (gelu_tanh_derivative_of_tail),
// from the table of q = sigmoid(-v(a)), x clamped as a is (past its reach, q (1 - q) a v'(a) < 4e-9).
template <typename V>
UACCEL_ACTIVATION V gelu_tanh_derivative_by_table(V x, V& value) {
  V q;
  const V s = cdf_by_table<TanhCdfTableHere>(x, gelu_table_argument<TanhCdfTableHere>(x), q, value);
  return gelu_tanh_derivative_of_tail<float>(x, at::vec::clamp_max(x, V(kReach<TanhCdfTableHere>)), s, q);
}
#endif

// GELU's float vectors with a lane beyond its tables (gelu_table_covers), both directions: Phi(-a) =
// e^(-a^2/2) R(a) for a = |x|, R(a) = e^(a^2/2) Phi(-a) = erfcx(a / sqrt(2)) / 2 from GaussianTailTable
// (1/2 at a = 0, then slowly falling: the Gaussian decay that limits a table's reach is left to exp). a is
// clamped to kGaussianTailTo, past which a Phi(-a) rounds to 0, and where x > 0 to kGaussianTailFromAbove (past
// it x Phi(x) rounds to x and the derivative to 1: no subnormal products); exp's argument -a^2/2 is carried as two
// floats (a^2's rounding error), its result scaled by 2^kTailScaleBits so that 2^n stays normal down there
// and the one multiplication that scales it back rounds once into the subnormals.
#if defined(CPU_CAPABILITY_AVX512) || defined(CPU_CAPABILITY_AVX2)
inline constexpr float kGaussianTailTo = 14.5f, kGaussianTailFromAbove = 6.0f;
inline constexpr int kTailScaleBits = 32;
inline constexpr float kTailUnscale = 0x1p-32f;
static_assert(
    kGaussianTailTo < kReach<GaussianTailTableHere> + GaussianTailTableHere::kWidth / 2);  // in the last interval

template <typename V>
struct GaussianTail {
  V a;        // |x| clamped
  V e, e_lo;  // 2^kTailScaleBits e^(-a^2/2)
  V r, r_lo;  // R(a) = e^(a^2/2) Phi(-a)
};
template <typename V>
UACCEL_ACTIVATION GaussianTail<V> gaussian_tail(V x) {
  GaussianTail<V> g;
  g.a = at::vec::clamp_max(
      at::vec::clamp_min(x.neg(), at::vec::clamp_max(x, V(kGaussianTailFromAbove))), V(kGaussianTailTo));
  const V square = g.a * g.a, square_lo = fms(g.a, g.a, square);
  V lo;
  g.e = scaled_exp_in_range<kTailScaleBits>(square * V(-0.5f), lo);
  g.e_lo = fma(g.e, square_lo * V(-0.5f), lo);  // e^(-(s + s_lo)/2) = e^(-s/2) (1 - s_lo/2)
  g.r = polynomial_by_table<GaussianTailTableHere>(g.a, g.r_lo);
  return g;
}

// x Phi(x) = max(x, 0) - a e R: the products' low parts in one correction (e's; R's, up to a tenth of R where
// the polynomial's d terms are large; their own roundings), so the result is off by exp's polynomial and one
// rounding (two where x > 0, whose t < x/2 then). -inf gives
// NaN (-inf * 0), as the table's path, +inf inf.
template <typename V>
UACCEL_ACTIVATION V gelu_of_tail(V x, const GaussianTail<V>& g) {
  const V p = g.e * g.r, p_lo = fma(g.e, g.r_lo, fma(g.e_lo, g.r + g.r_lo, fms(g.e, g.r, p)));
  const V t = g.a * p, t_lo = fma(g.a, p_lo, fms(g.a, p, t));
  const V value = positive_part(x) - (t + t_lo) * V(kTailUnscale);
  return fma(at::vec::clamp_max(x, V(0.0f)), V(0.0f), value);
}

template <typename V>
UACCEL_ACTIVATION std::array<V, 1> gelu_by_gaussian_tail(V x) {
  return {gelu_of_tail(x, gaussian_tail(x))};
}

// {Phi(x) + x phi(x), x Phi(x)}: at -a the derivative is e m, m = R - a / sqrt(2 pi), the two terms cancelling
// near a = 0.75: m as m_hi + m_lo (the product by a exact, the difference by Knuth's two-sum, 1 / sqrt(2 pi)'s
// rounding and R's low part carried), so the result is off by exp's polynomial and one rounding of the larger
// term; 1 minus it at a. +-inf give NaN (inf * 0), as ATen's.
template <typename V>
UACCEL_ACTIVATION std::array<V, 2> gelu_derivative_by_gaussian_tail(V x) {
  constexpr float kRsqrt2PiHi = 0x1.988454p-2f, kRsqrt2PiLo = -0x1.857936p-27f;
  const GaussianTail<V> g = gaussian_tail(x);
  const V p = g.a * V(kRsqrt2PiHi), p_lo = fms(g.a, V(kRsqrt2PiHi), p);
  const V m = g.r - p, carried = m - g.r;
  const V m_lo = ((g.r - (m - carried)) - (p + carried)) + (g.r_lo - fma(g.a, V(kRsqrt2PiLo), p_lo));
  const V at_minus = fma(g.e, m, fma(g.e, m_lo, g.e_lo * (m + m_lo))) * V(kTailUnscale);
  const V derivative = select(sign_bit_set(x), at_minus, V(1.0f) - at_minus);
  return {fma(x, V(0.0f), derivative), gelu_of_tail(x, g)};
}
#endif

// GELU's float math in double, rounded once: {x Phi(x)} and {Phi(x) + x phi(x), x Phi(x)}. On CUDA
// (sm_90) 32 double operations an element, where erfc in double took 63.
template <typename V>
UACCEL_ACTIVATION std::array<V, 1> gelu_widened(V x) {
  return widened<1>(x, [](auto x) {
    decltype(x) gaussian;
    return std::array{x * normal_cdf_float_in_double(x, gaussian)};
  });
}
template <typename V>
UACCEL_ACTIVATION std::array<V, 2> gelu_derivative_widened(V x) {
  return widened<2>(x, [](auto x) {
    decltype(x) gaussian;
    const auto cdf = normal_cdf_float_in_double(x, gaussian);
    return std::array{fma(x * decltype(x)(kRsqrt2Pi), gaussian, cdf), x * cdf};
  });
}

// GELU, x Phi(x). Float: by table where kByAnyTable (its Gaussian tail beyond), else widened (scalars).
// Otherwise (double; the DEFAULT set's float vectors) x/2 (tail + correction): one rounding after erfc's
// (fma), so float32 is within 2 ulp.
template <typename T, typename V>
UACCEL_ACTIVATION V gelu(V x) {
  if constexpr (kByAnyTable<V>) {
    return C10_LIKELY(gelu_table_covers<GeluTableHere>(x)) ? gelu_by_table<GeluTableHere>(x)
                                                           : gelu_by_gaussian_tail(x)[0];
  } else if constexpr (kWidened<V>) {
    return gelu_widened(x)[0];
  } else {
    V tail, gaussian;
    const V correction = erfc_parts<T>(x, tail, gaussian);
    // The correction is 0 past kLimit: times x clamped, so that +inf gives inf, not inf * 0.
    return fma(x * V(T(0.5)), tail, clamp_to_limit<T>(x) * V(T(0.5)) * correction);
  }
}

// Phi(x) + x phi(x), phi(x) = exp(-x^2 / 2) / sqrt(2 pi). +-inf give NaN (inf * 0), as in ATen.
template <typename T, typename V>
UACCEL_ACTIVATION V gelu_derivative(V x, V& value) {
  if constexpr (kByAnyTable<V> || kWidened<V>) {
    if constexpr (kByAnyTable<V>) {
      if (C10_LIKELY(gelu_table_covers<GeluDerivativeTableHere>(x))) {
        return gelu_derivative_by_table(x, value);
      }
    }
    const auto [derivative, gelu] = [x] {
      if constexpr (kByAnyTable<V>) {
        return gelu_derivative_by_gaussian_tail(x);
      } else {
        return gelu_derivative_widened(x);
      }
    }();
    value = gelu;
    return derivative;
  } else {
    V tail, gaussian;
    const V correction = erfc_parts<T>(x, tail, gaussian);
    const V cdf = V(T(0.5)) * (tail + correction);
    value = x * cdf;
    return fma(x * V(T(kRsqrt2Pi)), gaussian, cdf);
  }
}

// GELU with the tanh approximation, x sigmoid(v), v = tanh_exponent(x): by table where kByAnyTable and
// the table covers x (as GELU's), else from exp(-|v|), compensated.
template <typename T, typename V>
UACCEL_ACTIVATION V gelu_tanh(V x) {
  const auto compensated = [](V x) {
    V v_lo, e_lo;
    const V v = tanh_exponent<T>(x, v_lo);
    const V e = exp_neg_abs<T>(v, v_lo, e_lo);
    return times_sigmoid<T, true>(x, e, e_lo);
  };
  if constexpr (kByAnyTable<V>) {
    return C10_LIKELY(gelu_table_covers<GeluTanhTableHere>(x)) ? gelu_by_table<GeluTanhTableHere>(x) : compensated(x);
  } else {
    return compensated(x);
  }
}

// GELU 'tanh''s derivative and value from exp: q = e / (1 + e), e = exp(-|v|) + e_lo (v's rounding error,
// which |v| times would be e's relative error), compensated (times_sigmoid of -1 gives -q), from x
// clamped as v is.
template <typename T, typename V>
UACCEL_ACTIVATION V gelu_tanh_derivative_from_exp(V x, V& value) {
  V v_lo, e_lo;
  const V v = tanh_exponent<T>(x, v_lo);
  const V e = exp_neg_abs<T>(v, v_lo, e_lo);
  const V q = neg(times_sigmoid<T, true>(V(T(-1)), e, e_lo));
  const V s = select(less(x, V(T(0))), q, V(T(1)) - q);
  value = x * s;
  return gelu_tanh_derivative_of_tail<T>(x, clamp_to_limit<T>(x), s, q);
}

// By table where kByAnyTable and the table covers x, else from exp.
template <typename T, typename V>
UACCEL_ACTIVATION V gelu_tanh_derivative(V x, V& value) {
  if constexpr (kByAnyTable<V>) {
    if (C10_LIKELY(gelu_table_covers<TanhCdfTableHere>(x))) {
      return gelu_tanh_derivative_by_table(x, value);
    }
  }
  return gelu_tanh_derivative_from_exp<T>(x, value);
}

} // namespace uaccel::math
