"""``validate --policy`` on large inputs shares the policy check's per-document work among forked
processes (the one pool, :mod:`trainops.core.forking`): same findings, in the same order, as a serial run."""

from __future__ import annotations

from pathlib import Path

import pytest

import trainops.pipeline as pipeline
from trainops.pipeline import Target, check, policy_check, policy_run

FIXTURES = Path(__file__).resolve().parents[1] / "policies"


@pytest.mark.parametrize("rule", ["no-privileged", "service-selects-pods", "pvc-exists"])
def test_large_input_policy_equals_serial(
    monkeypatch: pytest.MonkeyPatch, schema_cache: Path, rule: str
) -> None:
    files = [str(FIXTURES / rule / "fail.yaml"), str(FIXTURES / rule / "pass.yaml")]
    target = Target("1.34", None, schema_cache)
    run = policy_run()
    serial = check(target, files, workers=1, policy=run)
    monkeypatch.setattr(pipeline, "PARALLEL_BYTES", 0)  # every input counts as large
    import trainops.policy.engine as engine

    monkeypatch.setattr(engine, "PARALLEL_DOCUMENTS", 0)  # every set of documents is shared out
    overlapped = check(target, files, workers=2, policy=run)
    assert overlapped.sorted() == serial.sorted()
    assert rule in {f.rule for f in overlapped.findings}


@pytest.mark.parametrize("workers", [2, 3])
def test_parallel_policy_equals_serial(monkeypatch: pytest.MonkeyPatch, workers: int) -> None:
    import trainops.policy.engine as engine

    files = [str(p) for p in sorted(FIXTURES.glob("*/fail.yaml"))]
    run = policy_run()
    serial = policy_check(files, run)
    monkeypatch.setattr(engine, "PARALLEL_DOCUMENTS", 0)
    monkeypatch.setattr(engine, "SHARE_BLOCK", 3)  # every process takes several interleaved blocks
    parallel = policy_check(files, run, workers=workers)
    assert parallel.findings == serial.findings  # same findings in the same order
    assert len(serial.findings) > len(files)
