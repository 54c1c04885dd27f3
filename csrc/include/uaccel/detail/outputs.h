#pragma once
// How the loops read a functor's result: one value, or Outputs (uaccel/pointwise.h) of several.
#include <cstddef>

#include <uaccel/pointwise.h>

namespace uaccel {

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
