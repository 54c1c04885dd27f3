#pragma once
// GELU, y = x * Phi(x) as F.gelu, Phi the standard normal distribution: exactly (approximate='none',
// Phi(x) = erfc(-x / sqrt(2)) / 2) or with the tanh approximation (approximate='tanh',
// Phi(x) ~ (1 + tanh(u)) / 2 = sigmoid(2u), u = sqrt(2/pi) (x + 0.044715 x^3)). Both without the
// cancellation of 1 + erf or 1 + tanh on the negative side, which costs ATen's float32 kernel its
// relative accuracy there (uaccel/math/activation_math.h): float32 is within 2 ulp of float64 wherever
// the result is normal.
#include <uaccel/math/activation_derivatives.h>
#include <uaccel/pointwise.h>

namespace uaccel::ops::gelu {
inline namespace CPU_CAPABILITY {

template <typename T>
struct Erf : pointwise::Formula<Erf<T>> {
  template <typename V>
  C10_HOST_DEVICE V apply(V x) const {
    return math::gelu<T>(x);
  }
};

template <typename T>
struct Tanh : pointwise::Formula<Tanh<T>> {
  template <typename V>
  C10_HOST_DEVICE V apply(V x) const {
    return math::gelu_tanh<T>(x);
  }
};

template <typename T>
struct ErfBackward : pointwise::Formula<ErfBackward<T>> {
  template <typename V>
  C10_HOST_DEVICE V apply(V g, V x) const {
    V value;
    return g * math::gelu_derivative<T>(x, value);
  }
};

template <typename T>
struct TanhBackward : pointwise::Formula<TanhBackward<T>> {
  template <typename V>
  C10_HOST_DEVICE V apply(V g, V x) const {
    V value;
    return g * math::gelu_tanh_derivative<T>(x, value);
  }
};

} // namespace CPU_CAPABILITY

struct Op {
  static constexpr const char* kName = "gelu";
  static constexpr pointwise::Schemas kSchemas{
      .forward = "gelu(Tensor self, *, str approximate='none') -> Tensor",
      .inplace = "gelu_(Tensor(a!) self, *, str approximate='none') -> ()",
      .backward = "gelu_backward(Tensor grad_output, Tensor self, *, str approximate='none') -> Tensor",
  };
  using Params = std::tuple<std::string_view>;
  static constexpr std::array<pointwise::Choice, 1> kChoices{{{"approximate", "none tanh"}}};

  template <typename T, typename Run>
  static void forward(const Run& run, std::string_view approximate) {
    if (approximate == "tanh") {
      run(Tanh<T>{});
    } else {
      run(Erf<T>{});
    }
  }
  template <typename T, typename Run>
  static void backward(const Run& run, std::string_view approximate) {
    if (approximate == "tanh") {
      run(TanhBackward<T>{});
    } else {
      run(ErfBackward<T>{});
    }
  }

  static at::Tensor backward_wrt_saved(const at::Tensor& h, const at::Tensor& x, std::string_view approximate) {
    return h * math::gelu_derivatives(x, approximate).second;
  }
};

} // namespace uaccel::ops::gelu
