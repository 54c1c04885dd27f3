// RMSNorm's CPU kernels: its descriptions (csrc/ops/rms_norm.h) on the row-wise CPU engine, compiled once
// per instruction set (CMakeLists.txt) and registered with the dispatch points of rms_norm.h.
#include <uaccel/detail/rowwise_cpu.h>

#include "rms_norm_kernels.h"

namespace uaccel::rowwise {
inline namespace CPU_CAPABILITY {
namespace {

struct OnCpu {
  static bool device_guard(const at::Tensor&) { return true; }
  template <typename D, typename T>
  static void run(const D& description, const Operands<D, T>& operands) {
    run_cpu(description, operands);
  }
};

const bool registered = [] {
  rms_norm_forward_dispatch.set(cpu::Capability::CPU_CAPABILITY, &rms_norm_forward<OnCpu>);
  rms_norm_backward_dispatch.set(cpu::Capability::CPU_CAPABILITY, &rms_norm_backward<OnCpu>);
  return true;
}();

} // namespace
} // namespace CPU_CAPABILITY
} // namespace uaccel::rowwise
