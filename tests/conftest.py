import pytest
import torch

import torch_uaccel  # noqa: F401  (registers torch.ops.uaccel)

HAS_CUDA = torch.cuda.is_available()

DEVICES = [
    "cpu",
    pytest.param("cuda", marks=[pytest.mark.cuda, pytest.mark.skipif(not HAS_CUDA, reason="needs a CUDA device")]),
]


@pytest.fixture(params=DEVICES)
def device(request):
    return request.param
