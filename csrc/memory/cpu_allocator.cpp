// The uaccel CPU allocator: aligned blocks from a bounded size-class cache, counted, tracked, and
// installable under PyTorch with c10::SetCPUAllocator.
#include <c10/core/CPUAllocator.h>
#include <c10/util/Exception.h>

#include <sys/mman.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

#include <uaccel/detail/checks.h>
#include "common/fork_safety.h"
#include "memory/device_memory.h"
#include "memory/leak_tracker.h"

namespace uaccel::memory {
namespace {

// PyTorch's own CPU alignment; smaller requests get it too (a 64-aligned pointer is 1-aligned).
constexpr size_t kMinAlignment = 64;
constexpr int64_t kDefaultCacheLimit = int64_t{256} << 20;
// Blocks this large are 2 MiB aligned and asked for transparent huge pages, so a fresh block's
// first touch faults once per 2 MiB instead of once per 4 KiB (512 times fewer faults).
constexpr size_t kHugePage = size_t{2} << 20;
const c10::Device kCpu{c10::DeviceType::CPU};

// Blocks are rounded up to size classes so freed blocks fit later requests: powers of two up to
// 4 KiB, then eight classes per doubling (at most 12.5% waste).
size_t size_class(size_t bytes) {
  if (bytes <= kMinAlignment) {
    return kMinAlignment;
  }
  const size_t pow2 = size_t{1} << (64 - __builtin_clzll(bytes - 1));
  return bytes <= 4096 ? pow2 : align_up(bytes, pow2 / 8);
}

struct BlockKey {
  size_t bytes;
  size_t alignment;
  bool operator==(const BlockKey& other) const { return bytes == other.bytes && alignment == other.alignment; }
};

struct BlockKeyHash {
  size_t operator()(const BlockKey& key) const { return key.bytes * 31 + key.alignment; }
};

struct LiveBlock {
  BlockKey key;
  size_t requested;
};

class CpuAllocator final : public c10::Allocator, public DeviceMemory {
 public:
  static CpuAllocator& instance() {
    // Never destroyed: tensors may outlive static destruction and still free through it.
    static auto* allocator = new CpuAllocator();
    return *allocator;
  }

  // The hook: what PyTorch calls for every CPU tensor while installed.
  c10::DataPtr allocate(size_t bytes) override {
    return allocate_aligned(bytes, alignment_.load(std::memory_order_relaxed), kCpu);
  }

  c10::DataPtr allocate_aligned(size_t bytes, int64_t alignment, c10::Device /*device*/) override {
    if (bytes == 0) {
      return {nullptr, nullptr, &release, kCpu};
    }
    void* ptr = take(bytes, std::max(static_cast<size_t>(alignment), kMinAlignment));
    return {ptr, ptr, &release, kCpu};
  }

  c10::DeleterFnPtr raw_deleter() const override { return &release; }

  void copy_data(void* dest, const void* src, std::size_t count) const override { default_copy_data(dest, src, count); }

  Stats stats() const override { return counters_.snapshot(alignment_.load()); }
  void reset_peak_stats() override { counters_.reset_peak(); }

  void empty_cache() override {
    const std::lock_guard<std::mutex> lock(mutex_);
    trim_locked(0);
  }

  void set_cache_limit(int64_t bytes) {
    TORCH_CHECK(bytes >= 0, "uaccel.memory_set_cache_limit: expected a byte count >= 0, but got ", bytes);
    const std::lock_guard<std::mutex> lock(mutex_);
    cache_limit_ = bytes;
    trim_locked(cache_limit_);
  }

  int64_t alignment() const { return alignment_.load(); }
  void set_alignment(int64_t alignment) { alignment_.store(alignment); }

 private:
  // A forked child inherits everything as it was between two updates: the installed hook, the cache
  // (its copy of those blocks), the live blocks (its copies of the parent's tensors) and the counts.
  CpuAllocator() { fork_safety::register_state(mutex_); }

  void* take(size_t requested, size_t alignment) {
    const BlockKey key{size_class(requested), alignment};
    void* ptr = nullptr;
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      auto cached = cache_.find(key);
      if (cached != cache_.end() && !cached->second.empty()) {
        ptr = cached->second.back();
        cached->second.pop_back();
        counters_.add_cached(-static_cast<int64_t>(key.bytes));
      }
      if (ptr == nullptr) {
        ptr = system_allocate_locked(key);
      }
      live_.emplace(ptr, LiveBlock{key, requested});
      counters_.on_allocate(static_cast<int64_t>(requested));  // under the lock: a fork copies them in step
    }
    leak_tracker::on_allocate(ptr, requested, kCpu);
    report_to_profiler(ptr, static_cast<int64_t>(requested));
    return ptr;
  }

  void* system_allocate_locked(const BlockKey& key) {
    const bool huge = key.bytes >= kHugePage;
    const size_t alignment = huge ? std::max(key.alignment, kHugePage) : key.alignment;
    void* ptr = nullptr;
    if (posix_memalign(&ptr, alignment, key.bytes) != 0) {
      trim_locked(0);  // the cache may hold what the system is missing
      if (posix_memalign(&ptr, alignment, key.bytes) != 0) {
        TORCH_CHECK_WITH(
            OutOfMemoryError, false, "uaccel.cpu_allocator: out of memory allocating ", key.bytes, " bytes aligned to ",
            key.alignment);
      }
    }
    if (huge) {
      // Advice only: where THP is off ("never") or not built in, the block keeps 4 KiB pages.
      madvise(ptr, key.bytes, MADV_HUGEPAGE);
    }
    return ptr;
  }

  static void release(void* ptr) {
    if (ptr != nullptr) {
      instance().give_back(ptr);
    }
  }

  void give_back(void* ptr) {
    size_t requested = 0;
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      const auto live = live_.find(ptr);
      TORCH_INTERNAL_ASSERT(live != live_.end(), "uaccel CPU allocator: freeing a pointer it does not own");
      const BlockKey key = live->second.key;
      requested = live->second.requested;
      live_.erase(live);
      if (counters_.cached_bytes() + static_cast<int64_t>(key.bytes) <= cache_limit_) {
        cache_[key].push_back(ptr);
        counters_.add_cached(static_cast<int64_t>(key.bytes));
      } else {
        std::free(ptr);
      }
      counters_.on_free(static_cast<int64_t>(requested));
    }
    leak_tracker::on_free(ptr);
    report_to_profiler(ptr, -static_cast<int64_t>(requested));
  }

  // Frees cached blocks until at most `limit` bytes stay cached.
  void trim_locked(int64_t limit) {
    for (auto& [key, blocks] : cache_) {
      while (counters_.cached_bytes() > limit && !blocks.empty()) {
        std::free(blocks.back());
        blocks.pop_back();
        counters_.add_cached(-static_cast<int64_t>(key.bytes));
      }
    }
  }

  // Keeps torch.profiler(profile_memory=True) seeing CPU memory while the hook is installed.
  void report_to_profiler(void* ptr, int64_t delta) {
    const Stats now = counters_.snapshot(0);
    c10::reportMemoryUsageToProfiler(ptr, delta, now.allocated_bytes, now.allocated_bytes + now.cached_bytes, kCpu);
  }

  std::atomic<int64_t> alignment_{static_cast<int64_t>(kMinAlignment)};
  Counters counters_;  // changed only under mutex_ (read without it)
  std::mutex mutex_;
  std::unordered_map<BlockKey, std::vector<void*>, BlockKeyHash> cache_;  // guarded by mutex_
  std::unordered_map<void*, LiveBlock> live_;                             // guarded by mutex_
  int64_t cache_limit_ = kDefaultCacheLimit;                              // guarded by mutex_
};

const bool cpu_registered = (register_device_memory(c10::DeviceType::CPU, &CpuAllocator::instance()), true);

// What each install replaced, so uninstall restores exactly that (nesting included).
std::mutex install_mutex;
std::vector<std::pair<c10::Allocator*, int64_t>> install_stack;  // guarded by install_mutex
const bool install_fork_safe = (fork_safety::register_state(install_mutex), true);

} // namespace

void install_cpu_allocator(int64_t alignment) {
  checks::alignment("uaccel.install_cpu_allocator", alignment);
  const std::lock_guard<std::mutex> lock(install_mutex);
  auto& allocator = CpuAllocator::instance();
  c10::Allocator* previous = c10::GetCPUAllocator();
  c10::SetCPUAllocator(&allocator, /*priority=*/0);
  TORCH_CHECK(
      c10::GetCPUAllocator() == &allocator,
      "uaccel.install_cpu_allocator: expected to replace the current CPU allocator, but it was "
      "registered with a higher priority than 0 and c10::SetCPUAllocator kept it");
  install_stack.emplace_back(previous, allocator.alignment());
  allocator.set_alignment(alignment);
}

void uninstall_cpu_allocator() {
  const std::lock_guard<std::mutex> lock(install_mutex);
  auto& allocator = CpuAllocator::instance();
  TORCH_CHECK(
      !install_stack.empty(),
      "uaccel.uninstall_cpu_allocator: expected an installed uaccel CPU allocator, but none is installed");
  TORCH_CHECK(
      c10::GetCPUAllocator() == &allocator,
      "uaccel.uninstall_cpu_allocator: expected the uaccel allocator to be PyTorch's CPU allocator, but "
      "something replaced it after install; not restoring over it");
  const auto [previous, alignment] = install_stack.back();
  install_stack.pop_back();
  c10::SetCPUAllocator(previous, /*priority=*/0);
  allocator.set_alignment(alignment);
}

void set_cache_limit(int64_t bytes) {
  CpuAllocator::instance().set_cache_limit(bytes);
}

} // namespace uaccel::memory
