// Every schema of the `uaccel` library lives here; capability folders only register kernels.
#include <torch/library.h>

#include <string>

#include <uaccel/export.h>

#include "elu/elu_cpu_kernels.h"

namespace {

// Build facts for `python -m torch_uaccel` and bug reports, as "key=value" lines.
std::string build_info() {
  std::string info = "torch_build=" UACCEL_TORCH_VERSION "\n";
  info += std::string("cpu_kernels=") + uaccel::elu_ops::cpu_kernels().capability + "\n";
#ifdef UACCEL_WITH_CUDA
  info += "cuda=1\ncuda_archs=" UACCEL_CUDA_ARCHS "\n";
#else
  info += "cuda=0\ncuda_archs=\n";
#endif
  return info;
}

} // namespace

TORCH_LIBRARY(uaccel, m) {
  // Fake (meta) kernels are registered from Python, all in this module.
  m.set_python_module("torch_uaccel._fake");
  m.def("elu(Tensor self, float alpha=0.1) -> Tensor");
  m.def("elu_backward(Tensor grad_output, Tensor saved, float alpha, bool is_result) -> Tensor");
  m.def("build_info() -> str", &build_info);

  // Memory (csrc/memory): aligned tensors, the CPU allocator hook, statistics, leak tracking.
  m.def("aligned_empty(SymInt[] size, *, int alignment=64, ScalarType? dtype=None, Device? device=None) -> Tensor");
  m.def("cpu_allocator_install(int alignment=64) -> ()");
  m.def("cpu_allocator_uninstall() -> ()");
  m.def("cpu_allocator_set_cache_limit(int bytes) -> ()");
  m.def("memory_stats(Device device) -> int[]");  // allocated, peak, allocations, frees, cached, alignment
  m.def("memory_reset_peak_stats(Device device) -> ()");
  m.def("memory_empty_cache(Device device) -> ()");
  m.def("memory_track_begin() -> int");
  m.def("memory_track_end(int token) -> (int[], str[], str[])");  // sizes, devices, where

  // Copies (csrc/copy): enqueued on the current stream when CUDA is involved.
  m.def("async_copy_(Tensor(a!) dst, Tensor src) -> ()");

  // Host memory (csrc/host): pinned zero-copy registration, returning (id, CUDA view or None).
  m.def("host_register(Tensor host) -> (int, Tensor?)");
  m.def("host_unregister(int id) -> ()");
}
