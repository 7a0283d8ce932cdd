"""A new Kubeflow-style job kind takes three places (issue 28 point 3): one :class:`KindInfo` entry in
the kinds table, its CRD, and the catalog entry naming the CRD. With those, and nothing else, the kind
is validated against its CRD and as the API server checks pod templates, its pod templates are walked
by the policy rules, it is delivered as a run-once object (``-runs`` Application, ``<base>-<hash6>``
name, ``Prune=false``, Kueue's suspend field ignored), listed by ``argocd runs`` and health-checked by
the shared Kubeflow training-job Lua script.

The kind is the fictional ``kubeflow.org/v1 FooJob`` with ``fooReplicaSpecs``; the fixture registers
it with ``monkeypatch`` for each test only.
"""

from __future__ import annotations

import hashlib
import json
import textwrap
from pathlib import Path
from typing import Any

import lupa.luajit21 as lupa
import pytest
import yaml

from trainops.argocd.health import HEALTH_CHECKS, argocd_cm_patch, health_check_for
from trainops.argocd.models import Application, ApplicationTree, HealthStatus, ResourceNode, ResourceStatus
from trainops.argocd.runs import list_runs
from trainops.kinds import (
    EACH_VALUE,
    KIND_TABLE,
    KUBEFLOW_JOBS,
    POD_KINDS,
    REPLICA_SPECS_FIELD,
    RUN_ONCE,
    HealthScript,
    KindInfo,
    TemplateSite,
    pod_templates,
)
from trainops.project import load_project
from trainops.synth import render_project
from trainops.synth.delivery import controller_owned, run_once_files

KEY = ("kubeflow.org", "FooJob")

# --- place 1: the kinds table entry ---------------------------------------------------------------
FOOJOB = KindInfo(
    "kubeflow.org",
    "FooJob",
    ("v1",),
    templates=(TemplateSite(("spec", "fooReplicaSpecs", EACH_VALUE, "template")),),
    replica_field="fooReplicaSpecs",
    container="foo",
    default_port=True,
    lifecycle="run-once",
    training=True,
    suspend="/spec/runPolicy/suspend",
    health=HealthScript("kubeflow.org/training-job.lua", "a fictional Kubeflow v1 job (test)"),
    operators=("training-operator",),
)

# --- place 2: its CRD ----------------------------------------------------------------------------
CRD = textwrap.dedent(
    """\
    apiVersion: apiextensions.k8s.io/v1
    kind: CustomResourceDefinition
    metadata:
      name: foojobs.kubeflow.org
    spec:
      group: kubeflow.org
      names: {kind: FooJob, listKind: FooJobList, plural: foojobs, singular: foojob}
      scope: Namespaced
      versions:
      - name: v1
        served: true
        storage: true
        schema:
          openAPIV3Schema:
            type: object
            properties:
              apiVersion: {type: string}
              kind: {type: string}
              metadata: {type: object}
              spec:
                type: object
                properties:
                  runPolicy:
                    type: object
                    properties:
                      suspend: {type: boolean}
                      cleanPodPolicy: {type: string}
                  fooReplicaSpecs:
                    type: object
                    additionalProperties:
                      type: object
                      properties:
                        replicas: {type: integer, format: int32}
                        restartPolicy: {type: string}
                        template: {type: object, x-kubernetes-preserve-unknown-fields: true}
              status: {type: object, x-kubernetes-preserve-unknown-fields: true}
    """
)


def _catalog_entry(sha256: str) -> dict[str, Any]:
    """Place 3: the catalog entry naming the CRD (the schema cache is synced from it)."""
    return {
        "name": "foo-operator/kubeflow.org_foojobs",
        "operator": "training-operator",
        "group": "kubeflow.org",
        "kind": "FooJob",
        "versions": ["v1"],
        "repo": "example/foo-operator",
        "tag": "v0.1.0",
        "url": "https://example.invalid/kubeflow.org_foojobs.yaml",
        "mirror_path": "foo/kubeflow.org_foojobs.yaml",
        "sha256": sha256,
        "license": "Apache-2.0",
    }


def foojob(name: str = "foo-train-1a2b3c", *, privileged: bool = False, **replica: Any) -> dict[str, Any]:
    """A FooJob with one Worker replica whose container may be privileged."""
    container: dict[str, Any] = {"name": "foo", "image": "registry.example.com/foo:1.0"}
    if privileged:
        container["securityContext"] = {"privileged": True}
    return {
        "apiVersion": "kubeflow.org/v1",
        "kind": "FooJob",
        "metadata": {"name": name, "namespace": "ml"},
        "spec": {
            "fooReplicaSpecs": {
                "Worker": {
                    "replicas": 2,
                    "restartPolicy": "OnFailure",
                    "template": {"spec": {"containers": [container]}},
                    **replica,
                }
            }
        },
    }


@pytest.fixture
def registered(monkeypatch: pytest.MonkeyPatch) -> KindInfo:
    """FooJob in the kinds table for this test only."""
    assert KEY not in KIND_TABLE
    monkeypatch.setitem(KIND_TABLE, KEY, FOOJOB)
    return FOOJOB


@pytest.fixture
def foo_cache(tmp_path: Path, registered: KindInfo, cli: Any) -> Path:
    """A schema cache synced from a catalog holding only FooJob's CRD (a mirror written here)."""
    mirror = tmp_path / "mirror"
    (mirror / "foo").mkdir(parents=True)
    (mirror / "foo" / "kubeflow.org_foojobs.yaml").write_text(CRD, encoding="utf-8")
    catalog = tmp_path / "catalog.yaml"
    entry = _catalog_entry(hashlib.sha256(CRD.encode()).hexdigest())
    catalog.write_text(yaml.safe_dump({"crds": [entry]}), encoding="utf-8")
    cache = tmp_path / "cache"
    run = cli("schemas", "sync", "--catalog", str(catalog), "--from", str(mirror), "--cache-dir", str(cache))
    assert run.code == 0, run.err
    return cache


def _findings(cli: Any, cache: Path, path: Path) -> list[tuple[str, str, str]]:
    run = cli("validate", "--policy", "--format", "json", "--cache-dir", str(cache), str(path))
    assert run.code in (0, 1), run.err
    return sorted((f["rule"], f["path"], f["message"]) for f in json.loads(run.out)["findings"])


def test_the_table_rejects_a_duplicate_kind() -> None:
    from trainops.kinds import registry

    with pytest.raises(ValueError, match=r"kubeflow\.org/PyTorchJob is declared twice"):
        registry([*KIND_TABLE.values(), KIND_TABLE[("kubeflow.org", "PyTorchJob")]])


def test_the_entry_joins_every_kind_group(registered: KindInfo) -> None:
    assert KEY in KUBEFLOW_JOBS and KEY in RUN_ONCE and KEY in POD_KINDS
    assert REPLICA_SPECS_FIELD["FooJob"] == "fooReplicaSpecs"
    assert [site.path for site in pod_templates(foojob())] == ["$.spec.fooReplicaSpecs.Worker.template.spec"]


def test_it_is_validated_against_its_crd_and_as_the_api_server_checks_pods(
    cli: Any, foo_cache: Path, tmp_path: Path, outside_project: Path
) -> None:
    good, bad = tmp_path / "good.yaml", tmp_path / "bad.yaml"
    good.write_text(yaml.safe_dump(foojob()), encoding="utf-8")
    broken = foojob(replcas=2)  # a typo the CRD's schema rejects
    broken["spec"]["fooReplicaSpecs"]["Worker"]["template"]["spec"]["containers"][0]["name"] = "Foo_1"
    bad.write_text(yaml.safe_dump(broken), encoding="utf-8")
    assert [
        f for f in _findings(cli, foo_cache, good) if f[0] in ("schema", "api-server", "unknown-kind")
    ] == []
    found = {(rule, path) for rule, path, _ in _findings(cli, foo_cache, bad)}
    assert ("schema", "$.spec.fooReplicaSpecs.Worker.replcas") in found
    # The container name inside the template (kept by the CRD as unknown fields) is checked as the
    # API server checks a pod template's (``ValidatePodTemplateSpec``: a DNS-1123 label).
    assert ("api-server", "$.spec.fooReplicaSpecs.Worker.template.spec.containers[0].name") in found


def test_its_pod_templates_are_walked_by_the_policy_rules(
    cli: Any, foo_cache: Path, tmp_path: Path, outside_project: Path
) -> None:
    path = tmp_path / "privileged.yaml"
    path.write_text(yaml.safe_dump(foojob(privileged=True)), encoding="utf-8")
    flagged = [(rule, at) for rule, at, _ in _findings(cli, foo_cache, path) if rule == "no-privileged"]
    assert flagged == [
        (
            "no-privileged",
            "$.spec.fooReplicaSpecs.Worker.template.spec.containers[0].securityContext.privileged",
        )
    ]


APPS = """
from constructs import Construct

from trainops.app import AppDef
from trainops.cluster import Cluster
from trainops.constructs._core.base import emit, run_once_name

CLUSTERS = (
    Cluster(name="lab", kubernetes_version="1.34", operators={"argo-cd": "v3.5.1"},
            delivery="applications", argocd_server="https://lab.example.com"),
)
SPEC = {"fooReplicaSpecs": {"Worker": {"replicas": 2, "template": {"spec": {"containers": [
    {"name": "foo", "image": "registry.example.com/foo:1.0"}]}}}}}


def build(chart, cluster):
    emit(Construct(chart, "config"), {"apiVersion": "v1", "kind": "ConfigMap",
                                      "metadata": {"name": "train"}, "data": {"on": "yes"}})
    emit(Construct(chart, "job"), {
        "apiVersion": "kubeflow.org/v1", "kind": "FooJob",
        "metadata": {"name": run_once_name("train", SPEC),
                     "annotations": {"argocd.argoproj.io/sync-options": "Prune=false"}},
        "spec": SPEC,
    })


APPS = (AppDef(name="train", build=build, namespace="ml", team="research"),)
"""


def test_it_is_delivered_as_a_run_once_object(registered: KindInfo, tmp_path: Path) -> None:
    (tmp_path / "apps").mkdir()
    (tmp_path / "apps" / "__init__.py").write_text(APPS, encoding="utf-8")
    results = {(r.cluster, r.app): r for r in render_project(load_project(tmp_path))}
    files = results[("lab", "train")].objects
    (name,) = [f for f in files if f.startswith("foojob_")]
    job = files[name]
    assert job["metadata"]["name"].startswith("train-") and len(job["metadata"]["name"]) == len("train-") + 6
    assert job["metadata"]["labels"]["trainops.dev/run-of"] == "train"
    apps = {
        o["metadata"]["name"]: o
        for o in results[("lab", "argocd")].objects.values()
        if o["kind"] == "Application"
    }
    assert sorted(apps) == ["lab-root", "lab-train", "lab-train-runs"]
    assert "foojob_*.yaml" in run_once_files()
    assert apps["lab-train-runs"]["spec"]["source"]["directory"] == {"include": run_once_files()}
    assert apps["lab-train"]["spec"]["source"]["directory"] == {"exclude": run_once_files()}
    ignored = {(e.kind, p) for e in controller_owned([job]) for p in e.json_pointers}
    assert ("FooJob", "/spec/runPolicy/suspend") in ignored


def test_argocd_runs_lists_it(registered: KindInfo) -> None:
    where = {
        "group": "kubeflow.org",
        "version": "v1",
        "kind": "FooJob",
        "namespace": "ml",
        "name": "train-1a2b3c",
    }
    app = Application(name="train", resources=(ResourceStatus(**where, requires_pruning=True),))
    tree = ApplicationTree(nodes=(ResourceNode(**where, health=HealthStatus(status="Degraded")),))
    (run,) = list_runs(app, tree)
    assert (run.kind, run.base, run.state, run.phase, run.prunable) == (
        "FooJob",
        "train",
        "superseded",
        "Failed",
        True,
    )


_RUN = """
local script, obj = ...
local chunk = assert(loadstring(script, "=health.lua"))
setfenv(chunk, setmetatable({obj = obj}, {__index = _G}))
return chunk()
"""


def _lua(runtime: Any, value: Any) -> Any:
    if isinstance(value, dict):
        return runtime.table_from({k: _lua(runtime, v) for k, v in value.items()})
    if isinstance(value, list):
        return runtime.table_from([_lua(runtime, v) for v in value])
    return value


@pytest.mark.parametrize(
    ("condition", "status"), [("Running", "Progressing"), ("Succeeded", "Healthy"), ("Failed", "Degraded")]
)
def test_it_is_health_checked_by_the_training_job_script(
    registered: KindInfo, condition: str, status: str
) -> None:
    check = health_check_for("kubeflow.org/v1", "FooJob")
    assert check is not None and check.script == "kubeflow.org/training-job.lua"
    assert "kubeflow.org/FooJob" in HEALTH_CHECKS
    assert "resource.customizations.health.kubeflow.org_FooJob: |" in argocd_cm_patch()
    obj = foojob()
    obj["status"] = {"conditions": [{"type": condition, "status": "True", "message": condition}]}
    runtime = lupa.LuaRuntime(unpack_returned_tuples=False)
    result = runtime.execute(_RUN, check.lua(), _lua(runtime, obj))
    assert result["status"] == status
