"""Writes docs/api.md's list of the ops' Python API (between <!-- api:ops:start --> and <!-- api:ops:end -->)
from the faces torch_uaccel defines (torch_uaccel.ops.__all__: a function and a module per op, from the
ops' schemas), so that a new op needs no hand edit there. tests/test_api_doc.py checks the page is what
this writes.

    python tools/api_doc.py           # rewrite docs/api.md's list
    python tools/api_doc.py --check   # exit 1 if docs/api.md's list is not what it would write
"""

import argparse
import inspect
import pathlib
import sys

import torch

import torch_uaccel
from torch_uaccel import ops

API_DOC = pathlib.Path(__file__).resolve().parents[1] / "docs" / "api.md"
START, END = "<!-- api:ops:start -->", "<!-- api:ops:end -->"


def _signature(obj) -> str:
    """name(parameters) as a user calls it: defaults shown, annotations and the return left out."""
    signature = inspect.signature(obj)
    parameters = [p.replace(annotation=inspect.Parameter.empty) for p in signature.parameters.values()]
    return f"{obj.__name__}{signature.replace(parameters=parameters, return_annotation=inspect.Signature.empty)}"


def _wrapped(text_items: list[str], first: str, width: int = 118) -> str:
    """first, then the items joined by ", ", wrapped between items (a code span never breaks)."""
    lines = [first]
    for k, item in enumerate(text_items):
        item += "." if k == len(text_items) - 1 else ","
        if len(lines[-1]) + 1 + len(item) > width:
            lines.append(" ")
        lines[-1] += " " + item
    return "\n".join(lines)


def api_list() -> str:
    """The markdown bullet of the ops' functions, their modules, and the other names of torch_uaccel.ops."""
    objects = [getattr(ops, name) for name in ops.__all__]
    modules = [o for o in objects if isinstance(o, type) and issubclass(o, torch.nn.Module)]
    functions = [o for o in objects if inspect.isfunction(o) and o.__name__ != "build_info"]
    others = [o for o in objects if o not in modules and o not in functions]
    items = [f"`{_signature(f)}`" for f in functions]
    items += [f"`{_signature(m)}` (an `nn.{m.__name__}`)" for m in modules]
    items += [f"`{_signature(o)}`" if inspect.isfunction(o) else f"`{o.__name__}`" for o in others]
    return _wrapped(items, "- `torch_uaccel`, the ops' functions and modules:")


def written(page: str) -> str:
    """`page` with its list replaced by api_list()."""
    head, rest = page.split(START, 1)
    _, tail = rest.split(END, 1)
    return f"{head}{START}\n{api_list()}\n{END}{tail}"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args(argv)
    page = API_DOC.read_text()
    if args.check:
        if written(page) != page:
            print(
                f"{API_DOC}: the API list differs from what tools/api_doc.py writes (torch_uaccel {torch_uaccel.__version__}): run it"
            )
            return 1
        return 0
    API_DOC.write_text(written(page))
    return 0


if __name__ == "__main__":
    sys.exit(main())
