"""transformers models built from configs (random weights, no download) for the tests of
torch_uaccel.patch and for benchmarks/bench_models.py: one entry per model family patch() handles."""

import dataclasses

import torch


@dataclasses.dataclass(frozen=True)
class Family:
    config: str  # transformers' config class
    options: dict  # beside the sizes
    intermediate_ratio: float  # intermediate_size / hidden_size, near the family's released models'


FAMILIES = {
    "llama": Family("LlamaConfig", {}, 2.75),  # hidden 1024: 2816, issue 49's measured model
    "mistral": Family("MistralConfig", {}, 3.5),
    "qwen2": Family("Qwen2Config", {}, 5.25),
    "qwen3": Family("Qwen3Config", {}, 3.0),
    "olmo2": Family("Olmo2Config", {}, 2.6875),
    "gemma": Family("GemmaConfig", {"hidden_activation": "gelu_pytorch_tanh"}, 8.0),
    "gemma2": Family("Gemma2Config", {}, 4.0),
    "gemma3": Family("Gemma3TextConfig", {}, 6.0),
    "phi3": Family("Phi3Config", {}, 2.6667),
    "qwen3_moe": Family("Qwen3MoeConfig", {"num_experts": 4, "num_experts_per_tok": 2}, 3.0),
    "mixtral": Family("MixtralConfig", {"num_local_experts": 4, "num_experts_per_tok": 2}, 3.5),
}
TOKENS = {"pad_token_id": 0, "bos_token_id": 1, "eos_token_id": 2}


def config(family: str, hidden: int = 64, layers: int = 2, vocab: int = 128, **overrides):
    """A config of ``family`` with ``hidden`` width (intermediate per the family's ratio, heads of 16 or
    64 wide, grouped-query attention with two query heads a key/value head)."""
    import transformers

    spec = FAMILIES[family]
    head_dim = 16 if hidden < 512 else 64
    intermediate = round(hidden * spec.intermediate_ratio / 32) * 32
    sizes = {
        "hidden_size": hidden,
        "intermediate_size": intermediate,
        "num_hidden_layers": layers,
        "num_attention_heads": hidden // head_dim,
        "num_key_value_heads": hidden // head_dim // 2,
        "head_dim": head_dim,
        "vocab_size": vocab,
        "max_position_embeddings": 4096,
    }
    if family == "qwen3_moe":
        sizes["moe_intermediate_size"] = intermediate // spec.options["num_experts_per_tok"]
    return getattr(transformers, spec.config)(**sizes, **TOKENS, **spec.options, **overrides)


def model(family: str, dtype: torch.dtype = torch.float32, seed: int = 0, **config_options):
    """A causal LM of ``family`` with seeded random weights, in eval mode, ``dtype``."""
    from transformers import AutoModelForCausalLM

    torch.manual_seed(seed)
    return AutoModelForCausalLM.from_config(config(family, **config_options), dtype=dtype).eval()
