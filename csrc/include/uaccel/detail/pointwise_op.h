#pragma once
// What the framework makes of an op's header (uaccel/pointwise.h): its traits (parameters, inputs,
// names, schemas as typed dispatcher handles), its kernels over every dtype and its implementations on
// a device. Included by the registration units (csrc/pointwise/), never by an op's header.
#include <ATen/ATen.h>
#include <ATen/Dispatch.h>
#include <ATen/OpMathType.h>
#include <ATen/TensorIterator.h>
#include <torch/library.h>

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <uaccel/dispatch.h>
#include <uaccel/export.h>
#include <uaccel/pointwise.h>

#include <uaccel/detail/checks.h>
#include <uaccel/detail/cpu_dispatch.h>
#include <uaccel/detail/elementwise.h>
#include <uaccel/detail/outputs.h>
#include <uaccel/detail/schema_text.h>

namespace uaccel::pointwise {

template <typename Op>
struct ParamsOf {
  using type = std::tuple<>;
};
template <typename Op>
  requires requires { typename Op::Params; }
struct ParamsOf<Op> {
  using type = typename Op::Params;
};
template <typename Op>
using Params = typename ParamsOf<Op>::type;

template <typename Op>
struct BackwardParamsOf {
  using type = Params<Op>;
};
template <typename Op>
  requires requires { typename Op::BackwardParams; }
struct BackwardParamsOf<Op> {
  using type = typename Op::BackwardParams;
};
template <typename Op>
using BackwardParams = typename BackwardParamsOf<Op>::type;

// The op's input tensors: those that lead its forward schema.
template <typename Op>
inline constexpr size_t kInputs = schema_text::leading_tensors(Op::kSchemas.forward);
template <typename Op>
inline constexpr bool kHasInplace = Op::kSchemas.inplace != nullptr;

// A parameter as kernels and the dispatcher's typed signatures take it (by value where the codegen does).
template <typename A>
inline constexpr bool kByValue = std::is_arithmetic_v<A> || std::is_same_v<A, std::string_view>;
template <typename A>
inline constexpr bool kByValue<std::optional<A>> = std::is_arithmetic_v<A>;
template <typename A>
using Arg = std::conditional_t<kByValue<A>, A, const A&>;
// A parameter as an autograd node keeps it: a str outlives the call.
template <typename A>
using Stored = std::conditional_t<std::is_same_v<A, std::string_view>, std::string, A>;
template <typename Tuple>
struct StoredTuple;
template <typename... A>
struct StoredTuple<std::tuple<A...>> {
  using type = std::tuple<Stored<A>...>;
};

// A tensor argument, one per index of a pack (a trait: nvcc's front end drops the pack of an alias
// that ignores its parameter).
template <size_t>
struct TensorRefOf {
  using type = const at::Tensor&;
};
template <size_t I>
using TensorRef = typename TensorRefOf<I>::type;
// What an op returning n tensors returns.
template <size_t n, typename = std::make_index_sequence<n>>
struct ReturnsOf;
template <size_t n, size_t... I>
struct ReturnsOf<n, std::index_sequence<I...>> {
  using type = std::tuple<decltype((void)I, at::Tensor())...>;
};
template <>
struct ReturnsOf<1, std::index_sequence<0>> {
  using type = at::Tensor;
};
template <size_t n>
using Returns = typename ReturnsOf<n>::type;

// Scalar and float parameters as a compiled graph passes them when they are symbolic: 0-dim tensors
// (the <op>.tensor_scalars overloads; torch_uaccel/_dynamic_scalars.py says why). Others as they are.
template <typename A>
inline constexpr bool kTensorScalar = std::is_same_v<A, at::Scalar> || std::is_same_v<A, double>;
template <typename A>
using TensorScalarArg = std::conditional_t<kTensorScalar<A>, const at::Tensor&, Arg<A>>;
template <typename A>
decltype(auto) from_tensor_scalar(TensorScalarArg<A> value) {
  if constexpr (kTensorScalar<A>) {
    TORCH_CHECK(
        value.numel() == 1,
        "uaccel: a tensor_scalars overload takes each Scalar and float parameter as a 1-element tensor, "
        "but got one of shape ",
        value.sizes());
    if constexpr (std::is_same_v<A, double>) {
      return value.template item<double>();
    } else {
      return value.item();
    }
  } else {
    return value;
  }
}
template <typename... A>
inline constexpr bool kHasTensorScalar = (kTensorScalar<A> || ...);

// Defines a pointwise op's schema (tagged pointwise) and, where it returns tensors and takes Scalar or
// float parameters, its <name>.tensor_scalars overload: the same with each of those a Tensor (no defaults).
UACCEL_API void define(torch::Library& m, const char* schema);

// The op's names: its ops, the labels its messages start with, its tensor arguments' names.
struct Names {
  std::string forward, inplace, backward;  // "silu", "silu_", "silu_backward"
  std::string qualified_forward, qualified_inplace, qualified_backward;  // "uaccel::silu", ...
  std::string forward_label, inplace_label, backward_label;  // "uaccel.silu", ...
  std::string node;  // "UaccelSilu": its autograd nodes are <node>Backward, <node>BackwardBackward
  std::vector<std::string> inputs, backward_inputs;  // {"self"}, {"grad_output", "self"}
};

UACCEL_API Names make_names(const char* library, const char* op, const Schemas& schemas);

// A library of pointwise ops says it is loaded (its registration unit, while it loads), and which are:
// torch_uaccel.library sets up each one's Python side (fakes, transform rules, functions and modules).
UACCEL_API void announce_library(const char* library);
UACCEL_API std::vector<std::string> libraries();

// The namespace of the library being compiled (torch.ops.<namespace>), defined once per library by
// its registration unit (uaccel/detail/registration.h).
const char* library_namespace();

template <typename Op>
const Names& names() {
  static const Names names = make_names(library_namespace(), Op::kName, Op::kSchemas);
  return names;
}

// A str parameter's accepted values (kChoices), "" where the op lists none (check_op refuses that).
template <typename Op>
constexpr std::string_view choices(std::string_view parameter) {
  if constexpr (requires { Op::kChoices; }) {
    for (const auto& choice : Op::kChoices) {
      if (parameter == choice.parameter) {
        return choice.values;
      }
    }
  }
  return {};
}

enum class Which { forward, inplace, backward };
template <typename Op>
constexpr std::string_view schema_of(Which which) {
  return which == Which::forward ? Op::kSchemas.forward
      : which == Which::inplace  ? Op::kSchemas.inplace
                                 : Op::kSchemas.backward;
}

// Checks each str parameter of the op's `which` schema against kChoices.
template <typename Op, Which which, typename... A>
void check_choices(const char* op, const A&... values) {
  constexpr size_t tensors = schema_text::leading_tensors(schema_of<Op>(which));
  [&]<size_t... I>(std::index_sequence<I...>) {
    const auto check = [&]<size_t i>(std::integral_constant<size_t, i>, const auto& value) {
      if constexpr (std::is_same_v<std::decay_t<decltype(value)>, std::string_view>) {
        static constexpr auto name = schema_text::name_of(schema_text::argument(schema_of<Op>(which), tensors + i));
        checks::choice(op, name, choices<Op>(name), value);
      }
    };
    (check(std::integral_constant<size_t, I>{}, values), ...);
  }(std::index_sequence_for<A...>{});
}

// The op's own checks of its forward's parameters, where it has them.
template <typename Op, typename... A>
void check_forward(const char* op, const A&... params) {
  if constexpr (requires { Op::check_forward(op, params...); }) {
    Op::check_forward(op, params...);
  }
}

// R(A...) for std::tuple<A...>: a function type from one parameter pack.
template <typename R, typename Tuple>
struct FunctionOf;
template <typename R, typename... A>
struct FunctionOf<R, std::tuple<A...>> {
  using type = R(A...);
};
template <typename R, typename... Tuples>
using Function = typename FunctionOf<R, decltype(std::tuple_cat(std::declval<Tuples>()...))>::type;

// The typed dispatcher handles of the op's schemas: how autograd, and an op's own derivative formulas,
// call its ops (differentiable in their turn).
template <
    typename Op,
    typename I = std::make_index_sequence<kInputs<Op>>,
    typename P = Params<Op>,
    typename B = BackwardParams<Op>>
struct Schema;
template <typename Op, size_t... I, typename... P, typename... B>
struct Schema<Op, std::index_sequence<I...>, std::tuple<P...>, std::tuple<B...>> {
  using Forward = Function<at::Tensor, std::tuple<TensorRef<I>...>, std::tuple<Arg<P>...>>;
  using Inplace = void(const at::Tensor&, Arg<P>...);
  using Backward =
      Function<Returns<sizeof...(I)>, std::tuple<const at::Tensor&, TensorRef<I>...>, std::tuple<Arg<B>...>>;

  static const c10::TypedOperatorHandle<Forward>& forward() {
    static const auto op = uaccel::detail::op<Forward>(names<Op>().qualified_forward);
    return op;
  }
  static const c10::TypedOperatorHandle<Inplace>& inplace() {
    static const auto op = uaccel::detail::op<Inplace>(names<Op>().qualified_inplace);
    return op;
  }
  static const c10::TypedOperatorHandle<Backward>& backward() {
    static const auto op = uaccel::detail::op<Backward>(names<Op>().qualified_backward);
    return op;
  }
};

// The types of the op's kernels.
template <typename Op, typename P = Params<Op>, typename B = BackwardParams<Op>>
struct KernelTypes;
template <typename Op, typename... P, typename... B>
struct KernelTypes<Op, std::tuple<P...>, std::tuple<B...>> {
  using Forward = void (*)(at::TensorIteratorBase&, Arg<P>...);
  using Backward = void (*)(at::TensorIteratorBase&, Arg<B>...);
  // On tensors of one shape and dtype, dense in one format (elementwise::dense_format):
  // (outputs, inputs, parameters...), each an array of the tensors' addresses.
  using ForwardDense = void (*)(const at::Tensor* const*, const at::Tensor* const*, Arg<P>...);
  using BackwardDense = void (*)(const at::Tensor* const*, const at::Tensor* const*, Arg<B>...);
};

// The CPU kernels' dispatch points, one set per op, filled per instruction set (library_cpu_isa.cpp).
template <typename Op>
inline cpu::CpuDispatch<typename KernelTypes<Op>::Forward> forward_dispatch;
template <typename Op>
inline cpu::CpuDispatch<typename KernelTypes<Op>::Backward> backward_dispatch;
template <typename Op>
inline cpu::CpuDispatch<typename KernelTypes<Op>::ForwardDense> forward_dense_dispatch;
template <typename Op>
inline cpu::CpuDispatch<typename KernelTypes<Op>::BackwardDense> backward_dense_dispatch;

// fn(scalar_t{}) for the floating dtypes the ops take (checked before: ATen's message never shows).
template <typename Fn>
void for_floating_dtype(at::ScalarType dtype, const Fn& fn) {
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, dtype, "uaccel", [&] { fn(scalar_t{}); });
}

// The data of `count` tensors, as the loops take it.
template <typename scalar_t, size_t count>
std::array<scalar_t*, count> mutable_data(const at::Tensor* const* tensors) {
  std::array<scalar_t*, count> data;
  for (size_t k = 0; k < count; ++k) {
    data[k] = tensors[k]->mutable_data_ptr<scalar_t>();
  }
  return data;
}
template <typename scalar_t, size_t count>
std::array<const scalar_t*, count> const_data(const at::Tensor* const* tensors) {
  std::array<const scalar_t*, count> data;
  for (size_t k = 0; k < count; ++k) {
    data[k] = tensors[k]->const_data_ptr<scalar_t>();
  }
  return data;
}

// Whether a functor computes `outputs` values (T, or Outputs<T, outputs>) from `inputs` values of T.
template <typename Functor, typename T, size_t inputs, size_t outputs, typename = std::make_index_sequence<inputs>>
inline constexpr bool kFunctorFits = false;
template <typename Functor, typename T, size_t inputs, size_t outputs, size_t... I>
inline constexpr bool kFunctorFits<Functor, T, inputs, outputs, std::index_sequence<I...>> = [] {
  if constexpr (std::is_invocable_v<const Functor&, decltype((void)I, T())...>) {
    using R = std::invoke_result_t<const Functor&, decltype((void)I, T())...>;
    if constexpr (outputs == 1) {
      return std::is_convertible_v<R, T>;
    } else {
      return std::is_same_v<R, Outputs<T, outputs>>;
    }
  }
  return false;
}();

// Hands `functor` to the loop (`run`) if it fits the op's schema: one that does not is reported once, by
// the library's registration unit (uaccel/detail/registration.h), not once per dtype and instruction set.
template <typename T, size_t inputs, size_t outputs, typename Functor, typename Run>
void run_if_fits(const Functor& functor, const Run& run) {
  if constexpr (kFunctorFits<Functor, T, inputs, outputs>) {
    run(functor);
  }
}

// The op's forward and backward over an iterator, for every dtype, in `Loop` (cpu:: or
// cuda::elementwise, wrapped as Loop::run<scalar_t, inputs, outputs>(iter, functor)), and over
// dense tensors (Loop::run_dense<scalar_t, inputs, outputs>(out, in, n, functor)).
template <typename Op, typename Loop, typename P = Params<Op>, typename B = BackwardParams<Op>>
struct Kernels;
template <typename Op, typename Loop, typename... P, typename... B>
struct Kernels<Op, Loop, std::tuple<P...>, std::tuple<B...>> {
  static constexpr size_t N = kInputs<Op>;

  static void forward(at::TensorIteratorBase& iter, Arg<P>... params) {
    for_floating_dtype(iter.dtype(), [&](auto tag) {
      using scalar_t = decltype(tag);
      Op::template forward<at::opmath_type<scalar_t>>(
          [&](const auto& functor) {
            run_if_fits<at::opmath_type<scalar_t>, N, 1>(functor, [&](const auto& f) {
              Loop::template run<scalar_t, N, 1>(iter, f);
            });
          },
          params...);
    });
  }
  static void backward(at::TensorIteratorBase& iter, Arg<B>... params) {
    for_floating_dtype(iter.dtype(), [&](auto tag) {
      using scalar_t = decltype(tag);
      Op::template backward<at::opmath_type<scalar_t>>(
          [&](const auto& functor) {
            run_if_fits<at::opmath_type<scalar_t>, N + 1, N>(functor, [&](const auto& f) {
              Loop::template run<scalar_t, N + 1, N>(iter, f);
            });
          },
          params...);
    });
  }
  static void forward_dense(const at::Tensor* const* out, const at::Tensor* const* in, Arg<P>... params) {
    for_floating_dtype(in[0]->scalar_type(), [&](auto tag) {
      using scalar_t = decltype(tag);
      const auto to = mutable_data<scalar_t, 1>(out);
      const auto from = const_data<scalar_t, N>(in);
      Op::template forward<at::opmath_type<scalar_t>>(
          [&](const auto& functor) {
            run_if_fits<at::opmath_type<scalar_t>, N, 1>(functor, [&](const auto& f) {
              Loop::run_dense(to, from, out[0]->numel(), f);
            });
          },
          params...);
    });
  }
  static void backward_dense(const at::Tensor* const* out, const at::Tensor* const* in, Arg<B>... params) {
    for_floating_dtype(in[0]->scalar_type(), [&](auto tag) {
      using scalar_t = decltype(tag);
      const auto to = mutable_data<scalar_t, N>(out);
      const auto from = const_data<scalar_t, N + 1>(in);
      Op::template backward<at::opmath_type<scalar_t>>(
          [&](const auto& functor) {
            run_if_fits<at::opmath_type<scalar_t>, N + 1, N>(functor, [&](const auto& f) {
              Loop::run_dense(to, from, out[0]->numel(), f);
            });
          },
          params...);
    });
  }
};

struct NoDeviceGuard {
  explicit NoDeviceGuard(c10::Device) {}
};

// The device an implementation's guard is set to: the first input off the CPU (the dispatcher chose a
// device's implementation for it), so that inputs on mixed devices reach the checks' message rather
// than a device guard's refusal of a CPU device.
template <size_t N>
c10::Device kernel_device(const std::array<const at::Tensor*, N>& in) {
  for (const at::Tensor* t : in) {
    if (!t->is_cpu()) {
      return t->device();
    }
  }
  return in[0]->device();
}

// The op's implementations on one device: the shared checks and the iterator, then `Run::forward`
// or `Run::backward` (the CPU's dispatch points, or the CUDA kernels) under `Guard` (the device's).
// Where the tensors share one shape and dtype and are dense in one format, `Run`'s dense kernels
// (Run::empty_dense allocates their outputs) and no iterator: its set-up is most of what a call on a
// small tensor costs.
template <
    typename Op,
    typename Run,
    typename Guard,
    typename I = std::make_index_sequence<kInputs<Op>>,
    typename P = Params<Op>,
    typename B = BackwardParams<Op>>
struct Implementations;
template <typename Op, typename Run, typename Guard, size_t... I, typename... P, typename... B>
struct Implementations<Op, Run, Guard, std::index_sequence<I...>, std::tuple<P...>, std::tuple<B...>> {
  static constexpr size_t N = sizeof...(I);
  using Result = Returns<N>;

  static at::Tensor forward(TensorRef<I>... inputs, Arg<P>... params) {
    const std::array<const at::Tensor*, N> in{&inputs...};
    const Guard guard(kernel_device(in));
    const auto& labels = names<Op>();
    const char* op = labels.forward_label.c_str();
    check_choices<Op, Which::forward>(op, params...);
    check_forward<Op>(op, params...);
    if (const auto format = elementwise::dense_format(in)) {
      elementwise::check_operands(op, labels.inputs, in);
      auto out = Run::empty_dense(*in[0], *format);
      const std::array<const at::Tensor*, 1> outs{&out};
      Run::forward_dense(outs.data(), in.data(), params...);
      return out;
    }
    auto iter = elementwise::iterator(op, labels.inputs, in, 1);
    Run::forward(iter, params...);
    return iter.output();
  }
  static void inplace(const at::Tensor& self, Arg<P>... params) {
    const Guard guard(self.device());
    const char* op = names<Op>().inplace_label.c_str();
    check_choices<Op, Which::inplace>(op, params...);
    check_forward<Op>(op, params...);
    const std::array<const at::Tensor*, 1> in{&self};
    if (elementwise::dense_format(in)) {  // dense: no element written twice
      checks::floating(op, "self", self);
      Run::forward_dense(in.data(), in.data(), params...);
      return;
    }
    auto iter = elementwise::unary_inplace(op, self);
    Run::forward(iter, params...);
  }
  static Result backward(const at::Tensor& grad_output, TensorRef<I>... saved, Arg<B>... params) {
    const std::array<const at::Tensor*, N + 1> in{&grad_output, &saved...};
    const Guard guard(kernel_device(in));
    const auto& labels = names<Op>();
    const char* op = labels.backward_label.c_str();
    check_choices<Op, Which::backward>(op, params...);
    const auto check = [&] {
      if constexpr (requires { Op::check_backward(op, params...); }) {
        Op::check_backward(op, params...);
      }
    };
    if constexpr (N == 1) {  // one shape, one dtype
      elementwise::check_binary(op, labels.backward_inputs[0], grad_output, labels.backward_inputs[1], *in[1]);
    }
    if (const auto format = elementwise::dense_format(in)) {
      elementwise::check_operands(op, labels.backward_inputs, in);
      check();
      std::array<at::Tensor, N> out;
      std::array<const at::Tensor*, N> outs;
      for (size_t k = 0; k < N; ++k) {
        out[k] = Run::empty_dense(*in[k + 1], *format);
        outs[k] = &out[k];
      }
      Run::backward_dense(outs.data(), in.data(), params...);
      return Result{std::move(out[I])...};
    }
    auto iter = elementwise::iterator(op, labels.backward_inputs, in, N, /*float_for_sums=*/true);
    check();
    Run::backward(iter, params...);
    // Broadcast inputs get their gradients summed back to their shape, and each in its own dtype.
    return Result{elementwise::reduce_to(iter.output(I), saved)...};
  }
  // The tensor_scalars overloads: each Scalar read from its 0-dim tensor (on the CPU: no device sync).
  static at::Tensor forward_tensor_scalars(TensorRef<I>... inputs, TensorScalarArg<P>... params) {
    return forward(inputs..., from_tensor_scalar<P>(params)...);
  }
  static Result backward_tensor_scalars(
      const at::Tensor& grad_output, TensorRef<I>... saved, TensorScalarArg<B>... params) {
    return backward(grad_output, saved..., from_tensor_scalar<B>(params)...);
  }
  static void register_in(torch::Library& m) {
    const auto& op = names<Op>();
    m.impl(op.forward.c_str(), &forward);
    if constexpr (kHasInplace<Op>) {
      m.impl(op.inplace.c_str(), &inplace);
    }
    m.impl(op.backward.c_str(), &backward);
    if constexpr (kHasTensorScalar<P...>) {
      m.impl((op.forward + ".tensor_scalars").c_str(), &forward_tensor_scalars);
    }
    if constexpr (kHasTensorScalar<B...>) {
      m.impl((op.backward + ".tensor_scalars").c_str(), &backward_tensor_scalars);
    }
  }
};

} // namespace uaccel::pointwise
