// RMSNorm's CUDA kernels, with the CPU kernels' math (rms_norm_isa.cpp) element for element: the sums
// over a row in double, 1 / rms as r + r_lo so a float's normalised value rounds once, one float of
// rstd a row. A row goes to one warp where it is narrow (several rows a block) and to a whole block
// where it is wide; each reads the row in 16-byte packs where every row starts 16-byte aligned. The
// weight's gradient is summed in two stages whose order depends on the row count only: each thread sums
// one column over a chunk of rows, then the chunks are added in order (deterministic, as on the CPU).
#include <ATen/Dispatch.h>
#include <ATen/core/Tensor.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include <uaccel/detail/cuda_loops.cuh>

#include "rms_norm.h"

namespace uaccel::rowwise {
namespace {

template <typename T>
using Math = std::conditional_t<std::is_same_v<T, double>, double, float>;

constexpr int kWarp = 32;
constexpr int kBlockThreads = 256;
// Rows of at most this many packs go to one warp each (a pack: 16 bytes, or one element when unaligned).
constexpr int64_t kWarpRowPacks = 4 * kWarp;
// The weight's gradient: rows per chunk at least this, at most this many chunks (rms_norm_isa.cpp's).
constexpr int64_t kMinRowsPerChunk = 32, kMaxChunks = 256;

// Sum over the threads of a row group (a warp, or the whole block when kWarpPerRow is false).
template <bool kWarpPerRow>
__device__ double group_sum(double value) {
  for (int offset = kWarp / 2; offset > 0; offset /= 2) {
    value += __shfl_xor_sync(0xffffffffu, value, offset);
  }
  if constexpr (kWarpPerRow) {
    return value;
  } else {
    __shared__ double warp_sums[kBlockThreads / kWarp];
    const int warp = threadIdx.x / kWarp, lane = threadIdx.x % kWarp;
    __syncthreads(); // warp_sums may still be read by the previous call
    if (lane == 0) {
      warp_sums[warp] = value;
    }
    __syncthreads();
    double total = 0;
    for (int w = 0; w < static_cast<int>(blockDim.x / kWarp); ++w) { // in order: the same bits every run
      total += warp_sums[w];
    }
    return total;
  }
}

// The row a thread works on, its index in the row's group, and the group's size.
template <bool kWarpPerRow>
struct RowPlace {
  int64_t row;
  int lane, width;
  __device__ RowPlace() {
    if constexpr (kWarpPerRow) {
      row = static_cast<int64_t>(blockIdx.x) * (blockDim.x / kWarp) + threadIdx.x / kWarp;
      lane = threadIdx.x % kWarp;
      width = kWarp;
    } else {
      row = blockIdx.x;
      lane = threadIdx.x;
      width = blockDim.x;
    }
  }
};

template <typename T, int kVec>
using Pack = cuda::detail::Pack<T, kVec>;

template <typename T>
__device__ __forceinline__ Math<T> rounded(Math<T> v) {
  return static_cast<Math<T>>(static_cast<T>(v));
}

template <typename T, int kVec, bool kWarpPerRow>
__global__ void forward_kernel(
    const T* __restrict__ x,
    const T* __restrict__ residual,
    const Math<T>* __restrict__ weight,
    int64_t rows,
    int64_t n,
    double eps,
    bool cast,
    T* __restrict__ out,
    T* __restrict__ sum,
    Math<T>* __restrict__ rstd) {
  using M = Math<T>;
  const RowPlace<kWarpPerRow> place;
  if (place.row >= rows) { // whole warps leave together: group_sum's shuffles see full warps
    return;
  }
  const int64_t offset = place.row * n, packs = n / kVec;
  double squares = 0;
  for (int64_t p = place.lane; p < packs; p += place.width) {
    auto v = reinterpret_cast<const Pack<T, kVec>*>(x + offset)[p];
    if (residual != nullptr) {
      const auto r = reinterpret_cast<const Pack<T, kVec>*>(residual + offset)[p];
#pragma unroll
      for (int k = 0; k < kVec; ++k) {
        v.v[k] = static_cast<T>(static_cast<M>(v.v[k]) + static_cast<M>(r.v[k]));
      }
      reinterpret_cast<Pack<T, kVec>*>(sum + offset)[p] = v;
    }
#pragma unroll
    for (int k = 0; k < kVec; ++k) {
      const double value = static_cast<M>(v.v[k]);
      squares = fma(value, value, squares);
    }
  }
  const double exact = 1.0 / sqrt(group_sum<kWarpPerRow>(squares) / static_cast<double>(n) + eps);
  const M r = static_cast<M>(exact), r_lo = static_cast<M>(exact - static_cast<double>(r));
  if (place.lane == 0) {
    rstd[place.row] = r;
  }
  const T* source = residual != nullptr ? sum : x; // the sum: this thread's own packs, written above
  for (int64_t p = place.lane; p < packs; p += place.width) {
    const auto v = reinterpret_cast<const Pack<T, kVec>*>(source + offset)[p];
    Pack<T, kVec> result;
#pragma unroll
    for (int k = 0; k < kVec; ++k) {
      const M value = static_cast<M>(v.v[k]);
      M y = fma(value, r, value * r_lo);
      if (cast) {
        y = rounded<T>(y);
      }
      if (weight != nullptr) {
        y *= weight[p * kVec + k];
      }
      result.v[k] = static_cast<T>(y);
    }
    reinterpret_cast<Pack<T, kVec>*>(out + offset)[p] = result;
  }
}

// grad_input of each row: r gw - c x, c = r^3 mean(x gw), gw = grad_out * weight.
template <typename T, int kVec, bool kWarpPerRow>
__global__ void grad_input_kernel(
    const T* __restrict__ g,
    const T* __restrict__ x,
    const Math<T>* __restrict__ rstd,
    const Math<T>* __restrict__ weight,
    int64_t rows,
    int64_t n,
    T* __restrict__ grad_input) {
  using M = Math<T>;
  const RowPlace<kWarpPerRow> place;
  if (place.row >= rows) {
    return;
  }
  const int64_t offset = place.row * n, packs = n / kVec;
  const auto gw = [&](const Pack<T, kVec>& gv, int64_t p, int k) {
    const M value = static_cast<M>(gv.v[k]);
    return weight != nullptr ? value * weight[p * kVec + k] : value;
  };
  double dot = 0;
  for (int64_t p = place.lane; p < packs; p += place.width) {
    const auto gv = reinterpret_cast<const Pack<T, kVec>*>(g + offset)[p];
    const auto xv = reinterpret_cast<const Pack<T, kVec>*>(x + offset)[p];
#pragma unroll
    for (int k = 0; k < kVec; ++k) {
      dot = fma(static_cast<double>(static_cast<M>(xv.v[k])), static_cast<double>(gw(gv, p, k)), dot);
    }
  }
  const M r = rstd[place.row];
  const double rd = r;
  const M c = static_cast<M>(rd * rd * rd * group_sum<kWarpPerRow>(dot) / static_cast<double>(n));
  for (int64_t p = place.lane; p < packs; p += place.width) {
    const auto gv = reinterpret_cast<const Pack<T, kVec>*>(g + offset)[p];
    const auto xv = reinterpret_cast<const Pack<T, kVec>*>(x + offset)[p];
    Pack<T, kVec> dx;
#pragma unroll
    for (int k = 0; k < kVec; ++k) {
      dx.v[k] = static_cast<T>(fma(gw(gv, p, k), r, -(static_cast<M>(xv.v[k]) * c)));
    }
    reinterpret_cast<Pack<T, kVec>*>(grad_input + offset)[p] = dx;
  }
}

// Stage 1 of the weight's gradient: chunk_sums[chunk][j] = sum over the chunk's rows of g * xhat (xhat
// rounded to T where cast), a thread a column, the rows in order.
template <typename T>
__global__ void weight_chunk_kernel(
    const T* __restrict__ g,
    const T* __restrict__ x,
    const Math<T>* __restrict__ rstd,
    int64_t rows,
    int64_t n,
    int64_t rows_per_chunk,
    bool cast,
    Math<T>* __restrict__ chunk_sums) {
  using M = Math<T>;
  const int64_t j = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j >= n) {
    return;
  }
  const int64_t chunk = blockIdx.y, end = std::min(rows, (chunk + 1) * rows_per_chunk);
  M total = 0;
  for (int64_t row = chunk * rows_per_chunk; row < end; ++row) {
    M xhat = static_cast<M>(x[row * n + j]) * rstd[row];
    if (cast) {
      xhat = rounded<T>(xhat);
    }
    total = fma(static_cast<M>(g[row * n + j]), xhat, total);
  }
  chunk_sums[chunk * n + j] = total;
}

// Stage 2: the chunks' sums added in order, in double.
template <typename M>
__global__ void weight_total_kernel(const M* __restrict__ chunk_sums, int64_t chunks, int64_t n, M* __restrict__ dw) {
  const int64_t j = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j >= n) {
    return;
  }
  double total = 0;
  for (int64_t chunk = 0; chunk < chunks; ++chunk) {
    total += chunk_sums[chunk * n + j];
  }
  dw[j] = static_cast<M>(total);
}

// 16-byte packs where every row of every operand starts 16-byte aligned, else one element at a time.
template <typename T>
bool packs_fit(int64_t n, std::initializer_list<const at::Tensor*> operands) {
  constexpr int kVec = 16 / sizeof(T);
  return n % kVec == 0 && std::all_of(operands.begin(), operands.end(), [](const at::Tensor* t) {
           return !t->defined() || reinterpret_cast<uintptr_t>(t->const_data_ptr()) % 16 == 0;
         });
}

// Launches kernel<kVec, kWarpPerRow> over the rows: a warp a row for narrow rows (8 rows a block), a
// block a row (up to 256 threads, a warp's multiple) otherwise.
template <typename T, typename Launch>
void over_rows(int64_t rows, int64_t n, bool packed, const Launch& launch) {
  constexpr int kVec = 16 / sizeof(T);
  const int64_t packs = packed ? n / kVec : n;
  const auto with = [&](auto vec) {
    if (packs <= kWarpRowPacks) {
      const int64_t rows_per_block = kBlockThreads / kWarp;
      launch.template operator()<decltype(vec)::value, true>(
          (rows + rows_per_block - 1) / rows_per_block, kBlockThreads);
    } else {
      const int threads = static_cast<int>(std::min<int64_t>(kBlockThreads, (packs + kWarp - 1) / kWarp * kWarp));
      launch.template operator()<decltype(vec)::value, false>(rows, threads);
    }
  };
  if (packed) {
    with(std::integral_constant<int, kVec>{});
  } else {
    with(std::integral_constant<int, 1>{});
  }
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
  const c10::cuda::CUDAGuard guard(x.device());
  const int64_t rows = x.size(0), n = x.size(1);
  const auto stream = c10::cuda::getCurrentCUDAStream();
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kBFloat16, at::kHalf, x.scalar_type(), "uaccel.rms_norm", [&] {
    using M = Math<scalar_t>;
    const bool packed = packs_fit<scalar_t>(n, {&x, &residual, &out, &sum});
    over_rows<scalar_t>(rows, n, packed, [&]<int kVec, bool kWarpPerRow>(int64_t blocks, int threads) {
      forward_kernel<scalar_t, kVec, kWarpPerRow><<<blocks, threads, 0, stream>>>(
          x.const_data_ptr<scalar_t>(), residual.defined() ? residual.const_data_ptr<scalar_t>() : nullptr,
          weight.defined() ? weight.const_data_ptr<M>() : nullptr, rows, n, eps, cast, out.mutable_data_ptr<scalar_t>(),
          sum.defined() ? sum.mutable_data_ptr<scalar_t>() : nullptr, rstd.mutable_data_ptr<M>());
      C10_CUDA_KERNEL_LAUNCH_CHECK();
    });
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
  const c10::cuda::CUDAGuard guard(x.device());
  const int64_t rows = x.size(0), n = x.size(1);
  const auto stream = c10::cuda::getCurrentCUDAStream();
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kBFloat16, at::kHalf, x.scalar_type(), "uaccel.rms_norm_backward", [&] {
    using M = Math<scalar_t>;
    const M* w = weight.defined() ? weight.const_data_ptr<M>() : nullptr;
    if (grad_input.defined()) {
      const bool packed = packs_fit<scalar_t>(n, {&grad_out, &x, &grad_input});
      over_rows<scalar_t>(rows, n, packed, [&]<int kVec, bool kWarpPerRow>(int64_t blocks, int threads) {
        grad_input_kernel<scalar_t, kVec, kWarpPerRow><<<blocks, threads, 0, stream>>>(
            grad_out.const_data_ptr<scalar_t>(), x.const_data_ptr<scalar_t>(), rstd.const_data_ptr<M>(), w, rows, n,
            grad_input.mutable_data_ptr<scalar_t>());
        C10_CUDA_KERNEL_LAUNCH_CHECK();
      });
    }
    if (grad_weight.defined()) {
      const int64_t rows_per_chunk = std::max(kMinRowsPerChunk, (rows + kMaxChunks - 1) / kMaxChunks);
      const int64_t chunks = (rows + rows_per_chunk - 1) / rows_per_chunk;
      auto chunk_sums = at::empty({chunks, n}, x.options().dtype(c10::CppTypeToScalarType<M>::value));
      const dim3 grid((n + kBlockThreads - 1) / kBlockThreads, chunks);
      weight_chunk_kernel<scalar_t><<<grid, kBlockThreads, 0, stream>>>(
          grad_out.const_data_ptr<scalar_t>(), x.const_data_ptr<scalar_t>(), rstd.const_data_ptr<M>(), rows, n,
          rows_per_chunk, cast, chunk_sums.mutable_data_ptr<M>());
      C10_CUDA_KERNEL_LAUNCH_CHECK();
      weight_total_kernel<M><<<(n + kBlockThreads - 1) / kBlockThreads, kBlockThreads, 0, stream>>>(
          chunk_sums.const_data_ptr<M>(), chunks, n, grad_weight.mutable_data_ptr<M>());
      C10_CUDA_KERNEL_LAUNCH_CHECK();
    }
  });
}

} // namespace

const RmsNormForwardKernel rms_norm_forward_cuda = &forward;
const RmsNormBackwardKernel rms_norm_backward_cuda = &backward;

} // namespace uaccel::rowwise
