"""torch_uaccel in a model instance, by one call: ``patch(model)`` gives a built or loaded model (a Hugging
Face transformers model, or any nn.Module tree) our activations, fused gated MLPs and RMSNorms, and
``unpatch(model)`` takes them back.

Instance, never class: a patched module gets its own ``forward`` (experts: ``_apply_gate``) in its
``__dict__``, as the ``kernels`` package's ``kernelize`` does, so other models in the process are untouched,
hooks, parameters, state dicts and ``type()`` stay as they were, and unpatching restores what the
instance had. A module is recognised by what its code computes (torch_uaccel/integrations/_forms.py)
and by its attributes, not by its class's name; one that differs is left, and the report says why.

transformers itself is not imported here: its modules are recognised by their code.
"""

import dataclasses
import functools
import types
import weakref
from collections import Counter
from collections.abc import Callable

from torch import nn

from .. import ops
from . import _forms

__all__ = ["Changed", "Left", "PatchReport", "patch", "unpatch"]


@dataclasses.dataclass(frozen=True)
class Changed:
    """A module patch() changed: its name in the model, its class, its kind, and what it computes now."""

    name: str
    module_class: str
    kind: str
    now: str


@dataclasses.dataclass(frozen=True)
class Left:
    """A module of a kind patch() handles that it left as it was, and why."""

    name: str
    module_class: str
    kind: str
    reason: str


@dataclasses.dataclass(frozen=True)
class PatchReport:
    """What :func:`patch` changed and what it left. ``print()`` it for a summary, one line per kind of
    change; ``changed`` and ``left`` list every module, ``as_dict()`` gives them as plain data."""

    changed: tuple[Changed, ...]
    left: tuple[Left, ...]

    def as_dict(self) -> dict:
        return dataclasses.asdict(self)

    def __str__(self) -> str:
        lines = [f"torch_uaccel.patch: {len(self.changed)} modules changed, {len(self.left)} left as they were"]
        for title, entries, say in (("changed", self.changed, "now"), ("left", self.left, "reason")):
            groups = Counter((e.kind, e.module_class, getattr(e, say)) for e in entries)
            if groups:
                lines.append(f"{title}:")
            for (kind, module_class, what), count in groups.items():
                first = next(
                    e.name for e in entries if (e.kind, e.module_class, getattr(e, say)) == (kind, module_class, what)
                )
                more = f" and {count - 1} more" if count > 1 else ""
                lines.append(f"  {count} x {module_class} ({kind}; {first or '<model>'}{more}): {what}")
        return "\n".join(lines)


# -- Activations -----------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class _Activation:
    op: str  # "silu" or "gelu"
    approximate: str = "none"  # GELU's

    def __str__(self) -> str:
        return self.fused("uaccel.", "")

    def fused(self, prefix: str, suffix: str) -> str:
        """The name of this activation's op (suffix ''), or of its gated op, and GELU's approximation."""
        return f"{prefix}{self.op}{suffix}" + (f"(approximate={self.approximate!r})" if self.op == "gelu" else "")


def _gelu_of_act(module: nn.Module) -> _Activation | str:
    """transformers' GELUActivation and GELUTanh call ``self.act``: F.gelu, or a partial of it."""
    act = module.act
    if act is nn.functional.gelu:
        return _Activation("gelu")
    is_partial_gelu = isinstance(act, functools.partial) and act.func is nn.functional.gelu and not act.args
    if is_partial_gelu and set(act.keywords) == {"approximate"} and act.keywords["approximate"] in ("none", "tanh"):
        return _Activation("gelu", act.keywords["approximate"])
    return f"its act is {getattr(act, '__name__', act)!r}, not torch's gelu"


_TANH_GELU = _Activation("gelu", "tanh")

# (the class's code, what the instance computes): transformers' activations and torch.nn's.
_ACTIVATION_FORMS: tuple[tuple[dict[str, str], Callable[[nn.Module], _Activation | str]], ...] = (
    ({"forward": "def forward(self, input): return nn.functional.silu(input)"}, lambda m: _Activation("silu")),
    (
        {"forward": "def forward(self, input): return F.silu(input, inplace=self.inplace)"},
        lambda m: "in place" if m.inplace else _Activation("silu"),
    ),
    (
        {"forward": "def forward(self, input): return F.gelu(input, approximate=self.approximate)"},
        lambda m: _Activation("gelu", m.approximate),
    ),
    ({"forward": "def forward(self, input): return self.act(input)"}, _gelu_of_act),
    (  # transformers' NewGELUActivation (gelu_new)
        {
            "forward": "def forward(self, input): return 0.5 * input * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi)"
            " * (input + 0.044715 * torch.pow(input, 3.0))))"
        },
        lambda m: _TANH_GELU,
    ),
    (  # transformers' FastGELUActivation (gelu_fast): the tanh form, its constant rounded
        {
            "forward": "def forward(self, input): return 0.5 * input * (1.0 + torch.tanh(input * 0.7978845608"
            " * (1.0 + 0.044715 * input * input)))"
        },
        lambda m: _TANH_GELU,
    ),
)
_ACTIVATION_HOMES = ("transformers.activations", "torch.nn.modules.activation")


def _activation(module: nn.Module) -> _Activation | str | None:
    """What an activation module computes, if we compute it; why not, if not; None: not an activation."""
    for form, read in _ACTIVATION_FORMS:
        if _forms.has_form(type(module), form):
            return read(module)
    if type(module).__module__ in _ACTIVATION_HOMES:
        return "no uaccel op computes it"
    return None


@functools.cache
def _activation_forward(activation: _Activation) -> Callable:
    if activation.op == "silu":

        def forward(self, input):
            return ops.silu(input)

    else:
        approximate = activation.approximate

        def forward(self, input):
            return ops.gelu(input, approximate=approximate)

    return forward


@functools.cache
def _gate_functions(activation: _Activation) -> tuple[Callable, Callable]:
    """act(gate) * up, from gate and up, and from [gate | up] in one tensor."""
    if activation.op == "silu":
        return ops.silu_mul, ops.silu_and_mul
    approximate = activation.approximate
    return (
        lambda gate, up: ops.gelu_mul(gate, up, approximate=approximate),
        lambda gate_up: ops.gelu_and_mul(gate_up, approximate),
    )


# -- Gated MLPs and MoE experts -----------------------------------------------------------------------------

_LLAMA_MLP_FORMS = (  # Llama, Mistral, Qwen2/3, OLMo 2, Gemma 1-3, the shared experts of MoE models, ...
    {"forward": "def forward(self, x): return self.down_proj(self.act_fn(self.gate_proj(x)) * self.up_proj(x))"},
    {
        "forward": "def forward(self, x):\n d = self.down_proj(self.act_fn(self.gate_proj(x)) * self.up_proj(x))\n return d"
    },
)
_PHI3_MLP_FORM = {  # Phi-3, GLM: one projection to [gate | up]
    "forward": "def forward(self, hidden_states):\n up_states = self.gate_up_proj(hidden_states)\n"
    " gate, up_states = up_states.chunk(2, dim=-1)\n up_states = up_states * self.activation_fn(gate)\n"
    " return self.down_proj(up_states)"
}
_EXPERTS_GATE_FORM = {  # transformers' experts (Qwen3-MoE, Mixtral, ...): the gate of their fast paths
    "_apply_gate": "def _apply_gate(self, gate_up_out):\n gate, up = gate_up_out.chunk(2, dim=-1)\n"
    " return self.act_fn(gate) * up"
}


@dataclasses.dataclass(frozen=True)
class _Plan:
    """A recognised module's patch: the attribute set on the instance, its function, what it computes."""

    kind: str
    attribute: str
    function: Callable
    now: str


def _activation_child(module: nn.Module, name: str) -> _Activation | str:
    child = getattr(module, name, None)
    if not isinstance(child, nn.Module):
        return f"its {name} is not a module"
    if not _forward_is_the_class(child):
        return f"its {name}'s forward was replaced on the instance"
    activation = _activation(child)
    if not isinstance(activation, _Activation):
        return f"its {name} ({type(child).__name__}) is not an activation uaccel computes"
    return activation


@functools.cache
def _llama_mlp_forward(activation: _Activation) -> Callable:
    gate_mul, _ = _gate_functions(activation)

    def forward(self, x):
        return self.down_proj(gate_mul(self.gate_proj(x), self.up_proj(x)))

    return forward


@functools.cache
def _phi3_mlp_forward(activation: _Activation) -> Callable:
    _, gate_and_mul = _gate_functions(activation)

    def forward(self, hidden_states):
        return self.down_proj(gate_and_mul(self.gate_up_proj(hidden_states)))

    return forward


@functools.cache
def _experts_gate(activation: _Activation) -> Callable:
    _, gate_and_mul = _gate_functions(activation)

    def _apply_gate(self, gate_up_out):
        return gate_and_mul(gate_up_out)

    return _apply_gate


def _gated(module: nn.Module) -> _Plan | str | None:
    cls = type(module)
    if any(_forms.has_form(cls, form) for form in _LLAMA_MLP_FORMS):
        activation = _activation_child(module, "act_fn")
        if isinstance(activation, str):
            return activation
        now = f"down_proj({activation.fused('uaccel.', '_mul')}(gate_proj(x), up_proj(x)))"
        return _Plan("gated MLP", "forward", _llama_mlp_forward(activation), now)
    if _forms.has_form(cls, _PHI3_MLP_FORM):
        activation = _activation_child(module, "activation_fn")
        if isinstance(activation, str):
            return activation
        now = f"down_proj({activation.fused('torch_uaccel.', '_and_mul')}(gate_up_proj(x)))"
        return _Plan("gated MLP", "forward", _phi3_mlp_forward(activation), now)
    if _forms.has_form(cls, _EXPERTS_GATE_FORM):
        if not (getattr(module, "has_gate", False) and getattr(module, "is_concatenated", False)):
            return "its gate_up_proj is not [gate | up] (has_gate, is_concatenated)"
        activation = _activation_child(module, "act_fn")
        if isinstance(activation, str):
            return activation
        implementation = getattr(getattr(module, "config", None), "_experts_implementation", None)
        note = " (its 'eager' experts apply act_fn themselves)" if implementation == "eager" else ""
        now = f"{activation.fused('torch_uaccel.', '_and_mul')}(gate_up){note}"
        return _Plan("experts", "_apply_gate", _experts_gate(activation), now)
    if hasattr(module, "gate_proj") or hasattr(module, "gate_up_proj") or cls.__name__.endswith(("MLP", "Experts")):
        return "its forward is not one of the gated MLP forms uaccel fuses" + (
            "" if hasattr(module, "gate_proj") or hasattr(module, "gate_up_proj") else " (no gate projection)"
        )
    return None


# -- RMSNorm -------------------------------------------------------------------------------------------------

_LLAMA_NORM = """
def forward(self, hidden_states):
    input_dtype = hidden_states.dtype
    hidden_states = hidden_states.to(torch.float32)
    variance = hidden_states.pow(2).mean(-1, keepdim=True)
    hidden_states = hidden_states * torch.rsqrt(variance + self.variance_epsilon)
    return {weighted}
"""
_GEMMA_NORM_HELPER = "def _norm(self, x): return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)"


def _llama_rms_norm(self, hidden_states):
    return ops.rms_norm(hidden_states, self.weight.shape, self.weight, self.variance_epsilon, cast_before_weight=True)


def _weighted_then_cast_rms_norm(self, hidden_states):
    return ops.rms_norm(hidden_states, self.weight.shape, self.weight, self.variance_epsilon).to(hidden_states.dtype)


def _gemma_rms_norm(self, x):
    return ops.rms_norm(x, self.weight.shape, self.weight, self.eps, weight_offset=1.0).to(x.dtype)


def _gemma4_rms_norm(self, hidden_states):
    weight = self.weight if self.with_scale else None
    return ops.rms_norm(hidden_states, hidden_states.shape[-1:], weight, self.variance_epsilon).to(hidden_states.dtype)


def _unweighted_rms_norm(self, x):
    return ops.rms_norm(x, x.shape[-1:], None, self.eps)


def _torch_rms_norm(self, x):
    return ops.rms_norm(x, self.normalized_shape, self.weight, self.eps)


# (the class's code, our forward, what it computes)
_NORM_FORMS: tuple[tuple[dict[str, str], Callable, str], ...] = (
    (  # Llama, Mistral, Qwen2/3 (and its q/k norms), Mixtral, Phi-3, ...
        {"forward": _LLAMA_NORM.format(weighted="self.weight * hidden_states.to(input_dtype)")},
        _llama_rms_norm,
        "uaccel.rms_norm(cast_before_weight=True)",
    ),
    (  # OLMo 2
        {"forward": _LLAMA_NORM.format(weighted="(self.weight * hidden_states).to(input_dtype)")},
        _weighted_then_cast_rms_norm,
        "uaccel.rms_norm, cast to the input's dtype",
    ),
    (  # Nemotron-H, Helium
        {"forward": _LLAMA_NORM.format(weighted="(self.weight.to(torch.float32) * hidden_states).to(input_dtype)")},
        _weighted_then_cast_rms_norm,
        "uaccel.rms_norm, cast to the input's dtype",
    ),
    (  # Gemma 1-3: 1 + weight in float32
        {
            "forward": "def forward(self, x):\n output = self._norm(x.float())\n"
            " output = output * (1.0 + self.weight.float())\n return output.type_as(x)",
            "_norm": _GEMMA_NORM_HELPER,
        },
        _gemma_rms_norm,
        "uaccel.rms_norm(weight_offset=1.0), cast to the input's dtype",
    ),
    (  # Gemma 4
        {
            "forward": "def forward(self, hidden_states):\n normed_output = self._norm(hidden_states.float())\n"
            " if self.with_scale:\n  normed_output = normed_output * self.weight.float()\n"
            " return normed_output.type_as(hidden_states)",
            "_norm": "def _norm(self, hidden_states):\n"
            " mean_squared = hidden_states.pow(2).mean(-1, keepdim=True) + self.variance_epsilon\n"
            " return hidden_states * torch.pow(mean_squared, -0.5)",
        },
        _gemma4_rms_norm,
        "uaccel.rms_norm, cast to the input's dtype",
    ),
    (  # no weight (Llama 4's, NanoChat's)
        {"forward": "def forward(self, x): return self._norm(x.float()).type_as(x)", "_norm": _GEMMA_NORM_HELPER},
        _unweighted_rms_norm,
        "uaccel.rms_norm (no weight)",
    ),
    (
        {"forward": "def forward(self, x): return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)"},
        _torch_rms_norm,
        "uaccel.rms_norm",
    ),
)


def _norm(module: nn.Module) -> _Plan | str | None:
    if isinstance(module, ops.RMSNorm):
        return None  # ours already
    for form, forward, now in _NORM_FORMS:
        if _forms.has_form(type(module), form):
            return _Plan("RMSNorm", "forward", forward, now)
    if "rmsnorm" in type(module).__name__.lower() or isinstance(module, nn.RMSNorm):
        return "its forward is not one of the RMSNorm forms uaccel computes"
    return None


def _activation_plan(module: nn.Module) -> _Plan | str | None:
    activation = _activation(module)
    if isinstance(activation, _Activation):
        return _Plan("activation", "forward", _activation_forward(activation), str(activation))
    return activation


# -- patch and unpatch ---------------------------------------------------------------------------------------

_RECOGNISERS = (("gated MLP", _gated), ("RMSNorm", _norm), ("activation", _activation_plan))
_OURS: set[Callable] = set()  # every function patch() installs, to tell a patched instance


@dataclasses.dataclass
class _Patched:
    report: PatchReport
    undo: list[tuple[nn.Module, str]]  # (module, attribute patch() set in its __dict__)


_PATCHED: "weakref.WeakKeyDictionary[nn.Module, _Patched]" = weakref.WeakKeyDictionary()


def _forward_is_the_class(module: nn.Module) -> bool:
    return "forward" not in module.__dict__ or _is_ours(module.__dict__["forward"])


def _is_ours(method: object) -> bool:
    return getattr(method, "__func__", None) in _OURS


def _check_module(fn: str, model) -> None:
    if not isinstance(model, nn.Module):
        raise TypeError(f"{fn}: expected model to be an nn.Module, but got {type(model).__name__}")


def patch(model: nn.Module) -> PatchReport:
    """Give ``model`` (an instance, in place) torch_uaccel's activations, fused gated MLPs and RMSNorms.

    Changes, per module and only on the instance: SiLU and GELU activations (erf; the tanh forms
    ``gelu_pytorch_tanh``, ``gelu_new``, ``gelu_fast``) to ``uaccel.silu`` / ``uaccel.gelu``; gated MLPs
    (``down_proj(act_fn(gate_proj(x)) * up_proj(x))``, Phi-3's ``gate_up_proj``, MoE experts' gate) to
    ``silu_mul`` / ``gelu_mul`` / ``*_and_mul``; RMSNorms (Llama's, OLMo 2's, Gemma's ``1 + weight``,
    Gemma 4's, unweighted, ``nn.RMSNorm``) to ``uaccel.rms_norm`` with the family's conventions. No
    parameter, buffer or tensor is added or copied. Patching a patched model again changes nothing.

    Returns a :class:`PatchReport`: every module changed, and every module of those kinds left, with why.

    >>> report = torch_uaccel.patch(model)
    >>> print(report)
    """
    _check_module("torch_uaccel.patch", model)
    if model in _PATCHED:
        return _PATCHED[model].report
    changed, left, undo = [], [], []
    for name, module in model.named_modules():
        for kind, recognise in _RECOGNISERS:
            plan = recognise(module)
            if plan is None:
                continue
            module_class = type(module).__name__
            if isinstance(plan, str):
                left.append(Left(name, module_class, kind, plan))
            elif _is_ours(module.__dict__.get(plan.attribute)):
                pass  # patched already, as part of another model
            elif plan.attribute in module.__dict__:
                reason = f"its {plan.attribute} was replaced on the instance already (by kernels' kernelize?)"
                left.append(Left(name, module_class, plan.kind, reason))
            else:
                _OURS.add(plan.function)
                undo.append((module, plan.attribute))
                setattr(module, plan.attribute, types.MethodType(plan.function, module))
                changed.append(Changed(name, module_class, plan.kind, plan.now))
            break
    report = PatchReport(tuple(changed), tuple(left))
    _PATCHED[model] = _Patched(report, undo)
    return report


def unpatch(model: nn.Module) -> None:
    """Undo :func:`patch` on ``model``: every module it changed gets its class's methods back (patch() only
    changes modules whose instance had none of its own). A model that was not patched is left as it is."""
    _check_module("torch_uaccel.unpatch", model)
    patched = _PATCHED.pop(model, None)
    for module, attribute in [] if patched is None else patched.undo:
        del module.__dict__[attribute]
