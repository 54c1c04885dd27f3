"""The ops and async_copy captured into CUDA graphs (torch.cuda.graph and torch.compile's
"reduce-overhead" mode) and replayed with new inputs: the same results as eager, or a clear refusal
where a capture could only replay stale bytes. Needs a GPU (run by benchmarks/gpu_check.sh)."""

import pytest
import torch
import torch.nn.functional as F
from conftest import HAS_CUDA

import torch_uaccel
from torch_uaccel import memory

pytestmark = [pytest.mark.cuda, pytest.mark.skipif(not HAS_CUDA, reason="needs a CUDA device")]

N = 1 << 16


def capture(fn, *static_inputs):
    """fn(*static_inputs) captured after a warm-up on a side stream, as torch.cuda.graph's docs ask."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        fn(*static_inputs)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out = fn(*static_inputs)
    return graph, out


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize(
    "ours, theirs",
    [
        (lambda x: torch_uaccel.elu(x, 0.7), lambda x: F.elu(x, 0.7)),
        (torch_uaccel.selu, F.selu),
        (lambda x: torch_uaccel.celu(x, 0.5), lambda x: F.celu(x, 0.5)),
        (
            lambda x: torch.ops.uaccel.elu_backward(x * 0 + 1.5, x, 0.7, False),
            lambda x: torch.ops.aten.elu_backward(x * 0 + 1.5, 0.7, 1, 1, False, x),
        ),
    ],
    ids=["elu", "selu", "celu", "elu_backward"],
)
def test_captured_ops_replay_with_new_inputs(ours, theirs, dtype):
    static = torch.randn(N, device="cuda", dtype=dtype)
    graph, out = capture(ours, static)
    for seed in range(3):
        fresh = torch.randn(N, device="cuda", dtype=dtype, generator=torch.Generator("cuda").manual_seed(seed))
        static.copy_(fresh)
        graph.replay()
        torch.testing.assert_close(out, theirs(fresh))


def test_captured_in_place_op_and_training_step():
    static = torch.randn(N, device="cuda")
    graph, _ = capture(lambda x: torch_uaccel.elu(x, 0.3, inplace=True), static)
    fresh = torch.randn(N, device="cuda")
    static.copy_(fresh)
    graph.replay()
    torch.testing.assert_close(static, F.elu(fresh, 0.3))

    weight = torch.randn(N, device="cuda", requires_grad=True)

    def step(x):
        weight.grad = None
        torch_uaccel.elu(x * weight, 1.0).sum().backward()
        return weight.grad

    x = torch.randn(N, device="cuda")
    graph, grad = capture(step, x)
    fresh = torch.randn(N, device="cuda")
    x.copy_(fresh)
    graph.replay()
    expected_x = (fresh * weight.detach()).requires_grad_()
    (expected,) = torch.autograd.grad(F.elu(expected_x, 1.0).sum(), expected_x)
    torch.testing.assert_close(grad, expected * fresh)


def test_reduce_overhead_compile_replays_with_new_inputs():
    model = torch.nn.Sequential(torch.nn.Linear(64, 64), torch_uaccel.ELU(0.5), torch.nn.Linear(64, 8)).cuda()
    compiled = torch.compile(model, mode="reduce-overhead", fullgraph=True)
    for _ in range(4):  # the first calls record, later ones replay the graph
        x = torch.randn(32, 64, device="cuda")
        torch.testing.assert_close(compiled(x).clone(), model(x))


@pytest.mark.parametrize("kind", ["device", "pinned-to-device", "device-to-pinned"])
def test_captured_async_copy_replays_with_new_inputs(kind):
    src = torch.randn(N, device="cuda") if kind != "pinned-to-device" else torch.randn(N).pin_memory()
    dst = torch.empty(N, device="cuda") if kind != "device-to-pinned" else torch.empty(N).pin_memory()
    graph, _ = capture(torch_uaccel.async_copy, dst, src)
    for _ in range(2):
        fresh = torch.randn(N)
        src.copy_(fresh)
        graph.replay()
        torch.cuda.synchronize()
        torch.testing.assert_close(dst.cpu(), fresh)


@pytest.mark.parametrize("pageable", ["src", "dst"])
def test_pageable_host_memory_is_refused_inside_capture(pageable):
    device_side = torch.randn(N, device="cuda")
    host = torch.randn(N)  # pageable
    dst, src = (device_side, host) if pageable == "src" else (host, device_side)
    before = dst.clone()
    graph = torch.cuda.CUDAGraph()
    with (
        pytest.raises(
            RuntimeError, match=rf"uaccel\.async_copy_: expected dense pinned .* a pageable host tensor as {pageable}"
        ),
        torch.cuda.graph(graph),
    ):
        torch_uaccel.async_copy(dst, src)
    torch.cuda.synchronize()
    torch.testing.assert_close(dst, before)  # nothing written
    torch_uaccel.async_copy(dst, src)  # and the stream works afterwards
    torch.cuda.synchronize()
    torch.testing.assert_close(dst.cpu(), src.cpu())


def test_uaccel_mem_pool_under_capture():
    """Graph capture allocates from its own private pool; an active uaccel MemPool must not break it."""
    pool = memory.cuda_pool(alignment=4096)
    static = torch.randn(N, device="cuda")
    with torch.cuda.use_mem_pool(pool):
        graph, out = capture(lambda x: torch_uaccel.elu(x, 0.2), static)
    fresh = torch.randn(N, device="cuda")
    static.copy_(fresh)
    graph.replay()
    torch.testing.assert_close(out, F.elu(fresh, 0.2))
