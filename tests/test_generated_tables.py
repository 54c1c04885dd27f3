"""The fitted polynomials' coefficients in csrc/ are, byte for byte, what their generators in tools/ write
(issue 48): each generator run with --check in a process of its own, whose OpenBLAS tools/fitting.py
sets up before numpy loads. Skipped where numpy is not requirements/tables.txt's (`make tables-check`
runs them in an environment with the pins) or the Makefile's clang-format is missing."""

import importlib.metadata
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PINNED_NUMPY = re.search(r"^numpy==(\S+)", (REPO / "requirements/tables.txt").read_text(), re.MULTILINE)[1]
UNFIT = 3  # tools/fitting.py's exit status where the environment lacks a pinned tool


@pytest.mark.parametrize("generator", ["fit_activation_tables.py", "fit_polynomials.py"])
def test_committed_coefficients_are_what_the_generator_writes(generator):
    numpy = importlib.metadata.version("numpy")
    if numpy != PINNED_NUMPY:
        pytest.skip(f"numpy {numpy} here, the generators are pinned to {PINNED_NUMPY}: `make tables-check`")
    result = subprocess.run(
        [sys.executable, str(REPO / "tools" / generator), "--check"], capture_output=True, text=True, timeout=300
    )
    if result.returncode == UNFIT:
        pytest.skip(result.stderr.strip())
    if result.returncode != 0:
        pytest.fail(result.stderr, pytrace=False)
