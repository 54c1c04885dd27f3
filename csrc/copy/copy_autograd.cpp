// uaccel::async_copy_ at the Autograd key, which every call with autograd enabled passes first.
//
// Not differentiable, by decision: a copy enqueued on a stream, with the host not waiting, has no
// natural backward (dst.copy_(src) is the differentiable copy). So instead of silently dropping a
// gradient it refuses tensors that need one, in reverse or forward mode. Like copy_, it refuses
// what autograd refuses of any in-place write (a leaf that requires grad, an inference tensor
// outside inference_mode) and bumps dst's version so saved-tensor checks see the write.
#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/library.h>

#include <uaccel/detail/autograd_node.h>
#include "copy/copy_common.h"

namespace uaccel::copy {
namespace {

void async_copy_autograd(c10::DispatchKeySet keys, const at::Tensor& dst, const at::Tensor& src) {
  check_copy_operands(dst, src);
  TORCH_CHECK(
      !torch::autograd::compute_requires_grad(dst, src) && !uaccel::autograd::tangent(dst).defined() &&
          !uaccel::autograd::tangent(src).defined(),
      kOp, ": is not differentiable; expected dst and src that do not require grad, but got dst.requires_grad=",
      dst.requires_grad() ? "True" : "False", " and src.requires_grad=", src.requires_grad() ? "True" : "False",
      " (use dst.copy_(src) for a differentiable copy, or pass src.detach())");
  torch::autograd::check_inplace(dst, /*requires_grad=*/false);
  torch::autograd::increment_version(dst);  // before the write: an inference tensor is refused untouched
  static const auto op = c10::Dispatcher::singleton()
                             .findSchemaOrThrow("uaccel::async_copy_", "")
                             .typed<void(const at::Tensor&, const at::Tensor&)>();
  at::AutoDispatchBelowADInplaceOrView below_autograd;
  op.redispatch(keys & c10::after_autograd_keyset, dst, src);
}

} // namespace

TORCH_LIBRARY_IMPL(uaccel, Autograd, m) {
  m.impl("async_copy_", &async_copy_autograd);
}

} // namespace uaccel::copy
