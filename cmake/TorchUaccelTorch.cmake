# torch, and the CUDA language where torch is a CUDA build (and UACCEL_CPU_ONLY is off): what this
# project and, through TorchUaccelConfig.cmake, a project building ops on it compile against. Sets
# TORCH_UACCEL_WITH_CUDA. Included at file scope (enable_language must be).
#
# Torch's CMake config turns TORCH_CUDA_ARCH_LIST into nvcc flags (and ignores
# CMAKE_CUDA_ARCHITECTURES). The default, unless the cache or the environment sets it: A100,
# H100/H200, PTX for newer GPUs.
if(NOT DEFINED TORCH_CUDA_ARCH_LIST)
  set(TORCH_CUDA_ARCH_LIST "$ENV{TORCH_CUDA_ARCH_LIST}")
  if(NOT TORCH_CUDA_ARCH_LIST)
    set(TORCH_CUDA_ARCH_LIST "8.0;9.0+PTX")
  endif()
endif()
set(CMAKE_CUDA_ARCHITECTURES OFF)
option(UACCEL_CPU_ONLY "Build without the CUDA kernels even when torch has CUDA" OFF)

if(NOT TARGET torch)
  find_package(Torch REQUIRED)
endif()

# CUDA when torch is a CUDA build (and its config found a toolkit); the setuptools routes pass the real nvcc.
set(TORCH_UACCEL_WITH_CUDA OFF)
if(TARGET torch_cuda AND NOT UACCEL_CPU_ONLY)
  set(TORCH_UACCEL_WITH_CUDA ON)
  enable_language(CUDA)
  # torch's targets ask for C++20, which CMake 3.25 cannot yet spell for nvcc 13: tell it how.
  set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
  set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
endif()
