"""The gated ops (silu_mul, gelu_mul) and their halves forms (silu_and_mul, gelu_and_mul) where the op
table's one-tensor machinery does not reach: both inputs under torch.func, the two-gradient backward
ops, what autograd saves, broadcasting and promotion, jagged nested tensors, compiled autograd, export.
Values, gradients, gradcheck/gradgradcheck, opcheck, compile and bad inputs of the forward ops are the
op table's (tests/test_op_table.py)."""

import functools

import pytest
import torch
import torch.nn.functional as F
from torch.func import grad, hessian, jacfwd, jacrev, vmap

import torch_uaccel
from torch_uaccel._testing.op_table import off_the_kink

pytestmark = [pytest.mark.torch_release, pytest.mark.cpu_kernels]

# (ours, the unfused chain, the backward op, its keyword arguments)
GATED = {
    "silu_mul": (torch_uaccel.silu_mul, lambda a, b: F.silu(a) * b, torch.ops.uaccel.silu_mul_backward, {}),
    "gelu_mul": (torch_uaccel.gelu_mul, lambda a, b: F.gelu(a) * b, torch.ops.uaccel.gelu_mul_backward, {}),
    "gelu_mul:tanh": (
        functools.partial(torch_uaccel.gelu_mul, approximate="tanh"),
        lambda a, b: F.gelu(a, approximate="tanh") * b,
        torch.ops.uaccel.gelu_mul_backward,
        {"approximate": "tanh"},
    ),
}


@pytest.fixture(params=list(GATED))
def gated(request):
    return GATED[request.param]


def _inputs(*shapes, device="cpu", dtype=torch.float64, seed=0):
    gen = torch.Generator().manual_seed(seed)
    return [off_the_kink(torch.randn(shape, generator=gen, dtype=torch.float64)).to(device, dtype) for shape in shapes]


# a: gates batched along dimension 0, b: ups batched along dimension 1 (a[0], b[:, 0]: one of each).
TRANSFORMS = {
    "vmap(gate)": lambda f, a, b: vmap(f, in_dims=(0, None))(a, b[:, 0]),
    "vmap(up)": lambda f, a, b: vmap(f, in_dims=(None, 1))(a[0], b),
    "vmap(both)": lambda f, a, b: vmap(f, in_dims=(0, 1))(a, b),
    "vmap(grad)": lambda f, a, b: vmap(grad(lambda x, y: f(x, y).sum(), argnums=(0, 1)), in_dims=(0, None))(a, b[:, 0]),
    "jacrev": lambda f, a, b: jacrev(f, argnums=(0, 1))(a[0], b[:, 0]),
    "jacfwd": lambda f, a, b: jacfwd(f, argnums=(0, 1))(a[0], b[:, 0]),
    "hessian": lambda f, a, b: hessian(lambda x, y: f(x, y).sum(), argnums=(0, 1))(a[0], b[:, 0]),
}


@pytest.mark.parametrize("transform", list(TRANSFORMS))
def test_torch_func_over_both_inputs(device, gated, transform):
    ours, theirs, _, _ = gated
    a, b = _inputs((3, 4, 5), (4, 3, 5), device=device)
    torch.testing.assert_close(TRANSFORMS[transform](ours, a, b), TRANSFORMS[transform](theirs, a, b))


@pytest.mark.parametrize(
    ("gate_shape", "up_shape"), [((4, 5), (4, 5)), ((4, 1), (5,)), ((2, 4, 5), (4, 5)), ((), (3,))]
)
def test_backward_op_gives_both_gradients_in_their_shapes(device, gated, gate_shape, up_shape):
    _, theirs, backward, keywords = gated
    gate, up = _inputs(gate_shape, up_shape, device=device)
    grad_output = _inputs(torch.broadcast_shapes(gate_shape, up_shape), device=device, seed=1)[0]
    d_gate, d_up = backward(grad_output, gate, up, **keywords)
    expected = torch.autograd.grad(theirs(gate.requires_grad_(), up.requires_grad_()), (gate, up), grad_output)
    torch.testing.assert_close((d_gate, d_up), expected)
    assert (d_gate.shape, d_up.shape) == (gate.shape, up.shape)
    torch.library.opcheck(backward.default, (grad_output, gate.detach(), up.detach()), keywords)
    torch.library.opcheck(backward.default, (grad_output, gate.detach(), up.detach().requires_grad_()), keywords)


def test_autograd_saves_gate_and_up_only(gated):
    """The fused op keeps two tensors for its backward; the unfused chain keeps three."""
    ours, theirs, _, _ = gated
    gate, up = (t.requires_grad_() for t in _inputs((8, 16), (8, 16)))

    def saved(fn):
        packed = []
        with torch.autograd.graph.saved_tensors_hooks(lambda t: packed.append(t) or t, lambda t: t):
            fn(gate, up)
        return packed

    assert len(saved(ours)) == 2
    assert all(any(t is x for x in (gate, up)) for t in saved(ours))
    assert len(saved(theirs)) >= 3


@pytest.mark.parametrize("dtypes", [(torch.float32, torch.bfloat16), (torch.float16, torch.float64)])
def test_inputs_promote_as_multiplication_does(gated, dtypes):
    ours, theirs, _, _ = gated
    gate, up = (t.to(d) for t, d in zip(_inputs((4, 5), (4, 5)), dtypes, strict=True))
    out = ours(gate.requires_grad_(), up.requires_grad_())
    assert out.dtype == torch.promote_types(*dtypes)
    torch.testing.assert_close(out, theirs(gate.double(), up.double()).to(out.dtype))
    out.sum().backward()
    assert (gate.grad.dtype, up.grad.dtype) == dtypes


def test_halves_forms_split_the_last_dimension(device):
    x = _inputs((3, 2, 8), device=device)[0].requires_grad_()
    for ours, theirs in (
        (torch_uaccel.silu_and_mul, lambda g, u: F.silu(g) * u),
        (lambda t: torch_uaccel.gelu_and_mul(t, "tanh"), lambda g, u: F.gelu(g, approximate="tanh") * u),
    ):
        reference = x.detach().clone().requires_grad_()
        out, expected = ours(x), theirs(*reference.chunk(2, dim=-1))
        torch.testing.assert_close(out, expected)
        out.sum().backward()
        expected.sum().backward()
        torch.testing.assert_close(x.grad, reference.grad)
        x.grad = None
    for bad in (torch.randn(3, 7), torch.tensor(1.0)):
        with pytest.raises(ValueError, match=r"torch_uaccel\.silu_and_mul: expected x's last dimension to be even"):
            torch_uaccel.silu_and_mul(bad)


def test_jagged_nested_tensors(device, gated):
    ours, theirs, _, _ = gated
    parts = [_inputs((n, 3), (n, 3), device=device, seed=n) for n in (2, 5, 1)]

    def run(fn):
        gate = torch.nested.nested_tensor([p[0] for p in parts], layout=torch.jagged, requires_grad=True)
        up = torch.nested.nested_tensor([p[1] for p in parts], layout=torch.jagged, requires_grad=True)
        up = torch.nested.nested_tensor_from_jagged(up.values(), gate.offsets())  # one layout for both
        out = fn(gate, up)
        assert out.is_nested and out.layout == torch.jagged
        out.values().square().sum().backward()
        return out.values(), gate.grad.values()

    for a, b in zip(run(ours), run(theirs), strict=True):
        torch.testing.assert_close(a, b)


@pytest.mark.slow
def test_export_keeps_one_node_and_compiled_autograd_traces(gated):
    ours, theirs, _, _ = gated
    gate, up = _inputs((4, 6), (4, 6))

    class Gated(torch.nn.Module):
        def forward(self, a, b):
            return ours(a, b)

    exported = torch.export.export(Gated(), (gate, up))
    calls = [n.target for n in exported.graph.nodes if n.op == "call_function"]
    assert len(calls) == 1 and "uaccel" in str(calls[0]), calls
    torch.testing.assert_close(exported.module()(gate, up), theirs(gate, up))

    from torch._dynamo import compiled_autograd

    torch._dynamo.reset()
    a, b = gate.clone().requires_grad_(), up.clone().requires_grad_()
    with compiled_autograd._enable(torch.compile(backend="aot_eager")):
        ours(a, b).square().sum().backward()
    ra, rb = gate.clone().requires_grad_(), up.clone().requires_grad_()
    theirs(ra, rb).square().sum().backward()
    torch.testing.assert_close((a.grad, b.grad), (ra.grad, rb.grad))
