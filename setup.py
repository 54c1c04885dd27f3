"""Build torch_uaccel: CMake (CMakeLists.txt, the one build description) builds libuaccel, and this
script copies it into the package, where torch_uaccel/_library.py loads it. The same CMake project
installs the LibTorch package (find_package(TorchUaccel)); see the README.

setup.py only translates the environment into CMake options (as vLLM's setup.py does):
  UACCEL_CPU_ONLY=1       build without the CUDA kernels even when torch is a CUDA build
  TORCH_CUDA_ARCH_LIST    CUDA archs to compile (default in CMakeLists.txt)
  MAX_JOBS                parallel compile jobs (default: all cores)
  UACCEL_SANITIZE=1       AddressSanitizer + UndefinedBehaviorSanitizer build (see `make sanitize`)
  UACCEL_BUILD_TESTS=1    also build the GoogleTest suite and the C++ examples (`make cpp-test`)
  UACCEL_BUILD_DIR        the CMake build tree (default build/cmake-torch<version>); `make` names one
                          per environment, so ctest runs against the library Python loads
"""

import os
import shutil
import subprocess
import sys

import torch
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))


def _enabled(variable: str) -> bool:
    return os.environ.get(variable, "0") not in ("", "0")


def _cuda_compiler() -> str | None:
    """The real nvcc. torch (and CMake) guess the toolkit root from nvcc's directory, which is wrong
    when nvcc is a wrapper script in /usr/local/bin (they would look for libraries in /usr/local/lib)."""
    nvcc = shutil.which("nvcc")
    candidates = [os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"]
    if nvcc:
        candidates.insert(2, os.path.dirname(os.path.dirname(os.path.realpath(nvcc))))
    for root in filter(None, candidates):
        compiler = os.path.join(root, "bin", "nvcc")
        if os.path.exists(os.path.join(root, "include", "cuda_runtime.h")) and os.path.exists(compiler):
            return compiler
    return None


def _tool(name: str) -> str:
    """The environment's own cmake/ninja (pip-installed beside this Python) before the system's."""
    beside_python = os.path.join(os.path.dirname(sys.executable), name)
    return beside_python if os.path.exists(beside_python) else name


def cmake_arguments() -> list[str]:
    """CUDA is decided from torch (a CUDA build) and the toolkit, never from
    torch.cuda.is_available(): build hosts often have no GPU."""
    arguments = [
        "-G",
        "Ninja",
        "-DCMAKE_BUILD_TYPE=Release",
        f"-DCMAKE_PREFIX_PATH={torch.utils.cmake_prefix_path}",
        f"-DPython3_EXECUTABLE={sys.executable}",
        f"-DUACCEL_TORCH_VERSION={torch.__version__}",
        f"-DUACCEL_SANITIZE={'ON' if _enabled('UACCEL_SANITIZE') else 'OFF'}",
        f"-DUACCEL_BUILD_TESTS={'ON' if _enabled('UACCEL_BUILD_TESTS') else 'OFF'}",
    ]
    arguments.append(f"-DCMAKE_MAKE_PROGRAM={_tool('ninja')}")
    compiler = _cuda_compiler()
    with_cuda = torch.version.cuda is not None and compiler is not None and not _enabled("UACCEL_CPU_ONLY")
    arguments.append(f"-DUACCEL_CPU_ONLY={'OFF' if with_cuda else 'ON'}")
    if compiler:  # torch's CMake config looks for the toolkit whenever torch is a CUDA build
        root = os.path.dirname(os.path.dirname(compiler))
        arguments += [
            f"-DCMAKE_CUDA_COMPILER={compiler}",
            f"-DCUDAToolkit_ROOT={root}",
            f"-DCUDA_TOOLKIT_ROOT_DIR={root}",
        ]
    if os.environ.get("TORCH_CUDA_ARCH_LIST"):
        arguments.append(f"-DTORCH_CUDA_ARCH_LIST={os.environ['TORCH_CUDA_ARCH_LIST']}")
    return arguments


class CMakeBuild(build_ext):
    """Configures and builds the CMake project, then copies libuaccel.so next to the package's modules."""

    def get_ext_filename(self, fullname: str) -> str:
        return os.path.join(*fullname.split(".")) + ".so"  # libuaccel.so: a plain library, no Python ABI tag

    def build_extension(self, ext: Extension) -> None:
        build_dir = os.environ.get("UACCEL_BUILD_DIR") or os.path.join(ROOT, "build", f"cmake-torch{torch.__version__}")
        cmake = _tool("cmake")
        subprocess.check_call([cmake, "-S", ROOT, "-B", build_dir, *cmake_arguments()])
        jobs = os.environ.get("MAX_JOBS") or str(os.cpu_count() or 1)
        subprocess.check_call([cmake, "--build", build_dir, "-j", jobs])
        destination = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(destination), exist_ok=True)
        # A new file renamed over the old one: processes that have the old library mapped keep it.
        shutil.copyfile(os.path.join(build_dir, "libuaccel.so"), destination + ".tmp")
        os.replace(destination + ".tmp", destination)


setup(ext_modules=[Extension("torch_uaccel.libuaccel", sources=[])], cmdclass={"build_ext": CMakeBuild})
