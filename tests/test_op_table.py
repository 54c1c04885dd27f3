"""What every row of torch_uaccel._testing.op_table.OPS gets, with no test code of its own: the reference
(float64) on every dtype, shape and layout of the shared samples, with gradients; gradcheck and
gradgradcheck; opcheck; torch.compile; and its bad inputs refused, from the real and the fake kernels."""

import re

import pytest
import torch
from torch._subclasses.fake_tensor import FakeTensorMode

from torch_uaccel._testing.op_table import OPS, off_the_kink

# Every test here but opcheck, whose checks (schema, fakes, autograd registration) the kernel path does not change.
pytestmark = pytest.mark.torch_release

GRAD_ROWS = [row for row in OPS if row.supports_grad]


def _param(row, *values):
    """One parameter set of `test` for `row`, named after the row and the values."""
    return pytest.param(row, *values, id="-".join(str(v).removeprefix("torch.") for v in (row, *values)))


def _by_dtype(rows):
    return [_param(row, dtype) for row in rows for dtype in row.dtypes]


@pytest.mark.cpu_kernels
@pytest.mark.parametrize(("row", "dtype"), _by_dtype(OPS))
def test_matches_reference(device, row, dtype):
    for sample in row.sample_inputs(device, dtype):
        row.assert_matches_reference(sample.inputs, msg=repr(sample))


@pytest.mark.cpu_kernels
@pytest.mark.parametrize(("row", "dtype"), _by_dtype(GRAD_ROWS))
def test_gradient_matches_reference(device, row, dtype):
    for sample in row.sample_inputs(device, dtype, requires_grad=True):
        row.assert_matches_reference(sample.inputs, msg=repr(sample))


@pytest.mark.cpu_kernels
@pytest.mark.parametrize("row", [_param(row) for row in GRAD_ROWS])
def test_gradcheck_and_gradgradcheck(device, row):
    """In float64 on every layout: reverse and forward mode, batched, and the second order."""
    for sample in row.sample_inputs(device, torch.float64, requires_grad=True, differentiable=True, small=True):
        assert torch.autograd.gradcheck(
            row.run, sample.inputs, check_forward_ad=True, check_batched_grad=True, check_batched_forward_grad=True
        ), sample
        if row.supports_gradgrad:
            assert torch.autograd.gradgradcheck(
                row.run, sample.inputs, check_fwd_over_rev=True, check_batched_grad=True
            ), sample


HALF_TYPES = (torch.float16, torch.bfloat16)


@pytest.mark.cpu_kernels
@pytest.mark.parametrize(
    ("row", "dtype"), [_param(row, dtype) for row in OPS for dtype in HALF_TYPES if row.overload is not None]
)
def test_half_types_round_the_float_kernel_once(device, row, dtype):
    """A half-type kernel widens in registers, runs the float math and narrows (or looks up what the
    float kernel computed for every bit pattern): its bits are the float kernel's on the same values,
    rounded to nearest even (NaN stays NaN). Every bit pattern in order, then three again in the scalar
    tail. The float kernel chooses its path by vector (a lane out of a table's reach sends all the
    vector's lanes another way, each path within 2 ulp), so its bits are compared on the same vectors."""
    every_pattern = torch.arange(-(2**15), 2**15, dtype=torch.int32).to(torch.int16).view(dtype)
    inputs = row.plain_inputs(torch.cat([every_pattern, every_pattern[:3]]).to(device))
    ours = row.run(*inputs)
    expected = row.run(*(t.float() for t in inputs)).to(dtype)
    torch.testing.assert_close(ours, expected, rtol=0, atol=0, equal_nan=True)


def _opcheck_cases():
    for row in OPS:
        if row.overload is None or not row.opcheck:
            continue
        for dtype in row.dtypes:
            for requires_grad in (False, True) if row.supports_grad and not row.inplace else (False,):
                yield _param(row, dtype, requires_grad)


@pytest.mark.parametrize(("row", "dtype", "requires_grad"), list(_opcheck_cases()))
def test_opcheck(device, row, dtype, requires_grad):
    for sample in row.sample_inputs(device, dtype, large=False):
        # NaN replaced (opcheck compares eager and traced outputs with ==); stride-0 grads kept.
        inputs = tuple(
            (t.nan_to_num(nan=0.5) if t.isnan().any() else t).requires_grad_(requires_grad) for t in sample.inputs
        )
        torch.library.opcheck(row.custom_op, inputs + row.scalars, row.keywords)


def _call(mode, fn, inputs):
    if mode == "eager":
        return fn(*inputs)
    with FakeTensorMode() as fake:
        return fn(*(fake.from_tensor(t) for t in inputs))


@pytest.mark.cpu_kernels
@pytest.mark.parametrize("mode", ["eager", "fake"])
@pytest.mark.parametrize("row", [_param(row) for row in OPS])
def test_bad_inputs_are_refused_untouched(device, row, mode):
    for case in row.error_cases(device):
        if mode == "fake" and not case.fake:
            continue
        before = [t.detach().clone() for t in case.inputs]
        error = None
        try:
            _call(mode, case.call or row.op, case.inputs)
        except case.error as raised:
            error = raised
        assert error is not None, f"{case.name}: not refused"
        assert re.search(case.match, str(error)), f"{case.name}: {type(error).__name__}: {error}"
        for t, b in zip(case.inputs, before, strict=True):
            assert torch.equal(t.detach(), b), f"{case.name}: input modified"


@pytest.mark.cpu_kernels
@pytest.mark.slow
@pytest.mark.parametrize("dynamic", [False, True])
@pytest.mark.parametrize("row", [_param(row) for row in OPS])
def test_compile_fullgraph(device, row, dynamic):
    """Forward and backward through torch.compile(fullgraph=True); a second shape recompiles when
    static and reuses the graph when dynamic."""
    torch._dynamo.reset()
    compiled = torch.compile(row.run, fullgraph=True, dynamic=dynamic)
    gen = torch.Generator().manual_seed(0)
    for rows in (8, 11):
        inputs = row.plain_inputs(off_the_kink(torch.randn(rows, 3, generator=gen, dtype=torch.float64)).to(device))
        ours = [t.clone().requires_grad_(row.supports_grad) for t in inputs]
        theirs = [t.clone().requires_grad_(row.supports_grad) for t in inputs]
        out, expected = compiled(*ours), row.run(*theirs, reference=True, of_gradient=row.supports_grad)
        torch.testing.assert_close(out, expected)
        if row.supports_grad:
            out.sum().backward()
            expected.sum().backward()
            for a, b in zip(ours, theirs, strict=True):
                torch.testing.assert_close(a.grad, b.grad)
