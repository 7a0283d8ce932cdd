"""Prop checks shared by the trainops L2 constructs.

Every check raises ``ValueError`` at once with a message that quotes the construct, the prop and
the value, e.g. ``PyTorchJob gpus_per_node=1.5: must be a whole number`` (STYLE.md habit 11). :func:`renamed_props`
keeps a renamed prop working for one release as a deprecated alias.
"""

from __future__ import annotations

import functools
import re
import warnings
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from typing import Any, ParamSpec, TypeVar

from trainops.credentials import literal_problem
from trainops.naming import label_value_problem, qualified_name_problem
from trainops.quantity import Quantity, QuantityError, parse_quantity

# Docker reference grammar (distribution/reference): [host[:port]/]path[:tag][@digest].
_IMAGE_HOST = re.compile(r"^(?:localhost|[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+|[A-Za-z0-9-]+)(?::[0-9]+)?$")
_IMAGE_PATH_COMPONENT = re.compile(r"^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$")
_IMAGE_TAG = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$")
_IMAGE_DIGEST = re.compile(r"^[a-z0-9]+(?:[+._-][a-z0-9]+)*:[0-9a-fA-F]{32,}$")
# Prometheus duration as the prometheus-operator CRDs spell it (monitoring.coreos.com/v1 Duration).
_DURATION = re.compile(r"^(?:(\d+)y)?(?:(\d+)w)?(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?(?:(\d+)ms)?$")
_DURATION_MS = (365 * 86_400_000, 7 * 86_400_000, 86_400_000, 3_600_000, 60_000, 1000, 1)
# Kubernetes env var names: any printable ASCII except '=' (core/v1 validation since 1.34 relaxed
# the C identifier rule); trainops keeps the portable form that shells and Python accept.
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]*$")

_P = ParamSpec("_P")
_R = TypeVar("_R")


def renamed_props(construct: str, **renames: str) -> Callable[[Callable[_P, _R]], Callable[_P, _R]]:
    """Decorate a construct's ``__init__`` so that old keyword props still work for one release.

    Args:
        construct: the construct's kind, for messages (``"PyTorchJob"``).
        renames: old prop name → new prop name, e.g. ``gpus_per_replica="gpus_per_node"``.

    A call with an old name emits a ``DeprecationWarning`` naming the new one and passes the value
    on under the new name.

    Raises:
        TypeError: both the old and the new name are given (``PyTorchJob gpus_per_replica=4: renamed
            to gpus_per_node, which is also given``).
    """

    def decorate(init: Callable[_P, _R]) -> Callable[_P, _R]:
        @functools.wraps(init)
        def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> _R:
            for old, new in renames.items():
                if old not in kwargs:
                    continue
                if new in kwargs:
                    raise TypeError(
                        f"{construct} {old}={kwargs[old]!r}: renamed to {new}, which is also given"
                    )
                warnings.warn(
                    f"{construct} {old}= is deprecated and will be removed in trainops 0.3: use {new}=",
                    DeprecationWarning,
                    stacklevel=2,
                )
                kwargs[new] = kwargs.pop(old)
            return init(*args, **kwargs)

        return wrapper

    return decorate


def require_whole(construct: str, prop: str, value: object, *, minimum: int = 0) -> int:
    """Return ``value`` as an int, checking that it is a whole number of at least ``minimum``.

    Integral floats (``4.0``) are accepted; booleans and strings are not.

    Raises:
        ValueError: e.g. ``PyTorchJob gpus_per_node=1.5: must be a whole number``.
    """
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{construct} {prop}={value!r}: must be a whole number")
    if isinstance(value, float) and not value.is_integer():
        raise ValueError(f"{construct} {prop}={value!r}: must be a whole number")
    number = int(value)
    if number < minimum:
        raise ValueError(f"{construct} {prop}={value!r}: must be at least {minimum}")
    return number


def require_quantity(construct: str, prop: str, value: str, *, whole_bytes: bool = False) -> Quantity:
    """Parse a positive Kubernetes quantity prop (cpu in cores, memory/storage in bytes).

    Args:
        construct: construct class name for the message.
        prop: prop name for the message.
        value: e.g. ``"500m"``, ``"4"``, ``"64Gi"``.
        whole_bytes: also require a whole number (memory and storage are whole bytes).

    Raises:
        ValueError: not a quantity, zero or negative, or not whole when ``whole_bytes``.
    """
    try:
        quantity = parse_quantity(value)
    except QuantityError as exc:
        raise ValueError(f"{construct} {prop}={value!r}: {exc}") from None
    if quantity.value <= 0:
        raise ValueError(f"{construct} {prop}={value!r}: must be greater than zero")
    if whole_bytes and quantity.value.denominator != 1:
        raise ValueError(f"{construct} {prop}={value!r}: must be a whole number of bytes")
    return quantity


def half_quantity(quantity: Quantity) -> Quantity:
    """Half of a byte quantity, rounded down to whole bytes, in the same suffix family."""
    return Quantity(Fraction(quantity.value.numerator // (2 * quantity.value.denominator)), quantity.format)


def require_image(construct: str, prop: str, value: str) -> str:
    """Check a container image reference: a tag or a digest, and never the tag ``latest``.

    Args:
        value: e.g. ``registry.example.com/ml/train:2.2.0-cuda12.1`` or ``repo/img@sha256:<hex>``.

    Raises:
        ValueError: not an image reference, no tag or digest, or the tag ``latest``.
    """
    if not isinstance(value, str) or not _valid_image(value):
        raise ValueError(f"{construct} {prop}={value!r}: not a container image reference")
    name, _, digest = value.partition("@")
    last = name.rsplit("/", 1)[-1]
    tag = last.partition(":")[2] if ":" in last else None
    if tag is None and not digest:
        raise ValueError(f"{construct} {prop}={value!r}: must be pinned with a tag or a digest")
    if tag == "latest":
        raise ValueError(f"{construct} {prop}={value!r}: the tag 'latest' is not pinned")
    return value


def _valid_image(value: str) -> bool:
    name, at, digest = value.partition("@")
    if at and not _IMAGE_DIGEST.match(digest):
        return False
    components = name.split("/")
    last, colon, tag = components[-1].partition(":")
    if colon and not _IMAGE_TAG.match(tag):
        return False
    components[-1] = last
    first = components[0]
    is_host = len(components) > 1 and ("." in first or ":" in first or first == "localhost")
    if is_host and not _IMAGE_HOST.match(first):
        return False
    path = components[1:] if is_host else components
    return all(_IMAGE_PATH_COMPONENT.match(c) for c in path)


def duration_ms(construct: str, prop: str, value: str) -> int:
    """Parse a positive Prometheus duration such as ``30s``, ``1m30s`` or ``500ms``.

    Source: https://prometheus.io/docs/prometheus/latest/configuration/configuration/#duration

    Returns:
        The duration in milliseconds.

    Raises:
        ValueError: not a duration, or zero.
    """
    match = _DURATION.match(value) if isinstance(value, str) and value else None
    if match is None:
        raise ValueError(f"{construct} {prop}={value!r}: not a Prometheus duration (e.g. '30s', '1m30s')")
    total = sum(int(part) * unit for part, unit in zip(match.groups(), _DURATION_MS, strict=True) if part)
    if total == 0:
        raise ValueError(f"{construct} {prop}={value!r}: must be greater than zero")
    return total


def require_labels(construct: str, prop: str, labels: Mapping[str, str]) -> dict[str, str]:
    """Check Kubernetes label keys and values and return them as a plain dict.

    Keys are ``[prefix/]name`` with a DNS-1123 subdomain prefix (at most 253 characters) and a name of
    at most 63 characters; values are empty or at most 63 characters of alphanumerics, '-', '_', '.'.
    Source: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#syntax-and-character-set

    Raises:
        ValueError: quoting the offending key or value.
    """
    out: dict[str, str] = {}
    for key, value in labels.items():
        if not isinstance(key, str) or qualified_name_problem(key):
            raise ValueError(f"{construct} {prop}: label key {key!r} is not a valid label key")
        if not isinstance(value, str) or label_value_problem(value):
            raise ValueError(f"{construct} {prop}: label {key}={value!r} is not a valid label value")
        out[key] = value
    return out


def require_env(construct: str, prop: str, env: Mapping[str, str]) -> dict[str, str]:
    """Check environment variable names (letters, digits, '_', '.', '-', not starting with a digit)
    and that every value is a string and no literal credential (:func:`trainops.credentials.literal_problem`:
    detect-secrets patterns, or a password/secret/token/key by its name); return a plain dict in the order given.

    Raises:
        ValueError: quoting the offending name or value (never a credential's value).
    """
    out: dict[str, str] = {}
    for name, value in env.items():
        if not isinstance(name, str) or not _ENV_NAME.match(name):
            raise ValueError(f"{construct} {prop}: {name!r} is not a valid environment variable name")
        if not isinstance(value, str):
            raise ValueError(f"{construct} {prop}: {name}={value!r} must be a string")
        if (secret := literal_problem(name, value)) is not None:  # never quotes the value
            raise ValueError(f"{construct} {prop}: {secret}; reference a Secret (secretKeyRef) instead")
        out[name] = value
    return out


def require_path(construct: str, prop: str, value: str) -> str:
    """Check an absolute path in a container (mount paths, HTTP paths).

    Raises:
        ValueError: not a string starting with '/', or containing whitespace or '..' segments.
    """
    if (
        not isinstance(value, str)
        or not value.startswith("/")
        or any(c.isspace() for c in value)
        or ".." in value.split("/")
    ):
        raise ValueError(f"{construct} {prop}={value!r}: must be an absolute path without '..' or spaces")
    return value


def plain(value: Any) -> Any:
    """Deep-copy a JSON-like value into plain dicts and lists (props may be any Mapping/Sequence)."""
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return value


def require_strings(construct: str, prop: str, value: Sequence[str] | None) -> tuple[str, ...] | None:
    """Check that ``value`` is ``None`` or a sequence of strings (not one string) and return a tuple.

    Raises:
        ValueError: quoting the construct, prop and value.
    """
    if value is None:
        return None
    if isinstance(value, str) or not all(isinstance(item, str) for item in value):
        raise ValueError(f"{construct} {prop}={value!r}: must be a sequence of strings")
    return tuple(value)


def shm_size(construct: str, value: str | None, memory: Quantity, *, needed: bool) -> Quantity | None:
    """The ``/dev/shm`` emptyDir size: ``value`` when given (at most ``memory``), else half of
    ``memory`` when ``needed`` (several GPUs or pods: NCCL and DataLoader workers share memory through
    it; the container runtime's default is 64 MiB), else ``None``.

    Raises:
        ValueError: ``value`` is not a byte quantity or exceeds ``memory`` (memory-backed emptyDir pages
            count against the memory limit).
    """
    if value is None:
        return half_quantity(memory) if needed else None
    size = require_quantity(construct, "shm_size", value, whole_bytes=True)
    if size.value > memory.value:
        raise ValueError(
            f"{construct} shm_size={value!r}: must not exceed memory={memory.canonical()!r} "
            "(memory-backed emptyDir counts against the memory limit)"
        )
    return size
