"""The Python faces of the pointwise ops, made from one description each (a Face: written in _elu.py, or
made from the op's schema): a function as F's (``torch_uaccel.gelu``) and an ``nn`` module subclassing
torch's (``torch_uaccel.GELU``); the same for the ops of every library loaded by torch_uaccel.library.

A face's function reaches its op three ways, written once here: in eager mode through the op's C++
entry point (no Python frame of the OpOverload's own: a measurable part of a call on a small tensor,
benchmarks/bench_per_call.py), under Dynamo through the OpOverload (Dynamo cannot trace the entry
point, a pybind builtin), and under TorchScript by name (``torch.ops.<namespace>.<op>``; TorchScript compiles
only that branch). TorchScript compiles from source, so the functions and modules are generated as
source text, registered with linecache under a file name of their own (inspect and TorchScript read
it there), and executed in ops.py's namespace.
"""

import dataclasses
import linecache
import textwrap

import torch

_FILE = "<torch_uaccel generated faces>"
_lines: list[str] = []


@dataclasses.dataclass(frozen=True)
class Face:
    """A function over one uaccel op, and optionally its module.

    `parameters` and `arguments` are Python source: the function's parameters after its tensors, and
    the op's arguments after them (keyword-only ones by keyword). An ``inplace`` parameter makes the
    function call the op's in-place form when it is true. `check` runs in eager mode and under Dynamo
    only (argument conversions and checks TorchScript's types make needless), `prelude` in every mode.
    """

    name: str
    op: str
    doc: str
    tensors: str = "input: torch.Tensor"
    parameters: str = ""
    arguments: str = ""
    check: str = ""
    prelude: str = ""
    module: str | None = None  # the module's name; it subclasses torch.nn's module of that name
    module_doc: str = ""
    module_init_check: str = ""  # run by __init__ before nn's, on the same parameters
    namespace: str = "uaccel"  # the op's: torch.ops.<namespace>.<op>

    @property
    def inplace(self) -> bool:
        return "inplace" in _names(self.parameters)


def _names(parameters: str) -> list[str]:
    return [p.split(":")[0].split("=")[0].strip() for p in parameters.split(",") if p.strip()]


def _call(op: str, inplace: bool, tensors: str, arguments: str, *, inplace_op: str | None = None) -> str:
    first = tensors.split(",")[0].split(":")[0].strip()
    call_arguments = ", ".join(filter(None, [", ".join(_names(tensors)), arguments]))
    if not inplace:
        return f"return {op}({call_arguments})"
    return f"if inplace:\n    {inplace_op}({call_arguments})\n    return {first}\nreturn {op}({call_arguments})"


def _function_source(face: Face) -> str:
    ops = f"torch.ops.{face.namespace}.{face.op}"
    eager = _call(f"_ENTRY_{face.op}", face.inplace, face.tensors, face.arguments, inplace_op=f"_ENTRY_{face.op}_")
    traced = _call(f"_OP_{face.op}", face.inplace, face.tensors, face.arguments, inplace_op=f"_OP_{face.op}_")
    scripted = _call(ops, face.inplace, face.tensors, face.arguments, inplace_op=f"{ops}_")
    parameters = ", ".join(filter(None, [face.tensors, face.parameters]))
    body = ["if not _is_scripting():", textwrap.indent(face.check, "    ")] if face.check else []
    if face.prelude:
        body.append(face.prelude)
    if face.prelude or not face.check:  # else the calls go on in the check's block: one test per call
        body.append("if not _is_scripting():")
    body += [
        "    if not _dynamo_tracing():",
        textwrap.indent(eager, "        "),
        textwrap.indent(traced, "    "),
        scripted,
    ]
    return f"def {face.name}({parameters}) -> torch.Tensor:\n" + textwrap.indent("\n".join(body), "    ") + "\n"


def _module_source(face: Face) -> str:
    names = _names(face.parameters)
    annotated = dict(zip(names, [p.strip() for p in face.parameters.split(",") if p.strip()], strict=True))
    # TorchScript types an attribute by its value: nn.ELU(1) holds an int, so floats are converted there.
    scripted = [f"float(self.{n})" if ": float" in annotated[n] else f"self.{n}" for n in names]
    eager = [f"self.{n}" for n in names]
    tensors = ", ".join(_names(face.tensors))
    lines = [f"class {face.module}(nn.{face.module}):"]
    if face.module_init_check:
        lines += [
            f"    def __init__(self, {face.parameters}) -> None:",
            textwrap.indent(face.module_init_check, "        "),
            f"        super().__init__({', '.join(names)})",
            "",
        ]
    lines.append(f"    def forward(self, {face.tensors}) -> torch.Tensor:")
    if scripted != eager:
        lines += ["        if _is_scripting():", f"            return {face.name}({', '.join([tensors, *scripted])})"]
    lines.append(f"        return {face.name}({', '.join([tensors, *eager])})")
    return "\n".join(lines) + "\n"


def entry_point(overload: torch._ops.OpOverload):
    """The C++ callable behind an OpOverload, the one its ``__call__`` hands every call to: the same
    dispatch (every key; ``__torch_function__`` handled in C++) without that Python frame. (torch 2.15 may
    swap ``_op`` for an experimental dispatcher and keeps the C++ one as ``_cpp_dispatch_handle``.)"""
    return getattr(overload, "_cpp_dispatch_handle", overload._op)


_ANNOTATIONS = {
    "Tensor": "torch.Tensor",
    "Scalar": "float",
    "number": "float",  # Scalar, as the schema's type prints it
    "float": "float",
    "int": "int",
    "bool": "bool",
    "str": "str",
}


def _annotation(kind: torch.Type) -> str:
    if isinstance(kind, torch.OptionalType):
        return f"Optional[{_annotation(kind.getElementType())}]"
    return _ANNOTATIONS[str(kind).removesuffix("Type")]


def _default(argument: torch.Argument):
    """A schema default as the function's: a float parameter's as a float (TorchScript checks the type)."""
    value = argument.default_value
    return float(value) if _annotation(argument.type) == "float" and isinstance(value, int) else value


def from_schema(op: torch._ops.OpOverload, inplace: bool) -> Face:
    """The face of an op whose function is F's of its name, if torch has one (its first tensor named
    `input`, as F names it; `inplace`, where the op has an in-place form and F's function takes it) and
    whose module is nn's of that name, if torch has one taking the same parameters; else a function
    named as the op, with the schema's parameters."""
    import inspect

    from torch import nn
    from torch.nn import functional

    namespace, name = op._schema.name.split("::")
    arguments = op._schema.arguments
    from . import _schemas

    count = _schemas.tensor_inputs(op)
    reference = getattr(functional, name, None)
    try:
        reference_parameters = inspect.signature(reference).parameters if reference else {}
    except ValueError:  # a builtin (F.gelu): no in-place form
        reference_parameters = {}
    tensor_names = ["input"] if count == 1 and reference else [a.name for a in arguments[:count]]
    rest = arguments[count:]
    parameters = [f"{a.name}: {_annotation(a.type)} = {_default(a)!r}" for a in rest]
    call = [f"{a.name}={a.name}" if a.kwarg_only else a.name for a in rest]
    if inplace and "inplace" in reference_parameters:
        parameters.append("inplace: bool = False")
    module = next((m for m in dir(nn) if m.lower() == name and isinstance(getattr(nn, m), type)), None)
    if module and not _takes_exactly(getattr(nn, module), _names(", ".join(parameters))):
        module = None
    signature = f"{name}({', '.join(tensor_names + _names(', '.join(parameters)))})"
    return Face(
        name,
        name,
        f"``{signature}`` on ``{namespace}.{name}``"
        + (f", as ``F.{name}``" if reference else "")
        + ": differentiable to any order in both modes, under torch.func, torch.compile, torch.export, "
        "torch.jit.script, DTensor and jagged nested tensors.",
        tensors=", ".join(f"{t}: torch.Tensor" for t in tensor_names),
        parameters=", ".join(parameters),
        arguments=", ".join(call),
        module=module,
        module_doc=f"Drop-in for ``nn.{module}`` backed by ``{namespace}.{name}`` (a subclass of it).",
        namespace=namespace,
    )


def define_from_schemas(namespace: dict, library: str, described: frozenset[str] = frozenset()) -> list[Face]:
    """Defines in `namespace` (a module's globals) the face of every forward op of `library` but those
    `described` by hand (the ELU family's), each from its schema; returns them."""
    from . import _schemas

    faces = [
        from_schema(op, _schemas.has_inplace(op))
        for op in _schemas.forward_ops(library)
        if op._schema.name.split("::")[1] not in described
    ]
    for face in faces:
        define(namespace, face)
    return faces


def _takes_exactly(module: type, names: list[str]) -> bool:
    """Whether nn's module takes these parameters and no other but deprecated aliases (those defaulting
    to None: nn.Hardtanh's min_value and max_value), so that the face's forward finds them as its
    attributes under the same names."""
    import inspect

    parameters = inspect.signature(module).parameters
    extra = [p for name, p in parameters.items() if name not in names]
    return set(names) <= set(parameters) and all(p.default is None for p in extra)


def define(namespace: dict, face: Face) -> None:
    """Adds the face's function (and module) to `namespace`, a module's globals, with the names its
    source uses for the op's overloads and entry points."""
    for suffix in ("", "_") if face.inplace else ("",):
        overload = getattr(getattr(torch.ops, face.namespace), face.op + suffix).default
        namespace[f"_OP_{face.op}{suffix}"] = overload
        namespace[f"_ENTRY_{face.op}{suffix}"] = entry_point(overload)
    source = _function_source(face) + ("\n" + _module_source(face) if face.module else "")
    first_line = len(_lines)
    _lines.extend(source.splitlines(keepends=True))
    linecache.cache[_FILE] = (sum(map(len, _lines)), None, _lines, _FILE)
    code = compile("\n" * first_line + source, _FILE, "exec")
    exec(code, namespace)
    namespace[face.name].__doc__ = face.doc
    if face.module:
        namespace[face.module].__doc__ = face.module_doc
        namespace[face.module].__module__ = namespace["__name__"]
