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

// A coefficient's multiplication, skipped where it is 1 (scale: ELU, CELU; input_scale: ELU, SELU): each is a
// step on the FMA pipes. kUnitScales: ELU's own case, scale = input_scale = 1, known at compile time.
template <bool kUnitScales, typename T, typename V>
C10_HOST_DEVICE V times(V x, T coefficient) {
  return kUnitScales || coefficient == T(1) ? x : x * V(coefficient);
}

// A Formula holding the coefficients. On the CPU its `specialize` hook (uaccel/pointwise.h) hands the loops
// the copy for ELU's own coefficients when they are the call's, so the loops hold no test of them (GCC
// unswitches the one-vector float32 loop by itself, but not the half types' two-vector loop). CUDA runs
// the general copy: its tests are uniform branches.
template <template <typename, bool> typename Functor, typename T, bool kUnitScales>
struct WithCoefficients : pointwise::Formula<Functor<T, kUnitScales>> {
  Coefficients<T> c;
#ifdef CPU_CAPABILITY
  template <typename Loop>
    requires(!kUnitScales)
  void specialize(const Loop& loop) const {
    if (c.poscoef == T(1) && c.negiptcoef == T(1)) {
      loop(Functor<T, true>{{{}, c}});
    } else {
      loop(static_cast<const Functor<T, false>&>(*this));
    }
  }
#endif
};

// expm1, not exp(x) - 1: the latter loses every significant digit for |x| near 0. A vector with no lane
// on the negative side (most of a typical activation tensor's) skips the exponential.
template <typename T, bool kUnitScales = false>
struct Forward : WithCoefficients<Forward, T, kUnitScales> {
  using WithCoefficients<Forward, T, kUnitScales>::c;
  template <typename V>
  C10_HOST_DEVICE V apply(V x) const {
    const V positive = times<kUnitScales>(x, c.poscoef);
    if (C10_UNLIKELY(math::no_sign_bit(x))) {  // unsigned NaN too: NaN either way
      return positive;
    }
    const V scaled = times<kUnitScales>(x, c.negiptcoef);
    // A negative input_scale makes the exponent positive: then expm1 itself, for every x.
    const V negative = kUnitScales || c.negiptcoef >= T(0) ? math::scaled_expm1_nonpositive(scaled, V(c.negcoef))
                                                           : V(c.negcoef) * math::expm1(scaled);
    return math::select(math::less(x, V(T(0))), negative, positive);
  }
};

// saved = x:  dx = g * scale where x > 0, else g * input_scale * alpha * scale * exp(input_scale * x).
template <typename T, bool kUnitScales = false>
struct BackwardFromInput : WithCoefficients<BackwardFromInput, T, kUnitScales> {
  using WithCoefficients<BackwardFromInput, T, kUnitScales>::c;
  template <typename V>
  C10_HOST_DEVICE V apply(V g, V x) const {
    const auto negative = math::less_equal(x, V(T(0)));  // NaN takes the positive side, as in ATen
    const V positive_side = times<kUnitScales>(g, c.poscoef);
    if (C10_UNLIKELY(!math::any(negative))) {
      return positive_side;
    }
    const V scaled = times<kUnitScales>(x, c.negiptcoef);
    const V factor = g * V(c.negiptcoef * c.negcoef);
    const V negative_side =
        kUnitScales || c.negiptcoef >= T(0) ? math::scaled_exp_nonpositive(scaled, factor) : factor * math::exp(scaled);
    return math::select(negative, negative_side, positive_side);
  }
};

// saved = y (alpha >= 0): alpha * scale * exp(input_scale * x) == y + alpha * scale on the negative
// side, so no exp is needed.
template <typename T>
struct BackwardFromResult : pointwise::Formula<BackwardFromResult<T>> {
  Coefficients<T> c;
  template <typename V>
  C10_HOST_DEVICE V apply(V g, V y) const {
    return math::select(math::less_equal(y, V(T(0))), g * V(c.negiptcoef) * (y + V(c.negcoef)), g * V(c.poscoef));
  }
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
    run(Forward<T>{{{}, coefficients<T>(alpha, scale, input_scale)}});
  }
  template <typename T, typename Run>
  static void backward(
      const Run& run, const at::Scalar& alpha, bool is_result, const at::Scalar& scale, const at::Scalar& input_scale) {
    const auto c = coefficients<T>(alpha, scale, input_scale);
    if (is_result) {
      run(BackwardFromResult<T>{{}, c});
    } else {
      run(BackwardFromInput<T>{{{}, c}});
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
