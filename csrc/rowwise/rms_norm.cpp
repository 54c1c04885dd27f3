// RMSNorm (the schemas: csrc/uaccel.cpp): y = x / sqrt(mean(x^2) + eps) * weight over the trailing
// normalized_shape dimensions, as F.rms_norm, and add_rms_norm, the same of x + residual with the sum; the CPU kernels
// (rms_norm_isa.cpp) and CUDA kernels (rms_norm_cuda.cu) fused, the statistics in double, one float of 1 / rms a row
// kept for the backward. Autograd at the Autograd key: reverse mode through rms_norm_backward, whose own gradient
// (double backward and beyond) and every forward-mode tangent come from the same math in ATen's differentiable ops
// (`composite` below), which also serves CUDA tensors in a build without CUDA kernels.
#include <ATen/ATen.h>
#include <c10/util/irange.h>
#include <torch/csrc/autograd/VariableTypeUtils.h>
#include <torch/library.h>

#include <cfloat>
#include <mutex>
#include <numeric>
#include <optional>
#include <tuple>
#include <vector>

#include <uaccel/detail/autograd_node.h>
#include <uaccel/detail/checks.h>

#include "rms_norm.h"

namespace uaccel::rowwise {

cpu::CpuDispatch<RmsNormForwardKernel> rms_norm_forward_dispatch;
cpu::CpuDispatch<RmsNormBackwardKernel> rms_norm_backward_dispatch;

namespace {

using torch::autograd::variable_list;

// float for the half types and float; double for double.
c10::ScalarType math_type(const at::Tensor& t) {
  return t.scalar_type() == at::kDouble ? at::kDouble : at::kFloat;
}

double resolved_eps(const at::Tensor& input, std::optional<double> eps) {
  return eps.value_or(input.scalar_type() == at::kDouble ? DBL_EPSILON : FLT_EPSILON);
}

void check(const char* op, const at::Tensor& input, at::IntArrayRef shape, const std::optional<at::Tensor>& weight) {
  checks::floating(op, "input", input);
  checks::trailing_shape(op, "input", input, shape);
  if (weight.has_value()) {
    checks::floating(op, "weight", *weight);
    checks::normalized_shape(op, "weight", *weight, shape);
    checks::same_device(op, "input", input, "weight", *weight);
  }
}

// Where the weight is multiplied in the kernel: always, but for cast_before_weight with a weight of
// another dtype (Llama's convention then promotes: the product is the weight's type, after the kernel).
bool weight_in_kernel(const at::Tensor& input, const std::optional<at::Tensor>& weight, bool cast) {
  return weight.has_value() && (!cast || weight->scalar_type() == input.scalar_type());
}

// The weight as the kernels read it: in the math type, contiguous, weight_offset added.
at::Tensor kernel_weight(const at::Tensor& input, const std::optional<at::Tensor>& weight, double offset, bool cast) {
  if (!weight_in_kernel(input, weight, cast)) {
    return {};
  }
  const auto w = weight->to(math_type(input)).contiguous();
  return offset == 0 ? w : w + offset;
}

at::Tensor offset_weight(const at::Tensor& weight, double offset) {
  return offset == 0 ? weight : weight + offset;
}

std::vector<int64_t> outer_sizes(const at::Tensor& input, at::IntArrayRef shape) {
  const auto sizes = input.sizes();
  return sizes.slice(0, sizes.size() - shape.size()).vec();
}

// The same math in ATen's ops: differentiable to any order in both modes, on any device.
namespace composite {

std::vector<int64_t> normalized_dims(const at::Tensor& input, at::IntArrayRef shape) {
  std::vector<int64_t> dims;
  for (const auto d : c10::irange(input.dim() - static_cast<int64_t>(shape.size()), input.dim())) {
    dims.push_back(d);
  }
  return dims;
}

std::tuple<at::Tensor, at::Tensor> forward(
    const at::Tensor& input,
    at::IntArrayRef shape,
    const std::optional<at::Tensor>& weight,
    double eps,
    double offset,
    bool cast) {
  const auto x = input.to(math_type(input));
  const auto rstd = at::rsqrt(x.pow(2).mean(normalized_dims(input, shape), /*keepdim=*/true) + eps);
  auto y = x * rstd;
  at::Tensor out;
  if (!weight.has_value()) {
    out = y.to(input.scalar_type());
  } else if (cast) {
    out = y.to(input.scalar_type()) * offset_weight(*weight, offset);
  } else {
    out = (y * offset_weight(weight->to(math_type(input)), offset)).to(input.scalar_type());
  }
  return {out, rstd.reshape(outer_sizes(input, shape))};
}

std::tuple<at::Tensor, at::Tensor> backward(
    const at::Tensor& grad_out,
    const at::Tensor& input,
    at::IntArrayRef shape,
    const std::optional<at::Tensor>& weight,
    double eps,
    double offset,
    bool cast,
    std::array<bool, 2> mask) {
  const auto dims = normalized_dims(input, shape);
  const auto x = input.to(math_type(input));
  const auto rstd = at::rsqrt(x.pow(2).mean(dims, /*keepdim=*/true) + eps);
  const auto xhat = x * rstd;
  const auto g = grad_out.to(math_type(input));
  const auto gw = weight.has_value() ? g * offset_weight(weight->to(math_type(input)), offset) : g;
  at::Tensor grad_input, grad_weight;
  if (mask[0]) {
    grad_input = (rstd * (gw - xhat * (xhat * gw).mean(dims, /*keepdim=*/true))).to(input.scalar_type());
  }
  if (mask[1] && weight.has_value()) {
    const auto product = g * (cast ? xhat.to(input.scalar_type()).to(math_type(input)) : xhat);
    const auto outer = input.dim() - static_cast<int64_t>(shape.size());
    std::vector<int64_t> outer_dims(static_cast<size_t>(outer));
    std::iota(outer_dims.begin(), outer_dims.end(), 0);
    grad_weight = (outer == 0 ? product : product.sum(outer_dims)).to(weight->scalar_type());
  }
  return {grad_input, grad_weight};
}

} // namespace composite

// -- The fused kernels (CPU; CUDA where built) ------------------------------------------------------------

// The kernels of a tensor's device.
RmsNormForwardKernel forward_kernel(const at::Tensor& x) {
#ifdef UACCEL_WITH_CUDA
  if (x.is_cuda()) {
    return rms_norm_forward_cuda;
  }
#endif
  return rms_norm_forward_dispatch.kernel();
}

RmsNormBackwardKernel backward_kernel(const at::Tensor& x) {
#ifdef UACCEL_WITH_CUDA
  if (x.is_cuda()) {
    return rms_norm_backward_cuda;
  }
#endif
  return rms_norm_backward_dispatch.kernel();
}

void check_residual(const char* op, const at::Tensor& input, const at::Tensor& residual) {
  checks::same_shape(op, "input", input, "residual", residual);
  checks::same_dtype(op, "input", input, "residual", residual);
  checks::same_device(op, "input", input, "residual", residual);
}

// out and rstd of rms_norm(input), or of rms_norm(input + residual) with the sum too (where residual is
// defined; else the sum is undefined).
std::tuple<at::Tensor, at::Tensor, at::Tensor> forward_rows(
    const at::Tensor& input,
    const at::Tensor& residual,
    at::IntArrayRef shape,
    const std::optional<at::Tensor>& weight,
    std::optional<double> eps,
    double offset,
    bool cast) {
  const auto x = input.contiguous();
  const int64_t n = c10::multiply_integers(shape);
  const int64_t rows = c10::multiply_integers(outer_sizes(input, shape));
  const auto contiguous = input.options().memory_format(at::MemoryFormat::Contiguous);
  auto out = at::empty(input.sizes(), contiguous);
  auto sum = residual.defined() ? at::empty(input.sizes(), contiguous) : at::Tensor();
  auto rstd = at::empty(outer_sizes(input, shape), input.options().dtype(math_type(input)));
  if (rows > 0) {
    auto rows_of_out = out.view({rows, n});
    auto rows_of_sum = sum.defined() ? sum.view({rows, n}) : at::Tensor();
    auto rstd_rows = rstd.view({rows});
    forward_kernel(x)(
        x.view({rows, n}), residual.defined() ? residual.contiguous().view({rows, n}) : at::Tensor(),
        kernel_weight(input, weight, offset, cast), resolved_eps(input, eps), cast, rows_of_out, rows_of_sum,
        rstd_rows);
  }
  if (weight.has_value() && !weight_in_kernel(input, weight, cast)) {
    out = out * offset_weight(*weight, offset);
  }
  return {out, sum, rstd};
}

std::tuple<at::Tensor, at::Tensor> forward_fused(
    const at::Tensor& input,
    at::IntArrayRef shape,
    const std::optional<at::Tensor>& weight,
    std::optional<double> eps,
    double offset,
    bool cast) {
  check("uaccel.rms_norm", input, shape, weight);
  auto [out, sum, rstd] = forward_rows(input, at::Tensor(), shape, weight, eps, offset, cast);
  return {out, rstd};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> add_forward_fused(
    const at::Tensor& input,
    const at::Tensor& residual,
    at::IntArrayRef shape,
    const std::optional<at::Tensor>& weight,
    std::optional<double> eps,
    double offset,
    bool cast) {
  check("uaccel.add_rms_norm", input, shape, weight);
  check_residual("uaccel.add_rms_norm", input, residual);
  return forward_rows(input, residual, shape, weight, eps, offset, cast);
}

std::tuple<at::Tensor, at::Tensor> backward_fused(
    const at::Tensor& grad_out,
    const at::Tensor& input,
    const at::Tensor& rstd,
    at::IntArrayRef shape,
    const std::optional<at::Tensor>& weight,
    double eps,
    double offset,
    bool cast,
    std::array<bool, 2> mask) {
  check("uaccel.rms_norm_backward", input, shape, weight);
  TORCH_CHECK(
      grad_out.sizes().equals(input.sizes()), "uaccel.rms_norm_backward: expected grad_output of input's shape ",
      input.sizes(), ", but got ", grad_out.sizes());
  if (weight.has_value() && !weight_in_kernel(input, weight, cast)) { // a promoted product: as ATen's ops
    return composite::backward(grad_out, input, shape, weight, eps, offset, cast, mask);
  }
  const int64_t n = c10::multiply_integers(shape);
  const int64_t rows = c10::multiply_integers(outer_sizes(input, shape));
  const auto x = input.contiguous();
  const auto g = grad_out.to(input.scalar_type()).contiguous();
  at::Tensor grad_input = mask[0] ? at::empty_like(x) : at::Tensor();
  at::Tensor grad_weight_math =
      mask[1] && weight.has_value() ? at::zeros({n}, input.options().dtype(math_type(input))) : at::Tensor();
  if (rows > 0 && (grad_input.defined() || grad_weight_math.defined())) {
    auto dx_rows = grad_input.defined() ? grad_input.view({rows, n}) : at::Tensor();
    backward_kernel(x)(
        g.view({rows, n}), x.view({rows, n}), rstd.contiguous().view({rows}),
        kernel_weight(input, weight, offset, cast), cast, dx_rows, grad_weight_math);
  }
  at::Tensor grad_weight;
  if (grad_weight_math.defined()) {
    grad_weight = grad_weight_math.view(shape).to(weight->scalar_type());
  }
  return {grad_input, grad_weight};
}

// -- CUDA tensors in a build without CUDA kernels: the composite, below autograd -------------------------
#ifndef UACCEL_WITH_CUDA

std::tuple<at::Tensor, at::Tensor> forward_composite(
    const at::Tensor& input,
    at::IntArrayRef shape,
    const std::optional<at::Tensor>& weight,
    std::optional<double> eps,
    double offset,
    bool cast) {
  check("uaccel.rms_norm", input, shape, weight);
  return composite::forward(input, shape, weight, resolved_eps(input, eps), offset, cast);
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> add_forward_composite(
    const at::Tensor& input,
    const at::Tensor& residual,
    at::IntArrayRef shape,
    const std::optional<at::Tensor>& weight,
    std::optional<double> eps,
    double offset,
    bool cast) {
  check("uaccel.add_rms_norm", input, shape, weight);
  check_residual("uaccel.add_rms_norm", input, residual);
  const auto sum = input + residual;
  auto [out, rstd] = composite::forward(sum, shape, weight, resolved_eps(input, eps), offset, cast);
  return {out, sum, rstd};
}

std::tuple<at::Tensor, at::Tensor> backward_composite(
    const at::Tensor& grad_out,
    const at::Tensor& input,
    const at::Tensor&,
    at::IntArrayRef shape,
    const std::optional<at::Tensor>& weight,
    double eps,
    double offset,
    bool cast,
    std::array<bool, 2> mask) {
  check("uaccel.rms_norm_backward", input, shape, weight);
  return composite::backward(grad_out, input, shape, weight, eps, offset, cast, mask);
}
#endif

// The ops users call, from their _forward twins (which also return what the backward reads).
template <auto forward>
at::Tensor out_only(
    const at::Tensor& input,
    at::IntArrayRef shape,
    const std::optional<at::Tensor>& weight,
    std::optional<double> eps,
    double offset,
    bool cast) {
  return std::get<0>(forward(input, shape, weight, eps, offset, cast));
}

template <auto forward>
std::tuple<at::Tensor, at::Tensor> out_and_sum(
    const at::Tensor& input,
    const at::Tensor& residual,
    at::IntArrayRef shape,
    const std::optional<at::Tensor>& weight,
    std::optional<double> eps,
    double offset,
    bool cast) {
  auto [out, sum, rstd] = forward(input, residual, shape, weight, eps, offset, cast);
  return {out, sum};
}

// -- Autograd ----------------------------------------------------------------------------------------

const auto& forward_op() {
  static const auto op = c10::Dispatcher::singleton()
                             .findSchemaOrThrow("uaccel::_rms_norm_forward", "")
                             .typed<std::tuple<at::Tensor, at::Tensor>(
                                 const at::Tensor&, at::IntArrayRef, const std::optional<at::Tensor>&,
                                 std::optional<double>, double, bool)>();
  return op;
}

const auto& rms_norm_op() {
  static const auto op = c10::Dispatcher::singleton()
                             .findSchemaOrThrow("uaccel::rms_norm", "")
                             .typed<at::Tensor(
                                 const at::Tensor&, at::IntArrayRef, const std::optional<at::Tensor>&,
                                 std::optional<double>, double, bool)>();
  return op;
}

using AddSignature = std::tuple<at::Tensor, at::Tensor>(
    const at::Tensor&,
    const at::Tensor&,
    at::IntArrayRef,
    const std::optional<at::Tensor>&,
    std::optional<double>,
    double,
    bool);
using AddForwardSignature = std::tuple<at::Tensor, at::Tensor, at::Tensor>(
    const at::Tensor&,
    const at::Tensor&,
    at::IntArrayRef,
    const std::optional<at::Tensor>&,
    std::optional<double>,
    double,
    bool);

const auto& add_op() {
  static const auto op =
      c10::Dispatcher::singleton().findSchemaOrThrow("uaccel::add_rms_norm", "").typed<AddSignature>();
  return op;
}

const auto& add_forward_op() {
  static const auto op =
      c10::Dispatcher::singleton().findSchemaOrThrow("uaccel::_add_rms_norm_forward", "").typed<AddForwardSignature>();
  return op;
}

const auto& backward_op() {
  static const auto op = c10::Dispatcher::singleton()
                             .findSchemaOrThrow("uaccel::rms_norm_backward", "")
                             .typed<std::tuple<at::Tensor, at::Tensor>(
                                 const at::Tensor&, const at::Tensor&, const at::Tensor&, at::IntArrayRef,
                                 const std::optional<at::Tensor>&, double, double, bool, std::array<bool, 2>)>();
  return op;
}

bool has_tangent(const at::Tensor& t) {
  return autograd::tangent(t).defined();
}

// What both norms' nodes keep: the tensor normalised (the input, or add_rms_norm's sum, an output), the
// weight, 1 / rms a row and the parameters; and rms_norm_backward at them, called through the dispatcher
// so that it is differentiable in its turn.
struct NormBackward : torch::autograd::TraceableFunction {
  void save(
      const at::Tensor& normalised,
      bool is_output,
      const std::optional<at::Tensor>& weight,
      const at::Tensor& rstd,
      at::IntArrayRef shape_,
      double eps_,
      double offset_,
      bool cast_) {
    normalised_ = torch::autograd::SavedVariable(normalised, is_output);
    normalised_is_output = is_output;
    has_weight = weight.has_value();
    if (has_weight) {
      weight_ = torch::autograd::SavedVariable(*weight, /*is_output=*/false);
    }
    rstd_ = torch::autograd::SavedVariable(rstd, /*is_output=*/false);
    shape = shape_.vec();
    eps = eps_;
    offset = offset_;
    cast = cast_;
  }
  // (grad at the normalised tensor, grad_weight), each where `needs` asks for it.
  std::tuple<at::Tensor, at::Tensor> backward(const at::Tensor& grad, std::array<bool, 2> needs) {
    const auto weight = has_weight ? std::optional<at::Tensor>(weight_.unpack()) : std::nullopt;
    const auto normalised = normalised_.unpack(normalised_is_output ? autograd::owner(*this) : nullptr);
    return backward_op().call(grad, normalised, rstd_.unpack(), shape, weight, eps, offset, cast, needs);
  }
  void release_variables() override {
    std::lock_guard<std::mutex> lock(mutex_);
    normalised_.reset_data();
    weight_.reset_data();
    rstd_.reset_data();
  }

  torch::autograd::SavedVariable normalised_, weight_, rstd_;
  bool normalised_is_output = false, has_weight = false;
  std::vector<int64_t> shape;
  double eps = 0, offset = 0;
  bool cast = false;
};

// The gradient of rms_norm: (input, weight).
struct RmsNormBackward : NormBackward {
  variable_list apply(variable_list&& grads) override {
    std::lock_guard<std::mutex> lock(mutex_);
    const std::array<bool, 2> needs{task_should_compute_output(0), has_weight && task_should_compute_output(1)};
    if (!grads[0].defined() || (!needs[0] && !needs[1])) {
      return {at::Tensor(), at::Tensor()};
    }
    auto [grad_input, grad_weight] = backward(grads[0], needs);
    return {needs[0] ? grad_input : at::Tensor(), needs[1] ? grad_weight : at::Tensor()};
  }
  std::string name() const override { return "RmsNormBackward"; }
};

at::Tensor rms_norm_autograd(
    c10::DispatchKeySet keys,
    const at::Tensor& input,
    at::IntArrayRef shape,
    const std::optional<at::Tensor>& weight,
    std::optional<double> eps,
    double offset,
    bool cast) {
  const at::Tensor weight_or_none = weight.value_or(at::Tensor());
  if (has_tangent(input) || has_tangent(weight_or_none)) { // forward mode: ATen's ops carry the tangents
    check("uaccel.rms_norm", input, shape, weight);
    return std::get<0>(composite::forward(input, shape, weight, resolved_eps(input, eps), offset, cast));
  }
  const auto below = keys & c10::after_autograd_keyset;
  if (!torch::autograd::compute_requires_grad(input, weight_or_none)) {
    at::AutoDispatchBelowADInplaceOrView guard;
    return rms_norm_op().redispatch(below, input, shape, weight, eps, offset, cast);
  }
  auto grad_fn = autograd::make_node<RmsNormBackward>();
  grad_fn->set_next_edges(torch::autograd::collect_next_edges(input, weight_or_none));
  at::Tensor out, rstd;
  {
    at::AutoDispatchBelowADInplaceOrView guard;
    std::tie(out, rstd) = forward_op().redispatch(below, input, shape, weight, eps, offset, cast);
  }
  torch::autograd::set_history(out, grad_fn);
  grad_fn->save(input, /*is_output=*/false, weight, rstd, shape, resolved_eps(input, eps), offset, cast);
  autograd::node_created(grad_fn);
  return out;
}

// The gradient of add_rms_norm: rms_norm's at the sum (saved: an output), plus residual_out's own, to
// both input and residual.
struct AddRmsNormBackward : NormBackward {
  variable_list apply(variable_list&& grads) override {
    std::lock_guard<std::mutex> lock(mutex_);
    const bool to_sum = task_should_compute_output(0) || task_should_compute_output(1);
    const std::array<bool, 2> needs{to_sum, has_weight && task_should_compute_output(2)};
    at::Tensor grad_sum = grads[1], grad_weight;
    if (grads[0].defined() && (needs[0] || needs[1])) {
      at::Tensor grad_normalised;
      std::tie(grad_normalised, grad_weight) = backward(grads[0], needs);
      grad_sum = needs[0] ? autograd::add_tangents(grad_normalised, grads[1]) : grad_sum;
    }
    return {
        task_should_compute_output(0) ? grad_sum : at::Tensor(),
        task_should_compute_output(1) ? grad_sum : at::Tensor(), needs[1] ? grad_weight : at::Tensor()};
  }
  std::string name() const override { return "AddRmsNormBackward"; }
};

std::tuple<at::Tensor, at::Tensor> add_rms_norm_autograd(
    c10::DispatchKeySet keys,
    const at::Tensor& input,
    const at::Tensor& residual,
    at::IntArrayRef shape,
    const std::optional<at::Tensor>& weight,
    std::optional<double> eps,
    double offset,
    bool cast) {
  const at::Tensor weight_or_none = weight.value_or(at::Tensor());
  if (has_tangent(input) || has_tangent(residual) || has_tangent(weight_or_none)) {
    check("uaccel.add_rms_norm", input, shape, weight);
    check_residual("uaccel.add_rms_norm", input, residual);
    const auto sum = input + residual;
    return {std::get<0>(composite::forward(sum, shape, weight, resolved_eps(input, eps), offset, cast)), sum};
  }
  const auto below = keys & c10::after_autograd_keyset;
  if (!torch::autograd::compute_requires_grad(input, residual, weight_or_none)) {
    at::AutoDispatchBelowADInplaceOrView guard;
    return add_op().redispatch(below, input, residual, shape, weight, eps, offset, cast);
  }
  auto grad_fn = autograd::make_node<AddRmsNormBackward>();
  grad_fn->set_next_edges(torch::autograd::collect_next_edges(input, residual, weight_or_none));
  at::Tensor out, sum, rstd;
  {
    at::AutoDispatchBelowADInplaceOrView guard;
    std::tie(out, sum, rstd) = add_forward_op().redispatch(below, input, residual, shape, weight, eps, offset, cast);
  }
  torch::autograd::set_history(out, grad_fn); // the node's input 0
  torch::autograd::set_history(sum, grad_fn); // and 1
  grad_fn->save(sum, /*is_output=*/true, weight, rstd, shape, resolved_eps(input, eps), offset, cast);
  autograd::node_created(grad_fn);
  return {out, sum};
}

// The backward's own gradient: where anything asks for one (double backward, forward over reverse),
// the composite's, from ATen's ops; otherwise the kernel.
std::tuple<at::Tensor, at::Tensor> backward_autograd(
    c10::DispatchKeySet keys,
    const at::Tensor& grad_out,
    const at::Tensor& input,
    const at::Tensor& rstd,
    at::IntArrayRef shape,
    const std::optional<at::Tensor>& weight,
    double eps,
    double offset,
    bool cast,
    std::array<bool, 2> mask) {
  const at::Tensor weight_or_none = weight.value_or(at::Tensor());
  if (torch::autograd::compute_requires_grad(grad_out, input, weight_or_none) || has_tangent(grad_out) ||
      has_tangent(input) || has_tangent(weight_or_none)) {
    check("uaccel.rms_norm_backward", input, shape, weight);
    return composite::backward(grad_out, input, shape, weight, eps, offset, cast, mask);
  }
  at::AutoDispatchBelowADInplaceOrView guard;
  return backward_op().redispatch(
      keys & c10::after_autograd_keyset, grad_out, input, rstd, shape, weight, eps, offset, cast, mask);
}

// A device's five ops from its three implementations.
template <auto forward, auto add_forward, auto backward>
void implement(torch::Library& m) {
  m.impl("rms_norm", &out_only<forward>);
  m.impl("_rms_norm_forward", forward);
  m.impl("rms_norm_backward", backward);
  m.impl("add_rms_norm", &out_and_sum<add_forward>);
  m.impl("_add_rms_norm_forward", add_forward);
}

} // namespace
} // namespace uaccel::rowwise

TORCH_LIBRARY_IMPL(uaccel, CPU, m) {
  using namespace uaccel::rowwise;
  implement<forward_fused, add_forward_fused, backward_fused>(m);
}

TORCH_LIBRARY_IMPL(uaccel, CUDA, m) {
  using namespace uaccel::rowwise;
#ifdef UACCEL_WITH_CUDA
  implement<forward_fused, add_forward_fused, backward_fused>(m);
#else
  implement<forward_composite, add_forward_composite, backward_composite>(m);
#endif
}

TORCH_LIBRARY_IMPL(uaccel, Autograd, m) {
  m.impl("rms_norm", &uaccel::rowwise::rms_norm_autograd);
  m.impl("rms_norm_backward", &uaccel::rowwise::backward_autograd);
  m.impl("add_rms_norm", &uaccel::rowwise::add_rms_norm_autograd);
}
