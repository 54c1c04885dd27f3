"""torch_uaccel's layers for the ``kernels`` package's ``kernelize``: the activation and RMSNorm layers
transformers marks with ``use_kernel_forward_from_hub``, served from this installed package (no hub, no
network), with a backward and under torch.compile:

>>> from kernels import Mode, kernelize, use_kernel_mapping
>>> from torch_uaccel.integrations.kernels import kernel_mapping
>>> with use_kernel_mapping(kernel_mapping()):
...     model = kernelize(model, mode=Mode.TRAINING | Mode.TORCH_COMPILE, device="cpu")

Each layer is what kernelize asks of one: stateless, the forward of the layer it replaces (it runs with
that module as ``self``), ``has_backward`` and ``can_torch_compile``. The "RMSNorm" layer computes Llama's
form (the normalised value cast to the input's dtype before the weight): every module transformers
marks "RMSNorm" has that form (tests/test_transformers.py checks it).
"""

import dataclasses

from torch import nn

from .. import ops

__all__ = ["kernel_mapping"]


class SiLU(nn.Module):
    has_backward = True
    can_torch_compile = True

    def forward(self, input):
        return ops.silu(input)


class GeLU(nn.Module):
    has_backward = True
    can_torch_compile = True

    def forward(self, input):
        return ops.gelu(input)


class GeluTanh(nn.Module):
    """transformers' gelu_pytorch_tanh; also its NewGELU (gelu_new) and FastGELU (gelu_fast), tanh forms."""

    has_backward = True
    can_torch_compile = True

    def forward(self, input):
        return ops.gelu(input, approximate="tanh")


class RMSNorm(nn.Module):
    has_backward = True
    can_torch_compile = True

    def forward(self, hidden_states):
        return ops.rms_norm(
            hidden_states, self.weight.shape, self.weight, self.variance_epsilon, cast_before_weight=True
        )


# transformers' layer names -> ours
_LAYERS = {
    "SiLU": SiLU,
    "GeLU": GeLU,
    "GeluTanh": GeluTanh,
    "NewGELU": GeluTanh,
    "FastGELU": GeluTanh,
    "RMSNorm": RMSNorm,
}


@dataclasses.dataclass(frozen=True)
class PackageRepository:
    """A ``kernels`` repository whose ``load()`` returns one of our layers from the installed package."""

    layer_name: str

    def __post_init__(self) -> None:
        if self.layer_name not in _LAYERS:
            raise ValueError(
                f"torch_uaccel.integrations.kernels.PackageRepository: expected layer_name to be one of "
                f"{sorted(_LAYERS)}, but got {self.layer_name!r}"
            )

    def load(self) -> type[nn.Module]:
        return _LAYERS[self.layer_name]

    def __str__(self) -> str:
        return f"torch_uaccel (layer `{self.layer_name}`)"


def kernel_mapping(devices: str | tuple[str, ...] = ("cpu", "cuda")) -> dict[str, dict[str, PackageRepository]]:
    """The mapping to give ``kernels.use_kernel_mapping`` (or ``register_kernel_mapping``): each layer name
    transformers marks that we compute, on each of ``devices`` ("cpu", "cuda" or both), for every mode
    (training, inference, torch.compile)."""
    devices = (devices,) if isinstance(devices, str) else tuple(devices)
    if not devices or not set(devices) <= {"cpu", "cuda"}:
        raise ValueError(
            f"torch_uaccel.integrations.kernels.kernel_mapping: expected devices among 'cpu' and 'cuda', "
            f"but got {devices!r}"
        )
    return {name: dict.fromkeys(devices, PackageRepository(name)) for name in _LAYERS}
