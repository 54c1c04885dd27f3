#pragma once
// CPU elementwise driver: runs an op over a TensorIterator with at::vec::Vectorized on
// contiguous runs and a scalar loop on strided ones, in parallel over ATen's grain size.
//
// An op is a functor with `T operator()(T...)` and `Vectorized<T> vec(Vectorized<T>...)`, where
// T = at::opmath_type<scalar_t> (float for float16/bfloat16), returning Outputs of them for M
// outputs (a backward's gradients, uaccel/detail/outputs.h): the math is written once per op.
//
// Include it only from translation units compiled once per instruction set (*_isa.cpp, see
// CMakeLists.txt): everything here lives in the inline namespace CPU_CAPABILITY, as ATen's vec code
// does, so the AVX2 and AVX-512 copies never merge at link time.
#include <ATen/OpMathType.h>
#include <ATen/Parallel.h>
#include <ATen/TensorIterator.h>
#include <ATen/cpu/vec/functional.h>
#include <ATen/cpu/vec/vec.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <pthread.h>

#include <uaccel/detail/avx512_bf16.h>
#include <uaccel/detail/cpu_capability.h>
#include <uaccel/detail/outputs.h>

namespace uaccel::cpu {
inline namespace CPU_CAPABILITY {

// The pool these loops' at::parallel_for runs on, as compiled: torch's OpenMP or native one, or "none"
// where torch uses OpenMP but this unit was compiled without it (-fopenmp: torch_uaccel_use_torch_parallel),
// whose loops then run on the calling thread alone.
inline constexpr const char* kParallelBackend =
#if defined(_OPENMP)
    "openmp";
#elif AT_PARALLEL_NATIVE
    "native";
#else
    "none";
#endif

namespace detail {

// How far ahead of each input the contiguous loops prefetch: a strided view's rows (silu_and_mul's halves
// of [..., 2d]) break the hardware prefetcher's streams once the tensors live in DRAM, and past the end
// of one row lies the next one's start. Prefetching past an input's end is harmless (no fault).
constexpr int64_t kPrefetchBytes = 4096;

// On the contiguous cores: the op inlined into its loop, whose constants then stay in registers (GCC's
// own heuristics called a large op's math out of line: every vector paid a call and reloaded every
// constant). Not on the DEFAULT set, whose vectors are loops over arrays, nor under AddressSanitizer,
// whose instrumented code flattened is too slow to compile.
#if (defined(CPU_CAPABILITY_AVX512) || defined(CPU_CAPABILITY_AVX2)) && !defined(__SANITIZE_ADDRESS__)
#define UACCEL_OP_INLINED_INTO_LOOP [[gnu::flatten]]
#else
#define UACCEL_OP_INLINED_INTO_LOOP
#endif

// Stores result k of a functor (one value, or Outputs) to out[k], as scalar_t.
template <size_t M, typename R, typename scalar_t>
void store(const R& result, const std::array<scalar_t*, M>& out, int64_t i) {
  for (size_t k = 0; k < M; ++k) {
    if constexpr (requires { output_part(result, k).store(out[k] + i); }) {
      output_part(result, k).store(out[k] + i);
    } else {
      out[k][i] = static_cast<scalar_t>(output_part(result, k));
    }
  }
}

// Contiguous raw-pointer core in the math type: out_k[i] = op(in_0[i], ..., in_N-1[i]) result k.
template <typename T, size_t M, typename Op, size_t... I>
UACCEL_OP_INLINED_INTO_LOOP void map_contiguous(
    const std::array<T*, M>& out,
    const std::array<const T*, sizeof...(I)>& in,
    int64_t n,
    const Op& shared_op,
    std::index_sequence<I...>) {
  using Vec = at::vec::Vectorized<T>;
  // Locals: no store through `out` can alias them, so the coefficients and pointers stay in registers.
  const Op op = shared_op;
  const std::array<const T*, sizeof...(I)> from = in;
  const std::array<T*, M> to = out;
  int64_t i = 0;
  for (; i + Vec::size() <= n; i += Vec::size()) {
    (__builtin_prefetch(from[I] + i + kPrefetchBytes / sizeof(T)), ...);
    store<M>(op.vec(Vec::loadu(from[I] + i)...), to, i);
  }
  for (; i < n; ++i) {
    store<M>(op(from[I][i]...), to, i);
  }
}

// A vector of a half type in registers as two vectors of float, and back (rounding to nearest even).
// The ops are elementwise, so which elements go into which float vector is free: for bfloat16 on AVX2
// the even elements and the odd ones (a shift, a blend with zero; back: one blend, no lane crossing),
// fewer instructions than at::vec's order-keeping conversion, which is used elsewhere. Shifts and
// blends need no constant vector, which GCC rebuilds in the loop from a general register. The bits
// are the same either way (NaN stays a NaN): tests/test_op_table.py checks every half-type kernel
// against the float one, rounded once.
template <typename scalar_t>
std::tuple<at::vec::Vectorized<float>, at::vec::Vectorized<float>> widen(at::vec::Vectorized<scalar_t> v) {
#if defined(CPU_CAPABILITY_AVX2)
  if constexpr (std::is_same_v<scalar_t, at::BFloat16>) {
    const __m256i bits = v;
    return {
        _mm256_castsi256_ps(_mm256_slli_epi32(bits, 16)),
        _mm256_castsi256_ps(_mm256_blend_epi16(bits, _mm256_setzero_si256(), 0x55))};  // low words zeroed
  }
#endif
  return at::vec::convert_to_float<scalar_t>(v);
}

#if defined(CPU_CAPABILITY_AVX2)
// bfloat16 rounded to nearest even in the high half of each lane, as c10::BFloat16 rounds (a NaN
// becomes its quiet NaN: rounding could carry one into infinity).
inline __m256i round_to_bfloat16_high(__m256 v) {
  const __m256i bits = _mm256_castps_si256(v);
  const __m256i lsb = _mm256_srli_epi32(_mm256_slli_epi32(bits, 15), 31);  // bit 16
  const __m256i rounded = _mm256_add_epi32(bits, _mm256_add_epi32(lsb, _mm256_set1_epi32(0x7fff)));
  const __m256i ordered = _mm256_castps_si256(_mm256_cmp_ps(v, v, _CMP_ORD_Q));
  return _mm256_blendv_epi8(_mm256_set1_epi32(0x7fc00000), rounded, ordered);
}
#endif

// The inverse of widen<scalar_t>; kAvx512Bf16: by AVX512_BF16's instruction (bfloat16 on AVX-512 only).
template <typename scalar_t, bool kAvx512Bf16 = false>
at::vec::Vectorized<scalar_t> narrow(at::vec::Vectorized<float> first, at::vec::Vectorized<float> second) {
#if defined(CPU_CAPABILITY_AVX512)
  if constexpr (kAvx512Bf16) {
    return narrow_by_avx512_bf16(first, second);
  }
#elif defined(CPU_CAPABILITY_AVX2)
  if constexpr (std::is_same_v<scalar_t, at::BFloat16>) {
    const __m256i even = _mm256_srli_epi32(round_to_bfloat16_high(first), 16);
    return _mm256_blend_epi16(even, round_to_bfloat16_high(second), 0xAA);  // odd 16-bit words from the second
  }
#endif
  return at::vec::convert_from_float<scalar_t>(first, second);
}

// A formula's tabulated input (uaccel/pointwise.h's Formula), where it is a 16-bit type: the K functions
// of it as tables over all 65536 bit patterns, one after another, as the float kernel computes them from
// the patterns in order. Built by the first caller; threads racing to it each build one and the first
// published is kept, so no lock is held (a fork() in mid-build leaves the child none to wait on). Never
// freed: 256 KiB a function, for the life of the process.
template <typename Op>
concept Tabulated = requires { Op::kTabulatedInput; };

template <typename Op>
struct TabulatedFunctions {
  Op op;
  template <typename V>
  auto operator()(V x) const {
    return op.tabulated(x);
  }
  template <typename V>
  auto vec(V x) const {
    return op.tabulated(x);
  }
};

inline constexpr size_t kBitPatterns = size_t{1} << 16;

template <typename Op>
inline constexpr size_t kTabulatedFunctions = sizeof(decltype(std::declval<Op>().tabulated(0.0f))::v) / sizeof(float);

template <typename scalar_t, typename Op>
[[gnu::noinline, gnu::cold]] std::unique_ptr<float[]> build_tables(const Op& op) {
  constexpr size_t K = kTabulatedFunctions<Op>;
  std::vector<float> inputs(kBitPatterns);
  for (size_t bits = 0; bits < kBitPatterns; ++bits) {
    inputs[bits] = static_cast<float>(scalar_t(static_cast<uint16_t>(bits), scalar_t::from_bits()));
  }
  auto tables = std::make_unique<float[]>(K * kBitPatterns);
  std::array<float*, K> functions;
  for (size_t k = 0; k < K; ++k) {
    functions[k] = tables.get() + k * kBitPatterns;
  }
  map_contiguous(
      functions, std::array<const float*, 1>{inputs.data()}, kBitPatterns, TabulatedFunctions<Op>{op},
      std::index_sequence<0>{});
  return tables;
}

template <typename scalar_t, typename Op>
const float* tables_of(const Op& op) {
  static_assert(std::is_empty_v<Op>, "a tabulated function depends on its formula's type alone");
  static std::atomic<const float*> published{nullptr};
  if (const float* tables = published.load(std::memory_order_acquire)) {
    return tables;
  }
  auto built = build_tables<scalar_t>(op);
  const float* first = nullptr;
  if (published.compare_exchange_strong(first, built.get(), std::memory_order_acq_rel)) {
    return built.release();
  }
  return first;
}

#if defined(CPU_CAPABILITY_AVX512) || defined(CPU_CAPABILITY_AVX2)
// A half-type vector's bit patterns as two vectors of 32-bit indices, in widen's order; a gather by them.
#if defined(CPU_CAPABILITY_AVX512)
using Indices = __m512i;
template <typename scalar_t>
std::tuple<Indices, Indices> widen_bits(at::vec::Vectorized<scalar_t> v) {
  const __m512i bits = v;
  return {
      _mm512_cvtepu16_epi32(_mm512_castsi512_si256(bits)), _mm512_cvtepu16_epi32(_mm512_extracti64x4_epi64(bits, 1))};
}
inline at::vec::Vectorized<float> gather(const float* table, Indices at) {
  return _mm512_i32gather_ps(at, table, sizeof(float));
}
#else
using Indices = __m256i;
template <typename scalar_t>
std::tuple<Indices, Indices> widen_bits(at::vec::Vectorized<scalar_t> v) {
  const __m256i bits = v;
  if constexpr (std::is_same_v<scalar_t, at::BFloat16>) {
    return {_mm256_blend_epi16(bits, _mm256_setzero_si256(), 0xAA), _mm256_srli_epi32(bits, 16)};
  } else {
    return {
        _mm256_cvtepu16_epi32(_mm256_castsi256_si128(bits)), _mm256_cvtepu16_epi32(_mm256_extracti128_si256(bits, 1))};
  }
}
inline at::vec::Vectorized<float> gather(const float* table, Indices at) {
  return _mm256_i32gather_ps(table, at, sizeof(float));
}
#endif

// The tabulated input's functions for the lanes of `bits` (a gather each), or its own value for the
// other inputs: the argument of combine in input J's place.
template <size_t J, typename Op>
auto combine_argument(at::vec::Vectorized<float> x, Indices bits, const float* tables) {
  if constexpr (J == Op::kTabulatedInput) {
    Outputs<at::vec::Vectorized<float>, kTabulatedFunctions<Op>> functions;
    for (size_t k = 0; k < kTabulatedFunctions<Op>; ++k) {
      functions.v[k] = gather(tables + k * kBitPatterns, bits);
    }
    return functions;
  } else {
    return x;
  }
}

#endif

template <size_t J, typename Op, typename scalar_t>
auto combine_argument(scalar_t x, const float* tables) {
  if constexpr (J == Op::kTabulatedInput) {
    Outputs<float, kTabulatedFunctions<Op>> functions;
    for (size_t k = 0; k < kTabulatedFunctions<Op>; ++k) {
      functions.v[k] = tables[k * kBitPatterns + x.x];
    }
    return functions;
  } else {
    return static_cast<float>(x);
  }
}

// Where the tables pay: bfloat16's 128 values a binade keep a tensor's lookups in L1; float16's 1024
// spill them to L2, where AVX-512's gathered backward is slower than its computed one.
template <typename Op, typename scalar_t>
inline constexpr bool kLooksUp =
#if defined(CPU_CAPABILITY_AVX512)
    Tabulated<Op> && std::is_same_v<scalar_t, at::BFloat16>;
#elif defined(CPU_CAPABILITY_AVX2)
    Tabulated<Op>;
#else
    false;
#endif

// Contiguous core for half types: each vector of scalar_t is widened in registers into two vectors
// of float, the op runs on both (or combines what it looks up, where kLooksUp) and the results are
// narrowed on the store, as ATen's own reduced-precision loops do (no pass through a float buffer).
template <bool kAvx512Bf16, typename scalar_t, size_t M, typename Op, size_t... I>
UACCEL_OP_INLINED_INTO_LOOP void map_contiguous_reduced(
    const std::array<scalar_t*, M>& out,
    const std::array<const scalar_t*, sizeof...(I)>& in,
    int64_t n,
    const Op& op,
    std::index_sequence<I...>) {
  using Vec = at::vec::Vectorized<scalar_t>;
  constexpr bool kLookUp = kLooksUp<Op, scalar_t>;
  const float* tables = nullptr;
  if constexpr (kLookUp) {
    tables = tables_of<scalar_t>(op);
  }
  // Locals, as in map_contiguous.
  const Op local_op = op;
  const std::array<const scalar_t*, sizeof...(I)> from = in;
  const std::array<scalar_t*, M> to = out;
  int64_t i = 0;
  for (; i + Vec::size() <= n; i += Vec::size()) {
    (__builtin_prefetch(from[I] + i + kPrefetchBytes / sizeof(scalar_t)), ...);
    const std::array loaded{Vec::loadu(from[I] + i)...};
    const std::array wide{widen<scalar_t>(loaded[I])...};
    const auto half = [&]<size_t H>() {  // the op on the first (H = 0) or second float vector
#if defined(CPU_CAPABILITY_AVX512) || defined(CPU_CAPABILITY_AVX2)
      if constexpr (kLookUp) {
        const Indices bits = std::get<H>(widen_bits<scalar_t>(loaded[Op::kTabulatedInput]));
        return local_op.combine(combine_argument<I, Op>(std::get<H>(wide[I]), bits, tables)...);
      }
#endif
      return local_op.vec(std::get<H>(wide[I])...);
    };
    const auto first = half.template operator()<0>();
    const auto second = half.template operator()<1>();
    for (size_t k = 0; k < M; ++k) {
      narrow<scalar_t, kAvx512Bf16>(output_part(first, k), output_part(second, k)).store(to[k] + i);
    }
  }
  for (; i < n; ++i) {
    if constexpr (kLookUp) {
      store<M>(local_op.combine(combine_argument<I, Op>(from[I][i], tables)...), to, i);
    } else {
      store<M>(local_op(static_cast<at::opmath_type<scalar_t>>(from[I][i])...), to, i);
    }
  }
}

// Contiguous core for any storage type, with one math path (in the math type) for every dtype.
template <typename scalar_t, size_t N, size_t M, typename Op>
void map_contiguous(
    const std::array<scalar_t*, M>& out, const std::array<const scalar_t*, N>& in, int64_t n, const Op& op) {
  if constexpr (at::is_reduced_floating_point_v<scalar_t>) {
#if defined(CPU_CAPABILITY_AVX512)
    if constexpr (std::is_same_v<scalar_t, at::BFloat16>) {
      if (has_avx512_bf16()) {
        map_contiguous_reduced<true>(out, in, n, op, std::make_index_sequence<N>{});
        return;
      }
    }
#endif
    map_contiguous_reduced<false>(out, in, n, op, std::make_index_sequence<N>{});
  } else {
    map_contiguous(out, in, n, op, std::make_index_sequence<N>{});
  }
}

// Strided scalar core; `data`/`strides` are TensorIterator's (M outputs, then the inputs; strides in bytes).
template <typename scalar_t, size_t M, typename Op, size_t... I>
void map_strided(char* const* data, const int64_t* strides, int64_t n, const Op& op, std::index_sequence<I...>) {
  using T = at::opmath_type<scalar_t>;
  for (int64_t i = 0; i < n; ++i) {
    const auto result = op(static_cast<T>(*reinterpret_cast<const scalar_t*>(data[M + I] + i * strides[M + I]))...);
    for (size_t k = 0; k < M; ++k) {
      *reinterpret_cast<scalar_t*>(data[k] + i * strides[k]) = static_cast<scalar_t>(output_part(result, k));
    }
  }
}

// loop(op), or, where the op has `specialize(loop)`, loop(a copy of op whose run-time choices for the
// case at hand are compile-time constants, see ops/elu.h). A loop over two vectors per step (half types)
// keeps no test of them inside: GCC unswitches the one-vector loop, not that one.
template <typename Op, typename Loop>
void specialized(const Op& op, const Loop& loop) {
  if constexpr (requires { op.specialize(loop); }) {
    op.specialize(loop);
  } else {
    loop(op);
  }
}

} // namespace detail

// Where the chunks of a parallel loop start: at a multiple of kChunkAlignment elements from the start of
// a contiguous run, so that every element falls in the vector it falls in on one thread, and its result
// is the same bits at any thread count (a vector's lanes take one path: one lane past a table's reach
// sends the whole vector out of line; and a run's tail is computed by the scalar math). A multiple of
// every vector's length (32 bfloat16 on AVX-512).
inline constexpr int64_t kChunkAlignment = 64;

// Whether this process is a fork() child. GNU OpenMP's thread pool does not survive fork(): a child's
// first parallel region waits forever for the parent's threads (ATen's own ops hang so). There the loops
// run on the calling thread. Registered while the library loads (library_cpu_isa.cpp), so a child of a
// parent that ran any parallel region knows it.
inline bool in_forked_child() {
  static std::atomic<bool> forked{false};
  [[maybe_unused]] static const int registered =
      pthread_atfork(nullptr, nullptr, [] { forked.store(true, std::memory_order_relaxed); });
  return forked.load(std::memory_order_relaxed);
}

// at::parallel_for, but on the calling thread in a fork() child.
template <typename F>
void parallel_for(int64_t begin, int64_t end, int64_t grain_size, const F& f) {
  if (end - begin > grain_size && in_forked_child()) [[unlikely]] {
    f(begin, end);
  } else {
    at::parallel_for(begin, end, grain_size, f);
  }
}

// Runs `op` over n elements laid out alike in memory (dense tensors with one layout), in parallel over
// ATen's grain size: no TensorIterator to build, which is most of a small tensor's cost.
template <typename scalar_t, size_t N, size_t M, typename Op>
void elementwise_dense(
    const std::array<scalar_t*, M>& out, const std::array<const scalar_t*, N>& in, int64_t n, const Op& any_op) {
  constexpr int64_t kAlign = kChunkAlignment;
  detail::specialized(any_op, [&](const auto& op) {
    parallel_for(0, at::divup(n, kAlign), at::internal::GRAIN_SIZE / kAlign, [&](int64_t first, int64_t last) {
      const int64_t begin = first * kAlign, end = std::min(n, last * kAlign);
      std::array<const scalar_t*, N> from;
      std::array<scalar_t*, M> to;
      for (size_t k = 0; k < N; ++k) {
        from[k] = in[k] + begin;
      }
      for (size_t k = 0; k < M; ++k) {
        to[k] = out[k] + begin;
      }
      detail::map_contiguous(to, from, end - begin, op);
    });
  });
}

// Runs `op` over `iter` (M outputs, N inputs, all of dtype scalar_t).
template <typename scalar_t, size_t N, size_t M, typename Op>
void elementwise(at::TensorIteratorBase& iter, const Op& any_op) {
  TORCH_INTERNAL_ASSERT(iter.ninputs() == static_cast<int>(N) && iter.noutputs() == static_cast<int>(M));
  constexpr int kTensors = N + M;
  // A chunk's boundary moved back to a multiple of kChunkAlignment from the start of its row (the
  // iterator's first dimension, whose elements are adjacent in its linear order).
  const int64_t numel = iter.numel(), row = iter.ndim() == 0 ? 1 : iter.shape()[0];
  const auto aligned = [&](int64_t i) { return i >= numel ? numel : i - i % row % kChunkAlignment; };
  detail::specialized(any_op, [&](const auto& op) {
    const auto loop = [&](char** data, const int64_t* strides, int64_t size0, int64_t size1) {
      const int64_t* outer_strides = strides + kTensors;
      const bool contiguous = std::all_of(strides, strides + kTensors, [](int64_t s) {
        return s == static_cast<int64_t>(sizeof(scalar_t));
      });
      std::array<char*, kTensors> ptrs;
      std::copy(data, data + kTensors, ptrs.begin());
      for (int64_t outer = 0; outer < size1; ++outer) {
        if (contiguous) {
          std::array<scalar_t*, M> to;
          std::array<const scalar_t*, N> from;
          for (size_t k = 0; k < M; ++k) {
            to[k] = reinterpret_cast<scalar_t*>(ptrs[k]);
          }
          for (size_t k = 0; k < N; ++k) {
            from[k] = reinterpret_cast<const scalar_t*>(ptrs[M + k]);
          }
          detail::map_contiguous(to, from, size0, op);
        } else {
          detail::map_strided<scalar_t, M>(ptrs.data(), strides, size0, op, std::make_index_sequence<N>{});
        }
        for (int k = 0; k < kTensors; ++k) {
          ptrs[k] += outer_strides[k];
        }
      }
    };
    parallel_for(0, numel, at::internal::GRAIN_SIZE, [&](int64_t begin, int64_t end) {
      if (aligned(begin) < aligned(end)) {
        iter.serial_for_each(loop, {aligned(begin), aligned(end)});
      }
    });
  });
}

} // namespace CPU_CAPABILITY
} // namespace uaccel::cpu
