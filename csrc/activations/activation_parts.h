#pragma once
// The instruction-set parts SiLU's and GELU's math (silu.h, gelu.h) is built from beyond the public
// math vocabulary (uaccel/math/): which path a type takes (tables, short tables, float evaluated in
// double), and the vector tests, lookups and scaled exp the table paths use.
#include <c10/macros/Macros.h>
#include <c10/util/bit_cast.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>

#include <uaccel/math/scalar_math.h>
#ifdef CPU_CAPABILITY
#include <uaccel/math/vec_math.h>
#endif

namespace uaccel::math {

namespace detail {
// Double's steps and range to float's accuracy, for float math evaluated in double (GELU's Phi): q(t) a
// degree-4 minimax fit (tools/fit_polynomials.py), relative error 3.1e-9, a twentieth of float's ulp.
struct ExpTraitsFloatInDouble : ExpTraits<double> {
  static constexpr std::array<double, 5> kQ = {
      0x1.fffffb9afd171p-2, 0x1.55549167a2c52p-3, 0x1.5558f1238e6bep-5, 0x1.1239d3c1f705ap-7, 0x1.6a244a9e37af8p-10};
};
} // namespace detail

// Whether float math is evaluated in double (`widened`, GELU's Phi): for float scalars (CUDA, the CPU's strided
// loops), whose conversions are an instruction each.
template <typename V>
inline constexpr bool kWidened = false;
template <>
inline constexpr bool kWidened<float> = true;

// f(x) in double, its N results rounded once each to float; f returns std::array<double, N>.
template <size_t N, typename F>
C10_HOST_DEVICE std::array<float, N> widened(float x, const F& f) {
  const auto wide = f(static_cast<double>(x));
  std::array<float, N> narrowed{};
  for (size_t i = 0; i < N; ++i) {
    narrowed[i] = static_cast<float>(wide[i]);
  }
  return narrowed;
}

// 1/x in double to 2^-44 for normal x of float's range: float's reciprocal estimate (2^-22) and a Newton
// step, sparing a double division.
C10_HOST_DEVICE inline double reciprocal_float_in_double(double x) {
  const double r = reciprocal_estimate(static_cast<float>(x));
  return fma(r, fnma(x, r, 1.0), r);
}

// Whether SiLU and GELU (both forms) and their derivatives look their negative sides up in activation_tables.h's
// polynomials (silu.h's silu_by_table, gelu.h's gelu_by_table, activation_math.h's cdf_by_table): on AVX-512's float
// vectors, which pick a coefficient out of 32 in one instruction.
template <typename V>
inline constexpr bool kByTable = false;
// The same from short tables (the ...Avx2 ones, 8 intervals): on AVX2's float vectors, whose VPERMPS picks out of 8
// (SiLU's forward divides there instead: silu.h's silu_by_division).
template <typename V>
inline constexpr bool kByShortTable = false;
// Either: the activations' table paths (silu.h, gelu.h).
template <typename V>
inline constexpr bool kByAnyTable = kByTable<V> || kByShortTable<V>;

// e^x for x <= 0 in double to float's accuracy, by vec_math.h's steps for double lanes
// (ExpTraitsFloatInDouble, a degree-4 polynomial): fewer double operations than a full double exp, which
// on CUDA run at half float's rate or less.
C10_HOST_DEVICE inline double exp_nonpositive_float_in_double(double x) {
  double lo;
  return detail::exp_by_steps<double, detail::ExpTraitsFloatInDouble>(x, lo);
}

} // namespace uaccel::math

#ifdef CPU_CAPABILITY
namespace uaccel::cpu {
inline namespace CPU_CAPABILITY {
// 2^kScaleBits exp(x) for float lanes x from -105 to 0 (NaN stays NaN) as hi + lo, exp_nonpositive's
// pair: the scale keeps 2^n normal where exp(x) is subnormal or 0 (n down to -152), so that a caller's
// last multiplication by 2^-kScaleBits rounds once into the subnormals.
template <int kScaleBits>
struct ExpTraitsScaled : detail::ExpTraits<float> {
  static constexpr float kMagic = detail::ExpTraits<float>::kMagic + kScaleBits;  // n + 127 + kScaleBits
};
template <int kScaleBits>
at::vec::Vectorized<float> scaled_exp_in_range(at::vec::Vectorized<float> x, at::vec::Vectorized<float>& lo) {
  using Vec = at::vec::Vectorized<float>;
  return detail::exp_parts<float, false, ExpTraitsScaled<kScaleBits>>(x, [&](Vec s, Vec r) {
    const Vec e = at::vec::fmadd(s, r, s);
    lo = fma(s, r, s - e);
    return e;
  });
}
} // namespace CPU_CAPABILITY
} // namespace uaccel::cpu

namespace uaccel::math {
inline namespace CPU_CAPABILITY {
template <int kScaleBits>
at::vec::Vectorized<float> scaled_exp_in_range(at::vec::Vectorized<float> x, at::vec::Vectorized<float>& lo) {
  return cpu::scaled_exp_in_range<kScaleBits>(x, lo);
}
#if defined(CPU_CAPABILITY_AVX512)
// y where x >= flush_below, else 0; then x's special values by one VFIXUPIMMPS: +-0 and +inf give x,
// -inf and NaN a NaN (SiLU's, silu.h's silu_as_quotient).
C10_ALWAYS_INLINE at::vec::Vectorized<float> with_silu_special_values(
    at::vec::Vectorized<float> y, at::vec::Vectorized<float> x, float flush_below) {
  // One response nibble per class of x: QNaN, SNaN -> QNaN(x); 0 -> x; 1, negative, positive -> y;
  // -inf -> the default NaN; +inf -> x.
  constexpr int kResponses = 0x00130122;
  const __m512 flushed = _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(x, _mm512_set1_ps(flush_below), _CMP_GE_OQ), y);
  return _mm512_fixupimm_ps(flushed, x, _mm512_set1_epi32(kResponses), 0);
}
// The lanes whose sign bit is set (-0 among them).
C10_ALWAYS_INLINE LaneMask<float> sign_bit_set(at::vec::Vectorized<float> x) {
  return {_mm512_movepi32_mask(_mm512_castps_si512(x))};
}
// Whether every lane is at least (at most) `bound`, none NaN.
template <int kPredicate>
C10_ALWAYS_INLINE bool all_lanes(at::vec::Vectorized<float> x, float bound) {
  return _mm512_cmp_ps_mask(x, _mm512_set1_ps(bound), kPredicate) == 0xFFFF;
}
C10_ALWAYS_INLINE bool all_at_least(at::vec::Vectorized<float> x, float bound) {
  return all_lanes<_CMP_GE_OQ>(x, bound);
}
C10_ALWAYS_INLINE bool all_at_most(at::vec::Vectorized<float> x, float bound) {
  return all_lanes<_CMP_LE_OQ>(x, bound);
}
// max(x, 0) in one VMAXPS, which returns its second operand, x, where both are zeros: -0 stays -0.
C10_ALWAYS_INLINE at::vec::Vectorized<float> positive_part(at::vec::Vectorized<float> x) {
  return _mm512_max_ps(_mm512_setzero_ps(), x);
}
// table[index % 32] in every lane, index the low bits of `bits`'s lanes: a table of 32 floats in two
// registers, one VPERMT2PS.
C10_ALWAYS_INLINE at::vec::Vectorized<float> lookup(const float (&table)[32], at::vec::Vectorized<float> bits) {
  return _mm512_permutex2var_ps(_mm512_load_ps(table), _mm512_castps_si512(bits), _mm512_load_ps(table + 16));
}
#endif
#if defined(CPU_CAPABILITY_AVX2)
// AVX2's forms of the above (silu.h's and gelu.h's tables).
template <int kPredicate>
C10_ALWAYS_INLINE bool all_lanes(at::vec::Vectorized<float> x, float bound) {
  return _mm256_movemask_ps(_mm256_cmp_ps(x, _mm256_set1_ps(bound), kPredicate)) == 0xFF;
}
C10_ALWAYS_INLINE bool all_at_most(at::vec::Vectorized<float> x, float bound) {
  return all_lanes<_CMP_LE_OQ>(x, bound);
}
// Whether every lane is within [low, high], none NaN: |x - middle| <= half, whose rounding admits at most
// half an ulp of it beyond either end, compared as bits (a nonnegative float's order is its bits'): adding
// 2^31 - 1 - bits(half) sets the sign bit exactly where the bits exceed half's, NaN's among them. The
// integer addition runs on any vector port, a VCMPPS only on the two that multiply.
C10_ALWAYS_INLINE bool all_within(at::vec::Vectorized<float> x, float low, float high) {
  const __m256 distance = (x - at::vec::Vectorized<float>((low + high) / 2)).abs();
  const int32_t beyond = std::numeric_limits<int32_t>::max() - c10::bit_cast<int32_t>((high - low) / 2);
  return _mm256_movemask_ps(
             _mm256_castsi256_ps(_mm256_add_epi32(_mm256_castps_si256(distance), _mm256_set1_epi32(beyond)))) == 0;
}
C10_ALWAYS_INLINE at::vec::Vectorized<float> positive_part(at::vec::Vectorized<float> x) {
  return _mm256_max_ps(_mm256_setzero_ps(), x);
}
// The lanes whose sign bit is set: x itself, as select's VBLENDVPS reads only the sign bits.
C10_ALWAYS_INLINE at::vec::Vectorized<float> sign_bit_set(at::vec::Vectorized<float> x) {
  return x;
}
// table[index % 8] in every lane: 8 floats in one register, one VPERMPS.
C10_ALWAYS_INLINE at::vec::Vectorized<float> lookup(const float (&table)[8], at::vec::Vectorized<float> bits) {
  return _mm256_permutevar8x32_ps(_mm256_load_ps(table), _mm256_castps_si256(bits));
}
#endif
} // namespace CPU_CAPABILITY

#if defined(CPU_CAPABILITY_AVX512)
template <>
inline constexpr bool kByTable<at::vec::Vectorized<float>> = true;
#endif
#if defined(CPU_CAPABILITY_AVX2)
template <>
inline constexpr bool kByShortTable<at::vec::Vectorized<float>> = true;
#endif

} // namespace uaccel::math
#endif
