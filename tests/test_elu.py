"""What is ELU's own, beyond the generic checks every op-table row gets (tests/test_op_table.py):
precision near zero, what the backward saves, the module as a drop-in (alpha as F.elu takes it,
TorchScript), the wrappers' reach to Python's override points (they skip OpOverload.__call__), and
64-bit indexing."""

import inspect
import io
import warnings

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import torch_uaccel
from torch_uaccel._testing.op_table import ALPHAS

pytestmark = pytest.mark.cpu_kernels


def reference_elu(x, alpha):
    """ATen's elu evaluated in float64, rounded once to x's dtype."""
    return F.elu(x.double(), alpha).to(x.dtype)


def reference_elu_backward(grad, saved, alpha, is_result):
    return torch.ops.aten.elu_backward(grad.double(), alpha, 1, 1, is_result, saved.double()).to(grad.dtype)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_forward_keeps_relative_precision_near_zero(device, dtype):
    # exp(x) - 1 would lose every digit here (in float32 exp(-1e-7) - 1 == -1.19e-7).
    x = -torch.logspace(-30, 1.5, 600, dtype=torch.float64)  # both sides of the series/exp switch at -0.5
    out = torch_uaccel.elu(x.to(device=device, dtype=dtype), 1.0).double().cpu()
    relative_error = ((out - torch.expm1(x)) / torch.expm1(x)).abs().max().item()
    assert relative_error < 4 * torch.finfo(dtype).eps


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_half_types_round_ties_to_even(device, dtype):
    """The backward from the result is g * (y + alpha): with g = 1, alpha = 1 and y an odd multiple of a
    quarter of eps in (-1/2, 0), y + 1 lies exactly halfway between two numbers of the dtype."""
    quarter = torch.finfo(dtype).eps / 4
    odd = torch.arange(1, int(0.5 / quarter), 2, dtype=torch.float64)
    y = (-odd * quarter).to(device=device, dtype=dtype)
    g = torch.ones_like(y)
    out = torch.ops.uaccel.elu_backward(g, y, 1.0, True, 1.0, 1.0)
    expected = (y.double() + 1).to(dtype)  # torch's rounding: to nearest, ties to even
    assert y.numel() % 32 == 0  # every element on the vector path
    assert torch.equal(out.view(torch.int16), expected.view(torch.int16))


@pytest.mark.parametrize("kind", ["op", "function"])
@pytest.mark.parametrize("alpha", ALPHAS)
def test_backward_saves_output_when_alpha_nonnegative(device, alpha, kind):
    saved = []

    def pack(t):
        saved.append(t)
        return t

    x = torch.randn(64, device=device, requires_grad=True)
    elu = torch.ops.uaccel.elu if kind == "op" else torch_uaccel.ELUFunction.apply
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        y = elu(x, alpha)
    assert len(saved) == 1
    expected = y if alpha >= 0 else x
    assert saved[0].data_ptr() == expected.data_ptr()


def test_module_is_a_drop_in_for_nn_elu(device):
    torch.manual_seed(0)
    ours = torch.nn.Sequential(torch.nn.Linear(8, 16), torch_uaccel.ELU(alpha=0.7), torch.nn.Linear(16, 2)).to(device)
    theirs = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ELU(alpha=0.7), torch.nn.Linear(16, 2)).to(device)
    theirs.load_state_dict(ours.state_dict())  # no parameters or buffers of its own
    x = torch.randn(32, 8, device=device)
    torch.testing.assert_close(ours(x), theirs(x))
    assert repr(ours[1]) == "ELU(alpha=0.7)"


def test_defaults_are_pytorchs(device):
    """Swapping nn.ELU() for torch_uaccel.ELU() (or F.elu for elu) changes no number: same defaults."""
    x = torch.randn(4099, device=device) * 3
    for ours, theirs in [
        (torch_uaccel.ELU()(x), torch.nn.ELU()(x)),
        (torch_uaccel.elu(x), F.elu(x)),
        (torch.ops.uaccel.elu(x), F.elu(x)),
        (torch_uaccel.ELUFunction.apply(x), F.elu(x)),
    ]:
        torch.testing.assert_close(ours, theirs, rtol=4e-7, atol=0)
    assert torch_uaccel.ELU().alpha == torch.nn.ELU().alpha == 1.0
    y = x.clone()
    torch.ops.uaccel.elu_(y)
    torch.testing.assert_close(y, F.elu(x), rtol=4e-7, atol=0)
    defaults = [
        (torch_uaccel.elu, F.elu),
        (torch_uaccel.ELU.__init__, torch.nn.ELU.__init__),
        (torch_uaccel.celu, F.celu),
        (torch_uaccel.CELU.__init__, torch.nn.CELU.__init__),
    ]
    for ours, theirs in defaults:  # by position: F.elu calls its tensor `input`, we call it `x`
        assert [p.default for p in inspect.signature(ours).parameters.values()] == [
            p.default for p in inspect.signature(theirs).parameters.values()
        ], (ours, theirs)


# Whatever F.elu / nn.ELU take for alpha is taken, and what they refuse is refused (with our message).
ALPHA_CANDIDATES = {
    "float": 0.5,
    "int": 2,
    "bool": True,
    "numpy float": np.float32(0.25),
    "numpy int": np.int64(3),
    "0-dim tensor": torch.tensor(0.5),
    "0-dim int tensor": torch.tensor(2),
    "0-dim bool tensor": torch.tensor(True),
    "0-dim float16 tensor": torch.tensor(0.75, dtype=torch.float16),
    "0-dim float64 tensor": torch.tensor(-0.5, dtype=torch.float64),
    "0-dim tensor requiring grad": torch.tensor(0.5, requires_grad=True),
    "1-element tensor": torch.tensor([0.5]),
    "2-element tensor": torch.tensor([0.5, 0.2]),
    "0-dim complex tensor": torch.tensor(1j),
    "0-dim numpy array": np.array(0.5),
    "complex": 1j,
    "string": "0.5",
    "None": None,
}
FAMILY = [(torch_uaccel.elu, F.elu), (torch_uaccel.celu, F.celu)]


@pytest.mark.parametrize("candidate", ALPHA_CANDIDATES)
@pytest.mark.parametrize("ours, theirs", FAMILY, ids=["elu", "celu"])
def test_alpha_is_taken_as_f_elu_takes_it(ours, theirs, candidate):
    alpha = ALPHA_CANDIDATES[candidate]
    x = torch.linspace(-4, 4, 33)
    try:
        expected = theirs(x, alpha)
    except (TypeError, RuntimeError, ValueError, OverflowError):
        with pytest.raises((TypeError, RuntimeError, ValueError), match=rf"^torch_uaccel\.{ours.__name__}: |overflow"):
            ours(x, alpha)
    else:
        torch.testing.assert_close(ours(x, alpha), expected)


@pytest.mark.parametrize("candidate", ALPHA_CANDIDATES)
@pytest.mark.parametrize(
    "ours, theirs", [(torch_uaccel.ELU, torch.nn.ELU), (torch_uaccel.CELU, torch.nn.CELU)], ids=["ELU", "CELU"]
)
def test_modules_take_alpha_as_nn_elu_takes_it(ours, theirs, candidate):
    alpha = ALPHA_CANDIDATES[candidate]
    x = torch.linspace(-4, 4, 33)
    try:
        expected = theirs(alpha)(x)
    except (TypeError, RuntimeError, ValueError, OverflowError):
        with pytest.raises((TypeError, RuntimeError, ValueError), match=rf"^torch_uaccel\.{ours.__name__}: |overflow"):
            ours(alpha)  # refused at construction already
    else:
        module = ours(alpha)
        torch.testing.assert_close(module(x), expected)
        assert repr(module) == repr(theirs(alpha))


def _without_torchscript_deprecation(call, *args, **kwargs):
    """TorchScript (script, save, load) is deprecated since torch 2.11 and warns so (a DeprecationWarning
    up to 2.13, a FutureWarning from 2.14); models still use it."""
    with warnings.catch_warnings():
        for category in (DeprecationWarning, FutureWarning):
            warnings.filterwarnings("ignore", message=r"`torch\.jit\.\w+` is deprecated", category=category)
        return call(*args, **kwargs)


def _scripted(module_or_function):
    return _without_torchscript_deprecation(torch.jit.script, module_or_function)


@pytest.mark.parametrize(
    "module",
    [
        torch_uaccel.ELU(0.5),
        torch_uaccel.ELU(2),  # an int alpha (nn.ELU(2) itself does not script)
        torch_uaccel.ELU(0.3, inplace=True),
        torch_uaccel.SELU(),
        torch_uaccel.SELU(inplace=True),
        torch_uaccel.CELU(0.7),
    ],
    ids=repr,
)
def test_modules_script_with_torchscript(device, module):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(6, 9), module, torch.nn.Linear(9, 2)).to(device)
    scripted = _scripted(model)
    buffer = io.BytesIO()
    _without_torchscript_deprecation(torch.jit.save, scripted, buffer)
    buffer.seek(0)
    loaded = _without_torchscript_deprecation(torch.jit.load, buffer, map_location=device)
    x = torch.randn(5, 6, device=device, requires_grad=True)
    expected = model(x)
    (expected_grad,) = torch.autograd.grad(expected.sum(), x)
    for compiled in (scripted, loaded):
        y = compiled(x)
        torch.testing.assert_close(y, expected)
        torch.testing.assert_close(torch.autograd.grad(y.sum(), x)[0], expected_grad)
    assert "uaccel::elu" in str(scripted.inlined_graph)  # our op, not a Python fallback


@pytest.mark.parametrize(
    "ours, theirs, args",
    [(torch_uaccel.elu, F.elu, (0.4,)), (torch_uaccel.selu, F.selu, ()), (torch_uaccel.celu, F.celu, (0.6,))],
    ids=["elu", "selu", "celu"],
)
def test_functions_script_with_torchscript(ours, theirs, args):
    x = torch.randn(40, dtype=torch.float64)
    torch.testing.assert_close(_scripted(ours)(x, *args), theirs(x, *args))


WRAPPERS = [
    ("elu", lambda x, inplace: torch_uaccel.elu(x, 0.4, inplace)),
    ("elu", lambda x, inplace: torch_uaccel.selu(x, inplace)),
    ("elu", lambda x, inplace: torch_uaccel.celu(x, 0.6, inplace)),
    ("silu", lambda x, inplace: torch_uaccel.silu(x, inplace)),
]


@pytest.mark.parametrize("inplace", [False, True])
@pytest.mark.parametrize(("op", "wrapper"), WRAPPERS, ids=["elu", "selu", "celu", "silu"])
def test_wrappers_reach_every_python_override(op, wrapper, inplace):
    """The wrappers call the ops' C++ entry point, not OpOverload.__call__: torch function modes, tensor
    subclasses' __torch_function__ and FX's symbolic tracing must still see each call, as the overload."""
    overload = getattr(torch.ops.uaccel, op + ("_" if inplace else "")).default
    seen = []

    class Record(torch.overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            seen.append(func)
            return func(*args, **(kwargs or {}))

    class Tagged(torch.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            seen.append(func)
            return super().__torch_function__(func, types, args, kwargs or {})

    x = torch.randn(7)
    expected = wrapper(x.clone(), False)
    plain, subclassed = x.clone(), x.clone().as_subclass(Tagged)
    with Record():
        out = wrapper(plain, inplace)
    assert seen == [overload] and torch.equal(out, expected)
    seen.clear()
    tagged = wrapper(subclassed, inplace)
    assert seen == [overload] and type(tagged) is Tagged and torch.equal(tagged.as_subclass(torch.Tensor), expected)
    traced = torch.fx.symbolic_trace(lambda t: wrapper(t, inplace))
    assert [n.target for n in traced.graph.nodes if n.op == "call_function"] == [overload]
    assert torch.equal(traced(x.clone()), expected)


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
    expected = reference_elu_backward(torch.ones(1, dtype=torch.float16), x[-1:].cpu(), 1.0, False)
    assert float(dx[-1]) == pytest.approx(float(expected), rel=1e-3)
