"""The fuzz targets of ``make fuzz`` for ``diff`` and the Argo CD client (tests/fuzz/fuzz_diff.py,
fuzz_argocd.py) accept their seeds, and the inputs they found crashing stay fixed."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

import fuzz_argocd
import fuzz_diff

CM = b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"


def test_diff_target_has_seeds() -> None:
    assert len(fuzz_diff.seeds()) >= 20


@pytest.mark.parametrize("data", fuzz_diff.seeds()[:6], ids=lambda d: str(len(d)))
def test_diff_target_accepts_its_seeds(data: bytes) -> None:
    fuzz_diff.test_one_input(data)


@pytest.mark.parametrize(
    "data",
    [
        pytest.param(b"apiVersion: v1\nkind: ConfigMap\nmetadata: x\n\x00\x00" + CM, id="metadata-a-string"),
        pytest.param(CM + b"data: {~: 1}\n\x00\x00" + CM + b"data: {~: 2}\n", id="null-key"),
        pytest.param(CM + b"data: {a: {~: 1, b: 2}}\n\x00\x00" + CM + b"data: {a: 5}\n", id="mixed-keys"),
        pytest.param(CM + b"\x00\x00" + CM + b"data: [" * 2000, id="deep-or-broken"),
    ],
)
def test_diff_target_crashes_stay_fixed(data: bytes) -> None:
    """Found by `make fuzz`: a string metadata, a null key and mixed key types raised in diff."""
    fuzz_diff.test_one_input(data)


@pytest.mark.parametrize("data", fuzz_argocd.seeds(), ids=lambda d: f"{d[0]}-{d[1]}-{len(d)}")
def test_argocd_target_accepts_its_seeds(data: bytes) -> None:
    fuzz_argocd.test_one_input(data)


@pytest.mark.parametrize(
    "data",
    [
        pytest.param(b"", id="empty"),
        pytest.param(b"\x00\x00" + b"[" * 100_000, id="deep-json"),
        pytest.param(b"\x01\x01" + b"\x00" * 4096, id="gzip-of-zeros"),
        pytest.param(b"\x1b\x00" + b"\x1f\x8b\x08garbage", id="corrupt-gzip"),
    ],
)
def test_argocd_target_hostile_answers(data: bytes) -> None:
    fuzz_argocd.test_one_input(data)
