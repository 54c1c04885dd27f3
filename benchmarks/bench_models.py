"""torch_uaccel.patch(model) end to end, on transformers models of realistic width built from configs
(random weights): a patched model against the same model unpatched, in alternated rounds, on the CPU.

Per family, dtype and thread count: a training step's time and peak memory (every tensor of the step
through the uaccel CPU allocator's statistics), prefill and decode-step time, eager and compiled; the
time patch() takes on a built model; and where a training step's time goes (profile shares: matmul,
attention, activation, norm, rotary, loss; each op's own time, a backward op counted with the forward
op that made it).

    python benchmarks/bench_models.py [--families llama qwen3 gemma3] [--update-readme] [--json F]
    python benchmarks/bench_models.py --peak-only --json benchmarks/results/models_peak_cpu.json
"""

import argparse
import contextlib
import functools
import inspect
import statistics
import sys
import time

import torch
from report import ROOT, cpu_model, stamp, update_readme, write_json

import torch_uaccel
from torch_uaccel import memory
from torch_uaccel._testing import models
from torch_uaccel._testing.timing import median_seconds, using_threads

# -- Where the time goes ----------------------------------------------------------------------------------

MATMUL_OPS = {"aten::mm", "aten::addmm", "aten::bmm", "aten::_grouped_mm", "aten::baddbmm"}
SHARE_PREFIX = "share::"
SHARES = ("matmul", "attention", "activation", "norm", "rotary", "loss", "other")


def _kind(module) -> str | None:
    """Which share a module's own ops count to (matmuls always count as matmul)."""
    name = type(module).__name__
    if name.endswith("RMSNorm"):
        return "norm"
    if name.endswith(("MLP", "Experts")) or type(module).__module__ in ("transformers.activations",):
        return "activation"  # the MLP's own ops besides its matmuls: the activation and the gating product
    if name.endswith("Attention"):
        return "attention"
    if name.endswith("RotaryEmbedding"):
        return "rotary"
    return None


@contextlib.contextmanager
def labelled(model):
    """Each module of a kind runs inside a profiler range named for its share; so does the rotary
    embedding's application (transformers' apply_rotary_pos_emb, a function of the modeling module)."""
    handles, ranges = [], {}

    def enter(module, args, kind):
        ranges[id(module)] = torch.profiler.record_function(SHARE_PREFIX + kind)
        ranges[id(module)].__enter__()

    def leave(module, args, output):
        ranges.pop(id(module)).__exit__(None, None, None)

    for module in model.modules():
        if (kind := _kind(module)) is not None:
            handles.append(module.register_forward_pre_hook(functools.partial(enter, kind=kind)))
            handles.append(module.register_forward_hook(leave))
    modeling = sys.modules[type(model).__module__]
    rotary = getattr(modeling, "apply_rotary_pos_emb", None)
    if rotary is not None:

        def apply_rotary(*args, **kwargs):
            with torch.profiler.record_function(SHARE_PREFIX + "rotary"):
                return rotary(*args, **kwargs)

        modeling.apply_rotary_pos_emb = apply_rotary
    try:
        yield
    finally:
        for handle in handles:
            handle.remove()
        if rotary is not None:
            modeling.apply_rotary_pos_emb = rotary


def time_shares(model, step) -> dict[str, float]:
    """Shares of a training step's CPU time (each op's self time): a forward op counts to the share of
    the innermost labelled range around it, a backward op to the share of the forward op that made it
    (the autograd node's sequence number), a matmul always to matmul."""
    step()  # not the first step: allocations and one-time work of the first would count
    with labelled(model), torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as profile:
        step()
    events = profile.events()

    def labelled_share(event):
        while event is not None:
            if event.name.startswith(SHARE_PREFIX):
                return event.name[len(SHARE_PREFIX) :]
            event = event.cpu_parent
        return None

    share_of_sequence = {}
    for event in events:  # forward ops, in order: the outermost op with a sequence number names it
        if event.sequence_nr >= 0 and not event.name.startswith("autograd::engine"):
            share_of_sequence.setdefault(event.sequence_nr, labelled_share(event))
    totals = dict.fromkeys(SHARES, 0.0)
    for event in events:
        if event.name.startswith(SHARE_PREFIX) or event.self_cpu_time_total <= 0:
            continue
        share = "matmul" if event.name in MATMUL_OPS else labelled_share(event)
        node = event
        while share is None and node is not None:  # a backward op: its autograd node's forward op
            if node.name.startswith("autograd::engine::evaluate_function"):
                share = share_of_sequence.get(node.sequence_nr)
                break
            node = node.cpu_parent
        totals[share or "other"] += event.self_cpu_time_total
    whole = sum(totals.values())
    return {share: value / whole for share, value in totals.items()}


# -- The runs -----------------------------------------------------------------------------------------------


def training_step(model, ids):
    model.zero_grad(set_to_none=True)
    logits = model(ids).logits
    with torch.profiler.record_function(SHARE_PREFIX + "loss"):
        loss = model.loss_function(logits=logits, labels=ids, vocab_size=model.config.vocab_size)
    loss.backward()


def peak_training_bytes(model, ids) -> int:
    """The peak of a training step above what lives before it (the weights; gradients freed)."""
    with memory.cpu_allocator():
        model.zero_grad(set_to_none=True)
        memory.reset_peak_stats()
        before = memory.stats()["allocated_bytes"]
        training_step(model, ids)
        peak = memory.stats()["peak_bytes"] - before
        model.zero_grad(set_to_none=True)
    return peak


def prefill(model, ids):
    with torch.no_grad():
        return model(ids, use_cache=False).logits


def decode_step_runner(model, ids):
    """One token's step after a prefill of ids: the cache is cut back to the prefill after each step."""
    cache_arg = "cache" if "cache" in inspect.signature(model.forward).parameters else "past_key_values"
    with torch.no_grad():
        cache = getattr(model(ids, use_cache=True), cache_arg)
    token = ids[:, -1:]

    def step(model):
        with torch.no_grad():
            logits = model(token, use_cache=True, **{cache_arg: cache}).logits
        cache.crop(-1)
        return logits

    return step


def patch_milliseconds(family, dtype, config) -> float:
    """patch() on a built model, median of 5 (a fresh model each time: no cached recognition of its
    instances, only of its classes)."""
    runs = []
    for _ in range(5):
        model = models.model(family, dtype=dtype, **config)
        start = time.perf_counter()
        torch_uaccel.patch(model)
        runs.append((time.perf_counter() - start) * 1e3)
    return statistics.median(runs)


def alternated(model, runs: dict, rounds: int, min_run_time: float) -> dict[str, dict[str, list[float]]]:
    """Each round times every run unpatched, then patched, the one model switched between (the same weights
    in the same memory); drifts of the machine fall on both alike. A compiled run recompiles for each state
    once (Dynamo guards on the forwards), then finds it cached."""
    times = {state: {name: [] for name in runs} for state in ("unpatched", "patched")}
    for _ in range(rounds):
        for state in ("unpatched", "patched"):
            (torch_uaccel.patch if state == "patched" else torch_uaccel.unpatch)(model)
            for name, run in runs.items():
                times[state][name].append(median_seconds(run, min_run_time=min_run_time)[0])
    torch_uaccel.unpatch(model)
    return times


def ratio_summary(patched: list[float], unpatched: list[float]) -> dict:
    ratios = sorted(p / u for p, u in zip(patched, unpatched, strict=True))
    return {
        "patched_s": statistics.median(patched),
        "unpatched_s": statistics.median(unpatched),
        "ratio": statistics.median(ratios),
        "ratio_min": ratios[0],
        "ratio_max": ratios[-1],
    }


def _model(family, dtype, layers, vocab, batch, args):
    model = models.model(family, dtype=dtype, hidden=args.hidden, layers=layers, vocab=vocab).train()
    ids = torch.randint(3, vocab, (batch, args.sequence), generator=torch.Generator().manual_seed(0))
    return model, ids


def in_both_states(model, measure_one) -> dict:
    """measure_one(model) unpatched and patched."""
    torch_uaccel.unpatch(model)
    unpatched = measure_one(model)
    torch_uaccel.patch(model)
    patched = measure_one(model)
    torch_uaccel.unpatch(model)
    return {"unpatched": unpatched, "patched": patched}


def peak_bytes(family, dtype, args) -> dict:
    """A training step's peak on the larger model (issue 49's: more layers and tokens, where activations weigh
    most): unpatched, patched, and with only its RMSNorms patched (each norm module on its own): what the
    norm alone saves."""
    model, ids = _model(family, dtype, args.peak_layers, args.peak_vocab, args.peak_batch, args)
    peaks = in_both_states(model, lambda m: peak_training_bytes(m, ids))
    norms = [module for module in model.modules() if type(module).__name__.endswith("RMSNorm")]
    for norm in norms:
        torch_uaccel.patch(norm)
    peaks["norms_patched"] = peak_training_bytes(model, ids)
    for norm in norms:
        torch_uaccel.unpatch(norm)
    return peaks


def peak_line(family, dtype, peaks) -> str:
    mib = {state: value / 2**20 for state, value in peaks.items()}
    return (
        f"{family:8s} {str(dtype).removeprefix('torch.'):8s} peak MiB: unpatched {mib['unpatched']:.0f}, "
        f"norms patched {mib['norms_patched']:.0f} ({peaks['norms_patched'] / peaks['unpatched']:.3f}), "
        f"patched {mib['patched']:.0f} ({peaks['patched'] / peaks['unpatched']:.3f})"
    )


def measure(family, dtype, threads, args) -> dict:
    result = {"family": family, "dtype": str(dtype).removeprefix("torch."), "threads": threads}
    result["peak_bytes"] = peak_bytes(family, dtype, args)
    model, ids = _model(family, dtype, args.layers, args.vocab, args.batch, args)
    result["modules_patched"] = len(torch_uaccel.patch(model).changed)
    torch_uaccel.unpatch(model)
    config = {"hidden": args.hidden, "layers": args.layers, "vocab": args.vocab}
    with using_threads(threads):
        result["patch_ms"] = patch_milliseconds(family, dtype, config)
        result["shares"] = in_both_states(model, lambda m: time_shares(m, functools.partial(training_step, m, ids)))
        compiled = args.compiled and threads == args.machine_threads  # compiles are slow: all threads only
        for mode in ("eager", "compiled") if compiled else ("eager",):
            run_model = torch.compile(model) if mode == "compiled" else model
            runs = {
                "train": functools.partial(training_step, run_model, ids),
                "prefill": functools.partial(prefill, run_model, ids),
                "decode": functools.partial(decode_step_runner(model, ids), run_model),
            }
            for state in (torch_uaccel.patch, torch_uaccel.unpatch):  # warm up (and compile) outside the timing
                state(model)
                for run in runs.values():
                    run()
            times = alternated(model, runs, args.rounds, args.min_run_time)
            for kind in runs:
                result[f"{mode} {kind}"] = ratio_summary(times["patched"][kind], times["unpatched"][kind])
            torch._dynamo.reset()
    print(peak_line(family, dtype, result["peak_bytes"]), flush=True)
    print(summary_line(result), flush=True)
    return result


def summary_line(r) -> str:
    peak = r["peak_bytes"]["patched"] / r["peak_bytes"]["unpatched"]
    times = "  ".join(
        f"{key} {r[key]['ratio']:.3f} [{r[key]['ratio_min']:.3f}, {r[key]['ratio_max']:.3f}]"
        for key in r
        if isinstance(r[key], dict) and "ratio" in r[key]
    )
    return f"{r['family']:8s} {r['dtype']:8s} {r['threads']}t  peak {peak:.3f}  patch {r['patch_ms']:.1f} ms  {times}"


def table(results, args) -> str:
    """The README's record, a row per model and dtype: patched over unpatched (below 1: the patch is faster or
    smaller), eager at each thread count, compiled at the machine's."""
    threads = sorted({r["threads"] for r in results})
    columns = [(t, f"eager {kind}", f"{kind} {t}t") for t in threads for kind in ("train", "prefill", "decode")]
    if args.compiled:
        columns += [
            (args.machine_threads, f"compiled {kind}", f"compiled {kind} {args.machine_threads}t")
            for kind in ("train", "prefill", "decode")
        ]
    head = "| model, dtype | train step peak MiB |" + "".join(f" {title} |" for _, _, title in columns)
    lines = [head, "|---|" + "---:|" * (head.count("|") - 2)]
    for family, dtype in dict.fromkeys((r["family"], r["dtype"]) for r in results):
        rows = {r["threads"]: r for r in results if (r["family"], r["dtype"]) == (family, dtype)}
        peak = rows[threads[0]]["peak_bytes"]
        cells = [
            f"{family}, {dtype}",
            f"{peak['patched'] / 2**20:.0f} / {peak['unpatched'] / 2**20:.0f} = {peak['patched'] / peak['unpatched']:.2f}",
        ]
        cells += [f"{rows[t][key]['ratio']:.2f}" if key in rows.get(t, {}) else "" for t, key, _ in columns]
        lines.append("| " + " | ".join(cells) + " |")
    lines += [
        "",
        f"`benchmarks/bench_models.py`: {cpu_model()}, torch {torch.__version__}, transformers "
        f"{sys.modules['transformers'].__version__}, commit {args.commit}. Patched over unpatched, the median of "
        f"{args.rounds} alternated rounds: hidden {args.hidden}, {args.layers} layers, sequence {args.sequence}, batch "
        f"{args.batch}, vocabulary {args.vocab}; peak memory above the weights (activations, gradients): "
        f"{args.peak_layers} layers, batch {args.peak_batch}, vocabulary {args.peak_vocab}. Profile shares: "
        "[the journal](benchmarks/JOURNAL.md#where-a-models-training-step-goes-bench_modelspy).",
    ]
    return "\n".join(lines)


def shares_table(results) -> str:
    """Where a training step's time goes, in eager mode, unpatched -> patched (percent of the step's CPU time)."""
    head = "| model | dtype | threads | " + " | ".join(SHARES) + " |"
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    for r in results:
        before, after = r["shares"]["unpatched"], r["shares"]["patched"]
        cells = [f"{100 * before[s]:.1f} → {100 * after[s]:.1f}" for s in SHARES]
        lines.append(f"| {r['family']} | {r['dtype']} | {r['threads']} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--families", nargs="+", default=["llama", "qwen3", "gemma3"], choices=sorted(models.FAMILIES))
    parser.add_argument("--dtypes", nargs="+", default=["float32", "bfloat16"])
    parser.add_argument("--threads", nargs="+", type=int, default=sorted({1, torch.get_num_threads()}))
    parser.add_argument("--hidden", type=int, default=1024)
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--sequence", type=int, default=512)
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--vocab", type=int, default=8192)
    parser.add_argument("--peak-layers", type=int, default=4, help="the peak memory's model")
    parser.add_argument("--peak-batch", type=int, default=2)
    # Llama 2's 32000 tokens make the loss's float32 logits outweigh every layer's activations in this model.
    parser.add_argument("--peak-vocab", type=int, default=4096)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--min-run-time", type=float, default=1.0)
    parser.add_argument("--no-compiled", dest="compiled", action="store_false")
    parser.add_argument("--json", help="write the results here, stamped")
    parser.add_argument("--update-readme", action="store_true", help="write the table into README.md")
    parser.add_argument("--peak-only", action="store_true", help="the peak memory alone (seconds, not the README's)")
    args = parser.parse_args(argv)
    args.machine_threads = torch.get_num_threads()
    args.commit = stamp()["commit"]  # before the records are written: they would make the checkout dirty
    # Each compiled model runs three kinds of step (training, prefill, decode): one graph each, of fixed shapes.
    torch._dynamo.config.recompile_limit = 64
    torch._dynamo.config.automatic_dynamic_shapes = False
    if args.peak_only:
        peaks = []
        for family in args.families:
            for dtype in args.dtypes:
                peaks.append(
                    {"family": family, "dtype": dtype, "peak_bytes": peak_bytes(family, getattr(torch, dtype), args)}
                )
                print(peak_line(family, dtype, peaks[-1]["peak_bytes"]), flush=True)
        if args.json:
            write_json(args.json, peaks)
        return
    results = []
    for family in args.families:
        for dtype in args.dtypes:
            for threads in args.threads:
                results.append(measure(family, getattr(torch, dtype), threads, args))
    text, shares = table(results, args), shares_table(results)
    print(f"{text}\n\nWhere a training step's time goes (eager; % of its CPU time, unpatched → patched):\n\n{shares}")
    if args.json:
        write_json(args.json, results)
    if args.update_readme:  # the README's record; the shares, with the commit, in the journal
        update_readme("models", text, ROOT / "README.md")
        update_readme("models-shares", f"Commit {args.commit}, {cpu_model()}, torch {torch.__version__}.\n\n{shares}")


if __name__ == "__main__":
    main()
