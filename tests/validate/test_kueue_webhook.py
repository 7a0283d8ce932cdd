"""``kueue-webhook``: Kueue's validating webhooks on the pod-set topology annotations (kubernetes-sigs/kueue
v0.19.2 ``pkg/controller/jobframework/tas_validation.go``), on Kueue's own TAS examples (a batch Job
and a LeaderWorkerSet with a pod-set group) broken one way at a time, and no finding on the unbroken
examples."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from conftest import EXAMPLES, needs_shared
from trainops.core.findings import Finding
from trainops.schemas.registry import SchemaRegistry
from trainops.validate.engine import ValidateOptions, validate_document
from trainops.yaml.load import load_text

pytestmark = needs_shared

TAS = EXAMPLES / "kueue/site/static/examples"
JOB = TAS / "tas/sample-job-required.yaml"
LWS = TAS / "serving-workloads/sample-leaderworkerset-tas.yaml"
Doc = dict[str, Any]
K = "kueue.x-k8s.io/podset-"
JOB_AT = "$.spec.template.metadata.annotations"
LEADER_AT = "$.spec.leaderWorkerTemplate.leaderTemplate.metadata.annotations"
WORKER_AT = "$.spec.leaderWorkerTemplate.workerTemplate.metadata.annotations"


@pytest.fixture(scope="module")
def registry(schema_cache: Path) -> SchemaRegistry:
    return SchemaRegistry("1.34", schema_cache)


def _findings(registry: SchemaRegistry, doc: Doc) -> list[Finding]:
    found: list[Finding] = []
    for document in load_text(json.dumps(doc), "tas.yaml").documents:
        found += validate_document(document, registry, ValidateOptions())
    return found


def _load(path: Path) -> Doc:
    doc: Doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    return doc


def _job_notes(doc: Doc) -> dict[str, str]:
    notes: dict[str, str] = doc["spec"]["template"]["metadata"]["annotations"]
    return notes


def _lws_notes(doc: Doc, which: str) -> dict[str, str]:
    notes: dict[str, str] = doc["spec"]["leaderWorkerTemplate"][which]["metadata"]["annotations"]
    return notes


def _set(**notes: str) -> Callable[[Doc], None]:
    return lambda doc: _job_notes(doc).update({K + k.replace("_", "-"): v for k, v in notes.items()})


def _key(at: str, name: str) -> str:
    return f"{at}['{K}{name}']"


#: case -> (example, how to break it, the finding's path (a pod-set group's: one per pod set), words of
#: the first finding's message).
BROKEN: dict[str, tuple[Path, Callable[[Doc], Any], str | tuple[str, ...], str]] = {
    "two modes": (JOB, _set(preferred_topology="cloud.provider.com/topology-block"), JOB_AT, "more than one"),
    "level no label name": (
        JOB,
        _set(required_topology="rack level"),
        _key(JOB_AT, "required-topology"),
        "is not a label name",
    ),
    "unconstrained no boolean": (
        JOB,
        lambda d: (_job_notes(d).clear(), _set(unconstrained_topology="maybe")(d)),
        _key(JOB_AT, "unconstrained-topology"),
        "must be a boolean value",
    ),
    "slice size without level": (
        JOB,
        _set(slice_size="2"),
        _key(JOB_AT, "slice-size"),
        "may not be set when",
    ),
    "slice level without size": (
        JOB,
        _set(slice_required_topology="kubernetes.io/hostname"),
        _key(JOB_AT, "slice-size"),
        "must be set when",
    ),
    "slice size no number": (
        JOB,
        _set(slice_required_topology="kubernetes.io/hostname", slice_size="two"),
        _key(JOB_AT, "slice-size"),
        "must be a numeric value",
    ),
    "slice size 0": (
        JOB,
        _set(slice_required_topology="kubernetes.io/hostname", slice_size="0"),
        _key(JOB_AT, "slice-size"),
        "greater than or equal to 1",
    ),
    "slice size above the pods": (
        JOB,
        _set(slice_required_topology="kubernetes.io/hostname", slice_size="11"),
        _key(JOB_AT, "slice-size"),
        "must not be greater than pod set count 10",
    ),
    "multi-layer sizes not dividing": (
        JOB,
        _set(
            slice_required_topology_constraints='[{"topology": "cloud.provider.com/topology-rack", "size": 4},'
            ' {"topology": "kubernetes.io/hostname", "size": 3}]'
        ),
        _key(JOB_AT, "slice-required-topology-constraints"),
        "must evenly divide the parent layer size 4",
    ),
    "group name a number": (
        LWS,
        lambda d: [
            _lws_notes(d, w).update({K + "group-name": "7"}) for w in ("leaderTemplate", "workerTemplate")
        ],
        (_key(LEADER_AT, "group-name"), _key(WORKER_AT, "group-name")),
        "must not be a number",
    ),
    "group of one pod set": (
        LWS,
        lambda d: _lws_notes(d, "workerTemplate").pop(K + "group-name"),
        _key(LEADER_AT, "group-name"),
        "exactly 2 pod sets, got 1",
    ),
    "group without the leader": (
        LWS,
        lambda d: d["spec"]["leaderWorkerTemplate"].pop("leaderTemplate"),
        _key(WORKER_AT, "group-name"),
        "exactly 2 pod sets, got 1",
    ),
    "group without a level": (
        LWS,
        lambda d: _lws_notes(d, "workerTemplate").pop(K + "required-topology"),
        # the worker's own annotations, then the group of the leader alone
        (_key(WORKER_AT, "group-name"), _key(LEADER_AT, "group-name")),
        "may not be set when neither",
    ),
    "group levels differ": (
        LWS,
        lambda d: _lws_notes(d, "workerTemplate").update(
            {K + "preferred-topology": _lws_notes(d, "workerTemplate").pop(K + "required-topology")}
        ),
        (LEADER_AT, WORKER_AT),
        "Kueue needs the same level and mode",
    ),
}


@pytest.mark.parametrize("path", [JOB, LWS], ids=lambda p: p.name)
def test_kueue_tas_examples_pass(registry: SchemaRegistry, path: Path) -> None:
    assert [f for f in _findings(registry, _load(path)) if f.rule == "kueue-webhook"] == []


@pytest.mark.parametrize("case", list(BROKEN))
def test_broken_one_way_is_one_webhook_finding_per_pod_set(registry: SchemaRegistry, case: str) -> None:
    example, breaks, path, words = BROKEN[case]
    doc = _load(example)
    breaks(doc)
    webhook = [f for f in _findings(registry, doc) if f.rule == "kueue-webhook"]
    assert [f.path for f in webhook] == ([path] if isinstance(path, str) else list(path)), [
        f.message for f in webhook
    ]
    assert words in webhook[0].message
    assert webhook[0].level == "error"


def test_a_job_without_a_queue_is_judged_too(registry: SchemaRegistry) -> None:
    """Kueue's Job webhook checks every Job (``JobWebhook.validateCreate`` does not look at the queue)."""
    doc = _load(JOB)
    del doc["metadata"]["labels"]
    _set(slice_size="2")(doc)
    assert [f.path for f in _findings(registry, doc) if f.rule == "kueue-webhook"] == [
        _key(JOB_AT, "slice-size")
    ]


def test_an_unqueued_pytorchjob_is_not_judged(registry: SchemaRegistry) -> None:
    """The Kubeflow v1 integrations are off in Kueue's shipped configuration: only a queued one is judged."""
    notes = {K + "slice-size": "1"}
    template = {
        "metadata": {"annotations": notes},
        "spec": {"containers": [{"name": "pytorch", "image": "x:1"}]},
    }
    doc: Doc = {
        "apiVersion": "kubeflow.org/v1",
        "kind": "PyTorchJob",
        "metadata": {"name": "p", "namespace": "ml"},
        "spec": {"pytorchReplicaSpecs": {"Master": {"replicas": 1, "template": template}}},
    }
    assert [f for f in _findings(registry, doc) if f.rule == "kueue-webhook"] == []
    doc["metadata"]["labels"] = {"kueue.x-k8s.io/queue-name": "q"}
    at = "$.spec.pytorchReplicaSpecs.Master.template.metadata.annotations"
    assert [f.path for f in _findings(registry, doc) if f.rule == "kueue-webhook"] == [_key(at, "slice-size")]
