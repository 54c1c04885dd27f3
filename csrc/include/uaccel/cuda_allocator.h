#pragma once
// The CUDA allocator's C entry points, for torch.cuda.memory.CUDAPluggableAllocator: CUDA builds
// only (a CPU-only build neither defines nor installs them). Blocks are aligned to the alignment
// set by uaccel_cuda_set_alignment (default 256 B) and show in uaccel::memory::stats(CUDA).
#include <cstddef>

#include <uaccel/export.h>

typedef struct CUstream_st* cudaStream_t;
extern "C" {
UACCEL_API void* uaccel_cuda_alloc(size_t size, int device, cudaStream_t stream);
UACCEL_API void uaccel_cuda_free(void* ptr, size_t size, int device, cudaStream_t stream);
UACCEL_API void uaccel_cuda_set_alignment(size_t alignment);
}
