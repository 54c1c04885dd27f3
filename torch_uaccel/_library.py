"""Loads libuaccel, the native library that registers every `torch.ops.uaccel` operator (schemas,
CPU/CUDA kernels, autograd) and holds the allocator and the host registry. Python adds only fake
kernels, transform rules and wrappers on top.

A process that already holds libuaccel (a C++ host that linked TorchUaccel::uaccel and embeds
Python) keeps its copy: loading a second one would register the `uaccel` library twice.
"""

import pathlib
import warnings

import torch

path = pathlib.Path(__file__).with_name("libuaccel.so")
# The LibTorch CMake package inside the Python package (setup.py installs it): a C++ project uses
# find_package(TorchUaccel) with CMAKE_PREFIX_PATH set to this, as to torch.utils.cmake_prefix_path.
cmake_prefix_path = str(path.with_name("share") / "cmake")


def _already_registered() -> bool:
    try:
        torch._C._dispatch_find_schema_or_throw("uaccel::build_info", "")
    except RuntimeError:
        return False
    return True


def pointwise_ops(namespace: str = "uaccel") -> list[torch._ops.OpOverload]:
    """The ops of `namespace` whose schema carries torch.Tag.pointwise (one header each, on the framework):
    the fake kernels and the transform rules written once for all of them apply."""
    prefix = namespace + "::"
    names = {name.split(".")[0] for name in torch._C._dispatch_get_all_op_names() if name.startswith(prefix)}
    packets = getattr(torch.ops, namespace)
    overloads = [getattr(packets, name.removeprefix(prefix)).default for name in sorted(names)]
    return [op for op in overloads if torch.Tag.pointwise in op.tags]


def forward_ops(namespace: str = "uaccel") -> list[torch._ops.OpOverload]:
    """The pointwise ops that are neither in place nor a backward: one per op header."""
    return [op for op in pointwise_ops(namespace) if op._schema.returns and not op._schema.name.endswith("_backward")]


def _packet(op: torch._ops.OpOverload, suffix: str = ""):
    """The OpOverloadPacket of `op` (with `suffix`, of its <name><suffix>), or None."""
    return getattr(getattr(torch.ops, op.namespace), op._schema.name.split("::")[1] + suffix, None)


def has_inplace(op: torch._ops.OpOverload) -> bool:
    """Whether the op has an in-place form (<op>_)."""
    return _packet(op, "_") is not None


def tensor_inputs(op: torch._ops.OpOverload) -> int:
    """How many tensors lead the op's arguments (its inputs; a backward's grad_output and saved tensors)."""
    kinds = [argument.type.kind() for argument in op._schema.arguments]
    return next((i for i, kind in enumerate(kinds) if kind != "TensorType"), len(kinds))


TENSOR_SCALARS = "tensor_scalars"  # the overload of an op with Scalar parameters taking them as tensors


def scalar_positions(op: torch._ops.OpOverload) -> list[int]:
    """Where the op's Scalar and float parameters are (TorchScript's type system calls Scalar a NumberType)."""
    return [i for i, argument in enumerate(op._schema.arguments) if argument.type.kind() in ("NumberType", "FloatType")]


def tensor_scalars_overload(op: torch._ops.OpOverload) -> torch._ops.OpOverload | None:
    """The op's tensor_scalars overload (torch_uaccel/_dynamic_scalars.py), if it has one."""
    packet = _packet(op)
    return getattr(packet, TENSOR_SCALARS) if TENSOR_SCALARS in packet.overloads() else None


def bind(op: torch._ops.OpOverload, args, kwargs) -> list:
    """All of the op's arguments, by position, defaults filled in."""
    bound = list(args)
    for argument in op._schema.arguments[len(args) :]:
        bound.append(kwargs.get(argument.name, argument.default_value))
    return bound


def mutates_first_argument(op: torch._ops.OpOverload) -> bool:
    """A pointwise op in place: writes its first argument and returns nothing."""
    return not op._schema.returns


def _minor(version: str) -> str:
    return ".".join(version.split("+")[0].split(".")[:2])


def check_torch(built: str, built_cuda: str | None, found: str, found_cuda: str | None) -> None:
    """libuaccel links torch's C++ ABI, which changes between minor releases, and a CUDA build links
    CUDA's runtime of one major version: anything else would fail with an undefined symbol or a
    missing library. Say which torch is needed instead, and how to get a matching pair."""
    mismatch = _minor(built) != _minor(found)
    if built_cuda is not None:
        mismatch |= found_cuda is None or found_cuda.split(".")[0] != built_cuda.split(".")[0]
    if mismatch:
        kind = f"CUDA {built_cuda}" if built_cuda else "CPU"
        raise ImportError(
            f"torch_uaccel: this build is for torch {_minor(built)} ({kind} build; built against {built}), but torch "
            f"{found} ({f'CUDA {found_cuda}' if found_cuda else 'CPU'} build) is installed. Install the matching torch "
            f"(pip install 'torch=={_minor(built)}.*'), or a torch_uaccel built for this torch: from source, "
            f"`pip install --no-build-isolation .` in a checkout, or `make wheel TORCH={found.split('+')[0]}` there"
        )


def build_facts() -> dict[str, str]:
    """uaccel::build_info's "key=value" lines, as strings (torch_uaccel.build_info types them)."""
    return dict(line.split("=", 1) for line in torch.ops.uaccel.build_info().splitlines() if line)


def check_parallel(library: str, compiled: str) -> None:
    """Warns where a library's CPU kernels were compiled for another thread pool than torch's: they then
    run on the calling thread alone (torch's OpenMP loop compiled without OpenMP). A warning, not a
    refusal: every result is still right, only slower where torch has more than one thread."""
    info = build_facts()
    if compiled != info["torch_parallel"]:
        warnings.warn(
            f"torch_uaccel: {library}'s CPU kernels were compiled for the thread pool {compiled!r}, but torch runs "
            f"{info['torch_parallel']!r}: they will run on one thread whatever torch.set_num_threads says. Rebuild "
            f"it with a compiler that supports OpenMP (torch_uaccel's CMake function passes -fopenmp)",
            RuntimeWarning,
            stacklevel=3,
        )


def load() -> None:
    if _already_registered():
        return
    try:
        from ._build import CUDA_VERSION, TORCH_VERSION  # written by setup.py with the library
    except ImportError:
        pass  # a library built by hand (CMake): loading it says whether it fits
    else:
        check_torch(TORCH_VERSION, CUDA_VERSION, torch.__version__, torch.version.cuda)
    try:
        torch.ops.load_library(path)
    except OSError as error:  # missing, or undefined symbols: built against another torch
        raise ImportError(
            f"torch_uaccel: could not load its native library {path} ({error}). It must be built against the "
            f"torch that is installed now ({torch.__version__}); rebuild with `pip install --no-build-isolation -e .`"
        ) from error
    check_parallel("libuaccel", build_facts()["cpu_parallel"])
