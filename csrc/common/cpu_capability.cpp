#include <uaccel/detail/cpu_capability.h>

#include <ATen/Version.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>

namespace uaccel::cpu {
namespace {

// The flags ATen requires for each level (aten/src/ATen/native/DispatchStub.cpp).
struct Level {
  Capability capability;
  std::vector<const char*> flags;
  bool compiled;
};

const std::array<Level, 3>& levels() {
  static const std::array<Level, 3> table = {{
      {Capability::DEFAULT, {}, true},
#ifdef UACCEL_HAVE_AVX2
      {Capability::AVX2, {"avx2", "fma"}, true},
#else
      {Capability::AVX2, {"avx2", "fma"}, false},
#endif
#ifdef UACCEL_HAVE_AVX512
      {Capability::AVX512, {"avx2", "fma", "avx512f", "avx512bw", "avx512vl", "avx512dq"}, true},
#else
      {Capability::AVX512, {"avx2", "fma", "avx512f", "avx512bw", "avx512vl", "avx512dq"}, false},
#endif
  }};
  return table;
}

std::vector<std::string> missing_flags(const Level& level, const std::vector<std::string>& cpu_flags) {
  std::vector<std::string> missing;
  for (const char* flag : level.flags) {
    if (std::find(cpu_flags.begin(), cpu_flags.end(), flag) == cpu_flags.end()) {
      missing.emplace_back(flag);
    }
  }
  return missing;
}

std::string join(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& word : words) {
    out += (out.empty() ? "" : " ") + word;
  }
  return out;
}

} // namespace

const char* capability_name(Capability capability) {
  switch (capability) {
    case Capability::AVX2:
      return "AVX2";
    case Capability::AVX512:
      return "AVX512";
    default:
      return "DEFAULT";
  }
}

std::vector<Capability> runnable_capabilities(const std::vector<std::string>& cpu_flags) {
  std::vector<Capability> runnable;
  for (const auto& level : levels()) {
    if (level.compiled && missing_flags(level, cpu_flags).empty()) {
      runnable.push_back(level.capability);
    }
  }
  return runnable;
}

CapabilityChoice choose_capability(const std::string& requested, const std::vector<std::string>& cpu_flags) {
  std::string wanted = requested;
  std::transform(wanted.begin(), wanted.end(), wanted.begin(), [](unsigned char c) { return std::toupper(c); });
  const Capability best = runnable_capabilities(cpu_flags).back();
  if (wanted.empty()) {
    return {best, "the CPU's best"};
  }
  const auto level = std::find_if(levels().begin(), levels().end(), [&](const Level& l) {
    return wanted == capability_name(l.capability);
  });
  if (level == levels().end()) {  // another architecture's name (ATen on aarch64 says SVE256, ...)
    return {best, "requested " + requested + ", which has no kernels here: fell back to " + capability_name(best)};
  }
  if (level->capability <= best) {
    return {level->capability, std::string("requested ") + capability_name(level->capability)};
  }
  const auto missing = missing_flags(*level, cpu_flags);
  return {
      best,
      std::string("requested ") + capability_name(level->capability) + ", but " +
          (missing.empty() ? std::string("this build has no such kernels") : "this CPU lacks " + join(missing)) +
          ": fell back to " + capability_name(best)};
}

std::vector<std::string> cpu_flags() {
  std::vector<std::string> flags;
#if defined(__x86_64__) || defined(_M_X64)
  // libgcc's checks include the OS's support (XSAVE state enabled), not only cpuid's bits.
  __builtin_cpu_init();
  const std::pair<const char*, bool> supported[] = {
      {"avx2", __builtin_cpu_supports("avx2")},
      {"fma", __builtin_cpu_supports("fma")},
      {"avx512f", __builtin_cpu_supports("avx512f")},
      {"avx512bw", __builtin_cpu_supports("avx512bw")},
      {"avx512vl", __builtin_cpu_supports("avx512vl")},
      {"avx512dq", __builtin_cpu_supports("avx512dq")},
      {"avx512_bf16", __builtin_cpu_supports("avx512bf16")},
  };
  for (const auto& [flag, present] : supported) {
    if (present) {
      flags.emplace_back(flag);
    }
  }
#endif
  return flags;
}

const CapabilityChoice& capability() {
  static const CapabilityChoice chosen = [] {
    // ATen's choice: ATEN_CPU_CAPABILITY if set (which ATen does not check), else the CPU's best.
    const char* forced = std::getenv("ATEN_CPU_CAPABILITY");
    auto choice = choose_capability(at::get_cpu_capability(), cpu_flags());
    choice.reason = (forced != nullptr ? std::string("ATEN_CPU_CAPABILITY=") + forced : std::string("ATen's choice")) +
        ": " + choice.reason;
    return choice;
  }();
  return chosen;
}

bool has_avx512_bf16() {
  static const bool present = [] {
    const auto flags = cpu_flags();
    return std::find(flags.begin(), flags.end(), "avx512_bf16") != flags.end();
  }();
  return present;
}

} // namespace uaccel::cpu
