"""Build torch_uaccel._C: CPU kernels always, CUDA kernels when torch is a CUDA build and nvcc exists.

The CUDA decision never looks at `torch.cuda.is_available()`: build hosts often have no GPU.
Environment:
  UACCEL_CPU_ONLY=1       force the CPU-only build
  TORCH_CUDA_ARCH_LIST    CUDA archs to compile (default "8.0;9.0+PTX": A100, H100/H200, PTX for newer)
  MAX_JOBS                parallel compile jobs (ninja)
"""
import glob
import os
import shutil

import torch
from setuptools import setup


def _cuda_home_from_nvcc() -> None:
    """Point CUDA_HOME at a real toolkit root. torch guesses it from nvcc's directory, which is wrong
    when nvcc is a symlink or wrapper script in /usr/local/bin (it would link against /usr/local/lib)."""
    nvcc = shutil.which("nvcc")
    if not nvcc or os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH"):
        return
    for root in (os.path.dirname(os.path.dirname(os.path.realpath(nvcc))), "/usr/local/cuda"):
        if os.path.exists(os.path.join(root, "include", "cuda_runtime.h")):
            os.environ["CUDA_HOME"] = root
            return


_cuda_home_from_nvcc()
from torch.utils.cpp_extension import CUDA_HOME, BuildExtension, CppExtension, CUDAExtension  # noqa: E402

ROOT = os.path.dirname(os.path.abspath(__file__))
DEFAULT_CUDA_ARCHS = "8.0;9.0+PTX"


def cuda_build_wanted() -> bool:
    if os.environ.get("UACCEL_CPU_ONLY", "0") not in ("", "0"):
        return False
    return torch.version.cuda is not None and CUDA_HOME is not None


def sources(pattern: str) -> list[str]:
    return sorted(os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "csrc", "**", pattern), recursive=True))


def extension():
    with_cuda = cuda_build_wanted()
    cxx_flags = ["-O3", "-fvisibility=hidden"]  # the C++ standard is the one torch asks for
    define_macros = [("TORCH_EXTENSION_NAME", "_C"), ("UACCEL_TORCH_VERSION", f'"{torch.__version__}"')]
    if with_cuda:
        os.environ.setdefault("TORCH_CUDA_ARCH_LIST", DEFAULT_CUDA_ARCHS)
        archs = os.environ["TORCH_CUDA_ARCH_LIST"]
        define_macros += [("UACCEL_WITH_CUDA", None), ("UACCEL_CUDA_ARCHS", f'"{archs}"')]
        return CUDAExtension(
            "torch_uaccel._C",
            sources=sources("*.cpp") + sources("*.cu"),
            include_dirs=[os.path.join(ROOT, "csrc", "include"), os.path.join(ROOT, "csrc")],
            define_macros=define_macros,
            extra_compile_args={"cxx": cxx_flags, "nvcc": ["-O3", "-lineinfo"]},
        )
    return CppExtension(
        "torch_uaccel._C",
        sources=sources("*.cpp"),
        include_dirs=[os.path.join(ROOT, "csrc", "include"), os.path.join(ROOT, "csrc")],
        define_macros=define_macros,
        extra_compile_args={"cxx": cxx_flags},
    )


setup(
    ext_modules=[extension()],
    cmdclass={"build_ext": BuildExtension.with_options(use_ninja=True)},
)
