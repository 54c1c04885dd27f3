#pragma once
// RMSNorm's kernels as row-wise descriptions (uaccel/rowwise.h): y = x r * w, r = 1 / sqrt(mean(x^2) + eps)
// over a row, with add_rms_norm's x + residual first and the backward's two gradients. The op around them
// (schemas, checks, autograd, the composite for higher derivatives): csrc/rowwise/rms_norm.cpp.
//
// 1 / rms is kept as r + r_lo, r_lo what rounding it to M left: x r + x r_lo rounds once, so a normalised
// value is within an ulp of the exact one (x r alone: 1.5 ulp, r's rounding and the product's). One M of
// r a row is saved for the backward.
#include <math.h>

#include <uaccel/rowwise.h>

namespace uaccel::ops::rms_norm {
inline namespace CPU_CAPABILITY {

using rowwise::Product;
using rowwise::Values;

// x (input 0) to out (output 0) and r (a row output); the weight is the column, multiplied after the
// normalised value is rounded to T where cast_before_weight (Llama's convention), before otherwise.
template <typename T>
struct Forward {
  using M = rowwise::Math<T>;
  static constexpr size_t kInputs = 1, kColumns = 1, kOutputs = 1, kSums = 1;
  static constexpr size_t kRowInputs = 0, kRowOutputs = 1, kColumnSums = 0;
  double eps;
  bool cast_before_weight;

  template <typename V>
  C10_HOST_DEVICE Values<Product<V>, 1> products(const Values<V, 1>& x, const Values<V, 1>&) const {
    return {{{x[0], x[0]}}};
  }
  struct Constants {
    M r, r_lo;
  };
  C10_HOST_DEVICE Constants
  finish(const std::array<double, 1>& squares, int64_t n, const Values<M, 0>&, Values<M, 1>& saved) const {
    const double exact = 1.0 / ::sqrt(squares[0] / static_cast<double>(n) + eps);
    const M r = static_cast<M>(exact);
    saved[0] = r;
    return {r, static_cast<M>(exact - static_cast<double>(r))};
  }
  template <typename V>
  C10_HOST_DEVICE Values<V, 1> map(const Constants& c, const Values<V, 1>& x, const Values<V, 1>& w) const {
    V y = math::fma(x[0], V(c.r), x[0] * V(c.r_lo));
    if (cast_before_weight) {
      y = math::rounded_as<T>(y);
    }
    return {y * w[0]};
  }
};

// add_rms_norm: the sum x + residual (inputs 0 and 1), rounded to T as ATen's add, is output 0 and is
// what is normalised into output 1.
template <typename T>
struct AddForward : Forward<T> {
  static constexpr size_t kInputs = 2, kOutputs = 2, kPrepared = 1;

  template <typename V>
  C10_HOST_DEVICE Values<V, 1> prepare(const Values<V, 2>& in) const {
    return {in[0] + in[1]};
  }
};

// From grad_out (input 0), x (input 1) and r (a row input): grad_input (output 0) = r gw - (x r) c, with
// gw = grad_out * w and c = r^2 mean(x gw) (of r's magnitude: r^3 alone overflows float where r does not,
// as for tiny rows at eps = 0); and grad_weight (the column sum) = the sum over rows of grad_out * x r,
// x r rounded to T where cast_before_weight.
template <typename T>
struct Backward {
  using M = rowwise::Math<T>;
  static constexpr size_t kInputs = 2, kColumns = 1, kOutputs = 1, kSums = 1;
  static constexpr size_t kRowInputs = 1, kRowOutputs = 0, kColumnSums = 1;
  bool cast_before_weight;

  template <typename V>
  C10_HOST_DEVICE Values<Product<V>, 1> products(const Values<V, 2>& x, const Values<V, 1>& w) const {
    return {{{x[1], x[0] * w[0]}}};
  }
  struct Constants {
    M r, c;
  };
  C10_HOST_DEVICE Constants
  finish(const std::array<double, 1>& dot, int64_t n, const Values<M, 1>& saved, Values<M, 0>&) const {
    const double r = saved[0];
    return {saved[0], static_cast<M>(r * r * dot[0] / static_cast<double>(n))};
  }
  template <typename V>
  C10_HOST_DEVICE Values<V, 1> map(const Constants& c, const Values<V, 2>& x, const Values<V, 1>& w) const {
    return {math::fms(x[0] * w[0], V(c.r), x[1] * V(c.r) * V(c.c))};
  }
  template <typename V>
  C10_HOST_DEVICE Values<Product<V>, 1> column_products(
      const Constants& c, const Values<V, 2>& x, const Values<V, 1>&) const {
    V xhat = x[1] * V(c.r);
    if (cast_before_weight) {
      xhat = math::rounded_as<T>(xhat);
    }
    return {{{x[0], xhat}}};
  }
};

} // namespace CPU_CAPABILITY
} // namespace uaccel::ops::rms_norm
