#pragma once
// TensorIterators of floating-point elementwise ops, after the shared checks. Outputs are
// allocated by TensorIterator with ATen's layout rules (the inputs' strides when they are dense:
// channels_last, transposed; their dimension order otherwise), as ATen's own elementwise ops do, so
// the fakes can take the output layout from ATen's meta functions.
#include <ATen/ExpandUtils.h>
#include <ATen/TensorIterator.h>
#include <ATen/native/TypeProperties.h>

#include <array>
#include <optional>
#include <string>
#include <vector>

#include <uaccel/detail/checks.h>

namespace uaccel::elementwise {

// The memory format in which tensors of one shape and dtype are all contiguous, if any (contiguous,
// or channels last for 4-d ones): then an op maps flat arrays, and an output allocated in that format
// has the layout TensorIterator would give it.
template <size_t n>
std::optional<at::MemoryFormat> dense_format(const std::array<const at::Tensor*, n>& tensors) {
  for (size_t k = 1; k < n; ++k) {
    if (tensors[k]->sizes() != tensors[0]->sizes() || tensors[k]->scalar_type() != tensors[0]->scalar_type()) {
      return std::nullopt;
    }
  }
  for (const auto format : {at::MemoryFormat::Contiguous, at::MemoryFormat::ChannelsLast}) {
    bool all = true;
    for (const auto* t : tensors) {
      all = all && t->is_contiguous(format);
    }
    if (all) {
      return format;
    }
  }
  return std::nullopt;
}

// Each tensor floating, all on the first one's device.
template <size_t n>
void check_operands(
    const char* op, const std::vector<std::string>& names, const std::array<const at::Tensor*, n>& tensors) {
  for (size_t k = 0; k < n; ++k) {
    checks::floating(op, names[k].c_str(), *tensors[k]);
  }
  for (size_t k = 1; k < n; ++k) {
    checks::same_device(op, names[0].c_str(), *tensors[0], names[k].c_str(), *tensors[k]);
  }
}

// An iterator over `tensors`, after check_operands, broadcast (each pair checked, named) and promoted
// to their common dtype (as `*` promotes), with `outputs` outputs of that dtype allocated by it. With
// `float_for_sums`, half types are computed in float where an output will be summed (an input broadcast
// to a larger shape): the sum then rounds once, not once per term.
template <size_t n>
at::TensorIterator iterator(
    const char* op,
    const std::vector<std::string>& names,
    const std::array<const at::Tensor*, n>& tensors,
    int outputs,
    bool float_for_sums = false) {
  check_operands(op, names, tensors);
  at::native::ResultTypeState state;
  for (size_t k = 0; k < n; ++k) {
    for (size_t j = 0; j < k; ++j) {
      checks::broadcastable(op, names[j].c_str(), *tensors[j], names[k].c_str(), *tensors[k]);
    }
    state = at::native::update_result_type_state(*tensors[k], state);
  }
  auto dtype = at::native::result_type(state);
  if (float_for_sums && at::isReducedFloatingType(dtype)) {
    c10::DimVector shape(tensors[0]->sizes());
    for (const auto* t : tensors) {
      shape = at::infer_size_dimvector(shape, t->sizes());
    }
    for (const auto* t : tensors) {
      if (t->sizes() != at::IntArrayRef(shape)) {
        dtype = at::kFloat;
      }
    }
  }
  at::TensorIteratorConfig config;
  for (int k = 0; k < outputs; ++k) {
    config.add_owned_output(at::Tensor());
  }
  for (const auto* t : tensors) {
    if (t->scalar_type() == dtype) {
      config.add_const_input(*t);
    } else {
      config.add_owned_const_input(t->to(dtype));
    }
  }
  return config.build();
}

// A gradient computed at the broadcast shape, as its input's: summed over the dimensions the input
// was broadcast along, in the input's dtype.
inline at::Tensor reduce_to(const at::Tensor& grad, const at::Tensor& input) {
  auto reduced = grad.sizes() == input.sizes() ? grad : at::sum_to(grad, input.sizes());
  return reduced.scalar_type() == input.scalar_type() ? reduced : reduced.to(input.scalar_type());
}

// self = f(self).
inline at::TensorIterator unary_inplace(const char* op, const at::Tensor& self) {
  checks::floating(op, "self", self);
  return at::TensorIteratorConfig().add_output(self).add_const_input(self).build();
}

// The checks of f(a, b) for tensors of one dtype, shape and device (no broadcasting, no promotion).
inline void check_binary(
    const char* op, const std::string& a_name, const at::Tensor& a, const std::string& b_name, const at::Tensor& b) {
  checks::floating(op, a_name.c_str(), a);
  checks::floating(op, b_name.c_str(), b);
  checks::same_dtype(op, a_name.c_str(), a, b_name.c_str(), b);
  checks::same_shape(op, a_name.c_str(), a, b_name.c_str(), b);
  checks::same_device(op, a_name.c_str(), a, b_name.c_str(), b);
}

} // namespace uaccel::elementwise
