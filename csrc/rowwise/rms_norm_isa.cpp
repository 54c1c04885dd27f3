// RMSNorm's CPU kernels, compiled once per instruction set (CMakeLists.txt) and registered with the
// dispatch points of rms_norm.h. Rows run in parallel on torch's pool; a row is read as vectors of the
// math type (float; double for double), half types converted on load and store. The sums over a row
// (of x^2, of x * grad) are taken in double, so a row of any length and range keeps its statistics to
// float's precision.
#include <ATen/Dispatch.h>
#include <ATen/Parallel.h>
#include <ATen/cpu/vec/functional.h>
#include <ATen/cpu/vec/vec.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <type_traits>
#include <vector>

#include "rms_norm.h"

namespace uaccel::rowwise {
inline namespace CPU_CAPABILITY {
namespace {

using at::vec::Vectorized;

template <typename T>
using Math = std::conditional_t<std::is_same_v<T, double>, double, float>;

// bfloat16's rounding of float lanes (to nearest, ties to even, as c10::BFloat16's), kept in float: the
// upper 16 bits of the float, rounded, with no packing to 16-bit lanes and back. NaN lanes stay NaN.
Vectorized<float> round_to_bfloat16(Vectorized<float> v) {
#if defined(CPU_CAPABILITY_AVX512)
  const __m512i bits = _mm512_castps_si512(v);
  const __m512i lsb = _mm512_and_si512(_mm512_srli_epi32(bits, 16), _mm512_set1_epi32(1));
  const __m512i biased = _mm512_add_epi32(_mm512_add_epi32(bits, _mm512_set1_epi32(0x7fff)), lsb);
  const __m512 rounded = _mm512_castsi512_ps(_mm512_and_si512(biased, _mm512_set1_epi32(int32_t(0xffff0000u))));
  return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q), rounded, v);
#elif defined(CPU_CAPABILITY_AVX2)
  const __m256i bits = _mm256_castps_si256(v);
  const __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(bits, 16), _mm256_set1_epi32(1));
  const __m256i biased = _mm256_add_epi32(_mm256_add_epi32(bits, _mm256_set1_epi32(0x7fff)), lsb);
  const __m256 rounded = _mm256_castsi256_ps(_mm256_and_si256(biased, _mm256_set1_epi32(int32_t(0xffff0000u))));
  return _mm256_blendv_ps(rounded, v, _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
#else
  float lanes[Vectorized<float>::size()];
  v.store(lanes);
  for (float& lane : lanes) {
    lane = static_cast<float>(static_cast<at::BFloat16>(lane));
  }
  return Vectorized<float>::loadu(lanes);
#endif
}

// A row's elements as vectors of the math type: kParts of them a step of kStep elements (two for the
// half types), `count` elements at the row's end (the rest of the vector zeros).
template <typename T>
struct Row {
  using M = Math<T>;
  using MVec = Vectorized<M>;
  using Parts = std::array<MVec, Vectorized<T>::size() / MVec::size()>;
  static constexpr int64_t kStep = Vectorized<T>::size();
  static constexpr size_t kParts = std::tuple_size_v<Parts>;

  static Parts load(const T* p, int64_t count) {
    const auto v = count == kStep ? Vectorized<T>::loadu(p) : Vectorized<T>::loadu(p, count);
    if constexpr (kParts == 1) {
      return {v};
    } else {
      const auto [lo, hi] = at::vec::convert_to_float<T>(v);
      return {lo, hi};
    }
  }
  // The weight (already in the math type) for the same elements.
  static Parts load_math(const M* p, int64_t count) {
    Parts parts;
    for (size_t k = 0; k < kParts; ++k) {
      const int64_t in_part = std::clamp<int64_t>(count - int64_t(k) * MVec::size(), 0, MVec::size());
      parts[k] =
          in_part == MVec::size() ? MVec::loadu(p + k * MVec::size()) : MVec::loadu(p + k * MVec::size(), in_part);
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
  // The values a cast to T holds (for float and double, the values themselves).
  static Parts rounded(const Parts& v) {
    if constexpr (kParts == 1) {
      return v;
    } else if constexpr (std::is_same_v<T, at::BFloat16>) {
      return {round_to_bfloat16(v[0]), round_to_bfloat16(v[1])};
    } else {
      const auto [lo, hi] = at::vec::convert_to_float<T>(at::vec::convert_from_float<T>(v[0], v[1]));
      return {lo, hi};
    }
  }
};

// A sum of products in double (float lanes widened first: no product of floats overflows or
// underflows there, and each is exact), by fused multiply-add.
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

int64_t rows_per_task(int64_t n) {
  return std::max<int64_t>(1, kElementsPerTask / std::max<int64_t>(n, 1));
}

// The row of x (or, where residual is not null, of x + residual rounded to T, written to sum first).
template <typename T>
void forward_row(
    const T* x,
    const T* residual,
    const Math<T>* weight,
    int64_t n,
    double eps,
    bool cast,
    T* out,
    T* sum,
    Math<T>* rstd) {
  using R = Row<T>;
  using M = Math<T>;
  DoubleSum<M> squares;
  for (int64_t j = 0; j < n; j += R::kStep) {
    const int64_t count = std::min(R::kStep, n - j);
    auto v = R::load(x + j, count);
    if (residual != nullptr) {
      const auto r = R::load(residual + j, count);
      for (size_t k = 0; k < R::kParts; ++k) {
        v[k] = v[k] + r[k];
      }
      v = R::rounded(v);
      R::store(sum + j, count, v);
    }
    for (const auto& part : v) {
      squares.add_product(part, part);
    }
  }
  if (residual != nullptr) {
    x = sum;
  }
  // 1 / rms as r + r_lo, r_lo what rounding it to M left: x r + x r_lo rounds once, so the normalised
  // value is within an ulp of the exact one (x r alone: 1.5, r's rounding and the product's).
  const double exact = 1.0 / std::sqrt(squares.total() / static_cast<double>(n) + eps);
  const M r = static_cast<M>(exact);
  *rstd = r;
  const typename R::MVec rv(r), r_lo(static_cast<M>(exact - static_cast<double>(r)));
  for (int64_t j = 0; j < n; j += R::kStep) {
    const int64_t count = std::min(R::kStep, n - j);
    auto v = R::load(x + j, count);
    for (auto& part : v) {
      part = at::vec::fmadd(part, rv, part * r_lo);
    }
    if (cast) {
      v = R::rounded(v);
    }
    if (weight != nullptr) {
      const auto w = R::load_math(weight + j, count);
      for (size_t k = 0; k < R::kParts; ++k) {
        v[k] = v[k] * w[k];
      }
    }
    R::store(out + j, count, v);
  }
}

template <typename T>
void forward_typed(
    const at::Tensor& x,
    const at::Tensor& residual,
    const at::Tensor& weight,
    double eps,
    bool cast,
    at::Tensor& out,
    at::Tensor& sum,
    at::Tensor& rstd) {
  const int64_t rows = x.size(0), n = x.size(1);
  const T* x_data = x.const_data_ptr<T>();
  const T* residual_data = residual.defined() ? residual.const_data_ptr<T>() : nullptr;
  const Math<T>* w_data = weight.defined() ? weight.const_data_ptr<Math<T>>() : nullptr;
  T* out_data = out.mutable_data_ptr<T>();
  T* sum_data = sum.defined() ? sum.mutable_data_ptr<T>() : nullptr;
  Math<T>* rstd_data = rstd.mutable_data_ptr<Math<T>>();
  at::parallel_for(0, rows, rows_per_task(n), [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      forward_row(
          x_data + r * n, residual_data ? residual_data + r * n : nullptr, w_data, n, eps, cast, out_data + r * n,
          sum_data ? sum_data + r * n : nullptr, rstd_data + r);
    }
  });
}

void forward(
    const at::Tensor& x,
    const at::Tensor& residual,
    const at::Tensor& weight,
    double eps,
    bool cast,
    at::Tensor& out,
    at::Tensor& sum,
    at::Tensor& rstd) {
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kBFloat16, at::kHalf, x.scalar_type(), "uaccel.rms_norm", [&] {
    forward_typed<scalar_t>(x, residual, weight, eps, cast, out, sum, rstd);
  });
}

// One row's gradients: grad_input (where grad_input is not null) and grad_out * xhat added into
// weight_sum (where it is not null).
template <typename T>
void backward_row(
    const T* g,
    const T* x,
    Math<T> r,
    const Math<T>* weight,
    int64_t n,
    bool cast,
    T* grad_input,
    Math<T>* weight_sum) {
  using R = Row<T>;
  using M = Math<T>;
  using MVec = typename R::MVec;
  const auto times_weight = [&](typename R::Parts gv, int64_t j, int64_t count) {
    if (weight != nullptr) {
      const auto w = R::load_math(weight + j, count);
      for (size_t k = 0; k < R::kParts; ++k) {
        gv[k] = gv[k] * w[k];
      }
    }
    return gv;
  };
  M c = 0;  // r^3 mean(x gw): grad_input = r gw - c x
  if (grad_input != nullptr) {
    DoubleSum<M> dot;
    for (int64_t j = 0; j < n; j += R::kStep) {
      const int64_t count = std::min(R::kStep, n - j);
      const auto gw = times_weight(R::load(g + j, count), j, count);
      const auto xv = R::load(x + j, count);
      for (size_t k = 0; k < R::kParts; ++k) {
        dot.add_product(xv[k], gw[k]);
      }
    }
    const double rd = r;
    c = static_cast<M>(rd * rd * rd * dot.total() / static_cast<double>(n));
  }
  const MVec rv(r), cv(c);
  for (int64_t j = 0; j < n; j += R::kStep) {
    const int64_t count = std::min(R::kStep, n - j);
    const auto gv = R::load(g + j, count);
    const auto xv = R::load(x + j, count);
    if (grad_input != nullptr) {
      const auto gw = times_weight(gv, j, count);
      typename R::Parts dx;
      for (size_t k = 0; k < R::kParts; ++k) {
        dx[k] = at::vec::fmsub(gw[k], rv, xv[k] * cv);
      }
      R::store(grad_input + j, count, dx);
    }
    if (weight_sum != nullptr) {
      typename R::Parts xhat;
      for (size_t k = 0; k < R::kParts; ++k) {
        xhat[k] = xv[k] * rv;
      }
      if (cast) {
        xhat = R::rounded(xhat);
      }
      auto sum = R::load_math(weight_sum + j, count);
      for (size_t k = 0; k < R::kParts; ++k) {
        const int64_t in_part = std::clamp<int64_t>(count - int64_t(k) * MVec::size(), 0, MVec::size());
        sum[k] = at::vec::fmadd(gv[k], xhat[k], sum[k]);
        if (in_part > 0) {
          sum[k].store(weight_sum + j + k * MVec::size(), in_part);
        }
      }
    }
  }
}

// The weight's gradient is summed over rows in blocks of a fixed size (a function of the row count
// only), each block's sum in its own buffer, then the blocks in order: the same bits on any number of
// threads. At most kMaxBlocks buffers of a row each.
constexpr int64_t kMinRowsPerBlock = 32, kMaxBlocks = 256;

template <typename T>
void backward_typed(
    const at::Tensor& grad_out,
    const at::Tensor& x,
    const at::Tensor& rstd,
    const at::Tensor& weight,
    bool cast,
    at::Tensor& grad_input,
    at::Tensor& grad_weight) {
  using M = Math<T>;
  const int64_t rows = x.size(0), n = x.size(1);
  const T* g_data = grad_out.const_data_ptr<T>();
  const T* x_data = x.const_data_ptr<T>();
  const M* rstd_data = rstd.const_data_ptr<M>();
  const M* w_data = weight.defined() ? weight.const_data_ptr<M>() : nullptr;
  T* dx_data = grad_input.defined() ? grad_input.mutable_data_ptr<T>() : nullptr;
  if (!grad_weight.defined()) {
    at::parallel_for(0, rows, rows_per_task(n), [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        backward_row(g_data + r * n, x_data + r * n, rstd_data[r], w_data, n, cast, dx_data + r * n, nullptr);
      }
    });
    return;
  }
  const int64_t rows_per_block = std::max(kMinRowsPerBlock, (rows + kMaxBlocks - 1) / kMaxBlocks);
  const int64_t blocks = (rows + rows_per_block - 1) / rows_per_block;
  std::vector<M> block_sums(static_cast<size_t>(blocks * n), M(0));
  at::parallel_for(0, blocks, 1, [&](int64_t begin, int64_t end) {
    for (int64_t b = begin; b < end; ++b) {
      for (int64_t r = b * rows_per_block; r < std::min(rows, (b + 1) * rows_per_block); ++r) {
        backward_row(
            g_data + r * n, x_data + r * n, rstd_data[r], w_data, n, cast, dx_data ? dx_data + r * n : nullptr,
            block_sums.data() + b * n);
      }
    }
  });
  M* dw_data = grad_weight.mutable_data_ptr<M>();
  at::parallel_for(0, n, 1024, [&](int64_t begin, int64_t end) {
    std::vector<double> column_sums(static_cast<size_t>(end - begin), 0.0);
    for (int64_t b = 0; b < blocks; ++b) {
      const M* block = block_sums.data() + b * n;
      for (int64_t j = begin; j < end; ++j) {
        column_sums[j - begin] += block[j];
      }
    }
    for (int64_t j = begin; j < end; ++j) {
      dw_data[j] = static_cast<M>(column_sums[j - begin]);
    }
  });
}

void backward(
    const at::Tensor& grad_out,
    const at::Tensor& x,
    const at::Tensor& rstd,
    const at::Tensor& weight,
    bool cast,
    at::Tensor& grad_input,
    at::Tensor& grad_weight) {
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kBFloat16, at::kHalf, x.scalar_type(), "uaccel.rms_norm_backward", [&] {
    backward_typed<scalar_t>(grad_out, x, rstd, weight, cast, grad_input, grad_weight);
  });
}

const bool registered = [] {
  rms_norm_forward_dispatch.set(cpu::Capability::CPU_CAPABILITY, &forward);
  rms_norm_backward_dispatch.set(cpu::Capability::CPU_CAPABILITY, &backward);
  return true;
}();

} // namespace
} // namespace CPU_CAPABILITY
} // namespace uaccel::rowwise
