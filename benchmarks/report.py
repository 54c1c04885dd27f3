"""What the benchmark scripts share: naming the machine, and writing a table into benchmarks/README.md."""

import contextlib
import json
import pathlib
import platform

import torch

ROOT = pathlib.Path(__file__).resolve().parents[1]


def machine_name(device: str) -> str:
    if device == "cuda":
        return f"{torch.cuda.get_device_name()}, torch {torch.__version__}"
    cpu = platform.processor() or platform.machine()
    with contextlib.suppress(OSError, StopIteration), open("/proc/cpuinfo") as cpuinfo:
        cpu = next(line.split(":", 1)[1].strip() for line in cpuinfo if line.startswith("model name"))
    return (
        f"{cpu} ({torch.get_num_threads()} threads), torch {torch.__version__}, "
        f"ATen CPU capability {torch.backends.cpu.get_cpu_capability()}"
    )


def update_readme(section: str, table: str) -> None:
    """Replace what stands between <!-- bench:SECTION:start --> and <!-- bench:SECTION:end -->."""
    start, end = f"<!-- bench:{section}:start -->", f"<!-- bench:{section}:end -->"
    readme = ROOT / "benchmarks" / "README.md"
    head, rest = readme.read_text().split(start, 1)
    _, tail = rest.split(end, 1)
    readme.write_text(f"{head}{start}\n{table}\n{end}{tail}")


def publish(section: str, out: pathlib.Path, result: dict, table: str, readme: bool) -> None:
    """Write the JSON results, print the markdown table, and put it in the README if asked."""
    out = pathlib.Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1))
    print(table)
    if readme:
        update_readme(section, table)
    print(f"wrote {out}")
