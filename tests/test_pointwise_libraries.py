"""torch_uaccel.library, the Python side of libraries of pointwise ops (this project's own, "uaccel", and
other projects': examples/custom_pointwise is built and tested against the wheel by `make example-test`),
and what the framework exports for them."""

import pathlib
import re

import pytest
import torch

import torch_uaccel
from torch_uaccel import _checks, library

pytestmark = pytest.mark.torch_release


def test_uaccel_is_the_first_library_loaded():
    assert library.loaded()[0] == "uaccel"


def test_api_version_is_the_installed_headers():
    header = pathlib.Path(torch_uaccel.__file__).with_name("include") / "uaccel" / "version.h"
    text = header.read_text()
    major, minor = (
        int(re.search(rf"#define UACCEL_VERSION_{part} (\d+)", text).group(1)) for part in ("MAJOR", "MINOR")
    )
    assert int(_checks.library_facts("uaccel")["api_version"]) == major * 100 + minor
    assert torch_uaccel.__version__.startswith(f"{major}.{minor}.")


def test_every_pointwise_op_names_its_library_in_its_messages():
    with pytest.raises(
        RuntimeError, match=r"^uaccel\.gelu: expected approximate to be one of 'none' or 'tanh', but got 'erf'"
    ):
        torch.ops.uaccel.gelu(torch.ones(2), approximate="erf")


def test_load_refuses_what_is_not_a_library_of_pointwise_ops(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"torch_uaccel.library.load: no library file .*libnothing.so"):
        library.load(tmp_path / "libnothing.so")
    with pytest.raises(
        ValueError, match=r"no library of pointwise ops with namespace 'nothing' is loaded \(loaded: uaccel"
    ):
        library.load("nothing")
    not_a_library = tmp_path / "libjunk.so"
    not_a_library.write_bytes(b"not an ELF file")
    with pytest.raises(ImportError, match=r"could not load .*libjunk.so .*rebuild it in this environment"):
        library.load(not_a_library)


def test_the_installed_package_carries_the_framework():
    """What another project compiles against: the public headers, the CMake function and the
    registration units (docs/custom_ops.md), with nothing of the plumbing's internals."""
    package = pathlib.Path(torch_uaccel.__file__).parent
    include = package / "include" / "uaccel"
    for header in ("pointwise.h", "version.h", "math/vec_math.h", "detail/registration.h", "pointwise_ops.h"):
        assert (include / header).is_file(), header
    assert not list(include.rglob("activation*.h"))  # this library's own engineering stays out of the API
    cmake = pathlib.Path(torch_uaccel.cmake_prefix_path) / "TorchUaccel"
    assert (cmake / "TorchUaccelPointwise.cmake").is_file()
    assert {p.name for p in (cmake / "pointwise").iterdir()} == {
        "library.cpp",
        "library_cpu_isa.cpp",
        "library_cuda.cu",
        "generate_api.cpp",
    }
    assert not list(include.rglob("fork_safety.h"))
