"""uaccel.elu / uaccel.elu_backward against ATen, in every dtype, shape and layout of the shared samples."""
import pytest
import torch
import torch.nn.functional as F

import torch_uaccel
from samples import ALPHAS, FLOAT_DTYPES, sample_inputs


def reference_elu(x, alpha):
    """ATen's elu evaluated in float64, rounded once to x's dtype."""
    return F.elu(x.double(), alpha).to(x.dtype)


def reference_elu_backward(grad, saved, alpha, is_result):
    return torch.ops.aten.elu_backward(grad.double(), alpha, 1, 1, is_result, saved.double()).to(grad.dtype)


@pytest.mark.parametrize("alpha", ALPHAS)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_forward_matches_aten(device, dtype, alpha):
    for sample in sample_inputs(device, dtype):
        out = torch_uaccel.elu(sample.x, alpha)
        torch.testing.assert_close(out, reference_elu(sample.x, alpha), equal_nan=True, msg=lambda m: f"{sample}: {m}")
        # Same layout as ATen's elu: dense inputs keep their strides (channels_last, transposed).
        assert out.stride() == F.elu(sample.x, alpha).stride(), sample
        assert out.dtype == dtype and out.device == sample.x.device


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_forward_keeps_relative_precision_near_zero(device, dtype):
    # exp(x) - 1 would lose every digit here (in float32 exp(-1e-7) - 1 == -1.19e-7).
    x = -torch.logspace(-30, 1.5, 600, dtype=torch.float64)  # both sides of the series/exp switch at -0.5
    out = torch_uaccel.elu(x.to(device=device, dtype=dtype), 1.0).double().cpu()
    relative_error = ((out - torch.expm1(x)) / torch.expm1(x)).abs().max().item()
    assert relative_error < 4 * torch.finfo(dtype).eps


def test_forward_does_not_modify_input(device):
    for sample in sample_inputs(device, torch.float32):
        before = sample.x.clone()
        torch_uaccel.elu(sample.x, 1.0)
        torch.testing.assert_close(sample.x, before, equal_nan=True, rtol=0, atol=0)


@pytest.mark.parametrize("is_result", [True, False])
@pytest.mark.parametrize("alpha", ALPHAS)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_backward_op_matches_aten(device, dtype, alpha, is_result):
    if is_result and alpha < 0:
        pytest.skip("is_result=True is refused for alpha < 0 (see test_errors)")
    for sample in sample_inputs(device, dtype):
        saved = reference_elu(sample.x, alpha) if is_result else sample.x
        grads = {
            "dense": torch.randn_like(saved, dtype=torch.float64).to(dtype),
            "expanded": torch.randn((), dtype=torch.float64).to(device=device, dtype=dtype).expand(saved.shape),
        }
        for kind, grad in grads.items():
            out = torch.ops.uaccel.elu_backward(grad, saved, alpha, is_result)
            expected = reference_elu_backward(grad, saved, alpha, is_result)
            torch.testing.assert_close(out, expected, equal_nan=True, msg=lambda m: f"{sample}, {kind} grad: {m}")
            assert out.stride() == torch.ops.aten.elu_backward(grad, alpha, 1, 1, is_result, saved).stride()


def _elu_via(kind, x, alpha):
    if kind == "op":
        return torch.ops.uaccel.elu(x, alpha)
    if kind == "function":
        return torch_uaccel.ELUFunction.apply(x, alpha)
    return torch_uaccel.ELU(alpha)(x)


ENTRY_POINTS = ["op", "function", "module"]


@pytest.mark.parametrize("kind", ENTRY_POINTS)
@pytest.mark.parametrize("alpha", ALPHAS)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_autograd_matches_aten(device, dtype, alpha, kind):
    for sample in sample_inputs(device, dtype, requires_grad=True):
        grad = torch.randn_like(sample.x, dtype=torch.float64).to(dtype)
        (ours,) = torch.autograd.grad(_elu_via(kind, sample.x, alpha), sample.x, grad)
        x64 = sample.x.detach().double().requires_grad_()
        (expected,) = torch.autograd.grad(F.elu(x64, alpha), x64, grad.double())
        # With alpha >= 0 the gradient comes from the saved output y, rounded to x's dtype, so
        # g * (y + alpha) may be off by |g| * ulp(y): within the precision of y itself.
        slack = grad.double().abs() * abs(alpha) * torch.finfo(dtype).eps
        error = (ours.double() - expected).abs()
        allowed = 1e-5 + torch.finfo(dtype).resolution * 10 * expected.abs() + slack
        ok = (error <= allowed) | (ours.isnan() & expected.isnan())
        assert ok.all(), f"{sample}: worst error {error[~ok].max()} where {allowed[~ok].min()} allowed"


@pytest.mark.parametrize("kind", ["op", "function"])
@pytest.mark.parametrize("alpha", ALPHAS)
def test_backward_saves_output_when_alpha_nonnegative(device, alpha, kind):
    saved = []

    def pack(t):
        saved.append(t)
        return t

    x = torch.randn(64, device=device, requires_grad=True)
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        y = _elu_via(kind, x, alpha)
    assert len(saved) == 1
    expected = y if alpha >= 0 else x
    assert saved[0].data_ptr() == expected.data_ptr()


@pytest.mark.parametrize("alpha", [1.0, 0.3, -0.5])
def test_double_backward_matches_aten(device, alpha):
    x = torch.randn(200, dtype=torch.float64, device=device)
    x = x.sign() * (x.abs() + 0.05)

    def second_derivative(fn):
        xr = x.clone().requires_grad_()
        (g,) = torch.autograd.grad(fn(xr, alpha).sum(), xr, create_graph=True)
        (gg,) = torch.autograd.grad(g.sum(), xr)
        return g, gg

    for ours, expected in zip(second_derivative(torch_uaccel.elu), second_derivative(F.elu)):
        torch.testing.assert_close(ours, expected)


@pytest.mark.parametrize("kind", ENTRY_POINTS)
@pytest.mark.parametrize("alpha", ALPHAS)
def test_gradcheck_and_gradgradcheck(device, alpha, kind):
    for sample in sample_inputs(device, torch.float64, requires_grad=True, differentiable=True, small=True):
        fn = lambda x: _elu_via(kind, x, alpha)  # noqa: E731
        assert torch.autograd.gradcheck(fn, (sample.x,), check_forward_ad=True, check_batched_grad=True,
                                        check_batched_forward_grad=True), sample
        assert torch.autograd.gradgradcheck(fn, (sample.x,), check_fwd_over_rev=True, check_batched_grad=True), sample


@pytest.mark.parametrize("is_result", [True, False])
@pytest.mark.parametrize("alpha", [0.1, 1.0, 2.5, -0.5])
def test_gradcheck_backward_op(device, alpha, is_result):
    if is_result and alpha < 0:
        pytest.skip("is_result=True is refused for alpha < 0")
    for sample in sample_inputs(device, torch.float64, differentiable=True, small=True):
        saved = (F.elu(sample.x, alpha) if is_result else sample.x).detach().requires_grad_()
        grad = torch.randn_like(saved).requires_grad_()

        def fn(g, s):
            return torch.ops.uaccel.elu_backward(g, s, alpha, is_result)

        assert torch.autograd.gradcheck(fn, (grad, saved), check_forward_ad=True, check_batched_grad=True,
                                        check_batched_forward_grad=True), sample
        assert torch.autograd.gradgradcheck(fn, (grad, saved), check_fwd_over_rev=True), sample


def opcheck_inputs(device, dtype, requires_grad):
    """The shared samples, with NaN replaced: opcheck compares eager and traced outputs with ==."""
    for sample in sample_inputs(device, dtype, large=False):
        yield sample.x.nan_to_num(nan=0.5).requires_grad_(requires_grad)


@pytest.mark.parametrize("requires_grad", [False, True])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_opcheck_elu(device, dtype, requires_grad):
    for x in opcheck_inputs(device, dtype, requires_grad):
        for alpha in (0.1, -0.5):
            torch.library.opcheck(torch.ops.uaccel.elu.default, (x, alpha))


@pytest.mark.parametrize("requires_grad", [False, True])
@pytest.mark.parametrize("is_result", [True, False])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_opcheck_elu_backward(device, dtype, is_result, requires_grad):
    for x in opcheck_inputs(device, dtype, False):
        saved = (reference_elu(x, 1.0) if is_result else x).requires_grad_(requires_grad)
        grad = torch.randn_like(saved).requires_grad_(requires_grad)
        torch.library.opcheck(torch.ops.uaccel.elu_backward.default, (grad, saved, 1.0, is_result))


def test_module_is_a_drop_in_for_nn_elu(device):
    torch.manual_seed(0)
    ours = torch.nn.Sequential(torch.nn.Linear(8, 16), torch_uaccel.ELU(alpha=0.7), torch.nn.Linear(16, 2)).to(device)
    theirs = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ELU(alpha=0.7), torch.nn.Linear(16, 2)).to(device)
    theirs.load_state_dict(ours.state_dict())  # no parameters or buffers of its own
    x = torch.randn(32, 8, device=device)
    torch.testing.assert_close(ours(x), theirs(x))
    assert repr(ours[1]) == "ELU(alpha=0.7)"
    assert torch_uaccel.ELU().alpha == 0.1 and torch_uaccel.elu(torch.tensor(-1.0)).item() == pytest.approx(0.1 * -0.6321205588)


@pytest.mark.cuda
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
@pytest.mark.parametrize("layout", ["contiguous", "expanded"])
def test_more_than_2_pow_31_elements_on_cuda(layout):
    """64-bit indexing: the last elements of a 2^31 + 37 element tensor are computed too."""
    n = 2**31 + 37
    if layout == "contiguous":
        x = torch.full((n,), -1.0, dtype=torch.float16, device="cuda")
        x[-5:] = 2.0
        expected_tail = torch.tensor([2.0] * 5, dtype=torch.float16)
    else:  # stride 0: the strided kernel
        x = torch.full((1,), -1.0, dtype=torch.float16, device="cuda").expand(n)
        expected_tail = reference_elu(torch.tensor([-1.0] * 5, dtype=torch.float16), 1.0)
    y = torch_uaccel.elu(x, 1.0)
    torch.testing.assert_close(y[-5:].cpu(), expected_tail)
    torch.testing.assert_close(y[:3].cpu(), reference_elu(torch.tensor([-1.0] * 3, dtype=torch.float16), 1.0))
    del y
    g = torch.ones(1, dtype=torch.float16, device="cuda").expand(n)
    dx = torch.ops.uaccel.elu_backward(g, x, 1.0, False)
    assert float(dx[-1]) == pytest.approx(float(reference_elu_backward(torch.ones(1, dtype=torch.float16), x[-1:].cpu(), 1.0, False)), rel=1e-3)
