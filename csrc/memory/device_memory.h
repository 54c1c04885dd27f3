#pragma once
// What every uaccel allocator (CPU always, CUDA when built) offers the device-generic memory ops.
// Each backend registers one instance at load time; ops look it up by device type.
#include <c10/core/Allocator.h>
#include <c10/core/DeviceType.h>

#include <atomic>
#include <cstdint>
#include <string>

#include <uaccel/memory.h>

namespace uaccel::memory {

inline uintptr_t align_up(uintptr_t value, uintptr_t alignment) {
  return (value + alignment - 1) & ~(alignment - 1);
}

// Counters shared by the allocators; lock-free so the hot path never waits on them.
class Counters {
 public:
  void on_allocate(int64_t bytes);
  void on_free(int64_t bytes);
  void add_cached(int64_t bytes) { cached_bytes_ += bytes; }
  int64_t cached_bytes() const { return cached_bytes_.load(); }
  void reset_peak() { peak_bytes_ = allocated_bytes_.load(); }
  Stats snapshot(int64_t alignment) const;

 private:
  std::atomic<int64_t> allocated_bytes_{0};
  std::atomic<int64_t> peak_bytes_{0};
  std::atomic<int64_t> allocations_{0};
  std::atomic<int64_t> frees_{0};
  std::atomic<int64_t> cached_bytes_{0};
};

class DeviceMemory {
 public:
  virtual ~DeviceMemory() = default;
  // Memory for aligned_empty on `device`, aligned to `alignment`, counted and tracked.
  virtual c10::DataPtr allocate_aligned(size_t bytes, int64_t alignment, c10::Device device) = 0;
  virtual Stats stats() const = 0;
  virtual void reset_peak_stats() = 0;
  virtual void empty_cache() = 0;
};

void register_device_memory(c10::DeviceType type, DeviceMemory* memory);
// The registered backend; a clear error naming `op` when this build has none for `type`.
DeviceMemory& device_memory(const char* op, c10::DeviceType type);

} // namespace uaccel::memory
