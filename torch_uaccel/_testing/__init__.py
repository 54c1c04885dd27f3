"""Test and benchmark machinery, private (as PyTorch keeps its OpInfos in torch.testing._internal):
the op table (op_table) that the tests, `python -m torch_uaccel` and the benchmarks iterate, and the
one home of the timing helpers (timing). No API promise: it changes with the tests."""
