"""torch_uaccel in a Hugging Face transformers model, by one call: a model built as a new user would
(from a config: random weights, no download), patched, trained a step and asked to generate, with the
same numbers as before; then unpatched.

    pip install torch_uaccel[transformers]   # transformers and kernels, the versions the tests use
    python examples/transformers_patch.py
"""

import torch
from transformers import AutoModelForCausalLM, LlamaConfig

import torch_uaccel

config = LlamaConfig(
    hidden_size=256,
    intermediate_size=704,
    num_hidden_layers=2,
    num_attention_heads=4,
    num_key_value_heads=2,
    vocab_size=1000,
    pad_token_id=0,
)
torch.manual_seed(0)
model = AutoModelForCausalLM.from_config(config)
ids = torch.randint(1, config.vocab_size, (2, 64))

before = model(ids, labels=ids)
before.loss.backward()
gradients = {name: p.grad.clone() for name, p in model.named_parameters()}
model.zero_grad()

report = torch_uaccel.patch(model)  # this instance only; nothing global, no parameter added
print(report)

after = model(ids, labels=ids)
after.loss.backward()
print(f"loss before {before.loss.item():.6f}, patched {after.loss.item():.6f}")
worst = max(
    ((p.grad - gradients[n]).abs().max() / gradients[n].abs().max()).item() for n, p in model.named_parameters()
)
print(f"largest gradient difference, relative to the gradient's largest element: {worst:.1e}")

model.eval()
prompt = ids[:1, :8]
patched_tokens = model.generate(prompt, max_new_tokens=16, do_sample=False)
torch_uaccel.unpatch(model)  # every module back as it was
assert torch.equal(model.generate(prompt, max_new_tokens=16, do_sample=False), patched_tokens)
print("greedy tokens, patched and unpatched: the same")
