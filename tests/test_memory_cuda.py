"""The uaccel CUDA allocator: aligned_empty on CUDA, and a MemPool that PyTorch's caching
allocator draws its segments from. Needs a GPU (run by benchmarks/gpu_check.sh)."""

import pytest
import torch
from conftest import HAS_CUDA

from torch_uaccel import memory

pytestmark = [pytest.mark.cuda, pytest.mark.skipif(not HAS_CUDA, reason="needs a CUDA device")]


@pytest.mark.parametrize("alignment", [2**k for k in range(0, 22, 3)] + [2 << 20])
def test_aligned_empty_on_cuda(alignment):
    before = memory.stats("cuda")
    t = memory.aligned_empty((1000, 3), alignment=alignment, device="cuda")
    assert t.device.type == "cuda" and t.data_ptr() % alignment == 0
    t.fill_(2.0)
    assert float(t.sum()) == 6000.0
    during = memory.stats("cuda")
    assert during["allocations"] == before["allocations"] + 1
    assert during["allocated_bytes"] == before["allocated_bytes"] + t.nbytes
    del t
    torch.cuda.synchronize()
    assert memory.stats("cuda")["allocated_bytes"] == before["allocated_bytes"]


def test_caching_allocator_draws_segments_from_the_uaccel_pool():
    pool = memory.cuda_pool(alignment=4096)
    before = memory.stats("cuda")
    with torch.cuda.use_mem_pool(pool):
        x = torch.ones(1 << 20, device="cuda")
        y = x * 3
    during = memory.stats("cuda")
    assert during["allocations"] > before["allocations"]  # PyTorch asked us for a segment
    assert during["alignment"] >= 4096
    assert x.data_ptr() % 512 == 0 and float(y.sum()) == 3 * (1 << 20)
    assert torch.cuda.memory_stats()["allocation.all.current"] >= 2  # PyTorch's own stats still work
    with memory.track() as t, torch.cuda.use_mem_pool(pool):
        z = torch.empty(64 << 20, dtype=torch.uint8, device="cuda")  # needs a new segment
    assert any(leak.device.startswith("cuda") and leak.size >= 64 << 20 for leak in t.leaks)
    del x, y, z
