#pragma once
// AVX512_BF16's VCVTNE2PS2BF16 for the CPU engines (cpu_loops.h, rowwise_cpu.h): 32 floats rounded to
// bfloat16, nearest even, by one instruction, where at::vec's sequence takes 16. Include it only from
// files compiled once per instruction set (*_isa.cpp): it lives in the inline namespace CPU_CAPABILITY.
#include <ATen/cpu/vec/vec.h>

namespace uaccel::cpu {
inline namespace CPU_CAPABILITY {
namespace detail {

#if defined(CPU_CAPABILITY_AVX512)
// `first` in the low half, at::vec's order. Inline assembly, not the intrinsic: the kernels are compiled
// without -mavx512bf16, for CPUs that may lack it (has_avx512_bf16() chooses). The instruction flushes
// subnormal results to zero, so a pair of vectors holding one goes at::vec's way.
inline at::vec::Vectorized<at::BFloat16> narrow_by_avx512_bf16(__m512 first, __m512 second) {
  constexpr int kSubnormal = 0x20; // VFPCLASSPS's category
  if (_mm512_fpclass_ps_mask(first, kSubnormal) | _mm512_fpclass_ps_mask(second, kSubnormal)) [[unlikely]] {
    return at::vec::convert_from_float<at::BFloat16>(first, second);
  }
  __m512i bits;
  asm("vcvtne2ps2bf16 %2, %1, %0" : "=v"(bits) : "v"(second), "v"(first));
  return bits;
}
#endif

} // namespace detail
} // namespace CPU_CAPABILITY
} // namespace uaccel::cpu
