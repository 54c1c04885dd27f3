"""torch_uaccel: PyTorch custom operators and accelerator memory plumbing.

Import order matters: torch first (libuaccel links against its libraries), then libuaccel, which
registers the `torch.ops.uaccel` operators once per process.
"""

import torch  # noqa: F401  (first: libuaccel links against its libraries)

from . import _native
from ._native import cmake_prefix_path
from ._version import __version__

_native.load()  # registers the torch.ops.uaccel operators (once per process)

# The pointwise ops' fakes, vmap, DTensor and nested rules, symbolic float parameters under torch.compile,
# as every loaded library's get them: after the ELU family's own fake (_elu).
from . import _elu, _norms, _schemas, library  # noqa: E402,F401  (_elu, _norms: imported for their fakes)

library.register_python_side(_schemas.pointwise_ops())
from . import memory, ops  # noqa: E402
from .copy import async_copy  # noqa: E402
from .host import HostRegistration, register_host  # noqa: E402
from .integrations.transformers import patch, unpatch  # noqa: E402
from .ops import *  # noqa: E402,F403  (the ops' functions and modules: ops.__all__)

__all__ = [
    *ops.__all__,
    "HostRegistration",
    "__version__",
    "async_copy",
    "cmake_prefix_path",
    "library",
    "memory",
    "patch",
    "register_host",
    "unpatch",
]
