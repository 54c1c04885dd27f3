#pragma once
// What vocabulary_errors.cpp measures, once per instruction set.
#include <string>
#include <utility>
#include <vector>

namespace uaccel_test {

// The worst error in float ulp of a function's scalar and vector forms.
struct Errors {
  double scalar = 0, vector = 0;
};

#define UACCEL_DECLARE_VOCABULARY_ERRORS(isa)                      \
  namespace isa {                                                  \
  std::vector<std::pair<std::string, Errors>> vocabulary_errors(); \
  std::vector<std::string> special_value_failures();               \
  }
UACCEL_DECLARE_VOCABULARY_ERRORS(DEFAULT)
UACCEL_DECLARE_VOCABULARY_ERRORS(AVX2)
UACCEL_DECLARE_VOCABULARY_ERRORS(AVX512)
#undef UACCEL_DECLARE_VOCABULARY_ERRORS

} // namespace uaccel_test
