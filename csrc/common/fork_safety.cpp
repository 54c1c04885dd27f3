#include "common/fork_safety.h"

#include <c10/util/Exception.h>

#include <pthread.h>

#include <array>
#include <atomic>
#include <cstring>

namespace uaccel::fork_safety {
namespace {

struct State {
  std::mutex* mutex;
  void (*in_child)();
};

// A fixed array, so the handlers allocate nothing: malloc's own fork locks are taken after ours.
constexpr size_t kMaxStates = 16;
std::array<State, kMaxStates> states{};
size_t state_count = 0;  // written under registry_mutex only
std::mutex registry_mutex;
std::atomic<uint64_t> fork_generation{0};

// Always in the same order (registration order), released in the reverse one.
void before_fork() {
  registry_mutex.lock();
  for (size_t i = 0; i < state_count; ++i) {
    states[i].mutex->lock();
  }
}

void release_all() {
  for (size_t i = state_count; i-- > 0;) {
    states[i].mutex->unlock();
  }
  registry_mutex.unlock();
}

void after_fork_in_child() {
  fork_generation.fetch_add(1);
  release_all();  // the forking thread is the child's only thread, and it holds them all
  for (size_t i = 0; i < state_count; ++i) {
    if (states[i].in_child != nullptr) {
      states[i].in_child();
    }
  }
}

} // namespace

void register_state(std::mutex& mutex, void (*in_child)()) {
  static const int installed = pthread_atfork(&before_fork, &release_all, &after_fork_in_child);
  TORCH_CHECK(installed == 0, "uaccel: pthread_atfork failed: ", std::strerror(installed));
  const std::lock_guard<std::mutex> lock(registry_mutex);
  TORCH_CHECK(state_count < kMaxStates, "uaccel: more than ", kMaxStates, " fork-safe states; raise kMaxStates");
  states[state_count++] = State{&mutex, in_child};
}

uint64_t generation() {
  return fork_generation.load(std::memory_order_relaxed);
}

} // namespace uaccel::fork_safety
