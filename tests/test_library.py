"""libuaccel.so as the dynamic linker sees it. C++'s runtime must be the process's shared
libstdc++.so.6: a build that linked libstdc++.a (a CUDA image's toolchain did) carries and exports
a second copy, and the two mix inside one stream write (an error message that formats a number
crashed in std::codecvt on the H200 machine)."""

import shutil
import subprocess

import pytest

import torch_uaccel

pytestmark = pytest.mark.torch_release

READELF = shutil.which("readelf")
# Functions only libstdc++ itself defines: std::locale::classic(), std::ios_base::Init::Init().
LIBSTDCXX_INTERNALS = ("_ZNSt6locale7classicEv", "_ZNSt8ios_base4InitC1Ev")


def _readelf(*options: str) -> str:
    return subprocess.run([READELF, *options, str(torch_uaccel._native.path)], check=True, capture_output=True,
                          text=True).stdout  # fmt: skip


@pytest.mark.skipif(READELF is None, reason="needs binutils' readelf")
def test_cpp_runtime_is_the_shared_libstdcxx():
    assert "Shared library: [libstdc++.so.6]" in _readelf("-d")
    defined = [line for line in _readelf("--dyn-syms", "-W").splitlines() if " UND " not in line]
    exported = [name for name in LIBSTDCXX_INTERNALS if any(line.endswith(" " + name) for line in defined)]
    assert not exported, f"libuaccel.so defines libstdc++'s own functions {exported}: it linked a static libstdc++"
