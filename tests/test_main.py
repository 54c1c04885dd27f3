"""`python -m torch_uaccel`, the main job: its checks pass, and hold under `python -O` too (the op
table raises AssertionError itself instead of using `assert`, which -O strips)."""

import ast
import pathlib
import subprocess
import sys

import torch_uaccel

PACKAGE = pathlib.Path(torch_uaccel.__file__).parent


def test_no_assert_statement_in_the_package():
    """Every check the package makes (the main job's op table included) survives python -O."""
    found = [
        f"{path.relative_to(PACKAGE)}:{node.lineno}"
        for path in sorted(PACKAGE.rglob("*.py"))
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Assert)
    ]
    assert not found, f"assert statements (stripped by python -O): {found}"


def _checks(*python_flags: str) -> list[str]:
    run = subprocess.run(
        [sys.executable, *python_flags, "-m", "torch_uaccel", "--no-benchmark"],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    lines = run.stdout.splitlines()
    return lines[lines.index(next(line for line in lines if line.startswith("Checks against references"))) :]


def test_main_job_checks_the_same_under_python_O():
    plain, optimized = _checks(), _checks("-O")
    assert plain[-1] == "all checks passed"
    assert optimized == plain
