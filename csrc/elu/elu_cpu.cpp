// The CPU registration of uaccel::elu and uaccel::elu_backward: checks, output allocation, and
// the kernel set for this CPU (elu_cpu_isa.cpp, compiled once per instruction set).
#include <ATen/Version.h>
#include <torch/library.h>

#include "elu/elu_common.h"
#include "elu/elu_cpu_kernels.h"

namespace uaccel::elu_ops {

const CpuKernels& cpu_kernels() {
  // at::get_cpu_capability() is what ATen dispatches on: the CPU's best, capped by ATEN_CPU_CAPABILITY.
  static const CpuKernels& chosen = [&]() -> const CpuKernels& {
    const std::string capability = at::get_cpu_capability();
#ifdef UACCEL_HAVE_AVX512
    if (capability == "AVX512") {
      return AVX512::kernels;
    }
#endif
#ifdef UACCEL_HAVE_AVX2
    if (capability == "AVX512" || capability == "AVX2") {
      return AVX2::kernels;
    }
#endif
    return DEFAULT::kernels;
  }();
  return chosen;
}

namespace {

at::Tensor elu_cpu(const at::Tensor& self, double alpha) {
  auto iter = forward_iter(self);
  cpu_kernels().forward(iter, alpha);
  return iter.output();
}

at::Tensor elu_backward_cpu(const at::Tensor& grad_output, const at::Tensor& saved, double alpha, bool is_result) {
  auto iter = backward_iter(grad_output, saved, alpha, is_result);
  cpu_kernels().backward(iter, alpha, is_result);
  return iter.output();
}

} // namespace

TORCH_LIBRARY_IMPL(uaccel, CPU, m) {
  m.impl("elu", &elu_cpu);
  m.impl("elu_backward", &elu_backward_cpu);
}

} // namespace uaccel::elu_ops
