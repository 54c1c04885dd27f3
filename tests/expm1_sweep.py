"""Accuracy of the CPU ELU's vector expm1 against float64 expm1, over float32 inputs x <= 0 chosen
by bit pattern: every pattern (`make expm1-sweep`: all 2^31 of them, about a minute) or every
`step`-th (tests/test_expm1_accuracy.py, in CI). Bit patterns sample every binade alike, from
subnormals to -inf. elu with alpha=1 is expm1(x) on x < 0, so the op itself is what is measured.

    python tests/expm1_sweep.py [--step N]
"""

import argparse
import sys
import time

import torch

import torch_uaccel
from torch_uaccel._testing.accuracy import ulp_error

NEGATIVE_PATTERNS = (-(2**31), -(2**23))  # int32 views of 0x80000000 (-0.0) .. 0xFF7FFFFF (-FLT_MAX)


def sweep(step: int = 1, chunk: int = 2**24) -> dict:
    """Worst error in ulps over x = every step-th negative float32 pattern, and where it was."""
    worst, worst_x, count = 0.0, 0.0, 0
    first, end = NEGATIVE_PATTERNS
    for start in range(first, end, chunk * step):
        patterns = torch.arange(start, min(start + chunk * step, end), step, dtype=torch.int32)
        x = patterns.view(torch.float32)
        actual = torch.ops.uaccel.elu(x, 1.0)
        errors = ulp_error(actual, torch.expm1(x.double()))
        index = int(errors.argmax())
        if errors[index] > worst:
            worst, worst_x = float(errors[index]), float(x[index])
        count += x.numel()
    return {"max_ulp": worst, "at": worst_x, "values": count}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--step", type=int, default=1, help="every step-th bit pattern (1: all of them)")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    result = sweep(args.step)
    print(
        f"uaccel.elu(x, 1) = expm1(x), float32, {result['values']} values x <= 0 "
        f"(CPU kernels: {torch_uaccel.build_info()['cpu_kernels']}): max error {result['max_ulp']:.3f} ulp "
        f"at x = {result['at']!r}, {time.perf_counter() - started:.0f} s"
    )
    return 0 if result["max_ulp"] <= 2 else 1


if __name__ == "__main__":
    sys.exit(main())
