"""Build torch_uaccel: CMake (CMakeLists.txt, the one build description) builds libuaccel, and this
script copies it into the package, where torch_uaccel/_library.py loads it. The same CMake project
installs the LibTorch package (find_package(TorchUaccel)); see the README.

setup.py translates the environment into CMake options (as vLLM's setup.py does), and writes what
pip records: the version with the torch it was built for as its local label (0.1.0+pt215cu132), and
`torch==<that minor>.*` as the requirement, because the library loads only into that torch. A wheel
(`make wheel`) is tagged py3-none: libuaccel uses no Python C API.

  UACCEL_CPU_ONLY=1       build without the CUDA kernels even when torch is a CUDA build
  TORCH_CUDA_ARCH_LIST    CUDA archs to compile (default in CMakeLists.txt)
  MAX_JOBS                parallel compile jobs (default: all cores)
  UACCEL_SANITIZE=1       AddressSanitizer + UndefinedBehaviorSanitizer build (see `make sanitize`)
  UACCEL_BUILD_TESTS=1    also build the GoogleTest suite and the C++ examples (`make cpp-test`)
  UACCEL_WHEEL=1          a relocatable library for a wheel (`make wheel`): no absolute RUNPATH
  UACCEL_BUILD_DIR        the CMake build tree (default build/cmake-torch<version>); `make` names one
                          per environment, so ctest runs against the library Python loads
"""

import os
import runpy
import shutil
import subprocess
import sys

import torch
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

try:
    from setuptools.command.bdist_wheel import bdist_wheel
except ImportError:  # setuptools < 70.1 (a GPU image's): wheels need the `wheel` package there
    from wheel.bdist_wheel import bdist_wheel

ROOT = os.path.dirname(os.path.abspath(__file__))
VERSION = runpy.run_path(os.path.join(ROOT, "torch_uaccel", "_version.py"))
TORCH_MINOR = tuple(int(part) for part in torch.__version__.split("+")[0].split(".")[:2])
if not VERSION["TORCH_OLDEST"] <= TORCH_MINOR <= VERSION["TORCH_NEWEST"]:
    sys.exit(
        f"torch_uaccel {VERSION['__version__']} supports torch {VERSION['SUPPORTED_TORCH']}, but this environment "
        f"has torch {torch.__version__}"
    )


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


def with_cuda() -> bool:
    return torch.version.cuda is not None and _cuda_compiler() is not None and not _enabled("UACCEL_CPU_ONLY")


def local_label() -> str:
    """pt215cu132 or pt215cpu: the torch minor and CUDA variant a build is for, as torchvision's +cu132."""
    variant = "cu" + torch.version.cuda.replace(".", "") if with_cuda() else "cpu"
    return f"pt{TORCH_MINOR[0]}{TORCH_MINOR[1]}{variant}"


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
    # The package's layout (libuaccel.so beside the modules, include/, share/cmake/): torch's libraries
    # and CUDA's runtime (nvidia/cu13/lib) found relative to it in site-packages, and, unless this is
    # a wheel, where they are now (an editable install keeps the library in the source tree).
    site_packages = os.path.dirname(os.path.dirname(torch.__file__))
    lib_dirs = ["torch/lib"] + ([f"nvidia/cu{torch.version.cuda.split('.')[0]}/lib"] if torch.version.cuda else [])
    runpath = [f"$ORIGIN/../{d}" for d in lib_dirs]
    if not _enabled("UACCEL_WHEEL"):
        runpath += [os.path.join(site_packages, d) for d in lib_dirs]
    arguments += ["-DCMAKE_INSTALL_LIBDIR=.", f"-DUACCEL_INSTALL_RPATH={';'.join(runpath)}"]
    compiler = _cuda_compiler()
    arguments.append(f"-DUACCEL_CPU_ONLY={'OFF' if with_cuda() else 'ON'}")
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


BUILD_RECORD = """\
# Written by setup.py: the torch this copy of libuaccel was built against (_library.py checks it).
TORCH_VERSION = {torch!r}
CUDA_VERSION = {cuda!r}
"""


class CMakeBuild(build_ext):
    """Configures and builds the CMake project, then installs it into the package: libuaccel.so next
    to the modules, the C++ headers and the CMake package (torch_uaccel.cmake_prefix_path)."""

    def get_ext_filename(self, fullname: str) -> str:
        return os.path.join(*fullname.split(".")) + ".so"  # libuaccel.so: a plain library, no Python ABI tag

    def build_extension(self, ext: Extension) -> None:
        build_dir = os.environ.get("UACCEL_BUILD_DIR") or os.path.join(ROOT, "build", f"cmake-torch{torch.__version__}")
        cmake = _tool("cmake")
        subprocess.check_call([cmake, "-S", ROOT, "-B", build_dir, *cmake_arguments()])
        jobs = os.environ.get("MAX_JOBS") or str(os.cpu_count() or 1)
        subprocess.check_call([cmake, "--build", build_dir, "-j", jobs])
        stage = os.path.join(build_dir, "package")
        shutil.rmtree(stage, ignore_errors=True)
        subprocess.check_call([cmake, "--install", build_dir, "--prefix", stage])
        destination = self.get_ext_fullpath(ext.name)
        package = os.path.dirname(destination)
        os.makedirs(package, exist_ok=True)
        # A new file renamed over the old one: processes that have the old library mapped keep it.
        shutil.copyfile(os.path.join(stage, "libuaccel.so"), destination + ".tmp")
        os.replace(destination + ".tmp", destination)
        for tree in ("include", "share"):
            _replace_tree(os.path.join(stage, tree), os.path.join(package, tree))
        cuda = torch.version.cuda if with_cuda() else None
        with open(os.path.join(package, "_build.py"), "w") as record:
            record.write(BUILD_RECORD.format(torch=torch.__version__, cuda=cuda))

    def copy_extensions_to_source(self) -> None:
        """An editable install (-e) gets the headers, CMake package and build record too."""
        super().copy_extensions_to_source()
        source = self.get_finalized_command("build_py").get_package_dir("torch_uaccel")
        built = os.path.join(self.build_lib, "torch_uaccel")
        for tree in ("include", "share"):
            _replace_tree(os.path.join(built, tree), os.path.join(source, tree))
        shutil.copyfile(os.path.join(built, "_build.py"), os.path.join(source, "_build.py"))


def _replace_tree(source: str, destination: str) -> None:
    shutil.rmtree(destination, ignore_errors=True)
    shutil.copytree(source, destination)


class PlatformWheel(bdist_wheel):
    """py3-none-<platform>: native code, but none that uses Python's C API (torch.ops.load_library
    loads it), so one wheel serves every CPython the torch supports. `make wheel` then sets the
    manylinux tag the library's glibc symbols allow (auditwheel)."""

    def finalize_options(self) -> None:
        super().finalize_options()
        self.root_is_pure = False

    def get_tag(self) -> tuple[str, str, str]:
        return "py3", "none", super().get_tag()[2]


setup(
    version=f"{VERSION['__version__']}+{local_label()}",
    install_requires=[f"torch=={TORCH_MINOR[0]}.{TORCH_MINOR[1]}.*", "numpy"],
    ext_modules=[Extension("torch_uaccel.libuaccel", sources=[])],
    cmdclass={"build_ext": CMakeBuild, "bdist_wheel": PlatformWheel},
)
