"""docs/api.md's list of the ops' Python API is generated (tools/api_doc.py) from the faces torch_uaccel
defines: a new op appears there by running the tool, never by a hand edit that could drift."""

import importlib.util
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _tool():
    spec = importlib.util.spec_from_file_location("api_doc", ROOT / "tools" / "api_doc.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_api_page_lists_every_face_as_the_tool_writes_it():
    tool = _tool()
    page = (ROOT / "docs" / "api.md").read_text()
    assert tool.written(page) == page, "docs/api.md's API list is stale: run python tools/api_doc.py"


def test_the_list_names_every_function_and_module_with_its_parameters():
    import torch_uaccel

    listed = _tool().api_list()
    for name in torch_uaccel.ops.__all__:
        assert f"`{name}(" in listed or f"`{name}`" in listed, name
    assert "`gelu_mul(gate, up, approximate='none')`" in listed
    assert "`ELU(alpha=1.0, inplace=False)` (an `nn.ELU`)" in listed
