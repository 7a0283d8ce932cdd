"""Check families by API group (``trainops.validate.checks``): an operator's webhook family runs, and is
imported, only for documents of the API groups it judges (:data:`GROUP_FAMILIES`), and that changes no
report: every upstream example validates to the same findings as with every family on every document."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import EXAMPLES, needs_shared
from trainops.core.kinds import KUBEFLOW_JOBS
from trainops.core.kueue_tas import ALWAYS_JUDGED
from trainops.schemas.registry import SchemaRegistry
from trainops.validate import checks, engine
from trainops.validate.checks import (
    CHECKS,
    GROUP_FAMILIES,
    all_checks,
    checks_for,
    jobset,
    kueue_webhook,
    lws_webhook,
    rollouts,
)
from trainops.validate.context import ValidateOptions

#: The groups each module judges, read from the module's own constants.
OWN_GROUPS = {
    "lws_webhook": {lws_webhook.LWS[0], lws_webhook.DISAGGREGATED[0]},
    "jobset": {jobset.GROUP},
    "kueue_webhook": {group for group, _ in ALWAYS_JUDGED} | {group for group, _ in KUBEFLOW_JOBS},
    "rollouts": {rollouts.GROUP},
}


@pytest.mark.parametrize(("module", "groups"), GROUP_FAMILIES)
def test_each_family_is_declared_with_the_groups_its_module_judges(
    module: str, groups: frozenset[str]
) -> None:
    assert OWN_GROUPS[module] <= groups


def test_a_group_gets_every_document_family_then_its_own_in_run_order() -> None:
    assert checks_for("apps") == checks_for("") == CHECKS
    assert checks_for("argoproj.io") == (*CHECKS, rollouts.CHECK)
    assert checks_for("jobset.x-k8s.io") == (*CHECKS, jobset.CHECK, kueue_webhook.CHECK)
    assert checks_for("leaderworkerset.x-k8s.io") == (*CHECKS, lws_webhook.CHECK, kueue_webhook.CHECK)
    assert all_checks() == (*CHECKS, lws_webhook.CHECK, jobset.CHECK, kueue_webhook.CHECK, rollouts.CHECK)


def _example_files() -> list[str]:
    if not EXAMPLES.is_dir():
        return []
    return sorted(str(p) for p in EXAMPLES.rglob("*") if p.suffix in (".yaml", ".yml") and p.is_file())


@needs_shared
def test_every_upstream_example_gets_the_findings_of_every_family(
    schema_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = _example_files()
    registry = SchemaRegistry("1.36", schema_cache)
    by_group = engine.validate_files(files, registry, ValidateOptions())
    monkeypatch.setattr(engine, "checks_for", lambda group: all_checks())
    everywhere = engine.validate_files(files, registry, ValidateOptions())
    assert by_group.documents == everywhere.documents > 500
    assert by_group.findings == everywhere.findings
    webhooks = {"lws-webhook", "jobset-webhook", "kueue-webhook", "rollouts-controller"}
    assert webhooks & {finding.rule for finding in everywhere.findings}  # the families do report here
    assert checks.checks_for is checks_for  # only the engine's view was replaced
