#pragma once
// SwiGLU's gate, y = silu(gate) * up (the MLPs of Llama, Qwen, Mistral), fused: one pass over memory
// forward, one backward for both gradients, and autograd saves gate and up only (the unfused chain
// saves silu(gate) as well). SiLU's math is silu.h's (uaccel/math/activation_math.h).
#include <uaccel/math/activation_derivatives.h>
#include <uaccel/pointwise.h>

namespace uaccel::ops::silu_mul {
inline namespace CPU_CAPABILITY {

template <typename T>
struct Forward : pointwise::Formula<Forward<T>> {
  template <typename V>
  C10_HOST_DEVICE V apply(V gate, V up) const {
    return math::silu<T>(gate) * up;
  }
};

// d gate = g * up * silu'(gate), d up = g * silu(gate).
template <typename T>
struct Backward : pointwise::Formula<Backward<T>> {
  template <typename V>
  C10_HOST_DEVICE Outputs<V, 2> apply(V g, V gate, V up) const {
    V silu;
    const V derivative = math::silu_derivative<T>(V(T(1)), gate, silu);
    return {{g * up * derivative, g * silu}};
  }
};

} // namespace CPU_CAPABILITY

struct Op {
  static constexpr const char* kName = "silu_mul";
  static constexpr pointwise::Schemas kSchemas{
      .forward = "silu_mul(Tensor gate, Tensor up) -> Tensor",
      .backward = "silu_mul_backward(Tensor grad_output, Tensor gate, Tensor up) -> (Tensor, Tensor)",
  };

  template <typename T, typename Run>
  static void forward(const Run& run) {
    run(Forward<T>{});
  }
  template <typename T, typename Run>
  static void backward(const Run& run) {
    run(Backward<T>{});
  }
  // f = silu(gate) up: f_gg = silu''(gate) up, f_gu = silu'(gate), f_uu = 0.
  static std::array<at::Tensor, 2> backward_wrt_saved(
      const at::Tensor& h_gate, const at::Tensor& h_up, const at::Tensor& gate, const at::Tensor& up) {
    const auto [first, second] = math::silu_derivatives(gate);
    return {h_gate * second * up + h_up * first, h_gate * first};
  }
};

} // namespace uaccel::ops::silu_mul
