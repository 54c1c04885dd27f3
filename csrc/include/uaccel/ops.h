#pragma once
// C++ API of the pointwise operators (uaccel/dispatch.h: through the dispatcher, as torch.ops.uaccel.*),
// one function per schema: uaccel::elu, elu_, elu_backward, gelu, ..., silu_mul_backward. They are
// generated at build time from the ops' schemas into uaccel/pointwise_ops.h (csrc/pointwise/generate_api.cpp),
// with the schemas' types and defaults.
#include <uaccel/pointwise_ops.h>

namespace uaccel {

// ELU's default alpha, as at::elu's (the schema's, csrc/ops/elu.h, checked against it by tests/cpp;
// the seed kernel's 0.1 is alpha = 0.1).
inline constexpr double kEluDefaultAlpha = 1.0;

} // namespace uaccel
