"""Writes docs/accuracy.md (`make accuracy`): every op's forward and derivative on each CPU kernel path
this machine runs (the vector loops per instruction set, and the strided loop's scalar math), in
float32, bfloat16 and float16, against float64: the worst error in units of the dtype's spacing and
where it is, over the inputs whose float64 result is a normal number of the dtype. float32 inputs are
every 1021st bit pattern of the finite floats (every binade alike, about 4.2 million); the 16-bit types
every pattern. The tests keep the bounds (tests/test_expm1_accuracy.py, tests/test_properties.py); this
is the record of what the kernels do.

    python tools/accuracy_record.py [--output docs/accuracy.md] [--step 1021]
"""

import argparse
import datetime
import json
import os
import pathlib
import platform
import subprocess
import sys

import torch

from torch_uaccel._testing import accuracy

ROOT = pathlib.Path(__file__).resolve().parents[1]
DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}


def functions():
    """(name, f(x) in x's dtype, the float64 reference as terms whose sum it is, the contract's lower
    end in x): the error is in ulp of the largest term (a derivative's two terms cancel at its zero).
    Derivatives with grad_output = 1, the gated ops with up = 1."""
    ops, aten = torch.ops.uaccel, torch.ops.aten

    def ones(x):
        return torch.ones_like(x)

    silu_from, none_from, tanh_from = (accuracy.NORMAL_FROM[k] for k in ("silu", "none", "tanh"))
    return [
        ("elu", lambda x: ops.elu(x, 1.0), lambda x: (aten.elu(x, 1.0),), None),
        (
            "elu' (from x)",
            lambda x: ops.elu_backward(ones(x), x, 1.0, False),
            lambda x: (aten.elu_backward(ones(x), 1.0, 1, 1, False, x),),
            None,
        ),
        (
            "elu' (from y)",  # its input is the output y = elu(x) >= -1: 1 + y on the negative side
            lambda y: ops.elu_backward(ones(y), y, 1.0, True),
            lambda y: (aten.elu_backward(ones(y), 1.0, 1, 1, True, y),),
            -1.0,
        ),
        ("silu", ops.silu, lambda x: (aten.silu(x),), silu_from),
        ("silu'", lambda x: ops.silu_backward(ones(x), x), accuracy.silu_derivative_terms, silu_from),
        ("gelu", lambda x: ops.gelu(x), lambda x: (accuracy.gelu(x, "none"),), none_from),
        (
            "gelu'",
            lambda x: ops.gelu_backward(ones(x), x),
            lambda x: accuracy.gelu_derivative_terms(x, "none"),
            none_from,
        ),
        (
            "gelu 'tanh'",
            lambda x: ops.gelu(x, approximate="tanh"),
            lambda x: (accuracy.gelu(x, "tanh"),),
            tanh_from,
        ),
        (
            "gelu 'tanh''",
            lambda x: ops.gelu_backward(ones(x), x, approximate="tanh"),
            lambda x: accuracy.gelu_derivative_terms(x, "tanh"),
            tanh_from,
        ),
        ("silu_mul", lambda x: ops.silu_mul(x, ones(x)), lambda x: (aten.silu(x),), silu_from),
        (
            "silu_mul' (gate)",
            lambda x: ops.silu_mul_backward(ones(x), x, ones(x))[0],
            accuracy.silu_derivative_terms,
            silu_from,
        ),
        ("gelu_mul", lambda x: ops.gelu_mul(x, ones(x)), lambda x: (accuracy.gelu(x, "none"),), none_from),
        (
            "gelu_mul' (gate)",
            lambda x: ops.gelu_mul_backward(ones(x), x, ones(x))[0],
            lambda x: accuracy.gelu_derivative_terms(x, "none"),
            none_from,
        ),
    ]


def inputs(dtype: torch.dtype, step: int) -> torch.Tensor:
    """The finite values of dtype: every pattern (16-bit), every step-th (float32)."""
    if dtype == torch.float32:
        patterns = torch.arange(-(2**31), 2**31, step, dtype=torch.int64).to(torch.int32)
        x = patterns.view(torch.float32)
    else:
        x = torch.arange(-(2**15), 2**15, dtype=torch.int32).to(torch.int16).view(dtype)
    return x[x.isfinite()]


def worst(actual: torch.Tensor, terms: tuple, x: torch.Tensor, dtype: torch.dtype, low: float | None) -> dict:
    """The largest error where the float64 result is a normal number of dtype and x is within the
    contract's domain (from `low` up), and where it is."""
    finfo = torch.finfo(dtype)
    reference = sum(terms)
    measured = reference.isfinite() & (reference.abs() >= finfo.smallest_normal) & (reference.abs() <= finfo.max)
    if low is not None:
        measured &= x.double() >= low
    errors = accuracy.ulp_error_of_sum(actual, terms, dtype)
    errors = torch.where(errors.isnan(), torch.full_like(errors, float("inf")), errors)  # NaN where a number is due
    errors = torch.where(measured, errors, torch.zeros_like(errors))
    index = int(errors.argmax())
    return {"max": float(errors[index]), "at": float(x[index]), "values": int(measured.sum())}


def measure(strided: bool, step: int) -> list[dict]:
    rows = []
    for dtype_name, dtype in DTYPES.items():
        x = inputs(dtype, step)
        if strided:  # every other element of a buffer twice as long: the strided loop, one value at a time
            x = torch.stack([x, torch.zeros_like(x)], dim=1)[:, 0]
        x64 = x.double()
        for name, function, reference, low in functions():
            label = name if low is None else f"{name}, input >= {low:g}"
            rows.append({"function": label, "dtype": dtype_name, **worst(function(x), reference(x64), x, dtype, low)})
    return rows


def child(path: str, step: int) -> None:
    import torch_uaccel

    kernels = torch_uaccel.build_info()["cpu_kernels"]
    rows = measure(strided=path == "strided", step=step)
    print(json.dumps({"kernels": kernels, "rows": rows}))


def run_path(path: str, step: int) -> dict:
    environment = dict(os.environ)
    if path != "strided":
        environment["ATEN_CPU_CAPABILITY"] = path
    completed = subprocess.run(
        [sys.executable, __file__, "--child", path, "--step", str(step)],
        env=environment,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(completed.stdout.splitlines()[-1])


def cpu_name() -> str:
    for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor()


def render(results: dict[str, dict], step: int) -> str:
    import torch_uaccel

    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    lines = [
        "# Accuracy of the CPU kernels",
        "",
        "Generated by `make accuracy` (tools/accuracy_record.py); do not edit. The worst error against float64, in",
        "units of the result dtype's spacing (ulp), over the inputs whose float64 result is a normal number of",
        f"that dtype: float32 inputs every {step}-th finite bit pattern, 16-bit inputs every pattern. Derivatives",
        "with grad_output = 1; the gated ops with up = 1. A path is the kernels ATEN_CPU_CAPABILITY selects",
        "(vector loops), or `strided`: a non-contiguous input, one value at a time through the scalar math",
        "that CUDA's kernels compile too (on the machine's own instruction set). A derivative's error is in ulp",
        "of the larger of its two terms, which cancel at its zero. The bounds the tests hold",
        "(tests/test_expm1_accuracy.py): float32 forwards 2 ulp, derivatives 2 to 4.5 by op and path,",
        "where the float64 result is normal and, for SiLU, GELU and GELU 'tanh', from x =",
        f"{accuracy.NORMAL_FROM['silu']}, {accuracy.NORMAL_FROM['none']} and {accuracy.NORMAL_FROM['tanh']} up "
        "(below, the kernels may flush to 0 as F.silu's does;",
        "the 16-bit types, computed in float32, alike): the rows measure that domain.",
        "",
        f"Machine: {cpu_name()}; torch {torch.__version__}; torch_uaccel {torch_uaccel.__version__} "
        f"({commit.stdout.strip() or 'no git'}); {datetime.date.today().isoformat()}.",
        "",
    ]
    paths = list(results)
    for dtype in DTYPES:
        lines += [
            f"## {dtype}",
            "",
            "| function | " + " | ".join(f"{p} (max ulp, at x)" for p in paths) + " |",
            "|---|" + "---|" * len(paths),
        ]
        names = [r["function"] for r in results[paths[0]]["rows"] if r["dtype"] == dtype]
        for name in names:
            cells = []
            for path in paths:
                row = next(r for r in results[path]["rows"] if r["dtype"] == dtype and r["function"] == name)
                cells.append(f"{row['max']:.2f} at {row['at']:.6g}")
            lines.append(f"| {name} | " + " | ".join(cells) + " |")
        lines.append("")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--output", type=pathlib.Path, default=ROOT / "docs" / "accuracy.md")
    parser.add_argument("--step", type=int, default=1021, help="every step-th float32 bit pattern")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(args.child, args.step)
        return 0
    import torch_uaccel

    runnable = [isa.lower() for isa in torch_uaccel.build_info()["cpu_runnable"]]
    results = {path: run_path(path, args.step) for path in [*reversed(runnable), "strided"]}
    args.output.write_text(render(results, args.step))
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
