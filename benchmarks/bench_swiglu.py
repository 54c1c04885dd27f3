"""A SwiGLU MLP (Linear gate and up projections -> silu(gate) * up -> Linear down, Llama's block) with the
fused `torch_uaccel.silu_and_mul` against the unfused `F.silu(a) * b`: the peak memory of a training
step (the uaccel CPU allocator's `peak_bytes`: every tensor of the step goes through it), and the time
of the forward and of the training step, eager and compiled (`torch.compile` fuses the unfused chain
into one kernel; ours stays one op). Medians of torch.utils.benchmark, 1 thread, float32.

    python benchmarks/bench_swiglu.py [--tokens 4096] [--width 256] [--json out.json]

Many tokens over a narrow model, so that activations, not weight gradients, set the peak.
"""

import argparse

import torch
import torch.nn.functional as F
from report import write_json

import torch_uaccel
from torch_uaccel import memory
from torch_uaccel._testing.timing import median_seconds


class SwiGLU(torch.nn.Module):
    def __init__(self, width: int, hidden: int, fused: bool) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.gate_up = torch.nn.Linear(width, 2 * hidden, bias=False)  # gate and up in one matmul, as vLLM
        self.down = torch.nn.Linear(hidden, width, bias=False)
        self.fused = fused

    def forward(self, x):
        h = self.gate_up(x)
        if self.fused:
            return self.down(torch_uaccel.silu_and_mul(h))
        gate, up = h.chunk(2, dim=-1)
        return self.down(F.silu(gate) * up)


def training_step(model, x):
    model.zero_grad(set_to_none=True)
    model(x).square().mean().backward()


def peak_bytes(model, x) -> int:
    """The peak of a training step (activations, saved tensors, gradients) above what lives before it."""
    with memory.cpu_allocator():
        inputs = x.clone()
        model.zero_grad(set_to_none=True)
        memory.reset_peak_stats()
        before = memory.stats()["allocated_bytes"]
        model(inputs).square().mean().backward()
        return memory.stats()["peak_bytes"] - before


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tokens", type=int, default=4096)
    parser.add_argument("--width", type=int, default=256)
    parser.add_argument("--min-run-time", type=float, default=1.0)
    parser.add_argument("--json", help="write the results here, stamped (report.py)")
    args = parser.parse_args()
    torch.set_num_threads(1)
    hidden = args.width * 8 // 3 // 64 * 64  # Llama's ratio, a multiple of 64
    x = torch.randn(args.tokens, args.width)
    print(f"torch {torch.__version__}, SwiGLU MLP {args.width} -> {hidden} -> {args.width}, {args.tokens} tokens")
    results = {}
    for fused in (True, False):
        name = "silu_and_mul" if fused else "F.silu(a) * b"
        model = SwiGLU(args.width, hidden, fused)
        results[name] = {"peak_bytes": peak_bytes(model, x)}
        for compiled in (False, True):
            run = torch.compile(model, fullgraph=True) if compiled else model
            label = "compiled" if compiled else "eager"
            with torch.no_grad():
                results[name][f"{label} forward us"] = median_seconds(run, x, min_run_time=args.min_run_time)[0] * 1e6
            step = median_seconds(training_step, run, x, min_run_time=args.min_run_time)[0]
            results[name][f"{label} training step us"] = step * 1e6
    for key in results["silu_and_mul"]:
        ours, theirs = results["silu_and_mul"][key], results["F.silu(a) * b"][key]
        unit = "MiB" if key == "peak_bytes" else "us"
        scale = 2**20 if key == "peak_bytes" else 1
        print(
            f"  {key:28s} silu_and_mul {ours / scale:9.2f} {unit}  unfused {theirs / scale:9.2f} {unit}  ratio {ours / theirs:.3f}"
        )
    if args.json:
        write_json(args.json, results)


if __name__ == "__main__":
    main()
