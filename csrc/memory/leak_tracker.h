#pragma once
// Records allocations made while at least one track() block is open, forgets them when freed, and
// reports those a block's end finds still alive. All uaccel allocators report here.
#include <c10/core/Device.h>

#include <cstdint>
#include <vector>

#include <uaccel/memory.h>

namespace uaccel::memory::leak_tracker {

// Cheap when no block is open: one relaxed atomic load.
void on_allocate(const void* ptr, size_t bytes, c10::Device device);
void on_free(const void* ptr);

int64_t begin();
std::vector<Leak> end(int64_t token);

} // namespace uaccel::memory::leak_tracker
