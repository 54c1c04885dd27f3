"""Exports a small model that uses the uaccel ops and AOT-compiles it into a package (`.pt2`) that
C++ runs without Python (run_model.cpp). Writes the input recipe's expected output next to it.

    python export_model.py OUT_DIR
"""

import pathlib
import sys

import torch

import torch_uaccel


def model() -> torch.nn.Module:
    torch.manual_seed(0)
    return torch.nn.Sequential(
        torch.nn.Linear(8, 16),
        torch_uaccel.ELU(0.5),
        torch.nn.Linear(16, 16),
        torch_uaccel.SELU(),
        torch.nn.Linear(16, 16),
        torch_uaccel.SiLU(),
        torch.nn.Linear(16, 4),
    ).eval()


def example_input() -> torch.Tensor:
    return torch.linspace(-3, 3, 24).reshape(3, 8)  # run_model.cpp builds the same tensor


def main(out_dir: pathlib.Path) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    net, x = model(), example_input()
    program = torch.export.export(net, (x,))
    targets = {str(node.target) for node in program.graph.nodes if node.op == "call_function"}
    expected_ops = {"uaccel.elu.default", "uaccel.silu.default"}
    assert expected_ops <= targets, f"expected {sorted(expected_ops)} nodes in the exported graph, got {targets}"
    torch._inductor.aoti_compile_and_package(program, package_path=str(out_dir / "model.pt2"))
    with torch.no_grad():
        expected = net(x)
    values = " ".join(f"{v:.9g}" for v in expected.flatten().tolist())
    (out_dir / "expected.txt").write_text(f"{' '.join(map(str, expected.shape))}\n{values}\n")
    print(f"wrote {out_dir / 'model.pt2'}; graph ops: {sorted(targets)}")


if __name__ == "__main__":
    main(pathlib.Path(sys.argv[1]))
