// RMSNorm's CUDA kernels: its descriptions (csrc/ops/rms_norm.h) on the row-wise CUDA engine, the CPU
// kernels' math element for element.
#include <c10/cuda/CUDAGuard.h>

#include <uaccel/detail/rowwise_cuda.cuh>

#include "rms_norm_kernels.h"

namespace uaccel::rowwise {
namespace {

struct OnCuda {
  static c10::cuda::CUDAGuard device_guard(const at::Tensor& x) { return c10::cuda::CUDAGuard(x.device()); }
  template <typename D, typename T>
  static void run(const D& description, const Operands<D, T>& operands) {
    run_cuda(description, operands);
  }
};

} // namespace

const RmsNormForwardKernel rms_norm_forward_cuda = &rms_norm_forward<OnCuda>;
const RmsNormBackwardKernel rms_norm_backward_cuda = &rms_norm_backward<OnCuda>;

} // namespace uaccel::rowwise
