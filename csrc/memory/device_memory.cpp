#include "memory/device_memory.h"

#include <c10/util/Exception.h>

#include <array>

namespace uaccel::memory {
namespace {

std::array<DeviceMemory*, static_cast<size_t>(c10::DeviceType::COMPILE_TIME_MAX_DEVICE_TYPES)> backends{};

} // namespace

void Counters::on_allocate(int64_t bytes) {
  allocations_.fetch_add(1, std::memory_order_relaxed);
  const int64_t now = allocated_bytes_.fetch_add(bytes, std::memory_order_relaxed) + bytes;
  int64_t peak = peak_bytes_.load(std::memory_order_relaxed);
  while (now > peak && !peak_bytes_.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
  }
}

void Counters::on_free(int64_t bytes) {
  frees_.fetch_add(1, std::memory_order_relaxed);
  allocated_bytes_.fetch_sub(bytes, std::memory_order_relaxed);
}

Stats Counters::snapshot(int64_t alignment) const {
  Stats s;
  // Read frees before allocations, so that allocations - frees never undercounts live blocks.
  s.frees = frees_.load();
  s.allocations = allocations_.load();
  s.allocated_bytes = allocated_bytes_.load();
  s.peak_bytes = std::max(peak_bytes_.load(), s.allocated_bytes);
  s.cached_bytes = cached_bytes_.load();
  s.alignment = alignment;
  return s;
}

void register_device_memory(c10::DeviceType type, DeviceMemory* memory) {
  backends.at(static_cast<size_t>(type)) = memory;
}

DeviceMemory& device_memory(const char* op, c10::DeviceType type) {
  DeviceMemory* memory = backends.at(static_cast<size_t>(type));
  TORCH_CHECK(
      memory != nullptr, op, ": expected a device this build of torch_uaccel supports (cpu",
      backends[static_cast<size_t>(c10::DeviceType::CUDA)] ? ", cuda" : "", "), but got ", type);
  return *memory;
}

} // namespace uaccel::memory
