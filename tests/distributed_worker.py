"""Run by test_distributed.py on 2 gloo ranks (torch.distributed.run on 127.0.0.1): every op of the op
table on DTensor, RMSNorm (sharded rows, a sharded normalised dimension, sequence parallel), in
tensor-parallel MLPs (SwiGLU's too, trained), and in DDP and FSDP2 training, each against torch's own
results."""

import copy
import os

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.fsdp import fully_shard
from torch.distributed.tensor import DTensor, Replicate, Shard, distribute_tensor
from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel, SequenceParallel, parallelize_module
from torch.nn.parallel import DistributedDataParallel

import torch_uaccel
from torch_uaccel._testing.op_table import OPS


def check_every_op_on_dtensor(mesh):
    """Every row of the op table (forwards, backwards, in place, modules, the gated ops) on inputs with
    one placement each: the output keeps it, values and gradients as the reference's."""
    for row in OPS:
        plain = row.plain_inputs(torch.randn(8, 6, dtype=torch.float64))
        for placement in (Shard(0), Shard(1), Replicate()):
            distributed = [distribute_tensor(t, mesh, [placement]) for t in plain]
            differentiable = row.supports_grad and not row.inplace
            if differentiable:
                distributed = [t.requires_grad_() for t in distributed]
            y = row.run(*distributed)
            y = y if isinstance(y, tuple) else (y,)
            expected = row.run(*plain, reference=True)
            expected = expected if isinstance(expected, tuple) else (expected,)
            for ours, theirs in zip(y, expected, strict=True):
                assert isinstance(ours, DTensor) and ours.placements == (placement,), (row, placement, ours)
                torch.testing.assert_close(ours.full_tensor(), theirs, msg=lambda m, row=row: f"{row}: {m}")
            if differentiable:
                sum(t.sum() for t in y).backward()
                references = [t.clone().requires_grad_() for t in plain]
                reference = row.run(*references, reference=True, of_gradient=True)
                sum(t.sum() for t in (reference if isinstance(reference, tuple) else (reference,))).backward()
                for t, r in zip(distributed, references, strict=True):
                    assert t.grad.placements == (placement,), (row, placement)
                    torch.testing.assert_close(t.grad.full_tensor(), r.grad, msg=lambda m, row=row: f"{row}: {m}")


def check_split_gate_on_dtensor(mesh):
    """silu_and_mul of a tensor sharded on a dimension other than the split one."""
    gate, up = torch.randn(8, 6, dtype=torch.float64), torch.randn(8, 6, dtype=torch.float64)
    x = torch.cat([gate, up], dim=-1)
    dx = distribute_tensor(x, mesh, [Shard(0)]).requires_grad_()
    y = torch_uaccel.silu_and_mul(dx)
    assert y.placements == (Shard(0),), y.placements
    torch.testing.assert_close(y.full_tensor(), F.silu(gate) * up)


def check_rms_norm_on_dtensor(mesh):
    """rms_norm and add_rms_norm of [4, 6, 8] sharded on each dimension (rows keep their placement; the
    normalised one is redistributed), values and gradients (the weight's: a partial sum, reduced) as
    F.rms_norm's; and the module under SequenceParallel, as transformers' tensor-parallel plans use it."""
    x, residual = torch.randn(4, 6, 8, dtype=torch.float64), torch.randn(4, 6, 8, dtype=torch.float64)
    w = torch.randn(8, dtype=torch.float64)
    for placement in (Shard(0), Shard(1), Shard(2), Replicate()):
        dx = distribute_tensor(x, mesh, [placement]).requires_grad_()
        dw = distribute_tensor(w, mesh, [Replicate()]).requires_grad_()
        out = torch_uaccel.rms_norm(dx, 8, dw, 1e-5)
        if placement != Shard(2):
            assert out.placements == (placement,), (placement, out.placements)
        reference_x, reference_w = x.clone().requires_grad_(), w.clone().requires_grad_()
        expected = F.rms_norm(reference_x, (8,), reference_w, 1e-5)
        torch.testing.assert_close(out.full_tensor(), expected)
        out.square().sum().backward()
        expected.square().sum().backward()
        torch.testing.assert_close(dx.grad.full_tensor(), reference_x.grad)
        torch.testing.assert_close(dw.grad.full_tensor(), reference_w.grad)
        total_out, total = torch_uaccel.add_rms_norm(dx.detach(), distribute_tensor(residual, mesh, [placement]), 8, dw)
        torch.testing.assert_close(total.full_tensor(), x + residual)
        torch.testing.assert_close(total_out.full_tensor(), F.rms_norm(x + residual, (8,), w))
    norm = torch_uaccel.RMSNorm(8, eps=1e-5, dtype=torch.float64)
    parallelize_module(norm, mesh, SequenceParallel())
    out = norm(distribute_tensor(x, mesh, [Shard(1)]))
    assert out.placements == (Shard(1),), out.placements
    torch.testing.assert_close(out.full_tensor(), F.rms_norm(x, (8,), eps=1e-5))


class SwiGLU(torch.nn.Module):
    def __init__(self, fused: bool) -> None:
        super().__init__()
        torch.manual_seed(2)
        self.gate, self.up, self.down = torch.nn.Linear(6, 16), torch.nn.Linear(6, 16), torch.nn.Linear(16, 3)
        self.fused = fused

    def forward(self, x):
        gate, up = self.gate(x), self.up(x)
        return self.down(torch_uaccel.silu_mul(gate, up) if self.fused else F.silu(gate) * up)


def check_tensor_parallel_swiglu(mesh):
    """A SwiGLU MLP as users shard it (column-wise gate and up projections, row-wise down), 20 SGD steps:
    the losses of the fused module match the unfused one's."""
    plan = {"gate": ColwiseParallel(), "up": ColwiseParallel(), "down": RowwiseParallel()}
    losses = []
    for fused in (True, False):
        model = parallelize_module(SwiGLU(fused).double(), mesh, plan)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
        torch.manual_seed(3)
        steps = []
        for _ in range(20):
            x, target = torch.randn(5, 6, dtype=torch.float64), torch.randn(5, 3, dtype=torch.float64)
            optimizer.zero_grad()
            loss = F.mse_loss(model(x), target)
            loss.backward()
            optimizer.step()
            steps.append(loss.detach())
        losses.append(torch.stack(steps))
    torch.testing.assert_close(losses[0], losses[1])


def mlp(activation):
    torch.manual_seed(1)
    return torch.nn.Sequential(torch.nn.Linear(6, 16), activation, torch.nn.Linear(16, 3)).double()


def check_tensor_parallel(mesh):
    ours, reference = mlp(torch_uaccel.ELU(0.5)), mlp(torch.nn.ELU(0.5))
    parallelize_module(ours, mesh, {"0": ColwiseParallel(), "2": RowwiseParallel()})
    x = torch.randn(5, 6, dtype=torch.float64)
    out, expected = ours(x), reference(x)
    torch.testing.assert_close(out, expected)
    out.square().sum().backward()
    expected.square().sum().backward()
    for (name, p), q in zip(ours.named_parameters(), reference.parameters(), strict=True):
        grad = p.grad.full_tensor() if isinstance(p.grad, DTensor) else p.grad
        torch.testing.assert_close(grad, q.grad, msg=name)


def train(model, batches, wrap):
    model = wrap(model)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in batches:
        optimizer.zero_grad()
        F.mse_loss(model(x), y).backward()
        optimizer.step()
    return [p.full_tensor() if isinstance(p, DTensor) else p for p in model.parameters()]


def check_training(wrap):
    rank = dist.get_rank()
    torch.manual_seed(100 + rank)  # each rank its own data
    batches = [(torch.randn(4, 6, dtype=torch.float64), torch.randn(4, 3, dtype=torch.float64)) for _ in range(3)]
    ours = train(mlp(torch_uaccel.ELU(0.5)), batches, wrap)
    theirs = train(mlp(torch.nn.ELU(0.5)), copy.deepcopy(batches), wrap)
    for p, q in zip(ours, theirs, strict=True):
        torch.testing.assert_close(p.detach(), q.detach())


def main():
    dist.init_process_group("gloo")
    mesh = init_device_mesh("cpu", (dist.get_world_size(),))
    torch.manual_seed(0)  # the same full tensors on every rank
    check_every_op_on_dtensor(mesh)
    check_split_gate_on_dtensor(mesh)
    check_rms_norm_on_dtensor(mesh)
    check_tensor_parallel(mesh)
    check_tensor_parallel_swiglu(mesh)
    check_training(DistributedDataParallel)
    check_training(lambda m: fully_shard(m, mesh=mesh))
    print(f"rank {dist.get_rank()}: DTensor, tensor parallel (SwiGLU too), DDP and FSDP2 match torch", flush=True)
    dist.destroy_process_group()
    # torch 2.14.1's gloo backend aborts one run in five while the interpreter exits ("terminate called
    # without an active exception", with this file's code before the gated ops too): leave at once.
    os._exit(0)


if __name__ == "__main__":
    main()
