"""torch_uaccel.inductor.decompose: with it, torch.compile fuses the ELU ops (no call to our kernels
in the generated code) and still matches F.elu in float64 and our accuracy near 0; without it,
the kernels are called. Eager never changes."""

import pytest
import torch
import torch.nn.functional as F
from torch._inductor.utils import run_and_get_code

import torch_uaccel
from torch_uaccel import inductor

pytestmark = [pytest.mark.slow, pytest.mark.torch_release]  # compiles


@pytest.fixture
def decomposed():
    inductor.decompose(True)
    torch._dynamo.reset()
    with torch._inductor.config.patch(fx_graph_cache=False):
        yield
    inductor.decompose(False)
    torch._dynamo.reset()


def _chain(alpha):
    def chain(x):
        return torch_uaccel.elu(x * 2, alpha) + 1

    return chain


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("alpha", [1.0, 0.1, -0.5])
def test_decomposed_chain_fuses_and_matches(decomposed, dtype, alpha):
    x = torch.cat(
        [
            torch.randn(4099, dtype=dtype) * 3,
            torch.tensor([0.0, -0.0, -1e-30, float("inf"), float("-inf")], dtype=dtype),
        ]
    )
    out, (code, *_) = run_and_get_code(torch.compile(_chain(alpha), fullgraph=True), x)
    assert "uaccel" not in code  # fused: no call to the extern kernel
    torch.testing.assert_close(out, (F.elu(x.double() * 2, alpha) + 1).to(dtype))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_decomposed_elu_keeps_relative_precision_near_zero(decomposed, dtype):
    x = -torch.logspace(-30, 0, 2000, dtype=dtype)
    out = torch.compile(lambda t: torch_uaccel.elu(t, 1.0), fullgraph=True)(x)
    reference = torch.expm1(x.double())
    assert ((out.double() - reference) / reference).abs().max() <= 2 * torch.finfo(dtype).eps


@pytest.mark.parametrize("is_result", [True, False])
def test_decomposed_backward_matches(decomposed, is_result):
    x = torch.randn(1000, dtype=torch.float64, requires_grad=True)
    compiled = torch.compile(lambda t: torch_uaccel.elu(t, 0.7).square().sum(), fullgraph=True)
    (grad,) = torch.autograd.grad(compiled(x), x)
    (expected,) = torch.autograd.grad(F.elu(x, 0.7).square().sum(), x)
    torch.testing.assert_close(grad, expected)
    g, saved = torch.randn(1000, dtype=torch.float64), torch.randn(1000, dtype=torch.float64)
    saved = F.elu(saved, 0.7) if is_result else saved
    out = torch.compile(lambda a, b: torch.ops.uaccel.elu_backward(a, b, 0.7, is_result), fullgraph=True)(g, saved)
    torch.testing.assert_close(out, torch.ops.aten.elu_backward(g, 0.7, 1, 1, is_result, saved))


def test_by_default_compiled_code_calls_the_kernel():
    assert not inductor.decomposed()
    torch._dynamo.reset()
    with torch._inductor.config.patch(fx_graph_cache=False):
        _, (code, *_) = run_and_get_code(torch.compile(_chain(1.0), fullgraph=True), torch.randn(64))
    assert "uaccel.elu" in code
