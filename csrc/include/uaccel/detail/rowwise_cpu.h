#pragma once
// The CPU engine of row-wise kernels (uaccel/rowwise.h has the contract): rows in parallel on torch's
// pool, a row as vectors of the math type (float; double for double), half types converted on load and
// store, each statistic summed in double from exact products. Include it only from *_isa.cpp files: it
// lives in the inline namespace CPU_CAPABILITY, one copy per instruction set.
#include <ATen/Parallel.h>
#include <ATen/cpu/vec/functional.h>
#include <ATen/cpu/vec/vec.h>
#include <c10/util/bit_cast.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <uaccel/detail/avx512_bf16.h>
#include <uaccel/detail/cpu_capability.h>
#include <uaccel/rowwise.h>

// A lambda's body inlined where it is called (GCC and Clang).
#define UACCEL_INLINE_LAMBDA __attribute__((always_inline))

namespace uaccel::rowwise {
inline namespace CPU_CAPABILITY {
namespace detail {

using at::vec::Vectorized;

// std::array{f(0), ..., f(N - 1)}, each index a constant: built whole, not element by element in a loop,
// so arrays of vectors stay in registers (GCC kept the loop-filled ones on the stack, storing every
// vector of the hot loops there and never reading it back).
template <size_t N, typename F>
C10_ALWAYS_INLINE auto generate(const F& f) {
  using Value = std::invoke_result_t<F, std::integral_constant<size_t, 0>>;
  return [&]<size_t... I>(std::index_sequence<I...>) UACCEL_INLINE_LAMBDA {
    return std::array<Value, N>{f(std::integral_constant<size_t, I>{})...};
  }(std::make_index_sequence<N>{});
}
// f(0), ..., f(N - 1), each index a constant (as generate, for what indexes such arrays).
template <size_t N, typename F>
C10_ALWAYS_INLINE void for_each_index(const F& f) {
  [&]<size_t... I>(std::index_sequence<I...>)
      UACCEL_INLINE_LAMBDA { (f(std::integral_constant<size_t, I>{}), ...); }(std::make_index_sequence<N>{});
}

// A row's elements as vectors of the math type: kParts of them a step of kStep elements (two for the
// half types), `count` elements at the row's end (the rest of the vector zeros). kAvx512Bf16: bfloat16
// rounded by AVX512_BF16's instruction (AVX-512 only; run_cpu checks the CPU).
template <typename T, bool kAvx512Bf16 = false>
struct RowVectors {
  using M = Math<T>;
  using MVec = Vectorized<M>;
  using Parts = std::array<MVec, Vectorized<T>::size() / MVec::size()>;
  static constexpr int64_t kStep = Vectorized<T>::size();
  static constexpr size_t kParts = std::tuple_size_v<Parts>;

  static int64_t in_part(int64_t count, size_t k) {
    return std::clamp<int64_t>(count - int64_t(k) * MVec::size(), 0, MVec::size());
  }
  // A vector of T as vectors of the math type, in order, and back (rounding to nearest even).
  // (The instruction sets' by intrinsics: at::vec's returns a tuple, which GCC kept in memory.)
  static Parts widen(Vectorized<T> v) {
    if constexpr (kParts == 1) {
      return {v};
    } else {
      constexpr bool kBf16 = std::is_same_v<T, at::BFloat16>;
#if defined(CPU_CAPABILITY_AVX512)
      const auto half = [](__m256i h) {
        return kBf16 ? _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16)) : _mm512_cvtph_ps(h);
      };
      return {half(_mm512_extracti64x4_epi64(v, 0)), half(_mm512_extracti64x4_epi64(v, 1))};
#elif defined(CPU_CAPABILITY_AVX2)
      const auto half = [](__m128i h) {
        return kBf16 ? _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16)) : _mm256_cvtph_ps(h);
      };
      return {half(_mm256_castsi256_si128(v)), half(_mm256_extracti128_si256(v, 1))};
#else
      const auto halves = at::vec::convert_to_float<T>(v);
      return {std::get<0>(halves), std::get<1>(halves)};
#endif
    }
  }
  static Vectorized<T> narrow(const Parts& v) {
    if constexpr (kParts == 1) {
      return v[0];
    } else {
#if defined(CPU_CAPABILITY_AVX512)
      if constexpr (kAvx512Bf16) {
        return cpu::detail::narrow_by_avx512_bf16(v[0], v[1]);
      }
#endif
      return at::vec::convert_from_float<T>(v[0], v[1]);
    }
  }
  static Parts load(const T* p, int64_t count) {
    return widen(count == kStep ? Vectorized<T>::loadu(p) : Vectorized<T>::loadu(p, count));
  }

  // Values of the math type (a column), ones where p is null.
  static Parts load_math(const M* p, int64_t count) {
    return generate<kParts>([&](size_t k) {
      const int64_t n = in_part(count, k);
      return p == nullptr     ? MVec(M(1))
          : n == MVec::size() ? MVec::loadu(p + k * MVec::size())
                              : MVec::loadu(p + k * MVec::size(), n);
    });
  }
  // Stores `count` elements; a whole step with `stream` (p then aligned to the vector's bytes) bypasses the
  // caches (no read of the line first), where the instruction set has such stores.
  static void store(T* p, int64_t count, Vectorized<T> out, bool stream) {
    if (count != kStep) {
      out.store(p, count);
    } else if (stream) {
#if defined(CPU_CAPABILITY_AVX512)
      _mm512_stream_si512(reinterpret_cast<__m512i*>(p), _mm512_castpd_si512(c10::bit_cast<__m512d>(out)));
#elif defined(CPU_CAPABILITY_AVX2)
      _mm256_stream_si256(reinterpret_cast<__m256i*>(p), _mm256_castpd_si256(c10::bit_cast<__m256d>(out)));
#else
      out.store(p);
#endif
    } else {
      out.store(p);
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

// A sum of products in float lanes, for the 16-bit types' rows (statistics() says when its total stands).
class FloatSum {
 public:
  void add_product(Vectorized<float> a, Vectorized<float> b) { sum_ = at::vec::fmadd(a, b, sum_); }
  // The lanes widened to double (times one: exact) and summed as DoubleSum's are; read as one vector (lane by
  // lane from memory, the sum was kept in memory through the loop).
  double total() const {
    DoubleSum<float> lanes;
    lanes.add_product(sum_, Vectorized<float>(1.0f));
    return lanes.total();
  }

 private:
  Vectorized<float> sum_{0.0f};
};

// A float sum's total stands where it lies within [2^-60, 2^100] in magnitude: no lane overflowed, and no
// product was small enough to lose bits to float's subnormals; elsewhere (zeros and NaN too) the row is
// summed again in double.
constexpr double kFloatSumLowest = 0x1p-60, kFloatSumHighest = 0x1p100;

// Rows handed to a task of torch's pool: about this many elements.
constexpr int64_t kElementsPerTask = 32768;
// Outputs of at least this many bytes (all together) are stored past the caches (RowVectors::store's
// stream): they would not stay there for the next op, and a cached store reads each line before writing it.
constexpr int64_t kStreamBytes = int64_t{8} << 20;
// Column sums: rows in blocks of a size fixed by the row count alone (at least kMinRowsPerBlock, at most
// kMaxBlocks blocks), each block's sums in its own buffer, then the blocks in order: the same bits on any
// number of threads.
constexpr int64_t kMinRowsPerBlock = 32, kMaxBlocks = 256;

template <typename D, typename T, bool kAvx512Bf16>
class Engine {
  using M = Math<T>;
  using R = RowVectors<T, kAvx512Bf16>;
  using MVec = Vectorized<M>;
  static constexpr size_t kPrepared = kPreparedValues<D>, kElements = kElementValues<D>;
  // Prepared outputs are streamed too, and prepared again in pass 2, where T needs no conversion (float,
  // double): for the 16-bit types, converting the inputs again costs more than reading the output back.
  static constexpr bool kRecomputable = kPrepared > 0 && R::kParts == 1;
  using Elements = std::array<typename R::Parts, kElements>;
  using Columns = std::array<typename R::Parts, D::kColumns>;

 public:
  Engine(const D& description, const Operands<D, T>& operands)
      : d_(description), op_(operands), stream_(streams(operands)), stream_prepared_(stream_ && kRecomputable) {}

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
      end_streaming();
    });
  }

 private:
  // Whether the outputs are streamed: large, and every row's steps aligned to the vector's bytes.
  static bool streams(const Operands<D, T>& o) {
    constexpr int64_t kBytes = sizeof(Vectorized<T>);
    int64_t bytes = 0;
    for (size_t k = 0; k < D::kOutputs; ++k) {
      if (o.outputs[k] != nullptr) {
        if (reinterpret_cast<uintptr_t>(o.outputs[k]) % kBytes != 0) {
          return false;
        }
        bytes += o.rows * o.n * int64_t(sizeof(T));
      }
    }
    return bytes >= kStreamBytes && (o.n * int64_t(sizeof(T))) % kBytes == 0;
  }
  // Streamed stores are weakly ordered: fenced before the task's rows are handed back.
  void end_streaming() const {
#if defined(CPU_CAPABILITY_AVX512) || defined(CPU_CAPABILITY_AVX2)
    if (stream_) {
      _mm_sfence();
    }
#endif
  }
  bool maps() const {
    return std::any_of(op_.outputs.begin() + kPrepared, op_.outputs.end(), [](const T* p) { return p != nullptr; });
  }
  bool statistics_needed() const {
    return maps() || kPrepared > 0 ||
        std::any_of(op_.row_outputs.begin(), op_.row_outputs.end(), [](const M* p) { return p != nullptr; });
  }

  // One row's operands, copied out of the shared Operands (and the description with them) so that the
  // compiler knows the stores through them change none of them.
  struct RowOperands {
    D d;
    std::array<const T*, D::kInputs> in;
    std::array<T*, D::kOutputs> out;
    std::array<const M*, D::kColumns> columns;

    Columns load_columns(int64_t j, int64_t count) const {
      return generate<D::kColumns>(
          [&](size_t c) { return R::load_math(columns[c] == nullptr ? nullptr : columns[c] + j, count); });
    }
    // The next row's inputs at j, fetched into L2 while this row's pass 2 converts (its pass 1 then reads
    // them there, not from memory; L1 holds this row). Only for the 16-bit types: a float row's pass 2 is
    // bound by memory itself (its stores), and the extra fetches slowed it.
    void prefetch_next_row(int64_t j, int64_t n) const {
      if constexpr (R::kParts > 1) {
        for (const T* p : in) {
          __builtin_prefetch(p + n + j, 0, 2);
        }
      }
    }
    // The prepared values at j, from the inputs, as T (what is stored, and what is normalised).
    std::array<Vectorized<T>, kPrepared> prepare(int64_t j, int64_t count) const {
      const auto inputs = generate<D::kInputs>([&](size_t i) { return R::load(in[i] + j, count); });
      const auto prepared = generate<R::kParts>(
          [&](size_t k) { return d.prepare(generate<D::kInputs>([&](size_t i) { return inputs[i][k]; })); });
      return generate<kPrepared>(
          [&](size_t e) { return R::narrow(generate<R::kParts>([&](size_t k) { return prepared[k][e]; })); });
    }
    static Elements widen(const std::array<Vectorized<T>, kPrepared>& prepared) {
      return generate<kPrepared>([&](size_t e) { return R::widen(prepared[e]); });
    }
    // The element values at j: the inputs, or the prepared values, read back from their outputs or (where
    // those were streamed past the caches) prepared again from the inputs, still in the cache.
    Elements load_elements(int64_t j, int64_t count, bool streamed) const {
      if constexpr (kRecomputable) {
        if (streamed) {
          return widen(prepare(j, count));
        }
      }
      return generate<kElements>([&](size_t e) { return R::load((kPrepared > 0 ? out[e] : in[e]) + j, count); });
    }
  };

  RowOperands row_operands(int64_t r) const {
    RowOperands row{d_, {}, {}, op_.columns};
    for (size_t i = 0; i < D::kInputs; ++i) {
      row.in[i] = op_.inputs[i] + r * op_.n;
    }
    for (size_t o = 0; o < D::kOutputs; ++o) {
      row.out[o] = op_.outputs[o] == nullptr ? nullptr : op_.outputs[o] + r * op_.n;
    }
    return row;
  }

  // f(j, count) over a row's steps: the whole ones (count a constant, so the loads and stores have no
  // branch), then what is left. f is inlined
  // (UACCEL_INLINE_LAMBDA): called out of line, it kept the statistics' sums in memory.
  template <typename F>
  C10_ALWAYS_INLINE static void for_each_step(int64_t n, const F& f) {
    int64_t j = 0;
    for (; j + R::kStep <= n; j += R::kStep) {
      f(j, R::kStep);
    }
    if (j < n) {
      f(j, n - j);
    }
  }

  // The description's function f at each part k of the element: f(x_k..., w_k...).
  template <typename F>
  C10_ALWAYS_INLINE static auto per_part(size_t k, const Elements& x, const Columns& w, const F& f) {
    return f(generate<kElements>([&](size_t e) { return x[e][k]; }), generate<D::kColumns>([&](size_t c) {
               return w[c][k];
             }));
  }

  // Pass 1: the prepared values stored, and the statistics: in double from exact products; for the 16-bit
  // types (whose outputs' ulp is 2^8 or 2^11 times float's) in float lanes, whose widening to double cost
  // more than the rest of the pass, and again in double where their total does not stand.
  static std::array<double, D::kSums> statistics(const RowOperands& row, int64_t n, bool stream) {
    if constexpr (R::kParts > 1) {
      const auto totals = statistics_in<FloatSum>(row, n, stream);
      if (std::all_of(totals.begin(), totals.end(), [](double total) {
            return std::abs(total) >= kFloatSumLowest && std::abs(total) <= kFloatSumHighest;
          })) {
        return totals;
      }
    }
    return statistics_in<DoubleSum<M>>(row, n, stream);
  }

  template <typename Sum>
  static std::array<double, D::kSums> statistics_in(const RowOperands& row, int64_t n, bool stream) {
    std::array<std::array<Sum, D::kSums>, R::kParts> sums; // a part each: fma chains apart
    for_each_step(n, [&](int64_t j, int64_t count) UACCEL_INLINE_LAMBDA {
      const Elements x = [&]() UACCEL_INLINE_LAMBDA {
        if constexpr (kPrepared > 0) {
          const auto prepared = row.prepare(j, count);
          for_each_index<kPrepared>([&](size_t e) { R::store(row.out[e] + j, count, prepared[e], stream); });
          return row.widen(prepared);
        } else {
          return row.load_elements(j, count, false);
        }
      }();
      const auto w = row.load_columns(j, count);
      for_each_index<R::kParts>([&](size_t k) {
        const auto terms = per_part(k, x, w, [&](const auto& xk, const auto& wk) { return row.d.products(xk, wk); });
        for_each_index<D::kSums>([&](size_t s) { sums[k][s].add_product(terms[s].a, terms[s].b); });
      });
    });
    std::array<double, D::kSums> totals{};
    for_each_index<R::kParts>(
        [&](size_t k) { for_each_index<D::kSums>([&](size_t s) { totals[s] += sums[k][s].total(); }); });
    return totals;
  }

  // Row r whole: its statistics, constants and outputs; its column terms added into `column_sums` (kColumnSums
  // vectors of n) where not null. Everything it calls is inlined (flatten): a step's vectors stay in
  // registers only where no call out of line (the compiler kept the short last step's) takes their address.
  __attribute__((flatten)) void row(int64_t r, M* column_sums) const {
    const int64_t n = op_.n;
    const RowOperands row = row_operands(r);
    const bool mapping = maps();
    std::array<double, D::kSums> sums{};
    if (statistics_needed()) {
      sums = statistics(row, n, stream_prepared_);
    }
    Values<M, D::kRowInputs> row_in;
    for (size_t i = 0; i < D::kRowInputs; ++i) {
      row_in[i] = op_.row_inputs[i][r];
    }
    Values<M, D::kRowOutputs> row_out;
    const auto constants = row.d.finish(sums, n, row_in, row_out);
    for (size_t i = 0; i < D::kRowOutputs; ++i) {
      if (op_.row_outputs[i] != nullptr) {
        op_.row_outputs[i][r] = row_out[i];
      }
    }
    if (!mapping && column_sums == nullptr) {
      return;
    }
    for_each_step(
        n, [&](int64_t j, int64_t count) UACCEL_INLINE_LAMBDA { // pass 2: outputs and column terms, one read of the row
          row.prefetch_next_row(j, n);
          const auto x = row.load_elements(j, count, stream_prepared_);
          const auto w = row.load_columns(j, count);
          if (mapping) {
            const auto values = generate<R::kParts>([&](size_t k) {
              return per_part(k, x, w, [&](const auto& xk, const auto& wk) { return row.d.map(constants, xk, wk); });
            });
            for_each_index<D::kOutputs - kPrepared>([&](size_t o) {
              if (T* p = row.out[kPrepared + o]) {
                R::store(p + j, count, R::narrow(generate<R::kParts>([&](size_t k) { return values[k][o]; })), stream_);
              }
            });
          }
          if constexpr (D::kColumnSums > 0) {
            if (column_sums != nullptr) {
              add_column_terms(row.d, constants, x, w, column_sums + j, n, count);
            }
          }
        });
  }

  // The column terms of a step's elements, added into the sums at `sums` (kColumnSums vectors, n apart).
  template <typename Constants>
  static void add_column_terms(
      const D& d, const Constants& constants, const Elements& x, const Columns& w, M* sums, int64_t n, int64_t count) {
    for (size_t k = 0; k < R::kParts; ++k) {
      const int64_t in_part = R::in_part(count, k);
      if (in_part == 0) {
        continue;
      }
      const auto terms =
          per_part(k, x, w, [&](const auto& xk, const auto& wk) { return d.column_products(constants, xk, wk); });
      for (size_t s = 0; s < D::kColumnSums; ++s) {
        M* p = sums + s * n + k * MVec::size();
        const auto sum = in_part == MVec::size() ? MVec::loadu(p) : MVec::loadu(p, in_part);
        at::vec::fmadd(terms[s].a, terms[s].b, sum).store(p, in_part);
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
      end_streaming();
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
  const bool stream_, stream_prepared_;
};

} // namespace detail

// Runs description d over the operands' rows.
template <typename D, typename T>
void run_cpu(const D& d, const Operands<D, T>& operands) {
#if defined(CPU_CAPABILITY_AVX512)
  if constexpr (std::is_same_v<T, at::BFloat16>) {
    if (cpu::has_avx512_bf16()) {
      detail::Engine<D, T, true>(d, operands).run();
      return;
    }
  }
#endif
  detail::Engine<D, T, false>(d, operands).run();
}

} // namespace CPU_CAPABILITY
} // namespace uaccel::rowwise
