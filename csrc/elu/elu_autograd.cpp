// Autograd of uaccel::elu, elu_ and elu_backward, registered once each at the Autograd key, so
// Python and C++ callers of the dispatcher get gradients alike: reverse mode to any order,
// forward mode (dual tensors, jvp, jacfwd) and every torch.func transform (see
// common/autograd_node.h for why these are Nodes and not torch::autograd::Function).
//
// The backward is itself an op with a node of its own, so double backward, forward-over-reverse
// (hessian = jacfwd(jacrev)) and torch.compile's traced backward see ordinary ops.
#include <ATen/ATen.h>
#include <ATen/core/Formatting.h>
#include <torch/library.h>

#include <array>

#include <uaccel/elu.h>

#include "common/autograd_node.h"
#include "elu/elu_handles.h"

namespace uaccel::elu_ops {
namespace {

using torch::autograd::SavedVariable;
using torch::autograd::variable_list;
using uaccel::autograd::add_tangents;
using uaccel::autograd::primal;
using uaccel::autograd::tangent;

struct Parameters {
  at::Scalar alpha;
  at::Scalar scale;
  at::Scalar input_scale;
};

// What compiled autograd keys a node's graph on, besides its saved tensors.
void collect(torch::autograd::CompiledNodeArgs& args, const Parameters& p) {
  args.collect(p.alpha);
  args.collect(p.scale);
  args.collect(p.input_scale);
}

// The output determines the gradient (so the backward saves y, needs no exp, and the input can be
// freed) when y <= 0 exactly where x <= 0 and y + alpha * scale is recoverable: alpha >= 0,
// scale > 0, input_scale >= 0. True for ELU with alpha >= 0, SELU, and CELU.
bool output_determines_gradient(const Parameters& p) {
  return p.alpha.to<double>() >= 0 && p.scale.to<double>() > 0 && p.input_scale.to<double>() >= 0;
}

at::Tensor backward(const at::Tensor& grad, const at::Tensor& saved, const Parameters& p, bool is_result) {
  return uaccel::elu_backward(grad, saved, p.alpha, is_result, p.scale, p.input_scale);
}

// d/d(saved) of elu_backward(g, saved) times `h` (h = g * the incoming gradient or tangent of saved).
// From the input x: on the negative side the derivative is g * input_scale^2 * alpha * scale *
// exp(input_scale * x) = input_scale * elu_backward(g, x); from the output y: g * input_scale. The
// positive side is g * scale, a constant: zero derivative. At saved == 0 exactly, the positive side,
// as ATen's elu_double_backward takes it (so hessian(elu)(0) is 0, as with F.elu).
at::Tensor backward_wrt_saved(const at::Tensor& h, const at::Tensor& saved, const Parameters& p, bool is_result) {
  const auto negative_side = is_result ? h * p.input_scale : backward(h, saved, p, false) * p.input_scale;
  return at::where(saved < 0, negative_side, at::zeros_like(negative_side));
}

// The gradient of elu and elu_: dx = elu_backward(dy, saved).
struct UaccelEluBackward : torch::autograd::TraceableFunction {
  variable_list apply(variable_list&& grads) override {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto saved = saved_.unpack(is_result ? uaccel::autograd::owner(*this) : nullptr);
    return compute(grads, {task_should_compute_output(0)}, saved, parameters, is_result);
  }
  static variable_list compute(
      const variable_list& grads,
      std::array<bool, 1> needs,
      const at::Tensor& saved,
      const Parameters& p,
      bool is_result) {
    variable_list grad_inputs(1);
    if (grads[0].defined() && needs[0]) {
      grad_inputs[0] = backward(grads[0], saved, p, is_result);
    }
    return grad_inputs;
  }
  std::string name() const override { return "UaccelEluBackward"; }
  void release_variables() override {
    std::lock_guard<std::mutex> lock(mutex_);
    saved_.reset_data();
  }
  void compiled_args(torch::autograd::CompiledNodeArgs& args) const override {
    args.collect(saved_, is_result);
    collect(args, parameters);
    args.collect(is_result);
  }
  // The packed arguments have one schema per node type for the process: scalars always as double.
  variable_list apply_with_saved(const variable_list& grads, torch::autograd::SwapSavedVariables& swap) override {
    swap.before(saved_);
    const std::vector<c10::IValue> args{uaccel::autograd::needs_input_grad(*this),
                                        saved_.unpack(),
                                        parameters.alpha.toDouble(),
                                        parameters.scale.toDouble(),
                                        parameters.input_scale.toDouble(),
                                        is_result};
    auto result = uaccel::autograd::call_compiled(*this, swap, name(), &compute_packed, grads, args);
    swap.after(saved_);
    return result;
  }
  static variable_list compute_packed(const variable_list& grads, const std::vector<c10::IValue>& args) {
    return compute(
        grads, {args[0].toBoolList().get(0)}, args[1].toTensor(),
        {args[2].toDouble(), args[3].toDouble(), args[4].toDouble()}, args[5].toBool());
  }

  Parameters parameters;
  bool is_result = false;
  SavedVariable saved_;  // y when is_result, else x
};

// The gradient of elu_backward, with respect to grad_output and to saved.
struct UaccelEluBackwardBackward : torch::autograd::TraceableFunction {
  variable_list apply(variable_list&& grads) override {
    std::lock_guard<std::mutex> lock(mutex_);
    return compute(
        grads, {task_should_compute_output(0), task_should_compute_output(1)}, grad_output_.unpack(), saved_.unpack(),
        parameters, is_result);
  }
  static variable_list compute(
      const variable_list& grads,
      std::array<bool, 2> needs,
      const at::Tensor& grad_output,
      const at::Tensor& saved,
      const Parameters& p,
      bool is_result) {
    variable_list grad_inputs(2);
    const auto& grad = grads[0];
    if (!grad.defined()) {
      return grad_inputs;
    }
    if (needs[0]) {
      grad_inputs[0] = backward(grad, saved, p, is_result);
    }
    if (needs[1]) {
      grad_inputs[1] = backward_wrt_saved(grad * grad_output, saved, p, is_result);
    }
    return grad_inputs;
  }
  std::string name() const override { return "UaccelEluBackwardBackward"; }
  void release_variables() override {
    std::lock_guard<std::mutex> lock(mutex_);
    grad_output_.reset_data();
    saved_.reset_data();
  }
  void compiled_args(torch::autograd::CompiledNodeArgs& args) const override {
    args.collect(grad_output_, false);
    args.collect(saved_, false);
    collect(args, parameters);
    args.collect(is_result);
  }
  variable_list apply_with_saved(const variable_list& grads, torch::autograd::SwapSavedVariables& swap) override {
    swap.before(grad_output_);
    swap.before(saved_);
    const std::vector<c10::IValue> args{
        uaccel::autograd::needs_input_grad(*this),
        grad_output_.unpack(),
        saved_.unpack(),
        parameters.alpha.toDouble(),
        parameters.scale.toDouble(),
        parameters.input_scale.toDouble(),
        is_result};
    auto result = uaccel::autograd::call_compiled(*this, swap, name(), &compute_packed, grads, args);
    swap.after(grad_output_);
    swap.after(saved_);
    return result;
  }
  static variable_list compute_packed(const variable_list& grads, const std::vector<c10::IValue>& args) {
    const auto needs = args[0].toBoolList();
    return compute(
        grads, {needs.get(0), needs.get(1)}, args[1].toTensor(), args[2].toTensor(),
        {args[3].toDouble(), args[4].toDouble(), args[5].toDouble()}, args[6].toBool());
  }

  Parameters parameters;
  bool is_result = false;
  SavedVariable grad_output_;
  SavedVariable saved_;
};

// Each kernel below follows the generated code's order: build the node from the inputs, run the
// op below autograd, attach the node to the output, set the output's tangent, and only then save
// the output (saved earlier, it would keep itself alive through the node, or lose its tangent).

at::Tensor elu_autograd(
    c10::DispatchKeySet keys,
    const at::Tensor& self,
    const at::Scalar& alpha,
    const at::Scalar& scale,
    const at::Scalar& input_scale) {
  const Parameters p{alpha, scale, input_scale};
  uaccel::autograd::NodePtr<UaccelEluBackward> grad_fn;
  if (torch::autograd::compute_requires_grad(self)) {
    grad_fn = uaccel::autograd::make_node<UaccelEluBackward>();
    grad_fn->set_next_edges(torch::autograd::collect_next_edges(self));
    grad_fn->parameters = p;
    grad_fn->is_result = output_determines_gradient(p);
    if (!grad_fn->is_result) {
      grad_fn->saved_ = SavedVariable(self, /*is_output=*/false);
    }
  }
  at::Tensor result;
  {
    at::AutoDispatchBelowADInplaceOrView below_autograd;
    result = elu_handle().redispatch(keys & c10::after_autograd_keyset, self, alpha, scale, input_scale);
  }
  if (grad_fn) {
    torch::autograd::set_history(result, grad_fn);
  }
  if (const auto self_t = tangent(self); self_t.defined()) {
    result._set_fw_grad(backward(self_t, primal(self), p, /*is_result=*/false), /*level=*/0, /*is_inplace_op=*/false);
  }
  if (grad_fn) {
    if (grad_fn->is_result) {
      grad_fn->saved_ = SavedVariable(result, /*is_output=*/true);
    }
    uaccel::autograd::node_created(grad_fn);
  }
  return result;
}

// As ATen's elu_: the gradient comes from the output (the input is overwritten), so it needs
// alpha >= 0; the version counter is bumped, and the history rebased (views included).
void elu_inplace_autograd(
    c10::DispatchKeySet keys,
    const at::Tensor& self,
    const at::Scalar& alpha,
    const at::Scalar& scale,
    const at::Scalar& input_scale) {
  const Parameters p{alpha, scale, input_scale};
  const bool requires_grad = torch::autograd::compute_requires_grad(self);
  const at::Tensor self_t = tangent(self);
  torch::autograd::check_inplace(self, requires_grad);
  TORCH_CHECK(
      !(requires_grad || self_t.defined()) || output_determines_gradient(p),
      "uaccel.elu_: in place with autograd the gradient comes from the output, which needs alpha >= 0, scale > 0 "
      "and input_scale >= 0; got alpha=",
      alpha, ", scale=", scale, ", input_scale=", input_scale, ". Use the out-of-place elu instead");
  uaccel::autograd::NodePtr<UaccelEluBackward> grad_fn;
  if (requires_grad) {
    grad_fn = uaccel::autograd::make_node<UaccelEluBackward>();
    grad_fn->set_next_edges(torch::autograd::collect_next_edges(self));
    grad_fn->parameters = p;
    grad_fn->is_result = true;
  }
  {
    at::AutoDispatchBelowADInplaceOrView below_autograd;
    elu_inplace_handle().redispatch(keys & c10::after_autograd_keyset, self, alpha, scale, input_scale);
  }
  // ATen's ADInplaceOrView kernel does this for its in-place ops; for custom ops that key falls through.
  torch::autograd::increment_version(self);
  const auto attached = grad_fn ? uaccel::autograd::rebase_history(self, grad_fn) : nullptr;
  if (self_t.defined()) {
    // The tangent is updated in place too, from the new primal (the output).
    const auto original_t = at::GradMode::is_enabled() ? self_t.clone() : self_t;
    self._set_fw_grad(
        self_t.copy_(backward(original_t, primal(self), p, /*is_result=*/true)), 0, /*is_inplace_op=*/true);
  }
  if (grad_fn) {
    grad_fn->saved_ = SavedVariable(self, /*is_output=*/true, self.is_view());
    uaccel::autograd::node_created(attached);
  }
}

at::Tensor elu_backward_autograd(
    c10::DispatchKeySet keys,
    const at::Tensor& grad_output,
    const at::Tensor& saved,
    const at::Scalar& alpha,
    bool is_result,
    const at::Scalar& scale,
    const at::Scalar& input_scale) {
  const Parameters p{alpha, scale, input_scale};
  uaccel::autograd::NodePtr<UaccelEluBackwardBackward> grad_fn;
  if (torch::autograd::compute_requires_grad(grad_output, saved)) {
    grad_fn = uaccel::autograd::make_node<UaccelEluBackwardBackward>();
    grad_fn->set_next_edges(torch::autograd::collect_next_edges(grad_output, saved));
    grad_fn->parameters = p;
    grad_fn->is_result = is_result;
    grad_fn->grad_output_ = SavedVariable(grad_output, /*is_output=*/false);
    grad_fn->saved_ = SavedVariable(saved, /*is_output=*/false);
  }
  at::Tensor result;
  {
    at::AutoDispatchBelowADInplaceOrView below_autograd;
    result = elu_backward_handle().redispatch(
        keys & c10::after_autograd_keyset, grad_output, saved, alpha, is_result, scale, input_scale);
  }
  if (grad_fn) {
    torch::autograd::set_history(result, grad_fn);
  }
  const auto grad_output_t = tangent(grad_output);
  const auto saved_t = tangent(saved);
  if (grad_output_t.defined() || saved_t.defined()) {
    const auto saved_p = primal(saved);
    const auto from_grad = grad_output_t.defined() ? backward(grad_output_t, saved_p, p, is_result) : at::Tensor();
    const auto from_saved =
        saved_t.defined() ? backward_wrt_saved(primal(grad_output) * saved_t, saved_p, p, is_result) : at::Tensor();
    result._set_fw_grad(add_tangents(from_grad, from_saved), /*level=*/0, /*is_inplace_op=*/false);
  }
  if (grad_fn) {
    uaccel::autograd::node_created(grad_fn);
  }
  return result;
}

} // namespace

TORCH_LIBRARY_IMPL(uaccel, Autograd, m) {
  m.impl("elu", &elu_autograd);
  m.impl("elu_", &elu_inplace_autograd);
  m.impl("elu_backward", &elu_backward_autograd);
}

} // namespace uaccel::elu_ops
