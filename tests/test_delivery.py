"""The delivery step of synth: Argo CD objects under generated/<cluster>/argocd/ from the apps."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest
import yaml

from conftest import SAMPLE
from trainops.app import AppDef
from trainops.cluster import Cluster
from trainops.errors import UsageError
from trainops.kinds import CLUSTER_SCOPED, group_kind
from trainops.pipeline import Target, Text, check
from trainops.project import Project, load_project
from trainops.synth import render_project
from trainops.synth.delivery import app_class, controller_owned, kubeflow_defaulted

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO.parent / "shared" / "examples"


@pytest.fixture(scope="module")
def bundled() -> Project:
    return load_project(SAMPLE)


@pytest.fixture(scope="module")
def results(bundled: Project) -> dict[tuple[str, str], Any]:
    return {(r.cluster, r.app): r for r in render_project(bundled)}


def _objects(results: dict[tuple[str, str], Any], cluster: str, app: str) -> list[dict[str, Any]]:
    return list(results[(cluster, app)].objects.values())


def test_shared_objects_live_with_the_first_cluster_of_the_class(results: dict[tuple[str, str], Any]) -> None:
    # gpu-prod and gpu-staging share the class "gpu": its objects are written once, under gpu-prod.
    assert ("gpu-staging", "argocd") not in results
    objects = _objects(results, "gpu-prod", "argocd")
    assert {obj["kind"] for obj in objects} == {"AppProject", "ApplicationSet"}
    # One AppProject per team of the class's apps.
    teams = {
        o["metadata"]["labels"]["trainops.dev/team"]
        for (cluster, app), r in results.items()
        if cluster in ("gpu-prod", "gpu-staging") and app != "argocd"
        for o in r.objects.values()
    }
    projects = sorted(o["metadata"]["name"] for o in objects if o["kind"] == "AppProject")
    assert projects == sorted(f"{team}-gpu" for team in teams)


def test_protected_cluster_gets_its_own_pinned_sets(
    results: dict[tuple[str, str], Any], bundled: Project
) -> None:
    sets = [o for o in _objects(results, "gpu-prod", "argocd") if o["kind"] == "ApplicationSet"]
    by_cluster = {
        s["spec"]["generators"][0]["matrix"]["generators"][0]["clusters"]["selector"]["matchExpressions"][0][
            "values"
        ][0]: s["spec"]["template"]["spec"]["source"]["targetRevision"]
        for s in sets
    }
    members = [c for c in bundled.clusters if c.delivery_class == "gpu"]
    assert by_cluster == {c.name: c.target_revision for c in members}
    assert bundled.cluster("gpu-prod").protected


@pytest.mark.parametrize(
    ("app", "expected"),
    [
        ("training-data", "long-lived"),
        ("tf-serving", "long-lived"),
        ("pytorch-ddp-single-node", "training"),
        ("pytorch-ddp-multi-node", "training"),
    ],
)
def test_bundled_app_classes(
    results: dict[tuple[str, str], Any], bundled: Project, app: str, expected: str
) -> None:
    objects = _objects(results, "gpu-prod", app)
    assert app_class(bundled.apps[app], bundled.cluster("gpu-prod"), objects) == expected
    sets = [o for o in _objects(results, "gpu-prod", "argocd") if o["kind"] == "ApplicationSet"]
    holding = {
        s["spec"]["template"]["metadata"]["labels"]["trainops.dev/app-class"]
        for s in sets
        if any(
            d["path"].endswith(f"/{app}")
            for d in s["spec"]["generators"][0]["matrix"]["generators"][1]["git"]["directories"]
        )
    }
    assert holding == {expected}


def test_run_once_objects_are_kept_and_not_drift(results: dict[tuple[str, str], Any]) -> None:
    job = _objects(results, "gpu-prod", "pytorch-ddp-multi-node")[0]
    annotations = job["metadata"]["annotations"]
    assert "Prune=false" in annotations["argocd.argoproj.io/sync-options"].split(",")
    # A superseded run requires pruning but does not turn its Application OutOfSync.
    assert annotations["argocd.argoproj.io/compare-options"] == "IgnoreExtraneous"


def test_hpa_target_replicas_are_ignored(results: dict[tuple[str, str], Any]) -> None:
    objects = _objects(results, "gpu-prod", "tf-serving")
    hpa = next(o for o in objects if o["kind"] == "HorizontalPodAutoscaler")
    entries = [e.to_dict() for e in controller_owned(objects)]
    assert entries == [
        {
            "group": "apps",
            "kind": hpa["spec"]["scaleTargetRef"]["kind"],
            "name": hpa["spec"]["scaleTargetRef"]["name"],
            "namespace": hpa["metadata"]["namespace"],
            "jsonPointers": ["/spec/replicas"],
        }
    ]


@pytest.mark.parametrize("lead", ["gpu-prod", "gpu-next"])
def test_project_allows_exactly_the_rendered_kinds(
    results: dict[tuple[str, str], Any], bundled: Project, lead: str
) -> None:
    projects = [o for o in _objects(results, lead, "argocd") if o["kind"] == "AppProject"]
    members = {c.name for c in bundled.clusters if c.delivery_class == bundled.cluster(lead).delivery_class}
    rendered = {
        group_kind(o)
        for (cluster, app), r in results.items()
        if app != "argocd" and cluster in members
        for o in r.objects.values()
    }
    allowed = {
        (k["group"], k["kind"])
        for project in projects
        for key in ("namespaceResourceWhitelist", "clusterResourceWhitelist")
        for k in project["spec"][key]
    }
    assert allowed == rendered
    cluster_scoped = {
        (k["group"], k["kind"]) for p in projects for k in p["spec"]["clusterResourceWhitelist"]
    }
    assert cluster_scoped <= CLUSTER_SCOPED


def _example_docs(rel: str) -> list[dict[str, Any]]:
    return [
        d for d in yaml.safe_load_all((EXAMPLES / rel).read_text(encoding="utf-8")) if isinstance(d, dict)
    ]


@pytest.mark.parametrize(
    ("rel", "pointer"),
    [
        ("trainer-docs-snippets/docs/user-guides/trainjob-lifecycle.md.block-01.yaml", "/spec/suspend"),
        ("k8s-website/content/en/examples/controllers/job-success-policy.yaml", "/spec/suspend"),
        ("training-operator/examples/pytorch/elastic/imagenet/imagenet.yaml", "/spec/runPolicy/suspend"),
    ],
)
def test_suspend_of_upstream_run_once_examples_is_ignored(rel: str, pointer: str) -> None:
    docs = _example_docs(rel)
    gk = group_kind(docs[0])
    assert gk is not None
    entries = [e for e in controller_owned(docs) if (e.group, e.kind) == gk]
    assert any(pointer in e.json_pointers for e in entries)


def test_upstream_hpa_example_ignores_its_target_replicas() -> None:
    docs = _example_docs("k8s-website/content/en/examples/application/hpa/php-apache.yaml")
    hpa = next(d for d in docs if d["kind"] == "HorizontalPodAutoscaler")
    (entry,) = controller_owned(docs)
    assert (entry.kind, entry.name, entry.json_pointers) == (
        hpa["spec"]["scaleTargetRef"]["kind"],
        hpa["spec"]["scaleTargetRef"]["name"],
        ("/spec/replicas",),
    )


@pytest.mark.parametrize("kind", ["PyTorchJob", "TFJob", "MPIJob", "XGBoostJob", "PaddleJob", "JAXJob"])
def test_kubeflow_defaults_name_the_kind_replica_field(kind: str) -> None:
    from trainops.kinds import REPLICA_SPECS_FIELD

    paths = kubeflow_defaulted(kind)
    assert ".spec.runPolicy.cleanPodPolicy" in paths
    assert f".spec.{REPLICA_SPECS_FIELD[kind]}[].restartPolicy" in paths
    assert any(".ports" in p for p in paths) == (kind != "MPIJob")


def _expand(value: Any, params: dict[str, str]) -> Any:
    """Render the Go template expressions the ApplicationSets use, as the controller would."""
    if isinstance(value, dict):
        return {k: _expand(v, params) for k, v in value.items()}
    if isinstance(value, list):
        return [_expand(v, params) for v in value]
    if isinstance(value, str):
        for expression, replacement in params.items():
            value = value.replace(expression, replacement)
        assert "{{" not in value, f"unknown template parameter in {value!r}"  # missingkey=error
    return value


def _selected(selector: dict[str, Any], labels: dict[str, str]) -> bool:
    if any(labels.get(k) != v for k, v in selector.get("matchLabels", {}).items()):
        return False
    return all(labels.get(e["key"]) in e["values"] for e in selector.get("matchExpressions", []))


def test_application_sets_generate_every_cluster_app_pair(
    results: dict[tuple[str, str], Any], bundled: Project, schema_cache: Path
) -> None:
    """Expand the matrix for the bundled clusters (registered with their two labels) over the
    committed generated/ tree: one valid Application per (cluster, app), at the cluster's revision."""
    sets = [
        o
        for (_, app), r in results.items()
        if app == "argocd"
        for o in r.objects.values()
        if o["kind"] == "ApplicationSet"
    ]
    apps: dict[str, dict[str, Any]] = {}
    for app_set in sets:
        clusters_gen, git_gen = app_set["spec"]["generators"][0]["matrix"]["generators"]
        for cluster in bundled.clusters:
            labels = {
                "trainops.dev/cluster": cluster.name,
                "trainops.dev/cluster-class": cluster.delivery_class,
            }
            if not _selected(clusters_gen["clusters"]["selector"], labels):
                continue
            first = {
                '{{ index .metadata.labels "trainops.dev/cluster" }}': cluster.name,
                "{{ .server }}": cluster.argocd_server,
            }
            dirs = _expand(git_gen["git"]["directories"], first)
            excluded = {d["path"] for d in dirs if d.get("exclude")}
            for entry in dirs:
                path = entry["path"]
                if entry.get("exclude") or path in excluded or not (SAMPLE / path).is_dir():
                    continue
                params = {**first, "{{ .path.path }}": path, "{{ .path.basename }}": Path(path).name}
                app = {
                    "apiVersion": "argoproj.io/v1alpha1",
                    "kind": "Application",
                    **_expand(app_set["spec"]["template"], params),
                }
                app["metadata"]["namespace"] = "argocd"
                assert app["metadata"]["name"] not in apps
                apps[app["metadata"]["name"]] = app
    expected = {f"{cluster}-{app}" for cluster, app in results if app != "argocd"}
    assert set(apps) == expected
    projects = {
        o["metadata"]["name"]: o["spec"]
        for (_, app), r in results.items()
        if app == "argocd"
        for o in r.objects.values()
        if o["kind"] == "AppProject"
    }
    for name, app in apps.items():
        cluster = bundled.cluster(app["metadata"]["labels"]["trainops.dev/cluster"])
        assert app["spec"]["source"]["targetRevision"] == cluster.target_revision, name
        destination = app["spec"]["destination"]
        assert destination["server"] == cluster.argocd_server, name
        # The AppProject permits the Application's destination and every object's namespace.
        allowed = {(d["server"], d["namespace"]) for d in projects[app["spec"]["project"]]["destinations"]}
        assert (destination["server"], destination["namespace"]) in allowed, name
        app_dir = Path(app["spec"]["source"]["path"]).name
        namespaces = {
            o["metadata"].get("namespace") for o in results[(cluster.name, app_dir)].objects.values()
        }
        assert {(destination["server"], ns) for ns in namespaces if ns} <= allowed, name
    texts = [Text(f"{name}.yaml", yaml.safe_dump(app)) for name, app in sorted(apps.items())]
    assert check(Target("1.34", {"argo-cd": "v3.5.1"}, schema_cache), texts).findings == []


def test_generated_argocd_directory_validates(cli: Any) -> None:
    run = cli("validate", "--cluster", "gpu-prod", "generated/gpu-prod/argocd")
    assert run.code == 0, run.out + run.err


# --- small projects written by the test ---------------------------------------------------------

APPS = """
from trainops.app import AppDef
from trainops.cluster import Cluster
from trainops.constructs._core.base import emit
from constructs import Construct

ARGO = {{"argo-cd": "v3.5.1"}}
CLUSTERS = (
    Cluster(name="lab-a", kubernetes_version="1.34", operators=ARGO, cluster_class="lab",
            delivery="{delivery}", argocd_server="https://a.example.com"),
    Cluster(name="lab-b", kubernetes_version="1.34", operators=ARGO, cluster_class="lab",
            delivery="{delivery_b}", argocd_server="https://b.example.com"),
)


def job(chart, cluster):
    emit(Construct(chart, "config"), {{
        "apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {{"name": "prep", "annotations": {{"argocd.argoproj.io/sync-wave": "{config_wave}"}}}},
        "data": {{"on": "yes"}},
    }})
    emit(Construct(chart, "job"), {{
        "apiVersion": "batch/v1", "kind": "Job",
        "metadata": {{"name": "prep-1a2b3c", "annotations": {{"argocd.argoproj.io/sync-options": "{options}"}}}},
        "spec": {{"template": {{"spec": {{"restartPolicy": "Never",
                  "containers": [{{"name": "main", "image": "busybox:1.36"}}]}}}}}},
    }})


def claim(chart, cluster):
    emit(Construct(chart, "pvc"), {{
        "apiVersion": "v1", "kind": "PersistentVolumeClaim",
        "metadata": {{"name": "data", "annotations": {{"argocd.argoproj.io/sync-wave": "-1"}}}},
        "spec": {{"accessModes": ["ReadWriteOnce"], "resources": {{"requests": {{"storage": "1Gi"}}}}}},
    }})


APPS = (
    AppDef(name="{job_name}", build=job, namespace="ml", team="research", delivery={job_class}),
    AppDef(name="data", build=claim, namespace="{data_namespace}", team="{data_team}"),
)
"""


def _write(root: Path, **fmt: str) -> Project:
    values = {
        "delivery": "applications",
        "delivery_b": "applications",
        "options": "Prune=false",
        "job_name": "prep",
        "job_class": "None",
        "data_team": "research",
        "data_namespace": "ml",
        "config_wave": "0",
        **fmt,
    }
    (root / "apps").mkdir(parents=True)
    (root / "apps" / "__init__.py").write_text(textwrap.dedent(APPS.format(**values)), encoding="utf-8")
    return load_project(root)


def test_applications_mode_writes_one_application_per_app(tmp_path: Path) -> None:
    results = {(r.cluster, r.app): r for r in render_project(_write(tmp_path))}
    for cluster, server in (("lab-a", "https://a.example.com"), ("lab-b", "https://b.example.com")):
        apps = {
            o["metadata"]["name"]: o
            for o in results[(cluster, "argocd")].objects.values()
            if o["kind"] == "Application"
        }
        assert sorted(apps) == [f"{cluster}-data", f"{cluster}-prep"]
        assert {a["spec"]["destination"]["server"] for a in apps.values()} == {server}
        # The Application syncs in the wave of its earliest object (the PVC's -1).
        assert apps[f"{cluster}-data"]["metadata"]["annotations"]["argocd.argoproj.io/sync-wave"] == "-1"
        assert apps[f"{cluster}-prep"]["metadata"]["labels"]["trainops.dev/app-class"] == "training"
    # The team's project covers both clusters of the class and is written once, with lab-a.
    kinds = [o["kind"] for o in results[("lab-b", "argocd")].objects.values()]
    assert "AppProject" not in kinds


def test_one_project_and_one_set_per_team_and_class(tmp_path: Path) -> None:
    project = _write(
        tmp_path,
        delivery="applicationset",
        delivery_b="applicationset",
        data_team="vision",
        data_namespace="cv",
    )
    results = {(r.cluster, r.app): r for r in render_project(project)}
    objects = list(results[("lab-a", "argocd")].objects.values())
    projects = {o["metadata"]["name"]: o for o in objects if o["kind"] == "AppProject"}
    sets = {o["metadata"]["name"]: o for o in objects if o["kind"] == "ApplicationSet"}
    assert sorted(projects) == ["research-lab", "vision-lab"]
    assert sorted(sets) == ["lab-research-training-ml", "lab-vision-long-lived-cv"]
    # Each team's project allows only its own namespace and kinds, on both clusters of the class.
    vision = projects["vision-lab"]["spec"]
    assert {(d["server"], d["namespace"]) for d in vision["destinations"]} == {
        ("https://a.example.com", "cv"),
        ("https://b.example.com", "cv"),
    }
    assert vision["namespaceResourceWhitelist"] == [{"group": "", "kind": "PersistentVolumeClaim"}]
    template = sets["lab-vision-long-lived-cv"]["spec"]["template"]["spec"]
    assert (template["project"], template["destination"]["namespace"]) == ("vision-lab", "cv")


def test_one_cluster_synth_renders_the_class_siblings(tmp_path: Path) -> None:
    project = _write(tmp_path, delivery="applicationset", delivery_b="applicationset")
    full = {(r.cluster, r.app): r.files for r in render_project(project)}
    alone = {(r.cluster, r.app): r.files for r in render_project(project, cluster="lab-a")}
    assert alone[("lab-a", "argocd")] == full[("lab-a", "argocd")]


@pytest.mark.parametrize(
    ("fmt", "message"),
    [
        ({"options": "Delete=false"}, r"training object Job/prep-1a2b3c lacks the sync option Prune=false"),
        ({"job_class": "'long-lived'"}, r"delivery='long-lived' but it emits the run-once Job/prep-1a2b3c"),
        ({"job_name": "argocd"}, r"the app name 'argocd' is reserved"),
        ({"delivery_b": "applicationset"}, r"share the class 'lab' but differ in delivery"),
        (
            {"job_name": "p" * 60, "delivery": "applicationset", "delivery_b": "applicationset"},
            r"Application name 'lab-a-p{60}' is longer than 63 characters",
        ),
        (
            {"config_wave": "-1"},
            r"app 'prep' on cluster 'lab-a': a training app must sit in one sync wave, not \[-1, 0\]",
        ),
    ],
)
def test_delivery_errors(tmp_path: Path, fmt: dict[str, str], message: str) -> None:
    with pytest.raises(UsageError, match=message):
        render_project(_write(tmp_path, **fmt))


@pytest.mark.parametrize("revision", ["HEAD", "main", "v1", "abc123"])
def test_protected_cluster_needs_a_pinned_revision(revision: str) -> None:
    with pytest.raises(ValueError, match=r"a protected cluster must pin a tag .* or a full commit SHA"):
        Cluster(name="prod", kubernetes_version="1.34", protected=True, target_revision=revision)


@pytest.mark.parametrize("revision", ["v1.4.0", "2026.11.1", "0123456789abcdef0123456789abcdef01234567"])
def test_protected_cluster_accepts_a_tag_or_sha(revision: str) -> None:
    assert Cluster(name="prod", kubernetes_version="1.34", protected=True, target_revision=revision).protected


@pytest.mark.parametrize(
    ("props", "message"),
    [
        ({"delivery": "helm"}, r"^Cluster delivery='helm': must be 'applicationset' or 'applications'"),
        ({"cluster_class": "GPU"}, r"^Cluster cluster_class='GPU': must be a DNS-1123 label"),
        ({"argocd_namespace": "Argo CD"}, r"^Cluster argocd_namespace='Argo CD': must be a DNS-1123 label"),
        ({"target_revision": "a b"}, r"^Cluster target_revision='a b': not a git revision"),
    ],
)
def test_cluster_delivery_errors(props: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Cluster(name="prod", kubernetes_version="1.34", **props)


def test_app_delivery_must_be_a_class() -> None:
    with pytest.raises(ValueError, match=r"^AppDef delivery='batch': must be 'long-lived' or 'training'"):
        AppDef(name="x", build=lambda chart, cluster: None, namespace="ml", team="t", delivery="batch")  # type: ignore[arg-type]


def test_argocd_output_does_not_depend_on_hash_seed(tmp_path: Path) -> None:
    """Sets and dicts must not leak their iteration order into the YAML (byte-identical output)."""
    import os
    import subprocess
    import sys

    trees = []
    for seed in ("1", "2"):
        out = tmp_path / seed
        env = {**os.environ, "PYTHONHASHSEED": seed}
        command = [str(Path(sys.executable).with_name("trainops")), "synth", "--out", str(out)]
        subprocess.run(command, cwd=SAMPLE, env=env, check=True, timeout=300, capture_output=True)
        trees.append(
            {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("argocd/*.yaml"))}
        )
    assert trees[0] and trees[0] == trees[1]
