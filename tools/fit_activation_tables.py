"""Writes csrc/activations/activation_tables.h: the functions of a = |x| that the activations look
up on AVX-512 and AVX2 (activation_math.h's polynomial_by_table), each as 32 (AVX-512) or 8 (AVX2)
polynomials in d = a - k w (|d| <= w/2), one permutation a coefficient (vec_math.h's lookup):
    GELU's derivative at -a, Phi(-a) - a phi(a) (at a, 1 minus it), w = 1/4, degree 6, its error relative
        to the larger of its two terms, which cancel where it crosses 0 (the backward's whole derivative
        from one polynomial: no exp);
    a Phi(-a) = -gelu(-a), GELU's negative side, w = 1/4, degree 6, and a sigmoid(-a) = -silu(-a), SiLU's,
        w = 1/4, degree 4: the product by a in the fit, one float a constant, so that the forwards
        evaluate no more than the polynomial (each rounding spared is an instruction spared);
    GELU's tanh approximation the same way, its Phi(-a) being sigmoid(-v(a)), v(a) = 2 sqrt(2/pi) (a +
        0.044715 a^3): sigmoid(-v(a)) split and a sigmoid(-v(a)), both w = 3/16, degree 6; and sigmoid(-a)
        split, for SiLU's derivative, w = 1/4, degree 5;
    for AVX2, whose permutation indexes 8 floats, each in 8 intervals at degree 7: the four GELU tables
        of w = 1/2 (to a = 3.5), and sigmoid(-a) of w = 1 (to 7). (AVX2's SiLU divides instead.)
    e^(a^2/2) Phi(-a) = erfcx(a / sqrt(2)) / 2, split, for GELU's vectors with a lane beyond those tables
        (Phi(-a) is e^(-a^2/2) times it: 1/2 at a = 0, slowly falling, no Gaussian decay left to fit), to
        a = 15.5: w = 1/2, degree 6 (AVX-512) and w = 2, degree 9 (AVX2).
The two GELU tables of an instruction set share w, so the backward finds a's interval once for both.
k w has few significant bits, so d = a - k w is exact in float (Sterbenz).

Each polynomial is a relative minimax fit (to the function, or to Table.scale; Lawson's algorithm on Chebyshev nodes, float64) whose
coefficients are rounded to float one at a time, the rest refitted to what the rounding left; where
the function is 0 at a = 0, interval 0's constant term is 0. Run it from the repository root with numpy,
then `make format`:
    python tools/fit_activation_tables.py
"""

import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

NODES = 400
MARGIN = 1.02  # a rounded to the neighbouring interval lands just outside |d| <= w/2

HEADER = Path(__file__).resolve().parents[1] / "csrc/activations/activation_tables.h"


@dataclass(frozen=True)
class Table:
    name: str  # the C++ struct's
    description: str
    function: Callable[[float], float]
    width: float
    degree: int
    split_constant: bool
    intervals: int = 32  # AVX-512: two registers of 16 floats, one VPERMT2PS a coefficient; AVX2: 8, VPERMPS
    scale: Callable[[float], float] | None = None  # what the error is relative to: the function where None


def tanh_cdf_tail(a: float) -> float:
    """sigmoid(-v(a)) = (1 - tanh(v(a) / 2)) / 2, v(a) = 2 sqrt(2/pi) (a + 0.044715 a^3)."""
    return 1 / (1 + math.exp(2 * math.sqrt(2 / math.pi) * (a + 0.044715 * a**3)))


def gelu_derivative_at_minus(a: float) -> float:
    """GELU's derivative Phi(x) + x phi(x) at x = -a: Phi(-a) - a phi(a), 0 near a = 0.75."""
    return 0.5 * math.erfc(a / math.sqrt(2)) - a * math.exp(-a * a / 2) / math.sqrt(2 * math.pi)


def gaussian_tail_factor(a: float) -> float:
    """e^(a^2/2) Phi(-a) = erfcx(a / sqrt(2)) / 2."""
    return math.exp(a * a / 2) * 0.5 * math.erfc(a / math.sqrt(2))


def gelu_derivative_larger_term(a: float) -> float:
    """The larger of the derivative's two terms at -a, which the accuracy is held to: they cancel near
    a = 0.75, where the derivative crosses 0."""
    return max(0.5 * math.erfc(a / math.sqrt(2)), a * math.exp(-a * a / 2) / math.sqrt(2 * math.pi))


TABLES = [
    Table(
        "GeluDerivativeTable",
        "Phi(-a) - a phi(a), GELU's derivative at -a (1 minus it at a)",
        gelu_derivative_at_minus,
        width=1 / 4,
        degree=6,
        split_constant=False,
        scale=gelu_derivative_larger_term,
    ),
    Table(
        "GeluTable",
        "a Phi(-a), GELU's negative side (gelu(-a) = -a Phi(-a))",
        lambda a: a * 0.5 * math.erfc(a / math.sqrt(2)),
        width=1 / 4,
        degree=6,
        split_constant=False,
    ),
    Table(
        "SiluTable",
        "a sigmoid(-a) = a / (1 + e^a), SiLU's negative side (silu(-a) = -a sigmoid(-a))",
        lambda a: a / (1 + math.exp(a)),
        width=1 / 4,
        degree=4,
        split_constant=False,
    ),
    Table(
        "SigmoidTable",
        "sigmoid(-a), for SiLU's derivative",
        lambda a: 1 / (1 + math.exp(a)),
        width=1 / 4,
        degree=5,
        split_constant=True,
    ),
    Table(
        "TanhCdfTable",
        "sigmoid(-v(a)), v(a) = 2 sqrt(2/pi) (a + 0.044715 a^3): Phi(-a) of GELU's tanh approximation",
        tanh_cdf_tail,
        width=3 / 16,
        degree=6,
        split_constant=True,
    ),
    Table(
        "GeluTanhTable",
        "a sigmoid(-v(a)), the negative side of GELU's tanh approximation",
        lambda a: a * tanh_cdf_tail(a),
        width=3 / 16,
        degree=6,
        split_constant=False,
    ),
    Table(
        "GeluDerivativeTableAvx2",
        "Phi(-a) - a phi(a), GELU's derivative at -a (1 minus it at a), for AVX2",
        gelu_derivative_at_minus,
        width=1 / 2,
        degree=7,
        split_constant=False,
        intervals=8,
        scale=gelu_derivative_larger_term,
    ),
    Table(
        "GeluTableAvx2",
        "a Phi(-a), GELU's negative side, for AVX2",
        lambda a: a * 0.5 * math.erfc(a / math.sqrt(2)),
        width=1 / 2,
        degree=7,
        split_constant=False,
        intervals=8,
    ),
    Table(
        "TanhCdfTableAvx2",
        "sigmoid(-v(a)), Phi(-a) of GELU's tanh approximation, for AVX2",
        tanh_cdf_tail,
        width=1 / 2,
        degree=7,
        split_constant=True,
        intervals=8,
    ),
    Table(
        "GeluTanhTableAvx2",
        "a sigmoid(-v(a)), the negative side of GELU's tanh approximation, for AVX2",
        lambda a: a * tanh_cdf_tail(a),
        width=1 / 2,
        degree=7,
        split_constant=False,
        intervals=8,
    ),
    Table(
        "GaussianTailTable",
        "e^(a^2/2) Phi(-a) = erfcx(a / sqrt(2)) / 2, Phi(-a) without its Gaussian factor",
        gaussian_tail_factor,
        width=1 / 2,
        degree=6,
        split_constant=True,
    ),
    Table(
        "GaussianTailTableAvx2",
        "e^(a^2/2) Phi(-a) = erfcx(a / sqrt(2)) / 2, Phi(-a) without its Gaussian factor, for AVX2",
        gaussian_tail_factor,
        width=2,
        degree=9,
        split_constant=True,
        intervals=8,
    ),
    Table(
        "SigmoidTableAvx2",
        "sigmoid(-a), for SiLU's derivative, for AVX2",
        lambda a: 1 / (1 + math.exp(a)),
        width=1,
        degree=7,
        split_constant=True,
        intervals=8,
    ),
]


def lawson(basis: np.ndarray, target: np.ndarray, scale: np.ndarray, iterations: int = 60) -> np.ndarray:
    """Coefficients minimising max |basis @ c - target| / scale."""
    weights = np.full(len(target), 1.0 / len(target))
    for _ in range(iterations):
        w = np.sqrt(weights) / scale
        coefficients, *_ = np.linalg.lstsq(basis * w[:, None], target * w, rcond=None)
        error = np.abs(basis @ coefficients - target) / scale
        weights = weights * error + 1e-300
        weights /= weights.sum()
    return coefficients


def fit_interval(table: Table, k: int) -> list[np.float32]:
    nodes = np.cos(np.pi * (np.arange(NODES) + 0.5) / NODES) * table.width / 2 * MARGIN
    d = np.concatenate([nodes, [-table.width / 2 * MARGIN, table.width / 2 * MARGIN]])
    vanishes = k == 0 and table.function(0.0) == 0
    if k == 0:
        d = d[d > 0] if vanishes else d[d >= 0]  # a >= 0
    f = np.array([table.function(v) for v in k * table.width + d])
    scale = f if table.scale is None else np.array([table.scale(v) for v in k * table.width + d])
    basis = np.vander(d, table.degree + 1, increasing=True)
    constant = 0.0 if vanishes else lawson(basis, f, scale)[0]
    hi = np.float32(constant)
    row = [hi]
    if table.split_constant:
        row.append(np.float32(constant - float(hi)))
    rest = f
    for c in row:
        rest = rest - float(c)
    for j in range(1, table.degree + 1):
        c = np.float32(lawson(basis[:, j:], rest, scale)[0])
        row.append(c)
        rest = rest - float(c) * basis[:, j]
    return row


def float_literal(value: np.float32) -> str:
    mantissa, exponent = float(value).hex().split("p")
    return f"{mantissa.rstrip('0').rstrip('.')}p{exponent}f"


def struct(table: Table) -> str:
    coefficients = np.array([fit_interval(table, k) for k in range(table.intervals)], dtype=np.float32).T
    constant = ["constant's high part", "constant's low part"] if table.split_constant else ["constant"]
    names = constant + [f"d^{j}" for j in range(1, table.degree + 1)]
    rows = "\n".join(
        f"      // {name}\n      {{{', '.join(float_literal(v) for v in row)}}},"
        for name, row in zip(names, coefficients, strict=True)
    )
    return f"""// {table.description}: degree {table.degree}, w = {float(table.width)}.
struct {table.name} {{
  static constexpr int kIntervals = {table.intervals};
  static constexpr int kDegree = {table.degree};
  static constexpr float kWidth = {float(table.width)}f;
  static constexpr bool kSplitConstant = {str(table.split_constant).lower()};
  alignas(64) static constexpr float kCoefficients[{len(coefficients)}][{table.intervals}] = {{
{rows}
  }};
}};"""


def main() -> None:
    structs = "\n\n".join(struct(table) for table in TABLES)
    HEADER.write_text(
        f"""#pragma once
// Written by tools/fit_activation_tables.py; do not edit. Functions F(a), 0 <= a <= (kIntervals - 1/2) w,
// each in interval k (a = k w + d, |d| <= w/2) the polynomial sum_j c_j d^j, one row of kCoefficients a
// coefficient: c_0, c_1, ... or, where kSplitConstant, c_0's high and low floats, then c_1, ... Relative
// minimax fits.

namespace uaccel::math {{

{structs}

}} // namespace uaccel::math
"""
    )


if __name__ == "__main__":
    main()
