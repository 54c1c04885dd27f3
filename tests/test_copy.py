"""uaccel.async_copy_ against Tensor.copy_ over dtypes, shapes and layouts; errors leave dst untouched."""

import itertools

import pytest
import torch
from conftest import HAS_CUDA

import torch_uaccel

DTYPES = [
    torch.float32,
    torch.float64,
    torch.float16,
    torch.bfloat16,
    torch.int8,
    torch.uint8,
    torch.int32,
    torch.int64,
    torch.bool,
    torch.complex64,
    torch.complex128,
]


def random_tensor(shape, dtype, device):
    if dtype == torch.bool:
        return torch.rand(shape, device=device) > 0.5
    if dtype.is_complex:
        return torch.randn(shape, dtype=dtype, device=device)
    if dtype.is_floating_point:
        return torch.randn(shape, device=device).to(dtype)
    return torch.randint(-100 if dtype.is_signed else 0, 100, shape, device=device).to(dtype)


def layouts(shape, dtype, device):
    """The same logical tensor in several memory layouts (name, tensor)."""
    base = random_tensor(shape, dtype, device)
    yield "contiguous", base
    if len(shape) >= 2:
        yield "reversed-dims", random_tensor(shape[::-1], dtype, device).permute(*range(len(shape) - 1, -1, -1))
        yield "sliced", random_tensor((shape[0], shape[1] * 2, *shape[2:]), dtype, device)[:, ::2]
    if len(shape) == 4:
        yield "channels_last", base.contiguous(memory_format=torch.channels_last)
    yield "offset", random_tensor((base.numel() + 1,), dtype, device)[1:].view(shape)


SHAPES = [(), (0,), (7,), (5, 9), (2, 3, 4, 5), (3 * 2**15 + 7,)]


@pytest.mark.parametrize("dtype", DTYPES)
def test_matches_copy_for_every_layout_pair(device, dtype):
    for shape in SHAPES:
        for (src_name, src), (dst_name, dst) in itertools.product(
            list(layouts(shape, dtype, device)), list(layouts(shape, dtype, device))
        ):
            expected = dst.clone().copy_(src)
            out = torch_uaccel.async_copy(dst, src)
            if device != "cpu":
                torch.cuda.synchronize()
            assert out is dst
            assert torch.equal(dst, expected), (shape, src_name, dst_name)


def test_expanded_source_is_fine(device):
    src = torch.randn(1, 6, device=device).expand(4, 6)
    dst = torch.empty(4, 6, device=device)
    torch_uaccel.async_copy(dst, src)
    assert torch.equal(dst.cpu(), src.cpu())


def _assert_refused(dst, src, pattern):
    before = dst.clone()
    with pytest.raises(RuntimeError, match=r"uaccel\.async_copy_: " + pattern):
        torch_uaccel.async_copy(dst, src)
    assert torch.equal(dst, before)


def test_dtype_mismatch_is_refused(device):
    _assert_refused(
        torch.zeros(3, device=device),
        torch.ones(3, dtype=torch.float64, device=device),
        r"expected dst and src to have the same dtype, but got torch.float32 and torch.float64",
    )


def test_shape_mismatch_is_refused(device):
    _assert_refused(
        torch.zeros(3, 4, device=device),
        torch.ones(4, 3, device=device),
        r"expected dst and src to have the same shape, but got \[3, 4\] and \[4, 3\]",
    )


def test_overlapping_memory_is_refused(device):
    base = torch.arange(20.0, device=device)
    _assert_refused(base[:10], base[5:15], "expected dst and src in separate memory, but they overlap")
    _assert_refused(base, base, "expected dst and src in separate memory, but they overlap")
    # Strided views of one storage whose byte ranges interleave are refused conservatively.
    _assert_refused(
        base[::2],
        base[1::2],
        "expected dst and src in separate memory, but their byte ranges in one storage may overlap",
    )
    torch_uaccel.async_copy(base[:5], base[10:15])  # disjoint ranges of one storage are fine
    assert torch.equal(base[:5], base[10:15])


def test_self_overlapping_dst_is_refused(device):
    dst = torch.zeros(1, 5, device=device).expand(3, 5)
    with pytest.raises(RuntimeError, match=r"uaccel\.async_copy_: expected dst whose elements do not share memory"):
        torch_uaccel.async_copy(dst, torch.ones(3, 5, device=device))
    assert torch.equal(dst, torch.zeros(3, 5, device=device))


def test_fake_kernel_mirrors_the_checks():
    from torch._subclasses.fake_tensor import FakeTensorMode

    with FakeTensorMode():
        with pytest.raises(RuntimeError, match=r"uaccel\.async_copy_: expected dst and src to have the same shape"):
            torch.ops.uaccel.async_copy_(torch.empty(3), torch.empty(4))
        with pytest.raises(RuntimeError, match=r"uaccel\.async_copy_: expected dst and src to have the same dtype"):
            torch.ops.uaccel.async_copy_(torch.empty(3), torch.empty(3, dtype=torch.int32))


def test_opcheck(device):
    for src, dst in [
        (torch.randn(3, 4), torch.empty(3, 4)),
        (torch.randn(4, 3).t(), torch.empty(3, 4)),
        (torch.randint(0, 9, (5,)), torch.empty(5, dtype=torch.int64)),
    ]:
        torch.library.opcheck(torch.ops.uaccel.async_copy_.default, (dst.to(device), src.to(device)))


@pytest.mark.slow
@pytest.mark.parametrize("dynamic", [False, True])
def test_compile_fullgraph(device, dynamic):
    torch._dynamo.reset()

    def f(x):
        out = torch.empty_like(x)
        torch_uaccel.async_copy(out, torch_uaccel.elu(x, 1.0) * 2)
        return out + 1

    compiled = torch.compile(f, fullgraph=True, dynamic=dynamic)
    for n in (16, 23):
        x = torch.randn(n, device=device)
        torch.testing.assert_close(compiled(x), f(x))


@pytest.mark.skipif(HAS_CUDA, reason="CPU-only behaviour")
def test_cpu_copy_has_finished_when_it_returns():
    src = torch.randn(1 << 22)
    dst = torch.empty_like(src)
    torch_uaccel.async_copy(dst, src)
    assert torch.equal(dst, src)  # no synchronisation needed, nothing to wait for
