"""Building with CMake from setuptools: torch_uaccel's own build (setup.py) and the setuptools route of a
project of pointwise ops of its own, as a PEP 517 build backend. A project (examples/custom_pointwise)
holds its op headers, a CMakeLists.txt that calls torch_uaccel_add_pointwise_library, and a
pyproject.toml with::

    [build-system]
    requires = ["torch_uaccel", "setuptools>=70.1", "cmake>=3.25,<4", "ninja"]
    build-backend = "torch_uaccel.build"

    [project]
    name = "myops"  # the Python package; its ops load under the NAMESPACE of CMakeLists.txt

``pip install --no-build-isolation .`` (against the torch and torch_uaccel installed: the library links
both) then configures and builds the CMake project, installs its library into the package ``myops``
with a generated ``__init__.py`` that loads it (torch_uaccel.library.load), and its C++ headers under
``myops/include``. The CMake build tree is build/torch<version>-<environment> in the project.

  UACCEL_CPU_ONLY=1       without the CUDA kernels even when torch is a CUDA build
  TORCH_CUDA_ARCH_LIST    CUDA archs to compile (default: TorchUaccelTorch.cmake's)
  MAX_JOBS                parallel compile jobs (default: all cores)

Only torch and setuptools are imported here: setup.py loads this file before torch_uaccel is built.
"""

import hashlib
import os
import pathlib
import re
import shutil
import subprocess
import sys

import torch
from setuptools import Extension
from setuptools import build_meta as _build_meta
from setuptools.command.build_ext import build_ext

try:
    from setuptools.command.bdist_wheel import bdist_wheel
except ImportError:  # setuptools < 70.1 (a GPU image's): wheels need the `wheel` package there
    from wheel.bdist_wheel import bdist_wheel


def enabled(variable: str) -> bool:
    return os.environ.get(variable, "0") not in ("", "0")


def cuda_compiler() -> str | None:
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


def tool(name: str) -> str:
    """The environment's own cmake/ninja (pip-installed beside this Python) before the system's."""
    beside_python = os.path.join(os.path.dirname(sys.executable), name)
    return beside_python if os.path.exists(beside_python) else name


def with_cuda() -> bool:
    """CUDA is decided from torch (a CUDA build) and the toolkit, never from torch.cuda.is_available():
    build hosts often have no GPU."""
    return torch.version.cuda is not None and cuda_compiler() is not None and not enabled("UACCEL_CPU_ONLY")


def cmake_arguments(prefix_path: list[str]) -> list[str]:
    """What every CMake build against this torch is configured with: Ninja, Release, the packages in
    `prefix_path` (torch's first), CUDA's compiler and toolkit where torch is a CUDA build (torch's
    CMake config looks for the toolkit whenever it is), the CUDA archs asked for."""
    arguments = [
        "-G",
        "Ninja",
        "-DCMAKE_BUILD_TYPE=Release",
        f"-DCMAKE_PREFIX_PATH={';'.join([torch.utils.cmake_prefix_path, *prefix_path])}",
        f"-DPython3_EXECUTABLE={sys.executable}",
        f"-DCMAKE_MAKE_PROGRAM={tool('ninja')}",
        f"-DUACCEL_CPU_ONLY={'OFF' if with_cuda() else 'ON'}",
    ]
    compiler = cuda_compiler()
    if compiler:
        root = os.path.dirname(os.path.dirname(compiler))
        arguments += [
            f"-DCMAKE_CUDA_COMPILER={compiler}",
            f"-DCUDAToolkit_ROOT={root}",
            f"-DCUDA_TOOLKIT_ROOT_DIR={root}",
        ]
    if os.environ.get("TORCH_CUDA_ARCH_LIST"):
        arguments.append(f"-DTORCH_CUDA_ARCH_LIST={os.environ['TORCH_CUDA_ARCH_LIST']}")
    return arguments


def cmake_install(source: str, build_dir: str, arguments: list[str]) -> str:
    """Configures, builds and installs the CMake project into a staging folder, which it returns."""
    cmake = tool("cmake")
    subprocess.check_call([cmake, "-S", source, "-B", build_dir, *arguments])
    jobs = os.environ.get("MAX_JOBS") or str(os.cpu_count() or 1)
    subprocess.check_call([cmake, "--build", build_dir, "-j", jobs])
    stage = os.path.join(build_dir, "package")
    shutil.rmtree(stage, ignore_errors=True)
    subprocess.check_call([cmake, "--install", build_dir, "--prefix", stage])
    return stage


def replace_tree(source: str, destination: str) -> None:
    shutil.rmtree(destination, ignore_errors=True)
    shutil.copytree(source, destination)


class PlatformWheel(bdist_wheel):
    """py3-none-<platform>: native code, but none that uses Python's C API (torch.ops.load_library
    loads it), so one wheel serves every CPython the torch supports."""

    def finalize_options(self) -> None:
        super().finalize_options()
        self.root_is_pure = False

    def get_tag(self) -> tuple[str, str, str]:
        return "py3", "none", super().get_tag()[2]


# -- the setuptools route of a library of pointwise ops ---------------------------------------------

PACKAGE_INIT = '''"""{package}: the pointwise ops of torch.ops.{namespace}, on torch_uaccel's framework.

Generated by torch_uaccel.build: the library {library} and its Python side (functions, nn modules,
fakes, transform rules), from torch_uaccel.library.load.
"""

import pathlib as _pathlib

import torch_uaccel.library as _library

_library.load(_pathlib.Path(__file__).with_name({library!r}), into=globals())
'''


class PointwiseBuild(build_ext):
    """Builds the project's CMake library of pointwise ops into the package, with the __init__.py
    that loads it, and its C++ headers (the generated <namespace>/pointwise_ops.h) in package/include."""

    def get_ext_filename(self, fullname: str) -> str:
        return os.path.join(*fullname.split(".")) + ".so"  # a plain library, no Python ABI tag

    def build_extension(self, ext: Extension) -> None:
        import torch_uaccel  # the installed one: its CMake package, the framework's headers and library

        source = os.getcwd()
        # One tree per environment: CMake's cache keeps the torch and torch_uaccel it found.
        environment = hashlib.sha1(sys.prefix.encode()).hexdigest()[:8]
        build_dir = os.path.join(source, "build", f"torch{torch.__version__}-{environment}")
        arguments = [*cmake_arguments([torch_uaccel.cmake_prefix_path]), "-DCMAKE_INSTALL_LIBDIR=."]
        stage = cmake_install(source, build_dir, arguments)
        libraries = sorted(pathlib.Path(stage).glob("*.so"))
        if len(libraries) != 1:
            raise RuntimeError(
                f"torch_uaccel.build: expected the CMake project in {source} to install one library "
                f"(torch_uaccel_add_pointwise_library), but it installed {[p.name for p in libraries]}"
            )
        package = os.path.dirname(self.get_ext_fullpath(ext.name))
        os.makedirs(package, exist_ok=True)
        library = libraries[0].name
        shutil.copyfile(libraries[0], os.path.join(package, library))
        replace_tree(os.path.join(stage, "include"), os.path.join(package, "include"))
        namespace = _namespace_of(os.path.join(stage, "include"))
        with open(os.path.join(package, "__init__.py"), "w") as init:
            init.write(PACKAGE_INIT.format(package=ext.name.split(".")[0], namespace=namespace, library=library))


def _namespace_of(include: str) -> str:
    """The library's namespace: the folder of its generated C++ API (<namespace>/pointwise_ops.h)."""
    found = [p.parent.name for p in pathlib.Path(include).glob("*/pointwise_ops.h")]
    if len(found) != 1:
        raise RuntimeError(f"torch_uaccel.build: expected one <namespace>/pointwise_ops.h in {include}, found {found}")
    return found[0]


def _package_name() -> str:
    """The Python package: pyproject.toml's project name, as an identifier."""
    with open("pyproject.toml", "rb") as project:
        import tomllib

        name = tomllib.load(project)["project"]["name"]
    return re.sub(r"[-.]+", "_", name).lower()


def setup(**kwargs) -> None:
    """setuptools.setup for a project of pointwise ops (pyproject.toml has the rest)."""
    import setuptools

    package = _package_name()
    setuptools.setup(
        packages=[],  # the package is made by the build (PointwiseBuild), not found in the project
        py_modules=[],
        ext_modules=[Extension(f"{package}._native", sources=[])],
        cmdclass={"build_ext": PointwiseBuild, "bdist_wheel": PlatformWheel},
        **kwargs,
    )


class _Backend(_build_meta._BuildMetaBackend):
    """setuptools' PEP 517 backend, with setup() above in place of a setup.py."""

    def run_setup(self, setup_script: str = "setup.py") -> None:
        setup()


_BACKEND = _Backend()
get_requires_for_build_wheel = _BACKEND.get_requires_for_build_wheel
prepare_metadata_for_build_wheel = _BACKEND.prepare_metadata_for_build_wheel
build_wheel = _BACKEND.build_wheel
get_requires_for_build_sdist = _BACKEND.get_requires_for_build_sdist
build_sdist = _BACKEND.build_sdist
