#include "memory/leak_tracker.h"

#include <torch/csrc/profiler/combined_traceback.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <mutex>
#include <unordered_map>

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

std::atomic<int> open_blocks{0};
std::mutex mutex;
int64_t next_sequence = 0;                        // guarded by mutex
std::unordered_map<const void*, Record> live;     // guarded by mutex

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
  auto traceback = torch::CapturedTraceback::gather(/*python=*/true, /*script=*/false, /*cpp=*/false);
  const std::lock_guard<std::mutex> lock(mutex);
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
  open_blocks.fetch_add(1);
  return next_sequence;
}

std::vector<Leak> end(int64_t token) {
  std::vector<std::pair<int64_t, Record>> leaked;
  {
    const std::lock_guard<std::mutex> lock(mutex);
    TORCH_CHECK(open_blocks.load() > 0, "uaccel.memory_track_end: no track() block is open");
    for (const auto& [ptr, record] : live) {
      if (record.sequence >= token) {
        leaked.emplace_back(record.sequence, record);
      }
    }
    if (open_blocks.fetch_sub(1) == 1) {
      live.clear();  // the outermost block closed: nobody needs the records any more
    }
  }
  std::sort(leaked.begin(), leaked.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<Leak> leaks;
  leaks.reserve(leaked.size());
  for (const auto& [sequence, record] : leaked) {
    leaks.push_back(Leak{static_cast<int64_t>(record.bytes), record.device.str(), describe(record.traceback.get())});
  }
  return leaks;
}

} // namespace uaccel::memory::leak_tracker
