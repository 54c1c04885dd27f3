"""A float parameter that changes between calls of a compiled function costs no graph per value: as
with F.elu, the first change recompiles once with the float symbolic, and every later value reuses that
graph, forward and training step (torch_uaccel/_dynamic_scalars.py). Counted for 9 alphas."""

import shutil

import pytest
import torch
import torch.nn.functional as F
from torch._dynamo.testing import CompileCounterWithBackend

import torch_uaccel

pytestmark = pytest.mark.torch_release

ALPHAS = [0.1 * (i + 1) for i in range(9)]
CASES = {
    "elu": (torch_uaccel.elu, F.elu),
    "celu": (torch_uaccel.celu, F.celu),
    "elu op": (torch.ops.uaccel.elu, F.elu),
}


def graphs_for_a_sweep(fn, backend: str, *, train: bool, dynamic=None, reference=None) -> int:
    """Compiles fn(x, alpha) once and calls it with each alpha: the number of graphs compiled. Checks
    the values (and the gradient, when `train`) against `reference` on the way."""
    torch._dynamo.reset()
    counter = CompileCounterWithBackend(backend)
    compiled = torch.compile(lambda x, alpha: fn(x, alpha), backend=counter, dynamic=dynamic)
    x = torch.randn(64, dtype=torch.float64, generator=torch.Generator().manual_seed(0)) * 3
    for alpha in ALPHAS:
        ours = x.clone().requires_grad_(train)
        y = compiled(ours, alpha)
        if reference is not None:
            theirs = x.clone().requires_grad_(train)
            expected = reference(theirs, alpha)
            torch.testing.assert_close(y, expected)
            if train:
                y.sum().backward()
                expected.sum().backward()
                torch.testing.assert_close(ours.grad, theirs.grad)
    return counter.frame_count


@pytest.mark.parametrize("train", [False, True], ids=["forward", "training step"])
@pytest.mark.parametrize("case", list(CASES))
def test_a_sweep_through_aot_autograd_compiles_two_graphs(case, train):
    """aot_eager runs the pass that specialises floats (it specialises F.elu's: 9 graphs), without a compiler."""
    ours, reference = CASES[case]
    assert graphs_for_a_sweep(ours, "aot_eager", train=train, reference=reference) <= 2


@pytest.mark.parametrize("train", [False, True], ids=["forward", "training step"])
def test_dynamic_true_compiles_one_graph(train):
    assert graphs_for_a_sweep(torch_uaccel.elu, "aot_eager", train=train, dynamic=True, reference=F.elu) == 1


@pytest.mark.skipif(shutil.which("c++") is None, reason="Inductor's CPU code needs a C++ compiler")
@pytest.mark.parametrize("train", [False, True], ids=["forward", "training step"])
def test_inductor_compiles_no_more_graphs_than_for_f_elu(train):
    ours = graphs_for_a_sweep(torch_uaccel.elu, "inductor", train=train, reference=F.elu)
    theirs = graphs_for_a_sweep(F.elu, "inductor", train=train)
    assert ours <= theirs, f"{ours} graphs for 9 alphas, F.elu {theirs}"


@pytest.mark.skipif(shutil.which("c++") is None, reason="Inductor's CPU code needs a C++ compiler")
def test_compiled_second_derivatives_read_each_calls_parameters():
    """The backward's own gradient takes the parameters from the graph's inputs too: had one become a
    constant there, Inductor's caches (keyed on a graph that is the same for any value) would hand a
    later function another function's constant (torch 2.14 did, before the formulas stayed
    on uaccel ops)."""

    def backward_op(alpha, input_scale):  # the parameters in a closure, as Dynamo lifts them: graph inputs
        return lambda g, s: torch.ops.uaccel.elu_backward(g, s, alpha, True, 1.0, input_scale)

    for alpha, input_scale in [(1.0, 1.0), (0.7, 1 / 0.7)]:
        torch._dynamo.reset()
        compiled = torch.compile(backward_op(alpha, input_scale), dynamic=True)
        g, s = torch.randn(8, 3, dtype=torch.float64), torch.rand(8, 3, dtype=torch.float64) - 0.5
        ours = [t.clone().requires_grad_() for t in (g, s)]
        theirs = [t.clone().requires_grad_() for t in (g, s)]
        compiled(*ours).sum().backward()
        torch.ops.aten.elu_backward(theirs[0], alpha, 1.0, input_scale, True, theirs[1]).sum().backward()
        for a, b in zip(ours, theirs, strict=True):
            torch.testing.assert_close(a.grad, b.grad)


def test_concrete_parameters_keep_the_op():
    """Nothing changes for a graph without symbolic parameters: the op itself, not its tensor_scalars overload."""
    graph = torch.fx.experimental.proxy_tensor.make_fx(lambda x: torch_uaccel.celu(x, 0.7))(torch.randn(3))
    targets = {node.target for node in graph.graph.nodes if node.op == "call_function"}
    assert targets == {torch.ops.uaccel.elu.default}


@pytest.mark.parametrize("is_result", [False, True])
def test_tensor_scalars_overloads_pass_opcheck(is_result):
    """Schema, and the fake against the real kernel (they exist below autograd only: no gradient to check)."""
    x, g = torch.randn(4, 5, dtype=torch.float64), torch.randn(4, 5, dtype=torch.float64)
    alpha, scale, input_scale = (torch.tensor(v, dtype=torch.float64) for v in (0.7, 1.0, 1 / 0.7))
    utils = ("test_schema", "test_faketensor")
    torch.library.opcheck(torch.ops.uaccel.elu.tensor_scalars, (x, alpha, scale, input_scale), test_utils=utils)
    saved = torch.ops.uaccel.elu(x, 0.7, 1.0, 1 / 0.7) if is_result else x
    args = (g, saved, alpha, is_result, scale, input_scale)
    torch.library.opcheck(torch.ops.uaccel.elu_backward.tensor_scalars, args, test_utils=utils)
    expected = torch.ops.uaccel.elu_backward(g, saved, 0.7, is_result, 1.0, 1 / 0.7)
    torch.testing.assert_close(torch.ops.uaccel.elu_backward.tensor_scalars(*args), expected, rtol=0, atol=0)


def test_tensor_scalars_overloads_take_one_element_per_scalar():
    one = torch.ones((), dtype=torch.float64)
    with pytest.raises(RuntimeError, match=r"1-element tensor, but got one of shape \[2\]"):
        torch.ops.uaccel.elu.tensor_scalars(torch.randn(3), torch.ones(2), one, one)


def test_tensor_scalars_overloads_refuse_autograd():
    x = torch.randn(3, requires_grad=True)
    one = torch.ones((), dtype=torch.float64)
    with pytest.raises(RuntimeError, match="derivative for uaccel::elu is not implemented"):
        torch.ops.uaccel.elu.tensor_scalars(x, one, one, one).sum().backward()
