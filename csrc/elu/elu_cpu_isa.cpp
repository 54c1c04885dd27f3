// CPU kernels of uaccel::elu and uaccel::elu_backward on at::vec::Vectorized. This file is
// compiled once per instruction set (setup.py: DEFAULT, AVX2, AVX512); elu_cpu.cpp picks one.
#include <ATen/Dispatch.h>

#include <array>

#include "common/cpu_loops.h"
#include "elu/elu_common.h"
#include "elu/elu_cpu_kernels.h"

namespace uaccel::elu_ops {
namespace CPU_CAPABILITY {
namespace {

using at::vec::Vectorized;

// 1/k!, k = 0..14.
constexpr std::array<double, 15> kInverseFactorial = {
    1.0, 1.0, 1.0 / 2, 1.0 / 6, 1.0 / 24, 1.0 / 120, 1.0 / 720, 1.0 / 5040, 1.0 / 40320, 1.0 / 362880,
    1.0 / 3628800, 1.0 / 39916800, 1.0 / 479001600, 1.0 / 6227020800, 1.0 / 87178291200};

// expm1 on the side ELU needs it (x <= 0), fast: exp(x) - 1 where that is accurate (x <= -1/2,
// the result is at least 0.39 in magnitude), else the Taylor series, which converges quickly there
// and keeps full relative precision as x -> 0 (exp(x) - 1 would cancel). Degree 8 reaches float's
// precision on [-1/2, 0], degree 14 double's. Sleef's vector expm1 is several times slower than its exp.
template <typename T>
Vectorized<T> expm1_nonpositive(Vectorized<T> x) {
  constexpr int kDegree = std::is_same_v<T, float> ? 8 : 14;
  Vectorized<T> series(static_cast<T>(kInverseFactorial[kDegree]));
  for (int k = kDegree - 1; k >= 1; --k) {
    series = at::vec::fmadd(series, x, Vectorized<T>(static_cast<T>(kInverseFactorial[k])));
  }
  series = series * x;
  const auto direct = x.exp() - Vectorized<T>(T(1));
  return Vectorized<T>::blendv(direct, series, x > Vectorized<T>(T(-0.5)));
}

// Vector forms of the scalar ops in elu_math.h. Each skips the transcendental when no lane is on
// the negative side, which is most vectors of a typical activation tensor.
template <typename T>
struct ForwardVecOp : ForwardOp<T> {
  Vectorized<T> vec(Vectorized<T> x) const {
    const auto nonnegative = x >= Vectorized<T>(T(0));  // NaN lanes take the negative side: NaN
    const Vectorized<T> poscoef(this->c.poscoef);
    if (nonnegative.zero_mask() == 0) {
      return x * poscoef;
    }
    const auto negative = Vectorized<T>(this->c.negcoef) * expm1_nonpositive(x * Vectorized<T>(this->c.negiptcoef));
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
    const Vectorized<T> negiptcoef(this->c.negiptcoef);
    const auto negative_side = g * Vectorized<T>(this->c.negiptcoef * this->c.negcoef) * (x * negiptcoef).exp();
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

void forward(at::TensorIteratorBase& iter, const at::Scalar& alpha, const at::Scalar& scale, const at::Scalar& input_scale) {
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

#define UACCEL_STRINGIFY(x) #x
#define UACCEL_NAME(x) UACCEL_STRINGIFY(x)
extern const CpuKernels kernels{UACCEL_NAME(CPU_CAPABILITY), &forward, &backward};

} // namespace CPU_CAPABILITY
} // namespace uaccel::elu_ops
