"""RMSNorm's CUDA kernels (csrc/rowwise/rms_norm_cuda.cu) against the CPU kernels, whose math they share
element for element, and against F.rms_norm: a warp a row (narrow rows) and a block a row (wide), 16-byte
packs and single elements (odd widths, offset storage), the residual add, both conventions, the weight's
gradient in two stages (the same bits run to run). Skipped without a GPU."""

import pytest
import torch
import torch.nn.functional as F

import torch_uaccel

pytestmark = [
    pytest.mark.cuda,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device"),
]

DTYPES = [torch.float32, torch.bfloat16, torch.float16, torch.float64]
WIDTHS = [8, 127, 512, 4096, 4099]  # warp a row (8, 127, 512 float packs), block a row, unaligned
OPTIONS = [{}, {"cast_before_weight": True}, {"weight_offset": 1.0}]
ULPS = {torch.float32: 2e-7, torch.float64: 1e-15, torch.bfloat16: 8e-3, torch.float16: 1e-3}


def _inputs(rows, n, dtype, seed=0):
    generator = torch.Generator().manual_seed(seed)
    x = torch.randn(rows, n, generator=generator, dtype=torch.float64).to(dtype)
    w = (torch.randn(n, generator=generator, dtype=torch.float64) * 0.1 + 1).to(dtype)
    return x, w


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", WIDTHS)
@pytest.mark.parametrize("options", OPTIONS)
def test_rms_norm_cuda_matches_the_cpu_kernel(dtype, n, options):
    x, w = _inputs(37, n, dtype)
    expected = torch_uaccel.rms_norm(x, n, w, **options)
    got = torch_uaccel.rms_norm(x.cuda(), n, w.cuda(), **options)
    # One rounding of the same float math, fma contraction aside: within an ulp of the output type.
    torch.testing.assert_close(got.cpu(), expected, rtol=ULPS[dtype], atol=ULPS[dtype])


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_rms_norm_cuda_matches_f_rms_norm_on_offset_storage(dtype):
    x, w = _inputs(65, 4096, dtype)
    storage = torch.empty(x.numel() + 1, dtype=dtype, device="cuda")
    x = storage[1:].view(65, 4096).copy_(x)  # contiguous, but no row 16-byte aligned: one element at a time
    w = w.cuda()
    torch.testing.assert_close(torch_uaccel.rms_norm(x, 4096, w), F.rms_norm(x, (4096,), w))


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("n", [64, 4096])
def test_add_rms_norm_cuda_matches_the_cpu_kernel(dtype, n):
    x, w = _inputs(33, n, dtype)
    residual = _inputs(33, n, dtype, seed=1)[0]
    out, total = torch_uaccel.add_rms_norm(x.cuda(), residual.cuda(), n, w.cuda())
    expected_out, expected_total = torch_uaccel.add_rms_norm(x, residual, n, w)
    assert torch.equal(total.cpu(), expected_total)
    torch.testing.assert_close(out.cpu(), expected_out, rtol=ULPS[dtype], atol=ULPS[dtype])


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float64])
@pytest.mark.parametrize("n", [96, 4096, 4099])
@pytest.mark.parametrize("options", OPTIONS)
def test_rms_norm_cuda_gradients_match_the_cpu_kernel(dtype, n, options):
    x, w = _inputs(300, n, dtype)  # more rows than a chunk: two stages of the weight's gradient
    grad = _inputs(300, n, dtype, seed=2)[0]
    results = []
    for device in ("cpu", "cuda"):
        xd, wd = x.to(device).requires_grad_(), w.to(device).requires_grad_()
        out = torch_uaccel.rms_norm(xd, n, wd, **options)
        results.append([t.cpu() for t in torch.autograd.grad(out, (xd, wd), grad.to(device))])
    (dx_cpu, dw_cpu), (dx_cuda, dw_cuda) = results
    tolerance = {torch.float32: 1e-5, torch.float64: 1e-12, torch.bfloat16: 2e-2}[dtype]
    torch.testing.assert_close(dx_cuda, dx_cpu, rtol=tolerance, atol=tolerance)
    torch.testing.assert_close(dw_cuda, dw_cpu, rtol=tolerance, atol=tolerance * 10)


def test_rms_norm_cuda_weight_gradient_is_the_same_bits_every_run():
    x, w = _inputs(5000, 1024, torch.float32)
    x, w = x.cuda().requires_grad_(), w.cuda().requires_grad_()
    grad = torch.randn_like(x)
    first, second = (torch.autograd.grad(torch_uaccel.rms_norm(x, 1024, w), w, grad)[0] for _ in range(2))
    assert torch.equal(first, second)


def test_rms_norm_cuda_gradcheck_float64():
    x = torch.randn(6, 40, dtype=torch.float64, device="cuda", requires_grad=True)
    w = torch.randn(40, dtype=torch.float64, device="cuda", requires_grad=True)
    assert torch.autograd.gradcheck(lambda x, w: torch_uaccel.rms_norm(x, 40, w), (x, w), check_forward_ad=True)
    assert torch.autograd.gradgradcheck(lambda x, w: torch_uaccel.rms_norm(x, 40, w), (x, w))


def test_rms_norm_cuda_empty_and_special_values():
    assert torch_uaccel.rms_norm(torch.empty(0, 64, device="cuda"), 64).shape == (0, 64)
    x = torch.tensor([[0.0, 0.0], [float("inf"), 1.0], [float("nan"), 1.0]], device="cuda")
    torch.testing.assert_close(torch_uaccel.rms_norm(x, 2), F.rms_norm(x, (2,)), equal_nan=True)


def test_rms_norm_cuda_runs_on_the_current_stream_and_the_tensor_device():
    x, w = _inputs(64, 256, torch.float32)
    x, w = x.cuda(), w.cuda()
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        out = torch_uaccel.rms_norm(x, 256, w)
    stream.synchronize()
    torch.testing.assert_close(out, F.rms_norm(x, (256,), w))
