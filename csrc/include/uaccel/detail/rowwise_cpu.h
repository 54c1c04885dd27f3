#pragma once
// The CPU engine of row-wise kernels (uaccel/rowwise.h has the contract): rows in parallel on torch's
// pool, a row as vectors of the math type (float; double for double), half types converted on load and
// store, each statistic summed in double from exact products. Include it only from *_isa.cpp files: it
// lives in the inline namespace CPU_CAPABILITY, one copy per instruction set.
#include <ATen/Parallel.h>
#include <ATen/cpu/vec/functional.h>
#include <ATen/cpu/vec/vec.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <tuple>
#include <type_traits>
#include <vector>

#include <uaccel/rowwise.h>

namespace uaccel::rowwise {
inline namespace CPU_CAPABILITY {
namespace detail {

using at::vec::Vectorized;

// A row's elements as vectors of the math type: kParts of them a step of kStep elements (two for the
// half types), `count` elements at the row's end (the rest of the vector zeros).
template <typename T>
struct RowVectors {
  using M = Math<T>;
  using MVec = Vectorized<M>;
  using Parts = std::array<MVec, Vectorized<T>::size() / MVec::size()>;
  static constexpr int64_t kStep = Vectorized<T>::size();
  static constexpr size_t kParts = std::tuple_size_v<Parts>;

  static int64_t in_part(int64_t count, size_t k) {
    return std::clamp<int64_t>(count - int64_t(k) * MVec::size(), 0, MVec::size());
  }
  static Parts load(const T* p, int64_t count) {
    const auto v = count == kStep ? Vectorized<T>::loadu(p) : Vectorized<T>::loadu(p, count);
    if constexpr (kParts == 1) {
      return {v};
    } else {
      const auto [lo, hi] = at::vec::convert_to_float<T>(v);
      return {lo, hi};
    }
  }
  // Values of the math type (a column), ones where p is null.
  static Parts load_math(const M* p, int64_t count) {
    Parts parts;
    for (size_t k = 0; k < kParts; ++k) {
      const int64_t n = in_part(count, k);
      parts[k] = p == nullptr ? MVec(M(1))
          : n == MVec::size() ? MVec::loadu(p + k * MVec::size())
                              : MVec::loadu(p + k * MVec::size(), n);
    }
    return parts;
  }
  static void store(T* p, int64_t count, const Parts& v) {
    Vectorized<T> out;
    if constexpr (kParts == 1) {
      out = v[0];
    } else {
      out = at::vec::convert_from_float<T>(v[0], v[1]);
    }
    if (count == kStep) {
      out.store(p);
    } else {
      out.store(p, count);
    }
  }
};

// A sum of products in double (float lanes widened first: a product of floats is exact there and
// neither overflows nor underflows), by fused multiply-add.
template <typename M>
class DoubleSum;

template <>
class DoubleSum<double> {
 public:
  void add_product(Vectorized<double> a, Vectorized<double> b) { sum_ = at::vec::fmadd(a, b, sum_); }
  double total() const { return at::vec::vec_reduce_all<double>(std::plus<Vectorized<double>>(), sum_); }

 private:
  Vectorized<double> sum_{0.0};
};

template <>
class DoubleSum<float> {
 public:
  void add_product(Vectorized<float> a, Vectorized<float> b) {
#if defined(CPU_CAPABILITY_AVX512)
    const auto low = [](__m512 v) { return _mm512_cvtps_pd(_mm512_castps512_ps256(v)); };
    const auto high = [](__m512 v) { return _mm512_cvtps_pd(_mm512_extractf32x8_ps(v, 1)); };
    lo_ = _mm512_fmadd_pd(low(a), low(b), lo_);
    hi_ = _mm512_fmadd_pd(high(a), high(b), hi_);
#elif defined(CPU_CAPABILITY_AVX2)
    const auto low = [](__m256 v) { return _mm256_cvtps_pd(_mm256_castps256_ps128(v)); };
    const auto high = [](__m256 v) { return _mm256_cvtps_pd(_mm256_extractf128_ps(v, 1)); };
    lo_ = _mm256_fmadd_pd(low(a), low(b), lo_);
    hi_ = _mm256_fmadd_pd(high(a), high(b), hi_);
#else
    float a_lanes[Vectorized<float>::size()], b_lanes[Vectorized<float>::size()];
    a.store(a_lanes);
    b.store(b_lanes);
    for (size_t k = 0; k < Vectorized<float>::size(); ++k) {
      lanes_[k] += static_cast<double>(a_lanes[k]) * b_lanes[k];
    }
#endif
  }
  double total() const {
#if defined(CPU_CAPABILITY_AVX512)
    return _mm512_reduce_add_pd(_mm512_add_pd(lo_, hi_));
#elif defined(CPU_CAPABILITY_AVX2)
    double lanes[4];
    _mm256_storeu_pd(lanes, _mm256_add_pd(lo_, hi_));
    return (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]);
#else
    double total = 0;
    for (const double lane : lanes_) {
      total += lane;
    }
    return total;
#endif
  }

 private:
#if defined(CPU_CAPABILITY_AVX512)
  __m512d lo_ = _mm512_setzero_pd(), hi_ = _mm512_setzero_pd();
#elif defined(CPU_CAPABILITY_AVX2)
  __m256d lo_ = _mm256_setzero_pd(), hi_ = _mm256_setzero_pd();
#else
  std::array<double, Vectorized<float>::size()> lanes_{};
#endif
};

// Rows handed to a task of torch's pool: about this many elements.
constexpr int64_t kElementsPerTask = 32768;
// Column sums: rows in blocks of a size fixed by the row count alone (at least kMinRowsPerBlock, at most
// kMaxBlocks blocks), each block's sums in its own buffer, then the blocks in order: the same bits on any
// number of threads.
constexpr int64_t kMinRowsPerBlock = 32, kMaxBlocks = 256;

template <typename D, typename T>
class Engine {
  using M = Math<T>;
  using R = RowVectors<T>;
  using MVec = Vectorized<M>;
  static constexpr size_t kPrepared = kPreparedValues<D>, kElements = kElementValues<D>;
  using Elements = std::array<typename R::Parts, kElements>;
  using Columns = std::array<typename R::Parts, D::kColumns>;

 public:
  Engine(const D& description, const Operands<D, T>& operands) : d_(description), op_(operands) {}

  void run() const {
    if (op_.rows == 0) {
      return;
    }
    const int64_t rows_per_task = std::max<int64_t>(1, kElementsPerTask / std::max<int64_t>(op_.n, 1));
    if constexpr (D::kColumnSums > 0) {
      if (op_.column_sums != nullptr) {
        run_with_column_sums();
        return;
      }
    }
    at::parallel_for(0, op_.rows, rows_per_task, [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        row(r, nullptr);
      }
    });
  }

 private:
  bool maps() const {
    return std::any_of(op_.outputs.begin() + kPrepared, op_.outputs.end(), [](const T* p) { return p != nullptr; });
  }
  bool statistics_needed() const {
    return maps() || kPrepared > 0 ||
        std::any_of(op_.row_outputs.begin(), op_.row_outputs.end(), [](const M* p) { return p != nullptr; });
  }

  Columns load_columns(int64_t j, int64_t count) const {
    Columns w;
    for (size_t c = 0; c < D::kColumns; ++c) {
      w[c] = R::load_math(op_.columns[c] == nullptr ? nullptr : op_.columns[c] + j, count);
    }
    return w;
  }

  // The element values at j of row r: the inputs, or (once prepared) the prepared outputs.
  Elements load_elements(int64_t r, int64_t j, int64_t count) const {
    Elements x;
    for (size_t e = 0; e < kElements; ++e) {
      const T* p = kPrepared > 0 ? op_.outputs[e] : op_.inputs[e];
      x[e] = R::load(p + r * op_.n + j, count);
    }
    return x;
  }

  // The description's function f at each part k of the element: f(x_k..., w_k...).
  template <typename F>
  static auto per_part(size_t k, const Elements& x, const Columns& w, const F& f) {
    std::array<MVec, kElements> xk;
    std::array<MVec, D::kColumns> wk;
    for (size_t e = 0; e < kElements; ++e) {
      xk[e] = x[e][k];
    }
    for (size_t c = 0; c < D::kColumns; ++c) {
      wk[c] = w[c][k];
    }
    return f(xk, wk);
  }

  // Pass 1: the prepared values stored, and the statistics.
  std::array<double, D::kSums> statistics(int64_t r) const {
    std::array<DoubleSum<M>, D::kSums> sums;
    for (int64_t j = 0; j < op_.n; j += R::kStep) {
      const int64_t count = std::min(R::kStep, op_.n - j);
      Elements x;
      if constexpr (kPrepared > 0) {
        std::array<typename R::Parts, D::kInputs> in;
        for (size_t i = 0; i < D::kInputs; ++i) {
          in[i] = R::load(op_.inputs[i] + r * op_.n + j, count);
        }
        for (size_t k = 0; k < R::kParts; ++k) {
          std::array<MVec, D::kInputs> ik;
          for (size_t i = 0; i < D::kInputs; ++i) {
            ik[i] = in[i][k];
          }
          const auto prepared = d_.prepare(ik);
          for (size_t e = 0; e < kPrepared; ++e) {
            x[e][k] = math::rounded_as<T>(prepared[e]);
          }
        }
        for (size_t e = 0; e < kPrepared; ++e) {
          R::store(op_.outputs[e] + r * op_.n + j, count, x[e]);
        }
      } else {
        x = load_elements(r, j, count);
      }
      const auto w = load_columns(j, count);
      for (size_t k = 0; k < R::kParts; ++k) {
        const auto terms = per_part(k, x, w, [&](const auto& xk, const auto& wk) { return d_.products(xk, wk); });
        for (size_t s = 0; s < D::kSums; ++s) {
          sums[s].add_product(terms[s].a, terms[s].b);
        }
      }
    }
    std::array<double, D::kSums> totals;
    for (size_t s = 0; s < D::kSums; ++s) {
      totals[s] = sums[s].total();
    }
    return totals;
  }

  // Row r whole: its statistics, constants and outputs; its column terms added into `column_sums` (kColumnSums
  // vectors of n) where not null.
  void row(int64_t r, M* column_sums) const {
    const bool mapping = maps();
    std::array<double, D::kSums> sums{};
    if (statistics_needed()) {
      sums = statistics(r);
    }
    Values<M, D::kRowInputs> row_in;
    for (size_t i = 0; i < D::kRowInputs; ++i) {
      row_in[i] = op_.row_inputs[i][r];
    }
    Values<M, D::kRowOutputs> row_out;
    const auto constants = d_.finish(sums, op_.n, row_in, row_out);
    for (size_t i = 0; i < D::kRowOutputs; ++i) {
      if (op_.row_outputs[i] != nullptr) {
        op_.row_outputs[i][r] = row_out[i];
      }
    }
    if (!mapping && column_sums == nullptr) {
      return;
    }
    for (int64_t j = 0; j < op_.n; j += R::kStep) {
      const int64_t count = std::min(R::kStep, op_.n - j);
      const auto x = load_elements(r, j, count);
      const auto w = load_columns(j, count);
      if (mapping) {
        std::array<typename R::Parts, D::kOutputs - kPrepared> out;
        for (size_t k = 0; k < R::kParts; ++k) {
          const auto values =
              per_part(k, x, w, [&](const auto& xk, const auto& wk) { return d_.map(constants, xk, wk); });
          for (size_t o = 0; o < out.size(); ++o) {
            out[o][k] = values[o];
          }
        }
        for (size_t o = 0; o < out.size(); ++o) {
          if (T* p = op_.outputs[kPrepared + o]) {
            R::store(p + r * op_.n + j, count, out[o]);
          }
        }
      }
      if constexpr (D::kColumnSums > 0) {
        if (column_sums != nullptr) {
          for (size_t k = 0; k < R::kParts; ++k) {
            const int64_t in_part = R::in_part(count, k);
            if (in_part == 0) {
              continue;
            }
            const auto terms = per_part(k, x, w, [&](const auto& xk, const auto& wk) {
              return d_.column_products(constants, xk, wk);
            });
            for (size_t s = 0; s < D::kColumnSums; ++s) {
              M* p = column_sums + s * op_.n + j + k * MVec::size();
              const auto sum = in_part == MVec::size() ? MVec::loadu(p) : MVec::loadu(p, in_part);
              at::vec::fmadd(terms[s].a, terms[s].b, sum).store(p, in_part);
            }
          }
        }
      }
    }
  }

  void run_with_column_sums() const {
    const int64_t rows = op_.rows, n = op_.n, width = int64_t(D::kColumnSums) * n;
    const int64_t rows_per_block = std::max(kMinRowsPerBlock, (rows + kMaxBlocks - 1) / kMaxBlocks);
    const int64_t blocks = (rows + rows_per_block - 1) / rows_per_block;
    std::vector<M> block_sums(static_cast<size_t>(blocks * width), M(0));
    at::parallel_for(0, blocks, 1, [&](int64_t begin, int64_t end) {
      for (int64_t b = begin; b < end; ++b) {
        for (int64_t r = b * rows_per_block; r < std::min(rows, (b + 1) * rows_per_block); ++r) {
          row(r, block_sums.data() + b * width);
        }
      }
    });
    at::parallel_for(0, width, 1024, [&](int64_t begin, int64_t end) {
      std::vector<double> totals(static_cast<size_t>(end - begin), 0.0);
      for (int64_t b = 0; b < blocks; ++b) {
        const M* block = block_sums.data() + b * width;
        for (int64_t j = begin; j < end; ++j) {
          totals[j - begin] += block[j];
        }
      }
      for (int64_t j = begin; j < end; ++j) {
        op_.column_sums[j] = static_cast<M>(totals[j - begin]);
      }
    });
  }

  const D& d_;
  const Operands<D, T>& op_;
};

} // namespace detail

// Runs description d over the operands' rows.
template <typename D, typename T>
void run_cpu(const D& d, const Operands<D, T>& operands) {
  detail::Engine<D, T>(d, operands).run();
}

} // namespace CPU_CAPABILITY
} // namespace uaccel::rowwise
