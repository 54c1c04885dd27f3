#pragma once
// What a functor returns when it computes several results per element (a backward's gradients, one per
// input): the loops store v[k] to output k. Plain data, so CUDA's functors return it too.
#include <cstddef>

namespace uaccel {

template <typename T, size_t N>
struct Outputs {
  T v[N];
};

// Result k of a functor's return value, whether it returns one value or Outputs.
template <typename R>
constexpr decltype(auto) output_part(const R& result, size_t k) {
  if constexpr (requires { result.v; }) {
    return result.v[k];
  } else {
    return (void)k, result;
  }
}

} // namespace uaccel
