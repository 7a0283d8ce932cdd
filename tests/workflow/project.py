"""A small trainops repository written by the workflow tests: parameters in ``apps/params.json``
drive three apps (a PVC app, a PyTorchJob app, a Deployment app) on two clusters, ``prod``
protected, so each test changes a parameter instead of rewriting Python."""

from __future__ import annotations

import json
import os
import subprocess
import textwrap
from pathlib import Path
from typing import Any

APPS_INIT = """
import json
import pathlib

from constructs import Construct

from trainops.app import AppDef
from trainops.constructs import VolumeClaim, PyTorchJob
from trainops.constructs._core.base import emit

P = json.loads((pathlib.Path(__file__).parent / "params.json").read_text())
from apps.clusters import CLUSTERS


def data(chart, cluster):
    for name in P["volumes"]:
        VolumeClaim(chart, name, cluster=cluster, name=name, size="10Gi", access_mode="ReadWriteMany", storage_role=P["storage_role"])


def train(chart, cluster):
    PyTorchJob(chart, "Job", cluster=cluster, name=P["job"], image=P["image"], command=["python", "train.py"],
               workers=P["workers"], cpu="1", memory="1Gi")


def web(chart, cluster):
    if P["queue"]:
        emit(Construct(chart, "queue"), {
            "apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "LocalQueue", "metadata": {"name": "team"},
            "spec": {"clusterQueue": "cluster"},
        })
    labels = {"app": P["selector"]}
    container = {"name": "web", "image": "nginx:1.27", "resources": {"limits": {"cpu": "1", "memory": "1Gi"}}}
    emit(Construct(chart, "web"), {
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": P["web"]},
        "spec": {"replicas": P["replicas"], "selector": {"matchLabels": labels},
                 "template": {"metadata": {"labels": labels}, "spec": {"containers": [container]}}},
    })


APPS = (
    AppDef(name="data", build=data, namespace="ml", team="research", clusters=tuple(P["data_clusters"])),
    AppDef(name="train", build=train, namespace="ml", team="research", clusters=("lab",)),
    AppDef(name="web", build=web, namespace="ml", team="research", clusters=("lab",)),
)
"""

CLUSTERS_PY = """
import json
import pathlib

from trainops.core.cluster import Cluster

P = json.loads((pathlib.Path(__file__).parent / "params.json").read_text())
STORAGE = {"default": "standard-rwo", "shared": "nfs"}
LAB = {"training-operator": "v1.9.4", **P["lab_operators"]}
CLUSTERS = (
    Cluster(name="lab", kubernetes_version="1.34", operators=LAB, storage_classes=STORAGE),
    Cluster(name="prod", kubernetes_version="1.34", operators={"training-operator": "v1.9.4"}, storage_classes=STORAGE, protected=True, target_revision="v1.0.0"),
)
"""

PARAMS: dict[str, Any] = {
    "volumes": ["dataset", "checkpoints"],
    "storage_role": "shared",
    "data_clusters": ["lab"],
    "job": "bert",
    "image": "registry.example.com/train:1.0",
    "workers": 4,
    "web": "web",
    "selector": "web",
    "replicas": 2,
    "lab_operators": {},
    "queue": False,
}


def write_project(root: Path, **params: Any) -> Path:
    """Write (or rewrite) the project under ``root`` with ``PARAMS`` updated by ``params``."""
    apps = root / "apps"
    apps.mkdir(parents=True, exist_ok=True)
    (apps / "__init__.py").write_text(textwrap.dedent(APPS_INIT))
    (apps / "clusters.py").write_text(textwrap.dedent(CLUSTERS_PY))
    (apps / "params.json").write_text(json.dumps({**PARAMS, **params}, indent=2))
    return root


def git(root: Path, *args: str) -> str:
    """Run git in ``root`` with a fixed identity; return stdout."""
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
    }
    done = subprocess.run(
        ["git", "-C", str(root), *args], capture_output=True, text=True, env=env, check=True
    )
    return done.stdout


def init_repo(root: Path) -> None:
    """``git init -b main`` in ``root`` with everything committed."""
    git(root, "init", "-q", "-b", "main")
    commit_all(root, "initial")


def commit_all(root: Path, message: str) -> None:
    """Stage everything and commit."""
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)
