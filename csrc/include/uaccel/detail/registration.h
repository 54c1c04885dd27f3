#pragma once
// What the registration units of a library of pointwise ops share (csrc/pointwise/library*.cpp/.cu,
// compiled once per library by cmake/TorchUaccelPointwise.cmake): the list of its ops, and what the
// build checks of each op's header before anything is made of it. A check that fails stops the op there
// with one message saying what is missing (the library unit reports; the kernel units skip the op).
#include <uaccel/detail/pointwise_op.h>

namespace uaccel::pointwise {

// The Op types of a library's ops (the generated op list's library::Ops).
template <typename... Op>
struct OpList {};

// fn.template operator()<Op>() for each op of the list.
template <typename... Op, typename Fn>
void for_each_op(OpList<Op...>, const Fn& fn) {
  (fn.template operator()<Op>(), ...);
}

// The library's CPU loops as compiled (library_cpu_isa.cpp): the pool their parallel_for runs on
// (cpu::kParallelBackend), and, for tests, out[i] = the number of torch's thread that wrote element i
// of n, by the loop the kernels run.
inline cpu::CpuDispatch<const char* (*)()> parallel_backend_dispatch;
inline cpu::CpuDispatch<void (*)(float* out, int64_t n)> thread_ids_dispatch;

namespace registration {

// A `run` that takes any functor: what an op's forward and backward are called with to check them.
struct AnyRun {
  template <typename Functor>
  void operator()(const Functor&) const {}
};

// A `run` that reports a functor that does not fit its schema (instantiated once per op, in float).
template <size_t inputs, size_t outputs, bool backward>
struct FunctorCheck {
  template <typename Functor>
  void operator()(const Functor&) const {
    constexpr bool fits = kFunctorFits<Functor, float, inputs, outputs>;
    static_assert(
        fits || backward,
        "uaccel: the forward's functor must take one value per Tensor of kSchemas.forward, in order, and "
        "return one value: apply(V a, V b) for f(Tensor a, Tensor b)");
    static_assert(
        fits || !backward,
        "uaccel: the backward's functor must take grad_output and one value per input, and return the "
        "gradient (one input) or Outputs<V, inputs>, one per input: Outputs<V, 2> apply(V g, V a, V b) for "
        "f(Tensor a, Tensor b)");
  }
};

template <typename Op, typename P = Params<Op>, typename B = BackwardParams<Op>>
struct Formulas;
template <typename Op, typename... P, typename... B>
struct Formulas<Op, std::tuple<P...>, std::tuple<B...>> {
  static constexpr bool forward = requires { Op::template forward<float>(AnyRun{}, std::declval<Arg<P>>()...); };
  static constexpr bool backward = requires { Op::template backward<float>(AnyRun{}, std::declval<Arg<B>>()...); };
  static constexpr bool wrt_saved = []<size_t... I>(std::index_sequence<I...>) {
    return requires {
      Op::backward_wrt_saved(
          std::declval<TensorRef<I>>()..., std::declval<TensorRef<I>>()..., std::declval<Arg<B>>()...);
    };
  }(std::make_index_sequence<kInputs<Op>>{});
};

// Whether the header of Op describes an op the framework can make (with `report`, each failed check is
// a compile error with its message).
template <typename Op, bool report>
consteval bool check_op() {
  constexpr bool described = requires {
    { Op::kName } -> std::convertible_to<const char*>;
    Op::kSchemas.forward;
    Op::kSchemas.backward;
  };
  static_assert(
      !report || described,
      "uaccel: a pointwise op's header must define struct Op with kName and kSchemas (uaccel/pointwise.h)");
  if constexpr (!described) {
    return false;
  } else {
    namespace text = schema_text;
    constexpr size_t n = kInputs<Op>;
    constexpr auto forward = std::string_view(Op::kSchemas.forward);
    constexpr auto backward = std::string_view(Op::kSchemas.backward);
    constexpr bool names = text::names_op(forward, Op::kName, "") && text::names_op(backward, Op::kName, "_backward");
    static_assert(
        !report || names, "uaccel: kSchemas.forward must name the op (kName) and kSchemas.backward kName_backward");
    constexpr bool inputs = n >= 1 && n <= 3 && text::returns_tensors(forward, 1);
    static_assert(
        !report || inputs,
        "uaccel: kSchemas.forward must start with 1 to 3 plain Tensor arguments and return one Tensor");
    constexpr bool params = text::parameters_are<Params<Op>>(forward, n);
    static_assert(
        !report || params,
        "uaccel: Op::Params must list the forward's parameters after its tensors, in order, as C++ types: Scalar "
        "at::Scalar, float double, int int64_t, bool bool, str std::string_view, T? std::optional<T's>");
    constexpr bool gradients = text::leading_tensors(backward) == n + 1 && text::returns_tensors(backward, n);
    static_assert(
        !report || gradients,
        "uaccel: kSchemas.backward must take grad_output and one saved tensor per input, and return one gradient "
        "per input: (Tensor grad_output, Tensor a, Tensor b) -> (Tensor, Tensor)");
    constexpr bool backward_params = text::parameters_are<BackwardParams<Op>>(backward, n + 1);
    static_assert(
        !report || backward_params,
        "uaccel: Op::BackwardParams (default: Params) must list the backward's parameters after its tensors, in order");
    constexpr bool inplace = [] {
      if constexpr (kHasInplace<Op>) {
        constexpr auto schema = std::string_view(Op::kSchemas.inplace);
        return text::names_op(schema, Op::kName, "_") && n == 1 &&
            text::argument(schema, 0).starts_with("Tensor(a!)") && text::returns(schema) == "()" &&
            text::parameters_are<Params<Op>>(schema, 1);
      }
      return true;
    }();
    static_assert(
        !report || inplace,
        "uaccel: kSchemas.inplace (one-input ops only) must be kName_(Tensor(a!) self, <the forward's parameters>) "
        "-> ()");
    if constexpr (!(names && inputs && params && gradients && backward_params && inplace)) {
      return false;
    } else {
      using F = Formulas<Op>;
      static_assert(
          !report || F::forward,
          "uaccel: Op needs `template <typename T, typename Run> static void forward(const Run& run, <Params>...)`, "
          "calling run(functor) with the forward's functor");
      static_assert(
          !report || F::backward,
          "uaccel: Op needs `template <typename T, typename Run> static void backward(const Run& run, "
          "<BackwardParams>...)`, calling run(functor) with the functor of the gradients");
      static_assert(
          !report || F::wrt_saved,
          "uaccel: Op needs `static backward_wrt_saved(h..., saved..., <BackwardParams>...)`, the backward's own "
          "derivative (second order): a Tensor for one input, std::array<at::Tensor, N> for N");
      if constexpr (report && F::forward && F::backward) {  // the functors, by instantiating forward and backward
        [[maybe_unused]] constexpr auto forward_functor = &Op::template forward<float, FunctorCheck<n, 1, false>>;
        [[maybe_unused]] constexpr auto backward_functor = &Op::template backward<float, FunctorCheck<n + 1, n, true>>;
      }
      return F::forward && F::backward && F::wrt_saved;
    }
  }
}

} // namespace registration

// Whether the op can be made: checked and reported by the library's registration unit, skipped silently
// by its kernel units (one message, not one per instruction set).
template <typename Op>
inline constexpr bool kValidOp = registration::check_op<Op, false>();

} // namespace uaccel::pointwise
