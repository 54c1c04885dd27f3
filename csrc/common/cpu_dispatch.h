#pragma once
// CPU kernels compiled once per instruction set and chosen at run time, as ATen's DispatchStub:
//
//   // <op>_kernels.h: the kernel's type and its dispatch point
//   using ForwardFn = void (*)(at::TensorIteratorBase&, ...);
//   UACCEL_DECLARE_CPU_DISPATCH(forward_stub, ForwardFn);
//   // <op>_cpu_isa.cpp (built once per ISA, see CMakeLists.txt): the kernel, registered for that ISA
//   UACCEL_REGISTER_CPU_KERNEL(forward_stub, &forward);
//   // the caller
//   forward_stub(iter, ...);
//
// The call runs the kernel of cpu::capability() (ATEN_CPU_CAPABILITY's request, never past what
// the CPU runs), or of the best level below it that this build compiled.
#include <c10/util/Exception.h>

#include <array>
#include <utility>

#include "common/cpu_capability.h"

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

#define UACCEL_DECLARE_CPU_DISPATCH(name, fn_type) inline ::uaccel::cpu::CpuDispatch<fn_type> name

// In a *_isa.cpp file: registers `fn` as `name`'s kernel for the ISA this copy is compiled for.
#define UACCEL_REGISTER_CPU_KERNEL(name, fn)                   \
  static const bool C10_CONCATENATE(name, _registered_) = [] { \
    name.set(::uaccel::cpu::Capability::CPU_CAPABILITY, fn);   \
    return true;                                               \
  }()
