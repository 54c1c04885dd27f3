// Every schema of the `uaccel` library lives here but the pointwise ops', which their headers hold
// (csrc/ops/<op>.h; the framework defines them, csrc/pointwise/library.cpp); capability folders only
// register kernels.
#include <ATen/Parallel.h>
#include <torch/library.h>

#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include <uaccel/export.h>

#include <uaccel/detail/checks.h>
#include <uaccel/detail/cpu_capability.h>
#include <uaccel/detail/pointwise_op.h>
#include <uaccel/detail/registration.h>

namespace {

// Build facts for `python -m torch_uaccel` and bug reports, one typed value each (the schema names them).
constexpr const char* kBuildInfoSchema =
    "build_info() -> (str torch_build, str cpu_kernels, str cpu_kernels_reason, str[] cpu_flags, "
    "str[] cpu_runnable, str cpu_parallel, str torch_parallel, bool cuda, str[] cuda_archs)";

std::vector<std::string> words(const std::string& text) {
  std::vector<std::string> split;
  std::istringstream stream(text);
  for (std::string word; stream >> word;) {
    split.push_back(word);
  }
  return split;
}

auto build_info() {
  const auto& choice = uaccel::cpu::capability();
  const auto flags = uaccel::cpu::cpu_flags();
  std::vector<std::string> runnable;
  for (const auto level : uaccel::cpu::runnable_capabilities(flags)) {
    runnable.emplace_back(uaccel::cpu::capability_name(level));
  }
#ifdef UACCEL_WITH_CUDA
  const bool cuda = true;
  const std::string cuda_archs = UACCEL_CUDA_ARCHS;
#else
  const bool cuda = false;
  const std::string cuda_archs;
#endif
  // The pool the CPU kernels run on, as compiled, beside torch's (they differ only in a broken build).
  return std::make_tuple(
      std::string(UACCEL_TORCH_VERSION), std::string(uaccel::cpu::capability_name(choice.capability)), choice.reason,
      flags, runnable, std::string(uaccel::pointwise::parallel_backend_dispatch()),
      std::string(AT_PARALLEL_OPENMP ? "openmp" : "native"), cuda, words(cuda_archs));
}

} // namespace

TORCH_LIBRARY(uaccel, m) {
  // Fake (meta) kernels are registered from Python, all in this module.
  m.set_python_module("torch_uaccel._fake");
  m.def(kBuildInfoSchema, &build_info);
  // Check wording and facts (dtypes, alignment bound, stats fields) for the Python fakes, which
  // must say what the C++ checks say (torch_uaccel/_checks.py).
  m.def("_shared_facts() -> (str[], str[])", [] {
    std::vector<std::string> keys, values;
    for (auto& [key, value] : uaccel::checks::shared_facts()) {
      keys.push_back(std::move(key));
      values.push_back(std::move(value));
    }
    return std::make_tuple(keys, values);
  });
  // The namespaces of the libraries of pointwise ops loaded, this one's first (torch_uaccel.library).
  m.def("_pointwise_libraries() -> str[]", &uaccel::pointwise::libraries);
  // The CPU kernel choice for a given request and CPU flags, for tests that play other CPUs.
  m.def(
      "_choose_cpu_capability(str requested, str[] cpu_flags) -> str[]",
      [](std::string requested, std::vector<std::string> flags) {
        const auto choice = uaccel::cpu::choose_capability(requested, flags);
        return std::vector<std::string>{uaccel::cpu::capability_name(choice.capability), choice.reason};
      });

  // Memory (csrc/memory): aligned tensors, the CPU allocator hook, statistics, leak tracking.
  m.def("aligned_empty(SymInt[] size, *, int alignment=64, ScalarType? dtype=None, Device? device=None) -> Tensor");
  // One name per feature: the op is the C++ API's name (uaccel/memory.h), with `memory_` before the
  // names too generic for a flat namespace; Python drops that prefix (torch_uaccel.memory.stats).
  m.def("install_cpu_allocator(int alignment=64) -> ()");
  m.def("uninstall_cpu_allocator() -> ()");
  m.def("memory_set_cache_limit(int bytes) -> ()");
  m.def("memory_stats(Device device) -> int[]");  // in the order of uaccel::memory::kStatsFields
  m.def("memory_reset_peak_stats(Device device) -> ()");
  m.def("memory_empty_cache(Device device) -> ()");
  m.def("memory_track_begin() -> int");
  m.def("memory_track_end(int token) -> (int[], str[], str[])");  // sizes, devices, where

  // Copies (csrc/copy): enqueued on the current stream when CUDA is involved.
  m.def("async_copy_(Tensor(a!) dst, Tensor src) -> ()");

  // Host memory (csrc/host): pinned zero-copy registration, returning (id, CUDA view or None).
  m.def("register_host(Tensor host) -> (int, Tensor?)");
  m.def("unregister_host(int id) -> ()");

  // Row-wise ops (csrc/rowwise): RMSNorm as F.rms_norm, with the model families' conventions as options
  // (weight_offset: Gemma's 1 + weight; cast_before_weight: Llama's normalised value in the input's type,
  // then the weight). add_rms_norm: residual_out = input + residual, out = rms_norm(residual_out), in one
  // pass. The _forward ops also return the 1 / rms of each row, which the backward reads.
  m.def(
      "rms_norm(Tensor input, int[] normalized_shape, Tensor? weight=None, float? eps=None, *, "
      "float weight_offset=0., bool cast_before_weight=False) -> Tensor");
  m.def(
      "_rms_norm_forward(Tensor input, int[] normalized_shape, Tensor? weight, float? eps, float weight_offset, "
      "bool cast_before_weight) -> (Tensor, Tensor)");
  m.def(
      "add_rms_norm(Tensor input, Tensor residual, int[] normalized_shape, Tensor? weight=None, float? eps=None, *, "
      "float weight_offset=0., bool cast_before_weight=False) -> (Tensor out, Tensor residual_out)");
  m.def(
      "_add_rms_norm_forward(Tensor input, Tensor residual, int[] normalized_shape, Tensor? weight, float? eps, "
      "float weight_offset, bool cast_before_weight) -> (Tensor, Tensor, Tensor)");
  m.def(
      "rms_norm_backward(Tensor grad_output, Tensor input, Tensor rstd, int[] normalized_shape, Tensor? weight, "
      "float eps, float weight_offset, bool cast_before_weight, bool[2] output_mask) -> (Tensor, Tensor)");
}
