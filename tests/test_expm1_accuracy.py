"""The CPU kernels' own exp/expm1 (csrc/include/uaccel/math/vec_math.h), SiLU and GELU, against float64 references: float32
over a dense sample of every binade (the exhaustive sweep is `make expm1-sweep`), float64 and the
backward's exp over random samples. At most 2 ulp, as the contract says."""

import math
import pathlib

import pytest
import torch
from expm1_sweep import sweep

import torch_uaccel
from torch_uaccel._testing import accuracy
from torch_uaccel._testing.accuracy import ulp_error

pytestmark = pytest.mark.cpu_kernels
ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_float32_expm1_on_a_dense_sample_of_all_negative_floats():
    result = sweep(step=4099)  # about 520 000 bit patterns, every binade from subnormals to -FLT_MAX
    assert result["max_ulp"] <= 2, result


def _spacing64(reference: torch.Tensor) -> torch.Tensor:
    magnitude = reference.abs()
    spacing = magnitude - torch.nextafter(magnitude, torch.zeros_like(magnitude))
    return torch.where(magnitude > 0, spacing, torch.full_like(spacing, 5e-324))


def test_float64_expm1_within_2_ulp():
    generator = torch.Generator().manual_seed(0)
    exponents = torch.rand(100_000, generator=generator, dtype=torch.float64) * 15 - 12  # 1e-12 .. 1e3
    x = torch.cat([-(10**exponents), torch.tensor([-0.0, -5e-324, -1e-300, -37.4, -37.5, -38.0, -700.0, -1e308])])
    reference = torch.tensor([math.expm1(v) for v in x.tolist()], dtype=torch.float64)
    errors = (torch.ops.uaccel.elu(x, 1.0) - reference).abs() / _spacing64(reference)
    assert errors.max() <= 2, float(x[errors.argmax()])


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_backward_exp_within_2_ulp_where_normal(dtype):
    """elu_backward from the input: g * exp(x) on x <= 0 (alpha = 1). Results below the smallest
    normal number may be flushed to 0."""
    generator = torch.Generator().manual_seed(1)
    lowest = 110.0 if dtype == torch.float32 else 760.0
    x = (-torch.rand(2**16, generator=generator, dtype=torch.float64) * lowest).to(dtype)
    grad = torch.ops.uaccel.elu_backward(torch.ones_like(x), x, 1.0, False)
    reference = torch.exp(x.double())
    normal = reference >= torch.finfo(dtype).smallest_normal
    errors = ulp_error(grad, reference) if dtype == torch.float32 else (grad - reference).abs() / _spacing64(reference)
    assert errors[normal].max() <= 2
    assert (grad[~normal] <= torch.finfo(dtype).smallest_normal).all()


def _with_a_tail_lane_per_vector(x: torch.Tensor, tail_value: float) -> torch.Tensor:
    """x with one lane in every 8 (AVX2's vector of floats; AVX-512's holds 16, aligned) replaced by
    tail_value: each vector then leaves its activation's fast path (csrc/activations/silu.h, gelu.h:
    GELU's tables (both forms) below kGeluByTableFrom = -4.5 on AVX-512; SiLU's table beyond |x| = kSiluByTableTo,
    7.75, on AVX-512 and its division below kSiluByDivisionFrom, -16.25, on AVX2) for its wide path."""
    mixed = x.clone()
    mixed[::8] = tail_value
    return mixed


def _strided(x: torch.Tensor) -> torch.Tensor:
    """x as every other element of a buffer: the kernels' scalar loop, whose math (scalar_math.h's) is CUDA's."""
    return torch.stack([x, x], dim=1)[:, 0]


@pytest.mark.parametrize("path", ["sorted", "quotient", "strided"])
def test_float32_silu_within_2_ulp_where_normal(path):
    """SiLU's contract (csrc/ops/silu.h): float32 within 2 ulp of float64 wherever the result is
    normal, on every step-th bit pattern of [-104, 104] (both signs, every binade down to subnormals),
    through the vector loop and its scalar tail alike; below x = -87.3, where exp(x) leaves the normal
    floats, the result may be flushed to 0 (|silu(x)| < 1.1e-36 there), as F.silu's kernel does.
    Sorted, AVX-512 takes x sigmoid(x) from a table of polynomials for every vector within its reach,
    |x| <= 7.75, and AVX2 x / (1 + exp(-x)) by one division for every vector within [-16.25, 88] (the
    first vectors hold each end, and the floats just inside and outside it); with a lane of every
    vector below -16.25, the whole sweep takes the compensated quotient; strided, the scalar loop's
    quotient (CUDA's math)."""
    largest = torch.tensor(104.0).view(torch.int32).item()
    patterns = torch.arange(0, largest, 1021, dtype=torch.int32)
    positive = patterns.view(torch.float32)
    edges = []
    for low, high in ((-7.75, 7.75), (-16.25, 88.0)):
        ends = [torch.tensor(low), torch.tensor(high)]
        ends = torch.stack(
            [e for end in ends for e in (end, torch.nextafter(end, 0 * end), torch.nextafter(end, 2 * end))]
        )
        vector = torch.cat([ends, ends, ends[:4]])  # one vector of 16 (two of 8)
        edges += [vector.clamp(low, high), vector]
    x = torch.cat([*edges, positive, -positive])
    if path == "quotient":
        x = _with_a_tail_lane_per_vector(x, -20.0)
    if path == "strided":
        x = _strided(x)
    ours, reference = torch.ops.uaccel.silu(x), torch.nn.functional.silu(x.double())
    flushed = x < accuracy.NORMAL_FROM["silu"]
    normal = (reference.abs() >= torch.finfo(torch.float32).smallest_normal) & ~flushed
    errors = ulp_error(ours, reference)[normal]
    assert errors.max() <= 2, (float(errors.max()), float(x[normal][errors.argmax()]))
    assert ((ours[flushed] == 0) | (ulp_error(ours, reference)[flushed] <= 2)).all()


@pytest.mark.parametrize("path", ["table", "wide", "strided"])
def test_float32_silu_derivative_on_either_path(path):
    """SiLU's derivative s + x s (1 - s), s = sigmoid(x), from a table of sigmoid(-|x|) wherever a whole
    vector is within its reach (AVX-512: |x| <= 7.75; AVX2: 7) and from exp otherwise (a lane of 20 in
    every vector; strided, the scalar loop's, CUDA's math): within 3.5 ulps of the larger of its two terms
    (they cancel where it crosses 0 near x = -1.28), on every step-th bit pattern of [-80, 80]."""
    largest = torch.tensor(80.0).view(torch.int32).item()
    positive = torch.arange(0, largest, 1021, dtype=torch.int32).view(torch.float32)
    x = torch.cat([-positive.flip(0), positive])
    x = x[: x.numel() // 16 * 16]
    if path == "wide":
        x = _with_a_tail_lane_per_vector(x, 20.0)
    if path == "strided":
        x = _strided(x)
    s = torch.sigmoid(x.double())
    first, second = s, x.double() * s * torch.sigmoid(-x.double())
    derivative = torch.ops.uaccel.silu_backward(torch.ones_like(x), x)
    larger_term = torch.maximum(first, second.abs()).float()
    spacing = (larger_term - torch.nextafter(larger_term, torch.zeros_like(larger_term))).double()
    errors = (derivative.double() - (first + second)).abs() / spacing
    assert errors.max() <= 3.5, (float(errors.max()), float(x[errors.argmax()]))


@pytest.mark.parametrize("strided", [False, True], ids=["contiguous", "strided"])
@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_float32_gelu_within_2_ulp_where_normal(approximate, strided):
    """GELU's contract (csrc/ops/gelu.h): float32 within 2 ulp of float64 wherever the result and its
    exponential part are normal, the negative tail included (F.gelu's own float32 kernel is 1113 ulp off
    at x = -3), on every step-th bit pattern of [-16, 16]. Below accuracy.NORMAL_FROM the error is at most a
    few subnormal spacings (times |x|) for 'none', and the result may be flushed to 0 for 'tanh'."""
    largest = torch.tensor(16.0).view(torch.int32).item()
    patterns = torch.arange(0, largest, 1021, dtype=torch.int32)
    positive = patterns.view(torch.float32)
    x = torch.cat([positive, -positive])
    if strided:  # the scalar loop: CUDA's math
        x = _strided(x)
    ours, reference = torch.ops.uaccel.gelu(x, approximate=approximate), accuracy.gelu(x, approximate)
    tail = x < accuracy.NORMAL_FROM[approximate]
    normal = (reference.abs() >= torch.finfo(torch.float32).smallest_normal) & ~tail
    errors = ulp_error(ours, reference)[normal]
    assert errors.max() <= 2, (float(errors.max()), float(x[normal][errors.argmax()]))
    subnormal_spacing = 2.0**-149
    if approximate == "none":
        assert ((ours[tail].double() - reference[tail]).abs() <= 8 * subnormal_spacing * x[tail].abs()).all()
    else:
        assert ((ours[tail] == 0) | (ulp_error(ours, reference)[tail] <= 2)).all()


@pytest.mark.parametrize("approximate", ["none", "tanh"])
@pytest.mark.parametrize("path", ["table", "wide", "strided"])
def test_float32_gelu_and_its_derivative_on_either_path(path, approximate):
    """GELU takes Phi (or for 'tanh' sigmoid(v(x))) from a table of polynomials wherever a whole vector is
    within its reach (AVX-512: at least -4.5; AVX2: |x| <= 3.5), and its wide path otherwise (a lane of
    -5 in every vector: 'none' from its Gaussian tail, 'tanh' from exp); a strided input takes the
    scalar loop, whose math is CUDA's ('none' widened to double there): each within GELU's 2 ulp,
    and its derivative within 2 ulp ('none'; the DEFAULT set's float vectors 4; 'tanh': 4.5) of the
    larger of its two terms (accuracy.gelu_derivative_terms: they cancel where it crosses 0 near x = -0.75;
    ATen's float32 gelu_backward is off by over 4000 of those ulps near x = -4.4), on every step-th bit
    pattern of [-4.5, 8]."""
    low, high = (torch.tensor(v).view(torch.int32).item() for v in (4.5, 8.0))
    negative = -torch.arange(0, low, 1021, dtype=torch.int32).view(torch.float32)
    positive = torch.arange(0, high, 1021, dtype=torch.int32).view(torch.float32)
    x = torch.cat([negative.flip(0), positive])
    x = x[: x.numel() // 16 * 16]
    if path == "wide":
        x = _with_a_tail_lane_per_vector(x, -5.0)
    if path == "strided":
        x = _strided(x)
    errors = ulp_error(torch.ops.uaccel.gelu(x, approximate=approximate), accuracy.gelu(x, approximate))
    assert errors.max() <= 2, (float(errors.max()), float(x[errors.argmax()]))
    first, second = accuracy.gelu_derivative_terms(x, approximate)
    derivative = torch.ops.uaccel.gelu_backward(torch.ones_like(x), x, approximate=approximate)
    larger_term = torch.maximum(first, second.abs()).float()
    spacing = (larger_term - torch.nextafter(larger_term, torch.zeros_like(larger_term))).double()
    errors = (derivative.double() - (first + second)).abs() / spacing
    # 'none': from its own table or Gaussian tail (AVX2, AVX-512) or widened to double, 2; the DEFAULT set's erfc in
    # float vectors, 4. 'tanh''s v'(x) is a rounding more (docs/accuracy.md has what each path measures).
    default_vectors = path != "strided" and torch_uaccel.build_info()["cpu_kernels"] == "DEFAULT"
    bound = {"none": 4 if default_vectors else 2, "tanh": 4.5}[approximate]
    assert errors.max() <= bound, (float(errors.max()), float(x[errors.argmax()]))


def test_float32_gelu_and_its_derivative_in_the_negative_tail():
    """Below the tables' reach GELU 'none' and its derivative come from Phi(-a) = e^(-a^2/2) R(a) (AVX2,
    AVX-512: csrc/activations/gelu.h's gaussian_tail; the DEFAULT set from erfc), where both are tiny and only
    relative accuracy says anything: every 61st float32 of [-13.1, -4.5] (GELU to accuracy.NORMAL_FROM, its
    derivative to where it leaves the normal floats) within 2 ulp (the derivative: of the larger of its two
    terms; the DEFAULT set's erfc in float vectors, 4)."""
    low, high = (torch.tensor(v).view(torch.int32).item() for v in (4.5, 13.1))
    x = -torch.arange(low, high, 61, dtype=torch.int32).view(torch.float32)
    contract = x >= accuracy.NORMAL_FROM["none"]
    errors = ulp_error(torch.ops.uaccel.gelu(x), accuracy.gelu(x, "none"))[contract]
    assert errors.max() <= 2, (float(errors.max()), float(x[contract][errors.argmax()]))
    first, second = accuracy.gelu_derivative_terms(x, "none")
    derivative = torch.ops.uaccel.gelu_backward(torch.ones_like(x), x)
    larger_term = torch.maximum(first, second.abs()).float()
    normal = larger_term >= torch.finfo(torch.float32).smallest_normal
    spacing = (larger_term - torch.nextafter(larger_term, torch.zeros_like(larger_term))).double()
    errors = ((derivative.double() - (first + second)).abs() / spacing)[normal]
    bound = 4 if torch_uaccel.build_info()["cpu_kernels"] == "DEFAULT" else 2
    assert errors.max() <= bound, (float(errors.max()), float(x[normal][errors.argmax()]))


def test_the_accuracy_record_covers_every_path_and_stays_within_the_bounds(tmp_path):
    """`make accuracy` (tools/accuracy_record.py) on a sparse sample: a row per function and dtype, a column
    per CPU path this machine runs and the strided one, every cell a finite error within the bounds above."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("accuracy_record", ROOT / "tools" / "accuracy_record.py")
    record = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(record)
    output = tmp_path / "accuracy.md"
    assert record.main(["--step", str(2**20 + 7), "--output", str(output)]) == 0
    rows = [
        line.split("|")[1:-1]
        for line in output.read_text().splitlines()
        if line.startswith("| ") and not line.startswith("| function")
    ]
    paths = len(torch_uaccel.build_info()["cpu_runnable"]) + 1
    assert len(rows) == 3 * len(record.functions())
    for name, *cells in rows:
        assert len(cells) == paths
        errors = [float(cell.split(" at ")[0]) for cell in cells]
        assert all(math.isfinite(e) and e <= 4.5 for e in errors), (name, errors)
