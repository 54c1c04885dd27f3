"""Writes the coefficients of the fitted polynomials that live beside their code (activation_tables.h
has its own generator), each list in place in its header:
    exp's q(t), e^t = 1 + t + t^2 q(t) on |t| <= ln2/2, degree 4 (uaccel/math/scalar_math.h's
        ExpTraits<float>::kQ): minimax in expm1's relative error, t^2 |q - q(t)| / |e^t - 1|, Lawson's
        200th iterate (the floats are the same from the 150th on), each coefficient rounded to float;
    the same q for float math evaluated in double (activation_parts.h's ExpTraitsFloatInDouble::kQ):
        minimax in exp's relative error, t^2 |q - q(t)| / e^t, Lawson's 80th iterate, in double;
    erfcx(x / sqrt(2)) (x + K) / 2 for 0 <= x <= 16 as a polynomial in t = (x - K) / (x + K) (Shepherd and
        Laframboise's variable), degree 9 (gelu.h's kR; K is its kK): minimax in relative error, on the
        interval's ends too, coefficients rounded to float one at a time, the rest refitted each time.
Each fit runs on 2000 Chebyshev points (float64; tools/fitting.py); --check compares instead of writing.
Run with requirements/tables.txt's numpy:
    python tools/fit_polynomials.py [--check]
"""

import math
import re
from collections.abc import Callable
from dataclasses import dataclass

import fitting
import numpy as np

NODES = 2000
HALF_LN2 = math.log(2) / 2
GELU = fitting.REPO / "csrc/activations/gelu.h"


def expm1_core() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The basis 1, t, ..., t^4 on |t| <= ln2/2, q(t) = (e^t - 1 - t) / t^2 and t (for the weights)."""
    t = fitting.chebyshev_points(NODES) * HALF_LN2
    q = np.array([(math.expm1(v) - v) / v**2 for v in t])
    return np.vander(t, 5, increasing=True), q, t


def exp_q_float() -> list[float]:
    basis, q, t = expm1_core()
    scale = np.array([abs(math.expm1(v)) / v**2 for v in t])
    return [fitting.to_float(c) for c in fitting.lawson(basis, q, scale, iterations=200)]


def exp_q_float_in_double() -> list[float]:
    basis, q, t = expm1_core()
    scale = np.array([math.exp(v) / v**2 for v in t])
    return [float(c) for c in fitting.lawson(basis, q, scale, iterations=80)]


def erfcx_in_t() -> list[float]:
    k = float(re.search(r"constexpr double kK = ([0-9.]+);", GELU.read_text())[1])
    top = (16 - k) / (16 + k)
    t = np.concatenate([(fitting.chebyshev_points(NODES) + 1) / 2 * (top + 1) - 1, [-1.0, top]])
    x = k * (1 + t) / (1 - t)
    f = np.array([math.exp(v * v / 2) * math.erfc(v / math.sqrt(2)) * (v + k) / 2 for v in x])
    return fitting.fit_one_at_a_time(np.vander(t, 10, increasing=True), f, f, iterations=100)


@dataclass(frozen=True)
class Polynomial:
    header: str  # from the repository root
    anchor: str  # a regular expression matching what comes before the list's "{"
    fit: Callable[[], list[float]]
    literal: Callable[[float], str]


def as_float(value: float) -> str:
    return fitting.hex_literal(value, "f", 6)


POLYNOMIALS = [
    Polynomial("csrc/include/uaccel/math/scalar_math.h", r"struct ExpTraits<float> \{.*?kQ = ", exp_q_float, as_float),
    Polynomial(
        "csrc/activations/activation_parts.h",
        r"struct ExpTraitsFloatInDouble : ExpTraits<double> \{.*?kQ = ",
        exp_q_float_in_double,
        fitting.hex_literal,
    ),
    Polynomial(
        str(GELU.relative_to(fitting.REPO)),
        r"constexpr double kR\[\] = ",
        erfcx_in_t,
        lambda value: fitting.hex_literal(value, "", 6),
    ),
]


def main() -> None:
    check = fitting.parse_arguments("Writes the coefficients of the polynomials fitted beside their code.")
    outputs = {}
    for polynomial in POLYNOMIALS:
        path = fitting.REPO / polynomial.header
        text = outputs.get(path) or path.read_text()
        literals = [polynomial.literal(c) for c in polynomial.fit()]
        outputs[path] = fitting.replace_list(text, polynomial.anchor, literals, path)
    fitting.write_or_check(outputs, check)


if __name__ == "__main__":
    main()
