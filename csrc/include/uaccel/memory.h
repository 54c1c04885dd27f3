#pragma once
// C++ API of the uaccel memory tools: an aligned, caching, counting CPU allocator that can be
// installed under PyTorch (c10::SetCPUAllocator), aligned tensors, statistics and leak tracking.
#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <uaccel/export.h>

namespace uaccel::memory {

struct Stats {
  int64_t allocated_bytes = 0;  // live bytes handed out (requested sizes)
  int64_t peak_bytes = 0;       // high-water mark of allocated_bytes since the last reset
  int64_t allocations = 0;      // allocate calls that returned memory
  int64_t frees = 0;            // blocks given back by their owners
  int64_t cached_bytes = 0;     // freed blocks kept for reuse
  int64_t alignment = 0;        // alignment the allocator hands out now
};

// The fields in order, with their names: the memory_stats op returns them so, and Python's
// torch_uaccel.memory.stats() names them so.
struct StatsField {
  const char* name;
  int64_t Stats::* member;
};
inline constexpr StatsField kStatsFields[] = {
    {"allocated_bytes", &Stats::allocated_bytes}, {"peak_bytes", &Stats::peak_bytes},
    {"allocations", &Stats::allocations},         {"frees", &Stats::frees},
    {"cached_bytes", &Stats::cached_bytes},       {"alignment", &Stats::alignment},
};

struct Leak {
  int64_t size;
  std::string device;
  std::string where;  // innermost Python frames of the allocating call, when they could be captured
};

// Make every CPU tensor allocation come from the uaccel allocator (aligned to `alignment`, a power
// of two from 1 up to 1 GiB). Nestable: each uninstall restores exactly what its install replaced.
UACCEL_API void install_cpu_allocator(int64_t alignment = 64);
UACCEL_API void uninstall_cpu_allocator();

UACCEL_API Stats stats(c10::DeviceType device = c10::DeviceType::CPU);
UACCEL_API void reset_peak_stats(c10::DeviceType device = c10::DeviceType::CPU);
UACCEL_API void empty_cache(c10::DeviceType device = c10::DeviceType::CPU);
// Bytes of freed CPU blocks kept for reuse before they go back to the system.
UACCEL_API void set_cache_limit(int64_t bytes);

// Leak tracking: allocations made between begin and end that are still alive at end.
UACCEL_API int64_t track_begin();
UACCEL_API std::vector<Leak> track_end(int64_t token);

// An uninitialised tensor whose data pointer is a multiple of `alignment`.
UACCEL_API at::Tensor aligned_empty(
    at::IntArrayRef size,
    int64_t alignment = 64,
    std::optional<at::ScalarType> dtype = std::nullopt,
    std::optional<at::Device> device = std::nullopt);

} // namespace uaccel::memory
