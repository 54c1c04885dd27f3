#pragma once
// SiLU (swish), y = x * sigmoid(x) as F.silu, on the pointwise framework (uaccel/pointwise.h),
// with the math the gated ops share (csrc/activations/silu.h): sigmoid from e = exp(-|x|), which is
// at most 1, so nothing overflows or cancels, and a compensated quotient; on AVX-512's float vectors,
// x sigmoid(x) from a table of polynomials where every |x| <= 7.75, else x / (1 + e^-x), compensated,
// special values fixed in one instruction; on AVX2's, x / (1 + e^-x) by one division where every x is
// within [-16.25, 88]. Float32 under 2 ulp of float64 where the result is normal;
// below x = -87.3 it may be flushed to 0, as F.silu's own kernel does.
#include <uaccel/pointwise.h>
#include "../activations/activation_derivatives.h"

namespace uaccel::ops::silu {
inline namespace CPU_CAPABILITY {

// Tabulated (uaccel/pointwise.h's Formula): a 16-bit x's silu and silu' are looked up.
template <typename T>
struct Forward : pointwise::TabulatedFormula<Forward<T>> {
  template <typename V>
  C10_HOST_DEVICE V apply(V x) const {
    return math::silu<T>(x);
  }
};

template <typename T>
struct Backward : pointwise::Formula<Backward<T>> {
  static constexpr size_t kTabulatedInput = 1;
  template <typename V>
  C10_HOST_DEVICE Outputs<V, 1> tabulated(V x) const {
    V value;
    return {{math::silu_derivative<T>(V(T(1)), x, value)}};
  }
  template <typename V>
  C10_HOST_DEVICE V combine(V g, Outputs<V, 1> derivative) const {
    return g * derivative.v[0];
  }
};

} // namespace CPU_CAPABILITY

struct Op : pointwise::Functors<Forward, Backward> {
  static constexpr const char* kName = "silu";
  static constexpr pointwise::Schemas kSchemas{
      .forward = "silu(Tensor self) -> Tensor",
      .inplace = "silu_(Tensor(a!) self) -> ()",
      .backward = "silu_backward(Tensor grad_output, Tensor self) -> Tensor",
  };
  static at::Tensor backward_wrt_saved(const at::Tensor& h, const at::Tensor& x) {
    return h * math::silu_derivatives(x).second;
  }
};

} // namespace uaccel::ops::silu
