#include "copy/copy_common.h"

#include <ATen/MemoryOverlap.h>

namespace uaccel::copy {

void check_copy_args(const at::Tensor& dst, const at::Tensor& src) {
  TORCH_CHECK(dst.scalar_type() == src.scalar_type(), kOp, ": expected dst and src to have the same dtype, but got ",
              dst.scalar_type(), " and ", src.scalar_type());
  TORCH_CHECK(dst.sizes() == src.sizes(), kOp, ": expected dst and src to have the same shape, but got ", dst.sizes(),
              " and ", src.sizes());
  TORCH_CHECK(at::has_internal_overlap(dst) != at::MemOverlap::Yes, kOp,
              ": expected dst whose elements do not share memory, but got strides ", dst.strides(), " for shape ",
              dst.sizes(), " (an expanded tensor?)");
  TORCH_CHECK(at::get_overlap_status(dst, src) == at::MemOverlapStatus::No, kOp,
              ": expected dst and src in separate memory, but they overlap");
}

bool same_dense_layout(const at::Tensor& a, const at::Tensor& b) {
  return a.is_non_overlapping_and_dense() && b.is_non_overlapping_and_dense() && a.strides() == b.strides();
}

at::TensorIterator copy_iter(const at::Tensor& dst, const at::Tensor& src) {
  return at::TensorIteratorConfig()
      .add_output(dst)
      .add_const_input(src)
      .resize_outputs(false)
      .set_check_mem_overlap(false)  // check_copy_args did, with a better message
      .build();
}

} // namespace uaccel::copy
