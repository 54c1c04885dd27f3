#pragma once
// Vector math on at::vec::Vectorized that ops share. Include it only from *_isa.cpp files: like
// ATen's vec code it lives in the inline namespace CPU_CAPABILITY, one copy per instruction set.
#include <ATen/cpu/vec/vec.h>

#include <array>
#include <type_traits>

namespace uaccel::cpu {
inline namespace CPU_CAPABILITY {

// expm1 on the side most activations need it (x <= 0), fast: exp(x) - 1 where that is accurate
// (x <= -1/2, the result is at least 0.39 in magnitude), else the Taylor series, which converges
// quickly there and keeps full relative precision as x -> 0 (exp(x) - 1 would cancel). Degree 8
// reaches float's precision on [-1/2, 0], degree 14 double's. Sleef's vector expm1 is several times
// slower than its exp.
template <typename T>
at::vec::Vectorized<T> expm1_nonpositive(at::vec::Vectorized<T> x) {
  using Vec = at::vec::Vectorized<T>;
  // 1/k!, k = 0..14.
  constexpr std::array<double, 15> kInverseFactorial = {
      1.0,           1.0,            1.0 / 2,         1.0 / 6,          1.0 / 24,
      1.0 / 120,     1.0 / 720,      1.0 / 5040,      1.0 / 40320,      1.0 / 362880,
      1.0 / 3628800, 1.0 / 39916800, 1.0 / 479001600, 1.0 / 6227020800, 1.0 / 87178291200};
  constexpr int kDegree = std::is_same_v<T, float> ? 8 : 14;
  Vec series(static_cast<T>(kInverseFactorial[kDegree]));
  for (int k = kDegree - 1; k >= 1; --k) {
    series = at::vec::fmadd(series, x, Vec(static_cast<T>(kInverseFactorial[k])));
  }
  series = series * x;
  const auto direct = x.exp() - Vec(T(1));
  return Vec::blendv(direct, series, x > Vec(T(-0.5)));
}

} // namespace CPU_CAPABILITY
} // namespace uaccel::cpu
