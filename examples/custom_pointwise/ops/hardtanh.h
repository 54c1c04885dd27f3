#pragma once
// hardtanh(x) = clamp(x, min_val, max_val): F.hardtanh, as torch.ops.myops.hardtanh (and hardtanh_, in
// place) on torch_uaccel's pointwise framework. Two parameters, checked before any kernel runs.
#include <uaccel/pointwise.h>

namespace myops::hardtanh {
inline namespace CPU_CAPABILITY {
namespace math = uaccel::math;  // the functions for scalars and vectors alike

template <typename T>
struct Forward : uaccel::pointwise::Formula<Forward<T>> {
  T min_val, max_val;
  template <typename V>
  C10_HOST_DEVICE V apply(V x) const {
    return math::clamp(x, V(min_val), V(max_val));  // NaN stays NaN
  }
};

// The gradient passes where min_val < x < max_val, and where x is NaN (as ATen's hardtanh_backward).
template <typename T>
struct Backward : uaccel::pointwise::Formula<Backward<T>> {
  T min_val, max_val;
  template <typename V>
  C10_HOST_DEVICE V apply(V g, V x) const {
    const V zero(T(0));
    const V inside = math::select(math::less(V(min_val), x), math::select(math::less(x, V(max_val)), g, zero), zero);
    return math::select(math::equal(x, x), inside, g);
  }
};

} // namespace CPU_CAPABILITY

struct Op {
  static constexpr const char* kName = "hardtanh";
  static constexpr uaccel::pointwise::Schemas kSchemas{
      .forward = "hardtanh(Tensor self, Scalar min_val=-1, Scalar max_val=1) -> Tensor",
      .inplace = "hardtanh_(Tensor(a!) self, Scalar min_val=-1, Scalar max_val=1) -> ()",
      .backward = "hardtanh_backward(Tensor grad_output, Tensor self, Scalar min_val, Scalar max_val) -> Tensor",
  };
  using Params = std::tuple<at::Scalar, at::Scalar>;

  static void check_forward(const char* op, const at::Scalar& min_val, const at::Scalar& max_val) {
    TORCH_CHECK(
        min_val.to<double>() <= max_val.to<double>(), op, ": expected min_val <= max_val, but got min_val=", min_val,
        " and max_val=", max_val);
  }
  template <typename T, typename Run>
  static void forward(const Run& run, const at::Scalar& min_val, const at::Scalar& max_val) {
    run(Forward<T>{{}, min_val.to<T>(), max_val.to<T>()});
  }
  template <typename T, typename Run>
  static void backward(const Run& run, const at::Scalar& min_val, const at::Scalar& max_val) {
    run(Backward<T>{{}, min_val.to<T>(), max_val.to<T>()});
  }
  // The gradient is piecewise constant in x: its derivative is 0.
  static at::Tensor backward_wrt_saved(const at::Tensor& h, const at::Tensor&, const at::Scalar&, const at::Scalar&) {
    return at::zeros_like(h);  // as ATen's hardtanh_backward's derivative
  }
};

} // namespace myops::hardtanh
