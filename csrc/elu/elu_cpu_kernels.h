#pragma once
// The CPU ELU kernels, compiled once per instruction set from elu_cpu_isa.cpp (setup.py builds it
// with CPU_CAPABILITY=DEFAULT, AVX2 and AVX512) and chosen at run time the way ATen chooses.
#include <ATen/TensorIterator.h>

namespace uaccel::elu_ops {

struct CpuKernels {
  const char* capability;
  // ATen's parameters: alpha, scale, input_scale (see elu_math.h).
  void (*forward)(at::TensorIteratorBase& iter, const at::Scalar& alpha, const at::Scalar& scale, const at::Scalar& input_scale);
  void (*backward)(
      at::TensorIteratorBase& iter,
      const at::Scalar& alpha,
      const at::Scalar& scale,
      const at::Scalar& input_scale,
      bool is_result);
};

#define UACCEL_DECLARE_CPU_KERNELS(ISA) \
  namespace ISA {                       \
  extern const CpuKernels kernels;      \
  }
UACCEL_DECLARE_CPU_KERNELS(DEFAULT)
UACCEL_DECLARE_CPU_KERNELS(AVX2)
UACCEL_DECLARE_CPU_KERNELS(AVX512)
#undef UACCEL_DECLARE_CPU_KERNELS

// The set for cpu::capability(): ATEN_CPU_CAPABILITY's request, never past what the CPU runs.
const CpuKernels& cpu_kernels();

} // namespace uaccel::elu_ops
