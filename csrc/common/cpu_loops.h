#pragma once
// CPU elementwise driver: runs an op over a TensorIterator with at::vec::Vectorized on
// contiguous runs and a scalar loop on strided ones, in parallel over ATen's grain size.
//
// An op is a functor with `T operator()(T...)` and `Vectorized<T> vec(Vectorized<T>...)`, where
// T = at::opmath_type<scalar_t> (float for float16/bfloat16): the math is written once per op.
//
// Include it only from translation units compiled once per instruction set (*_isa.cpp, see
// setup.py): everything here lives in the inline namespace CPU_CAPABILITY, as ATen's vec code
// does, so the AVX2 and AVX-512 copies never merge at link time.
#include <ATen/OpMathType.h>
#include <ATen/Parallel.h>
#include <ATen/TensorIterator.h>
#include <ATen/cpu/vec/functional.h>
#include <ATen/cpu/vec/vec.h>

#include <algorithm>
#include <array>
#include <tuple>
#include <utility>

namespace uaccel::cpu {
inline namespace CPU_CAPABILITY {
namespace detail {

// Contiguous raw-pointer core in the math type: out[i] = op(in_0[i], ..., in_N-1[i]).
template <typename T, typename Op, size_t... I>
void map_contiguous(
    T* out, const std::array<const T*, sizeof...(I)>& in, int64_t n, const Op& shared_op, std::index_sequence<I...>) {
  using Vec = at::vec::Vectorized<T>;
  const Op op = shared_op;  // a local: no store through `out` can alias its coefficients, so they stay in registers
  int64_t i = 0;
  for (; i + Vec::size() <= n; i += Vec::size()) {
    op.vec(Vec::loadu(in[I] + i)...).store(out + i);
  }
  for (; i < n; ++i) {
    out[i] = op(in[I][i]...);
  }
}

// Contiguous core for half types: each vector of scalar_t is widened in registers into two vectors
// of float, the op runs on both and the results are narrowed on the store, as ATen's own
// reduced-precision loops do (no pass through a float buffer).
template <typename scalar_t, typename Op, size_t... I>
void map_contiguous_reduced(
    scalar_t* out,
    const std::array<const scalar_t*, sizeof...(I)>& in,
    int64_t n,
    const Op& op,
    std::index_sequence<I...>) {
  using Vec = at::vec::Vectorized<scalar_t>;
  const Op local_op = op;  // as in map_contiguous
  int64_t i = 0;
  for (; i + Vec::size() <= n; i += Vec::size()) {
    const std::array wide{at::vec::convert_to_float<scalar_t>(Vec::loadu(in[I] + i))...};
    const auto low = local_op.vec(std::get<0>(wide[I])...);
    const auto high = local_op.vec(std::get<1>(wide[I])...);
    at::vec::convert_from_float<scalar_t>(low, high).store(out + i);
  }
  for (; i < n; ++i) {
    out[i] = static_cast<scalar_t>(op(static_cast<at::opmath_type<scalar_t>>(in[I][i])...));
  }
}

// Contiguous core for any storage type, with one math path (in the math type) for every dtype.
template <typename scalar_t, size_t N, typename Op>
void map_contiguous(scalar_t* out, const std::array<const scalar_t*, N>& in, int64_t n, const Op& op) {
  if constexpr (at::is_reduced_floating_point_v<scalar_t>) {
    map_contiguous_reduced(out, in, n, op, std::make_index_sequence<N>{});
  } else {
    map_contiguous(out, in, n, op, std::make_index_sequence<N>{});
  }
}

// Strided scalar core; `data`/`strides` are TensorIterator's (operand 0 is the output, strides in bytes).
template <typename scalar_t, typename Op, size_t... I>
void map_strided(char* const* data, const int64_t* strides, int64_t n, const Op& op, std::index_sequence<I...>) {
  using T = at::opmath_type<scalar_t>;
  for (int64_t i = 0; i < n; ++i) {
    *reinterpret_cast<scalar_t*>(data[0] + i * strides[0]) = static_cast<scalar_t>(
        op(static_cast<T>(*reinterpret_cast<const scalar_t*>(data[I + 1] + i * strides[I + 1]))...));
  }
}

} // namespace detail

// Runs `op` over n elements laid out alike in memory (dense tensors with one layout), in parallel over
// ATen's grain size: no TensorIterator to build, which is most of a small tensor's cost.
template <typename scalar_t, size_t N, typename Op>
void elementwise_dense(scalar_t* out, const std::array<const scalar_t*, N>& in, int64_t n, const Op& op) {
  at::parallel_for(0, n, at::internal::GRAIN_SIZE, [&](int64_t begin, int64_t end) {
    std::array<const scalar_t*, N> from;
    for (size_t k = 0; k < N; ++k) {
      from[k] = in[k] + begin;
    }
    detail::map_contiguous(out + begin, from, end - begin, op);
  });
}

// Runs `op` over `iter` (one output, N inputs, all of dtype scalar_t).
template <typename scalar_t, size_t N, typename Op>
void elementwise(at::TensorIteratorBase& iter, const Op& op) {
  TORCH_INTERNAL_ASSERT(iter.ninputs() == static_cast<int>(N) && iter.noutputs() == 1);
  constexpr int kTensors = N + 1;
  iter.for_each(
      [&](char** data, const int64_t* strides, int64_t size0, int64_t size1) {
        const int64_t* outer_strides = strides + kTensors;
        const bool contiguous = std::all_of(strides, strides + kTensors, [](int64_t s) {
          return s == static_cast<int64_t>(sizeof(scalar_t));
        });
        std::array<char*, kTensors> ptrs;
        std::copy(data, data + kTensors, ptrs.begin());
        for (int64_t outer = 0; outer < size1; ++outer) {
          if (contiguous) {
            std::array<const scalar_t*, N> in;
            for (size_t k = 0; k < N; ++k) {
              in[k] = reinterpret_cast<const scalar_t*>(ptrs[k + 1]);
            }
            detail::map_contiguous(reinterpret_cast<scalar_t*>(ptrs[0]), in, size0, op);
          } else {
            detail::map_strided<scalar_t>(ptrs.data(), strides, size0, op, std::make_index_sequence<N>{});
          }
          for (int k = 0; k < kTensors; ++k) {
            ptrs[k] += outer_strides[k];
          }
        }
      },
      at::internal::GRAIN_SIZE);
}

} // namespace CPU_CAPABILITY
} // namespace uaccel::cpu
