"""``validate --policy`` on large inputs runs the policy check in a forked process while validating:
same findings as the serial run; the child's result and exceptions reach the parent."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import trainops.pipeline as pipeline
from trainops.pipeline import Target, check, policy_check, policy_run
from trainops.policy.background import start
from trainops.policy.engine import RuleFailure

FIXTURES = Path(__file__).resolve().parent / "policies"


def _square(value: int) -> tuple[int, int]:
    return os.getpid(), value * value


def _fail(message: str) -> None:
    raise RuleFailure(message)


def test_result_comes_from_another_process() -> None:
    pid, value = start(_square, 12).result()
    assert value == 144
    assert pid != os.getpid()


def test_exception_of_the_child_is_raised_in_the_parent() -> None:
    with pytest.raises(RuleFailure, match="policy rule x failed"):
        start(_fail, "policy rule x failed").result()


def test_cancel_reaps_the_child() -> None:
    background = start(_square, 3)
    background.cancel()
    background.cancel()  # a second call does nothing


@pytest.mark.parametrize("rule", ["no-privileged", "service-selects-pods", "pvc-exists"])
def test_background_policy_equals_serial(
    monkeypatch: pytest.MonkeyPatch, schema_cache: Path, rule: str
) -> None:
    files = [str(FIXTURES / rule / "fail.yaml"), str(FIXTURES / rule / "pass.yaml")]
    target = Target("1.34", None, schema_cache)
    run = policy_run()
    serial = check(target, files, workers=1, policy=run)
    monkeypatch.setattr(pipeline, "PARALLEL_BYTES", 0)  # every input counts as large
    forked = []
    import trainops.policy.background as background

    original = background.start

    def spy(*args: object) -> object:
        forked.append(True)
        return original(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(background, "start", spy)
    overlapped = check(target, files, workers=2, policy=run)
    assert forked == [True]
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
