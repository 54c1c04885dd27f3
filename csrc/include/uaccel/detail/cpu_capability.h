#pragma once
// Which CPU instruction set the kernels compiled per ISA (*_isa.cpp) run with.
//
// ATen trusts ATEN_CPU_CAPABILITY: forcing `avx512` on a CPU without AVX-512 makes it (and a
// naive copy of its choice) execute illegal instructions. Ours takes ATen's request as a ceiling
// and never goes past what the CPU itself reports, nor past what this build compiled.
#include <string>
#include <vector>

#include <uaccel/export.h>

namespace uaccel::cpu {

// Ordered: each level's kernels need the flags of all the levels below it.
enum class Capability : int { DEFAULT = 0, AVX2 = 1, AVX512 = 2 };

const char* capability_name(Capability capability);

struct CapabilityChoice {
  Capability capability;
  std::string reason;  // one line: why this level and not the one requested
};

// The choice given ATen's request ("DEFAULT", "AVX2", "AVX512", any case; empty = the CPU's best)
// and the CPU's feature flags as /proc/cpuinfo names them ("avx2", "fma", "avx512f", ...).
// Pure, so tests can give it any CPU.
CapabilityChoice choose_capability(const std::string& requested, const std::vector<std::string>& cpu_flags);

// The flags of this CPU that choose_capability looks at (usable ones: CPU and OS support both).
std::vector<std::string> cpu_flags();

// The levels this CPU and this build can run, lowest first.
std::vector<Capability> runnable_capabilities(const std::vector<std::string>& cpu_flags);

// choose_capability(at::get_cpu_capability(), cpu_flags()), computed once per process.
UACCEL_API const CapabilityChoice& capability();

// Whether this CPU has AVX512_BF16 (AMD Zen 4 on, Intel Cooper Lake and Sapphire Rapids on), whose
// one instruction narrows two float vectors to bfloat16 (cpu_loops.h); computed once per process.
UACCEL_API bool has_avx512_bf16();

} // namespace uaccel::cpu
