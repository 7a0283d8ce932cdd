"""Property-based tests (hypothesis): the loader and validator never raise anything but their
documented errors on arbitrary input, read what a YAML writer wrote, accept valid objects of the
kinds trainops emits and reject minimally broken ones at the broken path."""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import SAMPLE
from trainops.core import rules
from trainops.core.findings import Finding, Result, json_path
from trainops.core.quantity import QuantityError, parse_quantity
from trainops.schemas.registry import SchemaRegistry
from trainops.validate.engine import ValidateOptions, validate_text
from trainops.yaml.dump import KubeDumper, dump_document
from trainops.yaml.load import Document, stream_text
from trainops.yaml.source import decode

REPO = Path(__file__).resolve().parents[2]
FAST = settings(
    max_examples=int(os.environ.get("HYPOTHESIS_EXAMPLES", "80")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
SLOW = settings(
    max_examples=int(os.environ.get("HYPOTHESIS_SLOW_EXAMPLES", "20")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)


@pytest.fixture(scope="module")
def registry(schema_cache: Path) -> SchemaRegistry:
    return SchemaRegistry("1.34", schema_cache)


def _validate(text: str, registry: SchemaRegistry) -> Result:
    result = Result()
    validate_text(text, "in.yaml", registry, ValidateOptions(), result)
    return result


def _well_formed(result: Result) -> None:
    for finding in result.findings:
        assert finding.rule in rules.RULES
        assert finding.file == "in.yaml"
        assert finding.message
        for value in (
            finding.message,
            finding.kind,
            finding.name,
            finding.namespace,
            finding.api_version,
            finding.path,
        ):
            assert value is None or value.isprintable(), finding


#: Characters that make YAML structure, so random text reaches the parsers' odd corners.
YAMLISH = st.text(alphabet=st.sampled_from(list("-:?[]{},&*!|>'\"#%@` \n\tabk01.~<=\\")), max_size=200)


@FAST
@given(data=st.binary(max_size=600))
def test_arbitrary_bytes_never_raise(registry: SchemaRegistry, data: bytes) -> None:
    source = decode(data, "in.yaml")
    if source.text is not None:
        _well_formed(_validate(source.text, registry))


@FAST
@given(text=YAMLISH)
def test_yamlish_text_never_raises(registry: SchemaRegistry, text: str) -> None:
    _well_formed(_validate(text, registry))
    _well_formed(
        _validate("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  k: " + text, registry)
    )


SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**62), max_value=2**62),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=20),
)
VALUES = st.recursive(
    SCALARS,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=25,
)


@FAST
@given(value=st.dictionaries(st.text(max_size=8), VALUES, max_size=5), flow=st.booleans())
def test_loader_reads_what_the_dumper_wrote(value: dict[str, Any], flow: bool) -> None:
    """The loader gives back exactly what trainops's dumper wrote (block or flow style), as the API
    server would read it."""
    text = yaml.dump(value, Dumper=KubeDumper, default_flow_style=flow, allow_unicode=True, sort_keys=False)
    read = [d for d in stream_text(text, "in.yaml") if isinstance(d, Document)]
    if not any(c in text for c in "\x85\u2028\u2029"):  # YAML 1.1 line breaks: PyYAML's writer folds them
        assert json.dumps([d.data for d in read]) == json.dumps([value or {}])


DNS_LABEL = st.from_regex(r"[a-z]([a-z0-9-]{0,18}[a-z0-9])?", fullmatch=True)


@SLOW
@given(
    name=DNS_LABEL,
    workers=st.integers(min_value=0, max_value=64),
    gpus=st.integers(min_value=0, max_value=8),
    cpu=st.sampled_from(["500m", "1", "2", "7.5", "32"]),
    memory=st.sampled_from(["512Mi", "8Gi", "1Ti", "64G"]),
    env=st.dictionaries(
        st.from_regex(r"[A-Z][A-Z0-9_]{0,10}", fullmatch=True), st.text(max_size=10), max_size=3
    ),
)
def test_valid_pytorch_jobs_validate(
    registry: SchemaRegistry, name: str, workers: int, gpus: int, cpu: str, memory: str, env: dict[str, str]
) -> None:
    from cdk8s import App, Chart

    from trainops.constructs import PyTorchJob
    from trainops.core.cluster import Cluster
    from trainops.core.credentials import literal_problem
    from trainops.core.nodeenv import configure_node

    env = {k: v for k, v in env.items() if literal_problem(k, v) is None}
    configure_node()
    cluster = Cluster(name="t", kubernetes_version="1.34", operators={"training-operator": "v1.9.4"})
    chart = Chart(App(), "t", namespace="ml", disable_resource_name_hashes=True)
    PyTorchJob(
        chart,
        "job",
        cluster=cluster,
        name=name,
        image="registry.example.com/train:1",
        workers=workers,
        gpus_per_node=gpus,
        cpu=cpu,
        memory=memory,
        env=env,
    )
    text = "---\n".join(dump_document(doc) for doc in chart.to_json())
    errors = [f for f in _validate(text, registry).findings if f.level == "error"]
    assert errors == []


def _bundled_objects() -> list[dict[str, Any]]:
    """Every object the bundled apps emit for the first cluster, one per kind (the kinds trainops emits)."""
    from trainops.project import load_project
    from trainops.synth import render_objects

    project = load_project(SAMPLE)
    by_kind: dict[str, dict[str, Any]] = {}
    for cluster in project.clusters:
        for app_def in project.apps.values():
            if app_def.targets(cluster):
                for obj in render_objects(app_def, cluster).values():
                    by_kind.setdefault(f"{obj['apiVersion']}/{obj['kind']}", obj)
    return [by_kind[key] for key in sorted(by_kind)]


@pytest.fixture(scope="module")
def emitted() -> list[dict[str, Any]]:
    return _bundled_objects()


def _containers(obj: dict[str, Any]) -> list[tuple[str | int, ...]]:
    from trainops.core.kinds import pod_templates

    # Katib trial templates are schemaless in the CRD (x-kubernetes-preserve-unknown-fields): left out.
    return [
        (*site.parts, "containers", 0)
        for site in pod_templates(obj)
        if site.spec.get("containers") and not site.templated
    ]


def _schemaless(openapi: dict[str, Any] | None, parts: tuple[str | int, ...]) -> bool:
    """Whether a CRD's ``openAPIV3Schema`` leaves the value at ``parts`` unchecked: some node on the way
    keeps unknown fields without naming the next one (Argo Rollouts' AnalysisTemplate job containers'
    ``resources.limits``, for one), so the API server takes any value there. Built-in kinds: ``False``."""
    node = openapi
    for part in parts:
        if node is None:
            return False
        if isinstance(part, int):
            node = node.get("items")
            continue
        properties = node.get("properties", {})
        if part not in properties:
            return bool(node.get("x-kubernetes-preserve-unknown-fields"))
        node = properties[part]
    return node is not None and bool(node.get("x-kubernetes-preserve-unknown-fields"))


def _get(obj: Any, parts: tuple[str | int, ...]) -> Any:
    for part in parts:
        obj = obj[part]
    return obj


#: Invalid for every name syntax of the API server (DNS names and path segments alike): it has a '/'.
INVALID_NAME = st.text(max_size=20).map(lambda s: s + "/x")
NOT_A_QUANTITY = st.text(min_size=1, max_size=12).filter(lambda s: _not_quantity(s))
FIELD = st.from_regex(r"zz[A-Za-z]{1,8}", fullmatch=True)


def _not_quantity(text: str) -> bool:
    try:
        parse_quantity(text)
    except QuantityError:
        return True
    return False


@SLOW
@given(data=st.data())
def test_minimally_broken_emitted_objects_are_rejected_at_the_broken_path(
    registry: SchemaRegistry, emitted: list[dict[str, Any]], data: st.DataObject
) -> None:
    obj = copy.deepcopy(data.draw(st.sampled_from(emitted)))
    assert [f for f in _validate(dump_document(obj), registry).findings if f.level == "error"] == []
    sites = _containers(obj)
    mutations = ["name", "metadata-field", "drop-kind"] + (
        ["container-field", "container-name", "quantity"] if sites else []
    )
    mutation = data.draw(st.sampled_from(mutations))
    site = data.draw(st.sampled_from(sites)) if sites else ()
    kind = registry.get(obj["apiVersion"], obj["kind"])
    if mutation == "quantity" and _schemaless(
        kind.openapi if kind else None, (*site, "resources", "limits", "cpu")
    ):
        mutation = "container-field"  # the API server takes any value where the CRD keeps unknown fields
    path: tuple[str | int, ...]
    if mutation == "name":
        obj["metadata"]["name"] = data.draw(INVALID_NAME)
        path = ("metadata", "name")
    elif mutation == "metadata-field":
        field = data.draw(FIELD)
        obj["metadata"][field] = "x"
        path = ("metadata", field)
    elif mutation == "drop-kind":
        del obj["kind"]
        path = ("kind",)
    elif mutation == "container-field":
        field = data.draw(FIELD)
        _get(obj, site)[field] = "x"
        path = (*site, field)
    elif mutation == "container-name":
        del _get(obj, site)["name"]
        path = site
    else:
        _get(obj, site).setdefault("resources", {}).setdefault("limits", {})["cpu"] = data.draw(
            NOT_A_QUANTITY
        )
        path = (*site, "resources", "limits", "cpu")
    errors: list[Finding] = [
        f for f in _validate(dump_document(obj), registry).findings if f.level == "error"
    ]
    assert errors, (mutation, path)
    target = json_path(path)
    assert any(f.path.startswith(target) or target.startswith(f.path) for f in errors if f.path != "$"), (
        target,
        [(f.path, f.message) for f in errors],
    )


#: Kinds the policy rules look at, so random documents reach their code.
POLICY_KINDS = st.sampled_from(
    [
        ("v1", "Pod"),
        ("apps/v1", "Deployment"),
        ("batch/v1", "Job"),
        ("kubeflow.org/v1", "PyTorchJob"),
        ("kubeflow.org/v1beta1", "Experiment"),
        ("trainer.kubeflow.org/v1alpha1", "TrainJob"),
        ("v1", "Service"),
        ("monitoring.coreos.com/v1", "ServiceMonitor"),
        ("argoproj.io/v1alpha1", "Application"),
        ("autoscaling/v2", "HorizontalPodAutoscaler"),
    ]
)


@FAST
@given(kind=POLICY_KINDS, spec=VALUES, metadata=VALUES)
def test_policy_engine_never_raises_on_arbitrary_documents(
    kind: tuple[str, str], spec: Any, metadata: Any
) -> None:
    """The whole default rule pack over arbitrary documents of the kinds it checks: findings only
    (a rule that raises is a RuleFailure, i.e. a bug)."""
    from trainops.pipeline import Text, policy_check, policy_run

    document = {"apiVersion": kind[0], "kind": kind[1], "metadata": metadata, "spec": spec}
    result = policy_check([Text("in.yaml", json.dumps(document))], policy_run(facts=None))
    _well_formed(result)
