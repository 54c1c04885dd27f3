#pragma once
// CPU kernels compiled once per instruction set and chosen at run time, as ATen's DispatchStub. A
// dispatch point is a CpuDispatch<kernel type>; each per-ISA copy of a kernel file (*_isa.cpp,
// compiled once per ISA by CMakeLists.txt) sets its kernel for the ISA it is compiled for
// (`stub.set(Capability::CPU_CAPABILITY, &kernel)`, as library_cpu_isa.cpp does), and a call
// `stub(args...)` runs the kernel of cpu::capability() (ATEN_CPU_CAPABILITY's request, never past
// what the CPU runs), or of the best level below it that this build compiled.
#include <c10/util/Exception.h>

#include <array>
#include <utility>

#include <uaccel/detail/cpu_capability.h>

namespace uaccel::cpu {

template <typename Fn>
class CpuDispatch {
 public:
  // constexpr: the table is filled by static initialisers of the *_isa.cpp files, so it must be
  // constant-initialised before any of them runs.
  constexpr CpuDispatch() = default;

  void set(Capability level, Fn kernel) { kernels_[static_cast<size_t>(level)] = kernel; }

  template <typename... Args>
  decltype(auto) operator()(Args&&... args) const {
    return kernel()(std::forward<Args>(args)...);
  }

  Fn kernel() const {
    for (int level = static_cast<int>(capability().capability); level >= 0; --level) {
      if (const Fn kernel = kernels_[level]) {
        return kernel;
      }
    }
    TORCH_CHECK(false, "uaccel: no CPU kernel was compiled for this dispatch point (is the DEFAULT one missing?)");
  }

 private:
  std::array<Fn, static_cast<size_t>(Capability::AVX512) + 1> kernels_{};
};

} // namespace uaccel::cpu
