#pragma once
// GELU, y = x * Phi(x) as F.gelu, Phi the standard normal distribution: exactly (approximate='none',
// Phi(x) = erfc(-x / sqrt(2)) / 2) or with the tanh approximation (approximate='tanh',
// Phi(x) ~ (1 + tanh(u)) / 2 = sigmoid(2u), u = sqrt(2/pi) (x + 0.044715 x^3)). Both without the
// cancellation of 1 + erf or 1 + tanh on the negative side, which costs ATen's float32 kernel its
// relative accuracy there (csrc/activations/gelu.h): float32 is within 2 ulp of float64 wherever
// the result is normal.
#include <uaccel/pointwise.h>
#include "../activations/activation_derivatives.h"

namespace uaccel::ops::gelu {
inline namespace CPU_CAPABILITY {

// Tabulated (uaccel/pointwise.h's Formula): a 16-bit x's GELU and its derivative are looked up.
template <typename T, bool kTanh>
struct Forward : pointwise::Formula<Forward<T, kTanh>> {
  static constexpr size_t kTabulatedInput = 0;
  template <typename V>
  C10_HOST_DEVICE Outputs<V, 1> tabulated(V x) const {
    return {{kTanh ? math::gelu_tanh<T>(x) : math::gelu<T>(x)}};
  }
  template <typename V>
  C10_HOST_DEVICE V combine(Outputs<V, 1> gelu) const {
    return gelu.v[0];
  }
};

template <typename T, bool kTanh>
struct Backward : pointwise::Formula<Backward<T, kTanh>> {
  static constexpr size_t kTabulatedInput = 1;
  template <typename V>
  C10_HOST_DEVICE Outputs<V, 1> tabulated(V x) const {
    V value;
    return {{kTanh ? math::gelu_tanh_derivative<T>(x, value) : math::gelu_derivative<T>(x, value)}};
  }
  template <typename V>
  C10_HOST_DEVICE V combine(V g, Outputs<V, 1> derivative) const {
    return g * derivative.v[0];
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
      run(Forward<T, true>{});
    } else {
      run(Forward<T, false>{});
    }
  }
  template <typename T, typename Run>
  static void backward(const Run& run, std::string_view approximate) {
    if (approximate == "tanh") {
      run(Backward<T, true>{});
    } else {
      run(Backward<T, false>{});
    }
  }

  static at::Tensor backward_wrt_saved(const at::Tensor& h, const at::Tensor& x, std::string_view approximate) {
    return h * math::gelu_derivatives(x, approximate).second;
  }
};

} // namespace uaccel::ops::gelu
