#include "copy/copy_common.h"

#include <ATen/MemoryOverlap.h>

#include <uaccel/detail/checks.h>

namespace uaccel::copy {
namespace {

std::pair<uintptr_t, uintptr_t> byte_range(const at::Tensor& t) {
  int64_t last = 0;
  for (int64_t d = 0; d < t.dim(); ++d) {
    last += (t.size(d) - 1) * t.stride(d);
  }
  const auto start = reinterpret_cast<uintptr_t>(t.data_ptr());
  return {start, start + (last + 1) * t.element_size()};
}

bool byte_ranges_meet(const at::Tensor& a, const at::Tensor& b) {
  const auto [a_start, a_end] = byte_range(a);
  const auto [b_start, b_end] = byte_range(b);
  return a_start < b_end && b_start < a_end;
}

std::string tensor_kind(const at::Tensor& t) {
  return t.is_nested() ? "nested" : t.is_quantized() ? "quantized" : c10::str(t.layout());
}

void check_dense(const char* name, const at::Tensor& t) {
  TORCH_CHECK(
      t.layout() == at::kStrided && !t.is_nested() && !t.is_quantized(), kOp, ": expected ", name,
      " to be a dense (strided) tensor, but got a ", tensor_kind(t), " tensor");
}

} // namespace

void check_copy_operands(const at::Tensor& dst, const at::Tensor& src) {
  check_dense("dst", dst);
  check_dense("src", src);
  const bool cpu_and_cuda = (dst.is_cpu() && src.is_cuda()) || (dst.is_cuda() && src.is_cpu());
  TORCH_CHECK(
      dst.device() == src.device() || cpu_and_cuda, kOp,
      ": expected dst and src on the same device, or one on the CPU and one on CUDA, but got ", dst.device(), " and ",
      src.device());
}

void check_copy_args(const at::Tensor& dst, const at::Tensor& src) {
  checks::same_dtype(kOp, "dst", dst, "src", src);
  checks::same_shape(kOp, "dst", dst, "src", src);
  TORCH_CHECK(
      at::has_internal_overlap(dst) != at::MemOverlap::Yes, kOp,
      ": expected dst whose elements do not share memory, but got strides ", dst.strides(), " for shape ", dst.sizes(),
      " (an expanded tensor?)");
  const auto overlap = at::get_overlap_status(dst, src);
  TORCH_CHECK(
      overlap != at::MemOverlapStatus::Full && overlap != at::MemOverlapStatus::Partial, kOp,
      ": expected dst and src in separate memory, but they overlap");
  // ATen answers TooHard for non-dense tensors; then only byte ranges that cannot meet pass.
  TORCH_CHECK(
      overlap != at::MemOverlapStatus::TooHard || !dst.storage().is_alias_of(src.storage()) ||
          !byte_ranges_meet(dst, src),
      kOp, ": expected dst and src in separate memory, but their byte ranges in one storage may overlap");
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
