"""`trainops validate` over real upstream examples (../shared/examples), plus generated mutations.

Every file under training-operator/ and prometheus-operator/ either validates (exit 0) or is listed
in EXPECTED_FAILURES with the reason, and that reason is checked against the output.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from conftest import EXAMPLES, needs_shared

pytestmark = needs_shared

CORPORA = ("training-operator", "prometheus-operator")

#: file (relative to ../shared/examples) → text the output must contain, with why it fails.
EXPECTED_FAILURES: dict[str, str] = {
    # A Prometheus rule file (groups: [...]) consumed by Prometheus itself, not a Kubernetes object.
    "prometheus-operator/example/mixin/alerts.yaml": "not a Kubernetes object: no apiVersion and no kind",
    # A placeholder left for the reader; kube-apiserver v1.36: 'spec.storageClassName: Invalid value:
    # "Your storageClassName": a lowercase RFC 1123 subdomain must consist of ...'.
    "training-operator/examples/tensorflow/distribution_strategy/pvc.yaml": (
        'storageClassName "Your storageClassName" is not a DNS-1123 subdomain'
    ),
}


def _files() -> list[str]:
    if not EXAMPLES.is_dir():
        return []
    return sorted(
        str(p.relative_to(EXAMPLES))
        for corpus in CORPORA
        for p in (EXAMPLES / corpus).rglob("*")
        if p.is_file()
    )


@pytest.mark.parametrize("rel", _files())
def test_upstream_example(cli: Any, rel: str) -> None:
    run = cli("validate", "--format", "text", str(EXAMPLES / rel))
    if rel in EXPECTED_FAILURES:
        assert run.code == 1, run.out
        assert EXPECTED_FAILURES[rel] in run.out
    else:
        assert run.code == 0, run.out
        assert run.out.rstrip().endswith("0 errors, 0 warnings")


def test_expected_failures_exist() -> None:
    assert set(EXPECTED_FAILURES) <= set(_files())


def _load(rel: str) -> dict[str, Any]:
    data = yaml.safe_load((EXAMPLES / rel).read_text())
    assert isinstance(data, dict)
    return data


def _set(obj: dict[str, Any], path: list[str | int], value: Any) -> dict[str, Any]:
    obj = copy.deepcopy(obj)
    target: Any = obj
    for part in path[:-1]:
        target = target[part]
    target[path[-1]] = value
    return obj


def _delete(obj: dict[str, Any], path: list[str | int]) -> dict[str, Any]:
    obj = copy.deepcopy(obj)
    target: Any = obj
    for part in path[:-1]:
        target = target[part]
    del target[path[-1]]
    return obj


PYTORCH = "training-operator/examples/pytorch/simple.yaml"
SERVICE_MONITOR = "prometheus-operator/example/user-guides/getting-started/example-app-service-monitor.yaml"
DEPLOYMENT = "prometheus-operator/example/rbac/prometheus-operator/prometheus-operator-deployment.yaml"
MASTER_CONTAINER: list[str | int] = [
    "spec",
    "pytorchReplicaSpecs",
    "Master",
    "template",
    "spec",
    "containers",
    0,
]

TRAINJOB = "trainer/examples/flux/lammps-train-job.yaml"

MUTATIONS = [
    pytest.param(
        TRAINJOB,
        lambda o: _set(o, ["spec", "managedBy"], "example.com/my-controller"),
        "$.spec.managedBy: ManagedBy must be trainer.kubeflow.org/trainjob-controller or kueue.x-k8s.io/multikueue if set [cel]",
        id="trainjob-broken-cel-rule",
    ),
    pytest.param(
        PYTORCH,
        lambda o: _set(o, ["spec", "pytorchReplicaSpecs", "Master", "replicas"], "one"),
        "$.spec.pytorchReplicaSpecs.Master.replicas: expected integer, got string 'one'",
        id="pytorchjob-wrong-type",
    ),
    pytest.param(
        PYTORCH,
        lambda o: _set(o, ["spec", "pytorchReplicaSpecs", "Master", "restartpolicy"], "OnFailure"),
        '$.spec.pytorchReplicaSpecs.Master.restartpolicy: unknown field "restartpolicy"',
        id="pytorchjob-unknown-field",
    ),
    pytest.param(
        PYTORCH,
        lambda o: _delete(o, [*MASTER_CONTAINER, "name"]),
        '$.spec.pytorchReplicaSpecs.Master.template.spec.containers[0]: missing required field "name"',
        id="pytorchjob-missing-required",
    ),
    pytest.param(
        PYTORCH,
        lambda o: _set(o, ["spec", "pytorchReplicaSpecs", "Master", "replicas"], 2**31),
        "$.spec.pytorchReplicaSpecs.Master.replicas: 2147483648 is greater than the maximum of 2147483647",
        id="pytorchjob-int32-overflow",
    ),
    pytest.param(
        SERVICE_MONITOR,
        lambda o: _set(o, ["spec", "endpoints", 0, "interval"], 30),
        "$.spec.endpoints[0].interval: expected string, got integer 30",
        id="servicemonitor-wrong-type",
    ),
    pytest.param(
        SERVICE_MONITOR,
        lambda o: _delete(o, ["spec", "selector"]),
        '$.spec: missing required field "selector"',
        id="servicemonitor-missing-required",
    ),
    pytest.param(
        SERVICE_MONITOR,
        lambda o: _set(o, ["spec", "endpoint"], []),
        '$.spec.endpoint: unknown field "endpoint"',
        id="servicemonitor-unknown-field",
    ),
    pytest.param(
        DEPLOYMENT,
        lambda o: _set(
            o, ["spec", "template", "spec", "containers", 0, "resources"], {"limits": {"cpu": "2 cores"}}
        ),
        "$.spec.template.spec.containers[0].resources.limits.cpu:",
        id="deployment-bad-quantity",
    ),
    pytest.param(
        DEPLOYMENT,
        lambda o: _set(o, ["metadata", "labelz"], {}),
        '$.metadata.labelz: unknown field "labelz"',
        id="deployment-unknown-metadata-field",
    ),
]


@pytest.mark.parametrize(("rel", "mutate", "expected"), MUTATIONS)
def test_mutated_example_fails(
    cli: Any, tmp_path: Path, outside_project: Path, rel: str, mutate: Any, expected: str
) -> None:
    original = _load(rel)
    assert cli("validate", str(EXAMPLES / rel)).code == 0  # the unmutated example is valid
    path = tmp_path / "mutated.yaml"
    path.write_text(yaml.safe_dump(mutate(original), sort_keys=False))
    run = cli("validate", "--format", "text", str(path))
    assert run.code == 1
    assert expected in run.out
    line = next(line for line in run.out.splitlines() if expected in line)
    assert line.startswith(f"{path}:")
    assert f" {original['kind']}/{original['metadata']['name']} $." in line
