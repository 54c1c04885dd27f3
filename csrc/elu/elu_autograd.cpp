// Autograd of uaccel::elu and uaccel::elu_backward, registered once each at the Autograd key,
// so Python and C++ callers of the dispatcher get gradients alike. The backward is itself an op
// with autograd, so double backward (and torch.compile's traced backward) see ordinary ops.
#include <ATen/ATen.h>
#include <torch/autograd.h>
#include <torch/csrc/autograd/functions/utils.h>
#include <torch/library.h>

#include <uaccel/elu.h>

namespace uaccel::elu_ops {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::tensor_list;

class EluFunction : public torch::autograd::Function<EluFunction> {
 public:
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& self, double alpha) {
    at::Tensor result;
    {
      at::AutoDispatchBelowADInplaceOrView below_autograd;
      result = uaccel::elu(self, alpha);
    }
    // With alpha >= 0 the output determines the gradient (no exp, and the input can be freed;
    // the next layer usually saves the output anyway). With alpha < 0 it does not: save x.
    const bool from_result = alpha >= 0;
    ctx->save_for_backward({from_result ? result : self});
    ctx->saved_data["alpha"] = alpha;
    ctx->saved_data["is_result"] = from_result;
    return result;
  }

  static tensor_list backward(AutogradContext* ctx, tensor_list grad_outputs) {
    const auto saved = ctx->get_saved_variables()[0];
    const double alpha = ctx->saved_data["alpha"].toDouble();
    const bool is_result = ctx->saved_data["is_result"].toBool();
    return {uaccel::elu_backward(grad_outputs[0], saved, alpha, is_result), at::Tensor()};
  }
};

// dx = g * f'(s). Its derivatives: d/dg = f'(s), i.e. elu_backward again; d/ds = g * f''(s) on the
// negative side and 0 on the positive side, where f'' = alpha*exp(x) w.r.t. x, or 1 w.r.t. y
// (the chain rule through y = elu(x) supplies the rest).
class EluBackwardFunction : public torch::autograd::Function<EluBackwardFunction> {
 public:
  static at::Tensor forward(
      AutogradContext* ctx,
      const at::Tensor& grad_output,
      const at::Tensor& saved,
      double alpha,
      bool is_result) {
    at::Tensor grad_input;
    {
      at::AutoDispatchBelowADInplaceOrView below_autograd;
      grad_input = uaccel::elu_backward(grad_output, saved, alpha, is_result);
    }
    ctx->save_for_backward({grad_output, saved});
    ctx->saved_data["alpha"] = alpha;
    ctx->saved_data["is_result"] = is_result;
    return grad_input;
  }

  static tensor_list backward(AutogradContext* ctx, tensor_list grad_outputs) {
    const auto saved_vars = ctx->get_saved_variables();
    const auto& grad_output = saved_vars[0];
    const auto& saved = saved_vars[1];
    const double alpha = ctx->saved_data["alpha"].toDouble();
    const bool is_result = ctx->saved_data["is_result"].toBool();
    const auto& grad = grad_outputs[0];

    at::Tensor d_grad_output;
    at::Tensor d_saved;
    if (ctx->needs_input_grad(0)) {
      d_grad_output = uaccel::elu_backward(grad, saved, alpha, is_result);
    }
    if (ctx->needs_input_grad(1)) {
      const auto negative_side = (saved <= 0).to(grad.scalar_type());
      d_saved = is_result ? grad * grad_output * negative_side
                          : uaccel::elu_backward(grad * grad_output, saved, alpha, false) * negative_side;
    }
    return {d_grad_output, d_saved, at::Tensor(), at::Tensor()};
  }
};

// Without a gradient to record (inference, or no input requiring grad), skip building an autograd
// node: Function::apply allocates one on every call, a quarter of a microsecond.
at::Tensor elu_autograd(const at::Tensor& self, double alpha) {
  if (!torch::autograd::compute_requires_grad(self)) {
    at::AutoDispatchBelowADInplaceOrView below_autograd;
    return uaccel::elu(self, alpha);
  }
  return EluFunction::apply(self, alpha);
}

at::Tensor elu_backward_autograd(const at::Tensor& grad_output, const at::Tensor& saved, double alpha, bool is_result) {
  if (!torch::autograd::compute_requires_grad(grad_output, saved)) {
    at::AutoDispatchBelowADInplaceOrView below_autograd;
    return uaccel::elu_backward(grad_output, saved, alpha, is_result);
  }
  return EluBackwardFunction::apply(grad_output, saved, alpha, is_result);
}

} // namespace

TORCH_LIBRARY_IMPL(uaccel, Autograd, m) {
  m.impl("elu", &elu_autograd);
  m.impl("elu_backward", &elu_backward_autograd);
}

} // namespace uaccel::elu_ops
