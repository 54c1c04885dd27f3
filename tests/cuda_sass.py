"""What can be checked of the CUDA kernels without a GPU: the machine code (SASS) that libuaccel
carries, read with cuobjdump. For each kernel of one SASS arch (sm_90 by default): registers per
thread, stack and local memory (a register spill shows as both, and as LDL/STL instructions), and
the 128-bit global loads/stores (LDG.E.128 / STG.E.128) that the dense kernels must keep
(csrc/include/uaccel/detail/cuda_loops.cuh's flat_kernel with 16-byte packs, instantiated by csrc/pointwise/library_cuda.cu).
tests/test_cuda_sass.py turns this into CI checks.

    python tests/cuda_sass.py [LIBRARY] [--arch sm_90]

prints the table and exits 1 when a check fails. The tools come from the `nvidia-cuda-cuobjdump`
and `nvidia-cuda-nvdisasm` wheels (13.2 or newer reads CUDA 13.0 objects), else from PATH,
CUDA_HOME/CUDA_PATH, /usr/local/cuda or Triton's bundled copies. cuobjdump needs nvdisasm to
print SASS: without it, it prints none and says nothing.
"""

import argparse
import collections
import dataclasses
import importlib.metadata
import importlib.util
import os
import pathlib
import re
import shutil
import subprocess
import sys

# The dense kernels: flat_kernel<16 / sizeof(scalar_t), scalar_t, inputs, outputs, uaccel::ops::<op>::<functor>>.
DENSE_DTYPES = {"float": 4, "double": 8, "c10::Half": 2, "c10::BFloat16": 2}  # sizeof(scalar_t)
FLAT_KERNEL = re.compile(
    r"flat_kernel<(\d+), ([\w:]+), (\d+), (\d+), uaccel::ops::(\w+)::(?:CPU_CAPABILITY::)?(\w+)<\w+(?:, (?:true|false))?>\s*>"
)


@dataclasses.dataclass(frozen=True)
class Dense:
    """A dense kernel: what it runs, on which dtype, over how many inputs and outputs."""

    dtype: str
    op: str
    functor: str
    inputs: int
    outputs: int


def pointwise_ops() -> dict[str, int]:
    """Each pointwise op of the library (its forward's name) and its number of input tensors: each has
    a dense forward kernel (inputs -> 1) and a dense backward one (grad_output and inputs -> inputs)."""
    from torch_uaccel import _schemas

    return {op._schema.name.removeprefix("uaccel::"): _schemas.tensor_inputs(op) for op in _schemas.forward_ops()}


def _package_binary(distribution: str, name: str) -> pathlib.Path | None:
    try:
        dist = importlib.metadata.distribution(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None
    for file in dist.files or ():
        if file.name == name:
            path = pathlib.Path(dist.locate_file(file))
            if path.is_file() and os.access(path, os.X_OK):
                return path
    return None


def find_tool(name: str) -> pathlib.Path | None:
    """cuobjdump or nvdisasm: from its nvidia-cuda-* wheel (nvidia/cu13/bin/), PATH, the CUDA
    toolkit, or Triton's copy."""
    found = _package_binary(f"nvidia-cuda-{name}", name)
    if found:
        return found
    on_path = shutil.which(name)
    if on_path:
        return pathlib.Path(on_path)
    roots = [os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"]
    triton = importlib.util.find_spec("triton")
    if triton and triton.submodule_search_locations:
        roots += [str(pathlib.Path(p) / "backends" / "nvidia") for p in triton.submodule_search_locations]
    for root in filter(None, roots):
        candidate = pathlib.Path(root) / "bin" / name
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
    return None


def default_library() -> pathlib.Path:
    """torch_uaccel/libuaccel.so (torch_uaccel._native.path), found without importing torch."""
    spec = importlib.util.find_spec("torch_uaccel")
    if spec is None or spec.origin is None:
        raise SystemExit("torch_uaccel is not installed; pass the library's path")
    return pathlib.Path(spec.origin).with_name("libuaccel.so")


@dataclasses.dataclass
class Kernel:
    mangled: str
    source: str  # the .cu file
    registers: int
    stack: int
    local: int
    shared: int
    name: str = ""  # demangled
    opcodes: collections.Counter = dataclasses.field(default_factory=collections.Counter)

    def count(self, prefix: str, modifier: str = "") -> int:
        return sum(
            n
            for op, n in self.opcodes.items()
            if op.split(".")[0] == prefix and (not modifier or modifier in op.split("."))
        )

    @property
    def loads_128(self) -> int:
        return self.count("LDG", "128")

    @property
    def stores_128(self) -> int:
        return self.count("STG", "128")

    @property
    def local_accesses(self) -> int:  # LDL/STL: spills or a local array
        return self.count("LDL") + self.count("STL")

    @property
    def short_name(self) -> str:
        text = self.name.replace("(anonymous namespace)::", "")
        text = text.removeprefix("void ").split("(")[0]
        return re.sub(r"\b[A-Za-z_]\w*::", "", text).replace(" >", ">")

    @property
    def dense(self) -> Dense | None:
        """What a dense kernel (16-byte packs) runs, else None."""
        match = FLAT_KERNEL.search(self.name)
        if not match:
            return None
        vec, dtype = int(match[1]), match[2]
        if dtype in DENSE_DTYPES and vec * DENSE_DTYPES[dtype] == 16:
            return Dense(dtype, match[5], match[6], int(match[3]), int(match[4]))
        return None


class ToolError(RuntimeError):
    pass


def _run(cuobjdump: pathlib.Path, nvdisasm: pathlib.Path | None, *args: str) -> str:
    env = dict(os.environ)
    if nvdisasm:  # cuobjdump -sass runs nvdisasm from PATH
        env["PATH"] = f"{nvdisasm.parent}{os.pathsep}{env.get('PATH', '')}"
    result = subprocess.run([str(cuobjdump), *args], capture_output=True, text=True, env=env, timeout=300)
    if result.returncode != 0:
        raise ToolError(f"{cuobjdump} {' '.join(args)}: exit {result.returncode}: {result.stderr.strip()}")
    return result.stdout


def list_archs(cuobjdump: pathlib.Path, library: pathlib.Path) -> tuple[set[str], set[str]]:
    """The SASS archs (ELF) and PTX archs in the library's fatbins."""
    text = _run(cuobjdump, None, "-lelf", "-lptx", str(library))
    elf = set(re.findall(r"^ELF file\s+\d+: .*\.(sm_\d+a?)\.cubin$", text, re.M))
    ptx = set(re.findall(r"^PTX file\s+\d+: .*\.(sm_\d+a?)\.ptx$", text, re.M))
    return elf, ptx


def resource_usage(cuobjdump: pathlib.Path, library: pathlib.Path, arch: str) -> dict[str, Kernel]:
    """`cuobjdump -res-usage`: per function `REG:n STACK:n SHARED:n LOCAL:n CONSTANT[0]:n ...`."""
    text = _run(cuobjdump, None, "-res-usage", "-arch", arch, str(library))
    kernels, source, current = {}, "?", None
    for line in text.splitlines():
        if line.startswith("identifier = "):
            source = pathlib.Path(line.split("=", 1)[1].strip()).name
        elif match := re.match(r"^\s*Function (\S+):$", line):
            current = match[1]
        elif current and "REG:" in line:
            fields = dict(re.findall(r"(\w+(?:\[\d+\])?):(\d+)", line))
            kernels[current] = Kernel(
                current, source, int(fields["REG"]), int(fields["STACK"]), int(fields["LOCAL"]), int(fields["SHARED"])
            )
            current = None
    return kernels


SASS_LINE = re.compile(r"^\s*/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P(?:T|\d+)\s+)?([A-Z][A-Z0-9_.]*)")


def sass_opcodes(cuobjdump: pathlib.Path, nvdisasm: pathlib.Path, library: pathlib.Path, arch: str) -> dict:
    """`cuobjdump -sass`: the opcodes (with modifiers, e.g. LDG.E.128) of each function."""
    text = _run(cuobjdump, nvdisasm, "-sass", "-arch", arch, str(library))
    functions, current = {}, None
    for line in text.splitlines():
        if match := re.match(r"^\s*Function : (\S+)$", line):
            current = functions.setdefault(match[1], collections.Counter())
        elif current is not None and (match := SASS_LINE.match(line)):
            current[match[1]] += 1
    return functions


def demangle(names: list[str]) -> list[str]:
    for tool in ("c++filt", "llvm-cxxfilt", "cu++filt"):
        path = shutil.which(tool)
        if path:
            out = subprocess.run([path], input="\n".join(names) + "\n", capture_output=True, text=True, check=True)
            lines = out.stdout.splitlines()
            if len(lines) == len(names):
                return lines
    raise ToolError("no C++ demangler (c++filt) on PATH")


def analyse(library: pathlib.Path, arch: str = "sm_90") -> list[Kernel]:
    """Every kernel of `arch` in the library with its resources and SASS opcodes."""
    cuobjdump, nvdisasm = find_tool("cuobjdump"), find_tool("nvdisasm")
    if not cuobjdump or not nvdisasm:
        raise ToolError("cuobjdump/nvdisasm not found: pip install nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm")
    kernels = resource_usage(cuobjdump, library, arch)
    opcodes = sass_opcodes(cuobjdump, nvdisasm, library, arch)
    if set(opcodes) != set(kernels) or not all(opcodes.values()):
        raise ToolError(
            f"cuobjdump -sass and -res-usage disagree ({len(opcodes)} vs {len(kernels)} functions, "
            f"{sum(not c for c in opcodes.values())} without code): is nvdisasm ({nvdisasm}) working and recent enough?"
        )
    for kernel, name in zip(kernels.values(), demangle(list(kernels)), strict=True):
        kernel.name = name
        kernel.opcodes = opcodes[kernel.mangled]
    return sorted(kernels.values(), key=lambda k: (k.source, k.short_name))


def problems(kernels: list[Kernel], ops: dict[str, int]) -> list[str]:
    """What the CI checks fail on: no kernels; an op of `ops` (name: inputs) without its dense forward
    or backward kernel for a dtype; a dense kernel without a 128-bit global load per input and a
    128-bit store per output; any kernel with stack/local memory or LDL/STL."""
    found = []
    if not kernels:
        found.append("no kernels found")
    dense = [(k.dense, k) for k in kernels if k.dense]
    for dtype in DENSE_DTYPES:
        for op, inputs in ops.items():
            for what, arity in (("forward", (inputs, 1)), ("backward", (inputs + 1, inputs))):
                if not any((d.dtype, d.op, d.inputs, d.outputs) == (dtype, op, *arity) for d, _ in dense):
                    found.append(
                        f"no dense {what} kernel of {op} for {dtype} (flat_kernel<{16 // DENSE_DTYPES[dtype]}, ...>)"
                    )
    for d, kernel in dense:
        if kernel.loads_128 < d.inputs or kernel.stores_128 < d.outputs:
            found.append(f"{kernel.short_name}: {kernel.loads_128} LDG.128, {kernel.stores_128} STG.128")
    for kernel in kernels:
        if kernel.stack or kernel.local or kernel.local_accesses:
            found.append(
                f"{kernel.short_name}: stack {kernel.stack}, local {kernel.local}, {kernel.local_accesses} LDL/STL"
            )
    return found


def report(kernels: list[Kernel], arch: str) -> str:
    width = max(len(k.short_name) for k in kernels)
    lines = [f"{'kernel (' + arch + ')':<{width}}  {'file':<20} regs  stack/local  LDG.128 STG.128"]
    for k in kernels:
        mark = "  dense" if k.dense else ""
        lines.append(
            f"{k.short_name:<{width}}  {k.source:<20} {k.registers:>4}  {k.stack:>5}/{k.local:<5}"
            f"  {k.loads_128:>7} {k.stores_128:>7}{mark}"
        )
    regs = [k.registers for k in kernels]
    lines.append(
        f"{len(kernels)} kernels, {min(regs)}-{max(regs)} registers, "
        f"{sum(1 for k in kernels if k.dense)} dense, "
        f"{sum(1 for k in kernels if k.stack or k.local or k.local_accesses)} with local memory"
    )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("library", nargs="?", type=pathlib.Path, help="default: torch_uaccel/libuaccel.so")
    parser.add_argument("--arch", default="sm_90")
    args = parser.parse_args()
    library = args.library or default_library()
    try:
        kernels = analyse(library, args.arch)
    except ToolError as error:
        print(f"cuda_sass: {error}", file=sys.stderr)
        return 2
    if not kernels:
        print(f"cuda_sass: no {args.arch} kernels in {library} (a CPU-only build?)", file=sys.stderr)
        return 2
    print(report(kernels, args.arch))
    found = problems(kernels, pointwise_ops())
    for problem in found:
        print(f"FAIL: {problem}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
