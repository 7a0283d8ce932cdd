"""`trainops.kinds.pod_templates` finds every pod spec wherever it nests, on real upstream manifests."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from conftest import EXAMPLES, needs_shared
from trainops.kinds import KUBEFLOW_JOBS, POD_TEMPLATE_SITES, RUN_ONCE, TRAINING_JOBS, group_of, pod_templates

pytestmark = needs_shared


def _first(path: str, kind: str) -> dict[str, object]:
    for doc in yaml.safe_load_all((EXAMPLES / path).read_text(encoding="utf-8")):
        if isinstance(doc, dict) and doc.get("kind") == kind:
            return doc
    raise AssertionError(f"no {kind} in {path}")


@pytest.mark.parametrize(
    ("path", "kind", "expected"),
    [
        (
            "training-operator/examples/pytorch/simple.yaml",
            "PyTorchJob",
            [
                "$.spec.pytorchReplicaSpecs.Master.template.spec",
                "$.spec.pytorchReplicaSpecs.Worker.template.spec",
            ],
        ),
        (
            "katib/examples/v1beta1/fpga/xgboost-example.yaml",
            "Experiment",
            ["$.spec.trialTemplate.trialSpec.spec.template.spec"],
        ),
        # The trainer override is a container (a partial site: its container is the only one).
        ("trainer/examples/flux/flux-interactive.yaml", "TrainJob", ["$.spec.trainer"]),
    ],
)
def test_pod_templates_on_upstream_examples(path: str, kind: str, expected: list[str]) -> None:
    sites = pod_templates(_first(path, kind))
    assert [site.path for site in sites] == expected
    for site in sites:
        assert isinstance(site.spec.get("containers"), list) or (site.partial and site.extra)


def test_katib_trial_templates_are_marked_templated() -> None:
    sites = pod_templates(_first("katib/examples/v1beta1/fpga/xgboost-example.yaml", "Experiment"))
    assert sites and all(site.templated for site in sites)
    assert sites[0].owner == ("batch", "Job")


def test_kserve_components_and_trainjob_overrides_are_pod_specs() -> None:
    isvc = {
        "apiVersion": "serving.kserve.io/v1beta1",
        "kind": "InferenceService",
        "spec": {"predictor": {"containers": [{"name": "kserve-container", "image": "x:1"}]}},
    }
    trainjob = {
        "apiVersion": "trainer.kubeflow.org/v1alpha1",
        "kind": "TrainJob",
        "spec": {"podTemplateOverrides": [{"targetJobs": [{"name": "node"}], "spec": {"nodeSelector": {}}}]},
    }
    assert [s.path for s in pod_templates(isvc)] == ["$.spec.predictor"]
    assert [s.path for s in pod_templates(trainjob)] == ["$.spec.podTemplateOverrides[0].spec"]


@pytest.mark.parametrize(
    "value", [None, [], "text", {"apiVersion": 1, "kind": "Pod"}, {"kind": "Deployment"}]
)
def test_odd_documents_have_no_pod_templates(value: object) -> None:
    assert pod_templates(value) == []


def test_kind_groups_are_consistent() -> None:
    assert KUBEFLOW_JOBS <= TRAINING_JOBS <= RUN_ONCE
    assert all(key in POD_TEMPLATE_SITES for key in KUBEFLOW_JOBS)
    assert group_of("apps/v1") == "apps"
    assert group_of("v1") == ""


def test_every_kubeflow_example_has_pod_templates() -> None:
    """Every Kubeflow v1 job among the upstream examples yields one site per replica type."""
    found = 0
    for path in sorted((EXAMPLES / "training-operator").rglob("*.yaml")):
        for doc in yaml.safe_load_all(Path(path).read_text(encoding="utf-8")):
            if (
                not isinstance(doc, dict)
                or (group_of(str(doc.get("apiVersion", ""))), doc.get("kind")) not in KUBEFLOW_JOBS
            ):
                continue
            specs = next(v for k, v in doc["spec"].items() if k.endswith("ReplicaSpecs"))
            assert len(pod_templates(doc)) == len(specs), path
            found += 1
    assert found >= 10
