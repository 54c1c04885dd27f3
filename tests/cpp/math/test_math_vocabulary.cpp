// The accuracy uaccel/pointwise.h states for the math vocabulary, on every instruction set this CPU runs:
// vectors on AVX2 and AVX-512 within Sleef's bounds (1 ulp; erfc 1.5), scalars and the DEFAULT set's
// vectors within the C library's (2 ulp), sigmoid within 2.5 ulp; and the special
// values PyTorch gives.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "vocabulary_errors.h"

namespace {

using uaccel_test::Errors;

// The bound of each function in ulp: of its vector form on AVX2 and AVX-512, of its scalar form (and the
// DEFAULT set's vectors, which call it per lane).
struct Bound {
  double sleef, scalar;
};
const std::map<std::string, Bound> kBounds = {
    {"exp", {1.0, 2.0}},     {"expm1", {1.0, 2.0}}, {"log1p", {1.0, 2.0}},
    {"tanh", {1.0, 2.0}},    {"erf", {1.0, 2.0}},   {"erfc", {1.5, 0.5}},
    {"sigmoid", {2.5, 2.5}}, {"abs", {0.0, 0.0}},   {"reciprocal", {1.0, 0.5}},
};

void check(const char* isa, const std::vector<std::pair<std::string, Errors>>& measured, bool vectors_by_sleef) {
  for (const auto& [name, errors] : measured) {
    const Bound bound = kBounds.at(name);
    EXPECT_LE(errors.scalar, bound.scalar) << isa << ": " << name << " (scalar)";
    EXPECT_LE(errors.vector, vectors_by_sleef ? bound.sleef : bound.scalar) << isa << ": " << name << " (vector)";
    std::cout << isa << " " << name << ": scalar " << errors.scalar << " ulp, vector " << errors.vector << " ulp\n";
  }
}

TEST(MathVocabulary, DefaultInstructionSet) {
  check("DEFAULT", uaccel_test::DEFAULT::vocabulary_errors(), false);
  EXPECT_EQ(uaccel_test::DEFAULT::special_value_failures(), std::vector<std::string>{});
}

TEST(MathVocabulary, Avx2) {
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) {
    GTEST_SKIP() << "this CPU has no AVX2";
  }
  check("AVX2", uaccel_test::AVX2::vocabulary_errors(), true);
  EXPECT_EQ(uaccel_test::AVX2::special_value_failures(), std::vector<std::string>{});
}

TEST(MathVocabulary, Avx512) {
  if (!__builtin_cpu_supports("avx512f") || !__builtin_cpu_supports("avx512bw") ||
      !__builtin_cpu_supports("avx512vl") || !__builtin_cpu_supports("avx512dq")) {
    GTEST_SKIP() << "this CPU has no AVX-512";
  }
  check("AVX512", uaccel_test::AVX512::vocabulary_errors(), true);
  EXPECT_EQ(uaccel_test::AVX512::special_value_failures(), std::vector<std::string>{});
}

} // namespace
