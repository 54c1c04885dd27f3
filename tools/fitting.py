"""What the coefficient generators in tools/ share: Lawson's minimax fit, coefficients rounded to float
one at a time, hex literals, and writing (or, with --check, comparing) the files they go to, formatted
by the Makefile's clang-format so that what a generator writes is the committed file, byte for byte.

Import it before numpy. A fit's float64 result depends, in its last bits, on the OpenBLAS kernels that
numpy's lstsq runs, which OpenBLAS picks by CPU (a split constant's low float shows those bits): so
OpenBLAS is held to its Haswell kernels, which every x86-64 CPU with AVX2 runs alike, on one thread,
and the fits call no numpy function whose SIMD forms differ (cos, exp, expm1: math's, value by value).
requirements/tables.txt pins numpy, and with it its OpenBLAS.
"""

import argparse
import ctypes
import functools
import math
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import NoReturn

# Read when OpenBLAS loads, with numpy: before the import below.
os.environ["OPENBLAS_CORETYPE"] = "Haswell"
os.environ["OPENBLAS_NUM_THREADS"] = "1"

import numpy as np

REPO = Path(__file__).resolve().parents[1]
KERNELS = "Haswell"
UNFIT = 3  # the exit status where this environment lacks what the generators are pinned to


def unfit(message: str) -> NoReturn:
    print(message, file=sys.stderr)
    sys.exit(UNFIT)


def pinned(requirement: str) -> str:
    """The version requirements/tables.txt pins `requirement` to."""
    text = (REPO / "requirements/tables.txt").read_text()
    return re.search(rf"^{requirement}==(\S+)", text, re.MULTILINE).group(1)


def openblas_kernels() -> str:
    """The kernel set numpy's OpenBLAS runs (openblas_get_corename)."""
    for library in sorted((Path(np.__file__).parent.parent / "numpy.libs").glob("*openblas*")):
        handle = ctypes.CDLL(str(library))
        for name in ("scipy_openblas_get_corename64_", "scipy_openblas_get_corename", "openblas_get_corename64_"):
            corename = getattr(handle, name, None)
            if corename is not None:
                corename.restype = ctypes.c_char_p
                return corename().decode()
    unfit(f"numpy {np.__version__} has no OpenBLAS of its own: install requirements/tables.txt")


if openblas_kernels() != KERNELS:
    raise SystemExit(
        f"OpenBLAS runs its {openblas_kernels()} kernels, not {KERNELS}'s: OPENBLAS_CORETYPE is read as numpy loads "
        "(import fitting before numpy), and they need AVX2"
    )


def chebyshev_points(count: int) -> np.ndarray:
    """Chebyshev's points of the first kind in (-1, 1)."""
    return np.array([math.cos(math.pi * (k + 0.5) / count) for k in range(count)])


def lawson(basis: np.ndarray, target: np.ndarray, scale: np.ndarray, iterations: int) -> np.ndarray:
    """Coefficients minimising max |basis @ c - target| / scale (Lawson's algorithm: iterated weighted
    least squares, each point's weight multiplied by its error)."""
    weights = np.full(len(target), 1.0 / len(target))
    for _ in range(iterations):
        w = np.sqrt(weights) / scale
        coefficients, *_ = np.linalg.lstsq(basis * w[:, None], target * w, rcond=None)
        error = np.abs(basis @ coefficients - target) / scale
        weights = weights * error + 1e-300
        weights /= weights.sum()
    return coefficients


def to_float(value: float) -> float:
    """value rounded to float32 (to nearest, ties to even)."""
    return float(np.float32(value))


def fit_one_at_a_time(basis: np.ndarray, target: np.ndarray, scale: np.ndarray, iterations: int) -> list[float]:
    """basis's coefficients rounded to float one at a time, lowest first, the rest refitted each time to
    what the roundings left: the float polynomial stays near the minimax one."""
    rounded = []
    for j in range(basis.shape[1]):
        c = to_float(lawson(basis[:, j:], target, scale, iterations)[0])
        rounded.append(c)
        target = target - c * basis[:, j]
    return rounded


def hex_literal(value: float, suffix: str = "", digits: int | None = 13) -> str:
    """value in C's hexadecimal notation, its fraction to `digits` hex digits (6 hold a float's 23 bits;
    trailing zeros dropped where digits is None)."""
    sign, text = ("-", (-value).hex()) if math.copysign(1, value) < 0 else ("", value.hex())
    mantissa, exponent = text.split("p")
    whole, fraction = mantissa.split(".") if "." in mantissa else (mantissa, "")
    kept = fraction.rstrip("0") if digits is None else fraction[:digits]
    assert fraction[len(kept) :].strip("0") == "", f"{value!r} needs more than {digits} hex digits"
    return f"{sign}{whole}{'.' + kept if kept else ''}p{exponent}{suffix}"


@functools.cache
def clang_format_binary() -> str:
    """The Makefile's clang-format (CLANG_FORMAT_VERSION): this environment's, or on PATH."""
    version = re.search(r"^CLANG_FORMAT_VERSION\s*:?=\s*(\S+)", (REPO / "Makefile").read_text(), re.MULTILINE)[1]
    binary = shutil.which("clang-format", path=Path(sys.executable).parent) or shutil.which("clang-format")
    found = binary and subprocess.run([binary, "--version"], capture_output=True, text=True).stdout.strip()
    if not found or f"version {version}" not in found:
        unfit(
            f"clang-format {version} (the Makefile's CLANG_FORMAT_VERSION) is needed, found {found or 'none'}: "
            f'pip install "clang-format=={version}", or `make lint` installs it into the environment'
        )
    return binary


def clang_format(text: str, path: Path, lines: tuple[int, int] | None = None) -> str:
    """text formatted as `make format` formats path (.clang-format), only `lines` (1-based) where given."""
    command = [clang_format_binary(), f"--assume-filename={path}"]
    command += [f"--lines={lines[0]}:{lines[1]}"] if lines else []
    return subprocess.run(command, input=text, capture_output=True, text=True, check=True).stdout


def replace_list(text: str, anchor: str, literals: list[str], path: Path) -> str:
    """text with the braced list after the regular expression `anchor` (matched once) holding literals,
    that statement formatted."""
    (match,) = list(re.finditer(anchor + r"\{(?P<list>[^{}]*)\}", text, re.DOTALL))
    replaced = text[: match.start("list")] + ", ".join(literals) + text[match.end("list") :]
    first = text.count("\n", 0, match.start("list")) + 1
    return clang_format(replaced, path, (first, first))


def first_difference(committed: str, generated: str) -> str:
    for number, (old, new) in enumerate(zip(committed.splitlines(), generated.splitlines(), strict=False), 1):
        if old != new:
            return f"line {number}:\n  committed: {old}\n  generated: {new}"
    shorter = min(committed.count("\n"), generated.count("\n")) + 1
    return f"line {shorter}: one of the two ends there"


def parse_arguments(description: str) -> bool:
    """Whether --check was given (before the fits, so that a wrong argument fails at once)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--check", action="store_true", help="compare with the committed files; write nothing")
    return parser.parse_args().check


def write_or_check(outputs: dict[Path, str], check: bool) -> None:
    """Writes each path's text where it differs (an unchanged header keeps its time: make rebuilds on
    it) or, with check, exits 1 naming each path whose committed bytes differ."""
    script = Path(sys.argv[0]).name
    differing = []
    for path, text in outputs.items():
        relative, committed = path.relative_to(REPO), path.read_text()
        if committed == text:
            continue
        if check:
            differing.append(
                f"{relative} differs from what tools/{script} writes, first at {first_difference(committed, text)}"
            )
        else:
            path.write_text(text)
            print(f"wrote {relative}")
    if differing:
        if np.__version__ != pinned("numpy"):
            differing.append(f"(numpy {np.__version__} here; requirements/tables.txt pins {pinned('numpy')})")
        raise SystemExit("\n".join(differing))
