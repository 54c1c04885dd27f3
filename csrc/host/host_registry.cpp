// Pinned zero-copy host registration. Registrations may share pages: pages are locked in
// driver-level chunks (one cudaHostRegister/mlock each), made only for pages no chunk covers yet,
// counted by the registrations that use them and unlocked when that count reaches zero. This is
// needed because overlapping cudaHostRegister calls fail, cudaHostUnregister takes the exact base
// of one registration, and munlock unlocks a page however many times it was locked.
#include <ATen/ATen.h>
#include <c10/util/Exception.h>
#include <torch/library.h>

#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <tuple>
#include <unordered_map>
#include <vector>

#include <uaccel/host.h>

#include "common/fork_safety.h"
#include "host/page_locker.h"

namespace uaccel::host {
namespace {

uintptr_t page_size() {
  static const auto size = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  return size;
}

class MlockPageLocker final : public PageLocker {
 public:
  const char* name() const override { return "mlock"; }
  void lock(void* start, size_t bytes) override {
    TORCH_CHECK(
        mlock(start, bytes) == 0, "uaccel.register_host: mlock of ", bytes, " bytes failed: ", std::strerror(errno),
        " (the limit is RLIMIT_MEMLOCK, `ulimit -l`; CAP_IPC_LOCK lifts it)");
  }
  void unlock(void* start, size_t bytes) noexcept override { munlock(start, bytes); }
  bool maps_to_device() const override { return false; }
  void* device_pointer(void* /*host*/) const override { return nullptr; }
  bool device_uses_host_pointer() const override { return false; }
  int device_index() const override { return -1; }
};

PageLocker* cuda_locker = nullptr;
bool (*cuda_device_present)() = nullptr;
std::atomic<bool> cuda_used{false};          // this process locked pages with CUDA
std::atomic<bool> cuda_used_by_parent{false};  // ... and this is a forked child of one that did

struct Chunk {
  uintptr_t end;
  int64_t users;
  PageLocker* locker;
};

// One user registration: the page range it holds, and what keeps the registered bytes alive.
class Registration {
 public:
  Registration(uintptr_t first, uintptr_t end, c10::Storage storage)
      : first_(first), end_(end), generation_(fork_safety::generation()), storage_(std::move(storage)) {}
  ~Registration();
  Registration(const Registration&) = delete;
  Registration& operator=(const Registration&) = delete;

 private:
  uintptr_t first_;
  uintptr_t end_;
  uint64_t generation_;  // the process whose page locks it holds (see forget_page_locks_in_child)
  c10::Storage storage_;
};

std::mutex registry_mutex;
std::map<uintptr_t, Chunk> chunks;                                    // by start; never overlap
std::unordered_map<int64_t, std::shared_ptr<Registration>> open_registrations;     // by registration id
int64_t next_id = 1;

// Page locks are not inherited by a forked child (mlock's are dropped; CUDA does not survive fork()),
// so the child starts with no chunks. Its copies of the parent's registrations stay open, with their
// host views over the child's copy of the bytes; closing one there releases nothing, so it can
// never unlock pages the child locked itself.
void forget_page_locks_in_child() {
  fork_safety::abandon_in_child(chunks);
  cuda_used_by_parent.store(cuda_used.load());
}

const bool fork_safe = (fork_safety::register_state(registry_mutex, &forget_page_locks_in_child), true);

// Gives up one use of every chunk in [first, end); unlocks those nobody uses any more.
void release_pages_locked(uintptr_t first, uintptr_t end) {
  auto it = chunks.upper_bound(first);
  if (it != chunks.begin()) {
    --it;
  }
  while (it != chunks.end() && it->first < end) {
    if (it->second.end > first && --it->second.users == 0) {
      it->second.locker->unlock(reinterpret_cast<void*>(it->first), it->second.end - it->first);
      it = chunks.erase(it);
    } else {
      ++it;
    }
  }
}

// Locks the pages of [first, end) that no chunk covers yet, then takes one use of every chunk
// in the range. All or nothing: on failure, chunks made here are unlocked again.
void acquire_pages_locked(uintptr_t first, uintptr_t end, PageLocker& locker) {
  std::vector<std::pair<uintptr_t, uintptr_t>> gaps;
  uintptr_t cursor = first;
  auto it = chunks.upper_bound(first);
  if (it != chunks.begin() && std::prev(it)->second.end > first) {
    --it;
  }
  for (; it != chunks.end() && it->first < end; ++it) {
    TORCH_CHECK(
        it->second.locker == &locker, "uaccel.register_host: pages are locked by ", it->second.locker->name(),
        " and cannot be shared with ", locker.name());
    if (it->first > cursor) {
      gaps.emplace_back(cursor, it->first);
    }
    cursor = std::max(cursor, it->second.end);
  }
  if (cursor < end) {
    gaps.emplace_back(cursor, end);
  }
  std::vector<uintptr_t> made;
  try {
    for (const auto& [gap_start, gap_end] : gaps) {
      locker.lock(reinterpret_cast<void*>(gap_start), gap_end - gap_start);
      chunks.emplace(gap_start, Chunk{gap_end, 0, &locker});
      made.push_back(gap_start);
    }
  } catch (...) {
    for (const uintptr_t start : made) {
      locker.unlock(reinterpret_cast<void*>(start), chunks.at(start).end - start);
      chunks.erase(start);
    }
    throw;
  }
  it = chunks.upper_bound(first);
  if (it != chunks.begin()) {
    --it;
  }
  for (; it != chunks.end() && it->first < end; ++it) {
    if (it->second.end > first) {
      ++it->second.users;
    }
  }
}

Registration::~Registration() {
  const std::lock_guard<std::mutex> lock(registry_mutex);
  if (generation_ == fork_safety::generation()) {
    release_pages_locked(first_, end_);
  }
}

// The device address of host byte `ptr` of a registration over [first, end).
void* device_address_locked(PageLocker& locker, uintptr_t ptr, uintptr_t first, uintptr_t end) {
  if (locker.device_uses_host_pointer()) {
    return reinterpret_cast<void*>(ptr);
  }
  const auto chunk = std::prev(chunks.upper_bound(first));
  TORCH_CHECK(
      chunk->second.end >= end,
      "uaccel.register_host: expected the buffer to lie in one registered range, because this device "
      "cannot address registered memory by its host pointer; but it spans pages registered separately");
  return static_cast<char*>(locker.device_pointer(reinterpret_cast<void*>(chunk->first))) + (ptr - chunk->first);
}

} // namespace

void register_cuda_page_locker(PageLocker* locker, bool (*device_present)()) {
  cuda_locker = locker;
  cuda_device_present = device_present;
}

PageLocker& active_page_locker() {
  static MlockPageLocker mlock_locker;
  TORCH_CHECK(
      !cuda_used_by_parent.load(),
      "uaccel.register_host: expected a process that can use CUDA, but this is a forked child of a process that "
      "registered memory with CUDA, and CUDA does not survive fork() (as in PyTorch); register in the parent, or "
      "start workers with the 'spawn' method");
  if (cuda_locker != nullptr && cuda_device_present()) {
    cuda_used.store(true);
    return *cuda_locker;
  }
  return mlock_locker;
}

HostRegistrationHandle register_host(const at::Tensor& host) {
  constexpr const char* op = "uaccel.register_host";
  TORCH_CHECK(host.device().is_cpu(), op, ": expected a CPU tensor, but got one on ", host.device());
  TORCH_CHECK(
      host.is_contiguous(), op, ": expected a contiguous tensor, but got sizes ", host.sizes(), " with strides ",
      host.strides());
  PageLocker& locker = active_page_locker();
  const auto ptr = reinterpret_cast<uintptr_t>(host.data_ptr());
  const auto bytes = static_cast<uintptr_t>(host.nbytes());
  const uintptr_t first = ptr & ~(page_size() - 1);
  const uintptr_t end = (ptr + bytes + page_size() - 1) & ~(page_size() - 1);

  std::shared_ptr<Registration> registration;
  void* device_address = nullptr;
  int64_t id = 0;
  {
    const std::lock_guard<std::mutex> lock(registry_mutex);
    if (bytes > 0) {
      acquire_pages_locked(first, end, locker);
    }
    registration = std::make_shared<Registration>(bytes > 0 ? first : 0, bytes > 0 ? end : 0, host.storage());
    if (locker.maps_to_device() && bytes > 0) {
      device_address = device_address_locked(locker, ptr, first, end);  // on failure `registration` unlocks
    }
    id = next_id++;
    open_registrations.emplace(id, registration);
  }
  std::optional<at::Tensor> device_view;
  if (locker.maps_to_device()) {
    // The view holds the registration: its pages stay locked (and the host bytes alive) while the
    // view lives, even after close(), so the device address never dangles.
    device_view = at::from_blob(
        bytes > 0 ? device_address : nullptr, host.sizes(), host.strides(), [registration](void*) {},
        host.options().device(at::kCUDA, static_cast<c10::DeviceIndex>(locker.device_index())));
  }
  return {id, device_view};
}

void unregister_host(int64_t id) {
  std::shared_ptr<Registration> registration;
  {
    const std::lock_guard<std::mutex> lock(registry_mutex);
    const auto it = open_registrations.find(id);
    TORCH_CHECK(
        it != open_registrations.end(), "uaccel.unregister_host: expected the id of an open registration, but got ",
        id);
    registration = std::move(it->second);
    open_registrations.erase(it);
  }
  // `registration` dies here, outside the lock (its destructor takes it).
}

namespace {

std::tuple<int64_t, std::optional<at::Tensor>> register_host_op(const at::Tensor& host) {
  auto handle = register_host(host);
  return {handle.id, handle.device_view};
}

} // namespace

TORCH_LIBRARY_IMPL(uaccel, CPU, m) {
  m.impl("register_host", &register_host_op);
}

TORCH_LIBRARY_IMPL(uaccel, CompositeExplicitAutograd, m) {
  m.impl("unregister_host", &unregister_host);
}

} // namespace uaccel::host
