#include "memory/leak_tracker.h"

#include <torch/csrc/profiler/combined_traceback.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <unordered_set>

#include "common/fork_safety.h"

namespace uaccel::memory::leak_tracker {
namespace {

struct Record {
  size_t bytes;
  c10::Device device;
  int64_t sequence;
  // Python frames of the allocating call, symbolized only if the block turns out to leak.
  std::shared_ptr<torch::CapturedTraceback> traceback;
};

constexpr size_t kFramesShown = 4;

using Records = std::unordered_map<const void*, Record>;

std::atomic<int> open_blocks{0};                  // open_tokens.size(), read without the lock
std::mutex mutex;
int64_t next_sequence = 0;                        // guarded by mutex
std::unordered_set<int64_t> open_tokens;          // guarded by mutex
Records live;                                     // guarded by mutex

// Tracebacks and fork(). torch guards its Python frames with a mutex of its own
// (`to_free_frames_mutex`, combined_traceback.cpp), which no fork handler of ours can take. gather()
// locks it only while holding the GIL, which Python's os.fork() holds across fork(), so no thread is
// inside it at that moment; destroying a traceback locks it *without* the GIL. So every traceback here
// is destroyed while holding `mutex`, which the prepare step takes before fork(): no thread is then
// inside torch's lock either, and a child never inherits it locked (seen before: 1 child in ~3000 hung
// in gather(), the parent's thread having been destroying a record when fork() came).
//
// A forked child starts with no open block: what it allocates is not the parent's leak, and the
// blocks other threads had open would never close there. A block the parent opened refuses to end
// in the child (end() names why). The records are abandoned, not destroyed: a child step frees
// nothing (fork_safety.h).
void forget_blocks_in_child() {
  fork_safety::abandon_in_child(live);
  fork_safety::abandon_in_child(open_tokens);
  open_blocks.store(0);
}

const bool fork_safe = (fork_safety::register_state(mutex, &forget_blocks_in_child), true);

std::string describe(torch::CapturedTraceback* traceback) {
  const auto symbolized = torch::symbolize({traceback});
  std::string where;
  const auto& frames = symbolized.tracebacks.at(0);
  for (size_t i = 0; i < std::min(frames.size(), kFramesShown); ++i) {
    const auto& frame = symbolized.all_frames.at(frames[i]);
    if (!where.empty()) {
      where += " <- ";
    }
    where += frame.filename + ":" + std::to_string(frame.lineno) + " in " + frame.funcname;
  }
  return where.empty() ? "(no Python frames: allocated from C++)" : where;
}

} // namespace

void on_allocate(const void* ptr, size_t bytes, c10::Device device) {
  if (open_blocks.load(std::memory_order_relaxed) == 0 || ptr == nullptr) {
    return;
  }
  // Gathered before the lock: gather() waits for the GIL, which a thread holding `mutex` must never do.
  auto traceback = torch::CapturedTraceback::gather(/*python=*/true, /*script=*/false, /*cpp=*/false);
  const std::lock_guard<std::mutex> lock(mutex);
  if (open_tokens.empty()) {
    traceback.reset();  // the last block closed meanwhile; destroyed under the lock (see above)
    return;
  }
  // An address freed while no block was open may still have a record: it is replaced.
  live.insert_or_assign(ptr, Record{bytes, device, next_sequence++, std::move(traceback)});
}

void on_free(const void* ptr) {
  if (open_blocks.load(std::memory_order_relaxed) == 0) {
    return;
  }
  const std::lock_guard<std::mutex> lock(mutex);
  live.erase(ptr);
}

int64_t begin() {
  const std::lock_guard<std::mutex> lock(mutex);
  const int64_t token = next_sequence++;  // unique, and every allocation after it has a larger sequence
  open_tokens.insert(token);
  open_blocks.store(static_cast<int>(open_tokens.size()));
  return token;
}

std::vector<Leak> end(int64_t token) {
  std::vector<std::pair<int64_t, Record>> leaked;  // copies: described outside the lock (GIL)
  {
    const std::lock_guard<std::mutex> lock(mutex);
    TORCH_CHECK(
        open_tokens.erase(token) == 1,
        "uaccel.memory_track_end: expected the token of a track() block open in this "
        "process, but got ",
        token,
        (fork_safety::generation() > 0 ? " (this is a forked child: blocks opened before "
                                         "fork() stay open in the parent, and a child starts with none)"
                                       : ""));
    for (const auto& [ptr, record] : live) {
      if (record.sequence > token) {
        leaked.emplace_back(record.sequence, record);
      }
    }
    open_blocks.store(static_cast<int>(open_tokens.size()));
    if (open_tokens.empty()) {
      live.clear();  // the outermost block closed: nobody needs the records any more
    }
  }
  std::sort(leaked.begin(), leaked.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<Leak> leaks;
  leaks.reserve(leaked.size());
  for (const auto& [sequence, record] : leaked) {
    leaks.push_back(Leak{static_cast<int64_t>(record.bytes), record.device.str(), describe(record.traceback.get())});
  }
  const std::lock_guard<std::mutex> lock(mutex);
  leaked.clear();  // the last references to the tracebacks may be these copies
  return leaks;
}

} // namespace uaccel::memory::leak_tracker
