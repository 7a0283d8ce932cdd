"""The committed ``generated/<cluster>/argocd/`` run by the fake Argo CD as the real one runs it.

The root Application (``root.yaml``) syncs the directory in wave order; the ApplicationSet
controller expands each set over the registered clusters and the committed tree (generating nothing
while its AppProject is missing, as the real controller does); the repo-server's directory source
picks each Application's files. Checked: the bootstrap creates every Application the apps need,
each file of an app directory is synced by exactly one Application, and every destination
namespace is created by an Application of an earlier wave.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import fakeargocd as fake
import pytest
import yaml

from trainops.core.kinds import RUN_ONCE
from trainops.pipeline import Target, Text, check
from trainops.project import Project, load_project

REPO = Path(__file__).resolve().parents[2]
#: The sample repository: at the root today, under examples/ml-platform/ once moved there.
SAMPLE = REPO / "examples" / "ml-platform" if (REPO / "examples" / "ml-platform").is_dir() else REPO
ARGOCD_DIRS = sorted(p.parent.parent.name for p in (SAMPLE / "generated").glob("*/argocd/root.yaml"))


@pytest.fixture(scope="module")
def sample() -> Project:
    return load_project(SAMPLE)


def _load(path: Path) -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load(path.read_text(encoding="utf-8"))
    return loaded


def _registered(project: Project) -> list[fake.RegisteredCluster]:
    """Every cluster registered in Argo CD with the two labels the ApplicationSets select by."""
    return [
        fake.RegisteredCluster(
            c.name,
            c.argocd_server,
            {"trainops.dev/cluster": c.name, "trainops.dev/cluster-class": c.delivery_class},
        )
        for c in project.clusters
    ]


def _bootstrap(cluster: str, project: Project) -> tuple[list[tuple[int, dict[str, Any]]], list[str]]:
    """Sync ``root.yaml`` of ``cluster``: ``[(wave, Application)]`` (plain and generated) and errors."""
    root = _load(SAMPLE / "generated" / cluster / "argocd" / "root.yaml")
    files = fake.source_files(SAMPLE, root["spec"]["source"])
    objects = [_load(SAMPLE / root["spec"]["source"]["path"] / name) for name in files]
    projects: set[str] = set()
    apps: list[tuple[int, dict[str, Any]]] = []
    errors: list[str] = []
    for number, wave in enumerate(fake.sync_waves(objects)):
        for obj in wave:  # a wave sees the AppProjects of the earlier waves only
            if obj["kind"] == "Application":
                if obj["spec"]["project"] not in projects:
                    errors.append(f"{obj['metadata']['name']}: project {obj['spec']['project']} missing")
                apps.append((number, obj))
            elif obj["kind"] == "ApplicationSet":
                generated = fake.generate(obj, projects, _registered(project), SAMPLE)
                if generated.error:
                    errors.append(f"{obj['metadata']['name']}: {generated.error}")
                apps += [(number, app) for app in generated.applications]
        projects |= {o["metadata"]["name"] for o in wave if o["kind"] == "AppProject"}
    return apps, errors


def _repo_apps(cluster: str, project: Project) -> list[tuple[int, dict[str, Any]]]:
    """The bootstrapped Applications that sync the sample repository (not the platform's, whose
    sources are upstream releases: test_platform_applications_*)."""
    return [(w, a) for w, a in _bootstrap(cluster, project)[0] if not _platform(a)]


def _platform(app: dict[str, Any]) -> bool:
    return bool(app["metadata"]["labels"].get("trainops.dev/app-class") == "platform")


@pytest.mark.parametrize("cluster", ARGOCD_DIRS)
def test_platform_applications_come_first_and_create_their_namespaces(cluster: str, sample: Project) -> None:
    apps, errors = _bootstrap(cluster, sample)
    assert errors == []
    platform = [(w, a) for w, a in apps if _platform(a)]
    others = [w for w, a in apps if not _platform(a)]
    assert platform
    assert max(w for w, _ in platform) < min(others)
    for _, app in platform:
        assert "CreateNamespace=true" in app["spec"]["syncPolicy"]["syncOptions"]
        assert app["spec"]["source"]["repoURL"] != sample.cluster(cluster).repo_url
    # a component's CRD chart syncs in an earlier wave than its controller
    waves = {a["metadata"]["name"]: w for w, a in platform}
    for name, wave in waves.items():
        if name.endswith("-crds"):
            assert wave < waves[name.removesuffix("-crds")]


def test_sample_has_a_root_per_argocd_directory() -> None:
    assert ARGOCD_DIRS
    dirs = sorted(p.parent.name for p in (SAMPLE / "generated").glob("*/argocd"))
    assert dirs == ARGOCD_DIRS


@pytest.mark.parametrize("cluster", ARGOCD_DIRS)
def test_root_syncs_its_directory_but_itself(cluster: str) -> None:
    root = _load(SAMPLE / "generated" / cluster / "argocd" / "root.yaml")
    source = root["spec"]["source"]
    directory = SAMPLE / "generated" / cluster / "argocd"
    assert fake.source_files(SAMPLE, source) == sorted(
        p.name for p in directory.glob("*.yaml") if p.name != "root.yaml"
    )
    # On Argo CD's own cluster, in its namespace, in the project of a fresh install; no cascade.
    assert root["spec"]["destination"] == {"server": "https://kubernetes.default.svc", "namespace": "argocd"}
    assert root["spec"]["project"] == "default"
    assert "finalizers" not in root["metadata"]


@pytest.mark.parametrize("cluster", ARGOCD_DIRS)
def test_applying_the_files_in_name_order_fails_as_the_real_server_did(cluster: str, sample: Project) -> None:
    """``kubectl apply -f generated/<cluster>/argocd/`` creates the ApplicationSets before their
    AppProjects (issue 25 point 3): the controller generates nothing for them."""
    directory = SAMPLE / "generated" / cluster / "argocd"
    first_set = next(
        _load(p) for p in sorted(directory.glob("*.yaml")) if _load(p)["kind"] == "ApplicationSet"
    )
    generated = fake.generate(first_set, set(), _registered(sample), SAMPLE)
    assert generated.applications == []
    assert generated.error is not None and "which does not exist" in generated.error


def _app_dirs(project: Project, cluster: str) -> list[Path]:
    """The app directories the Argo CD objects under ``generated/<cluster>/argocd/`` deliver."""
    lead = project.cluster(cluster)
    members = [c.name for c in project.clusters if c.delivery_class == lead.delivery_class]
    return sorted(
        p for m in members for p in (SAMPLE / "generated" / m).iterdir() if p.is_dir() and p.name != "argocd"
    )


@pytest.mark.parametrize("cluster", ARGOCD_DIRS)
def test_bootstrap_delivers_every_file_once(cluster: str, sample: Project, schema_cache: Path) -> None:
    errors = _bootstrap(cluster, sample)[1]
    apps = _repo_apps(cluster, sample)
    assert errors == []
    names = [app["metadata"]["name"] for _, app in apps]
    assert len(names) == len(set(names))
    synced: dict[str, list[str]] = {}
    for _, app in apps:
        source = app["spec"]["source"]
        for name in fake.source_files(SAMPLE, source):
            synced.setdefault(f"{source['path']}/{name}", []).append(app["metadata"]["name"])
    expected = {str(p.relative_to(SAMPLE)) for d in _app_dirs(sample, cluster) for p in d.glob("*.yaml")}
    assert set(synced) == expected
    assert {k: v for k, v in synced.items() if len(v) > 1} == {}
    # An Application never mixes run-once objects with others, and its class says which it holds.
    run_once = {kind.lower() for _, kind in RUN_ONCE}
    for _, app in apps:
        kinds = {name.split("_")[0] in run_once for name in fake.source_files(SAMPLE, app["spec"]["source"])}
        assert kinds == {app["metadata"]["labels"]["trainops.dev/app-class"] == "training"}, app["metadata"]
    texts = [Text(f"{app['metadata']['name']}.yaml", yaml.safe_dump(app)) for _, app in apps]
    assert check(Target("1.34", {"argo-cd": "v3.5.1"}, schema_cache), texts).findings == []


@pytest.mark.parametrize("cluster", ARGOCD_DIRS)
def test_each_destination_namespace_exists_before_its_application(cluster: str, sample: Project) -> None:
    """Every Application's destination namespace is a Namespace that an Application of an earlier
    wave (or the Application itself) creates on the same cluster."""
    apps = _repo_apps(cluster, sample)
    created: dict[tuple[str, str], int] = {}
    for wave, app in apps:
        for name in fake.source_files(SAMPLE, app["spec"]["source"]):
            if name.startswith("namespace_"):
                obj = _load(SAMPLE / app["spec"]["source"]["path"] / name)
                key = (app["spec"]["destination"]["server"], obj["metadata"]["name"])
                created[key] = min(wave, created.get(key, wave))
    assert created
    for wave, app in apps:
        destination = app["spec"]["destination"]
        key = (destination["server"], destination["namespace"])
        own = any(
            n == f"namespace_{destination['namespace']}.yaml"
            for n in fake.source_files(SAMPLE, app["spec"]["source"])
        )
        if destination["server"] == "https://kubernetes.default.svc" and destination["namespace"] == "argocd":
            continue
        assert own or created.get(key, wave) < wave, (app["metadata"]["name"], key)


@pytest.mark.parametrize("cluster", ARGOCD_DIRS)
def test_generated_applications_match_their_clusters_and_projects(cluster: str, sample: Project) -> None:
    apps = _repo_apps(cluster, sample)
    directory = SAMPLE / "generated" / cluster / "argocd"
    projects = {
        o["metadata"]["name"]: o["spec"] for o in (_load(p) for p in directory.glob("appproject_*.yaml"))
    }
    for _, app in apps:
        target = sample.cluster(app["metadata"]["labels"]["trainops.dev/cluster"])
        destination = app["spec"]["destination"]
        assert app["spec"]["source"]["targetRevision"] == target.target_revision
        assert destination["server"] == target.argocd_server
        allowed = {(d["server"], d["namespace"]) for d in projects[app["spec"]["project"]]["destinations"]}
        assert (destination["server"], destination["namespace"]) in allowed
        for name in fake.source_files(SAMPLE, app["spec"]["source"]):
            namespace = _load(SAMPLE / app["spec"]["source"]["path"] / name)["metadata"].get("namespace")
            assert namespace is None or (destination["server"], namespace) in allowed, name


@pytest.mark.parametrize(
    ("pattern", "name", "matches"),
    [
        ("{job_*.yaml,trainjob_*.yaml}", "job_prep-1a2b3c.yaml", True),
        ("{job_*.yaml,trainjob_*.yaml}", "trainjob_bert-d21992.yaml", True),
        ("{job_*.yaml,trainjob_*.yaml}", "cronjob_nightly.yaml", False),
        ("root.yaml", "root.yaml", True),
    ],
)
def test_fake_directory_glob(pattern: str, name: str, matches: bool) -> None:
    assert fake.glob_match(pattern, name) is matches


def test_one_app_with_a_job_and_its_monitor_becomes_two_applications(sample: Project) -> None:
    """``tf-ps-worker`` holds a TFJob and the PodMonitor selecting its pods: the monitor goes to the
    long-lived ``gpu-prod-tf-ps-worker``, the run to ``gpu-prod-tf-ps-worker-runs``."""
    apps = {app["metadata"]["name"]: app for _, app in _bootstrap("gpu-prod", sample)[0]}
    long_lived, runs = apps["gpu-prod-tf-ps-worker"], apps["gpu-prod-tf-ps-worker-runs"]
    files = {
        name: fake.source_files(SAMPLE, app["spec"]["source"])
        for name, app in (("app", long_lived), ("runs", runs))
    }
    assert [f.split("_")[0] for f in files["app"]] == ["podmonitor"]
    assert [f.split("_")[0] for f in files["runs"]] == ["tfjob"]
    monitor = _load(SAMPLE / long_lived["spec"]["source"]["path"] / files["app"][0])
    job = _load(SAMPLE / runs["spec"]["source"]["path"] / files["runs"][0])
    assert (
        monitor["spec"]["selector"]["matchLabels"]["training.kubeflow.org/job-name"]
        == job["metadata"]["name"]
    )
    assert runs["spec"]["syncPolicy"]["automated"] == {"prune": True, "selfHeal": False}
    assert "Prune=false" in job["metadata"]["annotations"]["argocd.argoproj.io/sync-options"]
