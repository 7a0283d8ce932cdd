"""Shared prop checks: image references, Prometheus durations, half quantities."""

from __future__ import annotations

import re

import pytest

from trainops.constructs._core.props import duration_ms, half_quantity, require_image
from trainops.core.quantity import parse_quantity

DIGEST = "sha256:" + "0123456789abcdef" * 4


@pytest.mark.parametrize(
    "image",
    [
        "tensorflow/serving:2.14.1",
        "registry.example.com/ml/pytorch-train:2.2.0-cuda12.1",
        "localhost:5000/train:v1",
        "registry.example.com:5443/a/b/c:1.0",
        f"nvcr.io/nvidia/pytorch@{DIGEST}",
        f"nvcr.io/nvidia/pytorch:24.01-py3@{DIGEST}",
        "busybox:1.36",
    ],
)
def test_pinned_images_are_accepted(image: str) -> None:
    assert require_image("X", "image", image) == image


@pytest.mark.parametrize(
    ("image", "message"),
    [
        ("busybox", "must be pinned with a tag or a digest"),
        ("localhost:5000/train", "must be pinned with a tag or a digest"),
        ("busybox:latest", "the tag 'latest' is not pinned"),
        ("Busybox:1.0", "not a container image reference"),
        ("busybox:1.0@sha256:xyz", "not a container image reference"),
        ("", "not a container image reference"),
        ("busybox: 1.0", "not a container image reference"),
    ],
)
def test_unpinned_or_bad_images_are_refused(image: str, message: str) -> None:
    with pytest.raises(ValueError, match=f"^{re.escape(f'X image={image!r}: {message}')}"):
        require_image("X", "image", image)


@pytest.mark.parametrize(
    ("value", "ms"),
    [("30s", 30_000), ("1m30s", 90_000), ("500ms", 500), ("1h", 3_600_000), ("1d", 86_400_000)],
)
def test_durations(value: str, ms: int) -> None:
    assert duration_ms("X", "interval", value) == ms


@pytest.mark.parametrize(
    ("value", "half"), [("64Gi", "32Gi"), ("1Gi", "512Mi"), ("3", "1"), ("1000M", "500M")]
)
def test_half_quantity(value: str, half: str) -> None:
    assert half_quantity(parse_quantity(value)).canonical() == half
