#pragma once
// Scalar math that ops share, for CUDA and the CPU's scalar loops alike (the vector forms are in
// vec_math.h): overloads on the math type, so an op's functor is written once for float and double.
#include <c10/macros/Macros.h>

#include <math.h>

namespace uaccel::math {

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
// In double, rounded once: erfcf is off by up to 4 ulp on CUDA and 3 in glibc.
C10_HOST_DEVICE inline float erfc(float x) {
  return static_cast<float>(::erfc(static_cast<double>(x)));
}
C10_HOST_DEVICE inline double erfc(double x) {
  return ::erfc(x);
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
C10_HOST_DEVICE bool equal(T a, T b) {
  return a == b;
}
template <typename T>
C10_HOST_DEVICE T select(bool condition, T if_true, T if_false) {
  return condition ? if_true : if_false;
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
template <typename T>
C10_HOST_DEVICE T exp_nonpositive(T x) {
  return exp(x);
}
// 1/x: a division here; the vector forms (vec_math.h) come from the instruction set's estimate,
// `reciprocal` within an ulp, `reciprocal_estimate` to 2^-14 for a quotient that a correction step
// finishes (times_sigmoid in activation_math.h).
template <typename T>
C10_HOST_DEVICE T reciprocal(T x) {
  return T(1) / x;
}
template <typename T>
C10_HOST_DEVICE T reciprocal_estimate(T x) {
  return T(1) / x;
}
// Whether float math is evaluated in double lanes (vec_math.h's `widened`): on vectors of float where the
// instruction set converts cheaply; never for scalars.
template <typename V>
inline constexpr bool kWidened = false;
// Whether SiLU and GELU (both forms) and their derivatives look their negative sides up in activation_tables.h's
// polynomials (activation_math.h's silu_by_table, gelu_by_table, cdf_by_table): on AVX-512's float vectors, which pick
// a coefficient out of 32 in one instruction.
template <typename V>
inline constexpr bool kByTable = false;
// The same from short tables (the ...Avx2 ones, 8 intervals): on AVX2's float vectors, whose VPERMPS picks out of 8.
template <typename V>
inline constexpr bool kByShortTable = false;
// Either: the activations' table paths (activation_math.h).
template <typename V>
inline constexpr bool kByAnyTable = kByTable<V> || kByShortTable<V>;

// The same as hi + lo (vec_math.h's has lo; the library's exp rounds once, so lo is 0 here).
template <typename T>
C10_HOST_DEVICE T exp_nonpositive(T x, T& lo) {
  lo = T(0);
  return exp(x);
}

} // namespace uaccel::math
