#pragma once
// The row-wise kind of kernel: for each row (n contiguous elements) of its inputs, sums of products over
// the row taken in double (the row's statistics), constants made from them, then a pointwise map of the
// row's elements with those constants; and, where asked, sums down the columns over all rows (a weight's
// gradient). Normalisations (RMSNorm, LayerNorm), their backwards and per-row scalings are such kernels.
// A kernel is a description in one header (RMSNorm's: csrc/ops/rms_norm.h); the engines run it on every
// CPU instruction set (uaccel/detail/rowwise_cpu.h: rows in parallel on torch's pool, a row as vectors of
// the math type) and on CUDA (uaccel/detail/rowwise_cuda.cuh: a warp a row for narrow rows, a block for
// wide ones, 16-byte packs where aligned). The engines decide the loops, the order of every sum (the same
// bits on any thread count, run to run) and the half types' conversions; the description only the math.
//
// Not yet stable API (unlike uaccel/pointwise.h): the op around a row-wise kernel (schemas, autograd,
// fakes, DTensor rules) is still written per op (csrc/rowwise/rms_norm.cpp), and this contract will
// change when the op half is generated as the pointwise kind's is.
//
// A description is a class template on the storage type T (float, double, at::Half, at::BFloat16) with
// M = rowwise::Math<T> (double for double, else float), an object (its runtime parameters are members):
//   static constexpr size_t kInputs;      row tensors read, of T
//   static constexpr size_t kColumns;     vectors of n values of M read, a value per column (a weight);
//                                         a column the caller leaves out reads as ones
//   static constexpr size_t kOutputs;     row tensors written, of T (the caller may leave any out)
//   static constexpr size_t kSums;        the statistics: sums over the row, in double (16-bit types: below)
//   static constexpr size_t kRowInputs, kRowOutputs;  scalars of M a row, read and written (a saved 1/rms)
//   static constexpr size_t kColumnSums;  sums down the columns (0: none), summed in M within a fixed block
//                                         of rows, then the blocks in order in double
// and, with V the math type's vector (CPU) or M itself (CUDA), a `Values<V, K>` being std::array<V, K>:
//   template <typename V> Values<Product<V>, kSums> products(const Values<V, E>& x, const Values<V, kColumns>& w)
//       the terms of the statistics at one element: each sum adds a * b, multiplied and added in double; for
//       the 16-bit types, on the CPU, in float lanes first, and in double again where a total's magnitude
//       leaves [2^-60, 2^100] (uaccel/detail/rowwise_cpu.h: the outputs' ulp is 2^8 or 2^11 times float's)
//   Constants finish(const std::array<double, kSums>& sums, int64_t n, const Values<M, kRowInputs>& row_in,
//                    Values<M, kRowOutputs>& row_out) const
//       the row's constants (any type), and its scalars to save
//   template <typename V> Values<V, kOutputs - kPrepared> map(const Constants& c, const Values<V, E>& x,
//                                                             const Values<V, kColumns>& w) const
//       the outputs at one element (those after the prepared ones, below)
//   template <typename V> Values<Product<V>, kColumnSums> column_products(const Constants& c, x, w) const
//       where kColumnSums > 0: the terms of the column sums at one element, a * b added to the column's
//       sum in M by fma
// where x holds the element's inputs (E = kInputs). A description may first combine its inputs into other
// values, stored to its first kPrepared outputs and seen by products, map and column_products in place of
// the inputs (E = kPrepared): add_rms_norm's x + residual.
//   static constexpr size_t kPrepared;    (default 0)
//   template <typename V> Values<V, kPrepared> prepare(const Values<V, kInputs>& inputs) const
// The engine rounds a prepared value to T before anything reads it, so what is stored is what is normalised.
// Where no output nor row output is asked for (column sums alone), the statistics are not taken and
// finish sees zeros: column_products must not use what it makes of them. Every function is C10_HOST_DEVICE, for the
// CUDA engine. The math: uaccel::math's (uaccel/pointwise.h has the list), with math::rounded_as<T>(v), the value of v
// once stored as T.
#include <c10/macros/Macros.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <uaccel/math/scalar_math.h>
#ifdef CPU_CAPABILITY
#include <uaccel/math/vec_math.h>
#endif

namespace uaccel::rowwise {

template <typename T>
using Math = std::conditional_t<std::is_same_v<T, double>, double, float>;

template <typename V, size_t K>
using Values = std::array<V, K>;

// A term of a sum: a * b.
template <typename V>
struct Product {
  V a, b;
};

// A description's kPrepared (0 where it has none), and how many values products, map and column_products
// see of an element: its prepared values, or its inputs.
template <typename D>
constexpr size_t kPreparedValues = [] {
  if constexpr (requires { D::kPrepared; }) {
    return D::kPrepared;
  } else {
    return size_t(0);
  }
}();
template <typename D>
constexpr size_t kElementValues = kPreparedValues<D> > 0 ? kPreparedValues<D> : D::kInputs;

// The operands of one run of a kernel over `rows` rows of n elements: each pointer at the first row
// (rows contiguous, n apart); nullptr where an output is not asked for or a column is left out.
template <typename D, typename T>
struct Operands {
  using M = Math<T>;
  int64_t rows = 0, n = 0;
  std::array<const T*, D::kInputs> inputs{};
  std::array<const M*, D::kColumns> columns{};
  std::array<T*, D::kOutputs> outputs{};
  std::array<const M*, D::kRowInputs> row_inputs{};
  std::array<M*, D::kRowOutputs> row_outputs{};
  M* column_sums = nullptr; // kColumnSums vectors of n, one after the other
};

} // namespace uaccel::rowwise
