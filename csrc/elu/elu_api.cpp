// The public C++ API (uaccel/elu.h): typed calls through the dispatcher, so C++ callers get
// the same device dispatch and autograd as Python's torch.ops.uaccel.*.
#include <ATen/core/dispatch/Dispatcher.h>

#include <uaccel/elu.h>

namespace uaccel {

at::Tensor elu(const at::Tensor& self, double alpha) {
  static const auto op = c10::Dispatcher::singleton()
                             .findSchemaOrThrow("uaccel::elu", "")
                             .typed<at::Tensor(const at::Tensor&, double)>();
  return op.call(self, alpha);
}

at::Tensor elu_backward(const at::Tensor& grad_output, const at::Tensor& saved, double alpha, bool is_result) {
  static const auto op = c10::Dispatcher::singleton()
                             .findSchemaOrThrow("uaccel::elu_backward", "")
                             .typed<at::Tensor(const at::Tensor&, const at::Tensor&, double, bool)>();
  return op.call(grad_output, saved, alpha, is_result);
}

} // namespace uaccel
