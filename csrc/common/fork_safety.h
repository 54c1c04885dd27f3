#pragma once
// fork() copies the process with only the calling thread. A mutex another thread held at that moment
// stays locked in the child forever (nobody is left to unlock it), and the state it guarded may be
// half-updated. Every piece of process-wide state in libuaccel registers its mutex here: the forking
// thread takes all of them just before fork() (pthread_atfork's prepare step), so the state is
// between updates when it is copied; both processes release them right after, and then the child runs
// each state's own child step (resetting what a child must not inherit).
//
// The rule that keeps the prepare step deadlock-free: while holding a registered mutex, never wait
// for the GIL (Python's os.fork() holds it across the handlers), for another registered mutex, or for
// anything else the forking thread may hold.
#include <cstdint>
#include <mutex>

namespace uaccel::fork_safety {

// Registers `mutex` (process lifetime) and an optional step run in each forked child after every
// registered mutex is released. Called while the library loads.
void register_state(std::mutex& mutex, void (*in_child)() = nullptr);

// 0 in the process that loaded the library, one more in each generation of forked child: state
// made before a fork can tell it belongs to an ancestor (its page locks, its CUDA memory).
uint64_t generation();

} // namespace uaccel::fork_safety
