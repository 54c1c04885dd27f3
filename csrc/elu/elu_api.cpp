// The public C++ API (uaccel/elu.h): typed calls through the dispatcher, so C++ callers get
// the same device dispatch and autograd as Python's torch.ops.uaccel.*.
#include <uaccel/elu.h>

#include "elu/elu_handles.h"

namespace uaccel {
namespace elu_ops {
namespace {

template <typename Signature>
c10::TypedOperatorHandle<Signature> lookup(const char* name) {
  return c10::Dispatcher::singleton().findSchemaOrThrow(name, "").typed<Signature>();
}

} // namespace

const c10::TypedOperatorHandle<EluSignature>& elu_handle() {
  static const auto handle = lookup<EluSignature>("uaccel::elu");
  return handle;
}

const c10::TypedOperatorHandle<EluInplaceSignature>& elu_inplace_handle() {
  static const auto handle = lookup<EluInplaceSignature>("uaccel::elu_");
  return handle;
}

const c10::TypedOperatorHandle<EluBackwardSignature>& elu_backward_handle() {
  static const auto handle = lookup<EluBackwardSignature>("uaccel::elu_backward");
  return handle;
}

} // namespace elu_ops

at::Tensor elu(
    const at::Tensor& self, const at::Scalar& alpha, const at::Scalar& scale, const at::Scalar& input_scale) {
  return elu_ops::elu_handle().call(self, alpha, scale, input_scale);
}

at::Tensor& elu_(at::Tensor& self, const at::Scalar& alpha, const at::Scalar& scale, const at::Scalar& input_scale) {
  elu_ops::elu_inplace_handle().call(self, alpha, scale, input_scale);
  return self;
}

at::Tensor elu_backward(
    const at::Tensor& grad_output,
    const at::Tensor& saved,
    const at::Scalar& alpha,
    bool is_result,
    const at::Scalar& scale,
    const at::Scalar& input_scale) {
  return elu_ops::elu_backward_handle().call(grad_output, saved, alpha, is_result, scale, input_scale);
}

} // namespace uaccel
