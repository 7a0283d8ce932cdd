"""`trainops synth` and `trainops ci` on a small project written by the test."""

from __future__ import annotations

import hashlib
import textwrap
from pathlib import Path
from typing import Any

import pytest
import yaml

from conftest import SAMPLE
from trainops.core.errors import UsageError
from trainops.synth import write_tree

APPS_INIT = """
from trainops.app import AppDef
from trainops.core.cluster import Cluster
from trainops.constructs._core.base import emit
from constructs import Construct

CLUSTERS = (Cluster(name="lab", kubernetes_version="1.34", operators={{"prometheus-operator": "v0.93.0"}}),)
CPU = "{cpu}"


def build(chart, cluster):
    if CPU == "boom":
        raise ValueError("Widget cpu='boom': not a quantity")
    scope = Construct(chart, "settings")
    emit(scope, {{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {{"name": "settings"}}, "data": {{"on": "yes"}}}})
    pod = Construct(chart, "worker")
    emit(pod, {{
        "apiVersion": "v1", "kind": "Pod", "metadata": {{"name": "worker"}},
        "spec": {{"containers": [{{"name": "main", "image": "busybox:1.36",
                  "resources": {{"limits": {{"cpu": CPU, "memory": "1024Mi"}}}}}}]}},
    }})


APPS = (AppDef(name="demo", build=build, namespace="ml", team="research"),)
"""


def _project(root: Path, cpu: str = "0.5") -> Path:
    (root / "apps").mkdir(parents=True, exist_ok=True)
    (root / "apps" / "__init__.py").write_text(textwrap.dedent(APPS_INIT.format(cpu=cpu)))
    return root


def _digest(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = _project(tmp_path / "repo")
    monkeypatch.chdir(root)
    return root


def test_synth_layout_and_normalisation(cli: Any, project: Path) -> None:
    run = cli("synth")
    assert run.code == 0, run.err
    files = sorted(
        str(p.relative_to(project / "generated")) for p in (project / "generated").rglob("*") if p.is_file()
    )
    assert files == ["lab/demo/configmap_settings.yaml", "lab/demo/pod_worker.yaml", "lab/lock.json"]
    pod = yaml.safe_load((project / "generated/lab/demo/pod_worker.yaml").read_text())
    assert list(pod) == ["apiVersion", "kind", "metadata", "spec"]
    assert pod["metadata"]["namespace"] == "ml"
    assert pod["metadata"]["labels"] == {
        "app.kubernetes.io/managed-by": "trainops",
        "app.kubernetes.io/name": "demo",
        "app.kubernetes.io/part-of": "demo",
        "app.kubernetes.io/version": "0.1.0",
        "trainops.dev/team": "research",
    }
    assert len(pod["metadata"]["annotations"]["trainops.dev/spec-hash"]) == 16
    assert pod["spec"]["containers"][0]["resources"]["limits"] == {"cpu": "500m", "memory": "1Gi"}
    text = (project / "generated/lab/demo/configmap_settings.yaml").read_text()
    assert "'on': 'yes'" in text  # YAML 1.1 booleans stay strings for go-yaml readers


def test_synth_is_byte_identical(cli: Any, project: Path) -> None:
    assert cli("synth").code == 0
    first = _digest(project / "generated")
    assert cli("synth").code == 0
    assert _digest(project / "generated") == first


def test_bad_prop_leaves_generated_untouched(cli: Any, project: Path) -> None:
    assert cli("synth").code == 0
    before = _digest(project / "generated")
    _project(project, cpu="boom")
    run = cli("synth")
    assert run.code == 2
    assert (
        run.err.strip()
        == "trainops: apps/__init__.py:13: app 'demo' on cluster 'lab': Widget cpu='boom': not a quantity"
    )
    assert _digest(project / "generated") == before
    assert [p.name for p in (project / "generated").iterdir()] == ["lab"]  # no temporary leftovers


def test_bad_quantity_from_construct_names_path(cli: Any, project: Path) -> None:
    _project(project, cpu="lots")
    run = cli("synth")
    assert run.code == 2
    assert "$.spec.containers[0].resources.limits.cpu: 'lots' is not a quantity" in run.err


def test_ci_detects_drift_then_passes(cli: Any, project: Path) -> None:
    stale = cli("ci")
    assert stale.code == 1
    assert "missing  generated/lab/demo/pod_worker.yaml" in stale.err
    assert cli("synth").code == 0
    target = project / "generated/lab/demo/pod_worker.yaml"
    target.write_text(target.read_text().replace("busybox", "alpine"))
    changed = cli("ci")
    assert changed.code == 1
    assert "changed  generated/lab/demo/pod_worker.yaml" in changed.err
    assert cli("synth", "--force").code == 0  # the hand edit is overwritten only when forced
    ok = cli("ci", "--format", "text")
    assert ok.code == 0, ok.out + ok.err
    assert "2 files, 2 documents: 0 errors, 0 warnings" in ok.out
    row = next(line for line in ok.out.splitlines() if " demo " in line)
    assert "lab" in row and "valid" in row and " 2 " in row


def test_ci_reports_invalid_generated_objects(cli: Any, project: Path) -> None:
    _project(project, cpu="1")
    assert cli("synth").code == 0
    # A construct bug that yields an invalid object must fail CI even when generated/ is fresh.
    apps = project / "apps" / "__init__.py"
    apps.write_text(apps.read_text().replace('"name": "main", ', '"nmae": "main", '))
    assert cli("synth", "--no-validate").code == 0
    run = cli("ci", "--format", "text")
    assert run.code == 1
    assert 'Pod/worker $.spec.containers[0]: missing required field "name"' in run.out


def test_write_tree_refuses_paths_outside_output(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="refusing to write outside"):
        write_tree(tmp_path, {"lab/../../evil.yaml": "x"}, ["lab"])
    assert not (tmp_path.parent / "evil.yaml").exists()


def test_unknown_cluster(cli: Any, project: Path) -> None:
    run = cli("synth", "--cluster", "nope")
    assert run.code == 2
    assert "unknown cluster 'nope' (apps/clusters.py declares: lab)" in run.err


def test_no_apps_package(cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    run = cli("synth")
    assert run.code == 2
    assert "no apps package here" in run.err


def test_cdk8s_app_entry_point_writes_every_chart(tmp_path: Path) -> None:
    """cdk8s.yaml runs `python -m apps`; the cdk8s CLI passes CDK8S_OUTDIR (default dist/)."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "CDK8S_OUTDIR": str(tmp_path)}
    subprocess.run([sys.executable, "-m", "apps"], cwd=SAMPLE, env=env, check=True, timeout=120)
    written = sorted(p.name for p in tmp_path.glob("*.k8s.yaml"))
    generated = SAMPLE / "generated"
    expected = sorted(
        f"{cluster.name}-{app.name}.k8s.yaml"
        for cluster in generated.iterdir()
        if cluster.is_dir()
        for app in cluster.iterdir()
        if app.is_dir()  # Argo CD objects (argocd/) too: python -m apps writes what trainops synth writes
    )
    assert written == expected
    kinds = {
        doc["kind"] for p in tmp_path.glob("*.k8s.yaml") for doc in yaml.safe_load_all(p.read_text()) if doc
    }
    assert {
        "PyTorchJob",
        "PersistentVolumeClaim",
        "Deployment",
        "Service",
        "HorizontalPodAutoscaler",
    } <= kinds


def test_synth_runs_the_policy_pack_before_writing(
    cli: Any, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A policy error in the rendered output stops a full synth before anything is written."""
    import trainops.cli.synth as synth_cmd
    from trainops.core.findings import Finding, Result

    calls: list[str] = []

    def hook(root: Path, workers: int) -> Any:
        def run(texts: list[Any], targets: Any) -> Result:
            calls.append(targets[texts[0].path].cluster)
            return Result(
                findings=[Finding("no-privileged", "error", "container is privileged", texts[0].path)]
            )

        return run

    monkeypatch.setattr(synth_cmd, "policy_hook", hook)
    run = cli("synth")
    assert run.code == 1 and calls == ["lab"]
    assert "[no-privileged]" in run.out and "was not written" in run.err
    assert not (project / "generated").exists()
