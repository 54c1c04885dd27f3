"""What pip and a C++ build see of an installed torch_uaccel: the version and requirement pinned to the
torch it was built for, the refusal to load into another torch, and the CMake package inside."""

import importlib.metadata
import json
import pathlib
import re
import subprocess
import sys

import pytest
import torch
from conftest import INSTALLED

import torch_uaccel
from torch_uaccel import _build, _native, _version

pytestmark = pytest.mark.torch_release

ROOT = pathlib.Path(__file__).resolve().parent.parent


def _minor(version):
    return tuple(int(part) for part in version.split("+")[0].split(".")[:2])


def test_the_build_is_for_this_torch_and_within_the_supported_range():
    assert _version.TORCH_OLDEST <= _minor(torch.__version__) <= _version.TORCH_NEWEST
    assert _minor(_build.TORCH_VERSION) == _minor(torch.__version__)
    assert (_build.CUDA_VERSION is not None) == torch_uaccel.build_info()["cuda"]


def test_pip_metadata_pins_the_torch_minor_and_names_the_variant():
    # What pip installed (a dist-info in site-packages), not a build's torch_uaccel.egg-info in the checkout.
    installed = [entry for entry in sys.path if entry.endswith("site-packages")]
    (distribution,) = importlib.metadata.distributions(name="torch_uaccel", path=installed)
    major, minor = _minor(_build.TORCH_VERSION)
    assert f"torch=={major}.{minor}.*" in distribution.requires
    variant = f"cu{_build.CUDA_VERSION.replace('.', '')}" if _build.CUDA_VERSION else "cpu"
    assert distribution.version == f"{_version.__version__}+pt{major}{minor}{variant}"


@pytest.mark.parametrize(
    "built, built_cuda, found, found_cuda, fits",
    [
        ("2.15.0+cu132", "13.2", "2.15.1+cu130", "13.0", True),  # CUDA's minor-version compatibility
        ("2.15.0+cpu", None, "2.15.0+cu132", "13.2", True),  # CPU kernels only: any 2.15 serves
        ("2.15.0+cu132", "13.2", "2.14.1+cu130", "13.0", False),
        ("2.14.1+cu130", "13.0", "2.15.0+cu132", "13.2", False),
        ("2.15.0+cu132", "13.2", "2.15.0+cpu", None, False),  # libtorch_cuda is missing there
        ("2.15.0+cu132", "13.2", "2.15.0+cu129", "12.9", False),  # another CUDA runtime soname
    ],
)
def test_loading_into_another_torch_is_refused_naming_both(built, built_cuda, found, found_cuda, fits):
    if fits:
        _native.check_torch(built, built_cuda, found, found_cuda)
        return
    with pytest.raises(ImportError) as raised:
        _native.check_torch(built, built_cuda, found, found_cuda)
    message = str(raised.value)
    assert message.startswith(f"torch_uaccel: this build is for torch {built.split('+')[0].rsplit('.', 1)[0]}")
    assert built in message and found in message
    assert re.search(r"pip install 'torch==\d+\.\d+\.\*'", message)
    assert "pip install --no-build-isolation ." in message


def test_the_cmake_package_is_inside_the_python_package():
    prefix = pathlib.Path(torch_uaccel.cmake_prefix_path)
    config = prefix / "TorchUaccel" / "TorchUaccelConfig.cmake"
    assert config.is_file()
    targets = (prefix / "TorchUaccel" / "TorchUaccelTargets-release.cmake").read_text()
    assert '"${_IMPORT_PREFIX}/./libuaccel.so"' in targets  # the very library Python loads
    assert (prefix.parent.parent / "include" / "uaccel" / "uaccel.h").is_file()


@pytest.mark.skipif(INSTALLED, reason="needs the source tree and its build tools (not in a wheel's environment)")
def test_installing_from_source_changes_no_torch(tmp_path):
    """pip resolves a source install against the torch already here: it would install torch_uaccel
    and nothing else (no downgrade or upgrade of torch and its CUDA libraries)."""
    report = tmp_path / "report.json"
    command = [sys.executable, "-m", "pip", "install", "--dry-run", "--no-build-isolation", "--no-index", "-q"]
    subprocess.run([*command, "--report", str(report), str(ROOT)], check=True, timeout=300, capture_output=True)
    installs = json.loads(report.read_text())["install"]
    assert [item["metadata"]["name"] for item in installs] == ["torch_uaccel"]


def test_the_library_finds_torch_relative_to_site_packages():
    """RUNPATH starts with torch's lib directory beside the package (where a wheel is installed)."""
    dynamic = subprocess.run(["readelf", "-d", _native.path], capture_output=True, text=True, check=True).stdout
    runpath = re.search(r"RUNPATH.*\[(.*)\]", dynamic).group(1).split(":")
    assert runpath[0] == "$ORIGIN/../torch/lib"
    if INSTALLED:  # a wheel's library names no directory of the machine that built it
        assert all(entry.startswith("$ORIGIN/") for entry in runpath), runpath
