"""Engine semantics that are not plain JSON Schema: null pruning for custom resources."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

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


def test_deprecated_crd_version_is_a_warning_with_its_text(
    cli: Any, tmp_path: Path, outside_project: Path
) -> None:
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


MPI_CLUSTERS = """
from trainops.core.cluster import Cluster

CLUSTERS = (
    Cluster(name="v1-jobs", kubernetes_version="1.33", operators={"training-operator": "v1.9.4"}),
    Cluster(name="mpi-v2", kubernetes_version="1.34", operators={"mpi-operator": "v0.8.0"}),
)
"""


def test_mpijob_version_resolved_from_declared_operators(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from conftest import EXAMPLES

    (tmp_path / "apps").mkdir()
    (tmp_path / "apps" / "clusters.py").write_text(MPI_CLUSTERS)
    monkeypatch.chdir(tmp_path)
    v1 = EXAMPLES / "training-operator/examples/mpi/tensorflow-mnist-elastic.yaml"
    v2 = EXAMPLES / "mpi-operator/examples/v2beta1/pi/pi-mpich.yaml"
    assert cli("validate", "--cluster", "v1-jobs", str(v1)).code == 0
    assert cli("validate", "--cluster", "mpi-v2", str(v2)).code == 0
    run = cli("validate", "-o", "text", "--cluster", "mpi-v2", str(v1))
    assert run.code == 1
    assert (
        "$.apiVersion: kubeflow.org/v1 MPIJob was removed in mpi-operator v0.4.0 (mpi-operator v0.8.0 on the "
        "target); use kubeflow.org/v2beta1"
    ) in run.out
    assert "[unknown-kind]" not in run.out  # the removal explains it; no second finding
    wrong = cli("validate", "-o", "text", "--cluster", "v1-jobs", str(v2))
    assert wrong.code == 1 and "kubeflow.org/v2beta1 MPIJob is served by mpi-operator" in wrong.out


@pytest.mark.parametrize(
    ("value", "ok"),
    [("c2VjcmV0", True), ("", True), ("not base64!", False), ("c2VjcmV0=", False)],
)
def test_secret_data_must_be_base64(cli: Any, tmp_path: Path, value: str, ok: bool) -> None:
    path = tmp_path / "secret.yaml"
    path.write_text(
        f'apiVersion: v1\nkind: Secret\nmetadata: {{name: s, namespace: ml}}\ndata:\n  config: "{value}"\n'
    )
    run = cli("validate", "-o", "text", str(path))
    assert (run.code == 0) is ok, run.out
    if not ok:
        assert '$.data.config: "' in run.out and 'is not a "byte"' in run.out
