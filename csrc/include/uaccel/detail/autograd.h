#pragma once
// Autograd of every pointwise op (pointwise.h), registered once per op at the Autograd key, so
// Python and C++ callers of the dispatcher get gradients alike: reverse mode to any order, forward
// mode (dual tensors, jvp, jacfwd), every torch.func transform and compiled autograd (see
// uaccel/detail/autograd_node.h for why these are Nodes and not torch::autograd::Function).
//
// Two nodes per op: <Op>Backward (of the forward and in-place ops: dx = backward(dy, saved...), saved
// being the inputs or, where Op::saves_result, the output) and <Op>BackwardBackward (of the backward
// op, whose own gradient is Op::backward_wrt_saved). The backward is an op with a node of its own,
// so double backward, forward over reverse (hessian) and torch.compile's traced backward see
// ordinary ops. Pointwise ops have diagonal Jacobians: a tangent goes through the backward op too
// (with several inputs, the sum over inputs of each one's part).
//
// Shapes are read as SymInts throughout: under torch.compile with dynamic shapes these kernels run
// on tensors whose sizes are symbolic.
#include <ATen/ExpandUtils.h>
#include <c10/core/ScalarType.h>
#include <torch/csrc/autograd/autograd_not_implemented_fallback.h>

#include <array>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <uaccel/detail/autograd_node.h>
#include <uaccel/detail/pointwise_op.h>

namespace uaccel::pointwise {

namespace detail {

using torch::autograd::SavedVariable;
using torch::autograd::variable_list;

// Compiled autograd packs a node's parameters as IValues, one schema per node type for the process:
// Scalars always as double.
inline c10::IValue pack(const at::Scalar& value) {
  return value.toDouble();
}
template <typename A>
c10::IValue pack(const A& value) {
  if constexpr (requires { value.has_value(); }) {
    return value.has_value() ? pack(*value) : c10::IValue();
  } else {
    return value;
  }
}
template <typename A>
A unpack(const c10::IValue& value) {
  if constexpr (std::is_same_v<A, at::Scalar>) {
    return at::Scalar(value.toDouble());
  } else if constexpr (std::is_same_v<A, std::string>) {
    return value.toStringRef();
  } else if constexpr (requires { typename A::value_type; }) {
    return value.isNone() ? A() : A(unpack<typename A::value_type>(value));
  } else {
    return value.to<A>();
  }
}

template <typename Tuple>
void pack_into(std::vector<c10::IValue>& args, const Tuple& params) {
  std::apply([&](const auto&... param) { (args.push_back(pack(param)), ...); }, params);
}

template <typename Tuple>
Tuple unpack_from(const std::vector<c10::IValue>& args, size_t first) {
  return [&]<size_t... I>(std::index_sequence<I...>) {
    return Tuple{unpack<std::tuple_element_t<I, Tuple>>(args[first + I])...};
  }(std::make_index_sequence<std::tuple_size_v<Tuple>>{});
}

template <typename Tuple>
void collect(torch::autograd::CompiledNodeArgs& args, const Tuple& params) {
  std::apply([&](const auto&... param) { (args.collect(param), ...); }, params);
}

// The backward's parameters as the nodes keep them.
template <typename Op>
using NodeParams = typename StoredTuple<BackwardParams<Op>>::type;

template <size_t n>
using Tensors = std::array<at::Tensor, n>;

// The backward op through the dispatcher (so it is differentiable in its turn), its gradients as an array.
template <typename Op, size_t n, typename Tuple>
Tensors<n> backward(const at::Tensor& grad, const Tensors<n>& saved, const Tuple& params) {
  return [&]<size_t... I>(std::index_sequence<I...>) {
    auto result =
        std::apply([&](const auto&... p) { return Schema<Op>::backward().call(grad, saved[I]..., p...); }, params);
    if constexpr (n == 1) {
      return Tensors<1>{std::move(result)};
    } else {
      return Tensors<n>{std::get<I>(std::move(result))...};
    }
  }(std::make_index_sequence<n>{});
}

// The broadcast shape of the tensors.
template <size_t n>
c10::SymDimVector broadcast_shape(const at::Tensor& first, const Tensors<n>& rest) {
  c10::SymDimVector shape(first.sym_sizes().begin(), first.sym_sizes().end());
  for (const auto& t : rest) {
    shape = at::infer_size_symdimvector(shape, t.sym_sizes());
  }
  return shape;
}

// The sum over inputs of tangent_i * df/dx_i at `shape`, through the backward op: backward(t, x) for
// one input; for several, backward(t_i, x...)'s gradient i, with every tensor expanded to `shape`, so
// that the backward sums nothing over broadcast dimensions. Undefined tangents are zero.
template <typename Op, size_t n, typename Tuple>
at::Tensor jvp(const Tensors<n>& tangents, const Tensors<n>& primals, const Tuple& params, c10::SymIntArrayRef shape) {
  if constexpr (n == 1) {
    return backward<Op>(tangents[0], primals, params)[0];
  } else {
    Tensors<n> expanded;
    for (size_t k = 0; k < n; ++k) {
      expanded[k] = primals[k].expand_symint(shape);
    }
    at::Tensor sum;
    for (size_t i = 0; i < n; ++i) {
      if (tangents[i].defined()) {
        sum = autograd::add_tangents(sum, backward<Op>(tangents[i].expand_symint(shape), expanded, params)[i]);
      }
    }
    return sum;
  }
}

// Op::backward_wrt_saved, in float for half types (a chain of ops rounding each step to a 8- or
// 11-bit mantissa would be far off the op's own precision), each result in its saved tensor's shape.
template <typename Op, size_t n, typename Tuple>
Tensors<n> backward_wrt_saved(const Tensors<n>& h, const Tensors<n>& saved, const Tuple& params) {
  const auto wide = [](const at::Tensor& t) {
    return at::isReducedFloatingType(t.scalar_type()) ? t.to(at::kFloat) : t;
  };
  return [&]<size_t... I>(std::index_sequence<I...>) {
    const auto result = std::apply(
        [&](const auto&... p) { return Op::backward_wrt_saved(wide(h[I])..., wide(saved[I])..., p...); }, params);
    const auto as_saved = [&](const at::Tensor& r, const at::Tensor& s) {
      const auto summed = n == 1 ? r : at::sum_to(r, s.sym_sizes());  // one input: nothing was broadcast
      return summed.scalar_type() == s.scalar_type() ? summed : summed.to(s.scalar_type());
    };
    if constexpr (n == 1) {
      return Tensors<1>{as_saved(result, saved[0])};
    } else {
      return Tensors<n>{as_saved(result[I], saved[I])...};
    }
  }(std::make_index_sequence<n>{});
}

template <typename Op, typename... P>
BackwardParams<Op> backward_params(bool from_result, const P&... params) {
  if constexpr (requires { Op::backward_params(from_result, params...); }) {
    return Op::backward_params(from_result, params...);
  } else {
    return BackwardParams<Op>{params...};
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
template <typename Op, typename... P>
bool saves_result(const P&... params) {
  if constexpr (requires { Op::saves_result(params...); }) {
    return !(symbolic(params) || ...) && Op::saves_result(params...);
  } else {
    return false;
  }
}

template <size_t n>
std::array<bool, n> needs_from(const c10::List<bool>& needs, size_t first = 0) {
  std::array<bool, n> result;
  for (size_t k = 0; k < n; ++k) {
    result[k] = needs.get(first + k);
  }
  return result;
}

// The gradient of <op> and <op>_: dx_i = backward(dy, saved...)_i.
template <typename Op>
struct Backward : torch::autograd::TraceableFunction {
  static constexpr size_t n = kInputs<Op>;
  using Params = NodeParams<Op>;

  variable_list apply(variable_list&& grads) override {
    std::lock_guard<std::mutex> lock(mutex_);
    Tensors<n> saved;
    std::array<bool, n> needs;
    for (size_t k = 0; k < n; ++k) {
      saved[k] = saved_[k].unpack(saved_is_output ? autograd::owner(*this) : nullptr);
      needs[k] = task_should_compute_output(k);
    }
    return compute(grads, needs, saved, params);
  }
  static variable_list compute(
      const variable_list& grads, const std::array<bool, n>& needs, const Tensors<n>& saved, const Params& params) {
    variable_list grad_inputs(n);
    if (grads[0].defined() && std::find(needs.begin(), needs.end(), true) != needs.end()) {
      auto computed = detail::backward<Op>(grads[0], saved, params);
      for (size_t k = 0; k < n; ++k) {
        if (needs[k]) {
          grad_inputs[k] = std::move(computed[k]);
        }
      }
    }
    return grad_inputs;
  }
  std::string name() const override { return names<Op>().node + "Backward"; }
  void release_variables() override {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto& saved : saved_) {
      saved.reset_data();
    }
  }
  void compiled_args(torch::autograd::CompiledNodeArgs& args) const override {
    for (const auto& saved : saved_) {
      args.collect(saved, saved_is_output);
    }
    collect(args, params);
    args.collect(saved_is_output);
  }
  variable_list apply_with_saved(const variable_list& grads, torch::autograd::SwapSavedVariables& swap) override {
    std::vector<c10::IValue> args{autograd::needs_input_grad(*this)};
    for (auto& saved : saved_) {
      swap.before(saved);
      args.emplace_back(saved.unpack());
    }
    pack_into(args, params);
    auto result = autograd::call_compiled(*this, swap, name(), &compute_packed, grads, args);
    for (auto& saved : saved_) {
      swap.after(saved);
    }
    return result;
  }
  static variable_list compute_packed(const variable_list& grads, const std::vector<c10::IValue>& args) {
    Tensors<n> saved;
    for (size_t k = 0; k < n; ++k) {
      saved[k] = args[1 + k].toTensor();
    }
    return compute(grads, needs_from<n>(args[0].toBoolList()), saved, unpack_from<Params>(args, 1 + n));
  }

  Params params;
  bool saved_is_output = false;
  std::array<SavedVariable, n> saved_;
};

// The gradient of <op>_backward, with respect to grad_output and to each saved tensor.
template <typename Op>
struct BackwardBackward : torch::autograd::TraceableFunction {
  static constexpr size_t n = kInputs<Op>;
  using Params = NodeParams<Op>;

  variable_list apply(variable_list&& grads) override {
    std::lock_guard<std::mutex> lock(mutex_);
    Tensors<n> saved;
    std::array<bool, n + 1> needs;
    needs[0] = task_should_compute_output(0);
    for (size_t k = 0; k < n; ++k) {
      saved[k] = saved_[k].unpack();
      needs[k + 1] = task_should_compute_output(k + 1);
    }
    return compute(grads, needs, grad_output_.unpack(), saved, params);
  }
  // grads[i] is the gradient reaching the backward's output i (dL/d(dx_i)).
  static variable_list compute(
      const variable_list& grads,
      const std::array<bool, n + 1>& needs,
      const at::Tensor& grad_output,
      const Tensors<n>& saved,
      const Params& params) {
    variable_list grad_inputs(n + 1);
    Tensors<n> upstream;
    bool any = false;
    for (size_t i = 0; i < n; ++i) {
      upstream[i] = grads[i];
      any = any || grads[i].defined();
    }
    if (!any) {
      return grad_inputs;
    }
    if (needs[0]) {
      if constexpr (n == 1) {
        grad_inputs[0] = detail::backward<Op>(upstream[0], saved, params)[0];
      } else {
        const auto shape = broadcast_shape(grad_output, saved);
        grad_inputs[0] = at::sum_to(jvp<Op>(upstream, saved, params, shape), grad_output.sym_sizes());
      }
    }
    if (std::find(needs.begin() + 1, needs.end(), true) != needs.end()) {
      Tensors<n> h;
      for (size_t i = 0; i < n; ++i) {
        h[i] = upstream[i].defined() ? upstream[i] * grad_output : at::zeros_like(grad_output);
      }
      auto wrt_saved = detail::backward_wrt_saved<Op>(h, saved, params);
      for (size_t j = 0; j < n; ++j) {
        if (needs[j + 1]) {
          grad_inputs[j + 1] = std::move(wrt_saved[j]);
        }
      }
    }
    return grad_inputs;
  }
  std::string name() const override { return names<Op>().node + "BackwardBackward"; }
  void release_variables() override {
    std::lock_guard<std::mutex> lock(mutex_);
    grad_output_.reset_data();
    for (auto& saved : saved_) {
      saved.reset_data();
    }
  }
  void compiled_args(torch::autograd::CompiledNodeArgs& args) const override {
    args.collect(grad_output_, false);
    for (const auto& saved : saved_) {
      args.collect(saved, false);
    }
    collect(args, params);
  }
  variable_list apply_with_saved(const variable_list& grads, torch::autograd::SwapSavedVariables& swap) override {
    swap.before(grad_output_);
    std::vector<c10::IValue> args{autograd::needs_input_grad(*this), grad_output_.unpack()};
    for (auto& saved : saved_) {
      swap.before(saved);
      args.emplace_back(saved.unpack());
    }
    pack_into(args, params);
    auto result = autograd::call_compiled(*this, swap, name(), &compute_packed, grads, args);
    swap.after(grad_output_);
    for (auto& saved : saved_) {
      swap.after(saved);
    }
    return result;
  }
  static variable_list compute_packed(const variable_list& grads, const std::vector<c10::IValue>& args) {
    Tensors<n> saved;
    for (size_t k = 0; k < n; ++k) {
      saved[k] = args[2 + k].toTensor();
    }
    return compute(
        grads, needs_from<n + 1>(args[0].toBoolList()), args[1].toTensor(), saved, unpack_from<Params>(args, 2 + n));
  }

  Params params;
  SavedVariable grad_output_;
  std::array<SavedVariable, n> saved_;
};

} // namespace detail

// The Autograd kernels. Each follows the generated code's order: build the node from the inputs,
// run the op below autograd, attach the node to the outputs, set the outputs' tangents, and only
// then save the output (saved earlier, it would keep itself alive through the node, or lose its tangent).
template <
    typename Op,
    typename I = std::make_index_sequence<kInputs<Op>>,
    typename P = Params<Op>,
    typename B = BackwardParams<Op>>
struct Autograd;
template <typename Op, size_t... I, typename... P, typename... B>
struct Autograd<Op, std::index_sequence<I...>, std::tuple<P...>, std::tuple<B...>> {
  static constexpr size_t n = sizeof...(I);
  using Tensors = detail::Tensors<n>;

  static at::Tensor forward(c10::DispatchKeySet keys, TensorRef<I>... inputs, Arg<P>... params) {
    // Parameters are read only where a gradient is wanted: reading a symbolic one (torch.compile)
    // would specialise the graph to its value.
    autograd::NodePtr<detail::Backward<Op>> grad_fn;
    bool from_result = false;
    if (torch::autograd::compute_requires_grad(inputs...)) {
      from_result = detail::saves_result<Op>(params...);
      grad_fn = autograd::make_node<detail::Backward<Op>>();
      grad_fn->set_next_edges(torch::autograd::collect_next_edges(inputs...));
      grad_fn->params = detail::backward_params<Op>(from_result, params...);
      grad_fn->saved_is_output = from_result;
      if (!from_result) {
        grad_fn->saved_ = {torch::autograd::SavedVariable(inputs, /*is_output=*/false)...};
      }
    }
    at::Tensor result;
    {
      at::AutoDispatchBelowADInplaceOrView below_autograd;
      result = Schema<Op>::forward().redispatch(keys & c10::after_autograd_keyset, inputs..., params...);
    }
    if (grad_fn) {
      torch::autograd::set_history(result, grad_fn);
    }
    const Tensors tangents{autograd::tangent(inputs)...};
    if ((tangents[I].defined() || ...)) {
      const Tensors primals{autograd::primal(inputs)...};
      const auto from_input = detail::backward_params<Op>(false, params...);
      result._set_fw_grad(detail::jvp<Op>(tangents, primals, from_input, result.sym_sizes()), 0, false);
    }
    if (grad_fn) {
      if (from_result) {
        grad_fn->saved_[0] = torch::autograd::SavedVariable(result, /*is_output=*/true);
      }
      autograd::node_created(grad_fn);
    }
    return result;
  }

  // As ATen's in-place ops: the version counter is bumped and the history rebased (views
  // included); the gradient comes from the output where it determines it, else from a copy of the
  // input taken before it is overwritten.
  static void inplace(c10::DispatchKeySet keys, const at::Tensor& self, Arg<P>... params) {
    const bool requires_grad = torch::autograd::compute_requires_grad(self);
    const at::Tensor self_t = autograd::tangent(self);
    torch::autograd::check_inplace(self, requires_grad);
    const bool differentiated = requires_grad || self_t.defined();
    if constexpr (requires { Op::check_inplace_autograd(params...); }) {
      if (differentiated) {
        Op::check_inplace_autograd(params...);
      }
    }
    const bool from_result = differentiated && detail::saves_result<Op>(params...);  // see forward
    const auto input = differentiated && !from_result ? self.clone() : at::Tensor();
    autograd::NodePtr<detail::Backward<Op>> grad_fn;
    if (requires_grad) {
      grad_fn = autograd::make_node<detail::Backward<Op>>();
      grad_fn->set_next_edges(torch::autograd::collect_next_edges(self));
      grad_fn->params = detail::backward_params<Op>(from_result, params...);
      grad_fn->saved_is_output = from_result;
    }
    {
      at::AutoDispatchBelowADInplaceOrView below_autograd;
      Schema<Op>::inplace().redispatch(keys & c10::after_autograd_keyset, self, params...);
    }
    // ATen's ADInplaceOrView kernel does this for its in-place ops; for custom ops that key falls through.
    torch::autograd::increment_version(self);
    const auto attached = grad_fn ? autograd::rebase_history(self, grad_fn) : nullptr;
    if (self_t.defined()) {  // the tangent is updated in place too
      const auto original_t = at::GradMode::is_enabled() ? self_t.clone() : self_t;
      const Tensors at_point{autograd::primal(from_result ? self : input)};
      const auto params_there = detail::backward_params<Op>(from_result, params...);
      self._set_fw_grad(self_t.copy_(detail::backward<Op>(original_t, at_point, params_there)[0]), 0, true);
    }
    if (grad_fn) {
      grad_fn->saved_[0] = from_result ? torch::autograd::SavedVariable(self, /*is_output=*/true, self.is_view())
                                       : torch::autograd::SavedVariable(input, /*is_output=*/false);
      autograd::node_created(attached);
    }
  }

  static Returns<n> backward(
      c10::DispatchKeySet keys, const at::Tensor& grad_output, TensorRef<I>... saved, Arg<B>... params) {
    autograd::NodePtr<detail::BackwardBackward<Op>> grad_fn;
    if (torch::autograd::compute_requires_grad(grad_output, saved...)) {
      grad_fn = autograd::make_node<detail::BackwardBackward<Op>>();
      grad_fn->set_next_edges(torch::autograd::collect_next_edges(grad_output, saved...));
      grad_fn->params = std::tuple<Arg<B>...>{params...};
      grad_fn->grad_output_ = torch::autograd::SavedVariable(grad_output, /*is_output=*/false);
      grad_fn->saved_ = {torch::autograd::SavedVariable(saved, /*is_output=*/false)...};
    }
    Returns<n> result;
    {
      at::AutoDispatchBelowADInplaceOrView below_autograd;
      result = Schema<Op>::backward().redispatch(keys & c10::after_autograd_keyset, grad_output, saved..., params...);
    }
    Tensors outputs;
    if constexpr (n == 1) {
      outputs[0] = result;
    } else {
      outputs = {std::get<I>(result)...};
    }
    if (grad_fn) {
      for (auto& output : outputs) {
        torch::autograd::set_history(output, grad_fn);  // output k gets the node's input k
      }
    }
    const auto grad_output_t = autograd::tangent(grad_output);
    const Tensors saved_t{autograd::tangent(saved)...};
    if (grad_output_t.defined() || (saved_t[I].defined() || ...)) {
      const BackwardParams<Op> s{params...};
      const Tensors saved_p{autograd::primal(saved)...};
      Tensors from_grad, from_saved;
      if (grad_output_t.defined()) {
        from_grad = detail::backward<Op>(grad_output_t, saved_p, s);
      }
      if ((saved_t[I].defined() || ...)) {
        const auto grad_output_p = autograd::primal(grad_output);
        Tensors h;
        for (size_t k = 0; k < n; ++k) {
          h[k] = saved_t[k].defined() ? grad_output_p * saved_t[k] : at::zeros_like(grad_output_p);
        }
        from_saved = detail::backward_wrt_saved<Op>(h, saved_p, s);
      }
      for (size_t k = 0; k < n; ++k) {
        outputs[k]._set_fw_grad(autograd::add_tangents(from_grad[k], from_saved[k]), /*level=*/0, false);
      }
    }
    if (grad_fn) {
      autograd::node_created(grad_fn);
    }
    return result;
  }

  static void register_in(torch::Library& m) {
    const auto& op = names<Op>();
    m.impl(op.forward.c_str(), &forward);
    if constexpr (kHasInplace<Op>) {
      m.impl(op.inplace.c_str(), &inplace);
    }
    m.impl(op.backward.c_str(), &backward);
    // The tensor_scalars overloads appear only below autograd, in compiled graphs: called with
    // inputs that require grad, they raise instead of dropping the gradient.
    if constexpr (kHasTensorScalar<P...>) {
      m.impl((op.forward + ".tensor_scalars").c_str(), torch::autograd::autogradNotImplementedFallback());
    }
    if constexpr (kHasTensorScalar<B...>) {
      m.impl((op.backward + ".tensor_scalars").c_str(), torch::autograd::autogradNotImplementedFallback());
    }
  }
};

} // namespace uaccel::pointwise
