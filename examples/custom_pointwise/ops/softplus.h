#pragma once
// softplus(x) = log(1 + exp(beta x)) / beta, and x where beta x > threshold: F.softplus, as
// torch.ops.myops.softplus on torch_uaccel's pointwise framework. The math is written once, for
// scalars (CUDA, the CPU's strided loops) and vectors (each CPU instruction set): with z = beta x,
// log(1 + e^z) = max(z, 0) + log1p(e^-|z|), where e^-|z| <= 1 cannot overflow, and
// log1p(e) = 2 atanh(s) = 2 s (1 + s^2/3 + s^4/5 + ...), s = e / (2 + e) <= 1/3.
#include <uaccel/pointwise.h>

namespace myops::softplus {
inline namespace CPU_CAPABILITY {
namespace math = uaccel::math;  // the functions for scalars and vectors alike

// e = exp(-|z|) and 1 / beta give softplus(z / beta); float needs the series to s^14, double to s^34.
template <typename T, typename V>
C10_HOST_DEVICE V softplus_of(V z, V e, T inverse_beta) {
  const V s = e / (V(T(2)) + e), s2 = s * s;
  constexpr int kTerms = sizeof(T) == 4 ? 7 : 17;
  V series(T(1) / T(2 * kTerms + 1));
  for (int k = kTerms - 1; k >= 0; --k) {
    series = math::fma(series, s2, V(T(1) / T(2 * k + 1)));
  }
  const V positive = math::select(math::less(z, V(T(0))), V(T(0)), z);
  return (positive + V(T(2)) * s * series) * V(inverse_beta);
}

template <typename T>
struct Forward : uaccel::pointwise::Formula<Forward<T>> {
  T beta, threshold;
  template <typename V>
  C10_HOST_DEVICE V apply(V x) const {
    const V z = x * V(beta);
    return math::select(
        math::less(V(threshold), z), x, softplus_of<T>(z, math::exp_nonpositive(math::neg_abs(z)), T(1) / beta));
  }
};

// d/dx = sigmoid(beta x), and 1 where beta x > threshold.
template <typename T>
struct Backward : uaccel::pointwise::Formula<Backward<T>> {
  T beta, threshold;
  template <typename V>
  C10_HOST_DEVICE V apply(V g, V x) const {
    const V z = x * V(beta), e = math::exp_nonpositive(math::neg_abs(z)), r = math::reciprocal(V(T(1)) + e);
    const V sigmoid = math::select(math::less(z, V(T(0))), e * r, r);
    return g * math::select(math::less(V(threshold), z), V(T(1)), sigmoid);
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
