"""The shared argument checks as the fake kernels run them: the conditions and the wording of the
C++ checks (uaccel/detail/checks.h), whose message templates and facts come from the library itself
(uaccel::_shared_facts, and each library of pointwise ops' <namespace>::_pointwise_facts), so they are
written once."""

import functools

import torch

_FACTS = dict(zip(*torch.ops.uaccel._shared_facts(), strict=True))


@functools.cache
def library_facts(namespace: str) -> dict[str, str]:
    """A library of pointwise ops' facts: its framework version ("api_version"), its ops' str choices
    ("choices.<op>.<parameter>") and message templates ("message.<op>.<key>")."""
    return dict(zip(*getattr(torch.ops, namespace)._pointwise_facts(), strict=True))


FLOATING_DTYPES = tuple(getattr(torch, name.removeprefix("torch.")) for name in _FACTS["floating_dtypes"].split())
MAX_ALIGNMENT = int(_FACTS["max_alignment"])
MEMORY_STATS_FIELDS = tuple(_FACTS["memory_stats_fields"].split())


def message(key: str, namespace: str = "uaccel", **fields) -> str:
    """An op's own message template (its header's kMessages, as "message.<op>.<key>"), filled in."""
    return library_facts(namespace)[f"message.{key}"].format(**fields)


def floating(op: str, name: str, t: torch.Tensor) -> None:
    torch._check(t.dtype in FLOATING_DTYPES, lambda: _FACTS["message.floating"].format(op=op, name=name, got=t.dtype))


def _same(op: str, what: str, a_name: str, a_value, b_name: str, b_value) -> None:
    torch._check(
        a_value == b_value,
        lambda: _FACTS["message.same"].format(op=op, what=what, a=a_name, b=b_name, a_value=a_value, b_value=b_value),
    )


def same_dtype(op: str, a_name: str, a: torch.Tensor, b_name: str, b: torch.Tensor) -> None:
    _same(op, "dtype", a_name, a.dtype, b_name, b.dtype)


def same_shape(op: str, a_name: str, a: torch.Tensor, b_name: str, b: torch.Tensor) -> None:
    _same(op, "shape", a_name, list(a.shape), b_name, list(b.shape))


def same_device(op: str, a_name: str, a: torch.Tensor, b_name: str, b: torch.Tensor) -> None:
    _same(op, "device", a_name, a.device, b_name, b.device)


def choices(namespace: str, op: str, parameter: str) -> tuple[str, ...] | None:
    """The accepted values of a str parameter of op ("gelu", "gelu_backward"), as its header lists them."""
    values = library_facts(namespace).get(f"choices.{op}.{parameter}")
    return None if values is None else tuple(values.split())


def choice(op: str, name: str, accepted: tuple[str, ...], value: str) -> None:
    if value not in accepted:
        quoted = [f"'{v}'" for v in accepted]
        listed = quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " or " + quoted[-1]
        raise RuntimeError(_FACTS["message.choice"].format(op=op, name=name, accepted=listed, got=value))


def broadcastable(op: str, a_name: str, a: torch.Tensor, b_name: str, b: torch.Tensor) -> None:
    for m, n in zip(reversed(a.shape), reversed(b.shape), strict=False):
        torch._check(
            m == n or m == 1 or n == 1,
            lambda: _FACTS["message.broadcast"].format(
                op=op, a=a_name, b=b_name, a_value=list(a.shape), b_value=list(b.shape)
            ),
        )


def alignment(op: str, value: int) -> None:
    torch._check(
        1 <= value <= MAX_ALIGNMENT and value & (value - 1) == 0,
        lambda: _FACTS["message.alignment"].format(op=op, got=value),
    )


def trailing_shape(op: str, name: str, t: torch.Tensor, shape: list[int]) -> None:
    k = len(shape)
    torch._check(
        k >= 1 and t.dim() >= k and list(t.shape[t.dim() - k :]) == list(shape),
        lambda: _FACTS["message.trailing"].format(op=op, name=name, shape=list(shape), got=list(t.shape)),
    )


def normalized_shape(op: str, name: str, t: torch.Tensor, shape: list[int]) -> None:
    torch._check(
        list(t.shape) == list(shape),
        lambda: _FACTS["message.normalized_shape"].format(op=op, name=name, shape=list(shape), got=list(t.shape)),
    )
