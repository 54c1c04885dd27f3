// cudaHostRegister-based page locking for host registrations (mapped and portable), used when a
// CUDA device is present.
#include <c10/cuda/CUDAException.h>
#include <c10/util/Exception.h>

#include <cuda_runtime.h>

#include "host/page_locker.h"

namespace uaccel::host {
namespace {

int current_device() {
  int device = 0;
  C10_CUDA_CHECK(cudaGetDevice(&device));
  return device;
}

class CudaPageLocker final : public PageLocker {
 public:
  const char* name() const override { return "cudaHostRegister"; }

  void lock(void* start, size_t bytes) override {
    cudaPointerAttributes attributes{};
    const bool known = cudaPointerGetAttributes(&attributes, start) == cudaSuccess;
    (void)cudaGetLastError();
    TORCH_CHECK(
        !known || attributes.type != cudaMemoryTypeHost,
        "uaccel.register_host: expected pageable memory, but these pages are already page-locked by "
        "someone else (pinned by torch or registered outside uaccel)");
    const cudaError_t status = cudaHostRegister(start, bytes, cudaHostRegisterMapped | cudaHostRegisterPortable);
    if (status != cudaSuccess) {
      (void)cudaGetLastError();  // clear the sticky error state
      TORCH_CHECK(
          status != cudaErrorHostMemoryAlreadyRegistered,
          "uaccel.register_host: expected pageable memory, but these pages are already page-locked by "
          "someone else (pinned by torch or registered outside uaccel)");
      TORCH_CHECK(
          false, "uaccel.register_host: cudaHostRegister of ", bytes, " bytes failed: ", cudaGetErrorString(status));
    }
  }

  void unlock(void* start, size_t /*bytes*/) noexcept override { C10_CUDA_CHECK_WARN(cudaHostUnregister(start)); }

  bool maps_to_device() const override { return true; }

  void* device_pointer(void* host) const override {
    void* device = nullptr;
    C10_CUDA_CHECK(cudaHostGetDevicePointer(&device, host, 0));
    return device;
  }

  bool device_uses_host_pointer() const override {
    int uses_host_pointer = 0;
    C10_CUDA_CHECK(
        cudaDeviceGetAttribute(&uses_host_pointer, cudaDevAttrCanUseHostPointerForRegisteredMem, current_device()));
    return uses_host_pointer != 0;
  }

  int device_index() const override { return current_device(); }
};

bool device_present() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return count > 0;
}

const bool registered = [] {
  static CudaPageLocker locker;
  register_cuda_page_locker(&locker, &device_present);
  return true;
}();

} // namespace
} // namespace uaccel::host
