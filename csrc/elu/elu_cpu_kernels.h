#pragma once
// The CPU ELU kernels, compiled once per instruction set from elu_cpu_isa.cpp (setup.py builds it
// with CPU_CAPABILITY=DEFAULT, AVX2 and AVX512) and chosen at run time the way ATen chooses.
#include <ATen/TensorIterator.h>

namespace uaccel::elu_ops {

struct CpuKernels {
  const char* capability;
  void (*forward)(at::TensorIteratorBase& iter, double alpha);
  void (*backward)(at::TensorIteratorBase& iter, double alpha, bool is_result);
};

#define UACCEL_DECLARE_CPU_KERNELS(ISA) \
  namespace ISA {                       \
  extern const CpuKernels kernels;      \
  }
UACCEL_DECLARE_CPU_KERNELS(DEFAULT)
UACCEL_DECLARE_CPU_KERNELS(AVX2)
UACCEL_DECLARE_CPU_KERNELS(AVX512)
#undef UACCEL_DECLARE_CPU_KERNELS

// The best set this CPU runs, capped by ATEN_CPU_CAPABILITY like ATen's own kernels.
const CpuKernels& cpu_kernels();

} // namespace uaccel::elu_ops
