#pragma once
// Vector math on at::vec::Vectorized that ops share. Include it only from *_isa.cpp files: like
// ATen's vec code it lives in the inline namespace CPU_CAPABILITY, one copy per instruction set.
//
// exp and expm1 on the side activations need them (x <= 0), at a few operations per lane:
//   x = n ln2 + r, |r| <= ln2/2 (n = round(x / ln2); ln2 split in two so n * ln2_hi is exact),
//   expm1(r) by its Taylor polynomial (degree 7 for float: error < 0.2 ulp; 13 for double),
//   2^n written into the exponent bits, and
//   expm1(x) = 2^n expm1(r) + (2^n - 1),  exp(x) = 2^n expm1(r) + 2^n  (one fma each).
// One polynomial per vector for every lane (no blend of two methods). Near 0, n = 0 and r = x, so
// expm1 keeps full relative precision; 2^n - 1 is exact down to the clamp, below which expm1
// rounds to -1. Accuracy (float32, every x <= 0): `make expm1-sweep`; a dense sample runs in CI.
#include <ATen/cpu/vec/vec.h>

#include <cstdint>

namespace uaccel::cpu {
inline namespace CPU_CAPABILITY {
namespace detail {

template <typename T>
struct ExpTraits;

template <>
struct ExpTraits<float> {
  using Int = int32_t;
  static constexpr float kLog2e = 1.44269504088896341f;
  static constexpr float kLn2Hi = 0.693359375f;  // 9 significant bits: n * kLn2Hi is exact
  static constexpr float kLn2Lo = -2.12194440e-4f;
  static constexpr float kShifter = 0x1.8p23f;  // (x / ln2 + 1.5 * 2^23) - 1.5 * 2^23 rounds x / ln2
  static constexpr int kMantissaBits = 23;
  static constexpr int kBias = 127;
  static constexpr float kExpm1Lowest = -17.5f;  // e^x < 2^-25 below: expm1(x) rounds to -1
  static constexpr float kExpLowest = -87.33654f;  // below, exp(x) is subnormal: flushed to 0
  static constexpr int kDegree = 7;
};

template <>
struct ExpTraits<double> {
  using Int = int64_t;
  static constexpr double kLog2e = 1.44269504088896338700e+00;
  static constexpr double kLn2Hi = 6.93147180369123816490e-01;  // low 32 bits zero: n * kLn2Hi is exact
  static constexpr double kLn2Lo = 1.90821492927058770002e-10;
  static constexpr double kShifter = 0x1.8p52;
  static constexpr int kMantissaBits = 52;
  static constexpr int kBias = 1023;
  static constexpr double kExpm1Lowest = -37.5;  // e^x < 2^-54 below
  static constexpr double kExpLowest = -708.3964185322641;  // exp(x) < 2^-1022 below
  static constexpr int kDegree = 13;
};

// 1/k!, the Taylor coefficients of expm1.
constexpr double inverse_factorial(int k) {
  double value = 1.0;
  for (int i = 2; i <= k; ++i) {
    value /= i;
  }
  return value;
}

// x = n ln2 + r: returns 2^n and expm1(r). x must lie in [Traits::kExpLowest, 0] (or be NaN).
template <typename T>
std::pair<at::vec::Vectorized<T>, at::vec::Vectorized<T>> reduce_exp(at::vec::Vectorized<T> x) {
  using Vec = at::vec::Vectorized<T>;
  using Traits = ExpTraits<T>;
  using IVec = at::vec::Vectorized<typename Traits::Int>;
  const Vec t = at::vec::fmadd(x, Vec(Traits::kLog2e), Vec(Traits::kShifter));
  const Vec n = t - Vec(Traits::kShifter);
  const Vec r = at::vec::fmadd(n, Vec(-Traits::kLn2Hi), x) + n * Vec(-Traits::kLn2Lo);  // the product in parallel
  // 2^n: n + bias in the exponent field (conversions and casts ATen specialises for AVX2/AVX-512).
  const IVec biased = at::vec::convert_to_int_of_same_size(n) + IVec(Traits::kBias);
  const Vec two_to_n = at::vec::cast<T>(biased << IVec(Traits::kMantissaBits));
  // expm1(r) = r + r^2 (1/2! + r/3! + ...): the coefficients in pairs (Estrin's scheme), so the
  // chain of dependent operations is about half as long as Horner's.
  const Vec r2 = r * r;
  Vec q(T(0));
  Vec power(T(1));
  for (int k = 2; k <= Traits::kDegree; k += 2) {
    const Vec pair = k + 1 <= Traits::kDegree
        ? at::vec::fmadd(Vec(static_cast<T>(inverse_factorial(k + 1))), r, Vec(static_cast<T>(inverse_factorial(k))))
        : Vec(static_cast<T>(inverse_factorial(k)));
    q = at::vec::fmadd(pair, power, q);
    power = power * r2;
  }
  const Vec expm1_r = at::vec::fmadd(r2, q, r);
  return {two_to_n, expm1_r};
}

} // namespace detail

// expm1(x) for x <= 0 (NaN stays NaN). Positive lanes give garbage: callers blend them out.
template <typename T>
at::vec::Vectorized<T> expm1_nonpositive(at::vec::Vectorized<T> x) {
  using Vec = at::vec::Vectorized<T>;
  // clamp_min keeps NaN (and, unlike maximum, costs one instruction).
  const auto [two_to_n, expm1_r] = detail::reduce_exp(at::vec::clamp_min(x, Vec(detail::ExpTraits<T>::kExpm1Lowest)));
  return at::vec::fmadd(two_to_n, expm1_r, two_to_n - Vec(T(1)));
}

// exp(x) for x <= 0 (NaN stays NaN; results below the smallest normal number are 0).
template <typename T>
at::vec::Vectorized<T> exp_nonpositive(at::vec::Vectorized<T> x) {
  using Vec = at::vec::Vectorized<T>;
  const Vec lowest(detail::ExpTraits<T>::kExpLowest);
  const auto [two_to_n, expm1_r] = detail::reduce_exp(at::vec::clamp_min(x, lowest));
  return Vec::blendv(at::vec::fmadd(two_to_n, expm1_r, two_to_n), Vec(T(0)), x < lowest);
}

} // namespace CPU_CAPABILITY
} // namespace uaccel::cpu
