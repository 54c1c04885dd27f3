#pragma once
// The CUDA engine of row-wise kernels (uaccel/rowwise.h has the contract), with the CPU engine's math
// element for element: statistics summed in double, column sums in M within a chunk of rows then the
// chunks in order in double. A row goes to one warp where it is narrow (several rows a block) and to a
// whole block where it is wide; each reads its rows in 16-byte packs where every row of every operand
// starts 16-byte aligned, else one element at a time. Column sums in two stages whose order depends on
// the row count only: each thread sums one column over a chunk of rows, then the chunks are added in
// order (deterministic, as on the CPU). Runs on the current stream; the caller holds the device guard.
#include <ATen/Functions.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAStream.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include <uaccel/rowwise.h>
#include <uaccel/detail/cuda_loops.cuh>

namespace uaccel::rowwise {
namespace cuda_detail {

constexpr int kWarp = 32;
constexpr int kBlockThreads = 256;
// Rows of at most this many packs go to one warp each (a pack: 16 bytes, or one element when unaligned).
constexpr int64_t kWarpRowPacks = 4 * kWarp;
// Column sums: rows per chunk at least this, at most this many chunks (the CPU engine's blocks).
constexpr int64_t kMinRowsPerChunk = 32, kMaxChunks = 256;

template <typename T, int kVec>
using Pack = cuda::detail::Pack<T, kVec>;

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

template <typename D, typename T>
__device__ Values<Math<T>, D::kColumns> columns_at(const Operands<D, T>& o, int64_t j) {
  Values<Math<T>, D::kColumns> w;
  for (size_t c = 0; c < D::kColumns; ++c) {
    w[c] = o.columns[c] != nullptr ? o.columns[c][j] : Math<T>(1);
  }
  return w;
}

// A row's packs p: the element values (the inputs, or once prepared the prepared outputs).
template <typename D, typename T, int kVec>
__device__ Values<Pack<T, kVec>, kElementValues<D>> element_packs(const Operands<D, T>& o, int64_t offset, int64_t p) {
  Values<Pack<T, kVec>, kElementValues<D>> packs;
  for (size_t e = 0; e < kElementValues<D>; ++e) {
    const T* source = kPreparedValues<D> > 0 ? o.outputs[e] : o.inputs[e];
    packs[e] = reinterpret_cast<const Pack<T, kVec>*>(source + offset)[p];
  }
  return packs;
}

template <typename D, typename T, int kVec>
__device__ Values<Math<T>, kElementValues<D>> element(const Values<Pack<T, kVec>, kElementValues<D>>& packs, int k) {
  Values<Math<T>, kElementValues<D>> x;
  for (size_t e = 0; e < kElementValues<D>; ++e) {
    x[e] = static_cast<Math<T>>(packs[e].v[k]);
  }
  return x;
}

// The statistics of the thread's share of a row, its prepared values stored on the way.
template <typename D, typename T, int kVec, bool kWarpPerRow>
__device__ Values<double, D::kSums> statistics(
    const D& d, const Operands<D, T>& o, const RowPlace<kWarpPerRow>& place) {
  using M = Math<T>;
  constexpr size_t kPrepared = kPreparedValues<D>;
  const int64_t offset = place.row * o.n, packs = o.n / kVec;
  Values<double, D::kSums> sums{};
  for (int64_t p = place.lane; p < packs; p += place.width) {
    Values<Pack<T, kVec>, kElementValues<D>> values;
    if constexpr (kPrepared > 0) {
      Values<Pack<T, kVec>, D::kInputs> in;
      for (size_t i = 0; i < D::kInputs; ++i) {
        in[i] = reinterpret_cast<const Pack<T, kVec>*>(o.inputs[i] + offset)[p];
      }
#pragma unroll
      for (int k = 0; k < kVec; ++k) {
        Values<M, D::kInputs> ik;
        for (size_t i = 0; i < D::kInputs; ++i) {
          ik[i] = static_cast<M>(in[i].v[k]);
        }
        const auto prepared = d.prepare(ik);
        for (size_t e = 0; e < kPrepared; ++e) {
          values[e].v[k] = static_cast<T>(prepared[e]);
        }
      }
      for (size_t e = 0; e < kPrepared; ++e) {
        reinterpret_cast<Pack<T, kVec>*>(o.outputs[e] + offset)[p] = values[e];
      }
    } else {
      values = element_packs<D, T, kVec>(o, offset, p);
    }
#pragma unroll
    for (int k = 0; k < kVec; ++k) {
      const auto terms = d.products(element<D, T, kVec>(values, k), columns_at(o, p * kVec + k));
      for (size_t s = 0; s < D::kSums; ++s) {
        sums[s] = fma(static_cast<double>(terms[s].a), static_cast<double>(terms[s].b), sums[s]);
      }
    }
  }
  for (size_t s = 0; s < D::kSums; ++s) {
    sums[s] = group_sum<kWarpPerRow>(sums[s]);
  }
  return sums;
}

// Each row: statistics, constants, row outputs, mapped outputs.
template <typename D, typename T, int kVec, bool kWarpPerRow>
__global__ void row_kernel(D d, Operands<D, T> o, bool maps, bool statistics_needed) {
  using M = Math<T>;
  constexpr size_t kPrepared = kPreparedValues<D>;
  const RowPlace<kWarpPerRow> place;
  if (place.row >= o.rows) { // whole warps leave together: group_sum's shuffles see full warps
    return;
  }
  Values<double, D::kSums> sums{};
  if (statistics_needed) {
    sums = statistics<D, T, kVec>(d, o, place);
  }
  Values<M, D::kRowInputs> row_in;
  for (size_t i = 0; i < D::kRowInputs; ++i) {
    row_in[i] = o.row_inputs[i][place.row];
  }
  Values<M, D::kRowOutputs> row_out;
  const auto constants = d.finish(sums, o.n, row_in, row_out);
  for (size_t i = 0; i < D::kRowOutputs; ++i) {
    if (place.lane == 0 && o.row_outputs[i] != nullptr) {
      o.row_outputs[i][place.row] = row_out[i];
    }
  }
  if (!maps) {
    return;
  }
  const int64_t offset = place.row * o.n, packs = o.n / kVec;
  for (int64_t p = place.lane; p < packs; p += place.width) { // prepared values: this thread's own, above
    const auto values = element_packs<D, T, kVec>(o, offset, p);
    Values<Pack<T, kVec>, D::kOutputs - kPrepared> out;
#pragma unroll
    for (int k = 0; k < kVec; ++k) {
      const auto mapped = d.map(constants, element<D, T, kVec>(values, k), columns_at(o, p * kVec + k));
      for (size_t m = 0; m < mapped.size(); ++m) {
        out[m].v[k] = static_cast<T>(mapped[m]);
      }
    }
    for (size_t m = 0; m < out.size(); ++m) {
      if (T* target = o.outputs[kPrepared + m]) {
        reinterpret_cast<Pack<T, kVec>*>(target + offset)[p] = out[m];
      }
    }
  }
}

// Column sums, stage 1: chunk_sums[chunk][s][j] = the chunk's rows' column terms s at column j, a thread a
// column, the rows in order.
template <typename D, typename T>
__global__ void column_chunk_kernel(D d, Operands<D, T> o, int64_t rows_per_chunk, Math<T>* __restrict__ chunk_sums) {
  using M = Math<T>;
  const int64_t j = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j >= o.n) {
    return;
  }
  const int64_t chunk = blockIdx.y, end = std::min(o.rows, (chunk + 1) * rows_per_chunk);
  const auto w = columns_at(o, j);
  Values<M, D::kColumnSums> totals{};
  for (int64_t row = chunk * rows_per_chunk; row < end; ++row) {
    Values<M, D::kRowInputs> row_in;
    for (size_t i = 0; i < D::kRowInputs; ++i) {
      row_in[i] = o.row_inputs[i][row];
    }
    Values<M, D::kRowOutputs> row_out;
    const auto constants = d.finish(Values<double, D::kSums>{}, o.n, row_in, row_out);
    const auto terms = d.column_products(constants, element<D, T, 1>(element_packs<D, T, 1>(o, row * o.n, j), 0), w);
    for (size_t s = 0; s < D::kColumnSums; ++s) {
      totals[s] = fma(terms[s].a, terms[s].b, totals[s]);
    }
  }
  for (size_t s = 0; s < D::kColumnSums; ++s) {
    chunk_sums[(chunk * D::kColumnSums + s) * o.n + j] = totals[s];
  }
}

// Stage 2: the chunks' sums added in order, in double.
template <typename M>
__global__ void column_total_kernel(
    const M* __restrict__ chunk_sums, int64_t chunks, int64_t width, M* __restrict__ sums) {
  const int64_t j = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j >= width) {
    return;
  }
  double total = 0;
  for (int64_t chunk = 0; chunk < chunks; ++chunk) {
    total += chunk_sums[chunk * width + j];
  }
  sums[j] = static_cast<M>(total);
}

// 16-byte packs where n is a whole number of them and every row tensor starts 16-byte aligned.
template <typename D, typename T>
bool packs_fit(const Operands<D, T>& o) {
  constexpr int kVec = 16 / sizeof(T);
  const auto aligned = [](const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; };
  return o.n % kVec == 0 && std::all_of(o.inputs.begin(), o.inputs.end(), aligned) &&
      std::all_of(o.outputs.begin(), o.outputs.end(), aligned);
}

} // namespace cuda_detail

// Runs description d over the operands' rows on the current stream of the current device.
template <typename D, typename T>
void run_cuda(const D& d, const Operands<D, T>& o) {
  using namespace cuda_detail;
  using M = Math<T>;
  if (o.rows == 0) {
    return;
  }
  const auto stream = c10::cuda::getCurrentCUDAStream();
  const bool maps =
      std::any_of(o.outputs.begin() + kPreparedValues<D>, o.outputs.end(), [](const T* p) { return p != nullptr; });
  const bool row_outputs =
      std::any_of(o.row_outputs.begin(), o.row_outputs.end(), [](const M* p) { return p != nullptr; });
  const bool statistics_needed = maps || row_outputs || kPreparedValues<D> > 0;
  if (statistics_needed) {
    const bool packed = packs_fit(o);
    const auto launch = [&](auto vec) {
      constexpr int kVec = decltype(vec)::value;
      const int64_t packs = o.n / kVec;
      if (packs <= kWarpRowPacks) {
        const int64_t rows_per_block = kBlockThreads / kWarp;
        row_kernel<D, T, kVec, true><<<(o.rows + rows_per_block - 1) / rows_per_block, kBlockThreads, 0, stream>>>(
            d, o, maps, statistics_needed);
      } else {
        const int threads = static_cast<int>(std::min<int64_t>(kBlockThreads, (packs + kWarp - 1) / kWarp * kWarp));
        row_kernel<D, T, kVec, false><<<o.rows, threads, 0, stream>>>(d, o, maps, statistics_needed);
      }
      C10_CUDA_KERNEL_LAUNCH_CHECK();
    };
    if (packed) {
      launch(std::integral_constant<int, 16 / sizeof(T)>{});
    } else {
      launch(std::integral_constant<int, 1>{});
    }
  }
  if constexpr (D::kColumnSums > 0) {
    if (o.column_sums != nullptr) {
      const int64_t rows_per_chunk = std::max(kMinRowsPerChunk, (o.rows + kMaxChunks - 1) / kMaxChunks);
      const int64_t chunks = (o.rows + rows_per_chunk - 1) / rows_per_chunk;
      const int64_t width = static_cast<int64_t>(D::kColumnSums) * o.n;
      auto chunk_sums = at::empty(
          {chunks, width},
          at::TensorOptions().dtype(c10::CppTypeToScalarType<M>::value).device(at::kCUDA, c10::cuda::current_device()));
      const dim3 grid((o.n + kBlockThreads - 1) / kBlockThreads, chunks);
      column_chunk_kernel<D, T>
          <<<grid, kBlockThreads, 0, stream>>>(d, o, rows_per_chunk, static_cast<M*>(chunk_sums.data_ptr()));
      C10_CUDA_KERNEL_LAUNCH_CHECK();
      column_total_kernel<M><<<(width + kBlockThreads - 1) / kBlockThreads, kBlockThreads, 0, stream>>>(
          static_cast<const M*>(chunk_sums.data_ptr()), chunks, width, o.column_sums);
      C10_CUDA_KERNEL_LAUNCH_CHECK();
    }
  }
}

} // namespace uaccel::rowwise
