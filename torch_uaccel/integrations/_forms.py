"""What a module computes, read from the form of its code rather than its class's name.

A form is the source of the methods a module's class must have (``forward``, and the helpers it calls),
compared as syntax trees with comments, docstrings and annotations dropped and local names numbered in
order of appearance: two classes match when their code differs only in names of locals and layout, as
transformers' copies of one module across its model families do. A class whose code differs anywhere
(an extra bias, another activation, a different cast) does not match, whatever its name.
"""

import ast
import functools
import inspect
import textwrap
from collections.abc import Callable, Mapping


class _NumberLocals(ast.NodeTransformer):
    """Renames arguments (but ``self``) and assigned names to v0, v1, ... in order of first appearance;
    names the code only reads (modules such as ``torch``) are kept."""

    def __init__(self, local_names: set[str]) -> None:
        self.local_names = local_names
        self.numbers: dict[str, str] = {}

    def _number(self, name: str) -> str:
        return self.numbers.setdefault(name, f"v{len(self.numbers)}")

    def visit_arg(self, node: ast.arg) -> ast.arg:
        node.annotation = None
        if node.arg != "self":
            node.arg = self._number(node.arg)
        return node

    def visit_Name(self, node: ast.Name) -> ast.Name:
        if node.id in self.local_names:
            node.id = self._number(node.id)
        return node


def _canonical(function: ast.FunctionDef) -> str:
    function.decorator_list, function.returns, function.name = [], None, "_"
    body = function.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        function.body = body[1:] or [ast.Pass()]  # the docstring
    arguments = function.args
    local_names = {a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)}
    local_names |= {a.arg for a in (arguments.vararg, arguments.kwarg) if a is not None}
    local_names |= {n.id for n in ast.walk(function) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    return ast.dump(_NumberLocals(local_names).visit(function))


@functools.cache
def _canonical_source(source: str) -> str:
    (function,) = ast.parse(textwrap.dedent(source)).body
    return _canonical(function)


@functools.cache
def _canonical_function(function: Callable) -> str | None:
    """The canonical form of a Python function's code, or None where its source cannot be read or it is
    wrapped (``inspect`` would read the wrapped function's source, not the wrapper's)."""
    if hasattr(function, "__wrapped__"):
        return None
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(function))).body
    except (OSError, TypeError, SyntaxError):  # no source file, or lines that do not parse alone
        return None
    return _canonical(tree[0]) if tree and isinstance(tree[0], ast.FunctionDef) else None


def has_form(cls: type, methods: Mapping[str, str]) -> bool:
    """Whether each of ``methods`` (name -> source) is ``cls``'s method of that name, up to local names
    and layout."""
    for name, source in methods.items():
        function = inspect.getattr_static(cls, name, None)
        if not inspect.isfunction(function) or _canonical_function(function) != _canonical_source(source):
            return False
    return True
