#pragma once
// TensorIterators of floating-point elementwise ops, after the shared checks. Outputs are
// allocated by TensorIterator with ATen's layout rules (the input's strides when it is dense:
// channels_last, transposed; its dimension order otherwise), as ATen's own elementwise ops do, so
// the fakes can take the output layout from ATen's meta functions.
#include <ATen/TensorIterator.h>

#include <optional>

#include "common/checks.h"

namespace uaccel::elementwise {

// The memory format in which tensors of one shape are all contiguous, if any (contiguous, or channels
// last for 4-d ones): then an op maps flat arrays, and an output allocated in that format has the
// layout TensorIterator would give it.
inline std::optional<at::MemoryFormat> common_contiguous_format(const at::Tensor& a, const at::Tensor& b) {
  for (const auto format : {at::MemoryFormat::Contiguous, at::MemoryFormat::ChannelsLast}) {
    if (a.is_contiguous(format) && b.is_contiguous(format)) {
      return format;
    }
  }
  return std::nullopt;
}
// out = f(self).
inline at::TensorIterator unary(const char* op, const at::Tensor& self) {
  checks::floating(op, "self", self);
  at::TensorIteratorConfig config;
  config.add_owned_output(at::Tensor());
  return config.add_const_input(self).build();
}

// self = f(self).
inline at::TensorIterator unary_inplace(const char* op, const at::Tensor& self) {
  checks::floating(op, "self", self);
  return at::TensorIteratorConfig().add_output(self).add_const_input(self).build();
}

// The checks of f(a, b): both floating, of one dtype, shape and device (no broadcasting, no promotion).
inline void check_binary(
    const char* op, const char* a_name, const at::Tensor& a, const char* b_name, const at::Tensor& b) {
  checks::floating(op, a_name, a);
  checks::floating(op, b_name, b);
  checks::same_dtype(op, a_name, a, b_name, b);
  checks::same_shape(op, a_name, a, b_name, b);
  checks::same_device(op, a_name, a, b_name, b);
}

// out = f(a, b), after check_binary.
inline at::TensorIterator binary(
    const char* op, const char* a_name, const at::Tensor& a, const char* b_name, const at::Tensor& b) {
  check_binary(op, a_name, a, b_name, b);
  at::TensorIteratorConfig config;
  config.add_owned_output(at::Tensor());
  return config.add_const_input(a).add_const_input(b).build();
}

} // namespace uaccel::elementwise
