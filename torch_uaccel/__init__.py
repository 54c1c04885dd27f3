"""torch_uaccel: PyTorch custom operators and accelerator memory plumbing.

Import order matters: torch first (the extension links against its libraries), then the
extension, which registers the `torch.ops.uaccel` operators once per process.
"""
import torch

from ._version import __version__

try:
    from . import _C  # noqa: F401  (loading the library runs its TORCH_LIBRARY registrations)
except ImportError as error:  # typically undefined symbols: built against another torch
    raise ImportError(
        f"torch_uaccel: could not load its compiled extension ({error}). It must be built against the "
        f"torch that is installed now ({torch.__version__}); rebuild with "
        "`pip install --no-build-isolation -e .`"
    ) from error

from . import _fake, _rules, memory  # noqa: E402,F401  (fake kernels; vmap, DTensor, nested rules)
from .copy import async_copy  # noqa: E402
from .host import HostRegistration, register_host  # noqa: E402
from .ops import CELU, ELU, SELU, ELUFunction, build_info, celu, elu, selu  # noqa: E402

__all__ = [
    "CELU", "ELU", "ELUFunction", "HostRegistration", "SELU", "async_copy", "build_info", "celu", "elu", "memory",
    "register_host", "selu", "__version__",
]
