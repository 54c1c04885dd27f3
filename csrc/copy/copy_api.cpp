#include <uaccel/copy.h>
#include <uaccel/dispatch.h>

namespace uaccel {

void async_copy_(const at::Tensor& dst, const at::Tensor& src) {
  static const auto op = detail::op<void(const at::Tensor&, const at::Tensor&)>("uaccel::async_copy_");
  op.call(dst, src);
}

} // namespace uaccel
