// The memory API (uaccel/memory.h) and its operators. None of these ops takes a tensor, so they
// are registered at CompositeExplicitAutograd, which the dispatcher uses for such calls;
// aligned_empty's fake kernel is Python's (torch_uaccel/_fake.py).
#include <ATen/ATen.h>
#include <c10/core/DefaultDtype.h>
#include <torch/library.h>

#include <tuple>

#include <uaccel/detail/checks.h>
#include "memory/device_memory.h"
#include "memory/leak_tracker.h"

namespace uaccel::memory {

Stats stats(c10::DeviceType device) {
  return device_memory("uaccel.memory_stats", device).stats();
}

void reset_peak_stats(c10::DeviceType device) {
  device_memory("uaccel.memory_reset_peak_stats", device).reset_peak_stats();
}

void empty_cache(c10::DeviceType device) {
  device_memory("uaccel.memory_empty_cache", device).empty_cache();
}

int64_t track_begin() {
  return leak_tracker::begin();
}

std::vector<Leak> track_end(int64_t token) {
  return leak_tracker::end(token);
}

at::Tensor aligned_empty(
    at::IntArrayRef size, int64_t alignment, std::optional<at::ScalarType> dtype, std::optional<at::Device> device) {
  constexpr const char* op = "uaccel.aligned_empty";
  checks::alignment(op, alignment);
  for (const int64_t dim : size) {
    TORCH_CHECK(dim >= 0, op, ": expected sizes >= 0, but got ", size);
  }
  const auto scalar_type = dtype.value_or(c10::get_default_dtype_as_scalartype());
  const auto target = device.value_or(at::Device(at::kCPU));
  const size_t nbytes = at::detail::computeStorageNbytesContiguous(size, c10::elementSize(scalar_type));
  auto data = device_memory(op, target.type()).allocate_aligned(nbytes, alignment, target);
  const at::Device data_device = data.device();
  // Not resizable: growing it would reallocate without the alignment.
  c10::Storage storage(
      c10::Storage::use_byte_size_t(), nbytes, std::move(data), /*allocator=*/nullptr,
      /*resizable=*/false);
  return at::empty({0}, at::TensorOptions().dtype(scalar_type).device(data_device)).set_(storage, 0, size);
}

namespace {

std::vector<int64_t> stats_op(at::Device device) {
  const Stats s = stats(device.type());
  std::vector<int64_t> values;
  for (const auto& field : kStatsFields) {
    values.push_back(s.*field.member);
  }
  return values;
}

std::tuple<std::vector<int64_t>, std::vector<std::string>, std::vector<std::string>> track_end_op(int64_t token) {
  std::vector<int64_t> sizes;
  std::vector<std::string> devices;
  std::vector<std::string> where;
  for (auto& leak : track_end(token)) {
    sizes.push_back(leak.size);
    devices.push_back(std::move(leak.device));
    where.push_back(std::move(leak.where));
  }
  return {sizes, devices, where};
}

} // namespace

TORCH_LIBRARY_IMPL(uaccel, CompositeExplicitAutograd, m) {
  m.impl("aligned_empty", &aligned_empty);
  m.impl("install_cpu_allocator", &install_cpu_allocator);
  m.impl("uninstall_cpu_allocator", &uninstall_cpu_allocator);
  m.impl("memory_set_cache_limit", &set_cache_limit);
  m.impl("memory_stats", &stats_op);
  m.impl("memory_reset_peak_stats", [](at::Device device) { reset_peak_stats(device.type()); });
  m.impl("memory_empty_cache", [](at::Device device) { empty_cache(device.type()); });
  m.impl("memory_track_begin", &track_begin);
  m.impl("memory_track_end", &track_end_op);
}

} // namespace uaccel::memory
