#pragma once
// SwiGLU's gate, y = silu(gate) * up (the MLPs of Llama, Qwen, Mistral), fused: one pass over memory
// forward, one backward for both gradients, and autograd saves gate and up only (the unfused chain
// saves silu(gate) as well). SiLU's math is silu.h's (csrc/activations/silu.h).
#include <uaccel/pointwise.h>
#include "../activations/activation_derivatives.h"

namespace uaccel::ops::silu_mul {
inline namespace CPU_CAPABILITY {

// gate enters through silu(gate) alone (a 16-bit gate's is looked up, uaccel/pointwise.h's Formula).
template <typename T>
struct Forward : pointwise::Formula<Forward<T>> {
  static constexpr size_t kTabulatedInput = 0;
  template <typename V>
  C10_HOST_DEVICE Outputs<V, 1> tabulated(V gate) const {
    return {{math::silu<T>(gate)}};
  }
  template <typename V>
  C10_HOST_DEVICE V combine(Outputs<V, 1> silu, V up) const {
    return silu.v[0] * up;
  }
};

// d gate = g * up * silu'(gate), d up = g * silu(gate).
template <typename T>
struct Backward : pointwise::Formula<Backward<T>> {
  static constexpr size_t kTabulatedInput = 1;
  template <typename V>
  C10_HOST_DEVICE Outputs<V, 2> tabulated(V gate) const {
    V silu;
    const V derivative = math::silu_derivative<T>(V(T(1)), gate, silu);
    return {{derivative, silu}};
  }
  template <typename V>
  C10_HOST_DEVICE Outputs<V, 2> combine(V g, Outputs<V, 2> silu, V up) const {
    return {{g * up * silu.v[0], g * silu.v[1]}};
  }
};

} // namespace CPU_CAPABILITY

struct Op : pointwise::Functors<Forward, Backward> {
  static constexpr const char* kName = "silu_mul";
  static constexpr pointwise::Schemas kSchemas{
      .forward = "silu_mul(Tensor gate, Tensor up) -> Tensor",
      .backward = "silu_mul_backward(Tensor grad_output, Tensor gate, Tensor up) -> (Tensor, Tensor)",
  };
  // f = silu(gate) up: f_gg = silu''(gate) up, f_gu = silu'(gate), f_uu = 0.
  static std::array<at::Tensor, 2> backward_wrt_saved(
      const at::Tensor& h_gate, const at::Tensor& h_up, const at::Tensor& gate, const at::Tensor& up) {
    const auto [first, second] = math::silu_derivatives(gate);
    return {h_gate * second * up + h_up * first, h_gate * first};
  }
};

} // namespace uaccel::ops::silu_mul
