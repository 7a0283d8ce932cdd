"""Kubernetes resource quantities: parsing and canonical form.

Follows ``k8s.io/apimachinery/pkg/api/resource.Quantity`` (quantity.go): a quantity is
``<signedNumber><suffix>`` where the suffix is binary SI (Ki, Mi, Gi, Ti, Pi, Ei), decimal SI
(n, u, m, "", k, M, G, T, P, E) or a decimal exponent (``e3``/``E3``). Values are rounded up to
milli precision, as the API server does, and the canonical string keeps the suffix family of the
input: binary values under 1024 or with a fractional part become decimal SI.

Source: https://github.com/kubernetes/apimachinery/blob/master/pkg/api/resource/quantity.go
"""

from __future__ import annotations

import math
import re
from fractions import Fraction
from typing import Literal, NamedTuple

Format = Literal["BinarySI", "DecimalSI", "DecimalExponent"]

_QUANTITY = re.compile(
    r"^(?P<num>[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))"
    r"(?P<suffix>Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?[0-9]+)?$"
)
_BINARY = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_DECIMAL = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_DECIMAL_BY_EXP = {exp: suffix for suffix, exp in _DECIMAL.items() if exp >= -3}
_BINARY_BY_EXP = {exp: suffix for suffix, exp in _BINARY.items()}


class QuantityError(ValueError):
    """A value that is not a Kubernetes quantity; ``str()`` quotes the value."""


class Quantity(NamedTuple):
    """A parsed quantity.

    Args:
        value: the exact value (cores for cpu, bytes for memory and storage), already rounded up
            to milli precision.
        format: the suffix family used by the canonical form.
    """

    value: Fraction
    format: Format

    def canonical(self) -> str:
        """The API server's canonical string for this quantity, e.g. ``16Gi``, ``500m``, ``4``."""
        return _format(self.value, self.format)

    def __float__(self) -> float:
        return float(self.value)


def parse_quantity(raw: str | int | float) -> Quantity:
    """Parse a quantity given as YAML may hold it (string, int or float).

    Args:
        raw: e.g. ``"16Gi"``, ``"500m"``, ``4``, ``0.5``.

    Returns:
        The parsed :class:`Quantity`.

    Raises:
        QuantityError: ``raw`` is a bool, NaN/inf, or a string that is not a quantity.
    """
    if isinstance(raw, bool):
        raise QuantityError(f"{raw!r} is not a quantity")
    if isinstance(raw, int):
        return Quantity(Fraction(raw), "DecimalSI")
    if isinstance(raw, float):
        if not math.isfinite(raw):
            raise QuantityError(f"{raw!r} is not a quantity")
        return Quantity(_round_up_milli(Fraction(repr(raw))), "DecimalSI")
    if not isinstance(raw, str):
        raise QuantityError(f"{raw!r} is not a quantity")
    match = _QUANTITY.match(raw.strip()) if raw == raw.strip() else None
    if match is None:
        raise QuantityError(f"{raw!r} is not a quantity (expected e.g. '500m', '16Gi', '4')")
    number = Fraction(match.group("num"))
    suffix = match.group("suffix") or ""
    fmt: Format
    if suffix in _BINARY:
        value = number * (2 ** _BINARY[suffix])
        fmt = "BinarySI"
    elif suffix in _DECIMAL:
        value = number * Fraction(10) ** _DECIMAL[suffix]
        fmt = "DecimalSI"
    else:
        value = number * Fraction(10) ** int(suffix[1:])
        fmt = "DecimalExponent"
    return Quantity(_round_up_milli(value), fmt)


def canonical_quantity(raw: str | int | float) -> str:
    """Return the canonical string of a quantity, e.g. ``1024Mi`` → ``1Gi``, ``0.5`` → ``500m``.

    Raises:
        QuantityError: ``raw`` is not a quantity.
    """
    return parse_quantity(raw).canonical()


def _round_up_milli(value: Fraction) -> Fraction:
    scaled = value * 1000
    if scaled.denominator == 1:
        return value
    return Fraction(math.ceil(scaled), 1000)


def _format(value: Fraction, fmt: Format) -> str:
    if value == 0:
        return "0"
    if fmt == "BinarySI" and (abs(value) < 1024 or value.denominator != 1):
        fmt = "DecimalSI"
    if fmt == "BinarySI":
        exp = 0
        mantissa = int(value)
        while exp < 60 and mantissa % 1024 == 0:
            mantissa //= 1024
            exp += 10
        return f"{mantissa}{_BINARY_BY_EXP.get(exp, '')}"
    # decimal: mantissa * 10**exp with exp a multiple of 3, the largest that keeps it integral
    exp = -3
    mantissa_f = value * 1000
    assert mantissa_f.denominator == 1
    mantissa = int(mantissa_f)
    while exp < 18 and mantissa % 1000 == 0:
        mantissa //= 1000
        exp += 3
    if fmt == "DecimalExponent":
        return f"{mantissa}" if exp == 0 else f"{mantissa}e{exp}"
    return f"{mantissa}{_DECIMAL_BY_EXP[exp]}"
