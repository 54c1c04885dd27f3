"""uaccel.elu in compiled graphs: the custom ops stay in the graph (not traced through), and
torch.export keeps one node. Every row of the op table compiles with fullgraph=True, static and
dynamic, forward and backward, in tests/test_op_table.py."""

import pytest
import torch

import torch_uaccel

pytestmark = [pytest.mark.slow, pytest.mark.torch_release]


class SmallMLP(torch.nn.Module):
    def __init__(self, activation):
        super().__init__()
        self.fc1 = torch.nn.Linear(16, 32)
        self.act = activation
        self.fc2 = torch.nn.Linear(32, 4)

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))


def test_compiled_graph_calls_the_custom_ops(device):
    torch._dynamo.reset()
    seen = []

    def backend(gm, example_inputs):
        from functorch.compile import make_boxed_func
        from torch._functorch.aot_autograd import aot_module_simplified

        def record(graph, _):
            seen.extend(str(n.target) for n in graph.graph.nodes if n.op == "call_function")
            return make_boxed_func(graph.forward)

        return aot_module_simplified(gm, example_inputs, fw_compiler=record, bw_compiler=record)

    x = torch.randn(10, device=device, requires_grad=True)
    torch.compile(lambda t: torch_uaccel.elu(t, 0.5), backend=backend, fullgraph=True)(x).sum().backward()
    assert "uaccel.elu.default" in seen
    assert "uaccel.elu_backward.default" in seen


def test_export_keeps_one_elu_node(device):
    model = SmallMLP(torch_uaccel.ELU(0.3)).to(device)
    x = torch.randn(8, 16, device=device)
    batch = torch.export.Dim("batch", min=2)
    exported = torch.export.export(model, (x,), dynamic_shapes={"x": {0: batch}})
    elu_nodes = [n for n in exported.graph.nodes if n.target is torch.ops.uaccel.elu.default]
    assert len(elu_nodes) == 1
    for rows in (8, 5):
        y = torch.randn(rows, 16, device=device)
        torch.testing.assert_close(exported.module()(y), model(y))
