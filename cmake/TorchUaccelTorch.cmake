# torch, and the CUDA language where torch is a CUDA build (and UACCEL_CPU_ONLY is off): what this
# project and, through TorchUaccelConfig.cmake, a project building ops on it compile against. Sets
# TORCH_UACCEL_WITH_CUDA and TORCH_UACCEL_PARALLEL, and defines torch_uaccel_use_torch_parallel().
# Included at file scope (enable_language must be).
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

# at::parallel_for on torch's own thread pool. Where torch was built with OpenMP (the official wheels),
# ATen's header runs the loop in an inline `#pragma omp parallel`: compiled without -fopenmp it runs on
# the calling thread alone, whatever torch.set_num_threads says. So the C++ sources that call it are
# compiled with -fopenmp and linked to the OpenMP runtime torch links: the copy in torch/lib where torch
# bundles one (a second runtime would keep its own pool, deaf to torch.set_num_threads). torch's native
# pool needs nothing: its parallel_for is compiled into libtorch.
get_target_property(torch_uaccel_include_dirs torch INTERFACE_INCLUDE_DIRECTORIES)
find_path(TORCH_UACCEL_ATEN_INCLUDE_DIR ATen/Config.h PATHS ${TORCH_INCLUDE_DIRS} ${torch_uaccel_include_dirs} NO_DEFAULT_PATH REQUIRED)
file(STRINGS "${TORCH_UACCEL_ATEN_INCLUDE_DIR}/ATen/Config.h" torch_uaccel_openmp REGEX "define AT_PARALLEL_OPENMP 1")
if(torch_uaccel_openmp)
  set(TORCH_UACCEL_PARALLEL openmp)
  file(GLOB TORCH_UACCEL_OPENMP_RUNTIME "${TORCH_UACCEL_ATEN_INCLUDE_DIR}/../lib/libgomp*.so*"
    "${TORCH_UACCEL_ATEN_INCLUDE_DIR}/../lib/libiomp5.so")
  if(TORCH_UACCEL_OPENMP_RUNTIME)
    list(GET TORCH_UACCEL_OPENMP_RUNTIME 0 TORCH_UACCEL_OPENMP_RUNTIME)
  else()  # a torch linked to the system's runtime: the compiler's is that one
    find_package(OpenMP REQUIRED COMPONENTS CXX)
    set(TORCH_UACCEL_OPENMP_RUNTIME OpenMP::OpenMP_CXX)
  endif()
else()
  set(TORCH_UACCEL_PARALLEL native)
endif()
unset(torch_uaccel_openmp)
unset(torch_uaccel_include_dirs)

# The C++ sources of <target> (an object library's too, whose objects' target must call it as well,
# for the link) run at::parallel_for on torch's pool.
function(torch_uaccel_use_torch_parallel target)
  if(TORCH_UACCEL_PARALLEL STREQUAL "openmp")
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-fopenmp>)
    target_link_libraries(${target} PRIVATE ${TORCH_UACCEL_OPENMP_RUNTIME})
  endif()
endfunction()
