"""Canonical quantities follow apimachinery's resource.Quantity."""

from __future__ import annotations

import pytest

from trainops.core.quantity import QuantityError, canonical_quantity, parse_quantity


@pytest.mark.parametrize(
    ("raw", "canonical"),
    [
        ("16Gi", "16Gi"),
        ("1024Mi", "1Gi"),
        ("1536Mi", "1536Mi"),
        ("1.5Gi", "1536Mi"),
        ("0.5", "500m"),
        (0.5, "500m"),
        (4, "4"),
        ("1000m", "1"),
        ("2000", "2k"),
        ("1e3", "1e3"),
        ("0.0001", "1m"),
        ("512", "512"),
        ("100Ki", "100Ki"),
        ("0", "0"),
    ],
)
def test_canonical(raw: str | int | float, canonical: str) -> None:
    assert canonical_quantity(raw) == canonical


@pytest.mark.parametrize("raw", ["2 cores", "1GB", "abc", "", " 1", True, float("nan")])
def test_invalid(raw: object) -> None:
    with pytest.raises(QuantityError):
        parse_quantity(raw)  # type: ignore[arg-type]


def test_value_units() -> None:
    assert parse_quantity("16Gi").value == 16 * 2**30
    assert parse_quantity("250m").value * 1000 == 250
