"""A SwiGLU MLP (Linear gate and up projections -> silu(gate) * up -> Linear down, Llama's block) with the
fused `torch_uaccel.silu_and_mul` against the unfused `F.silu(a) * b`: the peak memory of a training
step (the uaccel CPU allocator's `peak_bytes`: every tensor of the step goes through it), and the time
of the forward and of the training step, eager and compiled (`torch.compile` fuses the unfused chain
into one kernel; ours stays one op), and of the compiled activation alone, as ratios of the fused
one's to the unfused one's, timed back to back in paired rounds. Medians of torch.utils.benchmark, 1 thread, float32.

    python benchmarks/bench_swiglu.py [--tokens 4096] [--width 256] [--rounds 5] [--json out.json]

Many tokens over a narrow model, so that activations, not weight gradients, set the peak.
"""

import argparse
import functools

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
        return self.down(torch_uaccel.silu_and_mul(h) if self.fused else unfused_silu_and_mul(h))


def unfused_silu_and_mul(h):
    gate, up = h.chunk(2, dim=-1)
    return F.silu(gate) * up


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


def paired_ratios(ours, theirs, args, rounds: int, min_run_time: float) -> list[float]:
    """ours' median time over theirs', the two timed back to back in each of `rounds` rounds: the
    machine's drift between rounds (often larger than the activation's share of an MLP) cancels in each
    ratio. Sorted."""
    ratios = []
    for _ in range(rounds):
        mine = median_seconds(ours, *args, min_run_time=min_run_time)[0]
        ratios.append(mine / median_seconds(theirs, *args, min_run_time=min_run_time)[0])
    return sorted(ratios)


def report(label: str, ratios: list[float]) -> list[float]:
    print(f"  {label:28s} {ratios[len(ratios) // 2]:.3f} [{ratios[0]:.3f}, {ratios[-1]:.3f}]")
    return ratios


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tokens", type=int, default=4096)
    parser.add_argument("--width", type=int, default=256)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--min-run-time", type=float, default=0.5)
    parser.add_argument("--json", help="write the results here, stamped (report.py)")
    args = parser.parse_args()
    torch.set_num_threads(1)
    hidden = args.width * 8 // 3 // 64 * 64  # Llama's ratio, a multiple of 64
    x = torch.randn(args.tokens, args.width)
    print(
        f"torch {torch.__version__}, SwiGLU MLP {args.width} -> {hidden} -> {args.width}, {args.tokens} tokens; "
        f"silu_and_mul over F.silu(a) * b, {args.rounds} paired rounds: median [min, max]"
    )
    fused, unfused = SwiGLU(args.width, hidden, fused=True), SwiGLU(args.width, hidden, fused=False)
    peak = peak_bytes(fused, x) / peak_bytes(unfused, x)
    print(f"  {'training step peak memory':28s} {peak:.3f}")
    results = {"peak_bytes ratio": peak}
    for compiled in (False, True):
        ours, theirs = (torch.compile(m, fullgraph=True) if compiled else m for m in (fused, unfused))
        label = "compiled" if compiled else "eager"

        def forward(model, x):
            with torch.no_grad():
                return model(x)

        for kind, run in (("forward", forward), ("training step", training_step)):
            ratios = paired_ratios(
                functools.partial(run, ours), functools.partial(run, theirs), (x,), args.rounds, args.min_run_time
            )
            results[f"{label} {kind} time ratio"] = report(f"{label} {kind} time", ratios)
    # The activation alone, compiled: our op against the one kernel Inductor fuses F.silu(a) * b into.
    ours, theirs = (torch.compile(f, fullgraph=True) for f in (torch_uaccel.silu_and_mul, unfused_silu_and_mul))
    h = torch.randn(args.tokens, 2 * hidden)
    ratios = paired_ratios(ours, theirs, (h,), args.rounds, args.min_run_time)
    results["compiled activation alone time ratio"] = report("compiled activation alone", ratios)
    if args.json:
        write_json(args.json, results)


if __name__ == "__main__":
    main()
