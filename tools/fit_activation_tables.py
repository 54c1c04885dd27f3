"""Writes csrc/include/uaccel/math/activation_tables.h: the lower tails F(-a) that AVX-512's activations
look up (activation_math.h's polynomial_by_table), each as 32 polynomials in d = a - k w (k = 0..31,
|d| <= w/2), one permutation a coefficient (vec_math.h's lookup):
    Phi(-a), the standard normal distribution's (GELU's x Phi(x)), w = 3/16, degree 6;
    sigmoid(-a) = 1 / (1 + e^a), the logistic distribution's (SiLU's x sigmoid(x)), w = 1/2, degree 5.
k w has few significant bits, so d = a - k w is exact in float (Sterbenz).

Each polynomial is a relative minimax fit (Lawson's algorithm on Chebyshev nodes, float64) whose
constant term is kept as two floats (hi + lo) and whose other coefficients are rounded to float one at
a time, the rest refitted to what the rounding left. Run it from the repository root with numpy, then
`make format`:
    python tools/fit_activation_tables.py
"""

import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

INTERVALS = 32  # two registers of 16 floats: one vpermt2ps a coefficient
NODES = 400
MARGIN = 1.02  # a rounded to the neighbouring interval lands just outside |d| <= w/2

HEADER = Path(__file__).resolve().parents[1] / "csrc/include/uaccel/math/activation_tables.h"


@dataclass(frozen=True)
class Table:
    name: str  # the C++ struct's
    description: str
    lower_tail: Callable[[float], float]
    width: float
    degree: int


TABLES = [
    Table(
        "NormalCdfTable",
        "Phi(-a), the standard normal distribution's lower tail (GELU)",
        lambda a: 0.5 * math.erfc(a / math.sqrt(2)),
        width=3 / 16,
        degree=6,
    ),
    Table(
        "SigmoidTable",
        "sigmoid(-a) = 1 / (1 + e^a), the logistic distribution's lower tail (SiLU)",
        lambda a: 1 / (1 + math.exp(a)),
        width=1 / 2,
        degree=5,
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
    if k == 0:
        d = d[d >= 0]  # a >= 0
    f = np.array([table.lower_tail(v) for v in k * table.width + d])
    basis = np.vander(d, table.degree + 1, increasing=True)
    constant = lawson(basis, f, f)[0]
    hi = np.float32(constant)
    lo = np.float32(constant - float(hi))
    rest = f - float(hi) - float(lo)
    row = [hi, lo]
    for j in range(1, table.degree + 1):
        c = np.float32(lawson(basis[:, j:], rest, f)[0])
        row.append(c)
        rest = rest - float(c) * basis[:, j]
    return row


def float_literal(value: np.float32) -> str:
    mantissa, exponent = float(value).hex().split("p")
    return f"{mantissa.rstrip('0').rstrip('.')}p{exponent}f"


def struct(table: Table) -> str:
    coefficients = np.array([fit_interval(table, k) for k in range(INTERVALS)], dtype=np.float32).T
    names = ["constant's high part", "constant's low part"] + [f"d^{j}" for j in range(1, table.degree + 1)]
    rows = "\n".join(
        f"      // {name}\n      {{{', '.join(float_literal(v) for v in row)}}},"
        for name, row in zip(names, coefficients, strict=True)
    )
    return f"""// {table.description}: degree {table.degree}, w = {float(table.width)}.
struct {table.name} {{
  static constexpr int kIntervals = {INTERVALS};
  static constexpr int kDegree = {table.degree};
  static constexpr float kWidth = {float(table.width)}f;
  alignas(64) static constexpr float kCoefficients[{table.degree + 2}][{INTERVALS}] = {{
{rows}
  }};
}};"""


def main() -> None:
    structs = "\n\n".join(struct(table) for table in TABLES)
    HEADER.write_text(
        f"""#pragma once
// Written by tools/fit_activation_tables.py; do not edit. Lower tails F(-a), 0 <= a <= (kIntervals - 1/2) w,
// each in interval k (a = k w + d, |d| <= w/2) the polynomial sum_j kCoefficients[j][k] d^j, its constant
// term split in two floats (rows 0 and 1); row j >= 2 holds d^(j-1)'s coefficient. Relative minimax fits.

namespace uaccel::math {{

{structs}

}} // namespace uaccel::math
"""
    )


if __name__ == "__main__":
    main()
