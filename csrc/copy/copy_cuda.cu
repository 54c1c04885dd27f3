// uaccel::async_copy_ with CUDA involved. Everything is enqueued on the current stream of the CUDA
// device (a thread's own current stream is honoured), and the host does not wait:
//  - device<->device and pinned-host<->device: cudaMemcpyAsync, or the strided kernel;
//  - pageable host source: copied into a block of PyTorch's pinned host allocator first;
//  - pageable host destination: a pinned staging block, then a host function on the stream copies
//    it into place once the transfer has run (no device synchronisation).
// Memory stays valid until the copy has run: pinned blocks get record_event, device blocks used on
// this stream get recordStream. A non-dense pageable destination is the one case that waits.
#include <ATen/ATen.h>
#include <ATen/core/CachingHostAllocator.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <torch/library.h>

#include <cstring>
#include <memory>

#include <uaccel/detail/cuda_loops.cuh>
#include "copy/copy_common.h"

namespace uaccel::copy {
namespace {

struct Identity {
  template <typename T>
  __host__ __device__ T operator()(T value) const {
    return value;
  }
};

// dst <- src, both on the current device: one memcpy for matching dense layouts, else the kernel.
void copy_on_device(const at::Tensor& dst, const at::Tensor& src, cudaStream_t stream) {
  if (same_dense_layout(dst, src)) {
    C10_CUDA_CHECK(cudaMemcpyAsync(dst.data_ptr(), src.data_ptr(), dst.nbytes(), cudaMemcpyDeviceToDevice, stream));
    return;
  }
  auto iter = copy_iter(dst, src);
  dispatch_by_element_size(dst.element_size(), [&](auto word) {
    cuda::elementwise<decltype(word), 1, 1>(iter, Identity{});
  });
}

// A tensor shaped like `like`, with its strides when it is dense (so one memcpy fills it).
at::Tensor empty_in_layout_of(const at::Tensor& like, at::TensorOptions options) {
  return like.is_non_overlapping_and_dense() ? at::empty_strided(like.sizes(), like.strides(), options)
                                             : at::empty(like.sizes(), options);
}

// Keeps a pinned block from being handed out again before `stream` has used it.
void hold_pinned_until_done(const at::Tensor& host, const c10::cuda::CUDAStream& stream) {
  const auto& data = host.storage().data_ptr();
  at::getHostAllocator(at::kCUDA)->record_event(data.get(), data.get_context(), stream);
}

void host_to_device(const at::Tensor& dst, const at::Tensor& src, const c10::cuda::CUDAStream& stream) {
  // Host side: pinned and dense, so the transfer is one asynchronous memcpy. A pageable (or
  // non-dense) source is first copied into PyTorch's pinned host allocator, in dst's layout.
  at::Tensor pinned = src;
  if (!src.is_pinned() || !src.is_non_overlapping_and_dense()) {
    pinned = empty_in_layout_of(dst, src.options().pinned_memory(true));
    copy_on_cpu(pinned, src);
  }
  // Device side: dst itself when the layouts match, else a landing tensor the kernel restrides from.
  const at::Tensor landing = same_dense_layout(dst, pinned) ? dst : at::empty_like(pinned, dst.options());
  C10_CUDA_CHECK(
      cudaMemcpyAsync(landing.data_ptr(), pinned.data_ptr(), pinned.nbytes(), cudaMemcpyHostToDevice, stream));
  hold_pinned_until_done(pinned, stream);
  if (!landing.is_same(dst)) {
    copy_on_device(dst, landing, stream);
  }
}

// Runs on CUDA's host-callback thread after the transfer: no CUDA calls allowed here.
struct PageableLanding {
  void* dst;
  const void* staging;
  size_t nbytes;
  c10::Storage keep_dst_alive;

  static void CUDART_CB run(void* self) {
    std::unique_ptr<PageableLanding> landing(static_cast<PageableLanding*>(self));
    std::memcpy(landing->dst, landing->staging, landing->nbytes);
  }
};

void device_to_host(const at::Tensor& dst, const at::Tensor& src, const c10::cuda::CUDAStream& stream) {
  at::Tensor host_side = dst;
  if (!dst.is_pinned() || !dst.is_non_overlapping_and_dense()) {
    host_side = empty_in_layout_of(dst, dst.options().pinned_memory(true));
  }
  at::Tensor device_side = src;
  if (!same_dense_layout(host_side, src)) {
    device_side = at::empty_like(host_side, src.options());
    copy_on_device(device_side, src, stream);
  }
  C10_CUDA_CHECK(cudaMemcpyAsync(
      host_side.data_ptr(), device_side.data_ptr(), host_side.nbytes(), cudaMemcpyDeviceToHost, stream));
  if (host_side.is_same(dst)) {
    hold_pinned_until_done(dst, stream);
    return;
  }
  if (dst.is_non_overlapping_and_dense()) {
    auto* landing = new PageableLanding{dst.data_ptr(), host_side.data_ptr(), dst.nbytes(), dst.storage()};
    const cudaError_t status = cudaLaunchHostFunc(stream, &PageableLanding::run, landing);
    if (status != cudaSuccess) {
      delete landing;
      C10_CUDA_CHECK(status);
    }
    hold_pinned_until_done(host_side, stream);  // recorded after the host function: held until it ran
    return;
  }
  // A non-dense pageable destination: its elements can only be placed once the data is here.
  stream.synchronize();
  copy_on_cpu(dst, host_side);
}

void device_to_device(const at::Tensor& dst, const at::Tensor& src, const c10::cuda::CUDAStream& stream) {
  if (dst.device() == src.device()) {
    copy_on_device(dst, src, stream);
    return;
  }
  TORCH_CHECK(
      same_dense_layout(dst, src), kOp, ": expected dst and src with the same dense layout for a copy between ",
      src.device(), " and ", dst.device(), ", but got strides ", src.strides(), " and ", dst.strides());
  // Order after the work already queued on the source device's current stream. The event belongs
  // to the source device, so it is made, recorded and destroyed there.
  {
    const c10::cuda::CUDAGuard source_guard(src.device());
    const auto source_stream = c10::cuda::getCurrentCUDAStream(src.device().index());
    cudaEvent_t source_ready = nullptr;
    C10_CUDA_CHECK(cudaEventCreateWithFlags(&source_ready, cudaEventDisableTiming));
    C10_CUDA_CHECK(cudaEventRecord(source_ready, source_stream));
    C10_CUDA_CHECK(cudaStreamWaitEvent(stream, source_ready, 0));
    C10_CUDA_CHECK(cudaEventDestroy(source_ready));
  }
  C10_CUDA_CHECK(cudaMemcpyPeerAsync(
      dst.data_ptr(), dst.device().index(), src.data_ptr(), src.device().index(), dst.nbytes(), stream));
}

// Host memory the copy must stage on the host side (pageable, or not dense): the staging runs once,
// when the copy is issued, so a CUDA graph capturing it would replay stale bytes.
bool staged_on_host(const at::Tensor& t) {
  return !t.is_cuda() && (!t.is_pinned() || !t.is_non_overlapping_and_dense());
}

void refuse_staging_in_capture(const at::Tensor& dst, const at::Tensor& src, cudaStream_t stream) {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  C10_CUDA_CHECK(cudaStreamIsCapturing(stream, &status));
  const at::Tensor& host = staged_on_host(src) ? src : dst;
  TORCH_CHECK(
      status == cudaStreamCaptureStatusNone,
      "uaccel.async_copy_: expected dense pinned host memory (or CUDA memory) "
      "while the stream is captured into a CUDA graph, because pageable or non-dense host memory is staged on the host "
      "once and a replay would copy stale bytes; but got ",
      (host.is_pinned() ? "a non-dense pinned" : "a pageable"), " host tensor as ", (&host == &src ? "src" : "dst"),
      " (pin it: tensor.pin_memory())");
}

void async_copy_cuda(const at::Tensor& dst, const at::Tensor& src) {
  check_copy_args(dst, src);
  if (dst.numel() == 0) {
    return;
  }
  const at::Device device = dst.is_cuda() ? dst.device() : src.device();
  const c10::cuda::CUDAGuard device_guard(device);
  const auto stream = c10::cuda::getCurrentCUDAStream(device.index());
  if (staged_on_host(dst) || staged_on_host(src)) {
    refuse_staging_in_capture(dst, src, stream);
  }
  if (dst.is_cuda() && src.is_cuda()) {
    device_to_device(dst, src, stream);
  } else if (dst.is_cuda()) {
    host_to_device(dst, src, stream);
  } else {
    device_to_host(dst, src, stream);
  }
  // Device memory allocated on another stream must not be reused before this stream is done.
  for (const auto* t : {&dst, &src}) {
    if (t->is_cuda()) {
      c10::cuda::CUDACachingAllocator::recordStream(t->storage().data_ptr(), stream);
    }
  }
}

} // namespace

TORCH_LIBRARY_IMPL(uaccel, CUDA, m) {
  m.impl("async_copy_", &async_copy_cuda);
}

} // namespace uaccel::copy
