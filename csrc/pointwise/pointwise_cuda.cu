// The CUDA implementations of every pointwise op (csrc/ops/*.h): launched on the current stream of
// the input's device, with the ops' scalar functors (shared with the CPU's strided loops).
#include <ATen/cuda/EmptyTensor.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/library.h>

#include "common/cuda_loops.cuh"
#include "pointwise/op_list.h"  // the ops' headers, and UACCEL_FOR_EACH_POINTWISE_OP
#include "pointwise/pointwise.h"

namespace uaccel::pointwise {
namespace {

struct CudaLoop {
  template <typename scalar_t, size_t N, size_t M, typename Functor>
  static void run(at::TensorIteratorBase& iter, const Functor& functor) {
    cuda::elementwise<scalar_t, N, M>(iter, functor);
  }
  template <typename scalar_t, size_t N, size_t M, typename Functor>
  static void run_dense(
      const std::array<scalar_t*, M>& out,
      const std::array<const scalar_t*, N>& in,
      int64_t n,
      const Functor& functor) {
    cuda::elementwise_dense<scalar_t, N, M>(out, in, n, functor);
  }
};

// The kernels, with the dense path the CPU has: tensors dense in one format skip TensorIterator.
template <typename Op>
struct CudaRun : Kernels<Op, CudaLoop> {
  // As ATen's CUDA kernels allocate: the caching allocator, on the current stream, no dispatcher call.
  static at::Tensor empty_dense(const at::Tensor& like, at::MemoryFormat format) {
    return at::detail::empty_cuda(like.sizes(), like.scalar_type(), like.device(), format);
  }
};

template <typename Op>
void register_cuda(torch::Library& m) {
  Implementations<Op, CudaRun<Op>, c10::cuda::CUDAGuard>::register_in(m);
}

} // namespace

#define UACCEL_REGISTER_CUDA(op) register_cuda<ops::op::Op>(m);
TORCH_LIBRARY_IMPL(uaccel, CUDA, m) {
  UACCEL_FOR_EACH_POINTWISE_OP(UACCEL_REGISTER_CUDA);
}

} // namespace uaccel::pointwise
