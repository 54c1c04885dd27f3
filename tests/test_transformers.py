"""torch_uaccel.patch / unpatch on transformers models of each family it handles (tiny, random weights,
built from configs), and the kernels route: the patched model computes what the unpatched one does
(logits, loss, every parameter's gradient; greedy tokens), compiles with no more graph breaks, trains
with gradient checkpointing, saves and loads as before, and unpatches to exactly what it was."""

import copy
import pathlib
import types

import pytest
import torch
from torch import nn

import torch_uaccel

transformers = pytest.importorskip(
    "transformers", reason="transformers is not installed (pip install torch_uaccel[transformers])"
)

from torch_uaccel._testing import models  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[1]
FAMILIES = sorted(models.FAMILIES)
# What patch() must change in each family's model (kind -> module class), beyond its activations.
MLP_KIND = {"qwen3_moe": "experts", "mixtral": "experts"}


def _inputs(batch=2, length=12, vocab=128, seed=1):
    generator = torch.Generator().manual_seed(seed)
    return torch.randint(3, vocab, (batch, length), generator=generator)


def _train_step(model, ids):
    """Logits, loss and every parameter's gradient (by name) of one training step."""
    model.zero_grad(set_to_none=True)
    out = model(ids, labels=ids)
    out.loss.backward()
    grads = {name: p.grad.clone() for name, p in model.named_parameters() if p.grad is not None}
    return out.logits.detach(), out.loss.detach(), grads


def _instance_attributes(model):
    return {(name, key) for name, m in model.named_modules() for key in ("forward", "_apply_gate") if key in m.__dict__}


# -- Each family: what changed, the same numbers ------------------------------------------------------------


@pytest.mark.parametrize("family", FAMILIES)
def test_patch_changes_every_norm_mlp_and_activation(family):
    model = models.model(family)
    report = torch_uaccel.patch(model)
    changed = {c.name: c for c in report.changed}
    assert report.left == ()
    norms = [n for n, m in model.named_modules() if type(m).__name__.endswith("RMSNorm")]
    assert norms and all(changed[n].kind == "RMSNorm" for n in norms)
    mlps = [n for n, m in model.named_modules() if n.endswith(".mlp.experts" if family in MLP_KIND else ".mlp")]
    assert len(mlps) == model.config.num_hidden_layers
    assert all(changed[n].kind == MLP_KIND.get(family, "gated MLP") for n in mlps)
    # Only instance attributes: the classes are untouched, nothing was added to the state.
    assert _instance_attributes(model) == {
        (c.name, "_apply_gate" if c.kind == "experts" else "forward") for c in report.changed
    }
    assert str(report).startswith(f"torch_uaccel.patch: {len(report.changed)} modules changed, 0 left")
    assert report.as_dict()["changed"][0]["name"] == report.changed[0].name


@pytest.mark.parametrize("family", FAMILIES)
def test_patched_float32_matches_logits_loss_and_every_gradient(family):
    model = models.model(family).train()
    ids = _inputs()
    logits, loss, grads = _train_step(model, ids)
    torch_uaccel.patch(model)
    p_logits, p_loss, p_grads = _train_step(model, ids)
    torch.testing.assert_close(p_logits, logits, rtol=1e-5, atol=2e-6)
    torch.testing.assert_close(p_loss, loss, rtol=1e-6, atol=1e-6)
    assert p_grads.keys() == grads.keys()
    for name, grad in grads.items():
        torch.testing.assert_close(p_grads[name], grad, rtol=1e-4, atol=1e-6, msg=lambda m, n=name: f"{n}: {m}")


@pytest.mark.parametrize("family", ["llama", "gemma2", "gemma3", "olmo2", "phi3"])
def test_patched_bfloat16_is_as_close_to_exact_as_unpatched(family):
    """bfloat16 patched and unpatched differ by roundings (ours round once where the modules round
    twice): both against float64 of the same weights, the patched model's error is no larger than
    the unpatched one's, within a factor (logits 1.5, each parameter's gradient 2)."""
    model = models.model(family, dtype=torch.bfloat16).train()
    ids = _inputs()
    exact_logits, _, exact_grads = _train_step(copy.deepcopy(model).double(), ids)
    logits, loss, grads = _train_step(model, ids)
    torch_uaccel.patch(model)
    p_logits, p_loss, p_grads = _train_step(model, ids)

    def error(x, exact):
        return ((x.double() - exact).norm() / exact.norm()).item()

    assert error(p_logits, exact_logits) <= 1.5 * error(logits, exact_logits)
    assert abs(p_loss.item() - loss.item()) <= 0.002 * loss.item()
    for name, exact in exact_grads.items():
        assert error(p_grads[name], exact) <= 2 * error(grads[name], exact) + 1e-3, name


@pytest.mark.parametrize("family", ["llama", "gemma2", "qwen3_moe"])
def test_greedy_generate_gives_the_same_tokens(family):
    model = models.model(family)
    prompt = _inputs(batch=1, length=6)
    options = {"max_new_tokens": 12, "do_sample": False, "pad_token_id": 0}
    expected = model.generate(prompt, **options)
    torch_uaccel.patch(model)
    assert torch.equal(model.generate(prompt, **options), expected)


def test_gradient_checkpointing_trains_with_the_same_gradients():
    model = models.model("llama").train()
    if hasattr(model, "activation_checkpointing_enable"):  # transformers >= 5.2x's name
        model.activation_checkpointing_enable({"use_reentrant": False})
    else:
        model.gradient_checkpointing_enable({"use_reentrant": False})
    assert model.is_gradient_checkpointing
    ids = _inputs()
    _, loss, grads = _train_step(model, ids)
    torch_uaccel.patch(model)
    _, p_loss, p_grads = _train_step(model, ids)
    torch.testing.assert_close(p_loss, loss, rtol=1e-6, atol=1e-6)
    for name, grad in grads.items():
        torch.testing.assert_close(p_grads[name], grad, rtol=1e-4, atol=1e-6)


def test_save_pretrained_and_from_pretrained_round_trip(tmp_path):
    model = models.model("gemma3")
    state = {k: v.clone() for k, v in model.state_dict().items()}
    pointers = {k: v.data_ptr() for k, v in model.state_dict().items()}
    torch_uaccel.patch(model)
    assert {k: v.data_ptr() for k, v in model.state_dict().items()} == pointers  # nothing copied or added
    model.save_pretrained(tmp_path)
    loaded = transformers.AutoModelForCausalLM.from_pretrained(tmp_path).eval()
    assert loaded.state_dict().keys() == state.keys()
    for key, value in loaded.state_dict().items():
        assert torch.equal(value, state[key]), key
    ids = _inputs()
    with torch.no_grad():
        torch.testing.assert_close(model(ids).logits, loaded(ids).logits, rtol=1e-5, atol=2e-6)


# -- patch and unpatch: instance only, idempotent, exact undo ---------------------------------------------


def test_unpatch_restores_the_original_forwards_exactly():
    model = models.model("qwen3_moe")
    ids = _inputs()
    with torch.no_grad():
        expected = model(ids).logits
    before = _instance_attributes(model)
    torch_uaccel.patch(model)
    torch_uaccel.unpatch(model)
    assert _instance_attributes(model) == before == set()
    with torch.no_grad():
        assert torch.equal(model(ids).logits, expected)
    torch_uaccel.unpatch(model)  # not patched: nothing to do
    assert torch_uaccel.patch(model).changed  # and it can be patched again


def test_patching_twice_changes_nothing_more_and_other_instances_are_untouched():
    model, other = models.model("llama"), models.model("llama")
    report = torch_uaccel.patch(model)
    attributes = {(n, m.__dict__["forward"]) for n, m in model.named_modules() if "forward" in m.__dict__}
    assert torch_uaccel.patch(model) == report
    assert {(n, m.__dict__["forward"]) for n, m in model.named_modules() if "forward" in m.__dict__} == attributes
    assert _instance_attributes(other) == set()
    # A model holding a patched one: the patched modules are not patched again, nor reported.
    holder = nn.Sequential(model)
    assert torch_uaccel.patch(holder).changed == ()
    torch_uaccel.unpatch(holder)
    assert _instance_attributes(model) == {(c.name, "forward") for c in report.changed}


def test_patch_and_unpatch_refuse_what_is_not_a_module():
    with pytest.raises(TypeError, match=r"torch_uaccel.patch: expected model to be an nn.Module, but got dict"):
        torch_uaccel.patch({})
    with pytest.raises(TypeError, match=r"torch_uaccel.unpatch: expected model to be an nn.Module, but got NoneType"):
        torch_uaccel.unpatch(None)


def test_a_forward_that_is_no_function_definition_is_not_recognised():
    class ShortRMSNorm(torch.nn.Module):  # named like a norm; its forward a lambda, no def to compare
        weight = None
        forward = {"forward": lambda self, x: x}["forward"]

    report = torch_uaccel.patch(nn.Sequential(ShortRMSNorm()))
    assert report.changed == () and "not one of the RMSNorm forms" in report.left[0].reason


def test_kernels_mapping_refuses_unknown_devices_and_layers():
    pytest.importorskip("kernels", reason="the kernels package is not installed")
    from torch_uaccel.integrations.kernels import PackageRepository, kernel_mapping

    assert set(kernel_mapping("cpu")["SiLU"]) == {"cpu"}
    with pytest.raises(
        ValueError, match=r"kernel_mapping: expected devices among 'cpu' and 'cuda', but got \('tpu',\)"
    ):
        kernel_mapping("tpu")
    with pytest.raises(
        ValueError, match=r"PackageRepository: expected layer_name to be one of .*'SiLU'.*, but got 'Swish'"
    ):
        PackageRepository("Swish")


# -- What differs is left, and the report says why ------------------------------------------------------------


def test_modules_that_differ_are_left_and_named():
    model = models.model("llama", hidden_act="relu2")  # an MLP whose activation we do not compute

    class ShiftedRMSNorm(nn.Module):  # named like a norm, computes something else
        def __init__(self):
            super().__init__()
            self.weight = nn.Parameter(torch.ones(64))

        def forward(self, x):
            return self.weight * x / x.norm(dim=-1, keepdim=True)

    class BiasedMLP(nn.Module):  # a gated MLP with a bias after the product
        def __init__(self, mlp):
            super().__init__()
            self.gate_proj, self.up_proj, self.down_proj, self.act_fn = (
                mlp.gate_proj,
                mlp.up_proj,
                mlp.down_proj,
                nn.SiLU(),
            )

        def forward(self, x):
            return self.down_proj(self.act_fn(self.gate_proj(x)) * self.up_proj(x) + 1.0)

    model.model.norm = ShiftedRMSNorm()
    model.model.layers[1].mlp = BiasedMLP(model.model.layers[1].mlp)
    report = torch_uaccel.patch(model)
    left = {entry.name: entry for entry in report.left}
    assert "not an activation uaccel computes" in left["model.layers.0.mlp"].reason
    assert left["model.layers.0.mlp.act_fn"].reason == "no uaccel op computes it"
    assert left["model.norm"].kind == "RMSNorm" and "not one of the RMSNorm forms" in left["model.norm"].reason
    assert "not one of the gated MLP forms" in left["model.layers.1.mlp"].reason
    changed = {c.name for c in report.changed}
    assert "model.layers.1.mlp.act_fn" in changed and "model.layers.0.input_layernorm" in changed
    assert "model.layers.1.mlp" in str(report)


def test_an_instance_forward_set_by_someone_else_is_left():
    model = models.model("llama")
    norm = model.model.norm
    norm.forward = types.MethodType(lambda self, x: x, norm)
    report = torch_uaccel.patch(model)
    (entry,) = [e for e in report.left if e.name == "model.norm"]
    assert "replaced on the instance already" in entry.reason
    torch_uaccel.unpatch(model)
    assert "forward" in norm.__dict__  # theirs, kept


def test_activation_recognition_reads_the_module_and_its_config():
    from transformers.activations import ACT2FN

    expected = {
        "silu": "uaccel.silu",
        "swish": "uaccel.silu",
        "gelu": "uaccel.gelu(approximate='none')",
        "gelu_pytorch_tanh": "uaccel.gelu(approximate='tanh')",
        "gelu_new": "uaccel.gelu(approximate='tanh')",
        "gelu_fast": "uaccel.gelu(approximate='tanh')",
    }
    for name, now in expected.items():
        (change,) = torch_uaccel.patch(nn.Sequential(ACT2FN[name])).changed
        assert change.now == now, name
    for name in ("quick_gelu", "relu2", "gelu_10", "gelu_python_tanh"):
        report = torch_uaccel.patch(nn.Sequential(ACT2FN[name]))
        assert report.changed == () and len(report.left) == 1, name
    (change,) = torch_uaccel.patch(nn.Sequential(nn.GELU(approximate="tanh"))).changed
    assert change.now == "uaccel.gelu(approximate='tanh')"
    assert torch_uaccel.patch(nn.Sequential(nn.SiLU(inplace=True))).left[0].reason == "in place"


@pytest.mark.parametrize("name", ["silu", "gelu", "gelu_pytorch_tanh", "gelu_new", "gelu_fast"])
def test_patched_activations_compute_what_transformers_does(name):
    from transformers.activations import ACT2FN

    x = torch.randn(4096, dtype=torch.float64) * 4
    module = ACT2FN[name].double()
    expected = module(x)
    torch_uaccel.patch(nn.Sequential(module))
    torch.testing.assert_close(module(x), expected, rtol=1e-9 if name != "gelu_fast" else 1e-6, atol=1e-12)


@pytest.mark.cuda
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
@pytest.mark.parametrize("family", ["llama", "gemma3", "phi3", "qwen3_moe"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_patched_model_on_cuda_trains_as_unpatched(family, dtype):
    model = models.model(family, dtype=dtype).cuda().train()
    ids = _inputs().cuda()
    logits, loss, grads = _train_step(model, ids)
    torch_uaccel.patch(model)
    p_logits, p_loss, p_grads = _train_step(model, ids)
    tolerance = 1e-4 if dtype == torch.float32 else 5e-2
    assert (p_logits - logits).abs().max().item() <= tolerance * logits.abs().max().item()
    assert abs(p_loss.item() - loss.item()) <= tolerance * loss.item()
    for name, grad in grads.items():
        difference = ((p_grads[name] - grad).float().norm() / grad.float().norm().clamp_min(1e-30)).item()
        assert difference <= 10 * tolerance, name


# -- Compiled ----------------------------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("family", ["llama", "gemma3"])
def test_compiled_patched_model_has_no_more_graph_breaks(family):
    model = models.model(family)
    ids = _inputs()
    baseline = torch._dynamo.explain(model)(ids).graph_break_count
    torch._dynamo.reset()
    with torch.no_grad():
        expected = model(ids).logits
    torch_uaccel.patch(model)
    assert torch._dynamo.explain(model)(ids).graph_break_count <= baseline
    torch._dynamo.reset()
    compiled = torch.compile(model)
    with torch.no_grad():
        torch.testing.assert_close(compiled(ids).logits, expected, rtol=1e-4, atol=1e-5)


# -- The kernels route ---------------------------------------------------------------------------------------------


def test_kernels_route_serves_our_layers_with_backward_and_compile():
    kernels = pytest.importorskip("kernels", reason="the kernels package is not installed")
    from torch_uaccel.integrations.kernels import kernel_mapping

    model = models.model("gemma").train()
    ids = _inputs()
    logits, _, grads = _train_step(model, ids)
    with kernels.use_kernel_mapping(kernel_mapping()):
        model = kernels.kernelize(model, mode=kernels.Mode.TRAINING | kernels.Mode.TORCH_COMPILE, device="cpu")
    forwards = {
        type(m).__name__: m.__dict__["forward"].__func__.__qualname__
        for m in model.modules()
        if "forward" in m.__dict__
    }
    assert forwards.get("GELUTanh") == "GeluTanh.forward"
    k_logits, _, k_grads = _train_step(model, ids)
    torch.testing.assert_close(k_logits, logits, rtol=1e-5, atol=2e-6)
    for name, grad in grads.items():
        torch.testing.assert_close(k_grads[name], grad, rtol=1e-4, atol=1e-6)


def test_kernels_route_rms_norm_is_the_form_transformers_marks():
    """Our "RMSNorm" layer computes Llama's form: every RMSNorm of the families here that transformers
    marks "RMSNorm" has it, and our layer matches it."""
    pytest.importorskip("kernels", reason="the kernels package is not installed")
    from torch_uaccel.integrations import kernels as ours
    from torch_uaccel.integrations import transformers as patching

    marked = 0
    for family in FAMILIES:
        model = models.model(family, dtype=torch.bfloat16)
        for module in model.modules():
            if getattr(type(module), "kernel_layer_name", None) == "RMSNorm":
                marked += 1
                assert patching._norm(module).function is patching._llama_rms_norm, type(module).__name__
                x = torch.randn(3, module.weight.shape[0], dtype=torch.bfloat16)
                module.weight.data.uniform_(0.5, 1.5)
                assert torch.equal(ours.RMSNorm.forward(module, x), patching._llama_rms_norm(module, x))
    assert marked > 0


def test_the_example_runs(capsys):
    import runpy

    runpy.run_path(str(ROOT / "examples" / "transformers_patch.py"), run_name="__main__")
    assert "greedy tokens, patched and unpatched: the same" in capsys.readouterr().out
