#pragma once
// softplus(x) = log(1 + exp(beta x)) / beta, and x where beta x > threshold: F.softplus, as
// torch.ops.myops.softplus on torch_uaccel's pointwise framework. The math is written once, for
// scalars (CUDA, the CPU's strided loops) and vectors (each CPU instruction set): with z = beta x,
// log(1 + e^z) = max(z, 0) + log1p(e^-|z|), where e^-|z| <= 1 cannot overflow.
#include <uaccel/pointwise.h>

namespace myops::softplus {
inline namespace CPU_CAPABILITY {
namespace math = uaccel::math;  // the functions for scalars and vectors alike

template <typename T>
struct Forward : uaccel::pointwise::Formula<Forward<T>> {
  T beta, threshold;
  template <typename V>
  C10_HOST_DEVICE V apply(V x) const {
    const V z = x * V(beta);
    const V softplus = math::max(z, V(T(0))) + math::log1p(math::exp(-math::abs(z)));
    return math::select(math::less(V(threshold), z), x, softplus * V(T(1) / beta));
  }
};

// d/dx = sigmoid(beta x), and 1 where beta x > threshold.
template <typename T>
struct Backward : uaccel::pointwise::Formula<Backward<T>> {
  T beta, threshold;
  template <typename V>
  C10_HOST_DEVICE V apply(V g, V x) const {
    const V z = x * V(beta);
    return g * math::select(math::less(V(threshold), z), V(T(1)), math::sigmoid(z));
  }
};

} // namespace CPU_CAPABILITY

struct Op {
  static constexpr const char* kName = "softplus";
  static constexpr uaccel::pointwise::Schemas kSchemas{
      .forward = "softplus(Tensor self, Scalar beta=1, Scalar threshold=20) -> Tensor",
      .backward = "softplus_backward(Tensor grad_output, Tensor self, Scalar beta, Scalar threshold) -> Tensor",
  };
  using Params = std::tuple<at::Scalar, at::Scalar>;

  template <typename T, typename Run>
  static void forward(const Run& run, const at::Scalar& beta, const at::Scalar& threshold) {
    run(Forward<T>{{}, beta.to<T>(), threshold.to<T>()});
  }
  template <typename T, typename Run>
  static void backward(const Run& run, const at::Scalar& beta, const at::Scalar& threshold) {
    run(Backward<T>{{}, beta.to<T>(), threshold.to<T>()});
  }
  // d/dx sigmoid(beta x) = beta s (1 - s), 0 where beta x > threshold.
  static at::Tensor backward_wrt_saved(
      const at::Tensor& h, const at::Tensor& x, const at::Scalar& beta, const at::Scalar& threshold) {
    const auto z = x * beta;
    const auto s = at::sigmoid(z);
    return h * at::where(z > threshold, at::zeros_like(s), s * (1 - s) * beta);
  }
};

} // namespace myops::softplus
