"""One sample generator that every ELU check draws from: reference, layout, opcheck, gradcheck, compile."""
from dataclasses import dataclass

import torch

ALPHAS = (0.1, 1.0, 0.0, -0.5, 2.5)
FLOAT_DTYPES = (torch.float16, torch.bfloat16, torch.float32, torch.float64)

# Values that break careless kernels: signed zeros, tiny values where exp(x)-1 cancels, subnormals,
# huge magnitudes, infinities and NaN.
SPECIAL_VALUES = [0.0, -0.0, 1e-8, -1e-8, 1e-30, -1e-30, 1e-40, -1e-40, 1e-3, -1e-3,
                  30.0, -30.0, 1e4, -1e4, float("inf"), float("-inf"), float("nan")]


@dataclass
class Sample:
    x: torch.Tensor
    name: str

    def __repr__(self) -> str:
        return f"Sample({self.name}, shape={tuple(self.x.shape)}, stride={self.x.stride()}, dtype={self.x.dtype})"


def _values(shape, *, device, dtype, differentiable, generator):
    """Random values of both signs; a fifth of them tiny. Bounded away from the kink at 0 when
    `differentiable`, since finite differences across it would disagree with any analytic gradient."""
    x = torch.randn(shape, generator=generator, dtype=torch.float64) * 2
    if differentiable:
        x = x.sign() * (x.abs() + 0.1)
        x[x == 0] = 0.5
    elif x.numel():
        x.view(-1)[::5] *= 1e-6
    return x.to(device=device, dtype=dtype)


def sample_inputs(device, dtype, requires_grad=False, *, differentiable=False, large=True, small=False):
    """Yield Samples covering shapes (0-dim, empty, odd sizes, past the parallel grain) and layouts
    (contiguous, transposed, sliced with steps, channels_last, permuted+sliced, misaligned offset).
    `differentiable` keeps values finite and away from 0 (for gradcheck); `large=False` drops the
    sample that exceeds ATen's 32K-element parallel grain; `small=True` keeps every layout but with
    a few dozen elements each (gradcheck's cost grows with the square of the element count)."""
    gen = torch.Generator().manual_seed(0)

    def make(shape):
        return _values(shape, device=device, dtype=dtype, differentiable=differentiable, generator=gen)

    def sized(big, little):
        return little if small else big

    cases = [
        ("0-dim", make(())),
        ("empty", make((0,))),
        ("empty-3d", make((3, 0, 2))),
        ("vector-odd", make((17,))),
        ("matrix", make(sized((33, 65), (5, 7)))),
        ("transposed", make(sized((40, 30), (6, 4))).t()),
        ("sliced-step", make(sized((20, 64), (4, 12)))[:, ::3]),
        ("channels_last", make(sized((2, 8, 5, 7), (2, 3, 2, 3))).contiguous(memory_format=torch.channels_last)),
        ("permuted-sliced", make(sized((6, 10, 12), (3, 4, 5))).permute(2, 0, 1)[::2]),
        ("offset-by-one", make(sized((1001,), (41,)))[1:]),
    ]
    if large and not small:
        cases.append(("large", make((3 * 2**15 + 5,))))
    if not differentiable:
        special = torch.tensor(SPECIAL_VALUES, dtype=torch.float64).to(device=device, dtype=dtype)
        cases.append(("special-values", special))
    for name, x in cases:
        yield Sample(x.detach().requires_grad_(requires_grad), name)


@dataclass(frozen=True)
class Activation:
    """One member of the ELU family: ours and PyTorch's, called alike as fn(x, inplace=False)."""

    name: str
    ours: object
    reference: object
    has_inplace_grad: bool = True  # in place with autograd needs alpha >= 0, as for F.elu

    def __repr__(self) -> str:
        return self.name


def _family():
    import torch.nn.functional as F

    import torch_uaccel

    def elu(alpha):
        return Activation(f"elu({alpha})", lambda x, inplace=False: torch_uaccel.elu(x, alpha, inplace),
                          lambda x, inplace=False: F.elu(x, alpha, inplace), has_inplace_grad=alpha >= 0)

    def celu(alpha):
        return Activation(f"celu({alpha})", lambda x, inplace=False: torch_uaccel.celu(x, alpha, inplace),
                          lambda x, inplace=False: F.celu(x, alpha, inplace))

    return [elu(0.1), elu(1.0), elu(-0.5), Activation("selu", torch_uaccel.selu, F.selu), celu(0.7), celu(2.0)]


FAMILY = _family()
