#pragma once
// Vector math on at::vec::Vectorized that ops share. Include it only from *_isa.cpp files: like
// ATen's vec code it lives in the inline namespace CPU_CAPABILITY, one copy per instruction set.
//
// exp and expm1 on the negative side (x <= 0), at about 12 operations per vector:
//   x = n ln2 + t, |t| <= ln2/2: adding kMagic to x / ln2 rounds it to n and leaves n + bias in the
//     low bits, so 2^n is those bits shifted into the exponent field (no integer conversion);
//     t = x - n ln2 in one fma for float's expm1 (|n| <= 25: ln2 rounded to float is close enough),
//     in two (ln2 split, n * kLn2Hi exact) for exp (|n| up to 126) and for double;
//   e^t - 1 = t + t^2 q(t), q in pairs (Estrin's scheme): for float a degree-4 minimax fit (relative error 1.7e-8, a
//     third of an ulp), for double Taylor's to degree 13;
//   expm1(x) = 2^n (e^t - 1) + (2^n - 1) and exp(x) = 2^n (e^t - 1) + 2^n, one fma each; a scale
//     (ELU's alpha, a gradient) folds into them: nothing cancels near 0, where n = 0 and the result
//     is t's own expm1 in full relative precision.
// One polynomial for every lane (no blend of two methods). Accuracy (float32, every x <= 0): `make
// expm1-sweep`; a dense sample runs in CI (tests/test_expm1_accuracy.py).
#include <ATen/cpu/vec/vec.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <limits>
#include <tuple>
#include <type_traits>

#include <uaccel/math/scalar_math.h>

namespace uaccel::cpu {
inline namespace CPU_CAPABILITY {
namespace detail {

using math::detail::ExpTraits;

// bits << k in every lane, k a constant: an immediate shift, so no register holds the count.
template <int k, typename I>
at::vec::Vectorized<I> shift_left(at::vec::Vectorized<I> bits) {
#if defined(CPU_CAPABILITY_AVX512)
  if constexpr (sizeof(I) == 4) {
    return _mm512_slli_epi32(bits, k);
  } else {
    return _mm512_slli_epi64(bits, k);
  }
#elif defined(CPU_CAPABILITY_AVX2)
  if constexpr (sizeof(I) == 4) {
    return _mm256_slli_epi32(bits, k);
  } else {
    return _mm256_slli_epi64(bits, k);
  }
#else
  return bits << at::vec::Vectorized<I>(k);
#endif
}

// x = n ln2 + t for x in [Traits::kExpVanishes, 0] (or NaN, which stays NaN in e^t - 1): returns
// reconstruct(2^n, e^t - 1). A callback, not a returned pair: GCC kept a dead copy of a returned
// struct of vectors on the stack, one store more per vector.
template <typename T, bool kOneStep, typename Traits = ExpTraits<T>, typename Reconstruct>
at::vec::Vectorized<T> exp_parts(at::vec::Vectorized<T> x, const Reconstruct& reconstruct) {
  using Vec = at::vec::Vectorized<T>;
  const Vec biased = at::vec::fmadd(x, Vec(Traits::kLog2e), Vec(Traits::kMagic));
  const Vec two_to_n = at::vec::cast<T>(shift_left<Traits::kMantissaBits>(at::vec::cast<typename Traits::Int>(biased)));
  const Vec n = biased - Vec(Traits::kMagic);
  const Vec t = kOneStep ? at::vec::fmadd(n, Vec(-Traits::kLn2), x)
                         : at::vec::fmadd(n, Vec(-Traits::kLn2Lo), at::vec::fmadd(n, Vec(-Traits::kLn2Hi), x));
  // q(t) by Horner's rule in t^2 over coefficient pairs (c_k + c_k+1 t): the pairs are independent,
  // so the chain of dependent operations is half Horner's in t.
  const Vec t2 = t * t;
  constexpr size_t kTerms = Traits::kQ.size();
  const auto pair = [&](size_t k) {
    return k + 1 < kTerms ? at::vec::fmadd(Vec(Traits::kQ[k + 1]), t, Vec(Traits::kQ[k])) : Vec(Traits::kQ[k]);
  };
  Vec q = pair((kTerms - 1) / 2 * 2);
  for (size_t k = (kTerms - 1) / 2 * 2; k >= 2; k -= 2) {
    q = at::vec::fmadd(q, t2, pair(k - 2));
  }
  return reconstruct(two_to_n, at::vec::fmadd(q, t2, t));
}

} // namespace detail

// a * b + c rounded once on every instruction set, as compensated arithmetic needs:
// on the DEFAULT one at::vec::fmadd is a * b + c, rounded twice.
template <typename T>
at::vec::Vectorized<T> fma(at::vec::Vectorized<T> a, at::vec::Vectorized<T> b, at::vec::Vectorized<T> c) {
#if defined(CPU_CAPABILITY_AVX512) || defined(CPU_CAPABILITY_AVX2)
  return at::vec::fmadd(a, b, c);
#else
  constexpr auto kLanes = at::vec::Vectorized<T>::size();
  T x[kLanes], y[kLanes], z[kLanes];
  a.store(x);
  b.store(y);
  c.store(z);
  for (int i = 0; i < kLanes; ++i) {
    x[i] = std::fma(x[i], y[i], z[i]);
  }
  return at::vec::Vectorized<T>::loadu(x);
#endif
}

// Whether no lane has its sign bit set (each is +0, positive, or a NaN without a sign): one movemask.
template <typename T>
bool no_sign_bit(at::vec::Vectorized<T> x) {
#if defined(CPU_CAPABILITY_AVX512)
  if constexpr (sizeof(T) == 4) {
    return _mm512_movepi32_mask(_mm512_castps_si512(x)) == 0;
  } else {
    return _mm512_movepi64_mask(_mm512_castpd_si512(x)) == 0;
  }
#elif defined(CPU_CAPABILITY_AVX2)
  if constexpr (sizeof(T) == 4) {
    return _mm256_movemask_ps(x) == 0;
  } else {
    return _mm256_movemask_pd(x) == 0;
  }
#else
  T lanes[at::vec::Vectorized<T>::size()];
  x.store(lanes);
  return std::none_of(std::begin(lanes), std::end(lanes), [](T lane) { return std::signbit(lane); });
#endif
}

// scale * expm1(x) for x <= 0 (NaN stays NaN). Positive lanes give garbage: callers blend them out.
template <typename T>
at::vec::Vectorized<T> scaled_expm1_nonpositive(at::vec::Vectorized<T> x, at::vec::Vectorized<T> scale) {
  using Traits = detail::ExpTraits<T>;
  // clamp_min keeps NaN (and, unlike maximum, costs one instruction).
  const auto clamped = at::vec::clamp_min(x, at::vec::Vectorized<T>(Traits::kExpm1Lowest));
  return detail::exp_parts<T, Traits::kOneStepExpm1>(clamped, [&](auto s, auto r) {
    return at::vec::fmadd(scale * s, r, at::vec::fmsub(scale, s, scale));
  });
}

// scale * exp(x) for x <= 0 (NaN stays NaN). x is clamped where n reaches the bias's lowest: there the
// shift makes 2^n 0 (an empty exponent field), so the result is 0 with no blend, from x < -87.68 on
// (float; double: -708.75). Above, 2^n and scale * 2^n are normal unless the scale is below 1: the
// product (a gradient) keeps its precision even where exp(x) alone would be subnormal.
template <typename T>
at::vec::Vectorized<T> scaled_exp_nonpositive(at::vec::Vectorized<T> x, at::vec::Vectorized<T> scale) {
  using Vec = at::vec::Vectorized<T>;
  return detail::exp_parts<T, false>(at::vec::clamp_min(x, Vec(detail::ExpTraits<T>::kExpVanishes)), [&](Vec s, Vec r) {
    const Vec scaled = scale * s;
    return at::vec::fmadd(scaled, r, scaled);
  });
}

// exp(x) for x from Traits::kExpVanishes up to where 2^n stays finite (float: 88.0; NaN stays NaN).
template <typename T>
at::vec::Vectorized<T> exp_in_range(at::vec::Vectorized<T> x) {
  using Vec = at::vec::Vectorized<T>;
  return detail::exp_parts<T, false>(x, [](Vec s, Vec r) { return at::vec::fmadd(s, r, s); });
}

// 1 + exp(x) rounded once (the sum folded into exp's last fma), for x from Traits::kExpVanishes, where
// 2^n is 0, up to where 2^n + 1 is exact (float: n <= 23, x <= 16.25). NaN stays NaN.
template <typename T>
at::vec::Vectorized<T> one_plus_exp(at::vec::Vectorized<T> x) {
  using Vec = at::vec::Vectorized<T>;
  return detail::exp_parts<T, false>(x, [](Vec s, Vec r) { return at::vec::fmadd(s, r, s + Vec(T(1))); });
}

// exp(x) for x <= 0 (NaN stays NaN): scaled_exp_nonpositive's clamp, so 0 from x < -87.68 on (float;
// double: -708.75); above, down to -87.34, the result may be subnormal, as exp(x) is.
template <typename T>
at::vec::Vectorized<T> exp_nonpositive(at::vec::Vectorized<T> x) {
  return exp_in_range(at::vec::clamp_min(x, at::vec::Vectorized<T>(detail::ExpTraits<T>::kExpVanishes)));
}

// The same as hi + lo, lo being hi's rounding error (2^n (1 + r) = hi + lo; 2^n - hi is exact, the two
// within a factor of 2): compensated arithmetic on exp(x) then sees only the polynomial's error.
template <typename T>
at::vec::Vectorized<T> exp_nonpositive(at::vec::Vectorized<T> x, at::vec::Vectorized<T>& lo) {
  using Vec = at::vec::Vectorized<T>;
  return detail::exp_parts<T, false>(at::vec::clamp_min(x, Vec(detail::ExpTraits<T>::kExpVanishes)), [&](Vec s, Vec r) {
    const Vec e = at::vec::fmadd(s, r, s);
    lo = fma(s, r, s - e);
    return e;
  });
}

// 1/x for normal x to a relative error below 2^-kBits: float's from the instruction set's estimate
// (AVX-512's rcp14: 2^-14; AVX2's rcp: 1.5 * 2^-12) and Newton's steps, each squaring the error, where
// a division costs as much as the rest of an activation; double's and the DEFAULT set's by division.
template <int kBits, typename T>
at::vec::Vectorized<T> reciprocal_to(at::vec::Vectorized<T> x) {
  using Vec = at::vec::Vectorized<T>;
#if defined(CPU_CAPABILITY_AVX512) || defined(CPU_CAPABILITY_AVX2)
  if constexpr (std::is_same_v<T, float>) {
#if defined(CPU_CAPABILITY_AVX512)
    Vec r = _mm512_rcp14_ps(x);
    constexpr int kSeedBits = 14;
#else
    Vec r = _mm256_rcp_ps(x);
    constexpr int kSeedBits = 11;
#endif
    for (int bits = kSeedBits; bits < kBits; bits *= 2) {
      r = at::vec::fmadd(r, at::vec::fnmadd(x, r, Vec(1.0f)), r);
    }
    return r;
  }
#endif
  return x.reciprocal();
}

} // namespace CPU_CAPABILITY
} // namespace uaccel::cpu

namespace uaccel::math {
inline namespace CPU_CAPABILITY {

// The vector forms of scalar_math.h's functions, so that an op's math can be written once for both.
// Comparisons give lane masks as the instruction set holds them: on AVX-512 a mask register (ATen's
// operators give a vector of all-ones lanes, which blendv turns back into a mask register: two
// instructions more a select), elsewhere the vector.
#if defined(CPU_CAPABILITY_AVX512)
template <typename T>
struct LaneMask {
  std::conditional_t<sizeof(T) == 4, __mmask16, __mmask8> bits;
};
template <int kPredicate, typename T>
LaneMask<T> compare(at::vec::Vectorized<T> a, at::vec::Vectorized<T> b) {
  if constexpr (sizeof(T) == 4) {
    return {_mm512_cmp_ps_mask(a, b, kPredicate)};
  } else {
    return {_mm512_cmp_pd_mask(a, b, kPredicate)};
  }
}
template <typename T>
LaneMask<T> less(at::vec::Vectorized<T> a, at::vec::Vectorized<T> b) {
  return compare<_CMP_LT_OQ>(a, b);
}
template <typename T>
LaneMask<T> less_equal(at::vec::Vectorized<T> a, at::vec::Vectorized<T> b) {
  return compare<_CMP_LE_OQ>(a, b);
}
template <typename T>
LaneMask<T> equal(at::vec::Vectorized<T> a, at::vec::Vectorized<T> b) {
  return compare<_CMP_EQ_OQ>(a, b);
}
template <typename T>
bool any(LaneMask<T> mask) {
  return mask.bits != 0;
}
template <typename T>
at::vec::Vectorized<T> select(LaneMask<T> mask, at::vec::Vectorized<T> if_true, at::vec::Vectorized<T> if_false) {
  if constexpr (sizeof(T) == 4) {
    return _mm512_mask_blend_ps(mask.bits, if_false, if_true);
  } else {
    return _mm512_mask_blend_pd(mask.bits, if_false, if_true);
  }
}
#else
template <typename T>
at::vec::Vectorized<T> less(at::vec::Vectorized<T> a, at::vec::Vectorized<T> b) {
  return a < b;
}
template <typename T>
at::vec::Vectorized<T> less_equal(at::vec::Vectorized<T> a, at::vec::Vectorized<T> b) {
  return a <= b;
}
template <typename T>
at::vec::Vectorized<T> equal(at::vec::Vectorized<T> a, at::vec::Vectorized<T> b) {
  return a == b;
}
template <typename T>
bool any(at::vec::Vectorized<T> mask) {  // zero_mask: a bit per lane equal to 0 (false)
  return mask.zero_mask() != (1 << at::vec::Vectorized<T>::size()) - 1;
}
template <typename T>
at::vec::Vectorized<T> select(
    at::vec::Vectorized<T> mask, at::vec::Vectorized<T> if_true, at::vec::Vectorized<T> if_false) {
  return at::vec::Vectorized<T>::blendv(if_false, if_true, mask);
}
#endif
template <typename T>
at::vec::Vectorized<T> neg(at::vec::Vectorized<T> x) {
  return x.neg();
}
template <typename T>
at::vec::Vectorized<T> neg_abs(at::vec::Vectorized<T> x) {
  return x | at::vec::Vectorized<T>(T(-0.0));  // the sign bit set
}
template <typename T>
at::vec::Vectorized<T> exp_nonpositive(at::vec::Vectorized<T> x) {
  return cpu::exp_nonpositive(x);
}
template <typename T>
at::vec::Vectorized<T> scaled_exp_nonpositive(at::vec::Vectorized<T> x, at::vec::Vectorized<T> scale) {
  return cpu::scaled_exp_nonpositive(x, scale);
}
template <typename T>
at::vec::Vectorized<T> scaled_expm1_nonpositive(at::vec::Vectorized<T> x, at::vec::Vectorized<T> scale) {
  return cpu::scaled_expm1_nonpositive(x, scale);
}
template <typename T>
bool no_sign_bit(at::vec::Vectorized<T> x) {
  return cpu::no_sign_bit(x);
}
template <typename T>
at::vec::Vectorized<T> exp_nonpositive(at::vec::Vectorized<T> x, at::vec::Vectorized<T>& lo) {
  return cpu::exp_nonpositive(x, lo);
}
template <typename T>
at::vec::Vectorized<T> exp_in_range(at::vec::Vectorized<T> x) {
  return cpu::exp_in_range(x);
}
template <typename T>
at::vec::Vectorized<T> one_plus_exp(at::vec::Vectorized<T> x) {
  return cpu::one_plus_exp(x);
}
template <typename T>
at::vec::Vectorized<T> fma(at::vec::Vectorized<T> a, at::vec::Vectorized<T> b, at::vec::Vectorized<T> c) {
  return cpu::fma(a, b, c);
}
template <typename T>
at::vec::Vectorized<T> fms(at::vec::Vectorized<T> a, at::vec::Vectorized<T> b, at::vec::Vectorized<T> c) {
#if defined(CPU_CAPABILITY_AVX512) || defined(CPU_CAPABILITY_AVX2)
  return at::vec::fmsub(a, b, c);
#else
  return cpu::fma(a, b, c.neg());
#endif
}
template <typename T>
at::vec::Vectorized<T> fnma(at::vec::Vectorized<T> a, at::vec::Vectorized<T> b, at::vec::Vectorized<T> c) {
#if defined(CPU_CAPABILITY_AVX512) || defined(CPU_CAPABILITY_AVX2)
  return at::vec::fnmadd(a, b, c);
#else
  return cpu::fma(a.neg(), b, c);
#endif
}
template <typename T>
at::vec::Vectorized<T> reciprocal(at::vec::Vectorized<T> x) {
  return cpu::reciprocal_to<24>(x);  // within an ulp: half of division's, and the steps' rounding
}
template <typename T>
at::vec::Vectorized<T> reciprocal_estimate(at::vec::Vectorized<T> x) {
  return cpu::reciprocal_to<14>(x);
}
// The vocabulary's vector forms (scalar_math.h's for scalars). On AVX2 and AVX-512 Sleef's functions
// (1 ulp; erfc 1.5), which ATen's vectors call; on the DEFAULT set the scalar ones per lane. Qualified
// calls (math::clamp) reach these; unqualified ones may also find at::vec's by argument-dependent lookup.
template <typename T>
at::vec::Vectorized<T> exp(at::vec::Vectorized<T> x) {
  return x.exp();
}
template <typename T>
at::vec::Vectorized<T> expm1(at::vec::Vectorized<T> x) {
  return x.expm1();
}
template <typename T>
at::vec::Vectorized<T> log1p(at::vec::Vectorized<T> x) {
  return x.log1p();
}
template <typename T>
at::vec::Vectorized<T> tanh(at::vec::Vectorized<T> x) {
  return x.tanh();
}
// ATen's float vectors compute erf by a fit to an absolute error (relative ones near 0 of up to 1%):
// Sleef's, as for double.
template <typename T>
at::vec::Vectorized<T> erf(at::vec::Vectorized<T> x) {
#if defined(CPU_CAPABILITY_AVX512)
  if constexpr (std::is_same_v<T, float>) {
    return Sleef_erff16_u10(x);
  }
#elif defined(CPU_CAPABILITY_AVX2)
  if constexpr (std::is_same_v<T, float>) {
    return Sleef_erff8_u10(x);
  }
#endif
  return x.erf();
}
template <typename T>
at::vec::Vectorized<T> erfc(at::vec::Vectorized<T> x) {
#if defined(CPU_CAPABILITY_AVX512) || defined(CPU_CAPABILITY_AVX2)
  return x.erfc();
#else
  return x.map([](T lane) { return math::erfc(lane); });
#endif
}
template <typename T>
at::vec::Vectorized<T> abs(at::vec::Vectorized<T> x) {
  return x.abs();
}
template <typename T>
at::vec::Vectorized<T> min(at::vec::Vectorized<T> a, at::vec::Vectorized<T> b) {
  return at::vec::minimum(a, b);
}
template <typename T>
at::vec::Vectorized<T> max(at::vec::Vectorized<T> a, at::vec::Vectorized<T> b) {
  return at::vec::maximum(a, b);
}
template <typename T>
at::vec::Vectorized<T> clamp(at::vec::Vectorized<T> x, at::vec::Vectorized<T> low, at::vec::Vectorized<T> high) {
  return at::vec::clamp(x, low, high);
}
template <typename T>
at::vec::Vectorized<T> sigmoid(at::vec::Vectorized<T> x) {
  const auto e = math::exp(neg_abs(x)), one = at::vec::Vectorized<T>(T(1));
  return select(less(x, at::vec::Vectorized<T>(T(0))), e, one) / (one + e);
}

// The values lanes of float hold once stored as T (ties to even, as c10's conversions; NaN stays NaN),
// kept in float: bfloat16's by rounding the float's bits in place, with no packing to 16-bit lanes and back.
template <typename T, typename M>
at::vec::Vectorized<M> rounded_as(at::vec::Vectorized<M> v) {
  if constexpr (std::is_same_v<T, M>) {
    return v;
  } else if constexpr (std::is_same_v<T, at::BFloat16>) {
#if defined(CPU_CAPABILITY_AVX512)
    const __m512i bits = _mm512_castps_si512(v);
    const __m512i lsb = _mm512_and_si512(_mm512_srli_epi32(bits, 16), _mm512_set1_epi32(1));
    const __m512i biased = _mm512_add_epi32(_mm512_add_epi32(bits, _mm512_set1_epi32(0x7fff)), lsb);
    const __m512 rounded = _mm512_castsi512_ps(_mm512_and_si512(biased, _mm512_set1_epi32(int32_t(0xffff0000u))));
    return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q), rounded, v);
#elif defined(CPU_CAPABILITY_AVX2)
    const __m256i bits = _mm256_castps_si256(v);
    const __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(bits, 16), _mm256_set1_epi32(1));
    const __m256i biased = _mm256_add_epi32(_mm256_add_epi32(bits, _mm256_set1_epi32(0x7fff)), lsb);
    const __m256 rounded = _mm256_castsi256_ps(_mm256_and_si256(biased, _mm256_set1_epi32(int32_t(0xffff0000u))));
    return _mm256_blendv_ps(rounded, v, _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
#else
    return std::get<0>(at::vec::convert_to_float<T>(at::vec::convert_from_float<T>(v, v)));
#endif
  } else {
    static_assert(std::is_same_v<M, float>, "rounded_as: a narrower type's values are float lanes");
    return std::get<0>(at::vec::convert_to_float<T>(at::vec::convert_from_float<T>(v, v)));
  }
}

} // namespace CPU_CAPABILITY

} // namespace uaccel::math
