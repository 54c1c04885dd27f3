"""What the generic bad-input checks (tests/test_op_table.py, each row's error cases) cannot say:
a call that does not match the schema at all."""

import pytest
import torch

import torch_uaccel  # noqa: F401  (registers torch.ops.uaccel)


def test_missing_argument_is_a_schema_error():
    with pytest.raises(RuntimeError, match="elu_backward"):
        torch.ops.uaccel.elu_backward(torch.randn(3), torch.randn(3), 0.1)
