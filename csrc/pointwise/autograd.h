#pragma once
// Autograd of every pointwise op (pointwise.h), registered once per op at the Autograd key, so
// Python and C++ callers of the dispatcher get gradients alike: reverse mode to any order, forward
// mode (dual tensors, jvp, jacfwd), every torch.func transform and compiled autograd (see
// common/autograd_node.h for why these are Nodes and not torch::autograd::Function).
//
// Two nodes per op: <Op>Backward (of the forward and in-place ops: dx = backward(dy, saved), saved
// being the input or, where Op::saves_result, the output) and <Op>BackwardBackward (of the backward
// op, whose own gradient is Op::backward_wrt_saved). The backward is an op with a node of its own,
// so double backward, forward over reverse (hessian) and torch.compile's traced backward see
// ordinary ops. Pointwise ops have diagonal Jacobians: a tangent goes through the backward op too.
#include <c10/core/ScalarType.h>
#include <torch/csrc/autograd/autograd_not_implemented_fallback.h>

#include <mutex>
#include <tuple>
#include <utility>
#include <vector>

#include "common/autograd_node.h"
#include "pointwise/pointwise.h"

namespace uaccel::pointwise {
namespace detail {

using torch::autograd::SavedVariable;
using torch::autograd::variable_list;

// Compiled autograd packs a node's non-tensor arguments as IValues, one schema per node type for the
// process: Scalars always as double.
inline c10::IValue pack(const at::Scalar& value) {
  return value.toDouble();
}
inline c10::IValue pack(bool value) {
  return value;
}
template <typename A>
A unpack(const c10::IValue& value) {
  if constexpr (std::is_same_v<A, bool>) {
    return value.toBool();
  } else {
    return at::Scalar(value.toDouble());
  }
}

template <typename Tuple>
void pack_into(std::vector<c10::IValue>& args, const Tuple& scalars) {
  std::apply([&](const auto&... scalar) { (args.push_back(pack(scalar)), ...); }, scalars);
}

template <typename Tuple, size_t... I>
Tuple unpack_from(const std::vector<c10::IValue>& args, size_t first, std::index_sequence<I...>) {
  return Tuple{unpack<std::tuple_element_t<I, Tuple>>(args[first + I])...};
}
template <typename Tuple>
Tuple unpack_from(const std::vector<c10::IValue>& args, size_t first) {
  return unpack_from<Tuple>(args, first, std::make_index_sequence<std::tuple_size_v<Tuple>>{});
}

template <typename Tuple>
void collect(torch::autograd::CompiledNodeArgs& args, const Tuple& scalars) {
  std::apply([&](const auto&... scalar) { (args.collect(scalar), ...); }, scalars);
}

// backward(grad, saved): through the dispatcher, so it is differentiable in its turn.
template <typename Op>
at::Tensor backward(const at::Tensor& grad, const at::Tensor& saved, const BackwardScalars<Op>& scalars) {
  return std::apply([&](const auto&... s) { return Schema<Op>::backward().call(grad, saved, s...); }, scalars);
}

// Op::backward_wrt_saved, in float for half types (a chain of ops rounding each step to a 8- or
// 11-bit mantissa would be far off the op's own precision).
template <typename Op>
at::Tensor backward_wrt_saved(const at::Tensor& h, const at::Tensor& saved, const BackwardScalars<Op>& scalars) {
  const auto dtype = saved.scalar_type();
  const bool widen = at::isReducedFloatingType(dtype);
  const auto wide = [&](const at::Tensor& t) { return widen ? t.to(at::kFloat) : t; };
  const auto result =
      std::apply([&](const auto&... s) { return Op::backward_wrt_saved(wide(h), wide(saved), s...); }, scalars);
  return widen ? result.to(dtype) : result;
}

template <typename Op, typename... S>
BackwardScalars<Op> backward_scalars(bool from_result, const S&... scalars) {
  if constexpr (std::tuple_size_v<BackwardScalars<Op>> == 0) {
    return {};
  } else {
    return Op::backward_scalars(from_result, scalars...);
  }
}

template <typename A>
bool symbolic(const A& value) {
  if constexpr (std::is_same_v<A, at::Scalar>) {
    return value.isSymbolic();
  } else {
    return false;
  }
}

// Whether the backward reads the output. A symbolic scalar (torch.compile) is never read for this:
// that would specialise the graph to its value; the input is saved instead, which serves every value.
template <typename Op, typename... S>
bool saves_result(const S&... scalars) {
  if constexpr (requires { Op::saves_result(scalars...); }) {
    return !(symbolic(scalars) || ...) && Op::saves_result(scalars...);
  } else {
    return false;
  }
}

// The gradient of <op> and <op>_: dx = backward(dy, saved).
template <typename Op>
struct Backward : torch::autograd::TraceableFunction {
  using Scalars = BackwardScalars<Op>;

  variable_list apply(variable_list&& grads) override {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto saved = saved_.unpack(saved_is_output ? autograd::owner(*this) : nullptr);
    return compute(grads, task_should_compute_output(0), saved, scalars);
  }
  static variable_list compute(const variable_list& grads, bool needed, const at::Tensor& saved, const Scalars& s) {
    variable_list grad_inputs(1);
    if (grads[0].defined() && needed) {
      grad_inputs[0] = detail::backward<Op>(grads[0], saved, s);
    }
    return grad_inputs;
  }
  std::string name() const override { return names<Op>().node + "Backward"; }
  void release_variables() override {
    std::lock_guard<std::mutex> lock(mutex_);
    saved_.reset_data();
  }
  void compiled_args(torch::autograd::CompiledNodeArgs& args) const override {
    args.collect(saved_, saved_is_output);
    collect(args, scalars);
    args.collect(saved_is_output);
  }
  variable_list apply_with_saved(const variable_list& grads, torch::autograd::SwapSavedVariables& swap) override {
    swap.before(saved_);
    std::vector<c10::IValue> args{autograd::needs_input_grad(*this), saved_.unpack()};
    pack_into(args, scalars);
    auto result = autograd::call_compiled(*this, swap, name(), &compute_packed, grads, args);
    swap.after(saved_);
    return result;
  }
  static variable_list compute_packed(const variable_list& grads, const std::vector<c10::IValue>& args) {
    return compute(grads, args[0].toBoolList().get(0), args[1].toTensor(), unpack_from<Scalars>(args, 2));
  }

  Scalars scalars;
  bool saved_is_output = false;
  SavedVariable saved_;
};

// The gradient of <op>_backward, with respect to grad_output and to saved.
template <typename Op>
struct BackwardBackward : torch::autograd::TraceableFunction {
  using Scalars = BackwardScalars<Op>;

  variable_list apply(variable_list&& grads) override {
    std::lock_guard<std::mutex> lock(mutex_);
    return compute(
        grads, {task_should_compute_output(0), task_should_compute_output(1)}, grad_output_.unpack(), saved_.unpack(),
        scalars);
  }
  static variable_list compute(
      const variable_list& grads,
      std::array<bool, 2> needs,
      const at::Tensor& grad_output,
      const at::Tensor& saved,
      const Scalars& s) {
    variable_list grad_inputs(2);
    const auto& grad = grads[0];
    if (!grad.defined()) {
      return grad_inputs;
    }
    if (needs[0]) {
      grad_inputs[0] = detail::backward<Op>(grad, saved, s);
    }
    if (needs[1]) {
      grad_inputs[1] = detail::backward_wrt_saved<Op>(grad * grad_output, saved, s);
    }
    return grad_inputs;
  }
  std::string name() const override { return names<Op>().node + "BackwardBackward"; }
  void release_variables() override {
    std::lock_guard<std::mutex> lock(mutex_);
    grad_output_.reset_data();
    saved_.reset_data();
  }
  void compiled_args(torch::autograd::CompiledNodeArgs& args) const override {
    args.collect(grad_output_, false);
    args.collect(saved_, false);
    collect(args, scalars);
  }
  variable_list apply_with_saved(const variable_list& grads, torch::autograd::SwapSavedVariables& swap) override {
    swap.before(grad_output_);
    swap.before(saved_);
    std::vector<c10::IValue> args{autograd::needs_input_grad(*this), grad_output_.unpack(), saved_.unpack()};
    pack_into(args, scalars);
    auto result = autograd::call_compiled(*this, swap, name(), &compute_packed, grads, args);
    swap.after(grad_output_);
    swap.after(saved_);
    return result;
  }
  static variable_list compute_packed(const variable_list& grads, const std::vector<c10::IValue>& args) {
    const auto needs = args[0].toBoolList();
    return compute(
        grads, {needs.get(0), needs.get(1)}, args[1].toTensor(), args[2].toTensor(), unpack_from<Scalars>(args, 3));
  }

  Scalars scalars;
  SavedVariable grad_output_;
  SavedVariable saved_;
};

} // namespace detail

// The Autograd kernels. Each follows the generated code's order: build the node from the inputs,
// run the op below autograd, attach the node to the output, set the output's tangent, and only then
// save the output (saved earlier, it would keep itself alive through the node, or lose its tangent).
template <typename Op, typename S = Scalars<Op>, typename B = BackwardScalars<Op>>
struct Autograd;
template <typename Op, typename... S, typename... B>
struct Autograd<Op, std::tuple<S...>, std::tuple<B...>> {
  static at::Tensor forward(c10::DispatchKeySet keys, const at::Tensor& self, Arg<S>... scalars) {
    // Scalars are read only where a gradient is wanted: reading a symbolic one (torch.compile)
    // would specialise the graph to its value.
    autograd::NodePtr<detail::Backward<Op>> grad_fn;
    bool from_result = false;
    if (torch::autograd::compute_requires_grad(self)) {
      from_result = detail::saves_result<Op>(scalars...);
      grad_fn = autograd::make_node<detail::Backward<Op>>();
      grad_fn->set_next_edges(torch::autograd::collect_next_edges(self));
      grad_fn->scalars = detail::backward_scalars<Op>(from_result, scalars...);
      grad_fn->saved_is_output = from_result;
      if (!from_result) {
        grad_fn->saved_ = torch::autograd::SavedVariable(self, /*is_output=*/false);
      }
    }
    at::Tensor result;
    {
      at::AutoDispatchBelowADInplaceOrView below_autograd;
      result = Schema<Op>::forward().redispatch(keys & c10::after_autograd_keyset, self, scalars...);
    }
    if (grad_fn) {
      torch::autograd::set_history(result, grad_fn);
    }
    if (const auto self_t = autograd::tangent(self); self_t.defined()) {
      const auto from_input = detail::backward_scalars<Op>(false, scalars...);
      result._set_fw_grad(detail::backward<Op>(self_t, autograd::primal(self), from_input), 0, false);
    }
    if (grad_fn) {
      if (from_result) {
        grad_fn->saved_ = torch::autograd::SavedVariable(result, /*is_output=*/true);
      }
      autograd::node_created(grad_fn);
    }
    return result;
  }

  // As ATen's in-place ops: the version counter is bumped and the history rebased (views
  // included); the gradient comes from the output where it determines it, else from a copy of the
  // input taken before it is overwritten.
  static void inplace(c10::DispatchKeySet keys, const at::Tensor& self, Arg<S>... scalars) {
    const bool requires_grad = torch::autograd::compute_requires_grad(self);
    const at::Tensor self_t = autograd::tangent(self);
    torch::autograd::check_inplace(self, requires_grad);
    const bool differentiated = requires_grad || self_t.defined();
    if constexpr (requires { Op::check_inplace_autograd(scalars...); }) {
      if (differentiated) {
        Op::check_inplace_autograd(scalars...);
      }
    }
    const bool from_result = differentiated && detail::saves_result<Op>(scalars...);  // see forward
    const auto input = differentiated && !from_result ? self.clone() : at::Tensor();
    autograd::NodePtr<detail::Backward<Op>> grad_fn;
    if (requires_grad) {
      grad_fn = autograd::make_node<detail::Backward<Op>>();
      grad_fn->set_next_edges(torch::autograd::collect_next_edges(self));
      grad_fn->scalars = detail::backward_scalars<Op>(from_result, scalars...);
      grad_fn->saved_is_output = from_result;
    }
    {
      at::AutoDispatchBelowADInplaceOrView below_autograd;
      Schema<Op>::inplace().redispatch(keys & c10::after_autograd_keyset, self, scalars...);
    }
    // ATen's ADInplaceOrView kernel does this for its in-place ops; for custom ops that key falls through.
    torch::autograd::increment_version(self);
    const auto attached = grad_fn ? autograd::rebase_history(self, grad_fn) : nullptr;
    if (self_t.defined()) {  // the tangent is updated in place too
      const auto original_t = at::GradMode::is_enabled() ? self_t.clone() : self_t;
      const auto at_point = autograd::primal(from_result ? self : input);
      const auto scalars_there = detail::backward_scalars<Op>(from_result, scalars...);
      self._set_fw_grad(self_t.copy_(detail::backward<Op>(original_t, at_point, scalars_there)), 0, true);
    }
    if (grad_fn) {
      grad_fn->saved_ = from_result ? torch::autograd::SavedVariable(self, /*is_output=*/true, self.is_view())
                                    : torch::autograd::SavedVariable(input, /*is_output=*/false);
      autograd::node_created(attached);
    }
  }

  static at::Tensor backward(
      c10::DispatchKeySet keys, const at::Tensor& grad_output, const at::Tensor& saved, Arg<B>... scalars) {
    autograd::NodePtr<detail::BackwardBackward<Op>> grad_fn;
    if (torch::autograd::compute_requires_grad(grad_output, saved)) {
      grad_fn = autograd::make_node<detail::BackwardBackward<Op>>();
      grad_fn->set_next_edges(torch::autograd::collect_next_edges(grad_output, saved));
      grad_fn->scalars = {scalars...};
      grad_fn->grad_output_ = torch::autograd::SavedVariable(grad_output, /*is_output=*/false);
      grad_fn->saved_ = torch::autograd::SavedVariable(saved, /*is_output=*/false);
    }
    at::Tensor result;
    {
      at::AutoDispatchBelowADInplaceOrView below_autograd;
      result = Schema<Op>::backward().redispatch(keys & c10::after_autograd_keyset, grad_output, saved, scalars...);
    }
    if (grad_fn) {
      torch::autograd::set_history(result, grad_fn);
    }
    const auto grad_output_t = autograd::tangent(grad_output);
    const auto saved_t = autograd::tangent(saved);
    if (grad_output_t.defined() || saved_t.defined()) {
      const BackwardScalars<Op> s{scalars...};
      const auto saved_p = autograd::primal(saved);
      const auto from_grad = grad_output_t.defined() ? detail::backward<Op>(grad_output_t, saved_p, s) : at::Tensor();
      const auto from_saved = saved_t.defined()
          ? detail::backward_wrt_saved<Op>(autograd::primal(grad_output) * saved_t, saved_p, s)
          : at::Tensor();
      result._set_fw_grad(autograd::add_tangents(from_grad, from_saved), /*level=*/0, /*is_inplace_op=*/false);
    }
    if (grad_fn) {
      autograd::node_created(grad_fn);
    }
    return result;
  }

  static void register_in(torch::Library& m) {
    m.impl(names<Op>().forward.c_str(), &forward);
    m.impl(names<Op>().inplace.c_str(), &inplace);
    m.impl(names<Op>().backward.c_str(), &backward);
    // The tensor_scalars overloads appear only below autograd, in compiled graphs: called with
    // inputs that require grad, they raise instead of dropping the gradient.
    if constexpr (kHasScalar<S...>) {
      m.impl((names<Op>().forward + ".tensor_scalars").c_str(), torch::autograd::autogradNotImplementedFallback());
    }
    if constexpr (kHasScalar<B...>) {
      m.impl((names<Op>().backward + ".tensor_scalars").c_str(), torch::autograd::autogradNotImplementedFallback());
    }
  }
};

} // namespace uaccel::pointwise
