"""CRD ``x-kubernetes-validations`` (CEL) rules: the upstream corpus, real examples, Kubernetes
semantics and the Kubernetes CEL library (``trainops.cel.crd_rules`` and ``trainops.cel.k8s``)."""

from __future__ import annotations

import copy
import csv
import pickle
import re
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from trainops.cel.crd_rules import (
    TRANSITION_REASON,
    CelValidator,
    CelViolation,
    RuleCensus,
    _Compiler,
    _Node,
    _self_fields,
    evaluate,
)

SHARED = Path(__file__).resolve().parents[2].parent / "shared"
CRDS = SHARED / "crds"
EXAMPLES = SHARED / "examples"
needs_shared = pytest.mark.skipif(
    not CRDS.is_dir(), reason="../shared/crds (the upstream CRD corpus) is not beside the repository"
)


class _Loader(yaml.CSafeLoader):
    """PyYAML cannot construct a plain ``=`` scalar (AlertmanagerConfig enum); Go reads it as "="."""


_Loader.add_constructor("tag:yaml.org,2002:value", lambda loader, node: loader.construct_scalar(node))  # type: ignore[arg-type]


def _load_all(path: Path) -> list[Any]:
    return list(yaml.load_all(path.read_text(encoding="utf-8"), Loader=_Loader))


# --------------------------------------------------------------------------- the upstream corpus

CRD_FILES = sorted(p.relative_to(CRDS).as_posix() for p in CRDS.rglob("*.yaml")) if CRDS.is_dir() else []

# (total, evaluated, skipped as transition rules) per CRD file, summed over its versions, as
# measured. Files not listed hold no rule. Every skipped rule is a transition rule (oldSelf).
EXPECTED_SPLIT: dict[str, tuple[int, int, int]] = {
    "argo-rollouts/rollout-crd.yaml": (1, 0, 1),
    "jobset/jobset.x-k8s.io_jobsets.yaml": (8, 2, 6),
    "kserve/serving.kserve.io_llminferenceserviceconfigs.yaml": (221, 221, 0),
    "kserve/serving.kserve.io_llminferenceservices.yaml": (237, 237, 0),
    "kserve/serving.kserve.io_localmodelcaches.yaml": (1, 0, 1),
    "kserve/serving.kserve.io_localmodelnamespacecaches.yaml": (1, 0, 1),
    "kueue/kueue.x-k8s.io_admissionchecks.yaml": (2, 0, 2),
    "kueue/kueue.x-k8s.io_clusterqueues.yaml": (8, 8, 0),
    "kueue/kueue.x-k8s.io_cohorts.yaml": (2, 2, 0),
    "kueue/kueue.x-k8s.io_localqueues.yaml": (2, 0, 2),
    "kueue/kueue.x-k8s.io_multikueueclusters.yaml": (1, 1, 0),
    "kueue/kueue.x-k8s.io_multikueueconfigs.yaml": (1, 1, 0),
    "kueue/kueue.x-k8s.io_resourceflavors.yaml": (20, 14, 6),
    "kueue/kueue.x-k8s.io_topologies.yaml": (6, 4, 2),
    "kueue/kueue.x-k8s.io_workloads.yaml": (37, 25, 12),
    "lws/disaggregatedset.x-k8s.io_disaggregatedsets.yaml": (1, 1, 0),
    "prometheus-operator/monitoring.coreos.com_alertmanagerconfigs.yaml": (1, 1, 0),
    "prometheus-operator/monitoring.coreos.com_alertmanagers.yaml": (1, 1, 0),
    "prometheus-operator/monitoring.coreos.com_prometheusagents.yaml": (16, 16, 0),
    "prometheus-operator/monitoring.coreos.com_prometheuses.yaml": (5, 5, 0),
    "prometheus-operator/monitoring.coreos.com_scrapeconfigs.yaml": (1, 1, 0),
    "prometheus-operator/monitoring.coreos.com_thanosrulers.yaml": (2, 2, 0),
    "trainer/trainer.kubeflow.org_clustertrainingruntimes.yaml": (11, 5, 6),
    "trainer/trainer.kubeflow.org_trainingruntimes.yaml": (11, 5, 6),
    "trainer/trainer.kubeflow.org_trainjobs.yaml": (19, 6, 13),
    "training-operator/kubeflow.org_jaxjobs.yaml": (1, 0, 1),
    "training-operator/kubeflow.org_mpijobs.yaml": (1, 0, 1),
    "training-operator/kubeflow.org_paddlejobs.yaml": (1, 0, 1),
    "training-operator/kubeflow.org_pytorchjobs.yaml": (1, 0, 1),
    "training-operator/kubeflow.org_tfjobs.yaml": (1, 0, 1),
    "training-operator/kubeflow.org_xgboostjobs.yaml": (1, 0, 1),
}


@dataclass(frozen=True)
class CompiledCrd:
    """One CRD file: its validators by served version, and the census over all versions."""

    validators: dict[str, CelValidator]
    census: RuleCensus


class Corpus:
    """The upstream CRDs, each parsed and compiled at most once per test session."""

    def __init__(self) -> None:
        self._crds: dict[str, CompiledCrd] = {}
        rows = csv.DictReader((CRDS / "catalog.tsv").read_text(encoding="utf-8").splitlines(), delimiter="\t")
        self._catalog = {row["path"]: row for row in rows}

    def catalog_rules(self, rel: str) -> int:
        return int(self._catalog[rel]["cel_rules"])

    def crd(self, rel: str) -> CompiledCrd:
        if rel not in self._crds:
            path = CRDS / rel
            text = path.read_text(encoding="utf-8")
            if "x-kubernetes-validations" not in text:  # no rule can hide without the key: skip parsing
                self._crds[rel] = CompiledCrd({}, RuleCensus())
            else:
                (crd,) = _load_all(path)
                validators = {
                    v["name"]: CelValidator.for_schema(v["schema"]["openAPIV3Schema"])
                    for v in crd["spec"]["versions"]
                }
                census = sum((val.census for val in validators.values()), RuleCensus())
                self._crds[rel] = CompiledCrd(validators, census)
        return self._crds[rel]

    def validator(self, api_version: str, kind: str) -> CelValidator:
        group, _, version = api_version.rpartition("/")
        for rel, row in self._catalog.items():
            if row["group"] == group and row["kind"] == kind and version in row["versions"].split(","):
                return self.crd(rel).validators[version]
        raise LookupError(f"no CRD with rules for {api_version} {kind}")

    def census(self) -> RuleCensus:
        return sum((self.crd(rel).census for rel in CRD_FILES), RuleCensus())


@pytest.fixture(scope="session")
def corpus() -> Corpus:
    if not CRDS.is_dir():
        pytest.skip("../shared/crds (the upstream CRD corpus) is not beside the repository")
    return Corpus()


@needs_shared
@pytest.mark.parametrize("rel", CRD_FILES)
def test_every_rule_of_each_crd_compiles(corpus: Corpus, rel: str) -> None:
    census = corpus.crd(rel).census
    assert [(r.position, r.reason) for r in census.failed] == []
    assert census.total == corpus.catalog_rules(rel)
    assert (census.total, census.evaluated, census.skipped_transition) == EXPECTED_SPLIT.get(rel, (0, 0, 0))


@needs_shared
def test_census_of_the_corpus(corpus: Corpus) -> None:
    census = corpus.census()
    assert (census.total, census.compiled, census.evaluated, census.skipped_transition, census.errors) == (
        622,
        622,
        558,
        64,
        0,
    )


@needs_shared
def test_skipped_rules_are_exactly_the_transition_rules(corpus: Corpus) -> None:
    census = corpus.census()
    assert {r.reason for r in census.skipped} == {TRANSITION_REASON}
    assert [r for r in census.rules if ("oldSelf" in r.rule) != (r.status == "skipped")] == []
    # what they check: mostly immutability
    kinds = Counter(
        "self == oldSelf" if r.rule == "self == oldSelf" else "conditional" for r in census.skipped
    )
    assert kinds == Counter({"self == oldSelf": 46, "conditional": 18})


# ------------------------------------------------------------------------------ upstream examples

EXAMPLE_FOLDERS = ("trainer", "kueue", "kserve", "prometheus-operator")


def _rule_kinds() -> set[tuple[str, str]]:
    with (CRDS / "catalog.tsv").open() as handle:
        return {
            (r["group"], r["kind"]) for r in csv.DictReader(handle, delimiter="\t") if int(r["cel_rules"]) > 0
        }


def _example_documents() -> Iterator[Any]:
    if not (CRDS.is_dir() and EXAMPLES.is_dir()):
        return
    kinds = _rule_kinds()
    for folder in EXAMPLE_FOLDERS:
        for path in sorted((EXAMPLES / folder).rglob("*.y*ml")):
            try:
                documents = _load_all(path)
            except yaml.YAMLError:
                continue  # a few upstream files are not YAML (templates); the loader tests cover them
            for index, doc in enumerate(documents):
                api_version = doc.get("apiVersion") if isinstance(doc, dict) else None
                if (
                    isinstance(api_version, str)
                    and (api_version.rpartition("/")[0], doc.get("kind")) in kinds
                ):
                    yield pytest.param(doc, id=f"{path.relative_to(EXAMPLES).as_posix()}#{index}")


_EPP = "$.spec.router.scheduler.pool.spec.endpointPickerRef"
_EPP_MESSAGE = "port is required when kind is 'Service' or unspecified (defaults to 'Service')"
# Upstream examples that the API server rejects too: these LLMInferenceServiceConfig samples give
# endpointPickerRef only `group`, so `kind` defaults to Service and `port` is missing (their
# required `name` is missing as well, which schema validation reports).
KNOWN_INVALID_EXAMPLES = {
    "kserve/docs/samples/llmisvc/e2e-gpt-oss/llmisvc_config_default.yaml#0": [(_EPP, _EPP_MESSAGE)],
    "kserve/docs/samples/llmisvc/e2e-gpt-oss/llmisvc_config_prefix_cache.yaml#0": [(_EPP, _EPP_MESSAGE)],
}


EXAMPLE_DOCUMENTS = list(_example_documents())


@needs_shared
@pytest.mark.parametrize("doc", EXAMPLE_DOCUMENTS)
def test_upstream_examples_pass_their_crd_rules(
    corpus: Corpus, doc: dict[str, Any], request: pytest.FixtureRequest
) -> None:
    validator = corpus.validator(doc["apiVersion"], doc["kind"])
    assert validator.census.total > 0
    violations = validator.validate(doc)
    assert [(v.path, v.message) for v in violations] == KNOWN_INVALID_EXAMPLES.get(
        request.node.callspec.id, []
    )


@needs_shared
@pytest.mark.parametrize(
    "kind",
    ["TrainJob", "ClusterTrainingRuntime", "JobSet", "ClusterQueue", "LLMInferenceService", "Prometheus"],
)
def test_examples_cover_the_projects_of_the_issue(kind: str) -> None:
    assert any(param.values[0]["kind"] == kind for param in EXAMPLE_DOCUMENTS)


def _set(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    """A mutation that sets ``a.b[0].c`` (creating mappings on the way)."""

    def mutate(doc: dict[str, Any]) -> None:
        keys: list[str | int] = [
            int(k) if k.isdigit() else k for k in path.replace("[", ".").replace("]", "").split(".")
        ]
        node: Any = doc
        for key in keys[:-1]:
            node = node.setdefault(key, {}) if isinstance(key, str) else node[key]
        node[keys[-1]] = value

    return mutate


def _chain(*mutations: Callable[[dict[str, Any]], None]) -> Callable[[dict[str, Any]], None]:
    def mutate(doc: dict[str, Any]) -> None:
        for mutation in mutations:
            mutation(doc)

    return mutate


def _delete(path: str) -> Callable[[dict[str, Any]], None]:
    """A mutation that removes ``a.b.c``."""

    def mutate(doc: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        node = doc
        for key in parents:
            node = node[key]
        del node[last]

    return mutate


def _reverse_levels(doc: dict[str, Any]) -> None:
    doc["spec"]["levels"].reverse()


_ROUTE = "spec.router.route"
MUTATIONS = [
    pytest.param(
        "trainer/examples/flux/lammps-train-job.yaml",
        0,
        _set("metadata.name", "Lammps_Flux"),
        [("$", "metadata.name must match RFC 1035 DNS label format")],
        id="trainjob-name-not-rfc1035",
    ),
    pytest.param(
        "trainer/examples/flux/lammps-train-job.yaml",
        0,
        _set("metadata.name", "l" * 64),
        [("$", "metadata.name must be no more than 63 characters")],
        id="trainjob-name-too-long",
    ),
    pytest.param(
        "trainer/examples/flux/lammps-train-job.yaml",
        0,
        _set("spec.managedBy", "example.com/my-controller"),
        [
            (
                "$.spec.managedBy",
                "ManagedBy must be trainer.kubeflow.org/trainjob-controller or kueue.x-k8s.io/multikueue if set",
            )
        ],
        id="trainjob-managed-by",
    ),
    pytest.param(
        "trainer/examples/flux/lammps-train-job.yaml",
        0,
        _set("spec.initializer.dataset.storageUri", "s3 bucket/data"),
        [
            (
                "$.spec.initializer.dataset.storageUri",
                "storageUri may be empty, or it must be a valid URI (scheme://...)",
            )
        ],
        id="trainjob-storage-uri",
    ),
    pytest.param(
        "trainer/manifests/base/runtimes/torch_distributed.yaml",
        0,
        _set("spec.mlPolicy.mpi", {"numProcPerNode": 1}),
        [("$.spec.mlPolicy", "Only one of the policy can be configured")],
        id="runtime-two-ml-policies",
    ),
    pytest.param(
        "kueue/site/static/examples/jobs/sample-jobset.yaml",
        0,
        _chain(
            _set("spec.startupPolicy", {"startupPolicyOrder": "InOrder"}),
            _set("spec.replicatedJobs[1].dependsOn", [{"name": "workers", "status": "Ready"}]),
        ),
        [("$.spec", "StartupPolicy and DependsOn APIs are mutually exclusive")],
        id="jobset-startup-policy-and-depends-on",
    ),
    pytest.param(
        "kueue/site/static/examples/admin/single-clusterqueue-setup.yaml",
        1,
        _set("spec.resourceGroups[0].coveredResources", ["cpu", "memory", "nvidia.com/gpu"]),
        [
            (
                "$.spec.resourceGroups[0]",
                "flavors must have the same number of resources as the coveredResources",
            )
        ],
        id="clusterqueue-covered-resources",
    ),
    pytest.param(
        "kueue/site/static/examples/admin/single-clusterqueue-setup.yaml",
        1,
        _set("spec.resourceGroups[0].flavors[0].resources[0].borrowingLimit", 2),
        [("$.spec", "borrowingLimit must be nil when cohort is empty")],
        id="clusterqueue-borrowing-limit-without-cohort",
    ),
    pytest.param(
        "kueue/site/static/examples/admin/resource-flavor-tolerations.yaml",
        0,
        _set("spec.tolerations[0].operator", "In"),
        [("$.spec.tolerations", "supported toleration values: 'Equal'(default), 'Exists'")],
        id="resourceflavor-toleration-operator",
    ),
    pytest.param(
        "kueue/site/static/examples/tas/sample-gpu-queues.yaml",
        0,
        _reverse_levels,
        [
            (
                "$.spec.levels",
                "the kubernetes.io/hostname label can only be used at the lowest level of topology",
            )
        ],
        id="topology-hostname-not-lowest",
    ),
    pytest.param(
        "kueue/site/static/examples/multikueue/tas/manager-setup.yaml",
        2,
        _set("spec.clusters", ["worker1", "worker2", "worker1"]),
        [("$.spec.clusters", "must be unique")],
        id="multikueueconfig-duplicate-cluster",
    ),
    pytest.param(
        "kserve/docs/samples/llmisvc/opt-125m-cpu/llm-inference-service-facebook-opt-125m-cpu-no-scheduler.yaml",
        0,
        _set("spec.scaling", {"minReplicas": 1, "maxReplicas": 2, "wva": {"hpa": {}}}),
        [
            (
                "$.spec",
                "replicas and scaling are mutually exclusive; use scaling for autoscaled deployments or "
                "replicas for static deployments",
            )
        ],
        id="llmisvc-replicas-and-scaling",
    ),
    pytest.param(
        "kserve/docs/samples/llmisvc/opt-125m-cpu/llm-inference-service-facebook-opt-125m-cpu-no-scheduler.yaml",
        0,
        _set(
            f"{_ROUTE}.http.spec.rules",
            [{"matches": [{"path": {"type": "PathPrefix", "value": "v1/completions"}}]}],
        ),
        [
            (
                "$.spec.router.route.http.spec.rules[0].matches[0].path",
                "value must be an absolute path and start with '/' when type one of ['Exact', 'PathPrefix']",
            )
        ],
        id="llmisvc-route-path-not-absolute",
    ),
    pytest.param(
        "prometheus-operator/example/rbac/prometheus-agent/prometheus.yaml",
        0,
        _chain(_set("spec.mode", "DaemonSet"), _delete("spec.serviceMonitorSelector")),
        [("$.spec", "replicas cannot be set when mode is DaemonSet")],
        id="prometheusagent-daemonset-replicas",
    ),
    pytest.param(
        "prometheus-operator/example/user-guides/alerting/alertmanager-selector-example.yaml",
        0,
        _set("spec.updateStrategy", {"type": "OnDelete", "rollingUpdate": {}}),
        [("$.spec.updateStrategy", "rollingUpdate requires type to be RollingUpdate")],
        id="alertmanager-rolling-update",
    ),
]


@needs_shared
@pytest.mark.parametrize(("rel", "index", "mutate", "expected"), MUTATIONS)
def test_mutated_example_breaks_exactly_one_rule(
    corpus: Corpus,
    rel: str,
    index: int,
    mutate: Callable[[dict[str, Any]], None],
    expected: list[tuple[str, str]],
) -> None:
    doc = copy.deepcopy(_load_all(EXAMPLES / rel)[index])
    validator = corpus.validator(doc["apiVersion"], doc["kind"])
    assert validator.validate(doc) == []
    mutate(doc)
    assert [(v.path, v.message) for v in validator.validate(doc)] == expected


# ------------------------------------------------------------------- Kubernetes semantics (unit)


def _schema(spec: dict[str, Any], **root: Any) -> dict[str, Any]:
    """A CRD-like root schema whose ``spec`` is ``spec``."""
    return {
        "type": "object",
        "properties": {
            "apiVersion": {"type": "string"},
            "kind": {"type": "string"},
            "metadata": {"type": "object"},
            "spec": spec,
        },
        **root,
    }


def _rule(rule: str, **extra: Any) -> dict[str, Any]:
    return {"x-kubernetes-validations": [{"rule": rule, **extra}]}


def _obj(spec: Any = None, **top: Any) -> dict[str, Any]:
    doc = {
        "apiVersion": "example.com/v1",
        "kind": "Widget",
        "metadata": {"name": "w", "namespace": "ns"},
        **top,
    }
    if spec is not None:
        doc["spec"] = spec
    return doc


def _check(schema: dict[str, Any], obj: dict[str, Any]) -> list[tuple[str, str]]:
    return [(v.path, v.message) for v in CelValidator.for_schema(schema).validate(obj)]


INT_FIELDS = {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}}
SEMANTICS = [
    pytest.param(
        _schema({**INT_FIELDS, **_rule("!has(self.b) || self.a <= self.b")}),
        _obj({"a": 5}),
        [],
        id="has-on-absent-field",
    ),
    pytest.param(
        _schema({**INT_FIELDS, **_rule("!has(self.b) || self.a <= self.b")}),
        _obj({"a": 5, "b": 1}),
        [("$.spec", "failed rule: !has(self.b) || self.a <= self.b")],
        id="default-message-is-failed-rule",
    ),
    pytest.param(
        _schema({**INT_FIELDS, **_rule("self.a > 0", message=" a must be positive ")}),
        _obj(),
        [],
        id="rule-skipped-when-value-absent",
    ),
    pytest.param(
        _schema({**INT_FIELDS, **_rule("self.a > 0", message=" a must be positive ")}),
        _obj({"a": 0}),
        [("$.spec", "a must be positive")],
        id="message-is-trimmed",
    ),
    pytest.param(
        _schema({**INT_FIELDS, **_rule("self.a == self.b")}),
        _obj({"a": 1}),
        [("$.spec", "rule evaluation error: no such key: b")],
        id="runtime-error-is-a-violation",
    ),
    pytest.param(
        _schema({**INT_FIELDS, **_rule("self.a + self.b > 0")}),
        _obj({"a": 2**62, "b": 2**62}),
        [("$.spec", "rule evaluation error: integer overflow")],
        id="integer-overflow",
    ),
    pytest.param(
        _schema({**INT_FIELDS, **_rule("self.a > 0")}),
        _obj({"a": "three"}),
        [("$.spec", "rule evaluation error: No matching overloads found : _>_(string, int64)")],
        id="data-of-the-wrong-type",
    ),
    pytest.param(
        _schema({"type": "integer", **_rule("self > 0")}),
        _obj("three"),
        [("$.spec", "rule evaluation error: Unexpected value type for 'self': str. (Expected INT)")],
        id="self-of-the-wrong-type",
    ),
    pytest.param(
        _schema({"type": "object"}, **_rule("self.kind == 'Widget' && self.metadata.name == 'w'")),
        _obj(),
        [],
        id="root-sees-kind-and-name",
    ),
    pytest.param(
        _schema({"type": "object"}, **_rule("!has(self.metadata.namespace)")),
        _obj(),
        [],
        id="root-metadata-has-only-name-and-generateName",
    ),
    pytest.param(
        _schema(
            {
                "type": "object",
                "properties": {"kind": {"type": "string", "default": "Service"}, "port": {"type": "integer"}},
                **_rule("self.kind != 'Service' || has(self.port)"),
            }
        ),
        _obj({}),
        [("$.spec", "failed rule: self.kind != 'Service' || has(self.port)")],
        id="defaults-are-applied-first",
    ),
    pytest.param(
        _schema({**INT_FIELDS, **_rule("!has(self.a)")}),
        _obj({"a": None}),
        [],
        id="null-in-non-nullable-field-is-absent",
    ),
    pytest.param(
        _schema(
            {
                "type": "object",
                "properties": {"a": {"type": "integer", "nullable": True}},
                **_rule("self.a == null"),
            }
        ),
        _obj({"a": None}),
        [],
        id="nullable-null-is-visible",
    ),
    pytest.param(
        _schema({**INT_FIELDS, **_rule("!has(self.extra)")}),
        _obj({"a": 1, "extra": True}),
        [],
        id="unknown-fields-are-pruned",
    ),
    pytest.param(
        _schema(
            {
                "type": "object",
                "properties": {
                    "foo-bar": {"type": "string"},
                    "namespace": {"type": "string"},
                    "a.b": {"type": "string"},
                },
                **_rule(
                    "self.foo__dash__bar == 'x' && self.__namespace__ == 'y' && self.namespace == 'y' && self.a__dot__b == 'z'"
                ),
            }
        ),
        _obj({"foo-bar": "x", "namespace": "y", "a.b": "z"}),
        [],
        id="escaped-property-names",
    ),
    pytest.param(
        _schema({**INT_FIELDS, **_rule("self.?b.orValue(self.a) >= self.a && self[?'a'].hasValue()")}),
        _obj({"a": 3}),
        [],
        id="optional-syntax",
    ),
    pytest.param(
        _schema({"type": "string", **_rule("self.lowerAscii() == self && self.split('-').size() == 2")}),
        _obj("web-app"),
        [],
        id="strings-extension",
    ),
    pytest.param(
        _schema(
            {
                "type": "array",
                "items": {"type": "integer"},
                **_rule("sets.contains(self, [1]) && self.all(i, v, v > i)"),
            }
        ),
        _obj([1, 2, 3]),
        [],
        id="sets-and-two-variable-comprehensions",
    ),
    pytest.param(
        _schema(
            {"type": "array", "items": {"type": "integer", **_rule("self % 2 == 0", message="must be even")}}
        ),
        _obj([2, 3, 4]),
        [("$.spec[1]", "must be even")],
        id="rule-on-items-path",
    ),
    pytest.param(
        _schema(
            {
                "type": "object",
                "additionalProperties": {"type": "string", **_rule("self != ''", message="empty label")},
            }
        ),
        _obj({"app.kubernetes.io/name": "", "team": "ml"}),
        [("$.spec['app.kubernetes.io/name']", "empty label")],
        id="rule-on-additional-properties-path",
    ),
    pytest.param(
        _schema(
            {"x-kubernetes-int-or-string": True, **_rule("type(self) == int ? self > 0 : self.endsWith('%')")}
        ),
        _obj("50"),
        [("$.spec", "failed rule: type(self) == int ? self > 0 : self.endsWith('%')")],
        id="int-or-string-is-dyn",
    ),
    pytest.param(
        _schema({"type": "number", **_rule("self < 0.5")}),
        _obj(1),
        [("$.spec", "failed rule: self < 0.5")],
        id="number-given-as-int-is-double",
    ),
    pytest.param(
        _schema({"type": "integer", **_rule("self < 2.5")}),
        _obj(2),
        [],
        id="cross-type-numeric-comparison",
    ),
    pytest.param(
        _schema(
            {"type": "string", "format": "date-time", **_rule("self > timestamp('2024-01-01T00:00:00Z')")}
        ),
        _obj("2023-06-01T12:00:00Z"),
        [("$.spec", "failed rule: self > timestamp('2024-01-01T00:00:00Z')")],
        id="date-time-is-timestamp",
    ),
    pytest.param(
        _schema({"type": "string", "format": "duration", **_rule("self <= duration('1h')")}),
        _obj("1h30m"),
        [("$.spec", "failed rule: self <= duration('1h')")],
        id="duration-format-is-duration",
    ),
    pytest.param(
        _schema({"type": "object", "allOf": [_rule("has(self.a)", message="a is required")], **INT_FIELDS}),
        _obj({"b": 1}),
        [("$.spec", "a is required")],
        id="rules-under-allOf",
    ),
    pytest.param(
        _schema(
            {
                "type": "object",
                "properties": {"image": {"type": "object", "x-kubernetes-embedded-resource": True}},
                **_rule(
                    "self.image.kind == 'Pod' && self.image.metadata.name == 'p' && !has(self.image.spec)"
                ),
            }
        ),
        _obj(
            {
                "image": {
                    "apiVersion": "v1",
                    "kind": "Pod",
                    "metadata": {"name": "p", "labels": {}},
                    "spec": {},
                }
            }
        ),
        [],
        id="embedded-resource-root",
    ),
    pytest.param(
        _schema(
            {
                "type": "object",
                "properties": {
                    "raw": {
                        "type": "object",
                        "x-kubernetes-embedded-resource": True,
                        "x-kubernetes-preserve-unknown-fields": True,
                    }
                },
                **_rule("self.raw.apiVersion == 'v1' && !has(self.raw.data)"),
            }
        ),
        _obj({"raw": {"apiVersion": "v1", "kind": "ConfigMap", "data": {"a": "b"}}}),
        [],
        id="embedded-resource-with-unknown-fields",
    ),
    pytest.param(
        _schema(
            {
                "type": "object",
                "properties": {
                    "b": {"type": "integer", **_rule("self > 0", message="b must be positive")},
                    "a": {"type": "integer", **_rule("self > 0", message="a must be positive")},
                },
            }
        ),
        _obj({"a": 0, "b": 0}),
        [("$.spec.a", "a must be positive"), ("$.spec.b", "b must be positive")],
        id="violations-in-document-order",
    ),
]


@pytest.mark.parametrize(("schema", "obj", "expected"), SEMANTICS)
def test_kubernetes_semantics(
    schema: dict[str, Any], obj: dict[str, Any], expected: list[tuple[str, str]]
) -> None:
    assert _check(schema, obj) == expected


REPLICAS = {"type": "object", "properties": {"replicas": {"type": "integer"}, "max": {"type": "integer"}}}
MESSAGES = [
    pytest.param(
        {
            "rule": "self.replicas <= self.max",
            "messageExpression": "'replicas ' + string(self.replicas) + ' > max'",
        },
        CelViolation("$.spec", "replicas 5 > max", "self.replicas <= self.max"),
        id="messageExpression",
    ),
    pytest.param(
        {"rule": "self.replicas <= self.max", "messageExpression": "''", "message": "too many"},
        CelViolation("$.spec", "too many", "self.replicas <= self.max"),
        id="empty-messageExpression-falls-back",
    ),
    pytest.param(
        {"rule": "self.replicas <= self.max", "messageExpression": "self.nope"},
        CelViolation("$.spec", "failed rule: self.replicas <= self.max", "self.replicas <= self.max"),
        id="failing-messageExpression-falls-back",
    ),
    pytest.param(
        {"rule": "self.replicas <= self.max", "fieldPath": ".replicas", "reason": "FieldValueForbidden"},
        CelViolation(
            "$.spec.replicas",
            "failed rule: self.replicas <= self.max",
            "self.replicas <= self.max",
            "FieldValueForbidden",
        ),
        id="fieldPath-and-reason",
    ),
    pytest.param(
        {"rule": "self.replicas <= self.max", "fieldPath": "['max']"},
        CelViolation("$.spec.max", "failed rule: self.replicas <= self.max", "self.replicas <= self.max"),
        id="fieldPath-bracket-form",
    ),
    pytest.param(
        {"rule": "self.replicas <=", "message": "broken"},
        CelViolation(
            "$.spec",
            "rule compile error: ERROR: <input>:1:17: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}",
            "self.replicas <=",
        ),
        id="compile-error-is-reported",
    ),
    pytest.param(
        {"rule": "self.replicas <= self.max", "messageExpression": "size(self)"},
        CelViolation(
            "$.spec",
            "rule compile error: messageExpression must evaluate to a string, not int",
            "self.replicas <= self.max",
        ),
        id="non-string-messageExpression",
    ),
    pytest.param(
        {"rule": "size(self)"},
        CelViolation("$.spec", "rule compile error: the rule must evaluate to a bool, not int", "size(self)"),
        id="non-bool-rule-at-compile-time",
    ),
    pytest.param(
        {"rule": "self.replicas"},
        CelViolation("$.spec", "rule evaluation error: the rule evaluated to int, not bool", "self.replicas"),
        id="non-bool-rule-at-run-time",
    ),
    pytest.param(
        {"rule": "oldSelf.hasValue()", "optionalOldSelf": True, "message": "create only"},
        CelViolation("$.spec", "create only", "oldSelf.hasValue()"),
        id="optionalOldSelf-is-evaluated-as-none",
    ),
    pytest.param(
        {
            "rule": "!oldSelf.hasValue() && self.max > 3",
            "optionalOldSelf": True,
            "messageExpression": "oldSelf.hasValue() ? 'changed' : 'max must exceed 3'",
        },
        CelViolation("$.spec", "max must exceed 3", "!oldSelf.hasValue() && self.max > 3"),
        id="optionalOldSelf-in-messageExpression",
    ),
]


@pytest.mark.parametrize(("rule", "expected"), MESSAGES)
def test_messages_paths_and_reasons(rule: dict[str, Any], expected: CelViolation) -> None:
    validator = CelValidator.for_schema(_schema({**REPLICAS, "x-kubernetes-validations": [rule]}))
    assert validator.validate(_obj({"replicas": 5, "max": 3})) == [expected]


def test_transition_rules_are_skipped_and_counted() -> None:
    schema = _schema(
        {**REPLICAS, "x-kubernetes-validations": [{"rule": "self == oldSelf"}, {"rule": "self.max > 0"}]}
    )
    validator = CelValidator.for_schema(schema)
    assert validator.validate(_obj({"replicas": 5, "max": 0})) == [
        CelViolation("$.spec", "failed rule: self.max > 0", "self.max > 0")
    ]
    census = validator.census
    assert (census.total, census.compiled, census.evaluated, census.skipped_transition, census.errors) == (
        2,
        2,
        1,
        1,
        0,
    )
    assert [(r.position, r.rule, r.reason) for r in census.skipped] == [
        ("$.spec", "self == oldSelf", TRANSITION_REASON)
    ]


def test_census_records_compile_errors() -> None:
    census = CelValidator.for_schema(_schema({**REPLICAS, **_rule("self.replicas >")})).census
    assert (census.total, census.compiled, census.errors) == (1, 0, 1)
    assert census.failed[0].position == "$.spec"
    assert census.failed[0].reason.startswith("ERROR: <input>:1:16: Syntax error")


def test_validator_survives_pickling() -> None:
    validator = CelValidator.for_schema(_schema({**REPLICAS, **_rule("self.replicas <= self.max")}))
    clone = pickle.loads(pickle.dumps(validator))
    assert clone.validate(_obj({"replicas": 5, "max": 3})) == validator.validate(
        _obj({"replicas": 5, "max": 3})
    )
    assert clone.census == validator.census


def test_bad_input_is_not_an_exception() -> None:
    validator = CelValidator.for_schema(_schema({**REPLICAS, **_rule("self.replicas <= self.max")}))
    assert validator.validate([1, 2]) == []  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="must be a mapping"):
        CelValidator.for_schema([])  # type: ignore[arg-type]


def test_schema_without_rules() -> None:
    validator = CelValidator.for_schema(_schema(REPLICAS))
    assert not validator.has_rules
    assert validator.census == RuleCensus()
    assert validator.validate(_obj({"replicas": 1})) == []


def test_a_schema_with_only_transition_rules_has_nothing_to_evaluate() -> None:
    """The Training Operator's job CRDs hold one ``self == oldSelf`` rule: it is counted in the census
    as skipped, and validation does not walk their objects for it."""
    validator = CelValidator.for_schema(_schema({**REPLICAS, **_rule("self.replicas == oldSelf.replicas")}))
    assert not validator.has_rules
    assert (validator.census.total, validator.census.skipped_transition) == (1, 1)
    assert validator.validate(_obj({"replicas": 1})) == []
    mixed = CelValidator.for_schema(
        _schema(
            {
                **REPLICAS,
                "x-kubernetes-validations": [{"rule": "self == oldSelf"}, {"rule": "self.replicas < 5"}],
            }
        )
    )
    assert mixed.has_rules
    assert [v.message for v in mixed.validate(_obj({"replicas": 9}))] == ["failed rule: self.replicas < 5"]


# ----------------------------------------------------------------- Kubernetes CEL library (unit)

LIBRARY = [
    # lists
    ("[1, 2, 2, 3].isSorted()", True),
    ("['b', 'a'].isSorted()", False),
    ("[].isSorted()", True),
    ("[1, 3].sum()", 4),
    ("[1.5, 2.0].sum()", 3.5),
    ("[].sum()", 0),
    ("[3, 1, 2].min()", 1),
    ("['a', 'c', 'b'].max()", "c"),
    ("[1, 2, 2, 3].indexOf(2)", 1),
    ("['a', 'b', 'b', 'c'].lastIndexOf('b')", 2),
    ("[1.0].indexOf(1.1)", -1),
    ("[true].indexOf(1)", -1),
    # regex
    ("'abc 123'.find('[0-9]+')", "123"),
    ("'abc 123'.find('xyz')", ""),
    ("'123 abc 456'.findAll('[0-9]+')", ["123", "456"]),
    ("'123 abc 456'.findAll('[0-9]+', 1)", ["123"]),
    ("'aaa'.findAll('a*')", ["aaa"]),
    ("'end'.find('d\\\\z')", "d"),
    # URLs
    ("url('https://user:pass@example.com:80/path?query=val#fragment').getScheme()", "https"),
    ("url('https://example.com:80/').getHost()", "example.com:80"),
    ("url('https://[::1]:80/').getHost()", "[::1]:80"),
    ("url('https://[::1]:80/').getHostname()", "::1"),
    ("url('https://example.com:80/').getPort()", "80"),
    ("url('https://example.com/').getPort()", ""),
    ("url('/path').getHost()", ""),
    ("url('https://example.com/path with spaces/').getEscapedPath()", "/path%20with%20spaces/"),
    ("url('https://example.com').getEscapedPath()", ""),
    ("url('https://example.com/path?k1=a&k2=b&k2=c').getQuery()", {"k1": ["a"], "k2": ["b", "c"]}),
    (
        "url('https://example.com/path?key+with+spaces=value%20x').getQuery()",
        {"key with spaces": ["value x"]},
    ),
    ("url('https://example.com/path?').getQuery()", {}),
    ("isURL('https://user:pass@example.com:80/path?query=val#fragment')", True),
    ("isURL('/absolute-path')", True),
    ("isURL('https://a:b:c/')", False),
    ("isURL('../relative-path')", False),
    # quantity
    ("isQuantity('1.3G')", True),
    ("isQuantity('1.3Gi')", True),
    ("isQuantity('1,3G')", False),
    ("isQuantity('200K')", False),
    ("isQuantity('Mi')", False),
    ("quantity('200M').compareTo(quantity('0.2G'))", 0),
    ("quantity('50M').compareTo(quantity('50Mi'))", -1),
    ("quantity('150Mi').isGreaterThan(quantity('100Mi'))", True),
    ("quantity('50M').isLessThan(quantity('100M'))", True),
    ("quantity('1') == quantity('1000m')", True),
    ("quantity('50k').add(quantity('20k')) == quantity('70k')", True),
    ("quantity('50k').add(20) == quantity('50020')", True),
    ("quantity('50k').sub(20000) == quantity('30k')", True),
    ("quantity('50k').add(20).sub(quantity('100k')).sub(-50000) == quantity('20')", True),
    ("quantity('3Gi').mul(2) == quantity('6Gi')", True),
    ("quantity('50k').asInteger()", 50000),
    ("quantity('50000000G').isInteger()", True),
    ("quantity('1.5').isInteger()", False),
    ("quantity('9999999999999999999999999999999999999G').isInteger()", False),
    ("quantity('50k').sub(20000).asApproximateFloat()", 30000.0),
    ("quantity('-5').sign()", -1),
    ("sign(quantity('0'))", 0),
    # IP
    ("isIP('127.0.0.1')", True),
    ("isIP('::1')", True),
    ("isIP('127.0.0.256')", False),
    ("isIP(':::1')", False),
    ("isIP('01.2.3.4')", False),
    ("isIP('::ffff:1.2.3.4')", False),
    ("isIP('fe80::1%eth0')", False),
    ("ip.isCanonical('127.0.0.1')", True),
    ("ip.isCanonical('2001:db8::abcd')", True),
    ("ip.isCanonical('2001:DB8::ABCD')", False),
    ("ip.isCanonical('2001:db8::0:0:0:abcd')", False),
    ("ip('127.0.0.1').family()", 4),
    ("ip('::1').family()", 6),
    ("ip('0.0.0.0').isUnspecified()", True),
    ("ip('::1').isUnspecified()", False),
    ("ip('127.0.0.1').isLoopback()", True),
    ("ip('2001:db8::abcd').isLoopback()", False),
    ("ip('224.0.0.1').isLinkLocalMulticast()", True),
    ("ip('224.0.1.1').isLinkLocalMulticast()", False),
    ("ip('ff02::1').isLinkLocalMulticast()", True),
    ("ip('fd00::1').isLinkLocalMulticast()", False),
    ("ip('169.254.169.254').isLinkLocalUnicast()", True),
    ("ip('fe80::1').isLinkLocalUnicast()", True),
    ("ip('fd80::1').isLinkLocalUnicast()", False),
    ("ip('192.168.0.1').isGlobalUnicast()", True),
    ("ip('255.255.255.255').isGlobalUnicast()", False),
    ("ip('2001:db8::abcd').isGlobalUnicast()", True),
    ("ip('ff00::1').isGlobalUnicast()", False),
    ("string(ip('2001:DB8:0:0:0:0:0:1'))", "2001:db8::1"),
    ("ip('10.0.0.1') == ip('10.0.0.1')", True),
    # CIDR
    ("isCIDR('192.168.0.0/16')", True),
    ("isCIDR('::1/128')", True),
    ("isCIDR('192.168.0.0/33')", False),
    ("isCIDR('::1/129')", False),
    ("isCIDR('192.168.0.0/016')", False),
    ("isCIDR('192.168.0.0')", False),
    ("cidr('192.168.0.0/24').containsIP(ip('192.168.0.1'))", True),
    ("cidr('192.168.0.0/24').containsIP(ip('192.168.1.1'))", False),
    ("cidr('192.168.0.0/24').containsIP('192.168.0.1')", True),
    ("cidr('::/0').containsIP('10.0.0.1')", False),
    ("cidr('192.168.0.0/16').containsCIDR(cidr('192.168.10.0/24'))", True),
    ("cidr('192.168.1.0/24').containsCIDR(cidr('192.168.2.0/24'))", False),
    ("cidr('192.168.0.0/16').containsCIDR('192.168.10.0/24')", True),
    ("cidr('192.168.10.0/24').containsCIDR('192.168.0.0/16')", False),
    ("cidr('192.168.0.1/24').ip().family()", 4),
    ("string(cidr('192.168.0.1/24').ip())", "192.168.0.1"),
    ("cidr('192.168.0.1/24').masked() == cidr('192.168.0.0/24')", True),
    ("cidr('192.168.0.1/24') == cidr('192.168.0.1/24').masked()", False),
    ("string(cidr('192.168.0.1/24').masked())", "192.168.0.0/24"),
    ("cidr('::1/128').prefixLength()", 128),
    # cel-cpp extensions Kubernetes enables
    ("'Hello'.lowerAscii()", "hello"),
    ("'a,b'.split(',')", ["a", "b"]),
    ("sets.intersects([1, 2], [2, 3])", True),
    ("{'a': 1}.exists(k, v, k == 'a' && v == 1)", True),
    ("self.?missing.orValue('x')", "x"),
]


@pytest.mark.parametrize(("expression", "expected"), LIBRARY)
def test_library_function(expression: str, expected: Any) -> None:
    result = evaluate(expression, {})
    assert result == expected
    assert type(result) is type(expected)


LIBRARY_ERRORS = [
    ("[].min()", "min called on empty list"),
    ("[].max()", "max called on empty list"),
    ("[9223372036854775807, 1].sum()", "integer overflow"),
    ("['a'].sum()", "no such overload"),
    ("[1, 'a'].isSorted()", "no such overload"),
    ("'x'.find('(')", "Illegal regex"),
    ("url('https://a:b:c/')", "URL parse error during conversion from string: invalid port ':c' after host"),
    ("url('../relative-path')", "invalid URI for request"),
    ("url('https://exa mple.com/')", "invalid character ' ' in host name"),
    ("quantity('200K')", "'200K' is not a quantity"),
    ("quantity('9999999999999999999999999999999999999G').asInteger()", "cannot convert value to integer"),
    ("quantity('1.5').asInteger()", "cannot convert value to integer"),
    (
        "quantity('1').isGreaterThan(url('/x'))",
        "no such overload: isGreaterThan applied to a value that is not a Quantity",
    ),
    ("ip('127.0.0.256')", "parse error during conversion from string"),
    ("ip('::ffff:1.2.3.4')", "IPv4-mapped IPv6 address '::ffff:1.2.3.4' is not allowed"),
    ("ip('fe80::1%eth0')", "with zone value is not allowed"),
    ("ip.isCanonical('x')", "parse error during conversion from string"),
    ("cidr('192.168.0.0/33')", "bad bits after slash"),
    ("cidr('::ffff:1.2.3.4/120')", "IPv4-mapped IPv6 address"),
    ("string({'a': 'b'})", "no such overload"),
    ("1 + ", "Syntax error"),
    ("self.spec.replicas", "no such key: spec"),
]


@pytest.mark.parametrize(("expression", "error"), LIBRARY_ERRORS)
def test_library_error(expression: str, error: str) -> None:
    with pytest.raises(ValueError, match=re.escape(error)):
        evaluate(expression, {})


def _shape(node: _Node) -> tuple[Any, ...]:
    """What evaluation reads of a node and everything below it (values of ``self`` are built from it)."""
    return (
        node.kind,
        node.fmt,
        node.nullable,
        node.has_default,
        repr(node.default),
        node.type_key,
        [(name, node.cel_keys[name], _shape(child)) for name, child in node.properties.items()],
        None if node.items is None else _shape(node.items),
        None if node.additional is None else _shape(node.additional),
    )


def _rule_nodes(node: _Node, path: str = "$") -> Iterator[tuple[str, list[str], tuple[Any, ...]]]:
    """(path, rule sources, shape of the subtree) of every node that evaluates rules, below ``node``."""
    if node.rules:
        yield path, [rule.source for rule in node.rules], _shape(node)
    for name, child in node.properties.items():
        yield from _rule_nodes(child, f"{path}.{name}")
    for suffix, child in (("[*]", node.items), (".*", node.additional)):
        if child is not None:
            yield from _rule_nodes(child, path + suffix)


@needs_shared
@pytest.mark.parametrize("rel", CRD_FILES)
def test_pruned_compile_keeps_every_evaluated_rule_and_its_types(rel: str) -> None:
    """The compiler leaves out subtrees without rules: every rule node of the whole tree is still there,
    with everything below it (the value of its ``self``), and the census is the same."""
    text = (CRDS / rel).read_text(encoding="utf-8")
    if "x-kubernetes-validations" not in text:
        pytest.skip("no rules")
    (crd,) = _load_all(CRDS / rel)
    for version in crd["spec"]["versions"]:
        schema = version["schema"]["openAPIV3Schema"]
        pruned, whole = _Compiler(), _Compiler(prune=False)
        pruned_root = pruned.node(schema, [schema], "$", resource_root=True)
        whole_root = whole.node(schema, [schema], "$", resource_root=True)
        assert list(_rule_nodes(pruned_root)) == list(_rule_nodes(whole_root))
        assert pruned.records == whole.records
        assert pruned_root.subtree_has_rules == whole_root.subtree_has_rules


# ------------------------------------------------------------ narrowed evaluation (issue 36, speed)


def _whole(schema: dict[str, Any]) -> CelValidator:
    """The validator of ``schema`` without narrowing: every rule's ``self`` is the whole value and
    each rule is evaluated alone (the reading the narrowed one must agree with)."""
    compiler = _Compiler(narrow=False)
    root = compiler.node(schema, [schema], "$", resource_root=True)
    return CelValidator(schema, root, RuleCensus(tuple(compiler.records)))


SELF_FIELDS = [
    ("self.metadata.name.matches('^[a-z]$')", frozenset({"metadata"})),
    ("size(self.metadata.name) <= 63", frozenset({"metadata"})),
    ("has(self.lastUpdatedTime)", frozenset({"lastUpdatedTime"})),
    ("self.?x.orValue(1) > self.y", frozenset({"x", "y"})),
    ("!has(self.b) || self.a <= self.b", frozenset({"a", "b"})),
    ("self.__namespace__ == 'x'", frozenset({"__namespace__"})),
    ("'self' == self.a && x.self == 1", frozenset({"a"})),  # a string, and a field named self
    ('"""self""" + self.q == ""', frozenset({"q"})),
    ("self.a // self\n && true", frozenset({"a"})),  # a comment
    ("1 < 2", frozenset()),
    ("self == oldSelf", None),  # the whole value
    ("self in ['a', 'b']", None),
    ("self.all(x, x > 1)", None),  # a method of self
    ("self.exists(self, self.a)", None),
    ("self['a'] == 1", None),
    ("r'self' == self.a", None),  # a raw string: not understood, the whole value
]


@pytest.mark.parametrize(("source", "expected"), SELF_FIELDS)
def test_fields_of_self_a_rule_reads(source: str, expected: frozenset[str] | None) -> None:
    assert _self_fields(source) == expected


@pytest.mark.parametrize(("schema", "obj", "expected"), SEMANTICS)
def test_narrowed_evaluation_agrees_with_the_whole_one(
    schema: dict[str, Any], obj: dict[str, Any], expected: list[tuple[str, str]]
) -> None:
    assert CelValidator.for_schema(schema).validate(obj) == _whole(schema).validate(obj)


@pytest.mark.parametrize(("rule", "expected"), MESSAGES)
def test_narrowed_messages_agree_with_the_whole_ones(rule: dict[str, Any], expected: CelViolation) -> None:
    schema = _schema({**REPLICAS, "x-kubernetes-validations": [rule]})
    obj = _obj({"replicas": 5, "max": 3})
    assert CelValidator.for_schema(schema).validate(obj) == _whole(schema).validate(obj) == [expected]


def _version_schema(api_version: str, kind: str) -> dict[str, Any]:
    """The ``openAPIV3Schema`` of ``api_version`` ``kind`` in ../shared/crds."""
    group, _, version = api_version.rpartition("/")
    for rel in CRD_FILES:
        text = (CRDS / rel).read_text(encoding="utf-8")
        if f"kind: {kind}" not in text or group not in text:
            continue
        for crd in _load_all(CRDS / rel):
            spec = crd.get("spec") if isinstance(crd, dict) else None
            if isinstance(spec, dict) and spec.get("group") == group and spec["names"]["kind"] == kind:
                for served in spec["versions"]:
                    if served["name"] == version:
                        schema: dict[str, Any] = served["schema"]["openAPIV3Schema"]
                        return schema
    raise LookupError(f"{api_version} {kind} is not in ../shared/crds")


@needs_shared
@pytest.mark.parametrize(("rel", "index", "mutate", "expected"), MUTATIONS)
def test_narrowed_evaluation_agrees_on_mutated_examples(
    rel: str, index: int, mutate: Callable[[dict[str, Any]], None], expected: list[tuple[str, str]]
) -> None:
    doc = copy.deepcopy(_load_all(EXAMPLES / rel)[index])
    schema = _version_schema(doc["apiVersion"], doc["kind"])
    narrowed, whole = CelValidator.for_schema(schema), _whole(schema)
    assert narrowed.validate(doc) == whole.validate(doc) == []
    mutate(doc)
    assert narrowed.validate(doc) == whole.validate(doc)
    assert [(v.path, v.message) for v in narrowed.validate(doc)] == expected


@needs_shared
def test_trainjob_root_rules_read_only_its_name() -> None:
    """TrainJob's root rules (the name's pattern and length) read ``self.metadata.name``: its spec is
    not converted for them, and the two are evaluated as one conjunction."""
    schema = _version_schema("trainer.kubeflow.org/v1alpha1", "TrainJob")
    root = CelValidator.for_schema(schema)._root
    assert [rule.source for rule in root.rules] == [
        "self.metadata.name.matches('^[a-z]([-a-z0-9]*[a-z0-9])?$')",
        "size(self.metadata.name) <= 63",
    ]
    assert root.reads == frozenset({"metadata"})
    assert root.all_rules is not None


MODE = {
    "type": "object",
    "properties": {
        "mode": {"type": "string", "x-kubernetes-validations": [{"rule": "self in ['a', 'b']"}]},
        "size": {"type": "integer", "x-kubernetes-validations": [{"rule": "self <= 3"}]},
    },
}


def test_a_scalar_value_whose_rules_held_is_not_evaluated_again() -> None:
    """A scalar node whose rules read only ``self`` remembers the values for which all held; a value
    that failed is evaluated (and reported) each time; an integer and a boolean are different keys."""
    validator = CelValidator.for_schema(_schema(MODE))
    mode = validator._root.properties["spec"].properties["mode"]
    for _ in range(2):
        assert validator.validate(_obj({"mode": "a", "size": 1})) == []
        assert validator.validate(_obj({"mode": "c", "size": True})) == _whole(_schema(MODE)).validate(
            _obj({"mode": "c", "size": True})
        )
    assert mode.held == {(str, "a"): True}
    assert [v.path for v in validator.validate(_obj({"mode": "c"}))] == ["$.spec.mode"]
    assert mode.held == {(str, "a"): True}
