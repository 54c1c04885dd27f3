#pragma once
// Typed dispatcher handles of the ELU ops, looked up once (elu_api.cpp): the C++ API calls
// through them, the autograd kernels redispatch below autograd through them.
#include <ATen/core/dispatch/Dispatcher.h>

namespace uaccel::elu_ops {

using EluSignature = at::Tensor(const at::Tensor&, const at::Scalar&, const at::Scalar&, const at::Scalar&);
using EluInplaceSignature = void(const at::Tensor&, const at::Scalar&, const at::Scalar&, const at::Scalar&);
using EluBackwardSignature =
    at::Tensor(const at::Tensor&, const at::Tensor&, const at::Scalar&, bool, const at::Scalar&, const at::Scalar&);

const c10::TypedOperatorHandle<EluSignature>& elu_handle();
const c10::TypedOperatorHandle<EluInplaceSignature>& elu_inplace_handle();
const c10::TypedOperatorHandle<EluBackwardSignature>& elu_backward_handle();

} // namespace uaccel::elu_ops
