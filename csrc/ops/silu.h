#pragma once
// SiLU (swish), y = x * sigmoid(x) as F.silu, on the pointwise framework (uaccel/pointwise.h),
// with the math the gated ops share (uaccel/math/activation_math.h): sigmoid from e = exp(-|x|), which is
// at most 1, so nothing overflows or cancels, and a compensated quotient; on AVX-512's float vectors,
// x sigmoid(x) from a table of polynomials where every |x| <= 7.75, else x / (1 + e^-x), compensated,
// special values fixed in one instruction. Float32 under 2 ulp of float64 where the result is normal;
// below x = -87.3 it may be flushed to 0, as F.silu's own kernel does.
#include <uaccel/math/activation_derivatives.h>
#include <uaccel/pointwise.h>

namespace uaccel::ops::silu {
inline namespace CPU_CAPABILITY {

template <typename T>
struct Forward : pointwise::Formula<Forward<T>> {
  template <typename V>
  C10_HOST_DEVICE V apply(V x) const {
    return math::silu<T>(x);
  }
};

template <typename T>
struct Backward : pointwise::Formula<Backward<T>> {
  template <typename V>
  C10_HOST_DEVICE V apply(V g, V x) const {
    V value;
    return math::silu_derivative<T>(g, x, value);
  }
};

} // namespace CPU_CAPABILITY

struct Op {
  static constexpr const char* kName = "silu";
  static constexpr pointwise::Schemas kSchemas{
      .forward = "silu(Tensor self) -> Tensor",
      .inplace = "silu_(Tensor(a!) self) -> ()",
      .backward = "silu_backward(Tensor grad_output, Tensor self) -> Tensor",
  };

  template <typename T, typename Run>
  static void forward(const Run& run) {
    run(Forward<T>{});
  }
  template <typename T, typename Run>
  static void backward(const Run& run) {
    run(Backward<T>{});
  }
  static at::Tensor backward_wrt_saved(const at::Tensor& h, const at::Tensor& x) {
    return h * math::silu_derivatives(x).second;
  }
};

} // namespace uaccel::ops::silu
