"""Loads libuaccel, the native library that registers every `torch.ops.uaccel` operator (schemas,
CPU/CUDA kernels, autograd) and holds the allocator and the host registry. Python adds only fake
kernels, transform rules and wrappers on top.

A process that already holds libuaccel (a C++ host that linked TorchUaccel::uaccel and embeds
Python) keeps its copy: loading a second one would register the `uaccel` library twice.
"""

import pathlib

import torch

path = pathlib.Path(__file__).with_name("libuaccel.so")


def _already_registered() -> bool:
    try:
        torch._C._dispatch_find_schema_or_throw("uaccel::build_info", "")
    except RuntimeError:
        return False
    return True


def pointwise_ops() -> list[torch._ops.OpOverload]:
    """The uaccel ops whose schema carries torch.Tag.pointwise (csrc/uaccel.cpp): the fake kernels
    and the transform rules written once for all of them apply."""
    names = sorted(name for name in torch._C._dispatch_get_all_op_names() if name.startswith("uaccel::"))
    overloads = [getattr(torch.ops.uaccel, name.removeprefix("uaccel::")).default for name in names]
    return [op for op in overloads if torch.Tag.pointwise in op.tags]


def mutates_first_argument(op: torch._ops.OpOverload) -> bool:
    """A pointwise op in place: writes its first argument and returns nothing."""
    return not op._schema.returns


def load() -> None:
    if _already_registered():
        return
    try:
        torch.ops.load_library(path)
    except OSError as error:  # missing, or undefined symbols: built against another torch
        raise ImportError(
            f"torch_uaccel: could not load its native library {path} ({error}). It must be built against the "
            f"torch that is installed now ({torch.__version__}); rebuild with `pip install --no-build-isolation -e .`"
        ) from error
