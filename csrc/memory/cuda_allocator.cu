// The uaccel CUDA allocator: aligned device memory, counted and tracked. Its C entry points feed
// torch.cuda.memory.CUDAPluggableAllocator, so a torch.cuda.MemPool built on them makes PyTorch's
// caching allocator draw its segments from here (PyTorch keeps caching and stream-ordered reuse;
// this layer hands out aligned segments and counts them). aligned_empty on CUDA uses it directly.
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <c10/util/Exception.h>

#include <cuda_runtime.h>

#include <algorithm>
#include <mutex>
#include <unordered_map>

#include <uaccel/cuda_allocator.h>

#include "common/fork_safety.h"
#include "memory/device_memory.h"
#include "memory/leak_tracker.h"

namespace uaccel::memory {
namespace {

// cudaMalloc already returns 256-byte aligned memory; larger alignments over-allocate.
constexpr size_t kCudaNaturalAlignment = 256;

struct Segment {
  void* base;
  size_t requested;
  int device;
  uint64_t generation;  // the process that allocated it (fork_safety::generation())
};

class CudaMemory final : public DeviceMemory {
 public:
  static CudaMemory& instance() {
    static auto* memory = new CudaMemory();  // never destroyed: frees can come after static destruction
    return *memory;
  }

  // Returns nullptr on failure (the pluggable-allocator contract: PyTorch raises its own OOM).
  void* allocate_raw(size_t bytes, size_t alignment, int device) noexcept {
    if (unusable_after_fork()) {
      return nullptr;
    }
    used_.store(true, std::memory_order_relaxed);
    const size_t align = std::max(alignment, kCudaNaturalAlignment);
    const size_t padded = bytes + (align > kCudaNaturalAlignment ? align - 1 : 0);
    int previous = -1;
    if (cudaGetDevice(&previous) != cudaSuccess) {
      return nullptr;
    }
    void* base = nullptr;
    const bool switch_device = previous != device;
    if ((switch_device && cudaSetDevice(device) != cudaSuccess) ||
        cudaMalloc(&base, std::max<size_t>(padded, 1)) != cudaSuccess) {
      (void)cudaGetLastError();  // clear the sticky error; the caller reports OOM
      base = nullptr;
    }
    if (switch_device) {
      (void)cudaSetDevice(previous);
    }
    if (base == nullptr) {
      return nullptr;
    }
    void* ptr = reinterpret_cast<void*>(align_up(reinterpret_cast<uintptr_t>(base), align));
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      live_.emplace(ptr, Segment{base, bytes, device, fork_safety::generation()});
    }
    counters_.on_allocate(static_cast<int64_t>(bytes));
    leak_tracker::on_allocate(ptr, bytes, c10::Device(c10::DeviceType::CUDA, static_cast<c10::DeviceIndex>(device)));
    return ptr;
  }

  void free_raw(void* ptr) noexcept {
    if (ptr == nullptr) {
      return;
    }
    Segment segment{};
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      const auto live = live_.find(ptr);
      TORCH_INTERNAL_ASSERT(live != live_.end(), "uaccel CUDA allocator: freeing a pointer it does not own");
      segment = live->second;
      live_.erase(live);
    }
    if (segment.generation == fork_safety::generation()) {  // else a forked child's copy of a parent's pointer
      const c10::cuda::CUDAGuard guard(static_cast<c10::DeviceIndex>(segment.device));
      C10_CUDA_CHECK_WARN(cudaFree(segment.base));
    }
    counters_.on_free(static_cast<int64_t>(segment.requested));
    leak_tracker::on_free(ptr);
  }

  c10::DataPtr allocate_aligned(size_t bytes, int64_t alignment, c10::Device device) override {
    const int index = device.has_index() ? device.index() : c10::cuda::current_device();
    if (bytes == 0) {
      return {nullptr, nullptr, &release, c10::Device(c10::DeviceType::CUDA, static_cast<c10::DeviceIndex>(index))};
    }
    TORCH_CHECK(
        !unusable_after_fork(),
        "uaccel.aligned_empty: expected a process that can use CUDA, but this is a forked child of a process that "
        "used it, and CUDA does not survive fork() (as in PyTorch); start workers with the 'spawn' method");
    void* ptr = allocate_raw(bytes, static_cast<size_t>(alignment), index);
    TORCH_CHECK_WITH(
        OutOfMemoryError, ptr != nullptr, "uaccel.aligned_empty: CUDA out of memory allocating ", bytes,
        " bytes aligned to ", alignment, " on cuda:", index);
    return {ptr, ptr, &release, c10::Device(c10::DeviceType::CUDA, static_cast<c10::DeviceIndex>(index))};
  }

  Stats stats() const override { return counters_.snapshot(static_cast<int64_t>(pool_alignment_.load())); }
  void reset_peak_stats() override { counters_.reset_peak(); }
  // Caching happens in PyTorch's allocator above this layer (torch.cuda.empty_cache releases it).
  void empty_cache() override {}

  // Pools share the C entry points, so their alignment only grows: every pool keeps its guarantee.
  void raise_pool_alignment(size_t alignment) {
    size_t current = pool_alignment_.load();
    while (alignment > current && !pool_alignment_.compare_exchange_weak(current, alignment)) {
    }
  }
  size_t pool_alignment() const { return pool_alignment_.load(); }

 private:
  CudaMemory() { fork_safety::register_state(mutex_, &in_forked_child); }
  static void release(void* ptr) { instance().free_raw(ptr); }

  // A forked child of a process that used CUDA through here cannot use it: it allocates nothing,
  // and frees of the parent's segments only drop their records (the memory is the parent's).
  static void in_forked_child() {
    auto& memory = instance();
    memory.parent_used_.store(memory.parent_used_.load() || memory.used_.load());
    memory.used_.store(false);
  }
  bool unusable_after_fork() const { return parent_used_.load(std::memory_order_relaxed); }

  Counters counters_;
  std::atomic<size_t> pool_alignment_{kCudaNaturalAlignment};
  std::atomic<bool> used_{false};         // this process allocated CUDA memory here
  std::atomic<bool> parent_used_{false};  // an ancestor did, before a fork()
  std::mutex mutex_;
  std::unordered_map<void*, Segment> live_;  // guarded by mutex_
};

const bool cuda_registered = (register_device_memory(c10::DeviceType::CUDA, &CudaMemory::instance()), true);

} // namespace
} // namespace uaccel::memory

extern "C" {

void* uaccel_cuda_alloc(size_t size, int device, cudaStream_t /*stream*/) {
  auto& memory = uaccel::memory::CudaMemory::instance();
  return memory.allocate_raw(size, memory.pool_alignment(), device);
}

void uaccel_cuda_free(void* ptr, size_t /*size*/, int /*device*/, cudaStream_t /*stream*/) {
  uaccel::memory::CudaMemory::instance().free_raw(ptr);
}

void uaccel_cuda_set_alignment(size_t alignment) {
  uaccel::memory::CudaMemory::instance().raise_pool_alignment(alignment);
}

} // extern "C"
