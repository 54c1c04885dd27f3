#pragma once
// Scalar math that ops share, for CUDA and the CPU's scalar loops alike (the vector forms are in
// vec_math.h): overloads on the math type, so an op's functor is written once for float and double.
#include <c10/macros/Macros.h>
#include <c10/util/bit_cast.h>

#include <math.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace uaccel::math {

namespace detail {

// exp's constants, for vec_math.h's exp_parts (whose comment has the steps) and exp_by_steps below,
// its form for one value.

// 1/k!, Taylor's coefficients.
constexpr double inverse_factorial(int k) {
  double value = 1.0;
  for (int i = 2; i <= k; ++i) {
    value /= i;
  }
  return value;
}

template <typename T>
struct ExpTraits;

template <>
struct ExpTraits<float> {
  using Int = int32_t;
  static constexpr float kLog2e = 0x1.715476p+0f;
  static constexpr float kMagic = 0x1.8000FEp23f;  // 1.5 * 2^23 + 127: n + 127 in the low bits
  static constexpr int kMantissaBits = 23;
  static constexpr bool kOneStepExpm1 = true;
  static constexpr float kLn2 = 0x1.62E430p-1f;
  static constexpr float kLn2Hi = 0.693359375f;  // 9 significant bits: n * kLn2Hi is exact
  static constexpr float kLn2Lo = -2.12194440e-4f;
  static constexpr float kExpm1Lowest = -17.5f;  // e^x < 2^-25 below: expm1(x) rounds to -1
  static constexpr float kExpVanishes = -88.0f;    // n = -127 here: the shifted 2^n is 0
  // q(t) = c2 + c3 t + ... + c6 t^4: a weighted minimax fit of (e^t - 1 - t) / t^2 on |t| <= ln2/2
  // (Lawson's algorithm in float64, then rounded to float: tools/fit_polynomials.py).
  static constexpr std::array<float, 5> kQ = {
      0x1.fffffep-2f, 0x1.5554b0p-3f, 0x1.555674p-5f, 0x1.122768p-7f, 0x1.6bec08p-10f};
};

template <>
struct ExpTraits<double> {
  using Int = int64_t;
  static constexpr double kLog2e = 1.44269504088896338700e+00;
  static constexpr double kMagic = 0x1.8p52 + 1023;  // n + 1023 in the low bits
  static constexpr int kMantissaBits = 52;
  static constexpr bool kOneStepExpm1 = false;
  static constexpr double kLn2 = 6.93147180559945286227e-01;
  static constexpr double kLn2Hi = 6.93147180369123816490e-01;  // low 32 bits zero: n * kLn2Hi is exact
  static constexpr double kLn2Lo = 1.90821492927058770002e-10;
  static constexpr double kExpm1Lowest = -37.5;  // e^x < 2^-54 below
  static constexpr double kExpVanishes = -709.0;              // n = -1023
  static constexpr std::array<double, 12> kQ = {inverse_factorial(2),  inverse_factorial(3),  inverse_factorial(4),
                                                inverse_factorial(5),  inverse_factorial(6),  inverse_factorial(7),
                                                inverse_factorial(8),  inverse_factorial(9),  inverse_factorial(10),
                                                inverse_factorial(11), inverse_factorial(12), inverse_factorial(13)};
};

} // namespace detail

// The math vocabulary for scalars (CUDA, the CPU's strided loops; vec_math.h has each for vectors):
// the C library's functions on the CPU, CUDA's on the GPU, whose documented bounds for float are at most
// 2 ulp for exp, expm1, log1p, tanh and erf (the vector forms: 1 ulp); erfc in double, rounded once.
C10_HOST_DEVICE inline float exp(float x) {
  return ::expf(x);
}
C10_HOST_DEVICE inline double exp(double x) {
  return ::exp(x);
}
C10_HOST_DEVICE inline float expm1(float x) {
  return ::expm1f(x);
}
C10_HOST_DEVICE inline double expm1(double x) {
  return ::expm1(x);
}
C10_HOST_DEVICE inline float log1p(float x) {
  return ::log1pf(x);
}
C10_HOST_DEVICE inline double log1p(double x) {
  return ::log1p(x);
}
C10_HOST_DEVICE inline float tanh(float x) {
  return ::tanhf(x);
}
C10_HOST_DEVICE inline double tanh(double x) {
  return ::tanh(x);
}
C10_HOST_DEVICE inline float erf(float x) {
  return ::erff(x);
}
C10_HOST_DEVICE inline double erf(double x) {
  return ::erf(x);
}
// In double, rounded once: erfcf is off by up to 4 ulp on CUDA and 3 in glibc.
C10_HOST_DEVICE inline float erfc(float x) {
  return static_cast<float>(::erfc(static_cast<double>(x)));
}
C10_HOST_DEVICE inline double erfc(double x) {
  return ::erfc(x);
}
C10_HOST_DEVICE inline float abs(float x) {
  return ::fabsf(x);
}
C10_HOST_DEVICE inline double abs(double x) {
  return ::fabs(x);
}
C10_HOST_DEVICE inline float fma(float a, float b, float c) {
  return ::fmaf(a, b, c);
}
C10_HOST_DEVICE inline double fma(double a, double b, double c) {
  return ::fma(a, b, c);
}

// a * b - c and c - a * b, rounded once.
template <typename T>
C10_HOST_DEVICE T fms(T a, T b, T c) {
  return fma(a, b, -c);
}
template <typename T>
C10_HOST_DEVICE T fnma(T a, T b, T c) {
  return fma(-a, b, c);
}

// What math written once for scalars and vectors (vec_math.h has the vector forms) needs beyond the
// arithmetic operators: comparisons and the choice by their result, -x, -|x|, clamping that keeps NaN,
// and e^x for x <= 0.
template <typename T>
C10_HOST_DEVICE bool less(T a, T b) {
  return a < b;
}
template <typename T>
C10_HOST_DEVICE bool less_equal(T a, T b) {
  return a <= b;
}
template <typename T>
C10_HOST_DEVICE bool equal(T a, T b) {
  return a == b;
}
template <typename T>
C10_HOST_DEVICE T select(bool condition, T if_true, T if_false) {
  return condition ? if_true : if_false;
}
// Whether a comparison holds (for a vector: in any lane), and whether no sign bit is set (for a
// vector: in no lane; NaN without a sign counts as positive): a vector's way to skip work no lane needs.
C10_HOST_DEVICE inline bool any(bool condition) {
  return condition;
}
template <typename T>
C10_HOST_DEVICE bool no_sign_bit(T x) {
  return !signbit(x);
}
template <typename T>
C10_HOST_DEVICE T neg(T x) {
  return -x;
}
template <typename T>
C10_HOST_DEVICE T neg_abs(T x) {
  return x < T(0) ? x : -x;
}
template <typename T>
C10_HOST_DEVICE T clamp(T x, T low, T high) {
  return x < low ? low : x > high ? high : x;
}
// The smaller and the larger, NaN where either is (as torch.minimum and torch.maximum).
template <typename T>
C10_HOST_DEVICE T min(T a, T b) {
  return a != a || a < b ? a : b;
}
template <typename T>
C10_HOST_DEVICE T max(T a, T b) {
  return a != a || b < a ? a : b;
}
// 1/x: `reciprocal` within an ulp, `reciprocal_estimate` for a quotient that a correction step finishes:
// a division here, but for float on CUDA its approximate reciprocal (MUFU.RCP, 2 ulp for normal x),
// sparing the division's refinement and its slow path; the vector forms (vec_math.h) come from the
// instruction set's estimate (to 2^-14).
template <typename T>
C10_HOST_DEVICE T reciprocal(T x) {
  return T(1) / x;
}
template <typename T>
C10_HOST_DEVICE T reciprocal_estimate(T x) {
#if defined(__CUDA_ARCH__)
  if constexpr (std::is_same_v<T, float>) {
    return __fdividef(1.0f, x);
  }
#endif
  return T(1) / x;
}

namespace detail {
// e^x for x <= 0 (NaN stays NaN) as hi + lo, lo being hi's rounding error: vec_math.h's exp_parts for one
// value, Traits' constants, q(t) by Horner's rule. 0 where n reaches the bias's lowest (x < -87.68 for
// float, -708.4 for double lanes), as the vector forms.
template <typename T, typename Traits>
C10_HOST_DEVICE T exp_by_steps(T x, T& lo) {
  using Bits = std::make_unsigned_t<typename Traits::Int>;
  constexpr auto kQ = Traits::kQ;  // a copy in the function: device code cannot read the host's
  x = x < T(Traits::kExpVanishes) ? T(Traits::kExpVanishes) : x;
  const T biased = fma(x, T(Traits::kLog2e), T(Traits::kMagic));  // n + bias in the low bits
  const T two_to_n = c10::bit_cast<T>(static_cast<Bits>(c10::bit_cast<Bits>(biased) << Traits::kMantissaBits));
  const T n = biased - T(Traits::kMagic);
  const T t = fma(n, T(-Traits::kLn2Lo), fma(n, T(-Traits::kLn2Hi), x));
  T q = kQ[kQ.size() - 1];
  for (size_t k = kQ.size() - 1; k-- > 0;) {
    q = fma(q, t, kQ[k]);
  }
  const T expm1_t = fma(q, t * t, t), e = fma(two_to_n, expm1_t, two_to_n);
  lo = fma(two_to_n, expm1_t, two_to_n - e);
  return e;
}
} // namespace detail

// e^x for x <= 0, and the same as hi + lo (compensated arithmetic then sees only the polynomial's error):
// for float the library's exp (its vector form's steps, so that CUDA and the CPU's scalar loops compute
// what its vectors do, not CUDA's expf, 2 ulp); double's own exp, rounded once (lo = 0).
C10_HOST_DEVICE inline float exp_nonpositive(float x, float& lo) {
  return detail::exp_by_steps<float, detail::ExpTraits<float>>(x, lo);
}
C10_HOST_DEVICE inline double exp_nonpositive(double x, double& lo) {
  lo = 0.0;
  return exp(x);
}
template <typename T>
C10_HOST_DEVICE T exp_nonpositive(T x) {
  T lo;
  return exp_nonpositive(x, lo);
}
// scale * e^x and scale * (e^x - 1) for x <= 0: for vectors with the product inside exp's last step
// (one rounding fewer, and no subnormal e^x where the product is normal); positive x are not defined.
template <typename T>
C10_HOST_DEVICE T scaled_exp_nonpositive(T x, T scale) {
  return scale * exp(x);
}
template <typename T>
C10_HOST_DEVICE T scaled_expm1_nonpositive(T x, T scale) {
  return scale * expm1(x);
}

// The value v holds once stored as T (a storage type: at::Half, at::BFloat16, float, double) and read back.
template <typename T, typename V>
C10_HOST_DEVICE V rounded_as(V v) {
  return static_cast<V>(static_cast<T>(v));
}

// 1 / (1 + e^-x) from e = e^-|x| <= 1, which neither overflows nor cancels: within 2.5 ulp.
template <typename T>
C10_HOST_DEVICE T sigmoid(T x) {
  const T e = exp(-abs(x));
  return (x < T(0) ? e : T(1)) / (T(1) + e);
}

} // namespace uaccel::math
