// uaccel::math's vocabulary measured against double on a dense sample of each function's float domain,
// in its scalar and its vector form: compiled once per instruction set (CPU_CAPABILITY), as an op's
// functors are. test_math_vocabulary.cpp holds the bounds.
#include <ATen/cpu/vec/vec.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include <uaccel/math/scalar_math.h>
#include <uaccel/math/vec_math.h>

#include "vocabulary_errors.h"

namespace uaccel_test {
namespace CPU_CAPABILITY {  // named as the header declares it: uaccel_test::AVX2::vocabulary_errors
namespace {

using Vec = at::vec::Vectorized<float>;
namespace math = uaccel::math;

// |got - expected| in units of the float spacing at expected (expected normal and finite).
double ulp_error(float got, double expected) {
  const double magnitude = std::abs(expected);
  const int exponent = std::ilogb(std::max(magnitude, double(std::numeric_limits<float>::min())));
  return std::abs(double(got) - expected) / std::ldexp(1.0, exponent - 23);
}

// The worst error of f's scalar and vector forms over `count` evenly spaced points of [low, high].
template <typename Scalar, typename Vector, typename Reference>
Errors measure(float low, float high, const Scalar& scalar, const Vector& vector, const Reference& reference) {
  constexpr int kCount = 1 << 18;
  std::vector<float> x(kCount), vectorized(kCount);
  for (int i = 0; i < kCount; ++i) {
    x[i] = low + (high - low) * (static_cast<float>(i) / (kCount - 1));
  }
  for (int i = 0; i + Vec::size() <= kCount; i += Vec::size()) {
    vector(Vec::loadu(&x[i])).store(&vectorized[i]);
  }
  Errors errors;
  for (int i = 0; i < kCount; ++i) {
    const double expected = reference(static_cast<double>(x[i]));
    if (!std::isfinite(expected) || std::abs(expected) < std::numeric_limits<float>::min() ||
        std::abs(expected) > std::numeric_limits<float>::max()) {
      continue;
    }
    errors.scalar = std::max(errors.scalar, ulp_error(scalar(x[i]), expected));
    errors.vector = std::max(errors.vector, ulp_error(vectorized[i], expected));
  }
  return errors;
}

#define UACCEL_MEASURE(name, low, high, reference) \
  {#name, measure(low, high, [](float v) { return math::name(v); }, [](Vec v) { return math::name(v); }, reference)}

} // namespace

std::vector<std::pair<std::string, Errors>> vocabulary_errors() {
  return {
      UACCEL_MEASURE(exp, -87.0f, 88.0f, [](double x) { return std::exp(x); }),
      UACCEL_MEASURE(expm1, -20.0f, 88.0f, [](double x) { return std::expm1(x); }),
      UACCEL_MEASURE(log1p, -0.999f, 1e6f, [](double x) { return std::log1p(x); }),
      UACCEL_MEASURE(log1p, -1e-3f, 1e-3f, [](double x) { return std::log1p(x); }),
      UACCEL_MEASURE(tanh, -10.0f, 10.0f, [](double x) { return std::tanh(x); }),
      UACCEL_MEASURE(erf, -5.0f, 5.0f, [](double x) { return std::erf(x); }),
      UACCEL_MEASURE(erf, -1e-3f, 1e-3f, [](double x) { return std::erf(x); }),
      UACCEL_MEASURE(erfc, -5.0f, 9.0f, [](double x) { return std::erfc(x); }),
      UACCEL_MEASURE(sigmoid, -80.0f, 30.0f, [](double x) { return 1 / (1 + std::exp(-x)); }),
      UACCEL_MEASURE(abs, -3.0f, 3.0f, [](double x) { return std::abs(x); }),
      UACCEL_MEASURE(reciprocal, 1e-30f, 1e30f, [](double x) { return 1 / x; }),
  };
}

// The functions' special values, as PyTorch's: NaN in, NaN out (min and max: from either side);
// clamp keeps NaN; abs(-0) is +0; sigmoid's infinities give 0 and 1.
std::vector<std::string> special_value_failures() {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  std::vector<std::string> failures;
  const auto check = [&](const char* what, float scalar, Vec vector, float expected) {
    const auto same = [&](float got) {
      return std::isnan(expected) ? std::isnan(got) : got == expected && std::signbit(got) == std::signbit(expected);
    };
    if (!same(scalar)) {
      failures.push_back(std::string(what) + " (scalar)");
    }
    float lanes[Vec::size()];
    vector.store(lanes);
    if (!std::all_of(lanes, lanes + Vec::size(), same)) {
      failures.push_back(std::string(what) + " (vector)");
    }
  };
  const Vec vnan(nan), vinf(inf), one(1.0f), two(2.0f);
  check("max(NaN, 1)", math::max(nan, 1.0f), math::max(vnan, one), nan);
  check("max(1, NaN)", math::max(1.0f, nan), math::max(one, vnan), nan);
  check("min(NaN, 1)", math::min(nan, 1.0f), math::min(vnan, one), nan);
  check("min(1, NaN)", math::min(1.0f, nan), math::min(one, vnan), nan);
  check("max(1, 2)", math::max(1.0f, 2.0f), math::max(one, two), 2.0f);
  check("min(1, 2)", math::min(1.0f, 2.0f), math::min(one, two), 1.0f);
  check("clamp(NaN, 1, 2)", math::clamp(nan, 1.0f, 2.0f), math::clamp(vnan, one, two), nan);
  check("clamp(3, 1, 2)", math::clamp(3.0f, 1.0f, 2.0f), math::clamp(Vec(3.0f), one, two), 2.0f);
  check("abs(-0)", math::abs(-0.0f), math::abs(Vec(-0.0f)), 0.0f);
  check("sigmoid(-inf)", math::sigmoid(-inf), math::sigmoid(Vec(-inf)), 0.0f);
  check("sigmoid(inf)", math::sigmoid(inf), math::sigmoid(vinf), 1.0f);
  check("sigmoid(NaN)", math::sigmoid(nan), math::sigmoid(vnan), nan);
  check("tanh(NaN)", math::tanh(nan), math::tanh(vnan), nan);
  check("log1p(-1)", math::log1p(-1.0f), math::log1p(Vec(-1.0f)), -inf);
  check("exp(-inf)", math::exp(-inf), math::exp(Vec(-inf)), 0.0f);
  check(
      "select(less(1, 2))", math::select(math::less(1.0f, 2.0f), 3.0f, 4.0f),
      math::select(math::less(one, two), Vec(3.0f), Vec(4.0f)), 3.0f);
  check(
      "fma rounded once", math::fma(1.0f + 0x1p-23f, 1.0f - 0x1p-23f, -1.0f),
      math::fma(Vec(1.0f + 0x1p-23f), Vec(1.0f - 0x1p-23f), Vec(-1.0f)), -0x1p-46f);
  check(
      "select(less_equal(2, 2))", math::select(math::less_equal(2.0f, 2.0f), 3.0f, 4.0f),
      math::select(math::less_equal(two, two), Vec(3.0f), Vec(4.0f)), 3.0f);
  check(
      "select(less_equal(NaN, 2))", math::select(math::less_equal(nan, 2.0f), 3.0f, 4.0f),
      math::select(math::less_equal(vnan, two), Vec(3.0f), Vec(4.0f)), 4.0f);
  check(
      "scaled_expm1_nonpositive(-inf, 2)", math::scaled_expm1_nonpositive(-inf, 2.0f),
      math::scaled_expm1_nonpositive(Vec(-inf), two), -2.0f);
  check(
      "scaled_exp_nonpositive(0, 2)", math::scaled_exp_nonpositive(0.0f, 2.0f),
      math::scaled_exp_nonpositive(Vec(0.0f), two), 2.0f);
  check(
      "scaled_expm1_nonpositive(NaN, 2)", math::scaled_expm1_nonpositive(nan, 2.0f),
      math::scaled_expm1_nonpositive(vnan, two), nan);
  // any and no_sign_bit look at every lane: one lane set among clear ones.
  float lanes[Vec::size()] = {};
  lanes[Vec::size() - 1] = -0.0f;
  const Vec one_signed_lane = Vec::loadu(lanes);
  if (math::no_sign_bit(-0.0f) || math::no_sign_bit(one_signed_lane) || !math::no_sign_bit(Vec(0.0f)) ||
      !math::no_sign_bit(1.0f)) {
    failures.emplace_back("no_sign_bit");
  }
  if (!math::any(math::less(one_signed_lane, Vec(0.5f))) || math::any(math::less(Vec(1.0f), Vec(0.5f))) ||
      !math::any(math::less(0.0f, 0.5f))) {
    failures.emplace_back("any");
  }
  return failures;
}

} // namespace CPU_CAPABILITY
} // namespace uaccel_test
