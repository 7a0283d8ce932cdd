"""The Kubernetes CEL function library, implemented in Python for cel-expr-python.

Kubernetes compiles ``x-kubernetes-validations`` rules in an environment that adds its own function
libraries to standard CEL (``k8s.io/apiserver/pkg/cel/environment/base.go``). This module provides
the ones an offline validator can evaluate, as one :class:`cel.CelExtension` (:func:`library`), plus
the cel-cpp extensions Kubernetes also enables (:data:`ENV_CONFIG_YAML`):

=====================  =================================================================================
library                functions
=====================  =================================================================================
lists (``lists.go``)   ``<list>.isSorted()``, ``.sum()``, ``.min()``, ``.max()``, ``.indexOf(x)``,
                       ``.lastIndexOf(x)``
regex (``regex.go``)   ``<string>.find(re)``, ``.findAll(re)``, ``.findAll(re, limit)``
URLs (``urls.go``)     ``url(s)``, ``isURL(s)``, ``<URL>.getScheme()``, ``.getHost()``, ``.getHostname()``,
                       ``.getPort()``, ``.getEscapedPath()``, ``.getQuery()``
quantity               ``quantity(s)``, ``isQuantity(s)``, ``sign(q)`` / ``q.sign()``, ``.isGreaterThan(q)``,
(``quantity.go``)      ``.isLessThan(q)``, ``.compareTo(q)``, ``.asInteger()``, ``.isInteger()``,
                       ``.asApproximateFloat()``, ``.add(q|int)``, ``.sub(q|int)``, ``.mul(int)``
IP (``ip.go``)         ``ip(s)``, ``isIP(s)``, ``ip.isCanonical(s)``, ``<IP>.family()``, ``.isUnspecified()``,
                       ``.isLoopback()``, ``.isLinkLocalMulticast()``, ``.isLinkLocalUnicast()``,
                       ``.isGlobalUnicast()``, ``string(ip)``
CIDR (``cidr.go``)     ``cidr(s)``, ``isCIDR(s)``, ``<CIDR>.containsIP(ip|s)``, ``.containsCIDR(cidr|s)``,
                       ``.ip()``, ``.masked()``, ``.prefixLength()``, ``string(cidr)``
cel-cpp extensions     strings (version 2), optional types (``?.``, ``[?k]``, ``.orValue``), sets
                       (``sets.contains`` ...), two-variable comprehensions (``all(i, v, ...)`` ...)
=====================  =================================================================================

Sources: https://kubernetes.io/docs/reference/using-api/cel/ and
https://github.com/kubernetes/kubernetes/tree/master/staging/src/k8s.io/apiserver/pkg/cel/library
(semantics and error texts follow those files; quantities are parsed by
:func:`trainops.core.quantity.parse_quantity`, URLs by a port of Go's ``net/url`` parser, IP addresses
with the rules of Go's ``net/netip`` as Kubernetes applies them).

What cel-expr-python 0.1.3 allows, and how this module copes (found by experiment):

* Custom functions are declared with ``cel.FunctionDecl``/``cel.Overload`` and bundled in a
  ``cel.CelExtension``; the Python ``impl`` receives plain values (``int``, ``str``, ``list``,
  ``dict``, ``datetime`` ...) and an exception it raises becomes a CEL error value whose text is
  the exception message.
* There are no opaque types: ``cel.Type.AbstractType`` degrades to ``dyn`` and an impl may only
  return plain CEL values. Kubernetes' opaque values (Quantity, URL, IP, CIDR) are therefore
  one-key maps such as ``{"@kubernetes.Quantity": "3/2"}`` whose payload is normalised so that
  ``==`` keeps Kubernetes' meaning (``quantity('1') == quantity('1000m')``). ``type(q)`` is
  ``map`` here, not ``kubernetes.Quantity``.
* Overloads of one function must differ in the runtime *kind* of their arguments
  (``list(int)`` and ``list(string)`` collide), so the list functions take ``list(dyn)`` and
  return ``dyn``, and the opaque-typed members take ``map(string, string)`` and check the marker
  key at run time.
* An impl cannot return a ``timestamp`` or ``duration`` declared as ``dyn``, nor any optional
  value, and *receiving* an optional value crashes the interpreter (segfault). Hence ``sum``/
  ``min``/``max`` over durations or timestamps fail with an evaluation error, the format library
  (``format.named(...)``, ``<Format>.validate()``: both return optionals) is not provided, and
  parameters are typed as narrowly as possible so the type checker rejects optional arguments.
  What remains is a rule that hands a list *of* optionals to a list function, or an optional to
  ``indexOf``/``lastIndexOf`` (``[self.?a].isSorted()``): that crashes. Only a rule author can
  write it (manifest data never holds optionals), and no upstream CRD does.
* Checker options cannot be set: cross-type numeric comparisons (``1 < 1.5``), which Kubernetes
  enables, fail type checking; :mod:`trainops.cel.crd_rules` recompiles such rules unchecked, and the
  runtime compares mixed numbers correctly.

Not provided (a rule using them fails to compile and is reported as such): the format, semver,
image and authz libraries, ``quantity.div``/``divInt`` and ``lists.includes`` (too new to be used by
the CRDs we validate).
"""

from __future__ import annotations

import datetime
import functools
import ipaddress
import itertools
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from cel_expr_python import cel

from trainops.core.quantity import QuantityError, parse_quantity

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1

#: cel-cpp extensions that Kubernetes also enables (``ext.Strings(2)``, ``cel.OptionalTypes()``,
#: ``ext.Sets()``, ``ext.TwoVarComprehensions()``), as a cel-expr-python environment config.
ENV_CONFIG_YAML = """\
extensions:
  - name: "optional"
    version: 2
  - name: "strings"
    version: 2
  - name: "sets"
  - name: "two-var-comprehensions"
"""

QUANTITY = "@kubernetes.Quantity"
URL = "@kubernetes.URL"
IP = "@net.IP"
CIDR = "@net.CIDR"
_OPAQUE_NAMES = {QUANTITY: "Quantity", URL: "URL", IP: "IP", CIDR: "CIDR"}


class CelFunctionError(ValueError):
    """An error raised by a library function; cel-expr-python turns it into a CEL error value."""


# --------------------------------------------------------------------------------------- helpers


def _opaque(value: object, key: str, function: str) -> str:
    """Return the payload of an opaque value, or raise ``no such overload`` as CEL would."""
    if isinstance(value, dict) and len(value) == 1 and isinstance(value.get(key), str):
        payload: str = value[key]
        return payload
    raise CelFunctionError(
        f"no such overload: {function} applied to a value that is not a {_OPAQUE_NAMES[key]}"
    )


def _kind_of(value: object) -> str | None:
    if isinstance(value, dict) and len(value) == 1:
        (key,) = value
        if key in _OPAQUE_NAMES:
            return str(key)
    return None


def _check_int64(value: int) -> int:
    if not INT64_MIN <= value <= INT64_MAX:
        raise CelFunctionError("integer overflow")
    return value


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _comparable_class(value: object) -> str:
    if _is_number(value):
        return "number"
    for cls, name in (
        (bool, "bool"),
        (str, "string"),
        (bytes | bytearray, "bytes"),
        (datetime.datetime, "timestamp"),
        (datetime.timedelta, "duration"),
    ):
        if isinstance(value, cls):
            return name
    raise CelFunctionError(f"no such overload: {type(value).__name__} values are not comparable")


def _compare(left: Any, right: Any) -> int:
    """CEL ordering of two values of one comparable type (numbers compare across int/double)."""
    if _comparable_class(left) != _comparable_class(right):
        raise CelFunctionError("no such overload: cannot compare values of different types")
    return int(left > right) - int(left < right)


def _equal(left: object, right: object) -> bool:
    """CEL equality: numbers compare across int/double, bools never equal numbers."""
    if isinstance(left, bool) or isinstance(right, bool):
        return isinstance(left, bool) and isinstance(right, bool) and left == right
    if _is_number(left) and _is_number(right):
        return left == right
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(_equal(a, b) for a, b in zip(left, right, strict=True))
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(_equal(left[k], right[k]) for k in left)
    return type(left) is type(right) and left == right


# ----------------------------------------------------------------------------------------- lists


def list_is_sorted(items: list[Any]) -> bool:
    """``<list<T>>.isSorted()``: every element is <= the next one."""
    return all(_compare(a, b) <= 0 for a, b in itertools.pairwise(items))


def list_sum(items: list[Any]) -> int | float:
    """``<list<T>>.sum()``: the sum of ints or doubles; ``0`` for an empty list.

    Raises:
        CelFunctionError: non-numeric elements (durations included, see the module docstring) or
            an int64 overflow.
    """
    if not all(_is_number(item) for item in items):
        raise CelFunctionError("no such overload: sum() is implemented for lists of int and double")
    if any(isinstance(item, float) for item in items):
        return math.fsum(items)
    total = 0
    for item in items:
        total = _check_int64(total + item)
    return total


def _extreme(items: list[Any], name: str, prefer: int) -> Any:
    if not items:
        raise CelFunctionError(f"{name} called on empty list")
    result = items[0]
    for item in items[1:]:
        if _compare(result, item) == prefer:
            result = item
    return result


def list_min(items: list[Any]) -> Any:
    """``<list<T>>.min()``: the smallest element; an error for an empty list."""
    return _extreme(items, "min", 1)


def list_max(items: list[Any]) -> Any:
    """``<list<T>>.max()``: the largest element; an error for an empty list."""
    return _extreme(items, "max", -1)


def list_index_of(items: list[Any], item: Any) -> int:
    """``<list<T>>.indexOf(x)``: the first index of ``x``, or -1."""
    return next((i for i, candidate in enumerate(items) if _equal(candidate, item)), -1)


def list_last_index_of(items: list[Any], item: Any) -> int:
    """``<list<T>>.lastIndexOf(x)``: the last index of ``x``, or -1."""
    return next((i for i in range(len(items) - 1, -1, -1) if _equal(items[i], item)), -1)


# ----------------------------------------------------------------------------------------- regex


@functools.lru_cache(maxsize=256)
def _regex(pattern: str) -> re.Pattern[str]:
    # RE2 and Python's re agree on the common syntax; RE2's end-of-text \z is Python's \Z.
    try:
        return re.compile(re.sub(r"(?<!\\)((?:\\\\)*)\\z", r"\1\\Z", pattern))
    except re.error as err:
        raise CelFunctionError(f"Illegal regex: {err}") from None


def _find_all(text: str, pattern: str, limit: int) -> list[str]:
    # Go's regexp.FindAllString: successive non-overlapping matches; an empty match that abuts
    # the previous match is dropped.
    regex = _regex(pattern)
    out: list[str] = []
    pos, prev_end = 0, -1
    while pos <= len(text) and (limit < 0 or len(out) < limit):
        match = regex.search(text, pos)
        if match is None:
            break
        start, end = match.span()
        accept = True
        if end == start:
            accept = start != prev_end
            pos = end + 1
        else:
            pos = end
        prev_end = end
        if accept:
            out.append(match.group(0))
    return out


def string_find(text: str, pattern: str) -> str:
    """``<string>.find(re)``: the first match of ``re``, or ``''``."""
    match = _regex(pattern).search(text)
    return match.group(0) if match else ""


def string_find_all(text: str, pattern: str) -> list[str]:
    """``<string>.findAll(re)``: all non-overlapping matches."""
    return _find_all(text, pattern, -1)


def string_find_all_limit(text: str, pattern: str, limit: int) -> list[str]:
    """``<string>.findAll(re, n)``: at most ``n`` matches (all when ``n < 0``)."""
    return _find_all(text, pattern, limit)


# ------------------------------------------------------------------------------------------ URLs

_ENCODE_PATH, _ENCODE_HOST, _ENCODE_USER, _ENCODE_QUERY, _ENCODE_FRAGMENT = range(5)


def _should_escape(c: str, mode: int) -> bool:
    """Go's ``net/url.shouldEscape`` for one ASCII character."""
    if c.isascii() and c.isalnum():
        return False
    if mode == _ENCODE_HOST and c in "!$&'()*+,;=:[]<>\"":
        return False
    if c in "-_.~":
        return False
    if c in "$&+,/:;=?@":
        if mode == _ENCODE_FRAGMENT:
            return False
        if mode == _ENCODE_PATH:
            return c == "?"
        if mode == _ENCODE_USER:
            return c in "@/?:"
        if mode == _ENCODE_QUERY:
            return True
    return not (mode == _ENCODE_FRAGMENT and c in "!()*")


def _unescape(text: str, mode: int) -> str:
    """Go's ``net/url.unescape``; raises ``ValueError`` with Go's message."""
    for i, c in enumerate(text):
        if c == "%":
            code = text[i + 1 : i + 3]
            if len(code) < 2 or not all(h in "0123456789abcdefABCDEF" for h in code):
                raise ValueError(f"invalid URL escape {text[i : i + 3]!r}")
            if mode == _ENCODE_HOST and int(code[0], 16) < 8 and code != "25":
                raise ValueError(f"invalid URL escape {text[i : i + 3]!r}")
        elif mode == _ENCODE_HOST and c.isascii() and _should_escape(c, mode) and c != "%":
            raise ValueError(f"invalid character {c!r} in host name")
    raw = text.encode()
    out = bytearray()
    i = 0
    while i < len(raw):
        if raw[i] == ord("%"):
            out.append(int(raw[i + 1 : i + 3], 16))
            i += 3
        elif raw[i] == ord("+") and mode == _ENCODE_QUERY:
            out.append(ord(" "))
            i += 1
        else:
            out.append(raw[i])
            i += 1
    return out.decode(errors="replace")


def _escape(text: str, mode: int) -> str:
    out = []
    for byte in text.encode():
        c = chr(byte)
        out.append(f"%{byte:02X}" if byte >= 0x80 or _should_escape(c, mode) else c)
    return "".join(out)


def _valid_port(colon_port: str) -> bool:
    return colon_port == "" or (colon_port[0] == ":" and all(c in "0123456789" for c in colon_port[1:]))


@dataclass(frozen=True)
class GoURL:
    """The parts of a URL as Go's ``net/url.URL`` keeps them."""

    scheme: str = ""
    opaque: str = ""
    host: str = ""
    path: str = ""
    raw_path: str = ""
    raw_query: str = ""
    fragment: str = ""

    def hostname(self) -> str:
        """``URL.Hostname()``: the host without port and IPv6 brackets."""
        return self._split_host_port()[0]

    def port(self) -> str:
        """``URL.Port()``: the port, or ``''``."""
        return self._split_host_port()[1]

    def _split_host_port(self) -> tuple[str, str]:
        host, port = self.host, ""
        colon = host.rfind(":")
        if colon != -1 and _valid_port(host[colon:]):
            host, port = host[:colon], host[colon + 1 :]
        if host.startswith("[") and host.endswith("]"):
            host = host[1:-1]
        return host, port

    def escaped_path(self) -> str:
        """``URL.EscapedPath()``: the path as given when that is a valid encoding, else escaped."""
        if self.raw_path and _valid_encoded_path(self.raw_path):
            try:
                if _unescape(self.raw_path, _ENCODE_PATH) == self.path:
                    return self.raw_path
            except ValueError:
                pass
        return "*" if self.path == "*" else _escape(self.path, _ENCODE_PATH)

    def query(self) -> dict[str, list[str]]:
        """``URL.Query()``: the query in matrix form; malformed pairs are skipped as Go does."""
        out: dict[str, list[str]] = {}
        for pair in self.raw_query.split("&"):
            if not pair or ";" in pair:
                continue
            key, _, value = pair.partition("=")
            try:
                key, value = _unescape(key, _ENCODE_QUERY), _unescape(value, _ENCODE_QUERY)
            except ValueError:
                continue
            out.setdefault(key, []).append(value)
        return out


def _valid_encoded_path(text: str) -> bool:
    return all(c in "!$&'()*+,;=:@[]%" or not _should_escape(c, _ENCODE_PATH) for c in text)


def _parse_host(host: str) -> str:
    if host.startswith("["):
        end = host.rfind("]")
        if end < 0:
            raise ValueError("missing ']' in host")
        if not _valid_port(host[end + 1 :]):
            raise ValueError(f"invalid port {host[end + 1 :]!r} after host")
        literal = host[1:end].split("%25", 1)[0]
        try:
            ipaddress.IPv6Address(literal)
        except ValueError:
            raise ValueError(f"invalid IP-literal {host[: end + 1]!r}") from None
    else:
        colon = host.rfind(":")
        if colon != -1 and not _valid_port(host[colon:]):
            raise ValueError(f"invalid port {host[colon:]!r} after host")
    return _unescape(host, _ENCODE_HOST)


def _parse_authority(authority: str) -> str:
    at = authority.rfind("@")
    host = _parse_host(authority[at + 1 :])
    if at >= 0:
        userinfo = authority[:at]
        if not all((c.isascii() and c.isalnum()) or c in "-._:~!$&'()*+,;=%@" for c in userinfo):
            raise ValueError("net/url: invalid userinfo")
        _unescape(userinfo, _ENCODE_USER)
    return host


def _parse_go_url(raw: str, via_request: bool) -> GoURL:
    """Go's ``net/url.parse`` (``ParseRequestURI`` when ``via_request``); raises ``ValueError``."""
    if any(ord(c) < 0x20 or ord(c) == 0x7F for c in raw):
        raise ValueError("net/url: invalid control character in URL")
    if raw == "" and via_request:
        raise ValueError("empty url")
    if raw == "*":
        return GoURL(path="*")
    scheme, rest = "", raw
    for i, c in enumerate(raw):
        if c.isascii() and c.isalpha():
            continue
        if c.isascii() and (c.isdigit() or c in "+-."):
            if i == 0:
                break
            continue
        if c == ":":
            if i == 0:
                raise ValueError("missing protocol scheme")
            scheme, rest = raw[:i].lower(), raw[i + 1 :]
        break
    if rest.endswith("?") and rest.count("?") == 1:
        rest, raw_query = rest[:-1], ""
    else:
        rest, _, raw_query = rest.partition("?")
    if not rest.startswith("/"):
        if scheme:
            return GoURL(scheme=scheme, opaque=rest, raw_query=raw_query)
        if via_request:
            raise ValueError("invalid URI for request")
        if ":" in rest.split("/", 1)[0]:
            raise ValueError("first path segment in URL cannot contain colon")
    host = ""
    if (scheme or (not via_request and not rest.startswith("///"))) and rest.startswith("//"):
        authority, slash, tail = rest[2:].partition("/")
        host = _parse_authority(authority)
        rest = slash + tail
    path = _unescape(rest, _ENCODE_PATH)
    raw_path = "" if _escape(path, _ENCODE_PATH) == rest else rest
    return GoURL(scheme=scheme, host=host, path=path, raw_path=raw_path, raw_query=raw_query)


def parse_url(raw: str) -> GoURL:
    """Parse as Kubernetes' ``url()`` does: ``url.ParseRequestURI`` must accept it, the parts come
    from ``url.Parse`` (which splits off the ``#fragment``).

    Raises:
        ValueError: with Go's message, e.g. ``invalid port ":c" after host``.
    """
    _parse_go_url(raw, via_request=True)
    without_fragment, _, fragment = raw.partition("#")
    parsed = _parse_go_url(without_fragment, via_request=False)
    return GoURL(
        scheme=parsed.scheme,
        opaque=parsed.opaque,
        host=parsed.host,
        path=parsed.path,
        raw_path=parsed.raw_path,
        raw_query=parsed.raw_query,
        fragment=_unescape(fragment, _ENCODE_FRAGMENT),
    )


def string_to_url(text: str) -> dict[str, str]:
    """``url(s)``: a URL value; an error unless ``s`` is an absolute URI or an absolute path."""
    try:
        parse_url(text)
    except ValueError as err:
        raise CelFunctionError(f"URL parse error during conversion from string: {err}") from None
    return {URL: text}


def is_url(text: str) -> bool:
    """``isURL(s)``: whether ``url(s)`` succeeds."""
    try:
        _parse_go_url(text, via_request=True)
    except ValueError:
        return False
    return True


def _url_part(part: Callable[[GoURL], Any], function: str) -> Callable[[object], Any]:
    def impl(value: object) -> Any:
        return part(parse_url(_opaque(value, URL, function)))

    return impl


# ------------------------------------------------------------------------------------- quantity


def _quantity(value: object, function: str) -> Fraction:
    return Fraction(_opaque(value, QUANTITY, function))


def _quantity_value(value: Fraction) -> dict[str, str]:
    return {QUANTITY: str(value)}


def string_to_quantity(text: str) -> dict[str, str]:
    """``quantity(s)``: a Quantity; an error when ``s`` is not a quantity (``200K``, ``Mi``)."""
    try:
        return _quantity_value(parse_quantity(text).value)
    except QuantityError as err:
        raise CelFunctionError(str(err)) from None


def is_quantity(text: str) -> bool:
    """``isQuantity(s)``: whether ``quantity(s)`` succeeds."""
    try:
        parse_quantity(text)
    except QuantityError:
        return False
    return True


def quantity_sign(value: object) -> int:
    """``q.sign()``: 1, 0 or -1."""
    q = _quantity(value, "sign")
    return (q > 0) - (q < 0)


def quantity_compare_to(value: object, other: object) -> int:
    """``q.compareTo(other)``: -1, 0 or 1."""
    a, b = _quantity(value, "compareTo"), _quantity(other, "compareTo")
    return (a > b) - (a < b)


def quantity_is_greater_than(value: object, other: object) -> bool:
    """``q.isGreaterThan(other)``."""
    return _quantity(value, "isGreaterThan") > _quantity(other, "isGreaterThan")


def quantity_is_less_than(value: object, other: object) -> bool:
    """``q.isLessThan(other)``."""
    return _quantity(value, "isLessThan") < _quantity(other, "isLessThan")


def quantity_is_integer(value: object) -> bool:
    """``q.isInteger()``: whether ``asInteger()`` succeeds (integral and within int64)."""
    q = _quantity(value, "isInteger")
    return q.denominator == 1 and INT64_MIN <= q <= INT64_MAX


def quantity_as_integer(value: object) -> int:
    """``q.asInteger()``; an error when the value is fractional or beyond int64."""
    if not quantity_is_integer(value):
        raise CelFunctionError("cannot convert value to integer")
    return int(_quantity(value, "asInteger"))


def quantity_as_approximate_float(value: object) -> float:
    """``q.asApproximateFloat()``; ±Inf beyond the float64 range."""
    q = _quantity(value, "asApproximateFloat")
    try:
        return float(q)
    except OverflowError:
        return math.inf if q > 0 else -math.inf


def quantity_add(value: object, other: object) -> dict[str, str]:
    """``q.add(q2)`` and ``q.add(int)``."""
    addend = Fraction(other) if isinstance(other, int) else _quantity(other, "add")
    return _quantity_value(_quantity(value, "add") + addend)


def quantity_sub(value: object, other: object) -> dict[str, str]:
    """``q.sub(q2)`` and ``q.sub(int)``."""
    subtrahend = Fraction(other) if isinstance(other, int) else _quantity(other, "sub")
    return _quantity_value(_quantity(value, "sub") - subtrahend)


def quantity_mul(value: object, factor: int) -> dict[str, str]:
    """``q.mul(int)``."""
    return _quantity_value(_quantity(value, "mul") * factor)


# ---------------------------------------------------------------------------------------- IP/CIDR

_Address = ipaddress.IPv4Address | ipaddress.IPv6Address


def parse_ip(text: str) -> _Address:
    """Parse an IP address as Kubernetes' ``ip()`` does (``netip.ParseAddr`` minus zones and
    IPv4-mapped IPv6 addresses; IPv4 octets with leading zeros are rejected).

    Raises:
        ValueError: with Kubernetes' message.
    """
    try:
        addr = ipaddress.ip_address(text)
    except ValueError as err:
        raise ValueError(f"IP Address {text!r} parse error during conversion from string: {err}") from None
    if isinstance(addr, ipaddress.IPv6Address):
        if addr.scope_id is not None:
            raise ValueError(f"IP address {text!r} with zone value is not allowed")
        if addr.ipv4_mapped is not None:
            raise ValueError(f"IPv4-mapped IPv6 address {text!r} is not allowed")
    return addr


def _ip(value: object, function: str) -> _Address:
    return ipaddress.ip_address(_opaque(value, IP, function))


def string_to_ip(text: str) -> dict[str, str]:
    """``ip(s)``: an IP address value."""
    try:
        return {IP: str(parse_ip(text))}
    except ValueError as err:
        raise CelFunctionError(str(err)) from None


def is_ip(text: str) -> bool:
    """``isIP(s)``."""
    try:
        parse_ip(text)
    except ValueError:
        return False
    return True


def ip_is_canonical(text: str) -> bool:
    """``ip.isCanonical(s)``: whether ``s`` is the canonical (RFC 5952) form; an error if no IP."""
    try:
        return str(parse_ip(text)) == text
    except ValueError as err:
        raise CelFunctionError(str(err)) from None


def ip_family(value: object) -> int:
    """``ip.family()``: 4 or 6."""
    return _ip(value, "family").version


def ip_is_unspecified(value: object) -> bool:
    """``ip.isUnspecified()``: ``0.0.0.0`` or ``::``."""
    return _ip(value, "isUnspecified").is_unspecified


def ip_is_loopback(value: object) -> bool:
    """``ip.isLoopback()``: ``127.0.0.0/8`` or ``::1``."""
    return _ip(value, "isLoopback").is_loopback


def ip_is_link_local_multicast(value: object) -> bool:
    """``ip.isLinkLocalMulticast()``: ``224.0.0.0/24`` or IPv6 multicast with link-local scope."""
    addr = _ip(value, "isLinkLocalMulticast")
    if isinstance(addr, ipaddress.IPv4Address):
        return addr in ipaddress.IPv4Network("224.0.0.0/24")
    return (int(addr) >> 112) & 0xFF0F == 0xFF02


def ip_is_link_local_unicast(value: object) -> bool:
    """``ip.isLinkLocalUnicast()``: ``169.254.0.0/16`` or ``fe80::/10``."""
    return _ip(value, "isLinkLocalUnicast").is_link_local


def ip_is_global_unicast(value: object) -> bool:
    """``ip.isGlobalUnicast()`` with Go's meaning: not unspecified, broadcast, loopback, multicast
    or link-local unicast (private ranges count as global unicast)."""
    addr = _ip(value, "isGlobalUnicast")
    if addr == ipaddress.IPv4Address("255.255.255.255"):
        return False
    return not (addr.is_unspecified or addr.is_loopback or addr.is_multicast or addr.is_link_local)


def parse_cidr(text: str) -> tuple[_Address, int]:
    """Parse CIDR notation as Kubernetes' ``cidr()`` does (``netip.ParsePrefix``): the address keeps
    its host bits, the prefix length has no sign or leading zero.

    Raises:
        ValueError: with Kubernetes' message.
    """
    address, slash, bits_text = text.rpartition("/")
    prefix = "network address parse error during conversion from string"
    if not slash:
        raise ValueError(f"{prefix}: netip.ParsePrefix({text!r}): no '/'")
    try:
        addr = ipaddress.ip_address(address)
    except ValueError as err:
        raise ValueError(f"{prefix}: netip.ParsePrefix({text!r}): {err}") from None
    if isinstance(addr, ipaddress.IPv6Address) and addr.scope_id is not None:
        raise ValueError(f"{prefix}: netip.ParsePrefix({text!r}): IPv6 zones cannot be present in a prefix")
    max_bits = 32 if addr.version == 4 else 128
    if not re.fullmatch(r"0|[1-9][0-9]*", bits_text) or int(bits_text) > max_bits:
        raise ValueError(f"{prefix}: netip.ParsePrefix({text!r}): bad bits after slash: {bits_text!r}")
    if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None:
        raise ValueError(f"IPv4-mapped IPv6 address {text!r} is not allowed")
    return addr, int(bits_text)


def _cidr(value: object, function: str) -> tuple[_Address, int]:
    address, _, bits = _opaque(value, CIDR, function).rpartition("/")
    return ipaddress.ip_address(address), int(bits)


def _network(addr: _Address, bits: int) -> ipaddress.IPv4Network | ipaddress.IPv6Network:
    return ipaddress.ip_network(f"{addr}/{bits}", strict=False)


def string_to_cidr(text: str) -> dict[str, str]:
    """``cidr(s)``: a CIDR value (host bits kept; see ``masked()``)."""
    try:
        addr, bits = parse_cidr(text)
    except ValueError as err:
        raise CelFunctionError(str(err)) from None
    return {CIDR: f"{addr}/{bits}"}


def is_cidr(text: str) -> bool:
    """``isCIDR(s)``."""
    try:
        parse_cidr(text)
    except ValueError:
        return False
    return True


def cidr_contains_ip(value: object, other: object) -> bool:
    """``cidr.containsIP(ip)`` and ``cidr.containsIP(string)``."""
    addr, bits = _cidr(value, "containsIP")
    target = (
        ipaddress.ip_address(string_to_ip(other)[IP]) if isinstance(other, str) else _ip(other, "containsIP")
    )
    return target.version == addr.version and target in _network(addr, bits)


def cidr_contains_cidr(value: object, other: object) -> bool:
    """``cidr.containsCIDR(cidr)`` and ``cidr.containsCIDR(string)``: the other network lies inside."""
    addr, bits = _cidr(value, "containsCIDR")
    other_addr, other_bits = _cidr(string_to_cidr(other) if isinstance(other, str) else other, "containsCIDR")
    if other_addr.version != addr.version or other_bits < bits:
        return False
    return _network(other_addr, bits) == _network(addr, bits)


def cidr_ip(value: object) -> dict[str, str]:
    """``cidr.ip()``: the address part, host bits included."""
    return {IP: str(_cidr(value, "ip")[0])}


def cidr_masked(value: object) -> dict[str, str]:
    """``cidr.masked()``: the network with its host bits cleared."""
    addr, bits = _cidr(value, "masked")
    return {CIDR: str(_network(addr, bits))}


def cidr_prefix_length(value: object) -> int:
    """``cidr.prefixLength()``."""
    return _cidr(value, "prefixLength")[1]


def opaque_to_string(value: object) -> str:
    """``string(ip)`` and ``string(cidr)``."""
    kind = _kind_of(value)
    if kind in (IP, CIDR):
        return _opaque(value, kind, "string")
    raise CelFunctionError("no such overload: string() applied to a map")


# --------------------------------------------------------------------------------------- library


def _decl(
    name: str, *overloads: tuple[str, cel.Type, Sequence[cel.Type], bool, Callable[..., Any]]
) -> cel.FunctionDecl:
    return cel.FunctionDecl(
        name,
        [
            cel.Overload(oid, return_type=ret, parameters=list(params), is_member=member, impl=impl)
            for oid, ret, params, member, impl in overloads
        ],
    )


@functools.cache
def library() -> cel.CelExtension:
    """The Kubernetes function library as one cel-expr-python extension (built once)."""
    t = cel.Type
    dyn_list = t.List(t.DYN)
    opaque = t.Map(t.STRING, t.STRING)  # narrow on purpose: the checker then rejects optional arguments
    string_list = t.List(t.STRING)
    member, glob = True, False
    return cel.CelExtension(
        "kubernetes",
        [
            # lists
            _decl("isSorted", ("list_is_sorted_bool", t.BOOL, [dyn_list], member, list_is_sorted)),
            _decl("sum", ("list_sum", t.DYN, [dyn_list], member, list_sum)),
            _decl("min", ("list_min", t.DYN, [dyn_list], member, list_min)),
            _decl("max", ("list_max", t.DYN, [dyn_list], member, list_max)),
            _decl("indexOf", ("list_a_index_of_int", t.INT, [dyn_list, t.DYN], member, list_index_of)),
            _decl(
                "lastIndexOf",
                ("list_a_last_index_of_int", t.INT, [dyn_list, t.DYN], member, list_last_index_of),
            ),
            # regex
            _decl("find", ("string_find_string", t.STRING, [t.STRING, t.STRING], member, string_find)),
            _decl(
                "findAll",
                ("string_find_all_string", string_list, [t.STRING, t.STRING], member, string_find_all),
                (
                    "string_find_all_string_int",
                    string_list,
                    [t.STRING, t.STRING, t.INT],
                    member,
                    string_find_all_limit,
                ),
            ),
            # URLs
            _decl("url", ("string_to_url", opaque, [t.STRING], glob, string_to_url)),
            _decl("isURL", ("is_url_string", t.BOOL, [t.STRING], glob, is_url)),
            _decl(
                "getScheme",
                ("url_get_scheme", t.STRING, [opaque], member, _url_part(lambda u: u.scheme, "getScheme")),
            ),
            _decl(
                "getHost",
                ("url_get_host", t.STRING, [opaque], member, _url_part(lambda u: u.host, "getHost")),
            ),
            _decl(
                "getHostname",
                ("url_get_hostname", t.STRING, [opaque], member, _url_part(GoURL.hostname, "getHostname")),
            ),
            _decl("getPort", ("url_get_port", t.STRING, [opaque], member, _url_part(GoURL.port, "getPort"))),
            _decl(
                "getEscapedPath",
                (
                    "url_get_escaped_path",
                    t.STRING,
                    [opaque],
                    member,
                    _url_part(GoURL.escaped_path, "getEscapedPath"),
                ),
            ),
            _decl(
                "getQuery",
                (
                    "url_get_query",
                    t.Map(t.STRING, string_list),
                    [opaque],
                    member,
                    _url_part(GoURL.query, "getQuery"),
                ),
            ),
            # quantity
            _decl("quantity", ("string_to_quantity", opaque, [t.STRING], glob, string_to_quantity)),
            _decl("isQuantity", ("is_quantity_string", t.BOOL, [t.STRING], glob, is_quantity)),
            _decl(
                "sign",
                ("quantity_sign", t.INT, [opaque], glob, quantity_sign),
                ("quantity_sign_member", t.INT, [opaque], member, quantity_sign),
            ),
            _decl(
                "isGreaterThan",
                ("quantity_is_greater_than", t.BOOL, [opaque, opaque], member, quantity_is_greater_than),
            ),
            _decl(
                "isLessThan",
                ("quantity_is_less_than", t.BOOL, [opaque, opaque], member, quantity_is_less_than),
            ),
            _decl("compareTo", ("quantity_compare_to", t.INT, [opaque, opaque], member, quantity_compare_to)),
            _decl(
                "asApproximateFloat",
                ("quantity_get_float", t.DOUBLE, [opaque], member, quantity_as_approximate_float),
            ),
            _decl("asInteger", ("quantity_get_int", t.INT, [opaque], member, quantity_as_integer)),
            _decl("isInteger", ("quantity_is_integer", t.BOOL, [opaque], member, quantity_is_integer)),
            _decl(
                "add",
                ("quantity_add", opaque, [opaque, opaque], member, quantity_add),
                ("quantity_add_int", opaque, [opaque, t.INT], member, quantity_add),
            ),
            _decl(
                "sub",
                ("quantity_sub", opaque, [opaque, opaque], member, quantity_sub),
                ("quantity_sub_int", opaque, [opaque, t.INT], member, quantity_sub),
            ),
            _decl("mul", ("quantity_multiply_int", opaque, [opaque, t.INT], member, quantity_mul)),
            # IP
            _decl(
                "ip",
                ("string_to_ip", opaque, [t.STRING], glob, string_to_ip),
                ("cidr_ip", opaque, [opaque], member, cidr_ip),
            ),
            _decl("isIP", ("is_ip", t.BOOL, [t.STRING], glob, is_ip)),
            _decl("ip.isCanonical", ("ip_is_canonical", t.BOOL, [t.STRING], glob, ip_is_canonical)),
            _decl("family", ("ip_family", t.INT, [opaque], member, ip_family)),
            _decl("isUnspecified", ("ip_is_unspecified", t.BOOL, [opaque], member, ip_is_unspecified)),
            _decl("isLoopback", ("ip_is_loopback", t.BOOL, [opaque], member, ip_is_loopback)),
            _decl(
                "isLinkLocalMulticast",
                ("ip_is_link_local_multicast", t.BOOL, [opaque], member, ip_is_link_local_multicast),
            ),
            _decl(
                "isLinkLocalUnicast",
                ("ip_is_link_local_unicast", t.BOOL, [opaque], member, ip_is_link_local_unicast),
            ),
            _decl(
                "isGlobalUnicast", ("ip_is_global_unicast", t.BOOL, [opaque], member, ip_is_global_unicast)
            ),
            _decl("string", ("ip_or_cidr_to_string", t.STRING, [opaque], glob, opaque_to_string)),
            # CIDR
            _decl("cidr", ("string_to_cidr", opaque, [t.STRING], glob, string_to_cidr)),
            _decl("isCIDR", ("is_cidr", t.BOOL, [t.STRING], glob, is_cidr)),
            _decl(
                "containsIP",
                ("cidr_contains_ip_string", t.BOOL, [opaque, t.STRING], member, cidr_contains_ip),
                ("cidr_contains_ip_ip", t.BOOL, [opaque, opaque], member, cidr_contains_ip),
            ),
            _decl(
                "containsCIDR",
                ("cidr_contains_cidr_string", t.BOOL, [opaque, t.STRING], member, cidr_contains_cidr),
                ("cidr_contains_cidr", t.BOOL, [opaque, opaque], member, cidr_contains_cidr),
            ),
            _decl("masked", ("cidr_masked", opaque, [opaque], member, cidr_masked)),
            _decl("prefixLength", ("cidr_prefix_length", t.INT, [opaque], member, cidr_prefix_length)),
        ],
    )
