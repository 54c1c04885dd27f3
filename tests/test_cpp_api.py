"""The C++ API (csrc/include/uaccel) from a separately compiled program: the ops go through the
dispatcher, so a C++ caller gets first and second derivatives from the Autograd registrations."""

import os
import pathlib
import shutil
import subprocess
import sys

import pytest
import torch
import torch.nn.functional as F
from torch.utils.cpp_extension import load_inline

import torch_uaccel

pytestmark = pytest.mark.slow  # compiles a C++ program

# The headers the package installs (its C++ API includes uaccel/pointwise_ops.h, generated at build time).
INCLUDE_DIR = pathlib.Path(torch_uaccel.__file__).with_name("include")

SOURCE = r"""
#include <torch/extension.h>
#include <uaccel/uaccel.h>

// y, dy/dx and d2y/dx2 (summed), all computed by C++ autograd over uaccel::elu.
std::vector<at::Tensor> elu_derivatives(const at::Tensor& x, double alpha) {
  pybind11::gil_scoped_release no_gil;  // the autograd engine refuses to run under the GIL
  auto leaf = x.detach().requires_grad_(true);
  auto y = uaccel::elu(leaf, alpha);
  auto dy = torch::autograd::grad({y.sum()}, {leaf}, {}, /*retain_graph=*/true, /*create_graph=*/true)[0];
  auto d2y = torch::autograd::grad({dy.sum()}, {leaf})[0];
  return {y.detach(), dy.detach(), d2y};
}

// The plumbing from C++: an aligned buffer filled by async_copy_, allocations counted, and a
// host registration of it.
std::vector<int64_t> plumbing(const at::Tensor& src, int64_t alignment) {
  const auto before = uaccel::memory::stats();
  auto buffer = uaccel::memory::aligned_empty(src.sizes(), alignment, src.scalar_type());
  uaccel::async_copy_(buffer, src);
  const auto after = uaccel::memory::stats();
  auto registration = uaccel::host::register_host(buffer);
  uaccel::host::unregister_host(registration.id);
  return {static_cast<int64_t>(reinterpret_cast<uintptr_t>(buffer.data_ptr()) % alignment),
          after.allocations - before.allocations, buffer.equal(src) ? 1 : 0};
}
"""


@pytest.fixture(scope="module")
def cpp_program(tmp_path_factory):
    library = torch_uaccel._native.path
    return load_inline(
        name="uaccel_cpp_api_test",
        cpp_sources=SOURCE,
        functions=["elu_derivatives", "plumbing"],
        extra_include_paths=[str(INCLUDE_DIR)],
        extra_ldflags=[f"-L{library.parent}", f"-l:{library.name}", f"-Wl,-rpath,{library.parent}"],
        build_directory=str(tmp_path_factory.mktemp("cpp_api")),
        verbose=bool(os.environ.get("UACCEL_VERBOSE_BUILD")),
    )


@pytest.mark.parametrize("alpha", [1.0, 0.1, -0.5])
def test_cpp_caller_gets_first_and_second_derivatives(cpp_program, device, alpha):
    x = torch.randn(64, dtype=torch.float64, device=device)
    x = x.sign() * (x.abs() + 0.05)
    y, dy, d2y = cpp_program.elu_derivatives(x, alpha)

    ref = x.clone().requires_grad_()
    ref_y = F.elu(ref, alpha)
    (ref_dy,) = torch.autograd.grad(ref_y.sum(), ref, create_graph=True)
    (ref_d2y,) = torch.autograd.grad(ref_dy.sum(), ref)
    torch.testing.assert_close(y, ref_y.detach())
    torch.testing.assert_close(dy, ref_dy.detach())
    torch.testing.assert_close(d2y, ref_d2y)


def test_cpp_caller_reaches_memory_copy_and_host_registration(cpp_program):
    misalignment, allocations, equal = cpp_program.plumbing(torch.randn(33, 17), 4096)
    assert (misalignment, allocations, equal) == (0, 1, 1)


def test_package_uses_the_library_a_cpp_host_already_loaded(tmp_path):
    """A C++ program that linked TorchUaccel::uaccel (here: another copy of the library, loaded
    first) and then imports torch_uaccel: the package uses the loaded library instead of
    registering the uaccel ops a second time, which the dispatcher would refuse."""
    host_copy = tmp_path / "libuaccel.so"
    shutil.copyfile(torch_uaccel._native.path, host_copy)
    code = f"""
import ctypes
import torch
ctypes.CDLL({str(host_copy)!r}, mode=ctypes.RTLD_GLOBAL)
import torch_uaccel
x = torch.randn(100, requires_grad=True)
torch.testing.assert_close(torch_uaccel.elu(x, 1.0), torch.nn.functional.elu(x, 1.0))
maps = open("/proc/self/maps").read()
assert {str(host_copy)!r} in maps and {str(torch_uaccel._native.path)!r} not in maps, maps
"""
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
