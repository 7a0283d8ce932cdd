"""The delivery step of synth: Argo CD objects under generated/<cluster>/argocd/ from the apps."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest
import yaml

from conftest import SAMPLE
from trainops.app import AppDef
from trainops.core.cluster import Cluster
from trainops.core.errors import UsageError
from trainops.core.kinds import CLUSTER_SCOPED, group_kind
from trainops.project import Project, load_project
from trainops.synth import render_project
from trainops.synth.delivery import controller_owned, kubeflow_defaulted, run_once_files, split_app

REPO = Path(__file__).resolve().parents[2]
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
    # Projects, sets, the platform apps' Applications (one per member cluster) and the root.
    assert {obj["kind"] for obj in objects} == {"AppProject", "ApplicationSet", "Application"}
    platform = sorted(
        o["metadata"]["name"]
        for o in objects
        if o["kind"] == "Application" and o["metadata"]["labels"]["trainops.dev/app-class"] != "platform"
    )
    assert platform == [
        "gpu-prod-ml-platform",
        "gpu-prod-root",
        "gpu-prod-team-vision",
        "gpu-staging-ml-platform",
        "gpu-staging-team-vision",
    ]
    # One AppProject per team of the class's apps.
    teams = {
        o["metadata"]["labels"]["trainops.dev/team"]
        for (cluster, app), r in results.items()
        if cluster in ("gpu-prod", "gpu-staging") and app != "argocd"
        for o in r.objects.values()
    }
    projects = sorted(o["metadata"]["name"] for o in objects if o["kind"] == "AppProject")
    assert projects == sorted(f"{team}-gpu" for team in (*teams, "platform"))


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
    parts = split_app(bundled.apps[app], bundled.cluster("gpu-prod"), objects)
    assert [cls for cls, _ in parts] == [expected]
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


def _team_projects(results: dict[tuple[str, str], Any], lead: str) -> list[dict[str, Any]]:
    """The AppProjects of the teams' apps (not the platform's, see test_platform_project_*)."""
    return [
        o
        for o in _objects(results, lead, "argocd")
        if o["kind"] == "AppProject" and o["metadata"]["labels"]["trainops.dev/team"] != "platform"
    ]


@pytest.mark.parametrize("lead", ["gpu-prod", "gpu-next"])
def test_platform_project_allows_exactly_the_components_sources_and_namespaces(
    results: dict[tuple[str, str], Any], bundled: Project, lead: str
) -> None:
    objects = _objects(results, lead, "argocd")
    (project,) = (
        o for o in objects if o["metadata"]["name"] == f"platform-{bundled.cluster(lead).delivery_class}"
    )
    apps = [
        o
        for o in objects
        if o["kind"] == "Application" and o["spec"]["project"] == project["metadata"]["name"]
    ]
    members = [c for c in bundled.clusters if c.delivery_class == bundled.cluster(lead).delivery_class]
    # every member cluster's components, none of the apps' Applications
    assert {a["metadata"]["labels"]["trainops.dev/cluster"] for a in apps} == {c.name for c in members}
    assert {a["metadata"]["labels"]["trainops.dev/app-class"] for a in apps} == {"platform"}
    assert project["spec"]["sourceRepos"] == sorted({a["spec"]["source"]["repoURL"] for a in apps})
    assert {(d["server"], d["namespace"]) for d in project["spec"]["destinations"]} == {
        (a["spec"]["destination"]["server"], a["spec"]["destination"]["namespace"]) for a in apps
    }
    # the project first, then the components, all before the teams' projects (-2) and apps
    waves = {int(a["metadata"]["annotations"]["argocd.argoproj.io/sync-wave"]) for a in apps}
    assert int(project["metadata"]["annotations"]["argocd.argoproj.io/sync-wave"]) < min(waves)
    assert max(waves) < -2


@pytest.mark.parametrize("lead", ["gpu-prod", "gpu-next"])
def test_project_allows_exactly_the_rendered_kinds(
    results: dict[tuple[str, str], Any], bundled: Project, lead: str
) -> None:
    projects = _team_projects(results, lead)
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
    from trainops.core.kinds import REPLICA_SPECS_FIELD

    paths = kubeflow_defaulted(kind)
    assert ".spec.runPolicy.cleanPodPolicy" in paths
    assert f".spec.{REPLICA_SPECS_FIELD[kind]}[].restartPolicy" in paths
    assert any(".ports" in p for p in paths) == (kind != "MPIJob")


def test_generated_argocd_directory_validates(cli: Any) -> None:
    run = cli("validate", "--cluster", "gpu-prod", "generated/gpu-prod/argocd")
    assert run.code == 0, run.out + run.err


# --- small projects written by the test ---------------------------------------------------------

APPS = """
from trainops.app import AppDef
from trainops.core.cluster import Cluster
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


def namespaces(chart, cluster):
    for name in ("ml", "cv"):
        emit(Construct(chart, name), {{"apiVersion": "v1", "kind": "Namespace", "metadata": {{"name": name}}}})


APPS = (
    AppDef(name="{job_name}", build=job, namespace="ml", team="research", delivery={job_class}),
    AppDef(name="data", build=claim, namespace="{data_namespace}", team="{data_team}"),
){platform}
"""

#: An app creating the namespaces of the others (``platform=PLATFORM`` in :func:`_write`).
PLATFORM = ' + (AppDef(name="platform", build=namespaces, namespace="ml", team="research"),)'


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
        "platform": "",
        **fmt,
    }
    (root / "apps").mkdir(parents=True)
    (root / "apps" / "__init__.py").write_text(textwrap.dedent(APPS.format(**values)), encoding="utf-8")
    return load_project(root)


def test_applications_mode_writes_one_application_per_app_part(tmp_path: Path) -> None:
    results = {(r.cluster, r.app): r for r in render_project(_write(tmp_path))}
    for cluster, server in (("lab-a", "https://a.example.com"), ("lab-b", "https://b.example.com")):
        objects = results[(cluster, "argocd")].objects
        apps = {o["metadata"]["name"]: o for o in objects.values() if o["kind"] == "Application"}
        # "prep" holds a ConfigMap and a Job: a long-lived Application and a training one ("-runs").
        assert sorted(apps) == [
            f"{cluster}-data",
            f"{cluster}-prep",
            f"{cluster}-prep-runs",
            f"{cluster}-root",
        ]
        assert objects["root.yaml"]["metadata"]["name"] == f"{cluster}-root"
        del apps[f"{cluster}-root"]
        assert {a["spec"]["destination"]["server"] for a in apps.values()} == {server}
        # No app creates a namespace here: every Application syncs in the root's wave 0.
        assert {a["metadata"]["annotations"]["argocd.argoproj.io/sync-wave"] for a in apps.values()} == {"0"}
        runs, prep = apps[f"{cluster}-prep-runs"], apps[f"{cluster}-prep"]
        assert runs["metadata"]["labels"]["trainops.dev/app-class"] == "training"
        assert prep["metadata"]["labels"]["trainops.dev/app-class"] == "long-lived"
        assert runs["spec"]["source"]["path"] == prep["spec"]["source"]["path"] == f"generated/{cluster}/prep"
        assert runs["spec"]["source"]["directory"] == {"include": run_once_files()}
        assert prep["spec"]["source"]["directory"] == {"exclude": run_once_files()}
        # Each part ignores only the controller-owned fields of its own objects.
        assert [e["kind"] for e in runs["spec"]["ignoreDifferences"]] == ["Job"]
        assert "ignoreDifferences" not in prep["spec"]
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
    assert sorted(sets) == ["lab-research-long-lived-ml", "lab-research-runs-ml", "lab-vision-long-lived-cv"]
    # Each team's project allows only its own namespace and kinds, on both clusters of the class.
    vision = projects["vision-lab"]["spec"]
    assert {(d["server"], d["namespace"]) for d in vision["destinations"]} == {
        ("https://a.example.com", "cv"),
        ("https://b.example.com", "cv"),
    }
    assert vision["namespaceResourceWhitelist"] == [{"group": "", "kind": "PersistentVolumeClaim"}]
    template = sets["lab-vision-long-lived-cv"]["spec"]["template"]["spec"]
    assert (template["project"], template["destination"]["namespace"]) == ("vision-lab", "cv")
    runs = sets["lab-research-runs-ml"]["spec"]["template"]
    assert runs["metadata"]["name"].endswith("{{ .path.basename }}-runs")
    assert runs["spec"]["source"]["directory"] == {"include": run_once_files()}


def test_long_lived_delivery_of_an_app_with_a_run_still_splits(tmp_path: Path) -> None:
    """``delivery="long-lived"`` no longer refuses a run-once object: it goes to ``<app>-runs``."""
    results = {(r.cluster, r.app): r for r in render_project(_write(tmp_path, job_class="'long-lived'"))}
    names = {o["metadata"]["name"] for o in results[("lab-a", "argocd")].objects.values()}
    assert {"lab-a-prep", "lab-a-prep-runs"} <= names


def test_training_delivery_keeps_one_application(tmp_path: Path) -> None:
    """``delivery="training"`` keeps the ConfigMap with its Job in one training Application."""
    results = {(r.cluster, r.app): r for r in render_project(_write(tmp_path, job_class="'training'"))}
    apps = {o["metadata"]["name"]: o for o in results[("lab-a", "argocd")].objects.values()}
    assert "lab-a-prep-runs" not in apps
    assert apps["lab-a-prep"]["metadata"]["labels"]["trainops.dev/app-class"] == "training"
    assert "directory" not in apps["lab-a-prep"]["spec"]["source"]


def _namespace_findings(objects: list[dict[str, Any]]) -> list[str]:
    from trainops.core.findings import Finding
    from trainops.policy.config import PolicyConfig, RuleConfig
    from trainops.policy.engine import PolicyRun, run_policies
    from trainops.policy.facts import Facts
    from trainops.policy.loader import default_pack
    from trainops.yaml.load import Document, stream_text

    pack = default_pack()
    config = PolicyConfig({"destination-namespace": RuleConfig("error", {})})
    text = yaml.safe_dump_all(objects)
    documents = [d for d in stream_text(text, "set.yaml") if isinstance(d, Document)]
    found: list[Finding] = run_policies(documents, PolicyRun(pack, config, Facts(cluster="lab-a")))
    return sorted(f"{f.object_ref}: {f.message}" for f in found)


@pytest.mark.parametrize("delivery", ["applications", "applicationset"])
def test_namespaces_are_delivered_by_a_platform_app(tmp_path: Path, delivery: str) -> None:
    """Without an app creating "ml" and "cv", the rule flags each destination namespace; with one,
    that app syncs in wave -1 of the root, before every other Application and ApplicationSet."""
    fmt = {"delivery": delivery, "delivery_b": delivery, "data_namespace": "cv"}
    bare = render_project(_write(tmp_path / "bare", **fmt))
    objects = [o for r in bare if r.cluster == "lab-a" for o in r.objects.values()]
    flagged = _namespace_findings(objects)
    assert flagged and all("is created by no app in the set" in f for f in flagged)
    assert {f.split('"')[1] for f in flagged} == {"ml", "cv"}
    assert not any("lab-a-root" in f for f in flagged)  # Argo CD's own namespace exists

    full = render_project(_write(tmp_path / "full", platform=PLATFORM, **fmt))
    objects = [o for r in full if r.cluster == "lab-a" for o in r.objects.values()]
    assert _namespace_findings(objects) == []
    argocd = next(r for r in full if (r.cluster, r.app) == ("lab-a", "argocd")).objects
    waves = {
        o["metadata"]["name"]: o["metadata"]["annotations"].get("argocd.argoproj.io/sync-wave")
        for o in argocd.values()
        if o["kind"] != "Application" or o["metadata"]["name"] != "lab-a-root"
    }
    assert waves.pop("research-lab") == "-2"  # the AppProjects first
    platform = {name for name in waves if name.endswith("-platform")}
    expected = {"lab-a-platform", "lab-b-platform"} if delivery == "applicationset" else {"lab-a-platform"}
    assert platform == expected
    assert {waves[name] for name in platform} == {"-1"}
    assert {w for name, w in waves.items() if name not in platform} == {"0"}
    # The research project may create Namespaces, and deploy to both namespaces.
    project = argocd["appproject_research-lab.yaml"]["spec"]
    assert project["clusterResourceWhitelist"] == [{"group": "", "kind": "Namespace"}]
    assert {d["namespace"] for d in project["destinations"]} == {"ml", "cv"}


@pytest.mark.parametrize("lead", ["gpu-prod", "gpu-next"])
def test_projects_allow_exactly_the_destination_namespaces(
    results: dict[tuple[str, str], Any], bundled: Project, lead: str
) -> None:
    members = [c for c in bundled.clusters if c.delivery_class == bundled.cluster(lead).delivery_class]
    for project in _team_projects(results, lead):
        team = project["metadata"]["labels"]["trainops.dev/team"]
        mine = [
            (app, r)
            for (cluster, app), r in results.items()
            if app != "argocd" and cluster in {c.name for c in members} and bundled.apps[app].team == team
        ]
        namespaces = {bundled.apps[app].namespace for app, _ in mine} | {
            o["metadata"]["namespace"]
            for _, r in mine
            for o in r.objects.values()
            if "namespace" in o["metadata"]
        }
        allowed = {(d["server"], d["namespace"]) for d in project["spec"]["destinations"]}
        assert allowed == {(c.argocd_server, ns) for c in members for ns in namespaces}, team


def test_one_cluster_synth_renders_the_class_siblings(tmp_path: Path) -> None:
    project = _write(tmp_path, delivery="applicationset", delivery_b="applicationset")
    full = {(r.cluster, r.app): r.files for r in render_project(project)}
    alone = {(r.cluster, r.app): r.files for r in render_project(project, cluster="lab-a")}
    assert alone[("lab-a", "argocd")] == full[("lab-a", "argocd")]


@pytest.mark.parametrize(
    ("fmt", "message"),
    [
        ({"options": "Delete=false"}, r"training object Job/prep-1a2b3c lacks the sync option Prune=false"),
        ({"job_name": "argocd"}, r"the app name 'argocd' is reserved"),
        ({"delivery_b": "applicationset"}, r"share the class 'lab' but differ in delivery"),
        (
            {"job_name": "p" * 60, "delivery": "applicationset", "delivery_b": "applicationset"},
            r"Application name 'lab-a-p{60}' is longer than 63 characters",
        ),
        (
            {"config_wave": "-1", "job_class": "'training'"},
            r"app 'prep' on cluster 'lab-a': a training Application must sit in one sync wave, not "
            r"\[-1, 0\]: .* leave delivery unset",
        ),
        ({"job_name": "root"}, r"Application name 'lab-a-root' is used twice on cluster 'lab-a'"),
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


def _run_once(name: str, wave: str) -> dict[str, Any]:
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {
            "name": name,
            "annotations": {
                "argocd.argoproj.io/sync-options": "Prune=false",
                "argocd.argoproj.io/sync-wave": wave,
            },
        },
    }


def test_split_keeps_long_lived_objects_first() -> None:
    app = AppDef(name="x", build=lambda chart, cluster: None, namespace="ml", team="t")
    claim = {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "data"}}
    parts = split_app(app, Cluster(name="c", kubernetes_version="1.34"), [_run_once("a-1a2b3c", "0"), claim])
    assert [(cls, [o["metadata"]["name"] for o in objs]) for cls, objs in parts] == [
        ("long-lived", ["data"]),
        ("training", ["a-1a2b3c"]),
    ]


def test_run_once_objects_of_one_app_share_a_wave() -> None:
    app = AppDef(name="x", build=lambda chart, cluster: None, namespace="ml", team="t")
    objects = [_run_once("a-1a2b3c", "0"), _run_once("b-4d5e6f", "1")]
    with pytest.raises(UsageError, match=r"a training Application must sit in one sync wave, not \[0, 1\]"):
        split_app(app, Cluster(name="c", kubernetes_version="1.34"), objects)
