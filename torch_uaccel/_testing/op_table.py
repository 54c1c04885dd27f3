"""The table of this library's differentiable elementwise ops: an OpInfo of our own (PyTorch's, in
torch.testing._internal, is internal and shaped for ATen's ops).

A row says what the op is (ours and ATen's reference), what to feed it (samples over dtypes, shapes
and strides), how close it must come, which autograd it supports, which inputs it must refuse and
how, and what to time it against (the roof: an op moving the same bytes with trivial math). The
generic tests (tests/test_op_table.py), `python -m torch_uaccel` and benchmarks/bench_ops.py iterate
OPS, so a new elementwise op is a row here, not a copy of ELU's tests.
"""

import dataclasses
import functools
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import torch
import torch.nn.functional as F

from .. import ops
from .._checks import FLOATING_DTYPES  # what the kernels take, as the library says (float16/bfloat16: math in float32)

NON_FLOATING = (
    torch.int32,
    torch.int64,
    torch.uint8,
    torch.bool,
    torch.complex64,
)  # refused, named as Python names them

# torch.testing.assert_close's defaults, spelled out so that `python -m torch_uaccel` holds ops to them too.
TOLERANCES = {
    torch.float16: {"rtol": 1e-3, "atol": 1e-5},
    torch.bfloat16: {"rtol": 1.6e-2, "atol": 1e-5},
    torch.float32: {"rtol": 1.3e-6, "atol": 1e-5},
    torch.float64: {"rtol": 1e-7, "atol": 1e-7},
}

ALPHAS = (1.0, 0.1, 0.0, -0.5, 2.5)  # the default (ATen's), the seed's, both edges of saving the output, beyond 1

# Values that break careless kernels: signed zeros, tiny values where exp(x)-1 cancels, subnormals,
# huge magnitudes, infinities and NaN.
SPECIAL_VALUES = [
    0.0,
    -0.0,
    1e-8,
    -1e-8,
    1e-30,
    -1e-30,
    1e-40,
    -1e-40,
    1e-3,
    -1e-3,
    30.0,
    -30.0,
    1e4,
    -1e4,
    float("inf"),
    float("-inf"),
    float("nan"),
]


def _check(condition: bool, message: str) -> None:
    """An assertion that `python -O` keeps: `python -m torch_uaccel` checks the same under -O."""
    if not condition:
        raise AssertionError(message)


@dataclass
class Sample:
    name: str
    inputs: tuple  # the op's tensor arguments, in order

    @property
    def x(self) -> torch.Tensor:
        return self.inputs[0]

    def __repr__(self) -> str:
        layouts = ", ".join(f"shape={tuple(t.shape)} stride={t.stride()}" for t in self.inputs)
        return f"Sample({self.name}, {layouts}, dtype={self.x.dtype})"


def off_the_kink(x: torch.Tensor) -> torch.Tensor:
    """x moved at least 0.1 away from 0, where the derivatives jump: finite differences across it
    would disagree with any analytic gradient."""
    x = x.sign() * (x.abs() + 0.1)
    x[x == 0] = 0.5
    return x


def _values(shape, *, device, dtype, differentiable, generator):
    """Random values of both signs; a fifth of them tiny, or all off the kink when `differentiable`."""
    x = torch.randn(shape, generator=generator, dtype=torch.float64) * 2
    if differentiable:
        x = off_the_kink(x)
    elif x.numel():
        x.view(-1)[::5] *= 1e-6
    return x.to(device=device, dtype=dtype)


def sample_inputs(device, dtype, requires_grad=False, *, differentiable=False, large=True, small=False):
    """Yield one-tensor Samples covering shapes (0-dim, empty, odd sizes, past the parallel grain) and
    layouts (contiguous, transposed, sliced with steps, channels_last, permuted+sliced, misaligned
    offset). `differentiable` keeps values finite and away from 0 (for gradcheck); `large=False` drops
    the sample that exceeds ATen's 32K-element parallel grain; `small=True` keeps every layout but
    with a few dozen elements each (gradcheck's cost grows with the square of the element count)."""
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
        yield Sample(name, (x.detach().requires_grad_(requires_grad),))


def _overlaps(t: torch.Tensor) -> bool:
    """Several elements share memory (a stride-0 dimension): gradcheck cannot perturb one alone."""
    return any(stride == 0 and size > 1 for stride, size in zip(t.stride(), t.shape, strict=True))


@dataclass(frozen=True)
class ErrorCase:
    """Inputs a row must refuse with `error` whose message matches `match`, leaving them as they were."""

    name: str
    inputs: tuple
    error: type
    match: str
    call: Callable | None = None  # called instead of the row's op (e.g. with other scalars)
    fake: bool = True  # the fake kernels refuse it too (not so for what needs real memory)


@dataclass(frozen=True, eq=False)
class OpInfo:
    """One op of the table; the generic tests, `python -m torch_uaccel` and the benchmarks read only this."""

    name: str  # test ids: no parentheses, which pytest -k would read as a call
    op: Callable  # ours: op(*inputs)
    reference: Callable  # ATen's, called alike: the values to match, and the time to beat
    overload: (
        str | None
    )  # the uaccel op `op` calls with (*inputs, *scalars, **keywords), for opcheck; None for a Python composite
    scalars: tuple = ()
    keywords: dict = field(default_factory=dict)
    # From one base tensor x, the op's inputs by variant name; the first ("") is the plain one, which is timed.
    inputs_from: Callable[[torch.Tensor], dict] = lambda x: {"": (x,)}
    dtypes: tuple = FLOATING_DTYPES
    tolerances: dict = field(default_factory=TOLERANCES.copy)
    grad_tolerances: dict | None = None  # for the gradients; None: `tolerances`
    # The gradients to match, where ATen's `reference` has none (its silu_backward is not differentiable): a
    # differentiable composite of the same function; None: `reference`.
    grad_reference: Callable | None = None
    # Gradients may be off by grad_slack * |grad_output| * eps more: they come from an output saved in the dtype.
    grad_slack: float = 0.0
    supports_grad: bool = True
    supports_gradgrad: bool = True
    inplace: bool = False  # writes into its first input and returns it
    inplace_variant: "OpInfo | None" = None  # the row of op(..., inplace=True)
    error_cases: Callable[[str], Iterable[ErrorCase]] = lambda device: ()
    roof: Callable | None = None  # same inputs, same bytes moved, trivial math: the fastest this op can be
    traffic: int = 2  # tensors of the input's size read or written
    # opcheck tests the schema, fake kernel, autograd registration and AOT dispatch, which scalars change only
    # through what autograd saves: a few rows per op cover them (and opcheck is the slowest check).
    opcheck: bool = True
    benchmark: bool = False  # timed by benchmarks/bench_ops.py and `python -m torch_uaccel`

    def __repr__(self) -> str:
        return self.name

    @property
    def custom_op(self) -> torch._ops.OpOverload:
        return getattr(torch.ops.uaccel, self.overload).default

    def bytes_per_element(self, dtype: torch.dtype) -> int:
        return self.traffic * dtype.itemsize

    def plain_inputs(self, x: torch.Tensor) -> tuple:
        return next(iter(self.inputs_from(x).values()))

    def sample_inputs(self, device, dtype, requires_grad=False, *, differentiable=False, large=True, small=False):
        """The shared samples (module-level `sample_inputs`) as this op's inputs; with `differentiable`,
        only inputs gradcheck can perturb (none with elements sharing memory, as a stride-0 grad has)."""
        for base in sample_inputs(device, dtype, differentiable=differentiable, large=large, small=small):
            for variant, made in self.inputs_from(base.x).items():
                if not (differentiable and any(map(_overlaps, made))):
                    inputs = tuple(t.detach().requires_grad_(requires_grad) for t in made)
                    yield Sample(f"{base.name} {variant}".strip(), inputs)

    def run(self, *inputs, reference=False, of_gradient=False):
        """Ours (or the reference; for gradients, the gradient reference) as a function of its inputs: an
        in-place row writes into a copy of its first input, so the caller's tensors stay as they were (and
        autograd never sees a leaf written)."""
        if self.inplace:
            inputs = (inputs[0].clone(), *inputs[1:])
        if not reference:
            return self.op(*inputs)
        return (self.grad_reference or self.reference if of_gradient else self.reference)(*inputs)

    def assert_matches_reference(self, inputs: tuple, msg: str = "") -> None:
        """Raises AssertionError unless `op(*inputs)` matches the reference evaluated in float64 and
        rounded once to the inputs' dtype, within `tolerances`; keeps ATen's layout and leaves its
        inputs as they were (in place: returns its input, one version on); and, where inputs require
        grad, gives the reference's vector-Jacobian product too (allowing `grad_slack`)."""
        dtype = inputs[0].dtype
        tolerance = self.tolerances[dtype]
        inputs64 = tuple(t.detach().to(torch.float64, copy=True).requires_grad_(t.requires_grad) for t in inputs)
        expected = self.run(*inputs64, reference=True)
        layout = None if self.inplace else self.reference(*(t.detach() for t in inputs)).stride()
        before, version = [t.detach().clone() for t in inputs], inputs[0]._version
        writes_input = self.inplace and not inputs[0].requires_grad  # into the sample's own layout
        out = self.op(*inputs) if writes_input else self.run(*inputs)
        if writes_input:
            _check(out is inputs[0], f"{msg}: in place, yet a new tensor")
            _check(out._version > version, f"{msg}: in place, yet no new version")
        elif not self.inplace:
            for t, b in zip(inputs, before, strict=True):
                torch.testing.assert_close(t, b, equal_nan=True, rtol=0, atol=0, msg=f"{msg}: an input was modified")
            _check(out.stride() == layout, f"{msg}: strides {out.stride()}, ATen's {layout}")
        _check(
            (out.dtype, out.device) == (dtype, inputs[0].device),
            f"{msg}: {out.dtype} on {out.device}, expected {dtype} on {inputs[0].device}",
        )
        torch.testing.assert_close(out, expected.to(dtype), equal_nan=True, **tolerance, msg=lambda m: f"{msg}: {m}")
        wrt = [i for i, t in enumerate(inputs) if t.requires_grad]
        if not (wrt and self.supports_grad):
            return
        grad = torch.randn(out.shape, generator=torch.Generator().manual_seed(1), dtype=torch.float64)
        grad = grad.to(out.device, dtype)
        ours = torch.autograd.grad(out, [inputs[i] for i in wrt], grad)
        if self.grad_reference is not None:
            expected = self.run(*inputs64, reference=True, of_gradient=True)
        theirs = torch.autograd.grad(expected, [inputs64[i] for i in wrt], grad.double())
        tolerance = (self.grad_tolerances or self.tolerances)[dtype]
        slack = self.grad_slack * torch.finfo(dtype).eps * grad.abs().max().item() if grad.numel() else 0.0
        for i, a, b in zip(wrt, ours, theirs, strict=True):
            torch.testing.assert_close(
                a,
                b.to(dtype),
                equal_nan=True,
                rtol=tolerance["rtol"],
                atol=tolerance["atol"] + slack,
                msg=lambda m, i=i: f"{msg}: gradient {i}: {m}",
            )


def _dtype_errors(op: str, arguments=("self",)):
    """Integer, bool and complex tensors for each argument: refused, naming the op and the dtype."""

    def cases(device):
        for position, name in enumerate(arguments):
            for dtype in NON_FLOATING:
                inputs = [torch.ones(4, device=device) for _ in arguments]
                inputs[position] = torch.ones(4, device=device, dtype=dtype)
                yield ErrorCase(
                    f"{name} {dtype}",
                    tuple(inputs),
                    RuntimeError,
                    rf"uaccel\.{op}: expected {name} to be a floating-point tensor .*but got {re.escape(str(dtype))}$",
                )

    return cases


def _inplace_errors(op: str, extra=lambda device: ()):
    """In place, as ATen's in-place ops refuse: non-floating dtypes, a leaf that requires grad, elements
    sharing memory; and what else the op refuses (`extra`)."""

    def cases(device):
        yield from _dtype_errors(op)(device)
        yield ErrorCase(
            "leaf",
            (torch.randn(4, device=device, requires_grad=True),),
            RuntimeError,
            "a leaf Variable that requires grad is being used in an in-place operation",
        )
        yield ErrorCase(
            "overlapping",
            (torch.randn(4, device=device).expand(3, 4),),
            RuntimeError,
            "more than one element of the written-to tensor refers to a single memory location",
            fake=False,
        )
        yield from extra(device)

    return cases


def _mixed_device_errors(op: str, device: str):
    """A two-input op's inputs, either one on the CPU and the other on `device`: the checks refuse them
    (not the device guard of the implementation the dispatcher picked)."""
    if device == "cpu":
        return
    for first, second in ((device, "cpu"), ("cpu", device)):
        a, b = torch.randn(4, 5, device=first), torch.randn(4, 5, device=second)
        yield ErrorCase(
            "devices", (a, b), RuntimeError, rf"uaccel\.{op}: .*same device, but got {a.device} and {b.device}"
        )


def _backward_errors(op: str, saved: str, extra=lambda device: ()):
    """A backward op's (grad_output, `saved`): non-floating, mismatched, on mixed devices; and `extra`."""

    def cases(device):
        yield from _dtype_errors(op, ("grad_output", saved))(device)
        g, x = torch.randn(4, 5, device=device), torch.randn(4, 5, device=device)
        prefix = rf"uaccel\.{op}: .*"
        yield ErrorCase("shape", (g, x[:, :4]), RuntimeError, prefix + r"same shape, but got \[4, 5\] and \[4, 4\]")
        yield ErrorCase(
            "dtype", (g, x.double()), RuntimeError, prefix + r"same dtype, but got torch.float32 and torch.float64"
        )
        yield from _mixed_device_errors(op, device)
        yield from extra(device)

    return cases


def _elu_inplace_autograd_errors(alpha):
    """Ours, as F.elu(inplace=True): autograd with alpha < 0, whose output does not determine the input."""

    def cases(device):
        if alpha < 0:
            pattern = rf"uaccel\.elu_: in place with autograd .* needs alpha >= 0.*got alpha={re.escape(str(alpha))}"
            yield ErrorCase(
                "autograd with alpha < 0",
                (torch.randn(4, device=device, requires_grad=True) * 1,),
                RuntimeError,
                pattern,
            )

    return cases


def _elu_backward_alpha_errors(is_result, scale, input_scale):
    """is_result=True with alpha < 0."""

    def cases(device):
        if is_result:
            g, x = torch.randn(4, 5, device=device), torch.randn(4, 5, device=device)
            yield ErrorCase(
                "alpha",
                (g, x),
                RuntimeError,
                r"uaccel\.elu_backward: is_result=True .*needs alpha >= 0.*got alpha=-0\.5",
                call=lambda g, s: torch.ops.uaccel.elu_backward(g, s, -0.5, True, scale, input_scale),
            )

    return cases


def _pointwise_rows(
    name, op, reference, overload, scalars=(), *, inplace_grad=True, inplace_errors=lambda device: (), **common
):
    """A pointwise function (ours and the reference take (x, inplace=False)) and its in-place variant
    (`inplace_grad`: whether it supports autograd; `inplace_errors`: what else it refuses). `common` goes
    to both rows, but `opcheck`, a pair (function's, in-place's), and `benchmark`, the function's only."""
    opcheck = common.pop("opcheck", (True, True))
    benchmark = common.pop("benchmark", False)
    inplace = OpInfo(
        re.sub(r"^(\w+)", r"\1_", name),
        functools.partial(op, inplace=True),
        functools.partial(reference, inplace=True),
        f"{overload}_",
        scalars,
        inplace=True,
        supports_grad=inplace_grad,
        supports_gradgrad=inplace_grad,
        error_cases=_inplace_errors(f"{overload}_", inplace_errors),
        roof=torch.relu_,
        opcheck=opcheck[1],
        **common,
    )
    row = OpInfo(
        name,
        op,
        reference,
        overload,
        scalars,
        inplace_variant=inplace,
        error_cases=_dtype_errors(overload),
        roof=torch.relu,
        opcheck=opcheck[0],
        benchmark=benchmark,
        **common,
    )
    return [row, inplace]


def _family_rows(name, op, reference, alpha, scale=1.0, input_scale=1.0, opcheck=(True, True)):
    """An ELU-family function and its in-place variant; `opcheck` for each."""
    return _pointwise_rows(
        name,
        op,
        reference,
        "elu",
        (alpha, scale, input_scale),
        inplace_grad=alpha >= 0,
        inplace_errors=_elu_inplace_autograd_errors(alpha),
        grad_slack=abs(alpha * scale * input_scale),
        opcheck=opcheck,
        benchmark=name == "elu:1.0",
    )


def _alpha_rows(name, op, reference, alpha, input_scale=1.0, opcheck=(True, True)):
    """An ELU-family function taking (x, alpha, inplace), as ELU and CELU do, at one alpha."""
    return _family_rows(
        f"{name}:{alpha}",
        lambda x, inplace=False: op(x, alpha, inplace),
        lambda x, inplace=False: reference(x, alpha, inplace),
        alpha,
        input_scale=input_scale,
        opcheck=opcheck,
    )


def _python_rows():
    """The Python entry points over uaccel.elu: ELUFunction (its own autograd.Function, saving the output
    when alpha >= 0) and the ELU module."""
    function = [
        OpInfo(
            f"ELUFunction:{alpha}",
            lambda x, alpha=alpha: ops.ELUFunction.apply(x, alpha),
            functools.partial(F.elu, alpha=alpha),
            None,
            grad_slack=abs(alpha),
            error_cases=_dtype_errors("elu"),
            roof=torch.relu,
        )
        for alpha in (0.3, 0.0, -0.5)
    ]
    module = [
        OpInfo(
            f"ELU:{alpha}",
            ops.ELU(alpha),
            torch.nn.ELU(alpha),
            None,
            grad_slack=abs(alpha),
            error_cases=_dtype_errors("elu"),
            roof=torch.relu,
        )
        for alpha in (1.0, -0.5)
    ]
    return function + module


def _backward_inputs(saved: torch.Tensor) -> dict:
    """A backward op's (grad_output, saved) variants: the grad dense in saved's layout, or one value
    expanded over its shape (stride 0)."""
    gen = torch.Generator(saved.device).manual_seed(saved.numel())
    random = torch.randn(saved.shape, generator=gen, device=saved.device, dtype=saved.dtype)
    dense = torch.empty_like(saved).copy_(random)
    expanded = torch.randn((), generator=gen, device=saved.device, dtype=saved.dtype).expand(saved.shape)
    return {"": (dense, saved), "expanded-grad": (expanded, saved)}


def _backward_op_row(name, op, reference, overload, scalars=(), **fields):
    """A backward op, (grad_output, saved) -> grad_input: its inputs from `_backward_inputs` unless
    `inputs_from` says otherwise, timed against torch.mul (three tensors moved). Its gradient (the
    forward's second order) is a few ops in the dtype: two roundings, not one."""
    fields = {
        "inputs_from": lambda x: _backward_inputs(x.detach()),
        "roof": torch.mul,
        "traffic": 3,
        "grad_tolerances": {dtype: dict(t, rtol=2 * t["rtol"]) for dtype, t in TOLERANCES.items()},
        **fields,
    }
    return OpInfo(name, op, reference, overload, scalars, **fields)


def _backward_row(label, alpha, is_result, scale=1.0, input_scale=1.0):
    """uaccel.elu_backward: saved is the forward output (is_result, only for alpha >= 0) or its input.
    With alpha = 0 the output is 0 wherever x <= 0: saved sits on the kink, where no gradient exists."""

    def inputs_from(x):
        """saved is the reference's output rounded once, or x."""
        x = x.detach()
        return _backward_inputs(
            torch.ops.aten.elu(x.double(), alpha, scale, input_scale).to(x.dtype) if is_result else x
        )

    return _backward_op_row(
        f"elu_backward:{label}:{'result' if is_result else 'input'}",
        lambda g, s: torch.ops.uaccel.elu_backward(g, s, alpha, is_result, scale, input_scale),
        lambda g, s: torch.ops.aten.elu_backward(g, alpha, scale, input_scale, is_result, s),
        "elu_backward",
        (alpha, is_result, scale, input_scale),
        inputs_from=inputs_from,
        error_cases=_backward_errors(
            "elu_backward", "saved", _elu_backward_alpha_errors(is_result, scale, input_scale)
        ),
        supports_grad=not (is_result and alpha == 0),
        opcheck=label == "1.0",
        benchmark=label == "1.0",
    )


def _backward_rows():
    rows = [
        _backward_row(str(alpha), alpha, is_result)
        for alpha in ALPHAS
        for is_result in (True, False)
        if alpha >= 0 or not is_result
    ]
    for label, alpha, scale, input_scale in (
        ("selu", ops.SELU_ALPHA, ops.SELU_SCALE, 1.0),
        ("celu:0.7", 0.7, 1.0, 1 / 0.7),
    ):
        rows += [_backward_row(label, alpha, is_result, scale, input_scale) for is_result in (True, False)]
    return rows


def _silu_second_order(g, x):
    """silu_backward as differentiable ops (ATen's silu_backward has no derivative of its own)."""
    s = torch.sigmoid(x)
    return g * s * (1 + x * (1 - s))


def _silu_rows():
    return [
        *_pointwise_rows("silu", ops.silu, F.silu, "silu", benchmark=True),
        OpInfo("SiLU", ops.SiLU(), torch.nn.SiLU(), None, error_cases=_dtype_errors("silu"), roof=torch.relu),
        _backward_op_row(
            "silu_backward",
            torch.ops.uaccel.silu_backward,
            torch.ops.aten.silu_backward,
            "silu_backward",
            grad_reference=_silu_second_order,
            error_cases=_backward_errors("silu_backward", "self"),
            benchmark=True,
        ),
    ]


def _approximate_errors(name: str, inputs: int = 1, also=lambda device: ()):
    """An unknown `approximate` (and what `also` yields): refused, naming the op and the accepted values."""

    def cases(device):
        yield from also(device)
        op = getattr(torch.ops.uaccel, name)
        yield ErrorCase(
            "approximate='fast'",
            tuple(torch.randn(4, device=device) for _ in range(inputs)),
            RuntimeError,
            rf"uaccel\.{name}: expected approximate to be one of 'none' or 'tanh', but got 'fast'",
            call=lambda *tensors: op(*tensors, approximate="fast"),
        )

    return cases


def _gelu_rows():
    """Each approximation: the function and the in-place op (F.gelu has no in-place form), the module and
    the backward op."""
    rows = []
    for approximate in ("none", "tanh"):
        keywords = {"approximate": approximate}

        def op(x, inplace=False, keywords=keywords):
            if inplace:
                torch.ops.uaccel.gelu_(x, **keywords)
                return x
            return ops.gelu(x, **keywords)

        def reference(x, inplace=False, keywords=keywords):
            return x.copy_(F.gelu(x.clone(), **keywords)) if inplace else F.gelu(x, **keywords)

        forward, inplace = _pointwise_rows(
            f"gelu:{approximate}",
            op,
            reference,
            "gelu",
            keywords=keywords,
            inplace_errors=_approximate_errors("gelu_"),
            benchmark=True,
        )
        rows += [
            dataclasses.replace(forward, error_cases=_approximate_errors("gelu", also=forward.error_cases)),
            inplace,
            OpInfo(
                f"GELU:{approximate}",
                ops.GELU(approximate),
                torch.nn.GELU(approximate),
                None,
                error_cases=_dtype_errors("gelu"),
                roof=torch.relu,
            ),
            _backward_op_row(
                f"gelu_backward:{approximate}",
                lambda g, x, keywords=keywords: torch.ops.uaccel.gelu_backward(g, x, **keywords),
                lambda g, x, keywords=keywords: torch.ops.aten.gelu_backward(g, x, **keywords),
                "gelu_backward",
                keywords=keywords,
                error_cases=_backward_errors("gelu_backward", "self", _approximate_errors("gelu_backward", 2)),
                benchmark=True,
            ),
        ]
    return rows


def _gated_inputs(gate: torch.Tensor) -> dict:
    """(gate, up) variants: up dense in gate's layout, and up one row broadcast over gate's leading
    dimensions (as a bias-free MLP never has it, but `*` allows)."""
    gen = torch.Generator(gate.device).manual_seed(gate.numel())
    up = torch.empty_like(gate).copy_(torch.randn(gate.shape, generator=gen, device=gate.device, dtype=gate.dtype))
    variants = {"": (gate, up)}
    if gate.dim() >= 2 and gate.numel():
        variants["broadcast-up"] = (gate, up[(0,) * (gate.dim() - 1)].clone())
    return variants


def _broadcast_errors(op: str, also=lambda device: ()):
    """Inputs that do not broadcast, and those of each dtype a gated op refuses (and what `also` yields)."""

    def cases(device):
        yield from _dtype_errors(op, ("gate", "up"))(device)
        yield ErrorCase(
            "shapes",
            (torch.randn(4, 5, device=device), torch.randn(4, 3, device=device)),
            RuntimeError,
            rf"uaccel\.{op}: expected gate and up to broadcast to one shape, but got \[4, 5\] and \[4, 3\]",
        )
        yield from _mixed_device_errors(op, device)
        yield from also(device)

    return cases


def _gated_rows():
    """SwiGLU's and GeGLU's gating, f(gate) * up, against the unfused chain; the backward ops have no
    rows (two outputs): their values and gradients are what the rows' gradients and gradgradcheck check."""

    def row(name, op, reference, overload, keywords=None, errors=lambda device: ()):
        return OpInfo(
            name,
            op,
            reference,
            overload,
            keywords=keywords or {},
            inputs_from=_gated_inputs,
            # A broadcast input's gradient sums products each rounded to the dtype (as the unfused
            # chain's does): a few roundings more than the elementwise ones in half types.
            grad_tolerances={dtype: dict(t, rtol=4 * t["rtol"]) for dtype, t in TOLERANCES.items()},
            error_cases=_broadcast_errors(overload, errors),
            roof=torch.mul,
            traffic=3,
            benchmark=True,
        )

    rows = [row("silu_mul", ops.silu_mul, lambda gate, up: F.silu(gate) * up, "silu_mul")]
    for approximate in ("none", "tanh"):
        keywords = {"approximate": approximate}
        rows.append(
            row(
                f"gelu_mul:{approximate}",
                lambda gate, up, keywords=keywords: ops.gelu_mul(gate, up, **keywords),
                lambda gate, up, keywords=keywords: F.gelu(gate, **keywords) * up,
                "gelu_mul",
                keywords,
                _approximate_errors("gelu_mul", 2),
            )
        )
    return rows


OPS = (
    [row for a in ALPHAS for row in _alpha_rows("elu", ops.elu, F.elu, a, opcheck=(a in (1.0, -0.5), a == 1.0))]
    + _family_rows("selu", ops.selu, F.selu, ops.SELU_ALPHA, ops.SELU_SCALE, opcheck=(True, False))
    + [row for a in (0.7, 2.0) for row in _alpha_rows("celu", ops.celu, F.celu, a, 1 / a, (a == 0.7, a == 0.7))]
    + _python_rows()
    + _backward_rows()
    + _silu_rows()
    + _gelu_rows()
    + _gated_rows()
)

# The functions with in-place variants (the ELU family, SiLU), for tests that call them as fn(x, inplace=False).
FAMILY = [row for row in OPS if row.inplace_variant is not None]
