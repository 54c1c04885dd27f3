// The public C++ API (uaccel/elu.h): typed calls through the dispatcher, so C++ callers get
// the same device dispatch and autograd as Python's torch.ops.uaccel.*.
#include <ATen/core/dispatch/Dispatcher.h>

#include <uaccel/elu.h>

namespace uaccel {

at::Tensor elu(const at::Tensor& self, const at::Scalar& alpha, const at::Scalar& scale, const at::Scalar& input_scale) {
  static const auto op = c10::Dispatcher::singleton()
                             .findSchemaOrThrow("uaccel::elu", "")
                             .typed<at::Tensor(const at::Tensor&, const at::Scalar&, const at::Scalar&, const at::Scalar&)>();
  return op.call(self, alpha, scale, input_scale);
}

at::Tensor& elu_(at::Tensor& self, const at::Scalar& alpha, const at::Scalar& scale, const at::Scalar& input_scale) {
  static const auto op = c10::Dispatcher::singleton()
                             .findSchemaOrThrow("uaccel::elu_", "")
                             .typed<void(const at::Tensor&, const at::Scalar&, const at::Scalar&, const at::Scalar&)>();
  op.call(self, alpha, scale, input_scale);
  return self;
}

at::Tensor elu_backward(
    const at::Tensor& grad_output,
    const at::Tensor& saved,
    const at::Scalar& alpha,
    bool is_result,
    const at::Scalar& scale,
    const at::Scalar& input_scale) {
  static const auto op =
      c10::Dispatcher::singleton()
          .findSchemaOrThrow("uaccel::elu_backward", "")
          .typed<at::Tensor(const at::Tensor&, const at::Tensor&, const at::Scalar&, bool, const at::Scalar&, const at::Scalar&)>();
  return op.call(grad_output, saved, alpha, is_result, scale, input_scale);
}

} // namespace uaccel
