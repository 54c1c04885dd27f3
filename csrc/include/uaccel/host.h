#pragma once
// C++ API of pinned zero-copy host registration (see torch_uaccel.register_host).
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <optional>

#include <uaccel/export.h>

namespace uaccel::host {

struct HostRegistrationHandle {
  int64_t id;
  // A CUDA tensor over the same bytes when CUDA is built and a device is present, else empty.
  std::optional<at::Tensor> device_view;
};

// Locks the pages of a contiguous CPU tensor (cudaHostRegister, mapped; mlock without CUDA) with
// no copy. Registrations sharing pages are reference-counted. The tensor's storage stays alive
// while registered.
UACCEL_API HostRegistrationHandle register_host(const at::Tensor& host);
// Ends a registration; pages unlock once no registration or device view uses them.
UACCEL_API void unregister_host(int64_t id);

} // namespace uaccel::host
