"""uaccel.rms_norm (csrc/rowwise/rms_norm.cpp, torch_uaccel/_norms.py) against F.rms_norm, float64 and the
model families' own modules (written here as transformers writes them): values over dtypes, shapes,
strides, weights and eps; gradients in both modes and to second order; opcheck, compile, export, vmap;
the weight's gradient the same bits on any thread count; bad input refused with the op's name."""

import pytest
import torch
import torch.nn.functional as F
from torch.library import opcheck

import torch_uaccel
from torch_uaccel._testing.accuracy import ulp_error
from torch_uaccel._testing.timing import using_threads

pytestmark = [pytest.mark.cpu_kernels]

DTYPES = (torch.float32, torch.float64, torch.bfloat16, torch.float16)
TOLERANCES = {
    torch.float32: {"rtol": 2.4e-7, "atol": 1e-7},
    torch.float64: {"rtol": 1e-15, "atol": 1e-15},
    torch.bfloat16: {"rtol": 7.9e-3, "atol": 1e-5},
    torch.float16: {"rtol": 9.8e-4, "atol": 1e-5},
}
# (input shape, normalized_shape)
SHAPES = [((5, 7), [7]), ((2, 3, 64), [64]), ((2, 3, 8, 16), [8, 16]), ((0, 8), [8]), ((3, 1), [1]), ((1000,), [1000])]


def llama_rms_norm(x, weight, eps):
    """LlamaRMSNorm.forward (also Qwen2's, Mistral's, Qwen3's q/k norms')."""
    input_dtype = x.dtype
    hidden = x.to(torch.float32)
    variance = hidden.pow(2).mean(-1, keepdim=True)
    hidden = hidden * torch.rsqrt(variance + eps)
    return weight * hidden.to(input_dtype)


def gemma_rms_norm(x, weight, eps):
    """GemmaRMSNorm.forward: 1 + weight, in float32, one cast."""
    output = x.float() * torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + eps)
    output = output * (1.0 + weight.float())
    return output.type_as(x)


def _inputs(shape, dtype, seed=0, scale=1.0):
    generator = torch.Generator().manual_seed(seed)
    return (torch.randn(shape, generator=generator, dtype=torch.float64) * scale).to(dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(("shape", "normalized"), SHAPES)
@pytest.mark.parametrize("with_weight", [False, True])
@pytest.mark.parametrize("eps", [None, 1e-5, 0.5])
def test_matches_f_rms_norm(dtype, shape, normalized, with_weight, eps):
    x = _inputs(shape, dtype)
    weight = _inputs(normalized, dtype, seed=1) if with_weight else None
    ours = torch_uaccel.rms_norm(x, normalized, weight, eps)
    assert ours.dtype == dtype and ours.shape == x.shape and ours.is_contiguous()
    torch.testing.assert_close(ours, F.rms_norm(x, normalized, weight, eps), **TOLERANCES[dtype])


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_large_outputs_stored_past_the_caches_are_the_same_bits(dtype):
    """Outputs of 8 MiB and more are written with streaming stores (uaccel/detail/rowwise_cpu.h): the same
    bits as the same rows in slices small enough for ordinary stores, forward, add and backward."""
    rows, n = 4096 * 4 // dtype.itemsize, 1024  # 16 MiB (float32) or 8 MiB (bfloat16) an output
    x, residual, grad = (_inputs((rows, n), dtype, seed=seed) for seed in range(3))
    weight = _inputs((n,), dtype, seed=3)

    def forward_and_backward(x, residual, grad):
        x = x.clone().requires_grad_()
        out, total = torch_uaccel.add_rms_norm(x, residual, n, weight)
        (grad_x,) = torch.autograd.grad(torch_uaccel.rms_norm(x, n, weight), x, grad)
        return torch_uaccel.rms_norm(x.detach(), n, weight), out, total, grad_x

    whole = forward_and_backward(x, residual, grad)
    sliced = [forward_and_backward(*(t[i : i + 64] for t in (x, residual, grad))) for i in range(0, rows, 64)]
    for got, pieces in zip(whole, zip(*sliced, strict=True), strict=True):
        assert torch.equal(got, torch.cat(pieces))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", ["transposed", "sliced", "expanded"])
def test_any_strides(dtype, layout):
    base = _inputs((48, 40), dtype)
    x = {"transposed": base.t(), "sliced": base[::2, 3:35], "expanded": base[:1].expand(6, 40)}[layout]
    n = x.shape[-1]
    weight = _inputs((n,), dtype, seed=2)
    torch.testing.assert_close(torch_uaccel.rms_norm(x, [n], weight), F.rms_norm(x, (n,), weight), **TOLERANCES[dtype])


@pytest.mark.parametrize("scale", [1e-30, 1.0, 1e30])
def test_float32_normalised_value_within_an_ulp_of_float64(scale):
    x = _inputs((64, 4096), torch.float32, scale=scale)
    reference = F.rms_norm(x.double(), (4096,), eps=torch.finfo(torch.float32).eps)
    assert ulp_error(torch_uaccel.rms_norm(x, 4096), reference).max() <= 1


@pytest.mark.parametrize(("dtype", "scale"), [(torch.bfloat16, 1e-30), (torch.bfloat16, 1e30), (torch.float16, 1e-4)])
@pytest.mark.parametrize("eps", [0.0, 1e-6])
def test_16_bit_rows_of_any_range_within_an_ulp_of_float64(dtype, scale, eps):
    """The 16-bit types' statistics are summed in float lanes, and again in double where that sum overflows
    or is small enough to have lost bits (bfloat16 squares past 1e38, under 1e-38; float16's subnormals):
    every output within an ulp of its dtype, the gradient as float64's, at both eps."""
    x = _inputs((16, 1024), torch.float64, scale=scale).to(dtype)
    reference = F.rms_norm(x.double(), (1024,), eps=eps)
    assert ulp_error(torch_uaccel.rms_norm(x, 1024, eps=eps), reference, dtype).max() <= 1
    out, _ = torch_uaccel.add_rms_norm(x, torch.zeros_like(x), 1024, eps=eps)
    assert ulp_error(out, reference, dtype).max() <= 1
    leaf, grad = x.clone().requires_grad_(), _inputs((16, 1024), dtype, seed=1)
    (got,) = torch.autograd.grad(torch_uaccel.rms_norm(leaf, 1024, eps=eps), leaf, grad)
    double = x.double().requires_grad_()
    (expected,) = torch.autograd.grad(F.rms_norm(double, (1024,), eps=eps), double, grad.double())
    torch.testing.assert_close(got.double(), expected, **TOLERANCES[dtype], check_dtype=False)


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16, torch.float32])
def test_llama_and_gemma_conventions_match_their_modules(dtype):
    x = _inputs((4, 9, 256), dtype)
    weight = _inputs((256,), dtype, seed=3) * 0.2 + 1
    llama = torch_uaccel.rms_norm(x, 256, weight, 1e-6, cast_before_weight=True)
    # Within the dtype's precision: the modules' 1 / rms is float32's rsqrt, ours to an ulp.
    tolerance = {"rtol": 4.8e-7, "atol": 1e-7} if dtype == torch.float32 else TOLERANCES[dtype]
    torch.testing.assert_close(llama, llama_rms_norm(x, weight, 1e-6), **tolerance)
    gemma = torch_uaccel.rms_norm(x, 256, weight, 1e-6, weight_offset=1.0)
    torch.testing.assert_close(gemma, gemma_rms_norm(x, weight, 1e-6), **tolerance)
    # A float32 weight under Llama's convention promotes the product, as the module's does.
    promoted = torch_uaccel.rms_norm(x, 256, weight.float(), 1e-6, cast_before_weight=True)
    assert promoted.dtype == torch.promote_types(dtype, torch.float32)
    torch.testing.assert_close(promoted, llama_rms_norm(x, weight.float(), 1e-6), **tolerance)


def test_special_values_as_f_rms_norm():
    x = torch.tensor([[0.0, 0.0, 0.0], [1.0, float("inf"), 2.0], [1.0, float("nan"), 2.0], [-0.0, 1e-40, 3.0]])
    torch.testing.assert_close(torch_uaccel.rms_norm(x, 3), F.rms_norm(x, (3,)), equal_nan=True)


def _grad_cases():
    for with_weight in (False, True):
        for options in ({}, {"weight_offset": 1.0}, {"cast_before_weight": True}):
            if options and not with_weight:
                continue
            yield with_weight, options


@pytest.mark.parametrize(("with_weight", "options"), list(_grad_cases()))
def test_gradcheck_both_modes_and_second_order(with_weight, options):
    x = _inputs((3, 4, 6), torch.float64).requires_grad_()
    weight = _inputs((4, 6), torch.float64, seed=4).requires_grad_() if with_weight else None
    inputs = (x, weight) if with_weight else (x,)

    def fn(x, weight=None):
        return torch_uaccel.rms_norm(x, [4, 6], weight, 1e-3, **options)

    assert torch.autograd.gradcheck(fn, inputs, check_forward_ad=True, check_batched_grad=True)
    assert torch.autograd.gradgradcheck(fn, inputs, check_fwd_over_rev=True, check_batched_grad=True)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_gradients_match_f_rms_norm(dtype):
    x = _inputs((16, 128), dtype).requires_grad_()
    weight = _inputs((128,), dtype, seed=5).requires_grad_()
    grad = _inputs((16, 128), dtype, seed=6)
    ours = torch.autograd.grad(torch_uaccel.rms_norm(x, 128, weight), (x, weight), grad)
    theirs = torch.autograd.grad(F.rms_norm(x, (128,), weight), (x, weight), grad)
    tolerance = {"rtol": 1e-5, "atol": 1e-5} if dtype == torch.float32 else {"rtol": 1.6e-2, "atol": 1e-2}
    for a, b in zip(ours, theirs, strict=True):
        assert a.dtype == b.dtype
        torch.testing.assert_close(a, b, **tolerance)


def test_weight_gradient_is_the_same_bits_on_any_thread_count():
    x = _inputs((4099, 96), torch.float32).requires_grad_()
    weight = _inputs((96,), torch.float32, seed=7).requires_grad_()
    grad = _inputs((4099, 96), torch.float32, seed=8)

    def gradients():
        return torch.autograd.grad(torch_uaccel.rms_norm(x, 96, weight), (x, weight), grad)

    with using_threads(1):
        one = gradients()
    with using_threads(2):
        two, again = gradients(), gradients()
    for a, b, c in zip(one, two, again, strict=True):
        assert torch.equal(a, b) and torch.equal(b, c)


@pytest.mark.parametrize(
    ("normalized", "with_weight", "options"),
    [([16], True, {}), ([8, 16], False, {}), ([16], True, {"weight_offset": 1.0, "cast_before_weight": True})],
)
def test_opcheck(normalized, with_weight, options):
    x = _inputs((4, 8, 16), torch.float32).requires_grad_()
    weight = _inputs(normalized, torch.float32, seed=9).requires_grad_() if with_weight else None
    opcheck(torch.ops.uaccel.rms_norm.default, (x, normalized, weight, None), options)
    out, rstd = torch.ops.uaccel._rms_norm_forward(x.detach(), normalized, weight, None, 0.0, False)
    backward_args = (torch.randn_like(out), x.detach(), rstd, normalized, weight, 1e-6, 0.0, False, [True, True])
    opcheck(torch.ops.uaccel.rms_norm_backward.default, backward_args)


@pytest.mark.slow
@pytest.mark.parametrize("dynamic", [False, True])
def test_compiles_fullgraph_forward_and_backward(dynamic):
    x = _inputs((6, 32), torch.float32).requires_grad_()
    weight = _inputs((32,), torch.float32, seed=10).requires_grad_()

    def loss(x, weight):
        return torch_uaccel.rms_norm(x, 32, weight).square().sum()

    compiled = torch.compile(loss, fullgraph=True, dynamic=dynamic)  # AOTAutograd compiles the backward too
    ours = torch.autograd.grad(compiled(x, weight), (x, weight))
    for a, b in zip(ours, torch.autograd.grad(loss(x, weight), (x, weight)), strict=True):
        torch.testing.assert_close(a, b)


@pytest.mark.slow
def test_export_keeps_one_node():
    exported = torch.export.export(torch_uaccel.RMSNorm(32), (torch.randn(4, 32),))
    targets = [node.target for node in exported.graph.nodes if node.op == "call_function"]
    assert targets == [torch.ops.uaccel.rms_norm.default]


def test_vmap_over_inputs_and_per_sample_weights():
    x = _inputs((5, 3, 16), torch.float32)
    weights = _inputs((5, 16), torch.float32, seed=11)
    batched = torch.func.vmap(lambda t, w: torch_uaccel.rms_norm(t, 16, w))(x, weights)
    torch.testing.assert_close(batched, torch.stack([F.rms_norm(t, (16,), w) for t, w in zip(x, weights, strict=True)]))
    shared = torch.func.vmap(lambda t: torch_uaccel.rms_norm(t, 16, weights[0]), in_dims=1)(x)
    torch.testing.assert_close(shared, F.rms_norm(x, (16,), weights[0]).movedim(1, 0))


def test_module_is_nn_rmsnorm():
    ours, theirs = torch_uaccel.RMSNorm([4, 8], eps=1e-5), torch.nn.RMSNorm([4, 8], eps=1e-5)
    assert isinstance(ours, torch.nn.RMSNorm) and repr(ours) == repr(theirs)
    ours.load_state_dict(theirs.state_dict())
    x = torch.randn(3, 4, 8)
    torch.testing.assert_close(ours(x), theirs(x))


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda x: torch_uaccel.rms_norm(x, [15]),
            r"uaccel.rms_norm: expected input's last dimensions to be normalized_shape, a nonempty \[15\], but got input of shape \[4, 16\]",
        ),
        (lambda x: torch_uaccel.rms_norm(x, []), r"normalized_shape, a nonempty \[\]"),
        (
            lambda x: torch_uaccel.rms_norm(x, [16], torch.ones(3)),
            r"uaccel.rms_norm: expected weight of normalized_shape's shape \[16\], but got weight of shape \[3\]",
        ),
        (
            lambda x: torch_uaccel.rms_norm(x, [16], torch.ones(16, dtype=torch.int32)),
            r"uaccel.rms_norm: expected weight to be a floating-point tensor .* but got torch.int32",
        ),
        (
            lambda x: torch_uaccel.rms_norm(x.int(), [16]),
            r"uaccel.rms_norm: expected input to be a floating-point tensor .* but got torch.int32",
        ),
        (
            lambda x: torch_uaccel.rms_norm(x, [16], torch.ones(16, device="meta")),
            r"uaccel.rms_norm: expected input and weight to have the same device",
        ),
    ],
)
def test_bad_input_is_refused_naming_the_op(call, message):
    x = torch.randn(4, 16)
    before = x.clone()
    with pytest.raises(RuntimeError, match=message):
        call(x)
    # The fake says the same under torch.compile.
    with pytest.raises(RuntimeError, match=message), torch._subclasses.fake_tensor.FakeTensorMode() as mode:
        call(mode.from_tensor(x))
    assert torch.equal(x, before)


# -- add_rms_norm: the residual add and the norm in one pass -------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(("shape", "normalized"), SHAPES)
def test_add_rms_norm_is_the_add_then_the_norm(dtype, shape, normalized):
    x, residual = _inputs(shape, dtype), _inputs(shape, dtype, seed=12)
    weight = _inputs(normalized, dtype, seed=13)
    out, residual_out = torch_uaccel.add_rms_norm(x, residual, normalized, weight)
    assert torch.equal(residual_out, x + residual)
    torch.testing.assert_close(out, torch_uaccel.rms_norm(x + residual, normalized, weight), rtol=0, atol=0)


@pytest.mark.parametrize("options", [{}, {"weight_offset": 1.0}, {"cast_before_weight": True}])
def test_add_rms_norm_gradcheck_both_outputs(options):
    x, residual = (_inputs((3, 4, 6), torch.float64, seed=s).requires_grad_() for s in (14, 15))
    weight = _inputs((6,), torch.float64, seed=16).requires_grad_()

    def fn(x, residual, weight):
        return torch_uaccel.add_rms_norm(x, residual, 6, weight, 1e-3, **options)

    assert torch.autograd.gradcheck(fn, (x, residual, weight), check_forward_ad=True, check_batched_grad=True)
    assert torch.autograd.gradgradcheck(fn, (x, residual, weight), check_fwd_over_rev=True)


def test_add_rms_norm_opcheck_compile_and_vmap():
    x, residual = (_inputs((4, 8, 16), torch.float32, seed=s).requires_grad_() for s in (17, 18))
    weight = _inputs((16,), torch.float32, seed=19).requires_grad_()
    opcheck(torch.ops.uaccel.add_rms_norm.default, (x, residual, [16], weight, None))

    def loss(x, residual, weight):
        out, residual_out = torch_uaccel.add_rms_norm(x, residual, 16, weight)
        return out.square().sum() + (residual_out * 0.5).square().sum()

    compiled = torch.compile(loss, fullgraph=True)
    ours = torch.autograd.grad(compiled(x, residual, weight), (x, residual, weight))
    for a, b in zip(ours, torch.autograd.grad(loss(x, residual, weight), (x, residual, weight)), strict=True):
        torch.testing.assert_close(a, b)
    batched = torch.func.vmap(lambda a, b: torch_uaccel.add_rms_norm(a, b, 16, weight))(x.detach(), residual.detach())
    torch.testing.assert_close(batched[0], F.rms_norm(x + residual, (16,), weight).detach())


@pytest.mark.parametrize(
    ("other", "message"),
    [
        (torch.ones(4, 15), r"uaccel.add_rms_norm: expected input and residual to have the same shape"),
        (
            torch.ones(4, 16, dtype=torch.float64),
            r"uaccel.add_rms_norm: expected input and residual to have the same dtype",
        ),
    ],
)
def test_add_rms_norm_refuses_a_residual_unlike_the_input(other, message):
    with pytest.raises(RuntimeError, match=message):
        torch_uaccel.add_rms_norm(torch.randn(4, 16), other, 16)
    with pytest.raises(RuntimeError, match=message), torch._subclasses.fake_tensor.FakeTensorMode() as mode:
        torch_uaccel.add_rms_norm(mode.from_tensor(torch.randn(4, 16)), mode.from_tensor(other), 16)


def test_jagged_nested_tensors_as_f_rms_norm():
    """Rows of a jagged tensor (normalised after its ragged dimension), values and both gradients as
    F.rms_norm's on the same nested tensor; normalising over the ragged dimension is refused."""
    pieces = [torch.randn(3, 4, 8, dtype=torch.float64), torch.randn(5, 4, 8, dtype=torch.float64)]
    ours_x, theirs_x = (torch.nested.nested_tensor(pieces, layout=torch.jagged, requires_grad=True) for _ in range(2))
    ours_w, theirs_w = (
        torch.randn(4, 8, dtype=torch.float64, generator=torch.Generator().manual_seed(0)) for _ in range(2)
    )
    ours_w.requires_grad_(), theirs_w.requires_grad_()
    ours, theirs = torch_uaccel.rms_norm(ours_x, [4, 8], ours_w), F.rms_norm(theirs_x, (4, 8), theirs_w)
    assert ours.is_nested and torch.equal(ours.offsets(), ours_x.offsets()) and ours.shape[2:] == (4, 8)
    torch.testing.assert_close(ours.values(), theirs.values())
    ours.values().square().sum().backward()
    theirs.values().square().sum().backward()
    torch.testing.assert_close(ours_x.grad.values(), theirs_x.grad.values())
    torch.testing.assert_close(ours_w.grad, theirs_w.grad)
    out, total = torch_uaccel.add_rms_norm(ours_x.detach(), ours_x.detach(), [8])
    torch.testing.assert_close(out.values(), F.rms_norm(2 * ours_x.detach().values(), (8,)))
    assert total.is_nested
    with pytest.raises(
        ValueError, match=r"uaccel\.rms_norm: expected normalized_shape to leave out the jagged dimension 1"
    ):
        torch_uaccel.rms_norm(ours_x, [5, 4, 8])


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_cast_before_weight_rounds_as_the_store_does(dtype):
    """Llama's convention rounds the normalised value to the input's type before the weight (bfloat16: in
    float lanes, not through a 16-bit pack): with a unit weight, the same bits as no cast at all."""
    x = torch.cat([_inputs((512, 256), dtype, seed=s) * scale for s, scale in enumerate((1e-3, 1.0, 1e3))])
    ones = torch.ones(256, dtype=dtype)
    cast = torch_uaccel.rms_norm(x, 256, ones, cast_before_weight=True)
    assert torch.equal(cast.view(torch.int16), torch_uaccel.rms_norm(x, 256).view(torch.int16))


def test_bfloat16_results_below_the_normals_are_rounded_not_flushed():
    """AVX512_BF16's conversion flushes float subnormals to zero; the engine rounds a pair of vectors
    holding one at::vec's way instead: outputs (a weight of 2^-130) within an ulp of float64, residual sums
    of subnormals exact."""
    x = _inputs((8, 512), torch.bfloat16)
    weight = torch.full((512,), 2.0**-130, dtype=torch.bfloat16)
    reference = F.rms_norm(x.double(), (512,), weight.double(), eps=1e-6)
    assert (reference.abs() < torch.finfo(torch.float32).smallest_normal).all()
    assert ulp_error(torch_uaccel.rms_norm(x, 512, weight, eps=1e-6), reference, torch.bfloat16).max() <= 1
    tiny = torch.full_like(x, 2.0**-128)
    _, residual_out = torch_uaccel.add_rms_norm(tiny * x.sign(), tiny, 512)
    assert residual_out.count_nonzero() > 0
    torch.testing.assert_close(residual_out, tiny * x.sign() + tiny, atol=0, rtol=0)
