"""The op table's functions with in-place forms (the ELU family, SiLU) wherever their F.* work, with
the same answers (float64 references): forward-mode AD, torch.func transforms, vmap through real
batching rules, in-place forms, the nn modules, jagged nested tensors. Values, gradcheck, opcheck, bad
inputs and torch.compile of every op (in-place forms and ELUFunction included) are the op table's
generic tests, in tests/test_op_table.py; alpha swept under torch.compile, tests/test_dynamic_scalars.py."""

import warnings

import pytest
import torch
import torch.autograd.forward_ad as fwAD
import torch.nn.functional as F
from torch.func import functional_call, grad, hessian, jacfwd, jacrev, jvp, vjp, vmap

import torch_uaccel
from torch_uaccel._testing.op_table import FAMILY, off_the_kink

pytestmark = [pytest.mark.torch_release, pytest.mark.cpu_kernels]


def away_from_kink(*shape, device="cpu", seed=0):
    """float64 values of both signs, at least 0.1 from 0 where the derivatives jump."""
    generator = torch.Generator().manual_seed(seed)
    return off_the_kink(torch.randn(*shape, dtype=torch.float64, generator=generator)).to(device)


@pytest.fixture(params=FAMILY, ids=repr)
def act(request):
    return request.param


def _ramp(x):
    """A cotangent or tangent for x: distinct values, on x's device."""
    return torch.linspace(-1, 2, x.numel(), dtype=x.dtype, device=x.device).view_as(x)


def _func_transforms():
    """(name, transform) pairs: each maps a scalar-valued or elementwise fn to derivatives."""
    return {
        "grad": lambda f, x: grad(lambda t: f(t).sum())(x),
        "vjp": lambda f, x: vjp(f, x)[1](_ramp(x))[0],
        "jvp": lambda f, x: jvp(f, (x,), (_ramp(x),))[1],
        "jacrev": lambda f, x: jacrev(f)(x),
        "jacfwd": lambda f, x: jacfwd(f)(x),
        "hessian": lambda f, x: hessian(lambda t: f(t).sum())(x),
        "jacfwd(jacfwd)": lambda f, x: jacfwd(jacfwd(lambda t: f(t).sum()))(x),
        "third grad": lambda f, x: grad(lambda t: grad(lambda u: grad(lambda v: f(v).sum())(u).sum())(t).sum())(x),
    }


@pytest.mark.parametrize("transform", list(_func_transforms()))
def test_torch_func_matches_pytorch(device, act, transform):
    apply = _func_transforms()[transform]
    x = away_from_kink(6, device=device)
    torch.testing.assert_close(apply(act.op, x), apply(act.reference, x))


@pytest.mark.parametrize("alpha", [0.3, -0.5])
@pytest.mark.parametrize("transform", [*_func_transforms(), "vmap", "vmap(grad)"])
def test_elu_function_wrapper_under_torch_func(device, alpha, transform):
    """ELUFunction (setup_context, jvp, a generated vmap rule) under every transform."""
    apply = {
        **_func_transforms(),
        "vmap": lambda f, x: vmap(f)(x.view(2, 3)),
        "vmap(grad)": lambda f, x: vmap(grad(lambda t: f(t).sum()))(x.view(2, 3)),
    }[transform]
    x = away_from_kink(6, device=device)
    if transform == "jacfwd(jacfwd)":  # PyTorch drops the second-order terms of any Python Function
        with pytest.raises(RuntimeError, match=r"ELUFunction: forward mode over forward mode"):
            apply(lambda t: torch_uaccel.ELUFunction.apply(t, alpha), x)
        return
    ours = apply(lambda t: torch_uaccel.ELUFunction.apply(t, alpha), x)
    torch.testing.assert_close(ours, apply(lambda t: F.elu(t, alpha), x))


def test_forward_ad_dual_tensors(device, act):
    x = away_from_kink(9, device=device)
    tangent = torch.randn_like(x)
    for requires_grad in (False, True):  # the no-grad fast path must keep tangents too
        with fwAD.dual_level():
            ours = fwAD.unpack_dual(act.op(fwAD.make_dual(x.clone().requires_grad_(requires_grad), tangent)))
            theirs = fwAD.unpack_dual(act.reference(fwAD.make_dual(x.clone(), tangent)))
            assert ours.tangent is not None
            torch.testing.assert_close(ours.tangent, theirs.tangent)
            torch.testing.assert_close(ours.primal, theirs.primal)


@pytest.mark.parametrize("in_dim", [0, 1, -1])
def test_vmap_uses_batching_rules_without_warning(device, act, in_dim):
    x = away_from_kink(4, 5, 3, device=device)
    with warnings.catch_warnings():
        # The fallback warns "There is a performance drop"; other warnings (torch 2.11's first jvp
        # warns that torch.jit.script is deprecated) are not ours to fail on.
        warnings.filterwarnings("error", message="There is a performance drop")
        torch.testing.assert_close(vmap(act.op, in_dims=in_dim)(x), vmap(act.reference, in_dims=in_dim)(x))
        nested = vmap(vmap(act.op, in_dims=in_dim), in_dims=in_dim)
        torch.testing.assert_close(nested(x), vmap(vmap(act.reference, in_dims=in_dim), in_dims=in_dim)(x))
        for name, compose in {
            "vmap(grad)": lambda f: vmap(grad(lambda t: f(t).sum())),
            "grad(vmap)": lambda f: grad(lambda t: vmap(f)(t).sum()),
            "vmap(jvp)": lambda f: vmap(lambda t: jvp(f, (t,), (torch.ones_like(t),))[1]),
            "vmap(jacrev)": lambda f: vmap(jacrev(f)),
        }.items():
            torch.testing.assert_close(compose(act.op)(x), compose(act.reference)(x), msg=name)


@pytest.mark.parametrize("in_dims", [(0, 0), (0, None), (None, 1), (1, 0)])
@pytest.mark.parametrize("is_result", [True, False])
def test_vmap_backward_op(device, in_dims, is_result):
    def batched(dim, seed):  # 3 samples of shape (5,), the batch at `dim` (None: one shared sample)
        t = away_from_kink(3, 5, device=device, seed=seed)
        return t[0] if dim is None else t.movedim(0, dim)

    g, s = batched(in_dims[0], 2), batched(in_dims[1], 3)
    if is_result:
        s = F.elu(s, 0.4)
    ours = vmap(lambda a, b: torch.ops.uaccel.elu_backward(a, b, 0.4, is_result), in_dims=in_dims)(g, s)
    theirs = vmap(lambda a, b: torch.ops.aten.elu_backward(a, 0.4, 1, 1, is_result, b), in_dims=in_dims)(g, s)
    torch.testing.assert_close(ours, theirs)


def test_per_sample_gradients_through_functional_call(device):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch_uaccel.ELU(0.5), torch.nn.Linear(8, 1)).double().to(device)
    reference = torch.nn.Sequential(model[0], torch.nn.ELU(0.5), model[2])
    params = {k: v.detach() for k, v in model.named_parameters()}
    x, y = torch.randn(6, 4, dtype=torch.float64, device=device), torch.randn(6, 1, dtype=torch.float64, device=device)

    def per_sample(net):
        def loss(p, xi, yi):
            return F.mse_loss(functional_call(net, p, (xi[None],)), yi[None])

        return vmap(grad(loss), in_dims=(None, 0, 0))(params, x, y)

    ours, theirs = per_sample(model), per_sample(reference)
    for name in params:
        torch.testing.assert_close(ours[name], theirs[name])


def test_inplace_values_version_and_gradient(device, act):
    x = away_from_kink(5, 4, device=device)
    expected = act.reference(x.clone())
    y = x.clone()
    version = y._version
    assert act.op(y, inplace=True) is y
    assert y._version > version  # autograd's in-place checks see the write
    torch.testing.assert_close(y, expected)
    if not act.inplace_variant.supports_grad:
        return
    leaf, ref_leaf = x.clone().requires_grad_(), x.clone().requires_grad_()
    out = act.op(leaf * 1, inplace=True)
    ref_out = act.reference(ref_leaf * 1, inplace=True)
    upstream = torch.randn_like(x)
    out.backward(upstream)
    ref_out.backward(upstream)
    torch.testing.assert_close(leaf.grad, ref_leaf.grad)
    with fwAD.dual_level():
        tangent = torch.randn_like(x)
        dual = fwAD.make_dual(x.clone(), tangent)
        act.op(dual, inplace=True)
        ref_dual = fwAD.make_dual(x.clone(), tangent)
        act.reference(ref_dual, inplace=True)
        torch.testing.assert_close(fwAD.unpack_dual(dual).tangent, fwAD.unpack_dual(ref_dual).tangent)


def test_inplace_under_vmap(device):
    x = away_from_kink(3, 4, device=device)
    out = vmap(lambda t: torch_uaccel.elu(t, 0.3, inplace=True))(x.clone())
    torch.testing.assert_close(out, F.elu(x, 0.3))


def test_inplace_gradient_through_a_view(device):
    x, ref = away_from_kink(4, 6, device=device).requires_grad_(), None
    ref = x.detach().clone().requires_grad_()
    for leaf, fn in ((x, torch_uaccel.elu), (ref, F.elu)):
        base = leaf * 2
        fn(base[:, 1:4], 0.5, inplace=True)
        base.pow(2).sum().backward()
    torch.testing.assert_close(x.grad, ref.grad)


@pytest.mark.parametrize(
    ("cls", "ours"),
    [(torch.nn.ELU, torch_uaccel.ELU), (torch.nn.SELU, torch_uaccel.SELU), (torch.nn.CELU, torch_uaccel.CELU)],
)
@pytest.mark.parametrize("inplace", [False, True])
def test_modules_are_drop_ins(device, cls, ours, inplace):
    kwargs = {"inplace": inplace} if cls is torch.nn.SELU else {"alpha": 0.7, "inplace": inplace}
    module, reference = ours(**kwargs), cls(**kwargs)
    assert isinstance(module, cls)
    assert module.inplace == inplace
    assert repr(module) == repr(reference).replace(cls.__name__, ours.__name__)
    x = away_from_kink(3, 4, device=device)
    torch.testing.assert_close(module(x.clone()), reference(x.clone()))


def test_jagged_nested_tensors(device, act):
    parts = [away_from_kink(n, 3, device=device, seed=n) for n in (2, 5, 1)]

    def run(fn):
        nt = torch.nested.nested_tensor(parts, layout=torch.jagged, requires_grad=True)
        out = fn(nt)
        assert out.is_nested
        assert out.layout == torch.jagged
        (out.values() ** 2).sum().backward()
        return out.values(), nt.grad.values()

    for ours, theirs in zip(run(act.op), run(act.reference), strict=True):
        torch.testing.assert_close(ours, theirs)
    nt = torch.nested.nested_tensor(parts, layout=torch.jagged)
    act.op(nt, inplace=True)
    torch.testing.assert_close(nt.values(), act.reference(torch.cat(parts)))


def test_out_of_range_alpha_is_refused():
    with pytest.raises(RuntimeError, match="overflow"):
        torch_uaccel.elu(torch.randn(3), 1e308)  # does not fit float32, as F.elu says
    with pytest.raises(ValueError, match=r"torch_uaccel\.celu: expected a nonzero alpha"):
        torch_uaccel.celu(torch.randn(3), 0.0)


@pytest.mark.slow
@pytest.mark.slow
def test_compiled_autograd(act):
    """The backward nodes trace under compiled autograd (torch._dynamo.compiled_autograd)."""
    from torch._dynamo import compiled_autograd

    torch._dynamo.reset()
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Identity(), torch.nn.Linear(8, 1)).double()
    x = torch.randn(16, 4, dtype=torch.float64)

    def grads(fn, compiled):
        model.zero_grad()
        model[1].forward = fn
        if compiled:
            with compiled_autograd._enable(torch.compile(backend="aot_eager")):
                model(x).square().sum().backward()
        else:
            model(x).square().sum().backward()
        return [p.grad.clone() for p in model.parameters()]

    for ours, theirs in zip(grads(act.op, compiled=True), grads(act.reference, compiled=False), strict=True):
        torch.testing.assert_close(ours, theirs)
