"""Build torch_uaccel: CMake (CMakeLists.txt, the one build description) builds libuaccel, and this
script copies it into the package, where torch_uaccel/_native.py loads it. The same CMake project
installs the LibTorch package (find_package(TorchUaccel)); see the README.

setup.py translates the environment into CMake options (as vLLM's setup.py does), and writes what
pip records: the version with the torch it was built for as its local label (0.1.0+pt215cu132), and
`torch==<that minor>.*` as the requirement, because the library loads only into that torch. A wheel
(`make wheel`) is tagged py3-none: libuaccel uses no Python C API.

  UACCEL_CPU_ONLY=1       build without the CUDA kernels even when torch is a CUDA build
  TORCH_CUDA_ARCH_LIST    CUDA archs to compile (default in cmake/TorchUaccelTorch.cmake)
  MAX_JOBS                parallel compile jobs (default: all cores)
  UACCEL_SANITIZE=1       AddressSanitizer + UndefinedBehaviorSanitizer build (see `make sanitize`)
  UACCEL_BUILD_TESTS=1    also build the GoogleTest suite and the C++ examples (`make cpp-test`)
  UACCEL_WHEEL=1          a relocatable library for a wheel (`make wheel`): no absolute RUNPATH
  UACCEL_BUILD_DIR        the CMake build tree (default build/cmake-torch<version>); `make` names one
                          per environment, so ctest runs against the library Python loads
"""

import importlib.util
import os
import runpy
import shutil
import sys

import torch
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))
VERSION = runpy.run_path(os.path.join(ROOT, "torch_uaccel", "_version.py"))
TORCH_MINOR = tuple(int(part) for part in torch.__version__.split("+")[0].split(".")[:2])
if not VERSION["TORCH_OLDEST"] <= TORCH_MINOR <= VERSION["TORCH_NEWEST"]:
    sys.exit(
        f"torch_uaccel {VERSION['__version__']} supports torch {VERSION['SUPPORTED_TORCH']}, but this environment "
        f"has torch {torch.__version__}"
    )
# The CMake-from-setuptools helpers the package gives other projects (torch_uaccel/build.py), loaded
# from the source: the package itself is not built yet.
_spec = importlib.util.spec_from_file_location("torch_uaccel_build", os.path.join(ROOT, "torch_uaccel", "build.py"))
build = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(build)


def local_label() -> str:
    """pt215cu132 or pt215cpu: the torch minor and CUDA variant a build is for, as torchvision's +cu132."""
    variant = "cu" + torch.version.cuda.replace(".", "") if build.with_cuda() else "cpu"
    return f"pt{TORCH_MINOR[0]}{TORCH_MINOR[1]}{variant}"


def cmake_arguments() -> list[str]:
    arguments = [
        *build.cmake_arguments([]),
        f"-DUACCEL_TORCH_VERSION={torch.__version__}",
        f"-DUACCEL_SANITIZE={'ON' if build.enabled('UACCEL_SANITIZE') else 'OFF'}",
        f"-DUACCEL_BUILD_TESTS={'ON' if build.enabled('UACCEL_BUILD_TESTS') else 'OFF'}",
    ]
    # The package's layout (libuaccel.so beside the modules, include/, share/cmake/): torch's libraries
    # and CUDA's runtime (nvidia/cu13/lib) found relative to it in site-packages, and, unless this is
    # a wheel, where they are now (an editable install keeps the library in the source tree).
    site_packages = os.path.dirname(os.path.dirname(torch.__file__))
    lib_dirs = ["torch/lib"] + ([f"nvidia/cu{torch.version.cuda.split('.')[0]}/lib"] if torch.version.cuda else [])
    runpath = [f"$ORIGIN/../{d}" for d in lib_dirs]
    if not build.enabled("UACCEL_WHEEL"):
        runpath += [os.path.join(site_packages, d) for d in lib_dirs]
    return [*arguments, "-DCMAKE_INSTALL_LIBDIR=.", f"-DUACCEL_INSTALL_RPATH={';'.join(runpath)}"]


BUILD_RECORD = """\
# Written by setup.py: the torch this copy of libuaccel was built against (_native.py checks it).
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
        stage = build.cmake_install(ROOT, build_dir, cmake_arguments())
        destination = self.get_ext_fullpath(ext.name)
        package = os.path.dirname(destination)
        os.makedirs(package, exist_ok=True)
        # A new file renamed over the old one: processes that have the old library mapped keep it.
        shutil.copyfile(os.path.join(stage, "libuaccel.so"), destination + ".tmp")
        os.replace(destination + ".tmp", destination)
        for tree in ("include", "share"):
            build.replace_tree(os.path.join(stage, tree), os.path.join(package, tree))
        cuda = torch.version.cuda if build.with_cuda() else None
        with open(os.path.join(package, "_build.py"), "w") as record:
            record.write(BUILD_RECORD.format(torch=torch.__version__, cuda=cuda))

    def copy_extensions_to_source(self) -> None:
        """An editable install (-e) gets the headers, CMake package and build record too."""
        super().copy_extensions_to_source()
        source = self.get_finalized_command("build_py").get_package_dir("torch_uaccel")
        built = os.path.join(self.build_lib, "torch_uaccel")
        for tree in ("include", "share"):
            build.replace_tree(os.path.join(built, tree), os.path.join(source, tree))
        shutil.copyfile(os.path.join(built, "_build.py"), os.path.join(source, "_build.py"))


setup(
    version=f"{VERSION['__version__']}+{local_label()}",
    install_requires=[f"torch=={TORCH_MINOR[0]}.{TORCH_MINOR[1]}.*", "numpy"],
    ext_modules=[Extension("torch_uaccel.libuaccel", sources=[])],
    cmdclass={"build_ext": CMakeBuild, "bdist_wheel": build.PlatformWheel},
)
