#pragma once
// CUDA elementwise driver: runs an op on the current stream, over flat arrays (elementwise_dense:
// tensors dense in one format, no TensorIterator) or over a TensorIterator (elementwise).
//  - all operands dense with one layout (contiguous, channels_last, transposed...): a flat
//    kernel with 16-byte vector loads/stores when every pointer is 16-byte aligned, else 1 element
//    per access; each thread keeps kUnroll accesses in flight;
//  - anything else (slices with steps, stride-0 expanded inputs): a strided kernel that maps a
//    linear index to per-operand byte offsets.
// All indexing is 64-bit. An op is a functor with `__host__ __device__ T operator()(T...)`,
// T = at::opmath_type<scalar_t>, returning Outputs<T, M> for M outputs (uaccel/detail/outputs.h). The caller holds the
// device guard.
#include <ATen/OpMathType.h>
#include <ATen/TensorIterator.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAStream.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <mutex>
#include <type_traits>
#include <utility>

#include <uaccel/detail/outputs.h>

namespace uaccel::cuda {
namespace detail {

// 8 warps a block: small enough that an SM holds several blocks (2048 / 256 = 8 on sm_80..sm_90, so
// the block size never caps occupancy), large enough that a block amortises its scheduling.
constexpr int kThreads = 256;
// Independent 16-byte loads each thread issues per operand before it uses the first: memory-level
// parallelism to cover DRAM latency without a larger block. Raising it costs registers, which the
// SASS check (tests/cuda_sass.py: no local memory, no spills) guards.
constexpr int kUnroll = 2;
// Grid-stride loops run over what one launch does not cover; a grid of this many full waves of
// resident blocks keeps every SM busy while the last blocks finish (a wave's tail idles at most
// a quarter of the SMs' time) without launching blocks that would only wait.
constexpr int kWaves = 4;
constexpr int kMaxDims = 25;  // TensorIterator's own limit after coalescing

template <typename T, int N>
struct Array {
  T v[N];
};

template <typename scalar_t, int kVec>
struct alignas(sizeof(scalar_t) * kVec) Pack {
  scalar_t v[kVec];
};

template <typename Op, typename Inputs, size_t... K>
__device__ __forceinline__ auto apply(const Op& op, const Inputs& in, std::index_sequence<K...>) {
  using T = at::opmath_type<std::remove_cv_t<std::remove_reference_t<decltype(in[0])>>>;
  return op(static_cast<T>(in[K])...);
}

template <int kVec, typename scalar_t, int N, int M, typename Op>
__global__ void flat_kernel(Array<scalar_t*, M> out, Array<const scalar_t*, N> in, int64_t n, Op op) {
  using P = Pack<scalar_t, kVec>;
  const int64_t packs = n / kVec;
  const int64_t threads = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t base = static_cast<int64_t>(blockIdx.x) * blockDim.x * kUnroll + threadIdx.x; base < packs;
       base += threads * kUnroll) {
    P loaded[kUnroll][N];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int64_t p = base + static_cast<int64_t>(u) * blockDim.x;
      if (p < packs) {
#pragma unroll
        for (int k = 0; k < N; ++k) {
          loaded[u][k] = reinterpret_cast<const P*>(in.v[k])[p];
        }
      }
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int64_t p = base + static_cast<int64_t>(u) * blockDim.x;
      if (p < packs) {
        P result[M];
#pragma unroll
        for (int j = 0; j < kVec; ++j) {
          scalar_t lane[N];
#pragma unroll
          for (int k = 0; k < N; ++k) {
            lane[k] = loaded[u][k].v[j];
          }
          const auto value = apply(op, lane, std::make_index_sequence<N>{});
#pragma unroll
          for (int m = 0; m < M; ++m) {
            result[m].v[j] = static_cast<scalar_t>(output_part(value, m));
          }
        }
#pragma unroll
        for (int m = 0; m < M; ++m) {
          reinterpret_cast<P*>(out.v[m])[p] = result[m];
        }
      }
    }
  }
  // The last n % kVec elements.
  for (int64_t i = packs * kVec + static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += threads) {
    scalar_t lane[N];
#pragma unroll
    for (int k = 0; k < N; ++k) {
      lane[k] = in.v[k][i];
    }
    const auto value = apply(op, lane, std::make_index_sequence<N>{});
#pragma unroll
    for (int m = 0; m < M; ++m) {
      out.v[m][i] = static_cast<scalar_t>(output_part(value, m));
    }
  }
}

// Byte strides per dimension (dimension 0 varies fastest) for the output and each input.
template <int kTensors>
struct StridedLayout {
  int ndim;
  int64_t sizes[kMaxDims];
  int64_t strides[kMaxDims][kTensors];
};

template <typename scalar_t, int N, int M, typename Op>
__global__ void strided_kernel(Array<char*, N + M> data, StridedLayout<N + M> layout, int64_t n, Op op) {
  const int64_t threads = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += threads) {
    int64_t offsets[N + M] = {};
    int64_t rest = i;
    for (int d = 0; d < layout.ndim; ++d) {
      const int64_t index = rest % layout.sizes[d];
      rest /= layout.sizes[d];
#pragma unroll
      for (int k = 0; k < N + M; ++k) {
        offsets[k] += index * layout.strides[d][k];
      }
    }
    scalar_t lane[N];
#pragma unroll
    for (int k = 0; k < N; ++k) {
      lane[k] = *reinterpret_cast<const scalar_t*>(data.v[M + k] + offsets[M + k]);
    }
    const auto value = apply(op, lane, std::make_index_sequence<N>{});
#pragma unroll
    for (int m = 0; m < M; ++m) {
      *reinterpret_cast<scalar_t*>(data.v[m] + offsets[m]) = static_cast<scalar_t>(output_part(value, m));
    }
  }
}

// How many blocks of kThreads the current device holds at once, asked of the driver once per device
// (as ATen caches its device properties; ATen's cache comes with headers of CUDA libraries this
// library does not use).
inline int64_t resident_blocks() {
  static std::array<std::once_flag, C10_COMPILE_TIME_MAX_GPUS> asked;
  static std::array<int64_t, C10_COMPILE_TIME_MAX_GPUS> blocks;
  const c10::DeviceIndex device = c10::cuda::current_device();
  std::call_once(asked[device], [device] {
    int multiprocessors = 0;
    int threads_per_multiprocessor = 0;
    C10_CUDA_CHECK(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device));
    C10_CUDA_CHECK(cudaDeviceGetAttribute(&threads_per_multiprocessor, cudaDevAttrMaxThreadsPerMultiProcessor, device));
    blocks[device] = static_cast<int64_t>(multiprocessors) * std::max(1, threads_per_multiprocessor / kThreads);
  });
  return blocks[device];
}

// Enough blocks for kWaves full waves of the current device, fewer when there is less work.
inline unsigned int grid_for(int64_t work_items) {
  const int64_t wanted = (work_items + kThreads - 1) / kThreads;
  return static_cast<unsigned int>(std::clamp<int64_t>(wanted, 1, resident_blocks() * kWaves));
}

} // namespace detail

// out_m[i] = op(in_0[i], ..., in_N-1[i]) result m, for i < n on the current stream: the tensors are
// dense in one layout (the element order is irrelevant to an elementwise op).
template <typename scalar_t, size_t N, size_t M, typename Op>
void elementwise_dense(
    const std::array<scalar_t*, M>& outputs, const std::array<const scalar_t*, N>& inputs, int64_t n, const Op& op) {
  using namespace detail;
  if (n == 0) {
    return;
  }
  const cudaStream_t stream = c10::cuda::getCurrentCUDAStream();
  Array<scalar_t*, M> out;
  Array<const scalar_t*, N> in;
  bool aligned = true;
  for (size_t k = 0; k < M; ++k) {
    out.v[k] = outputs[k];
    aligned = aligned && reinterpret_cast<uintptr_t>(out.v[k]) % 16 == 0;
  }
  for (size_t k = 0; k < N; ++k) {
    in.v[k] = inputs[k];
    aligned = aligned && reinterpret_cast<uintptr_t>(in.v[k]) % 16 == 0;
  }
  constexpr int kVec = 16 / sizeof(scalar_t);
  if (aligned) {
    flat_kernel<kVec, scalar_t, N, M><<<grid_for(n / kVec / kUnroll), kThreads, 0, stream>>>(out, in, n, op);
  } else {
    flat_kernel<1, scalar_t, N, M><<<grid_for(n / kUnroll), kThreads, 0, stream>>>(out, in, n, op);
  }
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

// Runs `op` over `iter` (M outputs, N inputs, all of dtype scalar_t) on the current stream.
template <typename scalar_t, size_t N, size_t M, typename Op>
void elementwise(at::TensorIteratorBase& iter, const Op& op) {
  using namespace detail;
  TORCH_INTERNAL_ASSERT(iter.ninputs() == static_cast<int>(N) && iter.noutputs() == static_cast<int>(M));
  const int64_t n = iter.numel();
  if (n == 0) {
    return;
  }
  if (iter.is_contiguous()) {
    std::array<scalar_t*, M> out;
    std::array<const scalar_t*, N> in;
    for (size_t k = 0; k < M; ++k) {
      out[k] = static_cast<scalar_t*>(iter.data_ptr(k));
    }
    for (size_t k = 0; k < N; ++k) {
      in[k] = static_cast<const scalar_t*>(iter.data_ptr(M + k));
    }
    elementwise_dense<scalar_t, N, M>(out, in, n, op);
    return;
  }
  TORCH_CHECK(
      iter.ndim() <= kMaxDims, "uaccel: CUDA kernels support at most ", kMaxDims, " non-mergeable dimensions, got ",
      iter.ndim());
  Array<char*, N + M> data;
  StridedLayout<N + M> layout{};
  layout.ndim = iter.ndim();
  for (size_t k = 0; k < N + M; ++k) {
    data.v[k] = static_cast<char*>(iter.data_ptr(k));
  }
  for (int d = 0; d < iter.ndim(); ++d) {
    layout.sizes[d] = iter.shape()[d];
    for (size_t k = 0; k < N + M; ++k) {
      layout.strides[d][k] = iter.strides(k)[d];
    }
  }
  const cudaStream_t stream = c10::cuda::getCurrentCUDAStream();
  strided_kernel<scalar_t, N, M><<<grid_for(n), kThreads, 0, stream>>>(data, layout, n, op);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

} // namespace uaccel::cuda
