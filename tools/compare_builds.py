"""Whether two builds of libuaccel compute the same bits: every pointwise op (forward, backward, the gated
ones; dense and strided; float32, float64, bfloat16, float16; inputs of spread 0.5, 3 and 20) on each CPU
path this machine runs, each library loaded alone in its own process (torch.ops.load_library, without
torch_uaccel's Python side). For a refactor that must leave the kernels' results as they were.

    python tools/compare_builds.py OLD/libuaccel.so NEW/libuaccel.so

Both libraries must be built against the torch of the Python that runs this.
"""

import argparse
import os
import subprocess
import sys
import tempfile

import torch


def outputs() -> dict:
    ops = torch.ops.uaccel
    generator = torch.Generator().manual_seed(0)
    results = {}
    for dtype in (torch.float32, torch.float64, torch.bfloat16, torch.float16):
        for sigma in (0.5, 3.0, 20.0):
            x, y, g = (
                (torch.randn(1 << 16, generator=generator, dtype=torch.float64) * sigma).to(dtype) for _ in "xyg"
            )
            for layout, t in (("dense", x), ("strided", x.view(256, 256)[:, ::2])):
                d = g[: t.numel()].view(t.shape)
                unary = {
                    "elu": lambda t, d: ops.elu(t, 1.3),
                    "elu_backward": lambda t, d: ops.elu_backward(d, t, 1.3, False),
                    "silu": lambda t, d: ops.silu(t),
                    "silu_backward": lambda t, d: ops.silu_backward(d, t),
                    "gelu": lambda t, d: ops.gelu(t),
                    "gelu_tanh": lambda t, d: ops.gelu(t, approximate="tanh"),
                    "gelu_backward": lambda t, d: ops.gelu_backward(d, t),
                    "gelu_backward_tanh": lambda t, d: ops.gelu_backward(d, t, approximate="tanh"),
                }
                for name, op in unary.items():
                    results[(name, layout, str(dtype), sigma)] = (op(t, d),)
            for name in ("silu_mul", "gelu_mul"):
                results[(name, str(dtype), sigma)] = (getattr(ops, name)(x, y),)
                results[(name + "_backward", str(dtype), sigma)] = getattr(ops, name + "_backward")(g, x, y)
    return results


def runnable_paths() -> list[str]:
    """The CPU paths this CPU runs (forcing one it lacks dies with SIGILL: ATen trusts the variable)."""
    with open("/proc/cpuinfo") as cpuinfo:
        line = next((line for line in cpuinfo if line.startswith("flags")), "flags:")
    flags = set(line.split(":", 1)[1].split())
    paths = ["default"]
    if {"avx2", "fma"} <= flags:
        paths.append("avx2")
    if {"avx512f", "avx512bw", "avx512vl", "avx512dq"} <= flags:
        paths.append("avx512")
    return paths


def run(library: str, path: str, output: str) -> None:
    environment = dict(os.environ, ATEN_CPU_CAPABILITY=path)
    subprocess.run([sys.executable, __file__, "--child", library, output], env=environment, check=True)


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--child"]:  # one library, one path: its results to a file
        torch.ops.load_library(argv[1])
        torch.save(outputs(), argv[2])
        return 0
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("libraries", nargs=2, help="the two libuaccel.so to compare")
    args = parser.parse_args(argv)
    differing = 0
    with tempfile.TemporaryDirectory() as folder:
        for path in runnable_paths():
            saved = []
            for k, library in enumerate(args.libraries):
                saved.append(os.path.join(folder, f"{path}-{k}.pt"))
                run(library, path, saved[-1])
            old, new = (torch.load(f) for f in saved)
            for key, tensors in old.items():
                for a, b in zip(tensors, new[key], strict=True):
                    if not torch.equal(a.contiguous().view(torch.uint8), b.contiguous().view(torch.uint8)):
                        differing += 1
                        print(f"{path}: {key} differs")
            print(f"{path}: {len(old)} results compared")
    print("the same bits" if not differing else f"{differing} results differ")
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main())
