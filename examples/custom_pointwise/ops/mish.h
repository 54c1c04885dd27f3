#pragma once
// mish(x) = x tanh(softplus(x)): F.mish, as torch.ops.myops.mish (and mish_, in place) on torch_uaccel's
// pointwise framework. With e = exp(-|x|) <= 1 (nothing overflows or cancels):
//   tanh(log(1 + e^x)) = n / d,  n = e (e + 2), d = n + 2 for x < 0;  n = 1 + 2e, d = n + 2 e^2 otherwise,
// and 1 - tanh^2 = (d - n)(d + n) / d^2, d - n being 2 or 2 e^2 exactly.
#include <uaccel/pointwise.h>

namespace myops::mish {
inline namespace CPU_CAPABILITY {
namespace math = uaccel::math;  // the functions for scalars and vectors alike

// tanh(softplus(x)) as n / d, and d - n.
template <typename T, typename V>
C10_HOST_DEVICE void tanh_softplus(V x, V e, V& n, V& d, V& d_minus_n) {
  const auto negative = math::less(x, V(T(0)));
  n = math::select(negative, e * (e + V(T(2))), math::fma(V(T(2)), e, V(T(1))));
  d_minus_n = math::select(negative, V(T(2)), V(T(2)) * e * e);
  d = n + d_minus_n;
}

template <typename T>
struct Forward : uaccel::pointwise::Formula<Forward<T>> {
  template <typename V>
  C10_HOST_DEVICE V apply(V x) const {
    V n, d, d_minus_n;
    tanh_softplus<T>(x, math::exp_nonpositive(math::neg_abs(x)), n, d, d_minus_n);
    return x * n / d;
  }
};

// d/dx x t = t + x (1 - t^2) sigmoid(x), t = tanh(softplus(x)).
template <typename T>
struct Backward : uaccel::pointwise::Formula<Backward<T>> {
  template <typename V>
  C10_HOST_DEVICE V apply(V g, V x) const {
    const V e = math::exp_nonpositive(math::neg_abs(x));
    V n, d, d_minus_n;
    tanh_softplus<T>(x, e, n, d, d_minus_n);
    const V r = math::reciprocal(d), one = V(T(1));
    const V sigmoid = math::select(math::less(x, V(T(0))), e, one) / (one + e);
    return g * math::fma(x * (d_minus_n * (d + n) * r * r), sigmoid, n * r);
  }
};

} // namespace CPU_CAPABILITY

struct Op : uaccel::pointwise::Functors<Forward, Backward> {
  static constexpr const char* kName = "mish";
  static constexpr uaccel::pointwise::Schemas kSchemas{
      .forward = "mish(Tensor self) -> Tensor",
      .inplace = "mish_(Tensor(a!) self) -> ()",
      .backward = "mish_backward(Tensor grad_output, Tensor self) -> Tensor",
  };
  // f'' = 2 t' + x t'', t' = (1 - t^2) s, t'' = s (1 - s)(1 - t^2) - 2 t t' s; s = sigmoid(x).
  static at::Tensor backward_wrt_saved(const at::Tensor& h, const at::Tensor& x) {
    const auto t = at::tanh(at::softplus(x)), s = at::sigmoid(x), one_minus_t2 = 1 - t * t;
    const auto t1 = one_minus_t2 * s;
    return h * (2 * t1 + x * (s * (1 - s) * one_minus_t2 - 2 * t * t1 * s));
  }
};

} // namespace myops::mish
