#pragma once
// How the public C++ API calls the ops: through the PyTorch dispatcher, so device dispatch and
// autograd (reverse and forward mode) behave exactly as for torch.ops.<namespace>.*. Each call site
// looks its op's handle up once (a function-local static). Linking TorchUaccel::uaccel loads the
// library that registers the ops, even when a program calls none of its functions (CMakeLists.txt).
#include <ATen/core/dispatch/Dispatcher.h>

#include <string>

namespace uaccel::detail {

// The typed dispatcher handle of an op by its qualified name ("uaccel::silu", "myops::mish").
template <typename Signature>
c10::TypedOperatorHandle<Signature> op(const std::string& qualified_name) {
  return c10::Dispatcher::singleton().findSchemaOrThrow(qualified_name.c_str(), "").typed<Signature>();
}

} // namespace uaccel::detail
