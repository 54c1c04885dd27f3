"""myops.softplus, myops.mish and myops.hardtanh as first-class PyTorch ops: values and gradients against
F.softplus, F.mish and F.hardtanh over dtypes and strides, opcheck, gradcheck (forward AD, batched), gradgradcheck, vmap,
torch.compile, torch.export, DTensor, in place, functions and modules."""

import os
import socket

import myops
import pytest
import torch
import torch.nn.functional as F

DTYPES = [torch.float32, torch.float64, torch.bfloat16, torch.float16]
TOLERANCES = {
    torch.float32: {"rtol": 2e-6, "atol": 1e-6},
    torch.float64: {"rtol": 1e-12, "atol": 1e-14},
    torch.bfloat16: {"rtol": 1.6e-2, "atol": 1e-2},
    torch.float16: {"rtol": 2e-3, "atol": 1e-3},
}
# (our op, the reference, parameter sets)
OPS = {
    "softplus": (myops.softplus, F.softplus, [(), (2.0, 5.0), (0.5, 3.0), (-1.0, 20.0)]),
    "mish": (myops.mish, F.mish, [()]),
    "hardtanh": (myops.hardtanh, F.hardtanh, [(), (-2.0, 3.0), (0.0, 6.0), (-0.5, -0.5)]),
}


def layouts(dtype):
    """Contiguous, transposed, sliced with steps, channels_last, 0-dim and empty; of both signs and past
    the thresholds (and the underflow of exp)."""
    base = torch.randn(4, 6, 8, 10, dtype=torch.float64, generator=torch.Generator().manual_seed(0)) * 12
    base = base.to(dtype)
    yield base
    yield base.transpose(1, 3)
    yield base[:, ::2, 1::3]
    yield base.contiguous(memory_format=torch.channels_last)
    yield torch.tensor(-3.5, dtype=dtype)
    yield torch.empty(0, 3, dtype=dtype)
    yield torch.tensor(
        [-200.0, -90.0, -20.0, -1e-3, 0.0, 1e-3, 20.0, 90.0, float("inf"), float("-inf"), float("nan")], dtype=dtype
    )


@pytest.mark.parametrize("name", OPS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_values_and_gradients_match_torch(name, dtype):
    op, reference, parameter_sets = OPS[name]
    for parameters in parameter_sets:
        for x in layouts(dtype):
            ours = op(x, *parameters)
            expected = reference(x, *parameters)
            torch.testing.assert_close(ours, expected, equal_nan=True, **TOLERANCES[dtype])
            assert ours.stride() == expected.stride() or x.numel() <= 1
            finite = x[x.isfinite()].detach().clone().requires_grad_()
            g = torch.randn_like(finite)
            (grad,) = torch.autograd.grad(op(finite, *parameters), finite, g)
            (expected_grad,) = torch.autograd.grad(reference(finite, *parameters), finite, g)
            torch.testing.assert_close(grad, expected_grad, **TOLERANCES[dtype])


def test_hardtanh_in_place_module_and_checks():
    x = torch.randn(5, 7) * 3
    y = x.clone()
    assert myops.hardtanh(y, -2.0, 2.0, inplace=True) is y
    torch.testing.assert_close(y, F.hardtanh(x, -2.0, 2.0))
    layer = myops.Hardtanh(-2.0, 2.0)  # nn.Hardtanh's deprecated min_value and max_value aside, its signature
    assert isinstance(layer, torch.nn.Hardtanh)
    torch.testing.assert_close(layer(x), F.hardtanh(x, -2.0, 2.0))
    with pytest.warns(FutureWarning, match="min_value"):  # nn's own, for its deprecated alias
        torch.testing.assert_close(myops.Hardtanh(min_value=-0.5)(x), F.hardtanh(x, -0.5, 1.0))
    nan = torch.tensor([float("nan"), -1.0, 1.0], requires_grad=True)
    (grad,) = torch.autograd.grad(myops.hardtanh(nan).sum(), nan)
    assert grad.tolist() == [1.0, 0.0, 0.0]  # as ATen's: a NaN passes the gradient, the ends do not
    before = x.clone()
    with pytest.raises(RuntimeError, match=r"^myops\.hardtanh_: expected min_val <= max_val, but got min_val=2 "):
        torch.ops.myops.hardtanh_(x, 2.0, 1.0)
    assert torch.equal(x, before)
    with pytest.raises(RuntimeError, match=r"^myops\.hardtanh: expected min_val <= max_val"):
        myops.hardtanh(x, 1.0, 0.0)


def test_mish_in_place_and_modules():
    x = torch.randn(5, 7)
    y = x.clone()
    assert myops.mish(y, inplace=True) is y
    torch.testing.assert_close(y, F.mish(x))
    assert isinstance(myops.Mish(), torch.nn.Mish) and isinstance(myops.Softplus(2.0, 5.0), torch.nn.Softplus)
    torch.testing.assert_close(myops.Softplus(2.0, 5.0)(x), torch.nn.Softplus(2.0, 5.0)(x))
    torch.testing.assert_close(torch.jit.script(myops.Mish())(x), F.mish(x))


@pytest.mark.parametrize("name", OPS)
def test_opcheck(name):
    _, _, parameter_sets = OPS[name]
    overload = getattr(torch.ops.myops, name).default
    for dtype in (torch.float32, torch.float64):
        x = torch.randn(3, 5, dtype=dtype, requires_grad=True)
        for parameters in parameter_sets:
            torch.library.opcheck(overload, (x, *parameters))


@pytest.mark.parametrize("name", OPS)
def test_gradcheck_both_modes_and_second_order(name):
    op, _, parameter_sets = OPS[name]
    for parameters in parameter_sets:
        x = (torch.randn(12, dtype=torch.float64) * 3).requires_grad_()
        fn = lambda t, parameters=parameters: op(t, *parameters)  # noqa: E731
        assert torch.autograd.gradcheck(
            fn, x, check_forward_ad=True, check_batched_grad=True, check_batched_forward_grad=True
        )
        assert torch.autograd.gradgradcheck(fn, x, check_fwd_over_rev=True, check_batched_grad=True)


@pytest.mark.parametrize("name", OPS)
def test_vmap_and_jacobians(name):
    op, reference, _ = OPS[name]
    x = torch.randn(4, 3, dtype=torch.float64)
    torch.testing.assert_close(torch.func.vmap(op, in_dims=1)(x), reference(x).T)
    torch.testing.assert_close(torch.func.jacfwd(op)(x[0]), torch.func.jacrev(reference)(x[0]))
    torch.testing.assert_close(
        torch.func.hessian(lambda t: op(t).sum())(x[0]), torch.func.hessian(lambda t: reference(t).sum())(x[0])
    )


@pytest.mark.parametrize("name", OPS)
def test_compile_fullgraph_and_export(name):
    op, reference, parameter_sets = OPS[name]
    x = torch.randn(6, 5, requires_grad=True)
    compiled = torch.compile(lambda t: op(t, *parameter_sets[-1]), fullgraph=True)
    torch.testing.assert_close(compiled(x), reference(x, *parameter_sets[-1]))
    compiled(x).sum().backward()

    class Model(torch.nn.Module):
        def forward(self, t):
            return op(t, *parameter_sets[-1])

    exported = torch.export.export(Model(), (x.detach(),))
    targets = [n.target for n in exported.graph.nodes if n.op == "call_function"]
    assert targets == [getattr(torch.ops.myops, name).default]
    torch.testing.assert_close(exported.module()(x.detach()), reference(x.detach(), *parameter_sets[-1]))


def test_one_compiled_graph_for_every_beta():
    torch._dynamo.reset()
    counts = torch._dynamo.utils.counters
    counts.clear()
    compiled = torch.compile(myops.softplus, fullgraph=True)
    x = torch.randn(8)
    for beta in (1.5, 2.5, 3.5, 4.5):
        torch.testing.assert_close(compiled(x, beta), F.softplus(x, beta))
    assert counts["stats"]["unique_graphs"] <= 2


def test_jagged_nested_tensors():
    parts = [torch.randn(2, 3), torch.randn(5, 3)]
    nested = torch.nested.nested_tensor(parts, layout=torch.jagged)
    for op, reference in ((myops.mish, F.mish), (myops.softplus, F.softplus), (myops.hardtanh, F.hardtanh)):
        for got, part in zip(op(nested).unbind(), parts, strict=True):
            torch.testing.assert_close(got, reference(part))


def test_the_kernels_run_on_as_many_threads_as_torch():
    """Which of torch's threads wrote each element, by the loop the kernels run: the library was compiled
    for torch's pool (OpenMP in the official wheels), so two threads split a large tensor, as ATen's do."""
    previous = torch.get_num_threads()
    try:
        for count in (1, 2):
            torch.set_num_threads(count)
            ids = torch.ops.myops._cpu_thread_ids(1 << 17)
            assert ids.unique().tolist() == [float(k) for k in range(count)]
    finally:
        torch.set_num_threads(previous)
    assert dict(zip(*torch.ops.myops._pointwise_facts(), strict=True))["cpu_parallel"] != "none"


def test_bad_input_names_the_op():
    with pytest.raises(RuntimeError, match=r"myops\.mish: expected self to be a floating-point tensor.*torch\.int64"):
        myops.mish(torch.arange(3))
    with pytest.raises(RuntimeError, match=r"myops\.softplus_backward"):
        torch.ops.myops.softplus_backward(torch.ones(2), torch.ones(3), 1.0, 20.0)


def test_dtensor_keeps_the_sharding():
    dist = pytest.importorskip("torch.distributed")
    from torch.distributed.tensor import DeviceMesh, Shard, distribute_tensor

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    dist.init_process_group("gloo", rank=0, world_size=1)
    try:
        mesh = DeviceMesh("cpu", [0])
        x = torch.randn(4, 6)
        for op, reference in ((myops.mish, F.mish), (myops.softplus, F.softplus)):
            y = op(distribute_tensor(x, mesh, [Shard(1)]))
            assert y.placements == (Shard(1),)
            torch.testing.assert_close(y.full_tensor(), reference(x))
    finally:
        dist.destroy_process_group()


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
@pytest.mark.parametrize("name", OPS)
def test_cuda_kernels_match_torch(name):
    op, reference, parameter_sets = OPS[name]
    for dtype in (torch.float32, torch.bfloat16):
        for x in layouts(dtype):
            x = x.cuda().requires_grad_(x.is_floating_point())
            for parameters in parameter_sets:
                torch.testing.assert_close(
                    op(x, *parameters), reference(x, *parameters), equal_nan=True, **TOLERANCES[dtype]
                )
