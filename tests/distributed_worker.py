"""Run by test_distributed.py on 2 gloo ranks (torch.distributed.run on 127.0.0.1): the ELU family, SiLU,
GELU and the gated ops on DTensor, in tensor-parallel MLPs (SwiGLU's too, trained), and in DDP and FSDP2
training, each against torch's own results."""

import copy
import os

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.fsdp import fully_shard
from torch.distributed.tensor import DTensor, Replicate, Shard, distribute_tensor
from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel, parallelize_module
from torch.nn.parallel import DistributedDataParallel

import torch_uaccel


def check_dtensor_ops(mesh):
    x = torch.randn(8, 6, dtype=torch.float64)
    for placement in (Shard(0), Shard(1), Replicate()):
        for ours, theirs in (
            (lambda t: torch_uaccel.elu(t, 0.3), lambda t: F.elu(t, 0.3)),
            (torch_uaccel.selu, F.selu),
            (lambda t: torch_uaccel.celu(t, 0.7), lambda t: F.celu(t, 0.7)),
            (torch_uaccel.silu, F.silu),
            (torch_uaccel.gelu, F.gelu),
            (lambda t: torch_uaccel.gelu(t, "tanh"), lambda t: F.gelu(t, approximate="tanh")),
        ):
            dx = distribute_tensor(x, mesh, [placement]).requires_grad_()
            y = ours(dx)
            assert isinstance(y, DTensor) and y.placements == (placement,), (placement, y.placements)
            y.sum().backward()
            assert dx.grad.placements == (placement,)
            reference = x.clone().requires_grad_()
            theirs(reference).sum().backward()
            torch.testing.assert_close(y.full_tensor(), theirs(x))
            torch.testing.assert_close(dx.grad.full_tensor(), reference.grad)
        inplace = distribute_tensor(x.clone(), mesh, [placement])
        torch_uaccel.elu(inplace, 0.3, inplace=True)
        assert inplace.placements == (placement,)
        torch.testing.assert_close(inplace.full_tensor(), F.elu(x, 0.3))


def check_gated_dtensor_ops(mesh):
    """Both inputs with the same placement, and silu_and_mul of a tensor sharded on a dimension other
    than the split one."""
    gate, up = torch.randn(8, 6, dtype=torch.float64), torch.randn(8, 6, dtype=torch.float64)
    for placement in (Shard(0), Shard(1), Replicate()):
        for ours, theirs in (
            (torch_uaccel.silu_mul, lambda a, b: F.silu(a) * b),
            (lambda a, b: torch_uaccel.gelu_mul(a, b, "tanh"), lambda a, b: F.gelu(a, approximate="tanh") * b),
        ):
            dg, du = (distribute_tensor(t, mesh, [placement]).requires_grad_() for t in (gate, up))
            y = ours(dg, du)
            assert isinstance(y, DTensor) and y.placements == (placement,), (placement, y.placements)
            y.sum().backward()
            rg, ru = gate.clone().requires_grad_(), up.clone().requires_grad_()
            theirs(rg, ru).sum().backward()
            torch.testing.assert_close(y.full_tensor(), theirs(gate, up))
            torch.testing.assert_close(dg.grad.full_tensor(), rg.grad)
            torch.testing.assert_close(du.grad.full_tensor(), ru.grad)
    x = torch.cat([gate, up], dim=-1)
    dx = distribute_tensor(x, mesh, [Shard(0)]).requires_grad_()
    y = torch_uaccel.silu_and_mul(dx)
    assert y.placements == (Shard(0),), y.placements
    torch.testing.assert_close(y.full_tensor(), F.silu(gate) * up)


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
    check_dtensor_ops(mesh)
    check_gated_dtensor_ops(mesh)
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
