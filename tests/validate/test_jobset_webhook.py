"""``jobset-webhook``: JobSet's validating webhook on create (kubernetes-sigs/jobset v0.12.0
``ValidateCreate``, ``validateFailurePolicy``, ``validateCoordinator``), on upstream's JobSet example
broken one way at a time, and no finding on the unbroken example nor on the sample's JobSet."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from conftest import EXAMPLES, SAMPLE, needs_shared
from trainops.core.findings import Finding
from trainops.schemas.registry import SchemaRegistry
from trainops.validate.engine import ValidateOptions, validate_document
from trainops.yaml.load import load_text

pytestmark = needs_shared

SAMPLE_JOBSET = EXAMPLES / "kueue/site/static/examples/jobs/sample-jobset.yaml"
Doc = dict[str, Any]


@pytest.fixture(scope="module")
def registry(schema_cache: Path) -> SchemaRegistry:
    return SchemaRegistry("1.34", schema_cache)


def _findings(registry: SchemaRegistry, doc: Doc) -> list[Finding]:
    found: list[Finding] = []
    for document in load_text(json.dumps(doc), "jobset.yaml").documents:
        found += validate_document(document, registry, ValidateOptions())
    return found


def _base() -> Doc:
    doc = yaml.safe_load(SAMPLE_JOBSET.read_text(encoding="utf-8"))
    assert doc["kind"] == "JobSet"
    return doc


def _job(doc: Doc, index: int) -> Doc:
    job: Doc = doc["spec"]["replicatedJobs"][index]
    return job


def _set(path: str, value: Any) -> Callable[[Doc], None]:
    """Set a dotted path (list indexes as numbers) to ``value``."""

    def apply(doc: Doc) -> None:
        *head, last = [int(p) if p.isdigit() else p for p in path.split(".")]
        node: Any = doc
        for key in head:
            node = node[key]
        node[last] = value

    return apply


def _depend_on_later(doc: Doc) -> None:
    doc["spec"]["replicatedJobs"].append(copy.deepcopy(_job(doc, 1)) | {"name": "eval"})
    _job(doc, 1)["dependsOn"] = [{"name": "eval", "status": "Complete"}]


def _long_name(doc: Doc) -> None:
    """A 46-character name: the workers' pod names reach 64 characters, the driver's 63."""
    del doc["metadata"]["generateName"]
    doc["metadata"]["name"] = "j" * 46


BROKEN: dict[str, tuple[Callable[[Doc], None], str, str]] = {
    "first-depends-on": (
        _set("spec.replicatedJobs.0.dependsOn", [{"name": "workers", "status": "Ready"}]),
        "$.spec.replicatedJobs[0].dependsOn",
        "the first replicated job cannot depend on another",
    ),
    "depends-on-later": (
        _depend_on_later,
        "$.spec.replicatedJobs[1].dependsOn[0].name",
        "cannot depend on 'eval'",
    ),
    "subdomain-not-dns1035": (
        _set("spec.network.subdomain", "some.subdomain"),
        "$.spec.network.subdomain",
        "is not a DNS-1035 label",
    ),
    "group-name": (_set("spec.replicatedJobs.0.groupName", "Group_1"), "$.spec.replicatedJobs[0].groupName", "groupName 'Group_1'"),
    "long-job-names": (
        _long_name,
        "$.spec.replicatedJobs[0].name",
        "-workers-0-0-abcde' (64 characters) is not a DNS-1035 label",
    ),
    "success-target": (
        _set("spec.successPolicy", {"operator": "All", "targetReplicatedJobs": ["leader"]}),
        "$.spec.successPolicy.targetReplicatedJobs[0]",
        "'leader' is no replicated job of this JobSet (workers, driver)",
    ),
    "failure-reason": (
        _set("spec.failurePolicy", {"maxRestarts": 1, "rules": [{"name": "oom", "action": "FailJobSet", "onJobFailureReasons": ["OOMKilled"]}]}),
        "$.spec.failurePolicy.rules[0].onJobFailureReasons[0]",
        "'OOMKilled' is no Job failure reason",
    ),
    "failure-rule-name": (
        _set("spec.failurePolicy", {"rules": [{"name": "9lives", "action": "RestartJobSet"}]}),
        "$.spec.failurePolicy.rules[0].name",
        "rule name '9lives' must start with a letter",
    ),
    "failure-rule-twice": (
        _set("spec.failurePolicy", {"rules": [{"name": "a", "action": "FailJobSet"}, {"name": "a", "action": "RestartJobSet"}]}),
        "$.spec.failurePolicy.rules[1].name",
        "rule name 'a' is given to rules [0, 1]",
    ),
    "failure-target": (
        _set("spec.failurePolicy", {"rules": [{"name": "w", "action": "FailJobSet", "targetReplicatedJobs": ["worker"]}]}),
        "$.spec.failurePolicy.rules[0].targetReplicatedJobs[0]",
        "'worker' is no replicated job",
    ),
    "gated-action": (
        _set("spec.failurePolicy", {"rules": [{"name": "one", "action": "RestartJob"}]}),
        "$.spec.failurePolicy.rules[0].action",
        "RestartJob needs JobSet's RestartJob feature gate",
    ),
    "managed-by": (_set("spec.managedBy", "multikueue"), "$.spec.managedBy", "must be a domain-prefixed path"),
    "coordinator-job-index": (
        _set("spec.coordinator", {"replicatedJob": "driver", "jobIndex": 1}),
        "$.spec.coordinator.jobIndex",
        "coordinator job index 1 is not a Job of 'driver'",
    ),
}  # fmt: skip


def test_unbroken_upstream_example_passes(registry: SchemaRegistry) -> None:
    assert _findings(registry, _base()) == []


def test_the_sample_jobset_passes(registry: SchemaRegistry) -> None:
    (path,) = (SAMPLE / "generated/gpu-next/llm-pretrain").glob("jobset_*.yaml")
    assert _findings(registry, yaml.safe_load(path.read_text(encoding="utf-8"))) == []


@pytest.mark.parametrize("case", list(BROKEN))
def test_broken_one_way_is_one_webhook_finding(registry: SchemaRegistry, case: str) -> None:
    breaks, path, message = BROKEN[case]
    doc = _base()
    breaks(doc)
    found = _findings(registry, doc)
    webhook = [f for f in found if f.rule == "jobset-webhook"]
    assert [f.path for f in webhook] == [path], [f.message for f in found]
    assert message in webhook[0].message
    assert webhook[0].level == "error"
    # The schema and the CRD's CEL rules accept each of these: only the webhook rejects them.
    assert [f for f in found if f.rule != "jobset-webhook"] == []
