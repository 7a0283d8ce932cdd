"""Helpers (not a conftest: one per directory would clash) for the kubeflow.org/v1 job construct tests: CRD validation of synthesised YAML and
parity with the upstream Training Operator examples under ../shared/examples."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from conftest import EXAMPLES

#: The upstream Training Operator v1.9 examples (kubeflow/trainer ``examples/``).
TRAINING_EXAMPLES = EXAMPLES / "training-operator" / "examples"

#: What trainops adds to every kubeflow.org/v1 job on purpose, removed by :func:`strip_trainops`:
#: - ``metadata.name``: the ``-<hash6>`` run-once suffix (DESIGN.md decision 4);
#: - ``metadata.namespace``: the Chart's namespace;
#: - ``metadata.labels`` / ``metadata.annotations``: standard labels, spec hash, Argo CD sync options;
#: - pod ``automountServiceAccountToken: false`` and the pod ``securityContext`` (non-root, seccomp);
#: - container ``resources`` (requests = limits) and ``securityContext`` (no privilege escalation,
#:   all capabilities dropped, read-only root filesystem);
#: - the ``tmp`` (and ``shm``) scratch emptyDirs with their mounts.
SCRATCH_VOLUMES = ("tmp", "shm")


def strip_trainops(doc: dict[str, Any], replica_field: str) -> dict[str, Any]:
    """``doc`` without what trainops adds on purpose (the list above), for comparing with upstream."""
    out = copy.deepcopy(doc)
    meta = out["metadata"]
    meta["name"] = re.sub(r"-[0-9a-f]{6}$", "", meta["name"])
    for key in ("namespace", "labels", "annotations"):
        meta.pop(key, None)
    for replica in out["spec"][replica_field].values():
        pod = replica["template"]["spec"]
        pod.pop("automountServiceAccountToken")
        pod.pop("securityContext")
        pod["volumes"] = [v for v in pod.get("volumes", []) if v["name"] not in SCRATCH_VOLUMES]
        if not pod["volumes"]:
            del pod["volumes"]
        for container in pod["containers"]:
            container.pop("resources")
            container.pop("securityContext")
            mounts = [m for m in container.get("volumeMounts", []) if m["name"] not in SCRATCH_VOLUMES]
            container.pop("volumeMounts", None)
            if mounts:
                container["volumeMounts"] = mounts
    return out


def upstream_example(rel: str) -> dict[str, Any]:
    """The upstream example ``rel`` (relative to the training-operator examples) as a dict."""
    path = TRAINING_EXAMPLES / rel
    if not path.is_file():
        pytest.skip(f"{path} is not beside the repo")
    loaded: dict[str, Any] = yaml.safe_load(path.read_text(encoding="utf-8"))
    return loaded


def set_path(doc: dict[str, Any], path: str, value: Any) -> None:
    """Set ``value`` at the dotted ``path`` of ``doc`` (``None`` deletes the key)."""
    *parents, last = path.split(".")
    node: Any = doc
    for key in parents:
        node = node[int(key)] if isinstance(node, list) else node[key]
    if value is None:
        del node[last]
    else:
        node[last] = value


def validation_problems(cli: Any, tmp_path: Path, text: str) -> list[dict[str, Any]]:
    """Run ``trainops validate`` (the ``cli`` fixture) on ``text``; return its error and warning findings."""
    path = tmp_path / "job.yaml"
    path.write_text(text, encoding="utf-8")
    result = cli("validate", "--format", "json", "--kubernetes-version", "1.34", str(path))
    report = json.loads(result.out)
    assert report["documents"] == 1
    problems: list[dict[str, Any]] = [f for f in report["findings"] if f["level"] in ("error", "warning")]
    return problems
