"""What the benchmark scripts share: naming the machine, stamping results with what produced them,
and writing a table between markers (benchmarks/JOURNAL.md, the main README). Results go to
benchmarks/results/ (not in git); the records are bench_report.py's (docs/benchmarks/, the README's
table) and the journal's."""

import contextlib
import json
import pathlib
import platform
import subprocess

import torch

ROOT = pathlib.Path(__file__).resolve().parents[1]


def cpu_model() -> str:
    """The CPU's model name as /proc/cpuinfo gives it (platform's name for the machine where there is none)."""
    cpu = platform.processor() or platform.machine()
    with contextlib.suppress(OSError, StopIteration), open("/proc/cpuinfo") as cpuinfo:
        cpu = next(line.split(":", 1)[1].strip() for line in cpuinfo if line.startswith("model name"))
    return cpu


def machine_name(device: str) -> str:
    if device == "cuda":
        return f"{torch.cuda.get_device_name()}, torch {torch.__version__}"
    return (
        f"{cpu_model()} ({torch.get_num_threads()} threads), torch {torch.__version__}, "
        f"ATen CPU capability {torch.backends.cpu.get_cpu_capability()}"
    )


def commit() -> str:
    """The checkout's commit, with "-dirty" when it has uncommitted changes other than to the records the
    benchmarks write (README.md, docs/benchmarks/): a second run is of the same code; "unknown" outside git."""

    def git(*args):
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()

    try:
        return git("rev-parse", "--short=12", "HEAD") + (
            "-dirty" if git("status", "--porcelain", "-uno", "--", ".", ":!README.md", ":!docs/benchmarks") else ""
        )
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def stamp(device: str = "cpu") -> dict:
    """What produced a result: commit, torch, the machine (CPU or GPU) and the CPU kernel path."""
    import torch_uaccel

    return {
        "commit": commit(),
        "torch": torch.__version__,
        "torch_uaccel": torch_uaccel.__version__,
        "machine": machine_name(device),
        "cpu_kernels": torch_uaccel.build_info()["cpu_kernels"],
    }


def write_json(out: pathlib.Path, result, device: str = "cpu") -> None:
    """`result` under "result", beside the stamp of what produced it."""
    out = pathlib.Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"stamp": stamp(device), "result": result}, indent=1))
    print(f"wrote {out}")


def update_readme(section: str, table: str, readme: pathlib.Path = ROOT / "benchmarks" / "JOURNAL.md") -> None:
    """Replace what stands between <!-- bench:SECTION:start --> and <!-- bench:SECTION:end --> in `readme`
    (the journal, or the main README for benchmarks/bench_report.py's tables)."""
    start, end = f"<!-- bench:{section}:start -->", f"<!-- bench:{section}:end -->"
    head, rest = readme.read_text().split(start, 1)
    _, tail = rest.split(end, 1)
    readme.write_text(f"{head}{start}\n{table}\n{end}{tail}")


def publish(section: str, out: pathlib.Path, result: dict, table: str, readme: bool, device: str = "cpu") -> None:
    """Write the stamped JSON results, print the markdown table, and put it in benchmarks/JOURNAL.md if asked."""
    print(table)
    if readme:
        update_readme(section, table)
    write_json(out, result, device)
