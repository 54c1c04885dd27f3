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
the function is 0 at a = 0, interval 0's constant term is 0. The header is written formatted (fitting.py);
--check compares instead. Run with requirements/tables.txt's numpy:
    python tools/fit_activation_tables.py [--check]
"""

import math
from collections.abc import Callable
from dataclasses import dataclass

import fitting
import numpy as np

NODES = 400
ITERATIONS = 60
MARGIN = 1.02  # a rounded to the neighbouring interval lands just outside |d| <= w/2

HEADER = fitting.REPO / "csrc/activations/activation_tables.h"


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


def fit_interval(table: Table, k: int) -> list[float]:
    nodes = fitting.chebyshev_points(NODES) * table.width / 2 * MARGIN
    d = np.concatenate([nodes, [-table.width / 2 * MARGIN, table.width / 2 * MARGIN]])
    vanishes = k == 0 and table.function(0.0) == 0
    if k == 0:
        d = d[d > 0] if vanishes else d[d >= 0]  # a >= 0
    f = np.array([table.function(v) for v in k * table.width + d])
    scale = f if table.scale is None else np.array([table.scale(v) for v in k * table.width + d])
    basis = np.vander(d, table.degree + 1, increasing=True)
    constant = 0.0 if vanishes else fitting.lawson(basis, f, scale, ITERATIONS)[0]
    row = [fitting.to_float(constant)]
    if table.split_constant:
        row.append(fitting.to_float(constant - row[0]))
    rest = f
    for c in row:
        rest = rest - c
    return row + fitting.fit_one_at_a_time(basis[:, 1:], rest, scale, ITERATIONS)


def struct(table: Table) -> str:
    coefficients = np.array([fit_interval(table, k) for k in range(table.intervals)], dtype=np.float32).T
    constant = ["constant's high part", "constant's low part"] if table.split_constant else ["constant"]
    names = constant + [f"d^{j}" for j in range(1, table.degree + 1)]
    rows = "\n".join(
        f"      // {name}\n      {{{', '.join(fitting.hex_literal(float(v), 'f', None) for v in row)}}},"
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
    check = fitting.parse_arguments("Writes csrc/activations/activation_tables.h.")
    structs = "\n\n".join(struct(table) for table in TABLES)
    text = f"""#pragma once
// Written by tools/fit_activation_tables.py; do not edit. Functions F(a), 0 <= a <= (kIntervals - 1/2) w,
// each in interval k (a = k w + d, |d| <= w/2) the polynomial sum_j c_j d^j, one row of kCoefficients a
// coefficient: c_0, c_1, ... or, where kSplitConstant, c_0's high and low floats, then c_1, ... Relative
// minimax fits.

namespace uaccel::math {{

{structs}

}} // namespace uaccel::math
"""
    fitting.write_or_check({HEADER: fitting.clang_format(text, HEADER)}, check)


if __name__ == "__main__":
    main()
