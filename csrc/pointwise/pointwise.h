#pragma once
// The pointwise-op framework. A pointwise op is one header, csrc/ops/<op>.h, listed in op_list.h:
// its schemas
//   <op>(Tensor self, <scalars>) -> Tensor
//   <op>_(Tensor(a!) self, <scalars>) -> ()
//   <op>_backward(Tensor grad_output, Tensor <saved>, <backward scalars>) -> Tensor
// its math and its derivative formulas. The framework defines the schemas (tagged pointwise;
// pointwise.cpp, which checks at compile time that they name the op) and makes every op's CPU
// kernels (once per instruction set, pointwise_cpu_isa.cpp), its CPU and CUDA implementations
// (pointwise.cpp, pointwise_cuda.cu) and its autograd (autograd.h: reverse mode to any order,
// forward mode, in place, compiled autograd).
//
// The header defines, in namespace uaccel::ops::<op>, a struct Op:
//   static constexpr const char* kName = "<op>";
//   static constexpr pointwise::Schemas kSchemas{"<op>(...", "<op>_(...", "<op>_backward(..."};
//   using Scalars = std::tuple<at::Scalar, ...>;          the forward's arguments after self
//   using BackwardScalars = std::tuple<at::Scalar, bool, ...>;  the backward's after the two tensors
//   template <typename T, typename Run> static void forward(const Run& run, <scalars>...);
//   template <typename T, typename Run> static void backward(const Run& run, <backward scalars>...);
//       each calls run(functor) with its functor in the math type T (float for half types)
//   static at::Tensor backward_wrt_saved(h, saved, <backward scalars>...);
//       d/d(saved) of backward(g, saved), times h = g * (saved's gradient or tangent), in
//       differentiable tensor ops (double backward, forward over reverse); computed in float for
//       half types. Its scalars go only to uaccel ops (as elu.h does), never to an ATen op's Scalar
//       argument: there a symbolic one would become a graph constant under torch.compile
// and where it needs them (SiLU needs none):
//   Scalars and BackwardScalars (default: none);
//   static BackwardScalars backward_scalars(bool from_result, <scalars>...);  (when either has any)
//   static bool saves_result(<scalars>...);  the output determines the gradient, so the backward
//       reads it instead of the input (default: never)
//   static void check_backward(const char* op, <backward scalars>...);  the backward's own checks
//   static constexpr std::array<std::pair<const char*, const char*>, N> kMessages;  its checks' message
//       templates ({field}s filled by checks::format), which the fakes read as "message.<op>.<key>"
//   static void check_inplace_autograd(<scalars>...);  refuses in-place autograd (otherwise, in place
//       with a gradient that needs the input saves a copy of the input first, as ATen's ops do)
//
// A functor has `C10_HOST_DEVICE T operator()(T...) const` (CUDA and the CPU's strided loops) and,
// under `#ifdef CPU_CAPABILITY`, `Vec<T> vec(Vec<T>...) const` (the CPU's vector loops). Functors
// live in `inline namespace CPU_CAPABILITY`, as ATen's kernels do, so the per-ISA copies stay apart.
#include <ATen/ATen.h>
#include <ATen/Dispatch.h>
#include <ATen/OpMathType.h>
#include <ATen/TensorIterator.h>
#include <c10/macros/Macros.h>
#include <torch/library.h>

#include <array>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <uaccel/dispatch.h>

#include "common/cpu_dispatch.h"
#include "common/elementwise.h"
#include "common/scalar_math.h"

#ifdef CPU_CAPABILITY
#include "common/vec_math.h"

namespace uaccel::ops {
template <typename T>
using Vec = at::vec::Vectorized<T>;
} // namespace uaccel::ops
#endif

namespace uaccel::pointwise {

template <typename Op>
struct ScalarsOf {
  using type = std::tuple<>;
};
template <typename Op>
  requires requires { typename Op::Scalars; }
struct ScalarsOf<Op> {
  using type = typename Op::Scalars;
};
template <typename Op>
struct BackwardScalarsOf {
  using type = std::tuple<>;
};
template <typename Op>
  requires requires { typename Op::BackwardScalars; }
struct BackwardScalarsOf<Op> {
  using type = typename Op::BackwardScalars;
};
template <typename Op>
using Scalars = typename ScalarsOf<Op>::type;
template <typename Op>
using BackwardScalars = typename BackwardScalarsOf<Op>::type;

// A non-tensor argument as kernels and the dispatcher's typed signatures take it.
template <typename A>
using Arg = std::conditional_t<std::is_arithmetic_v<A>, A, const A&>;

// Where the fake kernels of the library's ops are registered (torch.library.register_fake), so that a
// trace without them tells the user to import it.
inline constexpr const char* kFakesModule = "torch_uaccel._fake";

// An op's schemas: the op, in place, and its backward.
struct Schemas {
  const char* forward;
  const char* inplace;
  const char* backward;
};

// A Scalar parameter as a compiled graph passes it when it is symbolic: a 0-dim tensor (the
// <op>.tensor_scalars overloads; torch_uaccel/_dynamic_scalars.py says why). Other parameters as they are.
template <typename A>
using TensorScalarArg = std::conditional_t<std::is_same_v<A, at::Scalar>, const at::Tensor&, Arg<A>>;
template <typename A>
decltype(auto) from_tensor_scalar(TensorScalarArg<A> value) {
  if constexpr (std::is_same_v<A, at::Scalar>) {
    TORCH_CHECK(
        value.numel() == 1,
        "uaccel: a tensor_scalars overload takes each Scalar parameter as a 1-element tensor, "
        "but got one of shape ",
        value.sizes());
    return value.item();
  } else {
    return value;
  }
}
template <typename... A>
inline constexpr bool kHasScalar = (std::is_same_v<A, at::Scalar> || ...);

// Defines a pointwise op's schema (tagged pointwise) and, where it returns a tensor and takes Scalar
// parameters, its <name>.tensor_scalars overload: the same with each Scalar a Tensor (no defaults).
void define(torch::Library& m, const char* schema);

// Whether `schema` names the op `name` followed by `suffix` ("", "_", "_backward").
constexpr bool names_op(std::string_view schema, std::string_view name, std::string_view suffix) {
  return schema.starts_with(name) && schema.substr(name.size()).starts_with(suffix) &&
      schema.substr(name.size() + suffix.size()).starts_with("(");
}

// The op's names: its ops, and the labels its messages start with.
struct Names {
  std::string forward, inplace, backward;  // "silu", "silu_", "silu_backward"
  std::string forward_label, inplace_label, backward_label;  // "uaccel.silu", ...
  std::string node;  // "UaccelSilu": its autograd nodes are <node>Backward, <node>BackwardBackward
};

Names make_names(const char* op);

// Every op's kMessages as ("message.<op>.<key>", template) pairs, for uaccel::_shared_facts.
std::vector<std::pair<std::string, std::string>> message_templates();

template <typename Op>
const Names& names() {
  static const Names names = make_names(Op::kName);
  return names;
}

// The typed dispatcher handles of the op's three schemas, and its kernels' types.
template <typename Op, typename S = Scalars<Op>, typename B = BackwardScalars<Op>>
struct Schema;
template <typename Op, typename... S, typename... B>
struct Schema<Op, std::tuple<S...>, std::tuple<B...>> {
  using Forward = at::Tensor(const at::Tensor&, Arg<S>...);
  using Inplace = void(const at::Tensor&, Arg<S>...);
  using Backward = at::Tensor(const at::Tensor&, const at::Tensor&, Arg<B>...);
  using ForwardKernel = void (*)(at::TensorIteratorBase&, Arg<S>...);
  using BackwardKernel = void (*)(at::TensorIteratorBase&, Arg<B>...);
  // On tensors contiguous in one format (elementwise::common_contiguous_format): (out, inputs..., scalars...).
  using ForwardDenseKernel = void (*)(const at::Tensor&, const at::Tensor&, Arg<S>...);
  using BackwardDenseKernel = void (*)(const at::Tensor&, const at::Tensor&, const at::Tensor&, Arg<B>...);

  static const c10::TypedOperatorHandle<Forward>& forward() {
    static const auto op = detail::op<Forward>(names<Op>().forward);
    return op;
  }
  static const c10::TypedOperatorHandle<Inplace>& inplace() {
    static const auto op = detail::op<Inplace>(names<Op>().inplace);
    return op;
  }
  static const c10::TypedOperatorHandle<Backward>& backward() {
    static const auto op = detail::op<Backward>(names<Op>().backward);
    return op;
  }
  // The backward's second argument as its schema names it ("saved", "self"), for its messages.
  static const std::string& saved_name() {
    static const std::string name = backward().schema().arguments().at(1).name();
    return name;
  }
};

// The CPU kernels' dispatch points, one pair per op, filled per instruction set (pointwise_cpu_isa.cpp).
template <typename Op>
inline cpu::CpuDispatch<typename Schema<Op>::ForwardKernel> forward_stub;
template <typename Op>
inline cpu::CpuDispatch<typename Schema<Op>::BackwardKernel> backward_stub;
template <typename Op>
inline cpu::CpuDispatch<typename Schema<Op>::ForwardDenseKernel> forward_dense_stub;
template <typename Op>
inline cpu::CpuDispatch<typename Schema<Op>::BackwardDenseKernel> backward_dense_stub;

// fn(scalar_t{}) for the floating dtypes the ops take (checked before: ATen's message never shows).
template <typename Fn>
void for_floating_dtype(at::ScalarType dtype, const Fn& fn) {
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, dtype, "uaccel", [&] { fn(scalar_t{}); });
}

// The op's forward and backward over an iterator, for every dtype, in `Loop` (cpu:: or
// cuda::elementwise, wrapped as Loop::run<scalar_t, inputs>(iter, functor)).
template <typename Op, typename Loop, typename S = Scalars<Op>, typename B = BackwardScalars<Op>>
struct Kernels;
template <typename Op, typename Loop, typename... S, typename... B>
struct Kernels<Op, Loop, std::tuple<S...>, std::tuple<B...>> {
  static void forward(at::TensorIteratorBase& iter, Arg<S>... scalars) {
    for_floating_dtype(iter.dtype(), [&](auto tag) {
      using scalar_t = decltype(tag);
      Op::template forward<at::opmath_type<scalar_t>>(
          [&](const auto& functor) { Loop::template run<scalar_t, 1>(iter, functor); }, scalars...);
    });
  }
  static void backward(at::TensorIteratorBase& iter, Arg<B>... scalars) {
    for_floating_dtype(iter.dtype(), [&](auto tag) {
      using scalar_t = decltype(tag);
      Op::template backward<at::opmath_type<scalar_t>>(
          [&](const auto& functor) { Loop::template run<scalar_t, 2>(iter, functor); }, scalars...);
    });
  }
  // The same on tensors contiguous in one format (Loop::run_dense<scalar_t>(out, {inputs}, n, functor)).
  static void forward_dense(const at::Tensor& out, const at::Tensor& self, Arg<S>... scalars) {
    for_floating_dtype(self.scalar_type(), [&](auto tag) {
      using scalar_t = decltype(tag);
      const std::array<const scalar_t*, 1> in{self.const_data_ptr<scalar_t>()};
      Op::template forward<at::opmath_type<scalar_t>>(
          [&](const auto& functor) { Loop::run_dense(out.mutable_data_ptr<scalar_t>(), in, out.numel(), functor); },
          scalars...);
    });
  }
  static void backward_dense(
      const at::Tensor& out, const at::Tensor& grad_output, const at::Tensor& saved, Arg<B>... scalars) {
    for_floating_dtype(saved.scalar_type(), [&](auto tag) {
      using scalar_t = decltype(tag);
      const std::array<const scalar_t*, 2> in{grad_output.const_data_ptr<scalar_t>(), saved.const_data_ptr<scalar_t>()};
      Op::template backward<at::opmath_type<scalar_t>>(
          [&](const auto& functor) { Loop::run_dense(out.mutable_data_ptr<scalar_t>(), in, out.numel(), functor); },
          scalars...);
    });
  }
};

struct NoDeviceGuard {
  explicit NoDeviceGuard(c10::Device) {}
};

// The op's implementations on one device: the shared checks and the iterator, then `Run::forward`
// or `Run::backward` (the CPU's dispatch points, or the CUDA kernels) under `Guard` (the device's).
// Where `Run` has dense kernels (Run::kDense, Run::empty_dense) and the tensors are contiguous in one format, no
// iterator: its set-up is most of what a call on a small tensor costs.
template <typename Op, typename Run, typename Guard, typename S = Scalars<Op>, typename B = BackwardScalars<Op>>
struct Implementations;
template <typename Op, typename Run, typename Guard, typename... S, typename... B>
struct Implementations<Op, Run, Guard, std::tuple<S...>, std::tuple<B...>> {
  static constexpr bool kDense = requires { Run::kDense; };

  static at::Tensor forward(const at::Tensor& self, Arg<S>... scalars) {
    const Guard guard(self.device());
    const char* op = names<Op>().forward_label.c_str();
    if constexpr (kDense) {
      if (const auto format = elementwise::common_contiguous_format(self, self)) {
        checks::floating(op, "self", self);
        auto out = Run::empty_dense(self, *format);
        Run::forward_dense(out, self, scalars...);
        return out;
      }
    }
    auto iter = elementwise::unary(op, self);
    Run::forward(iter, scalars...);
    return iter.output();
  }
  static void inplace(const at::Tensor& self, Arg<S>... scalars) {
    const Guard guard(self.device());
    const char* op = names<Op>().inplace_label.c_str();
    if constexpr (kDense) {
      if (elementwise::common_contiguous_format(self, self)) {  // dense: no element written twice
        checks::floating(op, "self", self);
        Run::forward_dense(self, self, scalars...);
        return;
      }
    }
    auto iter = elementwise::unary_inplace(op, self);
    Run::forward(iter, scalars...);
  }
  static at::Tensor backward(const at::Tensor& grad_output, const at::Tensor& saved, Arg<B>... scalars) {
    const Guard guard(saved.device());
    const char* op = names<Op>().backward_label.c_str();
    const char* saved_name = Schema<Op>::saved_name().c_str();
    const auto check = [&] {
      if constexpr (requires { Op::check_backward(op, scalars...); }) {
        Op::check_backward(op, scalars...);
      }
    };
    if constexpr (kDense) {
      if (const auto format = elementwise::common_contiguous_format(saved, grad_output)) {
        elementwise::check_binary(op, "grad_output", grad_output, saved_name, saved);
        check();
        auto out = Run::empty_dense(saved, *format);
        Run::backward_dense(out, grad_output, saved, scalars...);
        return out;
      }
    }
    auto iter = elementwise::binary(op, "grad_output", grad_output, saved_name, saved);
    check();
    Run::backward(iter, scalars...);
    return iter.output();
  }
  // The tensor_scalars overloads: each Scalar read from its 0-dim tensor (on the CPU: no device sync).
  static at::Tensor forward_tensor_scalars(const at::Tensor& self, TensorScalarArg<S>... scalars) {
    return forward(self, from_tensor_scalar<S>(scalars)...);
  }
  static at::Tensor backward_tensor_scalars(
      const at::Tensor& grad_output, const at::Tensor& saved, TensorScalarArg<B>... scalars) {
    return backward(grad_output, saved, from_tensor_scalar<B>(scalars)...);
  }
  static void register_in(torch::Library& m) {
    m.impl(names<Op>().forward.c_str(), &forward);
    m.impl(names<Op>().inplace.c_str(), &inplace);
    m.impl(names<Op>().backward.c_str(), &backward);
    if constexpr (kHasScalar<S...>) {
      m.impl((names<Op>().forward + ".tensor_scalars").c_str(), &forward_tensor_scalars);
    }
    if constexpr (kHasScalar<B...>) {
      m.impl((names<Op>().backward + ".tensor_scalars").c_str(), &backward_tensor_scalars);
    }
  }
};

} // namespace uaccel::pointwise
