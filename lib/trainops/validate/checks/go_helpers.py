"""Small helpers shared by the API-server check modules (rule ``api-server``): issue building, the
field validators of k8s.io/apimachinery ``pkg/api/validation`` and ``pkg/util/validation``
(``ValidateNonnegativeField``, ``IsValidPercent``, ``IsValidIP``, ``IsValidCIDR``, ``IsConfigMapKey``),
and :func:`family`, which declares a module's checks and the kinds they apply to.

Messages follow the family's style: what, where, the actual value and the limit.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable, Collection, Iterable
from functools import lru_cache
from typing import Any, Final, TypeGuard

from trainops.core.findings import Issue
from trainops.core.kinds import KindGroup, Parts
from trainops.core.naming import quoted
from trainops.validate.checks import api_server
from trainops.validate.checks.api_server import RULE
from trainops.validate.context import DocumentContext, Family

#: ``math.MaxInt32``: the upper bound of ``IsValidUserID``/``IsValidGroupID`` and int32 fields.
MAX_INT32: Final = 2**31 - 1
_PERCENT = r"[0-9]+%"
_CONFIG_KEY = r"[-._a-zA-Z0-9]+"
#: The whole of ``IsConfigMapKey`` in one pattern: the fast path for valid keys.
_CONFIG_KEY_OK = r"(?!\.\.)(?!\.\Z)[-._a-zA-Z0-9]{1,253}"
#: ``validation.IsConfigMapKey``: at most ``DNS1123SubdomainMaxLength`` characters.
CONFIG_KEY_MAX: Final = 253


def issue(parts: Parts, message: str, keyword: str) -> Issue:
    """An ``api-server`` error at ``parts``."""
    return Issue(parts, message, RULE.id, keyword)


def is_int(value: Any) -> TypeGuard[int]:
    """An integer that is not a bool (YAML ``true`` loads as ``True``; ``type(True)`` is ``bool``)."""
    return type(value) is int


def placeholder(value: Any, templated: bool) -> bool:
    """A Katib ``${trialParameters.x}`` placeholder inside a trial template (substituted per trial)."""
    return templated and isinstance(value, str) and "${" in value


def show(value: Any) -> str:
    """A value as the messages show it: strings quoted, others as they are."""
    return quoted(value) if isinstance(value, str) else str(value)


def choices(allowed: Iterable[str]) -> str:
    """``"A", "B", "C"`` (sorted, as the API server lists supported values)."""
    return ", ".join(f'"{a}"' for a in sorted(allowed))


def off(node: dict[str, Any], name: str, allowed: Collection[str]) -> bool:
    """Whether ``node[name]`` is a string outside ``allowed`` (the fast test before :func:`enum`)."""
    value = node.get(name)
    return isinstance(value, str) and value not in allowed


def enum(
    node: dict[str, Any],
    name: str,
    allowed: Collection[str],
    parts: Parts,
    what: str,
    keyword: str,
    templated: bool = False,
) -> tuple[Issue, ...]:
    """``field.NotSupported``: ``node[name]``, when a string, is one of ``allowed``. Returns a tuple
    (callers ``yield from`` it: cheaper than a generator on the hot path)."""
    value = node.get(name)
    if isinstance(value, str) and value not in allowed and not placeholder(value, templated):
        return (issue((*parts, name), f"{what} {show(value)} is not one of {choices(allowed)}", keyword),)
    return ()


def at_least(
    node: dict[str, Any], name: str, low: int, parts: Parts, what: str, keyword: str
) -> tuple[Issue, ...]:
    """``ValidateNonnegativeField`` (``low`` 0) and its "must be greater than zero" variants: an
    integer ``node[name]`` is at least ``low``."""
    value = node.get(name)
    if type(value) is int and value < low:
        limit = "not be negative" if low == 0 else f"be at least {low}"
        return (issue((*parts, name), f"{what} is {value}; it must {limit}", keyword),)
    return ()


def int_or_percent_problem(value: Any) -> str | None:
    """``ValidatePositiveIntOrPercent`` + ``IsNotMoreThan100Percent`` (apps/policy validation): why an
    IntOrString is not a non-negative integer or a ``<digits>%`` of at most 100, or ``None``."""
    if is_int(value):
        return "is negative" if value < 0 else None
    if isinstance(value, str):
        if re.fullmatch(_PERCENT, value) is None:
            return "is neither an integer nor a percentage like '25%' (regex [0-9]+%)"
        if int(value[:-1]) > 100:
            return "is more than 100%"
    return None


def percent_value(value: Any) -> int | None:
    """The integer part of a valid percentage string, else ``None``."""
    if isinstance(value, str) and re.fullmatch(_PERCENT, value):
        return int(value[:-1])
    return None


@lru_cache(maxsize=1024)
def ip_problem(value: str) -> str | None:
    """``IsValidIP`` (strict since 1.33: no leading zeros in IPv4, no IPv4-mapped IPv6 zones): why
    ``value`` is not an IP address, or ``None``."""
    try:
        ipaddress.ip_address(value)
    except ValueError:
        return "is not a valid IP address (e.g. 10.9.8.7 or 2001:db8::ffff)"
    return None


@lru_cache(maxsize=1024)
def cidr_problem(value: str) -> str | None:
    """``IsValidCIDR``: why ``value`` is not a CIDR (``10.9.8.0/24``, ``2001:db8::/64``), or ``None``.
    Host bits may be set (Go ``netip.ParsePrefix`` keeps them)."""
    if "/" not in value:
        return "is not a valid CIDR (e.g. 10.9.8.0/24 or 2001:db8::/64)"
    try:
        ipaddress.ip_network(value, strict=False)
    except ValueError:
        return "is not a valid CIDR (e.g. 10.9.8.0/24 or 2001:db8::/64)"
    return None


def config_key_problem(key: str) -> str | None:
    """``IsConfigMapKey`` (apimachinery ``pkg/util/validation``): why ``key`` is not a ConfigMap or
    Secret key, or ``None``."""
    if re.fullmatch(_CONFIG_KEY_OK, key):
        return None
    if len(key) > CONFIG_KEY_MAX:
        return f"has {len(key)} characters, more than {CONFIG_KEY_MAX}"
    if re.fullmatch(_CONFIG_KEY, key) is None:
        return "may contain only alphanumerics, '-', '_' and '.' (regex [-._a-zA-Z0-9]+)"
    if key in (".", ".."):
        return "may not be '.' or '..'"
    if key.startswith(".."):
        return "may not start with '..'"
    return None


def local_path_problem(path: str, *, reserved: bool = False) -> str | None:
    """Why ``path`` is not a relative path below its mount point, or ``None``:
    ``validateLocalDescendingPath`` (not absolute, no ``..`` element) and, with ``reserved``,
    ``ValidateLocalNonReservedPath`` (nor starting with ``..``), k8s.io/kubernetes
    ``pkg/apis/core/validation/validation.go`` (v1.36)."""
    if path.startswith("/"):
        return "must be a relative path"
    if ".." in path.split("/"):
        return "must not contain '..'"
    if reserved and path.startswith(".."):
        return "must not start with '..'"
    return None


def container_label(container: dict[str, Any], templated: bool) -> str:
    """``container "<name>"`` as messages name a container (``container`` when it has no usable
    name, or a Katib ``${...}`` placeholder)."""
    name = container.get("name")
    return (
        f"container {show(name)}"
        if isinstance(name, str) and not placeholder(name, templated)
        else "container"
    )


def label_selector(selector: Any, parts: Parts, issues: list[Issue]) -> None:
    """``ValidateLabelSelector`` (strict) of a ``{matchLabels, matchExpressions}`` mapping at ``parts``:
    the api-server family's own selector check (keyword ``label-selector``), appending to ``issues``."""
    if isinstance(selector, dict):
        api_server._check_label_selector(selector, parts, issues, False)


def get(node: Any, *path: str) -> Any:
    """``node[path[0]][path[1]]...``, or ``None`` where a step is missing or not a mapping."""
    for step in path:
        if not isinstance(node, dict):
            return None
        node = node.get(step)
    return node


def family(run: Callable[[DocumentContext], list[Issue]], kinds: Collection[str] | KindGroup) -> Family:
    """A :class:`~trainops.validate.context.Family` of rule ``api-server``: ``run`` on documents whose
    kind is in ``kinds``. The ``api-server`` check (:func:`.api_server.check_with`) tests the kinds
    first (most documents are of none of a family's kinds) and drops issues at paths the ``schema``
    family already rejected.

    Args:
        run: the family's checks of one document, returning its issues in document order.
        kinds: kind names, or a :class:`trainops.core.kinds.KindGroup` (``(group, kind)``, looked up in
            the kinds table at each document).
    """
    if isinstance(kinds, KindGroup):
        return Family(run, group=kinds)
    return Family(run, names=frozenset(kinds))
