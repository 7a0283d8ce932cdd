"""list-map: duplicate keys in x-kubernetes-list-type: map lists, core kinds and real CRDs.

Core schemas come from kubernetes-validate (kind file + ``_definitions.json``); CRD schemas and
examples are read in place from ../shared (never copied into the repository).
"""

from __future__ import annotations

import copy
import csv
import json
from functools import cache
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml

from trainops.core.findings import Issue
from trainops.validate.checks.list_map import ListMapChecker
from trainops.yaml.load import load_file

SHARED = Path(__file__).resolve().parents[2].parent / "shared"
EXAMPLES = SHARED / "examples"
CRDS = SHARED / "crds"
needs_shared = pytest.mark.skipif(not EXAMPLES.is_dir(), reason="../shared is not beside the repo")

CORE = Path(kubernetes_validate.__file__).parent / "kubernetes-json-schema" / "v1.34.0-local-strict"
KEYWORD = "x-kubernetes-list-map-keys"


@cache
def _defs() -> dict[str, Any]:
    defs: dict[str, Any] = json.loads((CORE / "_definitions.json").read_text(encoding="utf-8"))["$defs"]
    return defs


@cache
def _gvk_index() -> dict[tuple[str, str], str]:
    index: dict[tuple[str, str], str] = {}
    for name, definition in _defs().items():
        for gvk in definition.get("x-kubernetes-group-version-kind", []):
            group, version = gvk.get("group", ""), gvk["version"]
            index.setdefault((f"{group}/{version}" if group else version, gvk["kind"]), name)
    return index


@cache
def _core(file_name: str) -> ListMapChecker:
    """A checker from a kubernetes-validate kind file, its refs resolved against ``_definitions.json``."""
    schema = json.loads((CORE / file_name).read_text(encoding="utf-8"))
    return ListMapChecker.from_schema(schema, _defs())


class _CrdLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """PyYAML's safe loader, also reading the YAML 1.1 ``=`` (value) key one upstream CRD uses."""


_CrdLoader.add_constructor("tag:yaml.org,2002:value", lambda loader, node: loader.construct_scalar(node))


@cache
def _crd(rel: str, version: str) -> ListMapChecker:
    """A checker from one version's raw openAPIV3Schema of a CRD file under ../shared/crds (PyYAML)."""
    with (CRDS / rel).open(encoding="utf-8") as handle:
        crd = yaml.load(handle, Loader=_CrdLoader)
    for entry in crd["spec"]["versions"]:
        if entry["name"] == version:
            return ListMapChecker.from_schema(entry["schema"]["openAPIV3Schema"])
    raise AssertionError(f"{rel} has no version {version}")


def _deployment(*containers: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {
            "selector": {"matchLabels": {"app": "web"}},
            "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": list(containers)}},
        },
    }


CONTAINERS = ("spec", "template", "spec", "containers")


# --- core kinds ----------------------------------------------------------------------------------


def test_duplicate_container_names() -> None:
    doc = _deployment({"name": "web", "image": "nginx:1.27"}, {"name": "web", "image": "busybox:1.36"})
    assert _core("deployment-apps-v1.json").issues(doc) == [
        Issue(
            (*CONTAINERS, 1),
            'duplicate entry for key name="web" (x-kubernetes-list-map-keys [name]); first at index 0',
            "list-map",
            KEYWORD,
        )
    ]


def test_distinct_container_names_pass() -> None:
    doc = _deployment({"name": "web", "image": "nginx:1.27"}, {"name": "sidecar", "image": "busybox:1.36"})
    assert _core("deployment-apps-v1.json").issues(doc) == []


@pytest.mark.parametrize(
    ("ports", "expected"),
    [
        # protocol defaults to TCP before the uniqueness check: these two are the same key.
        (
            [{"containerPort": 8080}, {"containerPort": 8080, "protocol": "TCP"}],
            [
                (
                    (*CONTAINERS, 0, "ports", 1),
                    'duplicate entry for key containerPort=8080, protocol="TCP" '
                    "(x-kubernetes-list-map-keys [containerPort, protocol]); first at index 0",
                )
            ],
        ),
        (
            [{"containerPort": 8080, "name": "http"}, {"containerPort": 8080, "name": "metrics"}],
            [
                (
                    (*CONTAINERS, 0, "ports", 1),
                    'duplicate entry for key containerPort=8080, protocol="TCP" (default) '
                    "(x-kubernetes-list-map-keys [containerPort, protocol]); first at index 0",
                )
            ],
        ),
        # Same port over UDP is a different key.
        ([{"containerPort": 53}, {"containerPort": 53, "protocol": "UDP"}], []),
        ([{"containerPort": 80}, {"containerPort": 443}], []),
    ],
)
def test_container_ports_key_with_default_protocol(
    ports: list[dict[str, Any]], expected: list[tuple[tuple[str | int, ...], str]]
) -> None:
    doc = _deployment({"name": "web", "image": "nginx:1.27", "ports": ports})
    assert [(i.parts, i.message) for i in _core("deployment-apps-v1.json").issues(doc)] == expected


def test_nested_lists_report_every_duplicate() -> None:
    container = {
        "name": "web",
        "image": "nginx:1.27",
        "env": [{"name": "MODE", "value": "a"}, {"name": "MODE", "value": "b"}],
        "volumeMounts": [{"name": "a", "mountPath": "/data"}, {"name": "b", "mountPath": "/data"}],
    }
    doc = _deployment(container, {"name": "init", "image": "busybox:1.36"}, {"name": "web", "image": "x:1"})
    doc["spec"]["template"]["spec"]["volumes"] = [
        {"name": "a", "emptyDir": {}},
        {"name": "a", "emptyDir": {}},
    ]
    parts = sorted(str(i.parts) for i in _core("deployment-apps-v1.json").issues(doc))
    assert parts == sorted(
        str(p)
        for p in [
            (*CONTAINERS, 2),
            (*CONTAINERS, 0, "env", 1),
            (*CONTAINERS, 0, "volumeMounts", 1),
            ("spec", "template", "spec", "volumes", 1),
        ]
    )


def test_missing_required_key_is_left_to_schema_validation() -> None:
    doc = _deployment({"image": "nginx:1.27"}, {"image": "busybox:1.36"})
    assert _core("deployment-apps-v1.json").issues(doc) == []


def test_key_values_compare_as_json_types() -> None:
    # "8080" is a schema error (not an integer), not a duplicate of 8080.
    doc = _deployment({"name": "web", "ports": [{"containerPort": 8080}, {"containerPort": "8080"}]})
    assert _core("deployment-apps-v1.json").issues(doc) == []


def test_service_ports_default_protocol() -> None:
    service = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "web"},
        "spec": {"ports": [{"name": "http", "port": 80}, {"name": "alt", "port": 80, "protocol": "TCP"}]},
    }
    (issue,) = _core("service-v1.json").issues(service)
    assert issue.parts == ("spec", "ports", 1)


def test_bundle_with_own_defs_matches_kind_file() -> None:
    """The registry's bundle form ($ref to #/$defs/<name> with $defs inside) finds the same issues."""
    bundle = {"$ref": "#/$defs/io.k8s.api.apps.v1.Deployment", "$defs": _defs()}
    doc = _deployment({"name": "web"}, {"name": "web", "ports": [{"containerPort": 1}, {"containerPort": 1}]})
    assert ListMapChecker.from_schema(bundle).issues(doc) == _core("deployment-apps-v1.json").issues(doc)


def test_recursive_schema_is_bounded() -> None:
    """CustomResourceDefinition embeds the self-referencing JSONSchemaProps; building terminates."""
    checker = _core("customresourcedefinition-apiextensions-v1.json")
    crd = {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "things.example.com"},
        "spec": {
            "versions": [
                {
                    "name": "v1",
                    "served": True,
                    "storage": True,
                    "schema": {"openAPIV3Schema": {"type": "object"}},
                }
            ]
        },
    }
    assert checker.issues(crd) == []


def test_cyclic_map_list_found_at_depth() -> None:
    node = {
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "children": {
                "type": "array",
                "items": {"$ref": "#/$defs/Node"},
                "x-kubernetes-list-type": "map",
                KEYWORD: ["name"],
            },
        },
        "required": ["name"],
    }
    checker = ListMapChecker.from_schema({"$ref": "#/$defs/Node", "$defs": {"Node": node}})
    leaf = {"name": "x", "children": [{"name": "a"}, {"name": "a"}]}
    tree = {"name": "root", "children": [{"name": "mid", "children": [leaf]}]}
    (issue,) = checker.issues(tree)
    assert issue.parts == ("children", 0, "children", 0, "children", 1)


def test_additional_properties_are_walked() -> None:
    schema = {
        "type": "object",
        "properties": {
            "groups": {
                "type": "object",
                "additionalProperties": {
                    "type": "array",
                    "x-kubernetes-list-type": "map",
                    KEYWORD: ["id"],
                    "items": {
                        "type": "object",
                        "properties": {"id": {"type": "integer"}},
                        "required": ["id"],
                    },
                },
            }
        },
    }
    checker = ListMapChecker.from_schema(schema)
    (issue,) = checker.issues({"groups": {"a": [{"id": 1}], "b": [{"id": 1}, {"id": 1}]}})
    assert issue.parts == ("groups", "b", 1)


def test_schema_without_map_lists_is_empty() -> None:
    checker = ListMapChecker.from_schema({"type": "object", "properties": {"items": {"type": "array"}}})
    assert checker.empty
    assert checker.issues({"items": [1, 1]}) == []


# --- real CRDs -----------------------------------------------------------------------------------

CLUSTER_QUEUE = {
    "apiVersion": "kueue.x-k8s.io/v1beta2",
    "kind": "ClusterQueue",
    "metadata": {"name": "cluster-queue"},
    "spec": {
        "namespaceSelector": {},
        "resourceGroups": [
            {
                "coveredResources": ["cpu", "memory"],
                "flavors": [
                    {
                        "name": "default-flavor",
                        "resources": [
                            {"name": "cpu", "nominalQuota": 9},
                            {"name": "memory", "nominalQuota": "36Gi"},
                        ],
                    }
                ],
            }
        ],
    },
}


@needs_shared
def test_cluster_queue_duplicate_flavor() -> None:
    doc = copy.deepcopy(CLUSTER_QUEUE)
    flavors = doc["spec"]["resourceGroups"][0]["flavors"]
    flavors.append(copy.deepcopy(flavors[0]))
    assert _crd("kueue/kueue.x-k8s.io_clusterqueues.yaml", "v1beta2").issues(doc) == [
        Issue(
            ("spec", "resourceGroups", 0, "flavors", 1),
            'duplicate entry for key name="default-flavor" (x-kubernetes-list-map-keys [name]); first at index 0',
            "list-map",
            KEYWORD,
        )
    ]


@needs_shared
def test_cluster_queue_duplicate_resource() -> None:
    doc = copy.deepcopy(CLUSTER_QUEUE)
    doc["spec"]["resourceGroups"][0]["flavors"][0]["resources"][1]["name"] = "cpu"
    (issue,) = _crd("kueue/kueue.x-k8s.io_clusterqueues.yaml", "v1beta2").issues(doc)
    assert issue.parts == ("spec", "resourceGroups", 0, "flavors", 0, "resources", 1)
    assert issue.message.startswith('duplicate entry for key name="cpu" ')


@needs_shared
def test_cluster_queue_valid() -> None:
    assert _crd("kueue/kueue.x-k8s.io_clusterqueues.yaml", "v1beta2").issues(CLUSTER_QUEUE) == []


@needs_shared
def test_jobset_duplicate_replicated_job() -> None:
    """A JobSet built from the replicated jobs of Trainer's upstream torch-distributed runtime."""
    runtime = (
        load_file(str(EXAMPLES / "trainer/manifests/base/runtimes/torch_distributed.yaml")).documents[0].data
    )
    jobs = runtime["spec"]["template"]["spec"]["replicatedJobs"]
    jobset = {
        "apiVersion": "jobset.x-k8s.io/v1alpha2",
        "kind": "JobSet",
        "metadata": {"name": "torch"},
        "spec": {"replicatedJobs": [*jobs, jobs[-1]]},
    }
    assert (
        _crd("jobset/jobset.x-k8s.io_jobsets.yaml", "v1alpha2").issues(
            {**jobset, "spec": {"replicatedJobs": jobs}}
        )
        == []
    )
    issues = _crd("jobset/jobset.x-k8s.io_jobsets.yaml", "v1alpha2").issues(jobset)
    assert [i.parts for i in issues] == [("spec", "replicatedJobs", len(jobs))]


@needs_shared
def test_crd_schema_default_protocol() -> None:
    """Training Operator CRDs carry ``default: TCP`` for container ports."""
    job = {
        "apiVersion": "kubeflow.org/v1",
        "kind": "PyTorchJob",
        "spec": {
            "pytorchReplicaSpecs": {
                "Master": {
                    "template": {
                        "spec": {
                            "containers": [
                                {
                                    "name": "pytorch",
                                    "ports": [
                                        {"containerPort": 23456, "name": "pytorchjob-port"},
                                        {"containerPort": 23456, "protocol": "TCP", "name": "other"},
                                    ],
                                }
                            ]
                        }
                    }
                }
            }
        },
    }
    (issue,) = _crd("training-operator/kubeflow.org_pytorchjobs.yaml", "v1").issues(job)
    assert issue.parts == (
        "spec",
        "pytorchReplicaSpecs",
        "Master",
        "template",
        "spec",
        "containers",
        0,
        "ports",
        1,
    )


# --- upstream examples yield no issue ----------------------------------------------------------


@cache
def _crd_files() -> dict[tuple[str, str], tuple[str, str]]:
    """(apiVersion, kind) → (CRD file under ../shared/crds, version), from its catalog.tsv."""
    files: dict[tuple[str, str], tuple[str, str]] = {}
    with (CRDS / "catalog.tsv").open(encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            for version in row["versions"].split(","):
                files[(f"{row['group']}/{version}", row["kind"])] = (row["path"], version)
    return files


_checkers: dict[tuple[str, str], ListMapChecker | None] = {}


def _checker_for(api_version: str, kind: str) -> ListMapChecker | None:
    key = (api_version, kind)
    if key not in _checkers:
        name = _gvk_index().get(key)
        if name is not None:
            _checkers[key] = ListMapChecker.from_schema({"$ref": f"#/$defs/{name}"}, _defs())
        elif key in _crd_files():
            _checkers[key] = _crd(*_crd_files()[key])
        else:
            _checkers[key] = None
    return _checkers[key]


def _example_files() -> list[str]:
    if not EXAMPLES.is_dir():
        return []
    return sorted(
        str(p.relative_to(EXAMPLES))
        for p in EXAMPLES.rglob("*")
        if p.suffix in (".yaml", ".yml") and p.is_file()
    )


@needs_shared
@pytest.mark.parametrize("rel", _example_files())
def test_upstream_example_has_no_duplicates(rel: str) -> None:
    checked = 0
    for doc in load_file(str(EXAMPLES / rel)).documents:
        data = doc.data
        if not isinstance(data, dict):
            continue
        api_version, kind = data.get("apiVersion"), data.get("kind")
        if not isinstance(api_version, str) or not isinstance(kind, str):
            continue
        checker = _checker_for(api_version, kind)
        if checker is not None:
            checked += 1
            assert checker.issues(data) == []


@needs_shared
def test_upstream_examples_are_mostly_covered() -> None:
    """The sweep above really checks documents: most examples have a core or catalogued CRD schema."""
    total = covered = 0
    for rel in _example_files():
        for doc in load_file(str(EXAMPLES / rel)).documents:
            data = doc.data
            if (
                isinstance(data, dict)
                and isinstance(data.get("apiVersion"), str)
                and isinstance(data.get("kind"), str)
            ):
                total += 1
                covered += _checker_for(data["apiVersion"], data["kind"]) is not None
    assert total > 400 and covered / total > 0.85
