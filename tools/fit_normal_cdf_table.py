"""Writes csrc/include/uaccel/math/normal_cdf_table.h: Phi(-a), the standard normal distribution's lower
tail, as 32 polynomials in d = a - k w (w = 3/16, k = 0..31, |d| <= w/2), the table AVX-512's GELU
looks up with one permutation a coefficient (vec_math.h, gelu_by_table).

Each polynomial is a relative minimax fit (Lawson's algorithm on Chebyshev nodes, float64) whose
constant term is kept as two floats (hi + lo) and whose other coefficients are rounded to float one at
a time, the rest refitted to what the rounding left. Run it from the repository root with numpy:
    python tools/fit_normal_cdf_table.py
"""

import math
from pathlib import Path

import numpy as np

WIDTH = 3 / 16  # k * WIDTH is exact in float, so d = a - k * WIDTH is too (Sterbenz)
INTERVALS = 32  # two registers of 16 floats: one vpermt2ps a coefficient
DEGREE = 6
NODES = 400
MARGIN = 1.02  # a rounded to the neighbouring interval lands just outside |d| <= w/2

HEADER = Path(__file__).resolve().parents[1] / "csrc/include/uaccel/math/normal_cdf_table.h"


def lower_tail(a: np.ndarray) -> np.ndarray:
    return np.array([0.5 * math.erfc(v / math.sqrt(2)) for v in a])


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


def fit_interval(k: int) -> list[np.float32]:
    nodes = np.cos(np.pi * (np.arange(NODES) + 0.5) / NODES) * WIDTH / 2 * MARGIN
    d = np.concatenate([nodes, [-WIDTH / 2 * MARGIN, WIDTH / 2 * MARGIN]])
    if k == 0:
        d = d[d >= 0]  # a >= 0
    f = lower_tail(k * WIDTH + d)
    basis = np.vander(d, DEGREE + 1, increasing=True)
    constant = lawson(basis, f, f)[0]
    hi = np.float32(constant)
    lo = np.float32(constant - float(hi))
    rest = f - float(hi) - float(lo)
    row = [hi, lo]
    for j in range(1, DEGREE + 1):
        c = np.float32(lawson(basis[:, j:], rest, f)[0])
        row.append(c)
        rest = rest - float(c) * basis[:, j]
    return row


def float_literal(value: np.float32) -> str:
    mantissa, exponent = float(value).hex().split("p")
    return f"{mantissa.rstrip('0').rstrip('.')}p{exponent}f"


def main() -> None:
    table = np.array([fit_interval(k) for k in range(INTERVALS)], dtype=np.float32).T
    names = ["constant's high part", "constant's low part"] + [f"d^{j}" for j in range(1, DEGREE + 1)]
    rows = []
    for name, row in zip(names, table, strict=True):
        values = ", ".join(float_literal(v) for v in row)
        rows.append(f"    // {name}\n    {{{values}}},")
    HEADER.write_text(
        f"""#pragma once
// Written by tools/fit_normal_cdf_table.py; do not edit. Phi(-a), the standard normal distribution's
// lower tail, for 0 <= a <= {INTERVALS - 0.5} w (w = {WIDTH}): in interval k (a = k w + d, |d| <= w/2) the
// polynomial sum_j kNormalCdfTable[j][k] d^j, its constant term split in two floats (rows 0 and 1).
// Relative minimax fits of degree {DEGREE}; row j >= 2 holds d^(j-1)'s coefficient.

namespace uaccel::math {{

inline constexpr int kNormalCdfIntervals = {INTERVALS};
inline constexpr float kNormalCdfWidth = {WIDTH}f;
alignas(64) inline constexpr float kNormalCdfTable[{DEGREE + 2}][{INTERVALS}] = {{
{chr(10).join(rows)}
}};

}} // namespace uaccel::math
"""
    )


if __name__ == "__main__":
    main()
