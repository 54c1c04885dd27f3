// The CPU registration of uaccel::elu and uaccel::elu_backward: checks, output allocation, and
// the kernel set for this CPU (elu_cpu_isa.cpp, compiled once per instruction set).
#include <torch/library.h>

#include "common/cpu_capability.h"
#include "elu/elu_common.h"
#include "elu/elu_cpu_kernels.h"

namespace uaccel::elu_ops {

const CpuKernels& cpu_kernels() {
  static const CpuKernels& chosen = [&]() -> const CpuKernels& {
    switch (cpu::capability().capability) {
#ifdef UACCEL_HAVE_AVX512
      case cpu::Capability::AVX512:
        return AVX512::kernels;
#endif
#ifdef UACCEL_HAVE_AVX2
      case cpu::Capability::AVX2:
        return AVX2::kernels;
#endif
      default:
        return DEFAULT::kernels;
    }
  }();
  return chosen;
}

namespace {

at::Tensor elu_cpu(const at::Tensor& self, const at::Scalar& alpha, const at::Scalar& scale, const at::Scalar& input_scale) {
  auto iter = forward_iter(self);
  cpu_kernels().forward(iter, alpha, scale, input_scale);
  return iter.output();
}

void elu_inplace_cpu(const at::Tensor& self, const at::Scalar& alpha, const at::Scalar& scale, const at::Scalar& input_scale) {
  auto iter = forward_inplace_iter(self);
  cpu_kernels().forward(iter, alpha, scale, input_scale);
}

at::Tensor elu_backward_cpu(
    const at::Tensor& grad_output,
    const at::Tensor& saved,
    const at::Scalar& alpha,
    bool is_result,
    const at::Scalar& scale,
    const at::Scalar& input_scale) {
  auto iter = backward_iter(grad_output, saved, alpha, is_result);
  cpu_kernels().backward(iter, alpha, scale, input_scale, is_result);
  return iter.output();
}

} // namespace

TORCH_LIBRARY_IMPL(uaccel, CPU, m) {
  m.impl("elu", &elu_cpu);
  m.impl("elu_", &elu_inplace_cpu);
  m.impl("elu_backward", &elu_backward_cpu);
}

} // namespace uaccel::elu_ops
