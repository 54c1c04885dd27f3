"""The ELU family under torch.distributed: DTensor sharding rules, a tensor-parallel MLP, DDP and
FSDP2 training, on 2 gloo ranks over 127.0.0.1 (tests/distributed_worker.py), bounded in time."""

import pathlib
import socket
import subprocess
import sys

import pytest
import torch

pytestmark = [
    pytest.mark.torch_release,
    pytest.mark.slow,
    pytest.mark.skipif(
        not torch.distributed.is_available() or not torch.distributed.is_gloo_available(),
        reason="needs torch.distributed with gloo",
    ),
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_two_ranks_match_nn_elu():
    worker = pathlib.Path(__file__).with_name("distributed_worker.py")
    command = [
        sys.executable,
        "-m",
        "torch.distributed.run",
        "--nproc-per-node",
        "2",
        "--master-addr",
        "127.0.0.1",
        "--master-port",
        str(free_port()),
        str(worker),
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-6000:]
    assert done.stdout.count("FSDP2 match torch") == 2, done.stdout
