"""Libraries of pointwise ops of your own, on torch_uaccel's framework.

A library is built from one header per op by the CMake function torch_uaccel_add_pointwise_library
(``find_package(TorchUaccel)``), or by ``pip install --no-build-isolation .`` of a project whose
pyproject.toml names ``torch_uaccel.build`` as its build backend (docs/custom_ops.md). Loaded here, its
ops get what torch_uaccel's own get, written once for all of them: fake kernels (compile, export),
vmap, DTensor and jagged-nested rules, one compiled graph for every float parameter value, and Python
functions and ``nn`` modules made from the schemas (a module subclassing ``nn``'s of the same name,
where torch has one)::

    myops = torch_uaccel.library.load("build/libmyops.so")
    y = myops.softplus(x, beta=2.0)  # torch.ops.myops.softplus, differentiable in both modes
    layer = myops.Mish()  # an nn.Mish
"""

import pathlib
import sys
import types

import torch
from torch import nn

from . import _checks, _dynamic_scalars, _faces, _fake, _native, _rules, _schemas

__all__ = ["load", "loaded"]

_MODULES: dict[str, types.ModuleType] = {}  # namespace -> its module
_FILES: dict[pathlib.Path, list[str]] = {}  # a library file loaded here -> its namespaces


def loaded() -> list[str]:
    """The namespaces of the libraries of pointwise ops in this process, torch_uaccel's ("uaccel") first."""
    return list(dict.fromkeys(torch.ops.uaccel._pointwise_libraries()))


def load(path_or_namespace: str | pathlib.Path, into: dict | None = None) -> types.ModuleType:
    """Loads a library of pointwise ops and returns its Python module (``torch.ops.<namespace>``'s ops
    as functions and modules; ``ops`` is ``torch.ops.<namespace>``).

    `path_or_namespace` is the library's file (``libmyops.so``), or the namespace of one already in the
    process (linked into a C++ host, or loaded before). With `into` (a package's ``globals()``), the
    functions and modules are defined there too. Loading the same library again returns the same module.
    """
    text = str(path_or_namespace)
    if isinstance(path_or_namespace, pathlib.Path) or "/" in text or text.endswith(".so"):
        namespaces = _load_file(pathlib.Path(path_or_namespace))
    else:
        namespaces = [str(path_or_namespace)]
        if namespaces[0] not in loaded():
            raise ValueError(
                f"torch_uaccel.library.load: no library of pointwise ops with namespace {namespaces[0]!r} is loaded "
                f"(loaded: {', '.join(loaded())}); pass the library's path to load it"
            )
    modules = [_module(namespace) for namespace in namespaces]
    if len(modules) != 1:
        raise ValueError(
            f"torch_uaccel.library.load: expected {path_or_namespace} to hold one library of pointwise ops, "
            f"but it registers {len(modules)}: {', '.join(namespaces)}"
        )
    if into is not None:
        into.update({name: getattr(modules[0], name) for name in modules[0].__all__})
        into.setdefault("__all__", list(modules[0].__all__))
        for name in modules[0].__all__:  # where pickle and help() find them: the package that loaded them
            getattr(modules[0], name).__module__ = into.get("__name__", modules[0].__name__)
    return modules[0]


def _load_file(path: pathlib.Path) -> list[str]:
    """Loads the library file (once), and says which namespaces it brought."""
    path = path.resolve()
    if path in _FILES:
        return _FILES[path]
    if not path.is_file():
        raise FileNotFoundError(f"torch_uaccel.library.load: no library file {path}")
    before = loaded()
    try:
        torch.ops.load_library(str(path))
    except OSError as error:  # undefined symbols: built against another torch or torch_uaccel
        raise ImportError(
            f"torch_uaccel.library.load: could not load {path} ({error}). A library of pointwise ops loads only "
            f"into the torch and torch_uaccel it was built against (torch {torch.__version__} and torch_uaccel "
            f"{_api_version('uaccel')} here): rebuild it in this environment"
        ) from error
    added = [namespace for namespace in loaded() if namespace not in before]
    if not added:
        raise ValueError(
            f"torch_uaccel.library.load: {path} brought no library of pointwise ops that was not loaded before "
            f"(loaded: {', '.join(before)}); for one loaded by other means, pass its namespace"
        )
    _FILES[path] = added
    return added


def _api_version(namespace: str) -> str:
    version = int(_checks.library_facts(namespace)["api_version"])
    return f"{version // 100}.{version % 100}"


def register_python_side(ops: list[torch._ops.OpOverload]) -> None:
    """A library's pointwise ops' fakes, transform rules and symbolic Scalars (torch_uaccel's own too)."""
    _fake.register_pointwise(ops)
    _rules.register(ops)
    _dynamic_scalars.register(ops)


def _module(namespace: str) -> types.ModuleType:
    """The library's Python side, set up once: its version checked, fakes and transform rules
    registered, its functions and modules made from its schemas."""
    if namespace in _MODULES:
        return _MODULES[namespace]
    if _api_version(namespace) != _api_version("uaccel"):
        raise ImportError(
            f"torch_uaccel.library.load: library {namespace!r} was built against torch_uaccel "
            f"{_api_version(namespace)}, but torch_uaccel {_api_version('uaccel')} is installed: rebuild it"
        )
    _native.check_parallel(f"library {namespace!r}", _checks.library_facts(namespace)["cpu_parallel"])
    register_python_side(_schemas.pointwise_ops(namespace))
    # Importable by its name, one of its own: Dynamo finds the globals of a function it inlines by
    # importing the name they hold (torch 2.13: sys.modules["myops"] would be the package that loaded it).
    name = f"{__name__}.{namespace}"
    module = types.ModuleType(name, f"The pointwise ops of torch.ops.{namespace} (torch_uaccel.library).")
    sys.modules[name] = module
    module.__dict__.update(
        torch=torch,
        nn=nn,
        ops=getattr(torch.ops, namespace),
        _is_scripting=torch.jit.is_scripting,
        _dynamo_tracing=torch.compiler.is_dynamo_compiling,
    )
    faces = _faces.define_from_schemas(module.__dict__, namespace)
    module.__all__ = sorted([*(f.name for f in faces), *(f.module for f in faces if f.module)])
    _MODULES[namespace] = module
    return module
