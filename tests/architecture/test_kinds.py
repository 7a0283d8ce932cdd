"""`trainops.core.kinds.pod_templates` finds every pod spec wherever it nests, on real upstream manifests."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from conftest import EXAMPLES, needs_shared
from trainops.core.kinds import (
    KUBEFLOW_JOBS,
    POD_TEMPLATE_SITES,
    RUN_ONCE,
    TRAINING_JOBS,
    group_of,
    pod_templates,
)

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


# --- the kinds table and its views (issue 28 point 3) ---------------------------------------------


def test_views_read_the_table() -> None:
    from trainops.core.kinds import KIND_TABLE, POD_SPEC_SITES, TRAINING_CONTAINER, WORKLOADS

    assert POD_TEMPLATE_SITES[("apps", "Deployment")] == KIND_TABLE[("apps", "Deployment")].templates
    assert POD_TEMPLATE_SITES.get(("", "ConfigMap"), ()) == ()
    assert ("", "ConfigMap") not in POD_TEMPLATE_SITES and None not in RUN_ONCE
    # MPIJob has both: replica templates (v2beta1, v1) and the one v1alpha1 template.
    assert ("kubeflow.org", "MPIJob") in POD_TEMPLATE_SITES and ("kubeflow.org", "MPIJob") in POD_SPEC_SITES
    assert TRAINING_CONTAINER["MPIJob"] == "mpi" and "Experiment" not in TRAINING_CONTAINER
    combined = WORKLOADS | {("x", "Y")}
    assert isinstance(combined, frozenset) and ("apps", "DaemonSet") in combined
    assert set(RUN_ONCE) == {key for key, info in KIND_TABLE.items() if info.lifecycle == "run-once"}


def test_health_checks_keep_their_emission_order() -> None:
    """The argocd-cm patch lists the checks in table order; reordering the table would reorder it."""
    from trainops.argocd.health import HEALTH_CHECKS

    assert list(HEALTH_CHECKS) == [
        "kubeflow.org/PyTorchJob",
        "kubeflow.org/TFJob",
        "kubeflow.org/XGBoostJob",
        "kubeflow.org/PaddleJob",
        "kubeflow.org/JAXJob",
        "kubeflow.org/MPIJob",
        "kubeflow.org/Experiment",
        "trainer.kubeflow.org/TrainJob",
        "argoproj.io/Application",
        "leaderworkerset.x-k8s.io/LeaderWorkerSet",
        "kueue.x-k8s.io/Workload",
    ]


def test_every_scaffold_kind_has_one_table_entry() -> None:
    from trainops.core.kinds import KIND_TABLE
    from trainops.scaffold.templates import KINDS, OPERATORS, scaffolded

    assert sorted(i.scaffold for i in KIND_TABLE.values() if i.scaffold) == sorted(KINDS)
    assert scaffolded("mpijob").key == ("kubeflow.org", "MPIJob")
    assert OPERATORS["mpijob"] == (("mpi-operator",), ("training-operator",))
    assert OPERATORS["katib"] == (("katib", "training-operator"),)
    assert "serving" not in OPERATORS


def test_run_once_kinds_are_the_ones_argocd_runs_lists() -> None:
    """``argocd runs`` and delivery read one set: JobSet, hashed and Prune=false, is a run too."""
    assert ("jobset.x-k8s.io", "JobSet") in RUN_ONCE
    assert ("kubeflow.org", "Experiment") in RUN_ONCE and ("apps", "Deployment") not in RUN_ONCE


def test_argocd_runs_lists_a_jobset_run_and_never_prunes_it_without_health() -> None:
    from trainops.argocd.models import Application, ApplicationTree, ResourceStatus
    from trainops.argocd.runs import list_runs

    where = {"group": "jobset.x-k8s.io", "version": "v1alpha2", "kind": "JobSet", "namespace": "ml"}
    app = Application(
        name="train",
        resources=(
            ResourceStatus(**where, name="llm-pretrain-0a1b2c", requires_pruning=True),
            ResourceStatus(group="", version="v1", kind="ConfigMap", namespace="ml", name="cfg-0a1b2c"),
        ),
    )
    (run,) = list_runs(app, ApplicationTree())
    assert (run.kind, run.base, run.state, run.phase, run.prunable) == (
        "JobSet",
        "llm-pretrain",
        "superseded",
        "Unknown",
        False,
    )
