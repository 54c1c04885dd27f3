"""Errors in ulp and the float64 references the accuracy tests (tests/test_expm1_accuracy.py) and the
accuracy record (tools/accuracy_record.py, `make accuracy`) measure against: one definition of each."""

import math

import torch

MANTISSA_BITS = {torch.float32: 23, torch.bfloat16: 7, torch.float16: 10}

# Where each activation's float32 contract ends on the negative side, though its result is still normal:
# below, exp(x) (SiLU, -87.3), erfc(-x / sqrt(2)) (GELU 'none') or exp(-|v|) (GELU 'tanh', whose low part,
# v's rounding carried, is subnormal from x = -9.2 on) leave the normal floats; the kernels may flush to 0
# (SiLU, 'tanh', as F.silu's own kernel does) or lose relative accuracy ('none': a few subnormal spacings).
NORMAL_FROM = {"silu": -87.3, "none": -12.9, "tanh": -9.95}


def spacing_below(reference: torch.Tensor, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """The spacing of dtype just below |reference| (at a power of two, the smaller of the two spacings,
    so never an underestimate of the error); the subnormals' at and below the smallest normal."""
    magnitude = reference.double().abs()
    smallest_normal = torch.finfo(dtype).smallest_normal
    mantissa, exponent = torch.frexp(magnitude)
    spacing = torch.ldexp(torch.ones_like(magnitude), exponent - 1 - MANTISSA_BITS[dtype])
    spacing = torch.where(mantissa == 0.5, spacing / 2, spacing)
    return torch.where(magnitude <= smallest_normal, smallest_normal * 2.0 ** -MANTISSA_BITS[dtype], spacing)


def ulp_error(actual: torch.Tensor, reference: torch.Tensor, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """|actual - reference| in units of dtype's spacing just below |reference|."""
    return (actual.double() - reference.double()).abs() / spacing_below(reference, dtype)


def ulp_error_of_sum(
    actual: torch.Tensor, terms: tuple[torch.Tensor, ...], dtype: torch.dtype = torch.float32
) -> torch.Tensor:
    """|actual - sum(terms)| in units of dtype's spacing at the largest term: a derivative that is the sum
    of two terms is rounded in each, and where they cancel (its zero) that is the scale of its error."""
    largest = torch.stack([t.double().abs() for t in terms]).amax(0)
    return (actual.double() - sum(t.double() for t in terms)).abs() / spacing_below(largest, dtype)


def gelu(x: torch.Tensor, approximate: str) -> torch.Tensor:
    """GELU in float64 without the cancellation of F.gelu's own formula (1 + erf, 1 + tanh lose every
    digit below x = -8 even in float64): x Phi(x) with Phi from erfc, or x sigmoid(2u) for 'tanh'
    (0.5 (1 + tanh(u)) = sigmoid(2u), the same function)."""
    x = x.double()
    if approximate == "tanh":
        u = math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)
        return x * torch.sigmoid(2 * u)
    return x * 0.5 * torch.special.erfc(-x / math.sqrt(2))


def gelu_derivative_terms(x: torch.Tensor, approximate: str) -> tuple[torch.Tensor, torch.Tensor]:
    """GELU's derivative as the sum of two terms in float64: Phi(x) and x phi(x), or for 'tanh' s and
    x s (1 - s) v'(x), s = sigmoid(v(x)), v(x) = 2 sqrt(2/pi) (x + 0.044715 x^3)."""
    x = x.double()
    if approximate == "tanh":
        beta = 2 * math.sqrt(2 / math.pi)
        s = torch.sigmoid(beta * (x + 0.044715 * x**3))
        return s, x * s * (1 - s) * beta * (1 + 3 * 0.044715 * x**2)
    return 0.5 * torch.special.erfc(-x / math.sqrt(2)), x * torch.exp(-x * x / 2) / math.sqrt(2 * math.pi)


def silu_derivative_terms(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """SiLU's derivative s + x s (1 - s), s = sigmoid(x), as its two terms in float64 (1 - s as
    sigmoid(-x), without cancellation)."""
    x = x.double()
    s = torch.sigmoid(x)
    return s, x * s * torch.sigmoid(-x)
