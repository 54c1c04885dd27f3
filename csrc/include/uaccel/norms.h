#pragma once
// C++ API of the row-wise ops (RMSNorm), through the dispatcher as torch.ops.uaccel.* (autograd in both
// modes included), with the schemas' defaults (csrc/uaccel.cpp): eps unset is float's epsilon (double's
// for double inputs); weight_offset and cast_before_weight are the model families' conventions
// (torch_uaccel/_norms.py: Gemma's 1 + weight, Llama's cast before the weight).
#include <ATen/core/Tensor.h>
#include <c10/util/ArrayRef.h>

#include <optional>
#include <tuple>

#include <uaccel/dispatch.h>

namespace uaccel {

// input / sqrt(mean(input^2) + eps) * (weight + weight_offset) over the trailing normalized_shape dims,
// as at::rms_norm.
inline at::Tensor rms_norm(
    const at::Tensor& input,
    at::IntArrayRef normalized_shape,
    const std::optional<at::Tensor>& weight = std::nullopt,
    std::optional<double> eps = std::nullopt,
    double weight_offset = 0.0,
    bool cast_before_weight = false) {
  static const auto op = detail::op<at::Tensor(
      const at::Tensor&, at::IntArrayRef, const std::optional<at::Tensor>&, std::optional<double>, double, bool)>(
      "uaccel::rms_norm");
  return op.call(input, normalized_shape, weight, eps, weight_offset, cast_before_weight);
}

// (rms_norm(input + residual), input + residual): a block's residual add and the next norm in one pass.
inline std::tuple<at::Tensor, at::Tensor> add_rms_norm(
    const at::Tensor& input,
    const at::Tensor& residual,
    at::IntArrayRef normalized_shape,
    const std::optional<at::Tensor>& weight = std::nullopt,
    std::optional<double> eps = std::nullopt,
    double weight_offset = 0.0,
    bool cast_before_weight = false) {
  static const auto op = detail::op<std::tuple<at::Tensor, at::Tensor>(
      const at::Tensor&, const at::Tensor&, at::IntArrayRef, const std::optional<at::Tensor>&, std::optional<double>,
      double, bool)>("uaccel::add_rms_norm");
  return op.call(input, residual, normalized_shape, weight, eps, weight_offset, cast_before_weight);
}

} // namespace uaccel
