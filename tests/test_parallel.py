"""The CPU kernels run on torch's thread pool as ATen's do: compiled for the backend torch was built with
(OpenMP in the official wheels), on as many threads as torch is told, and on one below the grain size.
Deterministic: which thread wrote each element, by the loop the kernels run (<namespace>::_cpu_thread_ids),
never a timing."""

import multiprocessing
import re

import pytest
import torch

import torch_uaccel
from torch_uaccel import _native

pytestmark = pytest.mark.torch_release

GRAIN_SIZE = 32768  # at::internal::GRAIN_SIZE: no parallel region below it
CHUNK_ALIGNMENT = 64  # uaccel::cpu::kChunkAlignment: where a chunk may start in a contiguous run


@pytest.fixture
def threads():
    """Sets torch's thread count for the test, and restores it."""
    previous = torch.get_num_threads()
    yield torch.set_num_threads
    torch.set_num_threads(previous)


def thread_ids(namespace: str, numel: int) -> torch.Tensor:
    return getattr(torch.ops, namespace)._cpu_thread_ids(numel)


def assert_runs_on_torch_threads(namespace: str, set_threads) -> None:
    for count in (1, 2, 3):
        set_threads(count)
        ids = thread_ids(namespace, 4 * GRAIN_SIZE + 5)
        # ATen's split of the blocks of CHUNK_ALIGNMENT elements: thread k takes the k-th of `count` runs.
        blocks = torch.arange(ids.numel()).div(CHUNK_ALIGNMENT, rounding_mode="floor")
        blocks_a_thread = -(-(blocks[-1].item() + 1) // count)
        expected = blocks.div(blocks_a_thread, rounding_mode="floor").float()
        assert torch.equal(ids, expected), f"{namespace} at {count} threads: {ids.unique().tolist()}"
    set_threads(2)
    assert thread_ids(namespace, GRAIN_SIZE).unique().tolist() == [0.0]  # one chunk: no parallel region
    assert thread_ids(namespace, 0).numel() == 0


def test_the_kernels_are_compiled_for_torchs_pool():
    info = torch_uaccel.build_info()
    backend = re.search(r"ATen parallel backend: (\w+)", torch.__config__.parallel_info()).group(1).lower()
    assert info["torch_parallel"] == ("openmp" if backend == "openmp" else "native")
    assert info["cpu_parallel"] == info["torch_parallel"]


def test_the_kernels_run_on_as_many_threads_as_torch(threads):
    assert_runs_on_torch_threads("uaccel", threads)


def inputs_past_the_grain_size():
    """Dense (a length no multiple of any vector), and rows of 1000 in rows of 1024 (a TensorIterator's
    loop); sigma 3, so that some vectors have a lane past a fast path's reach and some do not."""
    x = torch.randn(300, 1024, generator=torch.Generator().manual_seed(0)) * 3
    for t in (x.flatten()[: 8 * GRAIN_SIZE + 3], x[:, :1000]):
        yield t
        yield t.bfloat16()


@pytest.mark.parametrize("name", ["silu", "gelu", "gelu_tanh", "silu_mul", "elu_backward"])
def test_the_ops_give_the_same_bits_at_any_thread_count(threads, name):
    """Each chunk of a parallel loop starts where a vector starts on one thread, so an element's result
    never depends on how many threads split the tensor."""
    ops = {
        "silu": lambda x: torch_uaccel.silu(x),
        "gelu": lambda x: torch_uaccel.gelu(x),
        "gelu_tanh": lambda x: torch_uaccel.gelu(x, approximate="tanh"),
        "silu_mul": lambda x: torch_uaccel.silu_mul(x, x.flip(-1)),
        "elu_backward": lambda x: torch.ops.uaccel.elu_backward(x.flip(-1), x, 1.0, False),
    }
    for x in inputs_past_the_grain_size():
        results = []
        for count in (1, 2, 3):
            threads(count)
            results.append(ops[name](x))
        for result in results[1:]:
            assert torch.equal(result, results[0]), f"{name} {x.dtype} {tuple(x.shape)}"


def test_a_library_compiled_without_torchs_pool_is_named_in_a_warning():
    with pytest.warns(RuntimeWarning, match=r"library 'mine''s CPU kernels were compiled for the thread pool 'none'"):
        _native.check_parallel("library 'mine'", "none")


def test_the_probe_names_its_op_in_errors():
    with pytest.raises(RuntimeError, match=r"uaccel::_cpu_thread_ids: expected numel >= 0, got -1"):
        thread_ids("uaccel", -1)


def _child_runs_a_parallel_op(queue, x):
    """In the child, nothing of ATen's that would run in parallel (its ops hang there): our two ops, and a
    few elements read back."""
    ids = thread_ids("uaccel", x.numel())
    queue.put((ids[::GRAIN_SIZE].tolist(), torch_uaccel.gelu(x)[:: GRAIN_SIZE - 1].tolist()))


def test_a_forked_child_runs_the_kernels_on_its_own_thread(threads):
    """GNU OpenMP's pool does not survive fork(): a child's parallel region would wait for the parent's
    threads forever (ATen's ops do). The kernels see they run in a forked child and use its one thread."""
    threads(2)
    assert thread_ids("uaccel", 4 * GRAIN_SIZE).unique().tolist() == [0.0, 1.0]  # the parent's pool is up
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    x = torch.randn(4 * GRAIN_SIZE, generator=torch.Generator().manual_seed(0))
    expected = torch_uaccel.gelu(x)[:: GRAIN_SIZE - 1].tolist()
    child = context.Process(target=_child_runs_a_parallel_op, args=(queue, x))
    child.start()
    child.join(timeout=60)
    if child.is_alive():
        child.kill()
        pytest.fail("the forked child hung in a parallel region")
    assert child.exitcode == 0
    assert queue.get(timeout=10) == ([0.0] * 4, expected)
