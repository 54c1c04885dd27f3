"""Run by test_distributed.py on 2 gloo ranks (torch.distributed.run on 127.0.0.1): the ELU family and
SiLU on DTensor, in a tensor-parallel MLP, and in DDP and FSDP2 training, each against nn.ELU's results."""

import copy

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
    check_tensor_parallel(mesh)
    check_training(DistributedDataParallel)
    check_training(lambda m: fully_shard(m, mesh=mesh))
    print(f"rank {dist.get_rank()}: DTensor, tensor parallel, DDP and FSDP2 match nn.ELU")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
