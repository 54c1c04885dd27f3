"""The aligned allocator: alignment, the PyTorch CPU hook, caching, statistics, leak tracking."""

import pytest
import torch
from conftest import run_threads

import torch_uaccel
from torch_uaccel import memory

POWERS_OF_TWO = [2**k for k in range(0, 22)]  # 1 B .. 2 MiB
SIZES_IN_BYTES = [0, 1, 3, 63, 64, 65, 1000, 4095, 4097, 65536, 1 << 20, (3 << 20) + 5]


@pytest.fixture(autouse=True)
def clean_allocator():
    """Each test starts and ends without the hook installed and with an empty cache."""
    memory.empty_cache()
    yield
    memory.empty_cache()


def live_blocks(s):
    return s["allocations"] - s["frees"]


@pytest.mark.parametrize("alignment", POWERS_OF_TWO)
def test_aligned_empty_is_aligned_for_every_size(alignment):
    for nbytes in SIZES_IN_BYTES:
        t = memory.aligned_empty(nbytes, alignment=alignment, dtype=torch.uint8)
        assert t.shape == (nbytes,) and t.dtype == torch.uint8 and t.is_contiguous()
        assert t.data_ptr() % alignment == 0, (nbytes, alignment)
        t.fill_(7)  # the memory is really there
        assert int(t.sum()) == 7 * nbytes


def test_aligned_empty_dtype_shape_and_default_dtype():
    t = memory.aligned_empty((3, 5, 7), alignment=4096, dtype=torch.float64)
    assert t.shape == (3, 5, 7) and t.dtype == torch.float64 and t.data_ptr() % 4096 == 0
    assert memory.aligned_empty([4]).dtype == torch.get_default_dtype()
    with pytest.raises(RuntimeError, match="not resizable"):
        t.resize_(1000, 1000)


@pytest.mark.parametrize("alignment", [0, 3, 6, -64, 2**31, 3 * 1024])
def test_invalid_alignment_is_a_clear_error(alignment):
    before = memory.stats()
    pattern = rf"expected alignment to be a power of two between 1 and {2**30} bytes, but got {alignment}"
    with pytest.raises(RuntimeError, match=rf"uaccel\.aligned_empty: {pattern}"):
        memory.aligned_empty(16, alignment=alignment)
    with pytest.raises(RuntimeError, match=rf"uaccel\.install_cpu_allocator: {pattern}"):
        memory.install_cpu_allocator(alignment)
    after = memory.stats()
    assert (after["allocations"], after["allocated_bytes"]) == (before["allocations"], before["allocated_bytes"])
    x = torch.empty(10)  # the hook was not left installed
    assert memory.stats()["allocations"] == before["allocations"]
    del x


def test_negative_size_is_a_clear_error():
    with pytest.raises(RuntimeError, match=r"uaccel\.aligned_empty: expected sizes >= 0, but got \[2, -1\]"):
        memory.aligned_empty((2, -1))


@pytest.mark.parametrize("alignment", [64, 4096, 2 << 20])
def test_hook_serves_factories_and_op_outputs_aligned_and_counted(alignment):
    before = memory.stats()
    with memory.cpu_allocator(alignment=alignment):
        tensors = [torch.empty(1000), torch.zeros(3, 7), torch.randn(129, dtype=torch.float64)]
        tensors.append(tensors[0] * 2)  # an op output
        tensors.append(torch_uaccel.elu(tensors[1], 1.0))  # our own op's output
        during = memory.stats()
    assert during["alignment"] == alignment
    assert all(t.data_ptr() % alignment == 0 for t in tensors)
    assert during["allocations"] - before["allocations"] >= len(tensors)
    expected_bytes = sum(t.untyped_storage().nbytes() for t in tensors)
    assert during["allocated_bytes"] - before["allocated_bytes"] >= expected_bytes
    del tensors
    after = memory.stats()
    assert after["allocated_bytes"] == before["allocated_bytes"]
    assert live_blocks(after) == live_blocks(before)


def test_leaving_restores_the_previous_allocator_and_tensors_stay_valid():
    with memory.cpu_allocator():
        inside = torch.arange(10_000, dtype=torch.float32)
    count = memory.stats()["allocations"]
    outside = torch.empty(5000)  # from PyTorch's own allocator again: not counted
    assert memory.stats()["allocations"] == count
    torch.testing.assert_close(inside.sum(), torch.tensor(sum(range(10_000)), dtype=torch.float32))
    live = memory.stats()["allocated_bytes"]
    del inside  # freed through the uaccel allocator after it was uninstalled
    assert memory.stats()["allocated_bytes"] == live - 40_000
    del outside


def test_nesting_restores_each_level_exactly():
    with memory.cpu_allocator(alignment=128):
        a = torch.empty(100)
        with memory.cpu_allocator(alignment=1 << 16):
            b = torch.empty(100)
            assert memory.stats()["alignment"] == 1 << 16
        c = torch.empty(100)
        assert memory.stats()["alignment"] == 128
        counted = memory.stats()["allocations"]
    d = torch.empty(100)
    assert memory.stats()["allocations"] == counted  # d came from PyTorch's allocator
    assert b.data_ptr() % (1 << 16) == 0 and a.data_ptr() % 128 == 0 and c.data_ptr() % 128 == 0
    with pytest.raises(
        RuntimeError, match=r"uaccel\.uninstall_cpu_allocator: expected an installed uaccel CPU allocator"
    ):
        memory.uninstall_cpu_allocator()
    del a, b, c, d


def test_stats_invariants_and_reset_peak():
    memory.reset_peak_stats()
    base = memory.stats()
    blocks = [memory.aligned_empty(1 << 20, dtype=torch.uint8) for _ in range(4)]
    s = memory.stats()
    assert s["allocated_bytes"] == base["allocated_bytes"] + 4 * (1 << 20)
    assert s["peak_bytes"] >= s["allocated_bytes"]
    assert live_blocks(s) == live_blocks(base) + 4
    del blocks
    s = memory.stats()
    assert s["allocated_bytes"] == base["allocated_bytes"]
    assert s["peak_bytes"] >= base["allocated_bytes"] + 4 * (1 << 20)
    memory.reset_peak_stats()
    assert memory.stats()["peak_bytes"] == s["allocated_bytes"]


def test_cache_reuses_freed_blocks_and_empty_cache_releases_them():
    t = memory.aligned_empty(100_000, alignment=4096, dtype=torch.uint8)
    first = t.data_ptr()
    del t
    cached = memory.stats()["cached_bytes"]
    assert cached >= 100_000
    again = memory.aligned_empty(100_000, alignment=4096, dtype=torch.uint8)
    assert again.data_ptr() == first  # the same block, from the cache
    assert memory.stats()["cached_bytes"] < cached
    del again
    memory.empty_cache()
    assert memory.stats()["cached_bytes"] == 0


def _vma_flags(address: int) -> list[str]:
    """The VmFlags of the mapping of this process that holds `address` (/proc/self/smaps)."""
    inside = False
    with open("/proc/self/smaps") as smaps:
        for line in smaps:
            fields = line.split()
            if "-" in fields[0] and ":" not in fields[0]:
                start, end = (int(bound, 16) for bound in fields[0].split("-"))
                inside = start <= address < end
            elif inside and fields[0] == "VmFlags:":
                return fields[1:]
    raise AssertionError(f"no mapping holds {address:#x}")


@pytest.mark.parametrize("mib", [2, 3, 64])
def test_large_blocks_are_2_mib_aligned_and_advised_huge_pages(mib):
    """Blocks of 2 MiB and more: 2 MiB aligned and madvise(MADV_HUGEPAGE)d (smaps flag "hg"), so a
    first touch faults once per 2 MiB where THP is on; smaller ones keep the asked alignment."""
    with memory.cpu_allocator(alignment=64):
        large = torch.empty(mib << 20, dtype=torch.uint8)
        small = torch.empty((1 << 20) - 64, dtype=torch.uint8)
    assert large.data_ptr() % (2 << 20) == 0
    assert "hg" in _vma_flags(large.data_ptr())
    assert small.data_ptr() % 64 == 0
    large.fill_(1)  # the pages work (and fault in) as any others
    assert int(large.sum()) == mib << 20


def test_cache_limit_bounds_cached_bytes():
    memory.set_cache_limit(1 << 20)
    try:
        blocks = [memory.aligned_empty(300_000, dtype=torch.uint8) for _ in range(8)]
        del blocks
        assert 0 < memory.stats()["cached_bytes"] <= 1 << 20
        memory.set_cache_limit(0)
        assert memory.stats()["cached_bytes"] == 0
    finally:
        memory.set_cache_limit(256 << 20)
    with pytest.raises(RuntimeError, match=r"uaccel\.memory_set_cache_limit: expected a byte count >= 0, but got -1"):
        memory.set_cache_limit(-1)


def test_eight_threads_allocate_and_free_under_the_hook():
    base = memory.stats()

    def work(seed):
        sizes = torch.randint(1, 5000, (10_000,), generator=torch.Generator().manual_seed(seed)).tolist()
        for n in sizes:
            t = torch.empty(n, dtype=torch.uint8)
            assert t.data_ptr() % 256 == 0
            del t

    with memory.cpu_allocator(alignment=256):
        run_threads(work, 8)
    s = memory.stats()
    assert s["allocations"] - base["allocations"] >= 80_000
    assert s["allocated_bytes"] == base["allocated_bytes"]
    assert live_blocks(s) == live_blocks(base)


def test_track_reports_a_planted_leak_with_where_it_was_allocated():
    kept = []

    def allocate_and_keep():
        kept.append(torch.empty(12_345, dtype=torch.uint8))

    with memory.cpu_allocator(), memory.track() as t:
        temporary = torch.empty(1000)
        del temporary
        allocate_and_keep()
    assert [leak.size for leak in t.leaks] == [12_345]
    assert t.leaks[0].device == "cpu"
    assert "allocate_and_keep" in t.leaks[0].where and "test_memory.py" in t.leaks[0].where


def test_track_reports_nothing_when_everything_is_freed_and_raises_on_leak():
    with memory.cpu_allocator(), memory.track(raise_on_leak=True) as t:
        x = torch.randn(100, 100)
        (x @ x).sum()
        del x
    assert t.leaks == []
    kept = None
    with (
        pytest.raises(memory.MemoryLeakError, match=r"uaccel\.memory\.track: 1 allocation\(s\), 4096 bytes"),
        memory.track(raise_on_leak=True),
    ):
        kept = memory.aligned_empty(1024)
    del kept


def test_nested_track_blocks_see_their_own_leaks():
    with memory.track() as outer:
        a = memory.aligned_empty(100, dtype=torch.uint8)
        with memory.track() as inner:
            b = memory.aligned_empty(200, dtype=torch.uint8)
        c = memory.aligned_empty(300, dtype=torch.uint8)
    assert [leak.size for leak in inner.leaks] == [200]
    assert [leak.size for leak in outer.leaks] == [100, 200, 300]
    del a, b, c


def _train(steps=3):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(32, 64), torch_uaccel.ELU(1.0), torch.nn.Linear(64, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    data, target = torch.randn(128, 32), torch.randn(128, 1)
    losses = []
    for _ in range(steps):
        optimizer.zero_grad()
        loss = torch.nn.functional.mse_loss(model(data), target)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses, [p.detach().clone() for p in model.parameters()]


def test_training_under_the_hook_gives_the_same_numbers():
    expected_losses, expected_params = _train()
    with memory.cpu_allocator(alignment=4096):
        losses, params = _train()
        assert memory.stats()["allocations"] > 0
    assert losses == expected_losses
    for p, e in zip(params, expected_params, strict=True):
        assert torch.equal(p, e)


@pytest.mark.skipif(torch.cuda.is_available(), reason="needs a machine without a CUDA device")
@pytest.mark.parametrize("call", [memory.stats, memory.reset_peak_stats, memory.empty_cache])
@pytest.mark.parametrize("device", ["cuda", "cuda:3", 5])
def test_absent_devices_are_errors_naming_them(call, device):
    name = f"cuda:{device}" if isinstance(device, int) else device
    with pytest.raises(RuntimeError, match=rf"uaccel\.memory\.\w+: expected an available device, but got {name}"):
        call(device)


def test_opcheck_aligned_empty():
    # aligned_empty's output is uninitialised, so only schema/fake/registration are compared.
    torch.library.opcheck(
        torch.ops.uaccel.aligned_empty.default,
        ([3, 4],),
        {"alignment": 256, "dtype": torch.float32},
        test_utils=("test_schema", "test_faketensor"),
    )


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["aot_eager", "inductor"])
def test_compile_refuses_aligned_empty(backend):
    """A compiled graph allocates its own buffers, so the alignment could not hold: refused, not silently lost."""

    @torch.compile(fullgraph=True, backend=backend)
    def make(n):
        return memory.aligned_empty((n, 4), alignment=4096).fill_(1.0) * 2

    torch._dynamo.reset()
    with pytest.raises(Exception, match=r"uaccel\.aligned_empty: eager-only"):
        make(8)
    torch._dynamo.reset()
    with pytest.raises(Exception, match=r"uaccel\.aligned_empty: eager-only"):
        torch.compile(lambda n: torch.ops.uaccel.aligned_empty([n], alignment=4096), fullgraph=True, backend=backend)(8)


def test_torch_empty_calling_forms():
    for args in [(2, 3), ((2, 3),), ([2, 3],), (torch.Size([2, 3]),)]:
        out = memory.aligned_empty(*args, alignment=256, dtype=torch.float64)
        assert out.shape == (2, 3) and out.dtype == torch.float64 and out.data_ptr() % 256 == 0
    out = memory.aligned_empty(10, requires_grad=True)
    assert out.requires_grad and out.is_leaf
