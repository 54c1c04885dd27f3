"""Build torch_uaccel._C: CPU kernels always, CUDA kernels when torch is a CUDA build and nvcc exists.

The CUDA decision never looks at `torch.cuda.is_available()`: build hosts often have no GPU.
Environment:
  UACCEL_CPU_ONLY=1       force the CPU-only build
  TORCH_CUDA_ARCH_LIST    CUDA archs to compile (default "8.0;9.0+PTX": A100, H100/H200, PTX for newer)
  MAX_JOBS                parallel compile jobs (ninja)
  UACCEL_SANITIZE=1       AddressSanitizer + UndefinedBehaviorSanitizer build (see `make sanitize`)
"""
import glob
import os
import platform
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
# CPU kernels in *_isa.cpp are compiled once per instruction set, with ATen's flags for each, and
# chosen at run time (csrc/elu/elu_cpu.cpp); everything else is compiled once.
CPU_ISA_FLAGS = {"DEFAULT": []}
if platform.machine() in ("x86_64", "AMD64"):
    CPU_ISA_FLAGS["AVX2"] = ["-mavx2", "-mfma", "-mf16c"]
    CPU_ISA_FLAGS["AVX512"] = ["-mavx512f", "-mavx512bw", "-mavx512vl", "-mavx512dq", "-mfma"]


def cuda_build_wanted() -> bool:
    if os.environ.get("UACCEL_CPU_ONLY", "0") not in ("", "0"):
        return False
    return torch.version.cuda is not None and CUDA_HOME is not None


def sources(pattern: str) -> list[str]:
    found = glob.glob(os.path.join(ROOT, "csrc", "**", pattern), recursive=True)
    return sorted(os.path.relpath(p, ROOT) for p in found if pattern.endswith("_isa.cpp") or not p.endswith("_isa.cpp"))


class BuildExtensionPerISA(BuildExtension):
    """Compiles the *_isa.cpp sources once per entry of CPU_ISA_FLAGS and links them in."""

    def build_extension(self, ext):
        for isa, flags in CPU_ISA_FLAGS.items():
            ext.extra_objects += self.compiler.compile(
                sources("*_isa.cpp"),
                output_dir=os.path.join(self.build_temp, "isa", isa),
                macros=ext.define_macros + [("CPU_CAPABILITY", isa), (f"CPU_CAPABILITY_{isa}", None)],
                include_dirs=ext.include_dirs,
                extra_postargs={"cxx": ext.extra_compile_args["cxx"] + flags, "nvcc": []},
            )
        super().build_extension(ext)


def extension():
    with_cuda = cuda_build_wanted()
    cxx_flags = ["-O3", "-fvisibility=hidden"]  # the C++ standard is the one torch asks for
    link_flags = []
    if os.environ.get("UACCEL_SANITIZE", "0") not in ("", "0"):
        sanitizers = ["-fsanitize=address,undefined", "-fno-sanitize-recover=undefined"]
        cxx_flags = ["-O1", "-g", "-fno-omit-frame-pointer", "-fvisibility=hidden"] + sanitizers
        link_flags = sanitizers
    define_macros = [("TORCH_EXTENSION_NAME", "_C"), ("UACCEL_TORCH_VERSION", f'"{torch.__version__}"')]
    define_macros += [(f"UACCEL_HAVE_{isa}", None) for isa in CPU_ISA_FLAGS if isa != "DEFAULT"]
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
            extra_link_args=link_flags,
        )
    return CppExtension(
        "torch_uaccel._C",
        sources=sources("*.cpp"),
        include_dirs=[os.path.join(ROOT, "csrc", "include"), os.path.join(ROOT, "csrc")],
        define_macros=define_macros,
        extra_compile_args={"cxx": cxx_flags},
        extra_link_args=link_flags,
    )


setup(
    ext_modules=[extension()],
    cmdclass={"build_ext": BuildExtensionPerISA.with_options(use_ninja=True)},
)
