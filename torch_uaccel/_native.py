"""Loads libuaccel, the native library that registers every `torch.ops.uaccel` operator (schemas,
CPU/CUDA kernels, autograd) and holds the allocator and the host registry. Python adds only fake
kernels, transform rules and wrappers on top.

A process that already holds libuaccel (a C++ host that linked TorchUaccel::uaccel and embeds
Python) keeps its copy: loading a second one would register the `uaccel` library twice.
"""

import pathlib
import warnings

import torch

path = pathlib.Path(__file__).with_name("libuaccel.so")
# The LibTorch CMake package inside the Python package (setup.py installs it): a C++ project uses
# find_package(TorchUaccel) with CMAKE_PREFIX_PATH set to this, as to torch.utils.cmake_prefix_path.
cmake_prefix_path = str(path.with_name("share") / "cmake")


def _already_registered() -> bool:
    try:
        torch._C._dispatch_find_schema_or_throw("uaccel::build_info", "")
    except RuntimeError:
        return False
    return True


def _minor(version: str) -> str:
    return ".".join(version.split("+")[0].split(".")[:2])


def check_torch(built: str, built_cuda: str | None, found: str, found_cuda: str | None) -> None:
    """libuaccel links torch's C++ ABI, which changes between minor releases, and a CUDA build links
    CUDA's runtime of one major version: anything else would fail with an undefined symbol or a
    missing library. Say which torch is needed instead, and how to get a matching pair."""
    mismatch = _minor(built) != _minor(found)
    if built_cuda is not None:
        mismatch |= found_cuda is None or found_cuda.split(".")[0] != built_cuda.split(".")[0]
    if mismatch:
        kind = f"CUDA {built_cuda}" if built_cuda else "CPU"
        raise ImportError(
            f"torch_uaccel: this build is for torch {_minor(built)} ({kind} build; built against {built}), but torch "
            f"{found} ({f'CUDA {found_cuda}' if found_cuda else 'CPU'} build) is installed. Install the matching torch "
            f"(pip install 'torch=={_minor(built)}.*'), or a torch_uaccel built for this torch: from source, "
            f"`pip install --no-build-isolation .` in a checkout, or `make wheel TORCH={found.split('+')[0]}` there"
        )


def build_facts() -> dict:
    """uaccel::build_info's values by the names its schema gives them."""
    op = torch.ops.uaccel.build_info.default
    return dict(zip((r.name for r in op._schema.returns), op(), strict=True))


def check_parallel(library: str, compiled: str) -> None:
    """Warns where a library's CPU kernels were compiled for another thread pool than torch's: they then
    run on the calling thread alone (torch's OpenMP loop compiled without OpenMP). A warning, not a
    refusal: every result is still right, only slower where torch has more than one thread."""
    info = build_facts()
    if compiled != info["torch_parallel"]:
        warnings.warn(
            f"torch_uaccel: {library}'s CPU kernels were compiled for the thread pool {compiled!r}, but torch runs "
            f"{info['torch_parallel']!r}: they will run on one thread whatever torch.set_num_threads says. Rebuild "
            f"it with a compiler that supports OpenMP (torch_uaccel's CMake function passes -fopenmp)",
            RuntimeWarning,
            stacklevel=3,
        )


def load() -> None:
    if _already_registered():
        return
    try:
        from ._build import CUDA_VERSION, TORCH_VERSION  # written by setup.py with the library
    except ImportError:
        pass  # a library built by hand (CMake): loading it says whether it fits
    else:
        check_torch(TORCH_VERSION, CUDA_VERSION, torch.__version__, torch.version.cuda)
    try:
        torch.ops.load_library(path)
    except OSError as error:  # missing, or undefined symbols: built against another torch
        raise ImportError(
            f"torch_uaccel: could not load its native library {path} ({error}). It must be built against the "
            f"torch that is installed now ({torch.__version__}); rebuild with `pip install --no-build-isolation -e .`"
        ) from error
    check_parallel("libuaccel", build_facts()["cpu_parallel"])
