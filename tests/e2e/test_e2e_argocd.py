"""End to end against a real Argo CD (``make e2e``): the sample repository delivered as a user would.

Runs only when the environment names a real Argo CD and its cluster; otherwise it skips and says
which variable is missing (``make test`` runs it as a skip):

- ``ARGOCD_SERVER``, ``ARGOCD_AUTH_TOKEN``: the Argo CD API (``TRAINOPS_E2E_INSECURE=1`` for a
  self-signed certificate);
- ``TRAINOPS_E2E_GIT_URL``: the git repository Argo CD clones (``http://`` is fine for an internal
  server); ``TRAINOPS_E2E_GIT_PUSH_URL``: where the test pushes it (default: the same URL; may carry
  credentials, never printed). Argo CD must be able to read the repository (register credentials
  beforehand if it needs any);
- ``KUBECONFIG`` (or kubectl's default config): kubectl reaching the cluster Argo CD runs in, which
  is also the destination here;
- ``TRAINOPS_E2E_CLUSTER``: the sample cluster whose tree is delivered (default ``gpu-next``; the
  cluster must have its operators' CRDs, e.g. Kubeflow Trainer v2, Kueue, KServe, prometheus-operator
  for ``gpu-next``); ``TRAINOPS_E2E_DESTINATION``: its API URL as Argo CD knows it (default
  ``https://kubernetes.default.svc``); ``TRAINOPS_E2E_TIMEOUT``: seconds per wait (default 900).

The scenario: copy the sample repository, point it at the git URL and destination, synth, push;
register the cluster with the two labels the ApplicationSets select; install the health checks;
``kubectl apply -f generated/<cluster>/argocd/root.yaml``; wait for every Application to be Synced;
check every generated object is in the cluster; change the ``bert-finetune`` job, push, and check
that the new run appears and the old one stays (superseded); mark the old run Succeeded through its
status subresource; ``trainops argocd prune-finished`` then deletes it and keeps the new one.
The cluster is left as the scenario ends (the root has no finalizer; delete it by hand).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import yaml

from trainops.argocd.client import ArgoCDClient
from trainops.argocd.commands import ConnectionOptions, client_config
from trainops.argocd.models import SyncRequest
from trainops.kinds import RUN_ONCE

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "examples" / "ml-platform" if (REPO / "examples" / "ml-platform").is_dir() else REPO
#: What a user's repository holds (DESIGN.md "Two kinds of repository").
USER_REPO = ("apps", "policies", "generated", "cdk8s.yaml")
TRAINOPS = str(Path(sys.executable).with_name("trainops"))
ENV = os.environ
CLUSTER = ENV.get("TRAINOPS_E2E_CLUSTER", "gpu-next")
DESTINATION = ENV.get("TRAINOPS_E2E_DESTINATION", "https://kubernetes.default.svc")
TIMEOUT = float(ENV.get("TRAINOPS_E2E_TIMEOUT", "900"))
#: The job the scenario changes, and how (a new content hash: a new run).
JOB_APP, OLD_ARG, NEW_ARG = "bert-finetune", "--epochs=3", "--epochs=4"


def _missing() -> str | None:
    """Why the scenario cannot run here, or ``None`` (asks kubectl only when the variables are set)."""
    for name in ("ARGOCD_SERVER", "ARGOCD_AUTH_TOKEN", "TRAINOPS_E2E_GIT_URL"):
        if not ENV.get(name):
            return f"set {name} (and the other TRAINOPS_E2E_* variables, see tests/e2e) to run against a real Argo CD"
    for tool in ("git", "kubectl"):
        if shutil.which(tool) is None:
            return f"{tool} is not on PATH"
    probe = subprocess.run(["kubectl", "version", "-o", "json"], capture_output=True, text=True, timeout=30)
    if probe.returncode != 0:
        return f"kubectl cannot reach a cluster: {probe.stderr.strip().splitlines()[-1:]}"
    return None


SKIP = _missing()
pytestmark = pytest.mark.skipif(SKIP is not None, reason=str(SKIP))
#: ``--insecure`` for the trainops argocd commands when Argo CD's certificate is self-signed.
INSECURE = ("--insecure",) if ENV.get("TRAINOPS_E2E_INSECURE") == "1" else ()


def _run(*command: str, cwd: Path | None = None, stdin: str | None = None, check: bool = True) -> str:
    result = subprocess.run(
        list(command), cwd=cwd, input=stdin, capture_output=True, text=True, timeout=TIMEOUT, env=dict(ENV)
    )
    if check and result.returncode != 0:
        shown = [c if "@" not in c else "<push url>" for c in command]  # never print credentials
        pytest.fail(f"{' '.join(shown)} exited {result.returncode}: {result.stderr.strip()[-2000:]}")
    return result.stdout


def _wait(what: str, done: Callable[[], bool], every: float = 5.0) -> None:
    deadline = time.monotonic() + TIMEOUT
    while not done():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {TIMEOUT:.0f} s waiting for {what}")
        time.sleep(every)


def _client() -> ArgoCDClient:
    return ArgoCDClient(client_config(ConnectionOptions(insecure=bool(INSECURE)), ENV))


def _in_cluster(path: Path) -> bool:
    result = subprocess.run(["kubectl", "get", "-f", str(path), "-o", "name"], capture_output=True, text=True)
    return result.returncode == 0


def _applications(repo: Path) -> set[str]:
    """The Applications the root must bring up: ``<cluster>-<app>`` and, for an app holding run-once
    and other objects, ``<cluster>-<app>-runs`` too (the delivery split), plus the root."""
    run_once = {kind.lower() for _, kind in RUN_ONCE}
    names = {f"{CLUSTER}-root"}
    for app in sorted((repo / "generated" / CLUSTER).iterdir()):
        if not app.is_dir() or app.name == "argocd":
            continue
        kinds = {p.name.split("_")[0] in run_once for p in app.glob("*.yaml")}
        names.add(f"{CLUSTER}-{app.name}")
        if kinds == {True, False}:
            names.add(f"{CLUSTER}-{app.name}-runs")
    return names


def _job_file(repo: Path) -> Path:
    (path,) = [
        p
        for p in (repo / "generated" / CLUSTER / JOB_APP).glob("*.yaml")
        if p.name.split("_")[0] in {k.lower() for _, k in RUN_ONCE}
    ]
    return path


def _succeeded_status(obj: dict[str, Any]) -> dict[str, Any]:
    """A status saying the run succeeded, as its operator would write it."""
    now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    if obj["kind"] == "TrainJob":  # kubeflow/trainer v1alpha1: metav1.Condition Complete
        condition = {
            "type": "Complete",
            "status": "True",
            "reason": "JobSetCompleted",
            "message": "jobset completed successfully",
            "lastTransitionTime": now,
        }
        return {"status": {"conditions": [condition]}}
    # Kubeflow v1 jobs (common_types.go JobCondition Succeeded)
    condition = {
        "type": "Succeeded",
        "status": "True",
        "reason": f"{obj['kind']}Succeeded",
        "message": f"{obj['kind']} {obj['metadata']['name']} is successfully completed.",
        "lastUpdateTime": now,
        "lastTransitionTime": now,
    }
    return {"status": {"conditions": [condition], "replicaStatuses": {}, "completionTime": now}}


def test_sample_repository_through_a_real_argocd(tmp_path: Path) -> None:
    git_url, push_url = (
        ENV["TRAINOPS_E2E_GIT_URL"],
        ENV.get("TRAINOPS_E2E_GIT_PUSH_URL") or ENV["TRAINOPS_E2E_GIT_URL"],
    )
    repo = tmp_path / "repo"
    repo.mkdir()
    for name in USER_REPO:
        source = SAMPLE / name
        if source.is_dir():
            shutil.copytree(source, repo / name, ignore=shutil.ignore_patterns("__pycache__"))
        elif source.is_file():
            shutil.copy2(source, repo / name)
    # Point every cluster at the test's git server, and the delivered one at the test's cluster.
    with (repo / "apps" / "clusters.py").open("a", encoding="utf-8") as handle:
        handle.write(
            "\n\n# trainops e2e: deliver from the test's git server to the test's cluster\n"
            "import dataclasses as _dc\n\n"
            f"CLUSTERS = tuple(_dc.replace(c, repo_url={git_url!r}, argocd_server={DESTINATION!r} "
            f"if c.name == {CLUSTER!r} else c.argocd_server) for c in CLUSTERS)\n"
        )
    _run(TRAINOPS, "synth", "--force", cwd=repo)
    assert (repo / "generated" / CLUSTER / "argocd" / "root.yaml").is_file(), f"{CLUSTER} has no root.yaml"
    _run("git", "init", "-q", "-b", "main", cwd=repo)
    _run("git", "add", "-A", cwd=repo)
    _run(
        "git",
        "-c",
        "user.name=trainops-e2e",
        "-c",
        "user.email=e2e@trainops.invalid",
        "commit",
        "-qm",
        "e2e: sample",
        cwd=repo,
    )
    _run("git", "push", "-q", "--force", push_url, "main:main", cwd=repo)

    # Once per Argo CD: the cluster with its two labels, the health checks; then the one object.
    root = next(
        c
        for c in yaml.safe_load_all((repo / "generated" / CLUSTER / "argocd" / "root.yaml").read_text())
        if c
    )
    argocd_ns = root["metadata"]["namespace"]
    secret = {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {
            "name": f"trainops-e2e-{CLUSTER}",
            "namespace": argocd_ns,
            "labels": {
                "argocd.argoproj.io/secret-type": "cluster",
                "trainops.dev/cluster": CLUSTER,
                "trainops.dev/cluster-class": CLUSTER,
            },
        },
        "stringData": {
            "name": CLUSTER,
            "server": DESTINATION,
            "config": json.dumps({"tlsClientConfig": {"insecure": False}}),
        },
    }
    _run("kubectl", "apply", "-f", "-", stdin=json.dumps(secret))
    patch = _run(TRAINOPS, "argocd", "health-checks", "--namespace", argocd_ns)
    _run(
        "kubectl",
        "-n",
        argocd_ns,
        "patch",
        "configmap",
        "argocd-cm",
        "--type",
        "merge",
        "--patch",
        json.dumps({"data": yaml.safe_load(patch)["data"]}),
    )
    _run("kubectl", "apply", "-f", str(repo / "generated" / CLUSTER / "argocd" / "root.yaml"))

    expected = _applications(repo)
    with _client() as client:

        def synced() -> bool:
            apps = {a.name: a for a in client.list_applications() if a.name in expected}
            return set(apps) == expected and all(a.sync.status == "Synced" for a in apps.values())

        _wait(f"the Applications {sorted(expected)} to be Synced", synced)

    for path in sorted((repo / "generated" / CLUSTER).glob("*/*.yaml")):
        if path.parent.name != "argocd":
            assert _in_cluster(path), f"{path.relative_to(repo)} is not in the cluster"

    # A changed job is a new run; the old one stays (Prune=false) as a superseded run.
    old_file = _job_file(repo)
    old = yaml.safe_load(old_file.read_text(encoding="utf-8"))
    saved_old = tmp_path / old_file.name
    shutil.copy2(old_file, saved_old)
    module = repo / "apps" / f"{JOB_APP.replace('-', '_')}.py"
    text = module.read_text(encoding="utf-8")
    assert OLD_ARG in text, f"{module.name} no longer holds {OLD_ARG}"
    module.write_text(text.replace(OLD_ARG, NEW_ARG), encoding="utf-8")
    _run(TRAINOPS, "synth", "--force", cwd=repo)
    new_file = _job_file(repo)
    assert new_file.name != old_file.name
    _run("git", "add", "-A", cwd=repo)
    _run(
        "git",
        "-c",
        "user.name=trainops-e2e",
        "-c",
        "user.email=e2e@trainops.invalid",
        "commit",
        "-qm",
        "e2e: new run",
        cwd=repo,
    )
    _run("git", "push", "-q", "--force", push_url, "main:main", cwd=repo)
    runs_app = next(n for n in (f"{CLUSTER}-{JOB_APP}-runs", f"{CLUSTER}-{JOB_APP}") if n in expected)
    with _client() as client:
        client.sync(SyncRequest(name=runs_app))
    _wait(f"the new run {new_file.stem} in the cluster", lambda: _in_cluster(new_file))
    assert _in_cluster(saved_old), "the superseded run was deleted by the sync"
    listing = _run(TRAINOPS, "argocd", "runs", runs_app, *INSECURE)
    assert old["metadata"]["name"] in listing and "superseded" in listing, listing

    # The old run finishes (through its status), then prune-finished deletes it and keeps the new one.
    body = json.dumps(_succeeded_status(old))
    _run(
        "kubectl",
        "-n",
        old["metadata"]["namespace"],
        "patch",
        f"{old['kind'].lower()}.{old['apiVersion'].split('/')[0]}/{old['metadata']['name']}",
        "--subresource=status",
        "--type=merge",
        "-p",
        body,
    )

    def old_succeeded() -> bool:
        out = _run(TRAINOPS, "argocd", "runs", runs_app, *INSECURE, check=False)
        return any(old["metadata"]["name"] in line and "Succeeded" in line for line in out.splitlines())

    _wait(f"Argo CD to report {old['metadata']['name']} Succeeded", old_succeeded)
    out = _run(TRAINOPS, "argocd", "prune-finished", runs_app, *INSECURE)
    assert "deleted" in out and old["metadata"]["name"] in out, out
    _wait(f"{old['metadata']['name']} to be deleted", lambda: not _in_cluster(saved_old))
    assert _in_cluster(new_file), "prune-finished deleted the current run"
