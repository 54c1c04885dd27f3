"""Bad inputs: a RuntimeError naming the op, what was expected and what was given, from the real
kernels and from the fake kernels alike; inputs are left as they were."""
import pytest
import torch
from torch._subclasses.fake_tensor import FakeTensorMode

from conftest import HAS_CUDA


def _modes():
    yield "eager"
    yield "fake"


def _call(mode, op, *args):
    if mode == "eager":
        return op(*args)
    with FakeTensorMode() as fake:
        fake_args = [fake.from_tensor(a) if isinstance(a, torch.Tensor) else a for a in args]
        return op(*fake_args)


@pytest.mark.parametrize("mode", list(_modes()))
@pytest.mark.parametrize(
    "dtype, name",
    # C++ names the dtype as c10 does (Int), the fake kernels as Python does (torch.int32).
    [(torch.int32, "Int|torch.int32"), (torch.int64, "Long|torch.int64"), (torch.uint8, "Byte|torch.uint8"),
     (torch.bool, "Bool|torch.bool"), (torch.complex64, "ComplexFloat|torch.complex64")],
)
def test_elu_rejects_non_floating(device, mode, dtype, name):
    x = torch.ones(4, device=device, dtype=dtype)
    before = x.clone()
    with pytest.raises(RuntimeError, match=rf"uaccel\.elu: expected self to be a floating-point tensor .*but got ({name})$"):
        _call(mode, torch.ops.uaccel.elu, x, 0.1)
    assert torch.equal(x, before)


def _backward_error_cases(device):
    x = torch.randn(4, 5, device=device)
    g = torch.randn(4, 5, device=device)
    yield "alpha", (g, x, -0.5, True), r"is_result=True .*needs alpha >= 0.*got alpha=-0\.5"
    yield "shape", (g, x[:, :4], 0.1, False), r"same shape, but got \[4, 5\] and \[4, 4\]"
    yield "dtype", (g, x.double(), 0.1, False), r"same dtype, but got (Float and Double|torch.float32 and torch.float64)"
    yield "int-grad", (g.int(), x, 0.1, False), r"expected grad_output to be a floating-point tensor"
    yield "int-saved", (g, x.long(), 0.1, False), r"expected saved to be a floating-point tensor"


@pytest.mark.parametrize("mode", list(_modes()))
@pytest.mark.parametrize("case", ["alpha", "shape", "dtype", "int-grad", "int-saved"])
def test_elu_backward_rejects_bad_arguments(device, mode, case):
    (args, pattern) = {name: (a, p) for name, a, p in _backward_error_cases(device)}[case]
    before = [a.clone() for a in args if isinstance(a, torch.Tensor)]
    with pytest.raises(RuntimeError, match=r"uaccel\.elu_backward: .*" + pattern):
        _call(mode, torch.ops.uaccel.elu_backward, *args)
    for a, b in zip([a for a in args if isinstance(a, torch.Tensor)], before):
        assert torch.equal(a, b)


@pytest.mark.cuda
@pytest.mark.skipif(not HAS_CUDA, reason="needs a CUDA device")
@pytest.mark.parametrize("mode", list(_modes()))
def test_elu_backward_rejects_mixed_devices(mode):
    g = torch.randn(3, device="cuda")
    x = torch.randn(3)
    with pytest.raises(RuntimeError, match=r"uaccel\.elu_backward: expected grad_output and saved on the same device, but got cuda:0 and cpu"):
        _call(mode, torch.ops.uaccel.elu_backward, g, x, 0.1, False)


def test_missing_argument_is_a_schema_error():
    with pytest.raises(RuntimeError, match="elu_backward"):
        torch.ops.uaccel.elu_backward(torch.randn(3), torch.randn(3), 0.1)
