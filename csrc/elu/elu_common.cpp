#include "elu/elu_common.h"

#include <ATen/core/Formatting.h>
#include <c10/util/Exception.h>

namespace uaccel::elu_ops {
namespace {

void check_floating(const char* op, const char* name, const at::Tensor& t) {
  TORCH_CHECK(
      at::isFloatingType(t.scalar_type()),
      op, ": expected ", name, " to be a floating-point tensor (float16, bfloat16, float32 or float64), but got ",
      t.scalar_type());
}

// Outputs are left undefined so TensorIterator allocates them with ATen's layout rules: the
// input's strides when it is dense (channels_last, transposed), its dimension order otherwise.
at::TensorIteratorConfig elementwise_config() {
  at::TensorIteratorConfig config;
  config.add_owned_output(at::Tensor());
  return config;
}

} // namespace

at::TensorIterator forward_iter(const at::Tensor& self) {
  check_floating("uaccel.elu", "self", self);
  return elementwise_config().add_const_input(self).build();
}

at::TensorIterator forward_inplace_iter(const at::Tensor& self) {
  check_floating("uaccel.elu_", "self", self);
  return at::TensorIteratorConfig().add_output(self).add_const_input(self).build();
}

at::TensorIterator backward_iter(
    const at::Tensor& grad_output,
    const at::Tensor& saved,
    const at::Scalar& alpha,
    bool is_result) {
  constexpr const char* op = "uaccel.elu_backward";
  check_floating(op, "grad_output", grad_output);
  check_floating(op, "saved", saved);
  TORCH_CHECK(
      grad_output.scalar_type() == saved.scalar_type(),
      op, ": expected grad_output and saved to have the same dtype, but got ",
      grad_output.scalar_type(), " and ", saved.scalar_type());
  TORCH_CHECK(
      grad_output.sizes() == saved.sizes(),
      op, ": expected grad_output and saved to have the same shape, but got ",
      grad_output.sizes(), " and ", saved.sizes());
  TORCH_CHECK(
      grad_output.device() == saved.device(),
      op, ": expected grad_output and saved on the same device, but got ",
      grad_output.device(), " and ", saved.device());
  TORCH_CHECK(
      !is_result || alpha.to<double>() >= 0,
      op, ": is_result=True (saved is the forward output) needs alpha >= 0, because the output does not "
      "determine the input when alpha < 0; got alpha=", alpha);
  return elementwise_config().add_const_input(grad_output).add_const_input(saved).build();
}

} // namespace uaccel::elu_ops
