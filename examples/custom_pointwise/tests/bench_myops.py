"""myops against PyTorch, 1 thread, float32 at 2^16 and 2^20 elements: ns per element of each op's forward
(median, and the interquartile range in %), and the ratio to F.softplus / F.mish eager and compiled, and
to torch.relu (a kernel moving the same bytes with trivial math: the machine's roof)."""

import argparse
import json

import myops
import torch
import torch.nn.functional as F
from torch.utils import benchmark


def measure(fn, x) -> benchmark.Measurement:
    return benchmark.Timer("fn(x)", globals={"fn": fn, "x": x}, num_threads=1).blocked_autorange(min_run_time=0.5)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--json", help="also write the rows here")
    args = parser.parse_args()
    torch.set_num_threads(1)
    rows = []
    print(f"torch {torch.__version__}, 1 thread, float32; ns per element (IQR %), and how many times faster")
    for name, ours, reference in (("softplus", myops.softplus, F.softplus), ("mish", myops.mish, F.mish)):
        compiled = torch.compile(reference)
        for size in (2**16, 2**20):
            x = torch.randn(size, generator=torch.Generator().manual_seed(0)) * 4
            compiled(x)  # compiled before it is timed
            times = {
                label: measure(fn, x)
                for label, fn in (("ours", ours), ("eager", reference), ("compiled", compiled), ("relu", torch.relu))
            }
            ns = {label: m.median / size * 1e9 for label, m in times.items()}
            spread = {label: 100 * m.iqr / m.median for label, m in times.items()}
            row = {"op": name, "elements": size, "ns_per_element": ns, "iqr_percent": spread}
            rows.append(row)
            print(
                f"{name:9s} 2^{size.bit_length() - 1}: {ns['ours']:.3f} ns ({spread['ours']:.0f}%); "
                f"{ns['eager'] / ns['ours']:.2f}x F.{name}, {ns['compiled'] / ns['ours']:.2f}x compiled, "
                f"{ns['relu'] / ns['ours']:.2f}x torch.relu's speed"
            )
    if args.json:
        with open(args.json, "w") as out:
            json.dump(rows, out, indent=1)


if __name__ == "__main__":
    main()
