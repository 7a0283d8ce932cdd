"""Engine semantics that are not plain JSON Schema: null pruning for custom resources."""

from __future__ import annotations

from pathlib import Path
from typing import Any

PYTORCHJOB = """apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: null-fields
  namespace: ml
spec:
  runPolicy: ~
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      template:
        spec:
          containers:
          - name: pytorch
            image: pytorch/pytorch:2.2.0
            command: ~
"""


def test_custom_resource_nulls_are_pruned_like_the_api_server(cli: Any, tmp_path: Path) -> None:
    path = tmp_path / "job.yaml"
    path.write_text(PYTORCHJOB)
    assert cli("validate", str(path)).code == 0


def test_pruned_required_null_is_missing(cli: Any, tmp_path: Path) -> None:
    path = tmp_path / "job.yaml"
    path.write_text(
        PYTORCHJOB.replace("            image: pytorch/pytorch:2.2.0\n", "            image: ~\n").replace(
            "          - name: pytorch\n", "          - name: ~\n"
        )
    )
    run = cli("validate", "-o", "text", str(path))
    assert run.code == 1
    assert (
        '$.spec.pytorchReplicaSpecs.Master.template.spec.containers[0]: missing required field "name"'
        in run.out
    )


def test_deprecated_crd_version_is_a_warning_with_its_text(cli: Any, tmp_path: Path) -> None:
    from conftest import EXAMPLES

    source = EXAMPLES / "kueue/site/static/examples/admin/single-clusterqueue-setup.yaml"
    text = source.read_text()
    assert cli("validate", str(source)).code == 0
    path = tmp_path / "queues.yaml"
    path.write_text(
        text.replace("kueue.x-k8s.io/v1beta2\nkind: LocalQueue", "kueue.x-k8s.io/v1beta1\nkind: LocalQueue")
    )
    run = cli("validate", "-o", "text", str(path))
    assert run.code == 0
    line = next(out for out in run.out.splitlines() if "deprecated" in out)
    assert "LocalQueue/" in line
    assert line.endswith(
        "$.apiVersion: warning: This version is deprecated. Use v1beta2 instead. [deprecated-api]"
    )
    assert cli("validate", "--strict", str(path)).code == 1
