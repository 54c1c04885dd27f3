#pragma once
// The ELU family on the pointwise framework (uaccel/pointwise.h), with ATen's
// parametrisation, so ELU, SELU and CELU are one op:
//   y = x > 0 ? scale * x : alpha * scale * expm1(input_scale * x)
// ELU = (alpha, 1, 1), SELU = (1.6732632423543772, 1.0507009873554805, 1), CELU = (alpha, 1, 1/alpha).
//
// Branch conditions follow ATen's results: the forward passes zeros of either sign through as
// scale * x (so elu(0, alpha=inf) is 0, not inf * 0 = NaN) and NaN stays NaN; the backward treats
// NaN `saved` as positive and passes the grad through.
#include <ATen/core/Formatting.h>  // prints the Scalar in the alpha checks

#include <uaccel/detail/checks.h>
#include <uaccel/pointwise.h>

namespace uaccel::ops::elu {
inline namespace CPU_CAPABILITY {

// The three coefficients in the math type, named as ATen names them.
template <typename T>
struct Coefficients {
  T negcoef;     // alpha * scale
  T poscoef;     // scale
  T negiptcoef;  // input_scale
};

// Converting a Scalar that does not fit T (alpha=1e308 for a float tensor) raises, as ATen does.
template <typename T>
Coefficients<T> coefficients(const at::Scalar& alpha, const at::Scalar& scale, const at::Scalar& input_scale) {
  return {alpha.to<T>() * scale.to<T>(), scale.to<T>(), input_scale.to<T>()};
}

#ifdef CPU_CAPABILITY
// ELU's own coefficients (scale = input_scale = 1) as a compile-time case of a functor: its `specialize`
// hands the CPU loops (cpu::detail::specialized) the copy for the case at hand, so the loops hold no test
// of the coefficients (GCC unswitches the one-vector float32 loop by itself, but not the half types'
// two-vector loop). CUDA runs the general copy: its tests are uniform branches.
template <template <typename, bool> typename Functor, typename T, typename Loop>
void specialize_unit_scales(const Functor<T, false>& op, const Loop& loop) {
  if (op.c.poscoef == T(1) && op.c.negiptcoef == T(1)) {
    loop(Functor<T, true>{op.c});
  } else {
    loop(op);
  }
}
#endif

// expm1, not exp(x) - 1: the latter loses every significant digit for |x| near 0. The vector form
// skips the exponential when no lane is on the negative side, which is most vectors of a typical
// activation tensor.
template <typename T, bool kUnitScales = false>
struct Forward {
  Coefficients<T> c;
  C10_HOST_DEVICE T operator()(T x) const {
    return x < T(0) ? c.negcoef * math::expm1(x * c.negiptcoef) : x * c.poscoef;
  }
#ifdef CPU_CAPABILITY
  Vec<T> vec(Vec<T> x) const {
    // Multiplies by 1 skipped (scale: ELU, CELU; input_scale: ELU, SELU): each is a step on the FMA pipes.
    const auto positive = kUnitScales || c.poscoef == T(1) ? x : x * Vec<T>(c.poscoef);
    if (C10_UNLIKELY(cpu::no_sign_bit(x))) {  // unsigned NaN lanes too: NaN either way
      return positive;
    }
    const auto nonnegative = x >= Vec<T>(T(0));  // NaN lanes take the negative side: NaN
    const auto scaled = kUnitScales || c.negiptcoef == T(1) ? x : x * Vec<T>(c.negiptcoef);
    // A negative input_scale makes the exponent positive: then Sleef's expm1, for every x.
    const Vec<T> negcoef(c.negcoef);
    const auto negative =
        kUnitScales || c.negiptcoef >= T(0) ? cpu::scaled_expm1_nonpositive(scaled, negcoef) : negcoef * scaled.expm1();
    return Vec<T>::blendv(negative, positive, nonnegative);
  }
  template <typename Loop>
    requires(!kUnitScales)
  void specialize(const Loop& loop) const {
    specialize_unit_scales<Forward>(*this, loop);
  }
#endif
};

// saved = x:  dx = g * scale where x > 0, else g * input_scale * alpha * scale * exp(input_scale * x).
template <typename T, bool kUnitScales = false>
struct BackwardFromInput {
  Coefficients<T> c;
  C10_HOST_DEVICE T operator()(T g, T x) const {
    return x <= T(0) ? g * c.negiptcoef * c.negcoef * math::exp(x * c.negiptcoef) : g * c.poscoef;
  }
#ifdef CPU_CAPABILITY
  Vec<T> vec(Vec<T> g, Vec<T> x) const {
    const auto negative = x <= Vec<T>(T(0));
    const auto positive_side = kUnitScales || c.poscoef == T(1) ? g : g * Vec<T>(c.poscoef);  // as in Forward
    if (C10_UNLIKELY(negative.zero_mask() == (1 << Vec<T>::size()) - 1)) {
      return positive_side;
    }
    const auto scaled = kUnitScales || c.negiptcoef == T(1) ? x : x * Vec<T>(c.negiptcoef);
    const auto factor = g * Vec<T>(c.negiptcoef * c.negcoef);
    const auto negative_side =
        kUnitScales || c.negiptcoef >= T(0) ? cpu::scaled_exp_nonpositive(scaled, factor) : factor * scaled.exp();
    return Vec<T>::blendv(positive_side, negative_side, negative);
  }
  template <typename Loop>
    requires(!kUnitScales)
  void specialize(const Loop& loop) const {
    specialize_unit_scales<BackwardFromInput>(*this, loop);
  }
#endif
};

// saved = y (alpha >= 0): alpha * scale * exp(input_scale * x) == y + alpha * scale on the negative
// side, so no exp is needed.
template <typename T>
struct BackwardFromResult {
  Coefficients<T> c;
  C10_HOST_DEVICE T operator()(T g, T y) const {
    return y <= T(0) ? g * c.negiptcoef * (y + c.negcoef) : g * c.poscoef;
  }
#ifdef CPU_CAPABILITY
  Vec<T> vec(Vec<T> g, Vec<T> y) const {
    const auto negative_side = g * Vec<T>(c.negiptcoef) * (y + Vec<T>(c.negcoef));
    return Vec<T>::blendv(g * Vec<T>(c.poscoef), negative_side, y <= Vec<T>(T(0)));
  }
#endif
};

} // namespace CPU_CAPABILITY

struct Op {
  static constexpr const char* kName = "elu";
  // ATen's parameters: ELU is (alpha, 1, 1); SELU and CELU set scale and input_scale. Scalar, as ATen
  // types them. alpha's default is ATen's, 1: the Python faces read it from the schema, and the C++
  // API's kEluDefaultAlpha is checked against it (tests/cpp). In place returns nothing, so that
  // torch.compile functionalizes it on every supported torch (the wrappers return `self`).
  static constexpr pointwise::Schemas kSchemas{
      .forward = "elu(Tensor self, Scalar alpha=1, Scalar scale=1, Scalar input_scale=1) -> Tensor",
      .inplace = "elu_(Tensor(a!) self, Scalar alpha=1, Scalar scale=1, Scalar input_scale=1) -> ()",
      .backward =
          "elu_backward(Tensor grad_output, Tensor saved, Scalar alpha, bool is_result, Scalar scale=1, "
          "Scalar input_scale=1) -> Tensor",
  };
  using Params = std::tuple<at::Scalar, at::Scalar, at::Scalar>;  // alpha, scale, input_scale
  using BackwardParams = std::tuple<at::Scalar, bool, at::Scalar, at::Scalar>;  // alpha, is_result, ...

  template <typename T, typename Run>
  static void forward(const Run& run, const at::Scalar& alpha, const at::Scalar& scale, const at::Scalar& input_scale) {
    run(Forward<T>{coefficients<T>(alpha, scale, input_scale)});
  }
  template <typename T, typename Run>
  static void backward(
      const Run& run, const at::Scalar& alpha, bool is_result, const at::Scalar& scale, const at::Scalar& input_scale) {
    const auto c = coefficients<T>(alpha, scale, input_scale);
    if (is_result) {
      run(BackwardFromResult<T>{c});
    } else {
      run(BackwardFromInput<T>{c});
    }
  }

  // The output determines the gradient (so the backward saves y, needs no exp, and the input can be
  // freed) when y <= 0 exactly where x <= 0 and y + alpha * scale is recoverable: alpha >= 0,
  // scale > 0, input_scale >= 0. True for ELU with alpha >= 0, SELU, and CELU.
  static bool saves_result(const at::Scalar& alpha, const at::Scalar& scale, const at::Scalar& input_scale) {
    return alpha.to<double>() >= 0 && scale.to<double>() > 0 && input_scale.to<double>() >= 0;
  }
  static BackwardParams backward_params(
      bool from_result, const at::Scalar& alpha, const at::Scalar& scale, const at::Scalar& input_scale) {
    return {alpha, from_result, scale, input_scale};
  }

  // Message templates the fake kernels format too (torch_uaccel/_elu.py), written once here.
  static constexpr std::array<std::pair<const char*, const char*>, 1> kMessages{{
      {"is_result",
       "{op}: is_result=True (saved is the forward output) needs alpha >= 0, because the output does not "
       "determine the input when alpha < 0; got alpha={alpha}"},
  }};
  static void check_backward(
      const char* op, const at::Scalar& alpha, bool is_result, const at::Scalar&, const at::Scalar&) {
    TORCH_CHECK(
        !is_result || alpha.to<double>() >= 0,
        checks::format(kMessages[0].second, {{"op", op}, {"alpha", c10::str(alpha)}}));
  }
  // As ATen's elu_, which refuses it too.
  static void check_inplace_autograd(const at::Scalar& alpha, const at::Scalar& scale, const at::Scalar& input_scale) {
    TORCH_CHECK(
        saves_result(alpha, scale, input_scale),
        "uaccel.elu_: in place with autograd the gradient comes from the output, which needs alpha >= 0, scale > 0 "
        "and input_scale >= 0; got alpha=",
        alpha, ", scale=", scale, ", input_scale=", input_scale, ". Use the out-of-place elu instead");
  }

  // From the input x: on the negative side the derivative is g * input_scale^2 * alpha * scale *
  // exp(input_scale * x) = input_scale * elu_backward(g, x), which is elu_backward with scale * input_scale;
  // from the output y: g * input_scale, which is elu_backward from the input at x = 0 with unit alpha and
  // scale. The positive side is g * scale, a constant: zero derivative. At saved == 0 exactly, the
  // positive side, as ATen's elu_double_backward takes it (so hessian(elu)(0) is 0, as with F.elu).
  // The scalars reach only uaccel ops, never an ATen op's Scalar argument: under torch.compile a
  // symbolic one then stays a graph input (torch_uaccel/_dynamic_scalars.py), never a constant.
  static at::Tensor backward_wrt_saved(
      const at::Tensor& h,
      const at::Tensor& saved,
      const at::Scalar& alpha,
      bool is_result,
      const at::Scalar& scale,
      const at::Scalar& input_scale) {
    const auto& elu_backward = pointwise::Schema<Op>::backward();
    const auto negative_side = is_result
        ? elu_backward.call(h, at::zeros_like(saved), 1, false, 1, input_scale)
        : elu_backward.call(h, saved, alpha, false, product(scale, input_scale), input_scale);
    return at::where(saved < 0, negative_side, at::zeros_like(negative_side));
  }

 private:
  static at::Scalar product(const at::Scalar& a, const at::Scalar& b) {
    if (a.isSymbolic() || b.isSymbolic()) {
      return a.toSymFloat() * b.toSymFloat();
    }
    return a.toDouble() * b.toDouble();
  }
};

} // namespace uaccel::ops::elu
