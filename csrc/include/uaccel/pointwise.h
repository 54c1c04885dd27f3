#pragma once
// The pointwise-op framework: what an op's header includes. A pointwise op is one header: its
// schemas, its math and its derivative formulas. A library of such ops (this project's, csrc/ops/, or
// another project's, built against the installed torch_uaccel: docs/custom_ops.md) is made by the
// CMake function torch_uaccel_add_pointwise_library (cmake/TorchUaccelPointwise.cmake): it defines the
// schemas under the library's namespace (torch.ops.<namespace>, tagged pointwise, checked at compile
// time against the op's C++ description: uaccel/detail/registration.h's check_op) and makes every op's
// CPU kernels (once per instruction set), its CPU and CUDA implementations and its autograd
// (uaccel/detail/autograd.h: reverse mode to any order, forward mode, in place, compiled autograd).
// Stable within a minor version of torch_uaccel (uaccel/version.h): this header, uaccel/math/ and the
// CMake function; uaccel/detail/ is what they are made of (it includes this header, never the reverse),
// and may change in any release.
//
// The header defines, in a namespace of its own, <namespace>::<op> (this project's: uaccel::ops::<op>),
// a struct Op:
//   static constexpr const char* kName = "<op>";
//   static constexpr pointwise::Schemas kSchemas{
//       .forward = "<op>(Tensor a, ..., <parameters>) -> Tensor",           1 to 3 tensors, then parameters
//       .inplace = "<op>_(Tensor(a!) self, <parameters>) -> ()",            optional; one-tensor ops only
//       .backward = "<op>_backward(Tensor grad_output, Tensor a, ..., <backward parameters>) -> Tensor"};
//           returning one gradient per input ("-> (Tensor, Tensor)" for two), computed in one pass
//   using Params = std::tuple<...>;          the forward's parameters, as the schema types them:
//       Scalar at::Scalar, float double, int int64_t, bool bool, str std::string_view, T? std::optional
//   template <typename T, typename Run> static void forward(const Run& run, <parameters>...);
//   template <typename T, typename Run> static void backward(const Run& run, <backward parameters>...);
//       each calls run(functor) with its functor in the math type T (float for half types); an op
//       without parameters inherits both from pointwise::Functors<Forward, Backward>
//   static backward_wrt_saved(h..., saved..., <backward parameters>...);
//       the second derivative: for each input j, the sum over inputs i of h_i * d2f / (dx_i dx_j), in
//       differentiable tensor ops (a Tensor for one input, std::array<at::Tensor, N> for N; computed in
//       float for half types). Its parameters go only to the library's ops (as elu.h does), never to an ATen
//       op's Scalar argument: there a symbolic one would become a graph constant under torch.compile
// and where it needs them:
//   Params (default: none); BackwardParams (default: Params) and
//       static BackwardParams backward_params(bool from_result, <parameters>...);  (when they differ)
//   static constexpr std::array<pointwise::Choice, K> kChoices;  each str parameter's accepted values
//   static bool saves_result(<parameters>...);  one-input ops: the output determines the gradient, so
//       the backward reads it instead of the input (default: never)
//   static void check_forward(const char* op, <parameters>...);  the forward's (and in place's) own
//       checks of its parameters, before any kernel runs
//   static void check_backward(const char* op, <backward parameters>...);  the backward's own checks
//   static constexpr std::array<std::pair<const char*, const char*>, K> kMessages;  its checks' message
//       templates ({field}s filled by checks::format), which the fakes read as "message.<op>.<key>"
//   static void check_inplace_autograd(<parameters>...);  refuses in-place autograd (otherwise, in place
//       with a gradient that needs the input saves a copy of the input first, as ATen's ops do)
// and a functor, where it helps the CPU loops: `template <typename Loop> void specialize(const Loop& loop)
//   const`, which calls loop(f) with a copy f of itself for the case at hand (a type whose run-time
//   parameters are compile-time constants: elu.h's unit scales), so the loops test nothing per element.
//
// The forward's inputs broadcast and promote to a common floating dtype as TensorIterator does; the
// backward returns each gradient in its input's shape and dtype. A one-input op's backward takes
// grad_output and saved of one shape and dtype.
//
// A functor has `C10_HOST_DEVICE R operator()(T...) const` (CUDA and the CPU's strided loops) and,
// under `#ifdef CPU_CAPABILITY`, `Vec<T> vec(Vec<T>...) const` (the CPU's vector loops); R is T, or
// Outputs<T, N> for a backward of N inputs. Functors live in `inline namespace CPU_CAPABILITY`, as
// ATen's kernels do, so the per-ISA copies stay apart. pointwise::Formula (below) makes both from one
// template; a Formula whose input enters only through a few functions of it declares them, and a
// 16-bit input's are then looked up rather than computed.
//
// The math vocabulary, for a scalar V (float, double) and a vector V (at::vec::Vectorized) alike, so
// that a Formula is written once; call it qualified (uaccel::math::exp(x); scalar forms in
// uaccel/math/scalar_math.h, vector forms in uaccel/math/vec_math.h). Float accuracy (tests/cpp/math
// checks it): vectors on AVX2 and AVX-512 use Sleef's functions (1 ulp; erfc 1.5); scalars and the
// DEFAULT instruction set the C library's on the CPU, CUDA's on the GPU (at most 2 ulp); erfc is
// computed in double and rounded once.
//   exp, expm1, log1p, tanh, erf, erfc, sigmoid        sigmoid from e^-|x|, within 2.5 ulp
//   abs, min, max, clamp                               min and max give NaN where either is; clamp keeps NaN
//   fma(a, b, c), fms(a, b, c)                         a b + c, a b - c, rounded once on every path
//   rounded_as<T>(x)                                   the value x holds once stored as T (a 16-bit type)
//   reciprocal(x)                                      within an ulp; no division in float vectors (AVX2, AVX-512)
//   less(a, b), less_equal(a, b), equal(a, b),         a bool for scalars, a lane mask for vectors;
//   select(mask, t, f), any(mask)                      any: whether it holds in some lane
//   no_sign_bit(x)                                     no lane negative (or -0, or a signed NaN)
//   neg_abs(x), exp_nonpositive(x)                     -|x|; e^x for x <= 0, the vector form's steps
//   scaled_exp_nonpositive(x, s), ..._expm1_...(x, s)  s e^x, s (e^x - 1) for x <= 0, s inside the last step
#include <ATen/Functions.h>
#include <ATen/TensorOperators.h>
#include <ATen/core/Tensor.h>
#include <c10/macros/Macros.h>

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>
#include <tuple>
#include <utility>

#include <uaccel/math/scalar_math.h>
#include <uaccel/version.h>

#ifdef CPU_CAPABILITY
#include <uaccel/math/vec_math.h>

namespace uaccel::ops {
template <typename T>
using Vec = at::vec::Vectorized<T>;
} // namespace uaccel::ops
#endif

namespace uaccel {

// What a functor returns when it computes several results per element (a backward's gradients, one
// per input): the loops store v[k] to output k. Plain data, so CUDA's functors return it too.
template <typename T, size_t N>
struct Outputs {
  T v[N];
};

} // namespace uaccel

namespace uaccel::pointwise {

// An op's schemas: the op, in place (nullptr: none), and its backward.
struct Schemas {
  const char* forward;
  const char* inplace = nullptr;
  const char* backward;
};

// A str parameter's accepted values, space-separated: {"approximate", "none tanh"}.
struct Choice {
  const char* parameter;
  const char* values;
};

// A functor whose math is one formula for scalars and vectors: `Math::apply(V...)`, a template on V
// (uaccel::math's functions take both), serves as operator() and as vec().
//
// Or a formula whose input `kTabulatedInput` enters only through a few functions of it, `tabulated(x)`
// (an Outputs<V, K>), that `combine` joins with the other inputs (that input's place takes the Outputs):
// apply is then combine(..., tabulated(x), ...). Where that input is a 16-bit type, the CPU loops look
// its functions up in a table of all 65536 bit patterns that the float kernel computed once, the same
// bits (uaccel/detail/cpu_loops.h). Its functions must depend on the formula's type alone.
template <typename Math>
struct Formula {
  template <typename... V>
    requires requires { Math::kTabulatedInput; }
  C10_HOST_DEVICE auto apply(V... x) const {
    return combine_tabulated(std::index_sequence_for<V...>{}, x...);
  }

 private:
  template <size_t... I, typename V, typename... Rest>
  C10_HOST_DEVICE auto combine_tabulated(std::index_sequence<I...>, V first, Rest... rest) const {
    const Math& math = static_cast<const Math&>(*this);
    const V inputs[] = {first, rest...};
    const auto functions = math.tabulated(inputs[Math::kTabulatedInput]);
    return math.combine(in_place_of<I == Math::kTabulatedInput>(functions, inputs[I])...);
  }
  template <bool kTabulated, typename F, typename V>
  C10_HOST_DEVICE static auto in_place_of(const F& functions, V input) {
    if constexpr (kTabulated) {
      return functions;
    } else {
      return input;
    }
  }

 public:
  template <typename... V>
    requires requires(const Math& math, V... x) { math.apply(x...); }
  C10_HOST_DEVICE auto operator()(V... x) const {
    return static_cast<const Math&>(*this).apply(x...);
  }
#ifdef CPU_CAPABILITY
  template <typename... V>
    requires requires(const Math& math, V... x) { math.apply(x...); }
  auto vec(V... x) const {
    return static_cast<const Math&>(*this).apply(x...);
  }
#endif
};

// A one-input Formula whose function a 16-bit input looks up rather than computes: `apply(V x)` alone,
// tabulated whole (struct Forward : TabulatedFormula<Forward<T>> { apply(V x) }).
template <typename Math>
struct TabulatedFormula : Formula<Math> {
  static constexpr size_t kTabulatedInput = 0;
  template <typename V>
  C10_HOST_DEVICE Outputs<V, 1> tabulated(V x) const {
    return {{static_cast<const Math&>(*this).apply(x)}};
  }
  template <typename V>
  C10_HOST_DEVICE V combine(Outputs<V, 1> function) const {
    return function.v[0];
  }
};

// The forward and backward of an op without parameters, each running its functor:
// struct Op : pointwise::Functors<Forward, Backward> { kName, kSchemas, backward_wrt_saved }.
template <template <typename> typename Forward, template <typename> typename Backward>
struct Functors {
  template <typename T, typename Run>
  static void forward(const Run& run) {
    run(Forward<T>{});
  }
  template <typename T, typename Run>
  static void backward(const Run& run) {
    run(Backward<T>{});
  }
};

} // namespace uaccel::pointwise
