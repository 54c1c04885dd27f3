#pragma once
// RMSNorm's kernels (rms_norm.h's signatures) from its descriptions (csrc/ops/rms_norm.h) and an engine:
// included by the CPU kernels' file (rms_norm_isa.cpp, once per instruction set) and the CUDA one
// (rms_norm_cuda.cu), each naming its engine, a class with `static ... device_guard(const at::Tensor&)`
// (what the run holds) and `static void run(description, operands)`.
#include <ATen/Dispatch.h>

#include "../ops/rms_norm.h"
#include "rms_norm.h"

namespace uaccel::rowwise {
inline namespace CPU_CAPABILITY {

template <typename T>
T* data_or_null(const at::Tensor& t) {
  return t.defined() ? static_cast<T*>(t.data_ptr()) : nullptr;
}

template <typename Engine>
void rms_norm_forward(
    const at::Tensor& x,
    const at::Tensor& residual,
    const at::Tensor& weight,
    double eps,
    bool cast,
    at::Tensor& out,
    at::Tensor& sum,
    at::Tensor& rstd) {
  const auto guard = Engine::device_guard(x);
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kBFloat16, at::kHalf, x.scalar_type(), "uaccel.rms_norm", [&] {
    using T = scalar_t;
    using M = Math<T>;
    const auto fill = [&](auto& o) {
      o.rows = x.size(0);
      o.n = x.size(1);
      o.inputs[0] = x.const_data_ptr<T>();
      o.columns[0] = data_or_null<const M>(weight);
      o.row_outputs[0] = rstd.mutable_data_ptr<M>();
    };
    if (residual.defined()) {
      const ops::rms_norm::AddForward<T> description{{eps, cast}};
      Operands<ops::rms_norm::AddForward<T>, T> o;
      fill(o);
      o.inputs[1] = residual.const_data_ptr<T>();
      o.outputs = {sum.mutable_data_ptr<T>(), out.mutable_data_ptr<T>()};
      Engine::run(description, o);
    } else {
      const ops::rms_norm::Forward<T> description{eps, cast};
      Operands<ops::rms_norm::Forward<T>, T> o;
      fill(o);
      o.outputs[0] = out.mutable_data_ptr<T>();
      Engine::run(description, o);
    }
  });
}

template <typename Engine>
void rms_norm_backward(
    const at::Tensor& grad_out,
    const at::Tensor& x,
    const at::Tensor& rstd,
    const at::Tensor& weight,
    bool cast,
    at::Tensor& grad_input,
    at::Tensor& grad_weight) {
  const auto guard = Engine::device_guard(x);
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kBFloat16, at::kHalf, x.scalar_type(), "uaccel.rms_norm_backward", [&] {
    using T = scalar_t;
    using M = Math<T>;
    const ops::rms_norm::Backward<T> description{cast};
    Operands<ops::rms_norm::Backward<T>, T> o;
    o.rows = x.size(0);
    o.n = x.size(1);
    o.inputs = {grad_out.const_data_ptr<T>(), x.const_data_ptr<T>()};
    o.columns[0] = data_or_null<const M>(weight);
    o.outputs[0] = data_or_null<T>(grad_input);
    o.row_inputs[0] = rstd.const_data_ptr<M>();
    o.column_sums = data_or_null<M>(grad_weight);
    Engine::run(description, o);
  });
}

} // namespace CPU_CAPABILITY
} // namespace uaccel::rowwise
