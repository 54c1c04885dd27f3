#pragma once
// How pages get locked for a host registration: cudaHostRegister (mapped, portable) when this build
// has CUDA and a device is present, mlock otherwise, so the CPU-only path does something real.
#include <cstddef>

namespace uaccel::host {

class PageLocker {
 public:
  virtual ~PageLocker() = default;
  virtual const char* name() const = 0;
  // Locks [start, start + bytes) (page-aligned, never overlapping a range it already holds);
  // throws a c10::Error naming uaccel.register_host on failure.
  virtual void lock(void* start, size_t bytes) = 0;
  virtual void unlock(void* start, size_t bytes) noexcept = 0;
  // Device access: whether locked pages get a device address, and which.
  virtual bool maps_to_device() const = 0;
  virtual void* device_pointer(void* host) const = 0;
  // True where the device addresses registered memory by its host address (x86-64 Linux), so a
  // buffer spanning several locked ranges still has one contiguous device view.
  virtual bool device_uses_host_pointer() const = 0;
  virtual int device_index() const = 0;
};

// The CUDA build registers its locker at load time; it is used only when a device is present.
void register_cuda_page_locker(PageLocker* locker, bool (*device_present)());
PageLocker& active_page_locker();

} // namespace uaccel::host
