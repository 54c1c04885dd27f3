// uaccel::async_copy_ with both tensors on the CPU: a byte copy over TensorIterator, memcpy on
// contiguous runs, parallel over ATen's grain size. Done when it returns.
#include <torch/library.h>

#include <cstring>

#include "copy/copy_common.h"

namespace uaccel::copy {

void copy_on_cpu(const at::Tensor& dst, const at::Tensor& src) {
  if (dst.numel() == 0) {
    return;
  }
  auto iter = copy_iter(dst, src);
  dispatch_by_element_size(dst.element_size(), [&](auto word) {
    using word_t = decltype(word);
    iter.for_each([](char** data, const int64_t* strides, int64_t size0, int64_t size1) {
      char* out = data[0];
      const char* in = data[1];
      for (int64_t outer = 0; outer < size1; ++outer) {
        if (strides[0] == sizeof(word_t) && strides[1] == sizeof(word_t)) {
          std::memcpy(out, in, size0 * sizeof(word_t));
        } else {
          for (int64_t i = 0; i < size0; ++i) {
            std::memcpy(out + i * strides[0], in + i * strides[1], sizeof(word_t));
          }
        }
        out += strides[2];
        in += strides[3];
      }
    });
  });
}

namespace {

void async_copy_cpu(const at::Tensor& dst, const at::Tensor& src) {
  check_copy_args(dst, src);
  copy_on_cpu(dst, src);
}

} // namespace

TORCH_LIBRARY_IMPL(uaccel, CPU, m) {
  m.impl("async_copy_", &async_copy_cpu);
}

} // namespace uaccel::copy
