// CPU kernels of uaccel::elu and uaccel::elu_backward.
#include <ATen/Dispatch.h>
#include <torch/library.h>

#include "common/cpu_loops.h"
#include "elu/elu_common.h"
#include "elu/elu_math.h"

namespace uaccel::elu_ops {
namespace {

using at::vec::Vectorized;

// Vector forms of the scalar ops in elu_math.h. Each skips the transcendental when no lane is
// on the negative side, which is most vectors of a typical activation tensor.
template <typename T>
struct ForwardVecOp : ForwardOp<T> {
  Vectorized<T> vec(Vectorized<T> x) const {
    const auto positive = x > Vectorized<T>(T(0));
    if (positive.zero_mask() == 0) {
      return x;
    }
    return Vectorized<T>::blendv(Vectorized<T>(this->alpha) * x.expm1(), x, positive);
  }
};

template <typename T>
struct BackwardFromInputVecOp : BackwardFromInputOp<T> {
  Vectorized<T> vec(Vectorized<T> g, Vectorized<T> x) const {
    const auto negative = x <= Vectorized<T>(T(0));
    if (negative.zero_mask() == (1 << Vectorized<T>::size()) - 1) {
      return g;
    }
    return Vectorized<T>::blendv(g, g * Vectorized<T>(this->alpha) * x.exp(), negative);
  }
};

template <typename T>
struct BackwardFromResultVecOp : BackwardFromResultOp<T> {
  Vectorized<T> vec(Vectorized<T> g, Vectorized<T> y) const {
    const auto negative = y <= Vectorized<T>(T(0));
    return Vectorized<T>::blendv(g, g * (y + Vectorized<T>(this->alpha)), negative);
  }
};

at::Tensor elu_cpu(const at::Tensor& self, double alpha) {
  auto iter = forward_iter(self);
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, iter.dtype(), "uaccel.elu", [&] {
    using T = at::opmath_type<scalar_t>;
    cpu::elementwise<scalar_t, 1>(iter, ForwardVecOp<T>{{static_cast<T>(alpha)}});
  });
  return iter.output();
}

at::Tensor elu_backward_cpu(const at::Tensor& grad_output, const at::Tensor& saved, double alpha, bool is_result) {
  auto iter = backward_iter(grad_output, saved, alpha, is_result);
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, iter.dtype(), "uaccel.elu_backward", [&] {
    using T = at::opmath_type<scalar_t>;
    if (is_result) {
      cpu::elementwise<scalar_t, 2>(iter, BackwardFromResultVecOp<T>{{static_cast<T>(alpha)}});
    } else {
      cpu::elementwise<scalar_t, 2>(iter, BackwardFromInputVecOp<T>{{static_cast<T>(alpha)}});
    }
  });
  return iter.output();
}

} // namespace

TORCH_LIBRARY_IMPL(uaccel, CPU, m) {
  m.impl("elu", &elu_cpu);
  m.impl("elu_backward", &elu_backward_cpu);
}

} // namespace uaccel::elu_ops
