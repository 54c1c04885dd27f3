// CPU kernels of the ELU ops on at::vec::Vectorized. This file is compiled once per instruction
// set (CMakeLists.txt: DEFAULT, AVX2, AVX512); each copy registers its kernels with the dispatch
// points of elu_kernels.h, and the DEFAULT copy also registers the ops' CPU implementations.
#include <ATen/Dispatch.h>
#include <torch/library.h>

#include "common/cpu_loops.h"
#include "common/vec_math.h"
#include "elu/elu_kernels.h"

namespace uaccel::elu_ops {
namespace CPU_CAPABILITY {
namespace {

using at::vec::Vectorized;

// Vector forms of the scalar ops in elu_kernels.h. Each skips the transcendental when no lane is on
// the negative side, which is most vectors of a typical activation tensor.
template <typename T>
struct ForwardVecOp : ForwardOp<T> {
  Vectorized<T> vec(Vectorized<T> x) const {
    const auto nonnegative = x >= Vectorized<T>(T(0));  // NaN lanes take the negative side: NaN
    const Vectorized<T> poscoef(this->c.poscoef);
    if (nonnegative.zero_mask() == 0) {
      return x * poscoef;
    }
    const auto scaled = x * Vectorized<T>(this->c.negiptcoef);
    // A negative input_scale makes the exponent positive: then Sleef's expm1, for every x.
    const auto expm1 = this->c.negiptcoef >= T(0) ? cpu::expm1_nonpositive(scaled) : scaled.expm1();
    const auto negative = Vectorized<T>(this->c.negcoef) * expm1;
    return Vectorized<T>::blendv(negative, x * poscoef, nonnegative);
  }
};

template <typename T>
struct BackwardFromInputVecOp : BackwardFromInputOp<T> {
  Vectorized<T> vec(Vectorized<T> g, Vectorized<T> x) const {
    const auto negative = x <= Vectorized<T>(T(0));
    const auto positive_side = g * Vectorized<T>(this->c.poscoef);
    if (negative.zero_mask() == (1 << Vectorized<T>::size()) - 1) {
      return positive_side;
    }
    const auto scaled = x * Vectorized<T>(this->c.negiptcoef);
    const auto exp = this->c.negiptcoef >= T(0) ? cpu::exp_nonpositive(scaled) : scaled.exp();
    const auto negative_side = g * Vectorized<T>(this->c.negiptcoef * this->c.negcoef) * exp;
    return Vectorized<T>::blendv(positive_side, negative_side, negative);
  }
};

template <typename T>
struct BackwardFromResultVecOp : BackwardFromResultOp<T> {
  Vectorized<T> vec(Vectorized<T> g, Vectorized<T> y) const {
    const auto negative = y <= Vectorized<T>(T(0));
    const auto negative_side = g * Vectorized<T>(this->c.negiptcoef) * (y + Vectorized<T>(this->c.negcoef));
    return Vectorized<T>::blendv(g * Vectorized<T>(this->c.poscoef), negative_side, negative);
  }
};

void forward(
    at::TensorIteratorBase& iter, const at::Scalar& alpha, const at::Scalar& scale, const at::Scalar& input_scale) {
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, iter.dtype(), "uaccel.elu", [&] {
    using T = at::opmath_type<scalar_t>;
    cpu::elementwise<scalar_t, 1>(iter, ForwardVecOp<T>{{coefficients<T>(alpha, scale, input_scale)}});
  });
}

void backward(
    at::TensorIteratorBase& iter,
    const at::Scalar& alpha,
    const at::Scalar& scale,
    const at::Scalar& input_scale,
    bool is_result) {
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, iter.dtype(), "uaccel.elu_backward", [&] {
    using T = at::opmath_type<scalar_t>;
    const auto c = coefficients<T>(alpha, scale, input_scale);
    if (is_result) {
      cpu::elementwise<scalar_t, 2>(iter, BackwardFromResultVecOp<T>{{c}});
    } else {
      cpu::elementwise<scalar_t, 2>(iter, BackwardFromInputVecOp<T>{{c}});
    }
  });
}

} // namespace

UACCEL_REGISTER_CPU_KERNEL(forward_stub, &forward);
UACCEL_REGISTER_CPU_KERNEL(backward_stub, &backward);

} // namespace CPU_CAPABILITY

#ifdef CPU_CAPABILITY_DEFAULT
namespace {

at::Tensor elu_cpu(
    const at::Tensor& self, const at::Scalar& alpha, const at::Scalar& scale, const at::Scalar& input_scale) {
  auto iter = elementwise::unary("uaccel.elu", self);
  forward_stub(iter, alpha, scale, input_scale);
  return iter.output();
}

void elu_inplace_cpu(
    const at::Tensor& self, const at::Scalar& alpha, const at::Scalar& scale, const at::Scalar& input_scale) {
  auto iter = elementwise::unary_inplace("uaccel.elu_", self);
  forward_stub(iter, alpha, scale, input_scale);
}

at::Tensor elu_backward_cpu(
    const at::Tensor& grad_output,
    const at::Tensor& saved,
    const at::Scalar& alpha,
    bool is_result,
    const at::Scalar& scale,
    const at::Scalar& input_scale) {
  auto iter = backward_iter(grad_output, saved, alpha, is_result);
  backward_stub(iter, alpha, scale, input_scale, is_result);
  return iter.output();
}

} // namespace

TORCH_LIBRARY_IMPL(uaccel, CPU, m) {
  m.impl("elu", &elu_cpu);
  m.impl("elu_", &elu_inplace_cpu);
  m.impl("elu_backward", &elu_backward_cpu);
}
#endif

} // namespace uaccel::elu_ops
