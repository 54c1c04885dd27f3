#pragma once
// GeGLU's gate, y = gelu(gate, approximate) * up (Gemma's MLP), fused as silu_mul.h fuses SwiGLU's,
// with GELU's math (csrc/activations/gelu.h).
#include <uaccel/pointwise.h>
#include "../activations/activation_derivatives.h"

namespace uaccel::ops::gelu_mul {
inline namespace CPU_CAPABILITY {

// gate enters through gelu(gate) alone (a 16-bit gate's is looked up, uaccel/pointwise.h's Formula).
template <typename T, bool kTanh>
struct Forward : pointwise::Formula<Forward<T, kTanh>> {
  static constexpr size_t kTabulatedInput = 0;
  template <typename V>
  C10_HOST_DEVICE Outputs<V, 1> tabulated(V gate) const {
    return {{kTanh ? math::gelu_tanh<T>(gate) : math::gelu<T>(gate)}};
  }
  template <typename V>
  C10_HOST_DEVICE V combine(Outputs<V, 1> gelu, V up) const {
    return gelu.v[0] * up;
  }
};

// d gate = g * up * gelu'(gate), d up = g * gelu(gate).
template <typename T, bool kTanh>
struct Backward : pointwise::Formula<Backward<T, kTanh>> {
  static constexpr size_t kTabulatedInput = 1;
  template <typename V>
  C10_HOST_DEVICE Outputs<V, 2> tabulated(V gate) const {
    V gelu;
    const V derivative = kTanh ? math::gelu_tanh_derivative<T>(gate, gelu) : math::gelu_derivative<T>(gate, gelu);
    return {{derivative, gelu}};
  }
  template <typename V>
  C10_HOST_DEVICE Outputs<V, 2> combine(V g, Outputs<V, 2> gelu, V up) const {
    return {{g * up * gelu.v[0], g * gelu.v[1]}};
  }
};

} // namespace CPU_CAPABILITY

struct Op {
  static constexpr const char* kName = "gelu_mul";
  static constexpr pointwise::Schemas kSchemas{
      .forward = "gelu_mul(Tensor gate, Tensor up, *, str approximate='none') -> Tensor",
      .backward =
          "gelu_mul_backward(Tensor grad_output, Tensor gate, Tensor up, *, str approximate='none') -> "
          "(Tensor, Tensor)",
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
  // f = gelu(gate) up: f_gg = gelu''(gate) up, f_gu = gelu'(gate), f_uu = 0.
  static std::array<at::Tensor, 2> backward_wrt_saved(
      const at::Tensor& h_gate,
      const at::Tensor& h_up,
      const at::Tensor& gate,
      const at::Tensor& up,
      std::string_view approximate) {
    const auto [first, second] = math::gelu_derivatives(gate, approximate);
    return {h_gate * second * up + h_up * first, h_gate * first};
  }
};

} // namespace uaccel::ops::gelu_mul
