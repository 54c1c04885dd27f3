// The CPU kernels of every pointwise op (csrc/ops/*.h), on at::vec::Vectorized. CMake compiles this
// file once per instruction set (DEFAULT, AVX2, AVX512); each copy registers its kernels with the
// ops' dispatch points (pointwise.h), and the ops' CPU implementations (pointwise.cpp) call them.
#include "common/cpu_loops.h"
#include "pointwise/op_list.h"  // the ops' headers, and UACCEL_FOR_EACH_POINTWISE_OP
#include "pointwise/pointwise.h"

namespace uaccel::pointwise {
inline namespace CPU_CAPABILITY {
namespace {

struct CpuLoop {
  template <typename scalar_t, size_t N, size_t M, typename Functor>
  static void run(at::TensorIteratorBase& iter, const Functor& functor) {
    cpu::elementwise<scalar_t, N, M>(iter, functor);
  }
  template <typename scalar_t, size_t N, size_t M, typename Functor>
  static void run_dense(
      const std::array<scalar_t*, M>& out,
      const std::array<const scalar_t*, N>& in,
      int64_t n,
      const Functor& functor) {
    cpu::elementwise_dense<scalar_t, N, M>(out, in, n, functor);
  }
};

template <typename Op>
bool register_kernels() {
  forward_stub<Op>.set(cpu::Capability::CPU_CAPABILITY, &Kernels<Op, CpuLoop>::forward);
  backward_stub<Op>.set(cpu::Capability::CPU_CAPABILITY, &Kernels<Op, CpuLoop>::backward);
  forward_dense_stub<Op>.set(cpu::Capability::CPU_CAPABILITY, &Kernels<Op, CpuLoop>::forward_dense);
  backward_dense_stub<Op>.set(cpu::Capability::CPU_CAPABILITY, &Kernels<Op, CpuLoop>::backward_dense);
  return true;
}

#define UACCEL_REGISTER_KERNELS(op) const bool op##_registered = register_kernels<ops::op::Op>();
UACCEL_FOR_EACH_POINTWISE_OP(UACCEL_REGISTER_KERNELS);

} // namespace
} // namespace CPU_CAPABILITY
} // namespace uaccel::pointwise
