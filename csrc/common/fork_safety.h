#pragma once
// fork() copies the process with only the calling thread. A mutex another thread held at that moment
// stays locked in the child forever (nobody is left to unlock it), and the state it guarded may be
// half-updated. Every piece of process-wide state in libuaccel registers its mutex here: the forking
// thread takes all of them just before fork() (pthread_atfork's prepare step), so the state is
// between updates when it is copied; both processes release them right after, and then the child runs
// each state's own child step (resetting what a child must not inherit).
//
// A child step runs where POSIX allows only async-signal-safe calls (a child of a threaded process,
// before exec): it must neither allocate nor free. An allocator without fork handlers of its own
// hangs there when another thread of the parent held its lock at fork() (GCC 12's AddressSanitizer:
// seen, freeing map nodes in a child step). What a child drops it abandons (abandon_in_child).
//
// The rule that keeps the prepare step deadlock-free: while holding a registered mutex, never wait
// for the GIL (Python's os.fork() holds it across the handlers), for another registered mutex, or for
// anything else the forking thread may hold. A lock of torch's that we call into (its traceback frames,
// leak_tracker.cpp) is entered only while holding a registered mutex or the GIL, so no thread is inside
// it at fork() either.
#include <cstdint>
#include <mutex>
#include <new>
#include <type_traits>
#include <utility>

namespace uaccel::fork_safety {

// Registers `mutex` (process lifetime) and an optional step run in each forked child after every
// registered mutex is released. Called while the library loads.
void register_state(std::mutex& mutex, void (*in_child)() = nullptr);

// 0 in the process that loaded the library, one more in each generation of forked child: state
// made before a fork can tell it belongs to an ancestor (its page locks, its CUDA memory).
uint64_t generation();

// For child steps: leaves `state` empty by moving what it holds into storage that is never destroyed,
// so nothing is freed (a standard container's move allocates nothing). The child's copy of the
// parent's memory stays mapped, as it would have anyway; a later fork abandons over it.
template <typename Container>
void abandon_in_child(Container& state) {
  static_assert(std::is_nothrow_move_constructible_v<Container>);
  alignas(Container) static unsigned char graveyard[sizeof(Container)];
  new (graveyard) Container(std::move(state));
  state.clear();  // moved-from standard containers are valid but unspecified; empty ones free nothing
}

} // namespace uaccel::fork_safety
