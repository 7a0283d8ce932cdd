"""Katib Experiment: parity with upstream Katib examples, trial templates from trainops constructs,
offline validation, and one test per check of Katib's validating webhook."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import yaml

from conftest import EXAMPLES, needs_shared
from trainops.constructs import (
    Algorithm,
    Experiment,
    MetricsCollector,
    Objective,
    Parameter,
    PyTorchJob,
    TrainJob,
)
from trainops.constructs._core.base import emit
from trainops.core.cluster import Cluster
from trainops.pipeline import Target, Text, check

IMAGE = "ghcr.io/kubeflow/katib/pytorch-mnist-cpu:v0.19.0"
MNIST = ["python3", "/opt/pytorch-mnist/mnist.py", "--epochs=1", "--batch-size=16"]


@pytest.fixture(scope="module")
def katib_cluster(test_cluster: Cluster) -> Cluster:
    return replace(
        test_cluster,
        name="katib",
        operators={**test_cluster.operators, "katib": "v0.19.0", "trainer": "v2.3.0"},
    )


def _pytorch_trial(cluster: Cluster) -> Any:
    def build(scope: Any) -> PyTorchJob:
        return PyTorchJob(
            scope,
            "Trial",
            cluster=cluster,
            name="mnist",
            image=IMAGE,
            workers=1,
            read_only_root_filesystem=False,
            command=[
                *MNIST,
                "--lr=${trialParameters.learningRate}",
                "--momentum=${trialParameters.momentum}",
            ],
        )

    return build


def _experiment(chart: Any, cluster: Cluster, **kwargs: Any) -> Experiment:
    props: dict[str, Any] = {
        "name": "pytorchjob-mnist",
        "objective": Objective("minimize", "loss", goal=0.001),
        "algorithm": Algorithm("random"),
        "parameters": [Parameter.double("lr", 0.01, 0.05), Parameter.double("momentum", 0.5, 0.9)],
        "trial": _pytorch_trial(cluster),
        "trial_parameters": {"learningRate": "lr", "momentum": "momentum"},
    }
    return Experiment(chart, "Exp", cluster=cluster, **{**props, **kwargs})


def _doc(synth: Any, chart: Any, experiment: Experiment) -> tuple[str, dict[str, Any]]:
    text = synth(chart)[f"Experiment/{experiment.name}"]
    return text, yaml.safe_load(text)


@needs_shared
def test_parity_with_upstream_pytorchjob_mnist(
    chart: Any, synth: Any, golden: Any, katib_cluster: Cluster
) -> None:
    """katib/examples/v1beta1/kubeflow-training-operator/pytorchjob-mnist.yaml, built with trainops.

    Intended differences: the name gets a content hash; conditions and primaryPodLabels are written
    out (Katib's defaulting webhook would add the same values); trial parameters carry no
    description; the trial's pods get trainops's secure defaults and resources.
    """
    upstream = yaml.safe_load(
        (EXAMPLES / "katib/examples/v1beta1/kubeflow-training-operator/pytorchjob-mnist.yaml").read_text()
    )["spec"]
    experiment = _experiment(chart, katib_cluster)
    text, doc = _doc(synth, chart, experiment)
    golden("experiment/pytorchjob_mnist.yaml", text)
    spec = doc["spec"]
    for key in (
        "parallelTrialCount",
        "maxTrialCount",
        "maxFailedTrialCount",
        "objective",
        "algorithm",
        "parameters",
    ):
        assert spec[key] == upstream[key], key
    ours, theirs = spec["trialTemplate"], upstream["trialTemplate"]
    assert ours["primaryContainerName"] == theirs["primaryContainerName"] == "pytorch"
    assert [(p["name"], p["reference"]) for p in ours["trialParameters"]] == [
        (p["name"], p["reference"]) for p in theirs["trialParameters"]
    ]
    for role in ("Master", "Worker"):
        mine = ours["trialSpec"]["spec"]["pytorchReplicaSpecs"][role]
        up = theirs["trialSpec"]["spec"]["pytorchReplicaSpecs"][role]
        assert (mine["replicas"], mine["restartPolicy"]) == (up["replicas"], up["restartPolicy"])
        assert (
            mine["template"]["spec"]["containers"][0]["command"]
            == up["template"]["spec"]["containers"][0]["command"]
        )
    assert ours["successCondition"] == 'status.conditions.#(type=="Succeeded")#|#(status=="True")#'
    assert ours["primaryPodLabels"] == {"training.kubeflow.org/job-role": "master"}
    assert experiment.trial_kind == "PyTorchJob"


def test_validates_offline(chart: Any, synth: Any, katib_cluster: Cluster, schema_cache: Path) -> None:
    _experiment(
        chart,
        katib_cluster,
        algorithm=Algorithm("bayesianoptimization", {"random_state": "10"}),
        early_stopping=Algorithm("medianstop", {"min_trials_required": "2"}),
        metrics_collector=MetricsCollector("File", path="/var/log/katib/metrics.log", format="JSON"),
    )
    texts = [Text(f"{k}.yaml", t) for k, t in synth(chart).items()]
    result = check(Target.of_cluster(katib_cluster, schema_cache), texts)
    assert [f for f in result.findings if f.level == "error"] == []


def test_batch_job_trial_gets_job_conditions(chart: Any, synth: Any, katib_cluster: Cluster) -> None:
    def job(scope: Any) -> None:
        emit(
            scope,
            {
                "apiVersion": "batch/v1",
                "kind": "Job",
                "metadata": {"name": "ignored"},
                "spec": {
                    "template": {
                        "spec": {
                            "restartPolicy": "Never",
                            "containers": [
                                {
                                    "name": "training-container",
                                    "image": "docker.io/kubeflowkatib/mxnet-mnist:v1beta1-45c5727",
                                    "command": ["python3", "train.py", "--lr=${trialParameters.lr}"],
                                }
                            ],
                        }
                    }
                },
            },
        )

    experiment = _experiment(
        chart,
        katib_cluster,
        parameters=[Parameter.double("lr", 0.01, 0.03)],
        trial=job,
        trial_parameters=None,
    )
    _, doc = _doc(synth, chart, experiment)
    template = doc["spec"]["trialTemplate"]
    assert template["primaryContainerName"] == "training-container"
    assert template["successCondition"] == 'status.conditions.#(type=="Complete")#|#(status=="True")#'
    assert "primaryPodLabels" not in template and "metadata" not in template["trialSpec"]


def test_trainjob_trial_uses_the_node_container(chart: Any, synth: Any, katib_cluster: Cluster) -> None:
    def trainjob(scope: Any) -> TrainJob:
        return TrainJob(
            scope,
            "T",
            cluster=katib_cluster,
            name="mnist",
            image=IMAGE,
            num_nodes=2,
            command=[*MNIST, "--lr=${trialParameters.lr}"],
        )

    experiment = _experiment(
        chart,
        katib_cluster,
        parameters=[Parameter.double("lr", 0.01, 0.03)],
        trial=trainjob,
        trial_parameters=None,
    )
    template = _doc(synth, chart, experiment)[1]["spec"]["trialTemplate"]
    assert template["primaryContainerName"] == "node" and experiment.trial_kind == "TrainJob"
    assert template["failureCondition"] == 'status.conditions.#(type=="Failed")#|#(status=="True")#'


def test_parameter_kinds(chart: Any, synth: Any, katib_cluster: Cluster) -> None:
    def job(scope: Any) -> None:
        emit(
            scope,
            {
                "apiVersion": "batch/v1",
                "kind": "Job",
                "metadata": {"name": "x"},
                "spec": {
                    "template": {
                        "spec": {
                            "restartPolicy": "Never",
                            "containers": [
                                {
                                    "name": "main",
                                    "image": "x.io/t:1",
                                    "args": [
                                        "${trialParameters.layers}",
                                        "${trialParameters.optimizer}",
                                        "${trialParameters.batch}",
                                    ],
                                }
                            ],
                        }
                    }
                },
            },
        )

    params = [
        Parameter.integer("layers", 2, 8, 2),
        Parameter.categorical("optimizer", ["sgd", "adam"]),
        Parameter.discrete("batch", [32, 64]),
    ]
    experiment = _experiment(chart, katib_cluster, parameters=params, trial=job, trial_parameters=None)
    spec = _doc(synth, chart, experiment)[1]["spec"]["parameters"]
    assert spec == [
        {"name": "layers", "parameterType": "int", "feasibleSpace": {"min": "2", "max": "8", "step": "2"}},
        {"name": "optimizer", "parameterType": "categorical", "feasibleSpace": {"list": ["sgd", "adam"]}},
        {"name": "batch", "parameterType": "discrete", "feasibleSpace": {"list": ["32", "64"]}},
    ]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"parallel_trials": 13}, "Experiment parallel_trials=13: must not exceed max_trials=12"),
        ({"max_failed_trials": 20}, "Experiment max_failed_trials=20: must not exceed max_trials=12"),
        ({"max_trials": 0}, "Experiment max_trials=0"),
        (
            {"objective": Objective("minimise", "loss")},
            "objective.type='minimise': must be minimize or maximize",
        ),  # type: ignore[arg-type]
        (
            {"objective": Objective("minimize", "loss", additional_metrics=("loss",))},
            "must not contain the objective metric 'loss'",
        ),
        ({"algorithm": Algorithm("genetic")}, "Experiment algorithm='genetic': must be one of"),
        (
            {"early_stopping": Algorithm("random")},
            "Experiment early_stopping='random': must be one of medianstop",
        ),
        ({"parameters": []}, r"Experiment parameters=\[\]"),
        (
            {
                "parameters": [
                    Parameter("lr", "double", values=("1",)),
                    Parameter.double("momentum", 0.5, 0.9),
                ]
            },
            "takes min/max, not a list",
        ),
        (
            {"parameters": [Parameter("lr", "categorical", min="1"), Parameter.double("momentum", 0.5, 0.9)]},
            "takes a list of values, not min/max/step",
        ),
        (
            {"trial_parameters": {"learningRate": "rate", "momentum": "momentum"}},
            r"trial_parameters\['learningRate'\]='rate': no such parameter",
        ),
        (
            {"trial_parameters": {"learningRate": "lr", "momentum": "momentum", "extra": "lr"}},
            "parameter 'lr' is referenced twice",
        ),
        (
            {"trial_parameters": {"learningRate": "lr"}},
            r"uses \$\{trialParameters.momentum\}, which no trial parameter defines",
        ),
        (
            {
                "parameters": [
                    Parameter.double("lr", 0.01, 0.05),
                    Parameter.double("momentum", 0.5, 0.9),
                    Parameter.double("wd", 0, 1),
                ],
                "trial_parameters": {"learningRate": "lr", "momentum": "momentum", "weightDecay": "wd"},
            },
            r"trial_parameters\['weightDecay'\]: the trial never uses",
        ),
        (
            {"primary_container": "main"},
            "Experiment primary_container='main': the trial has no such container",
        ),
        ({"metrics_collector": MetricsCollector("File", path="metrics.log")}, "File needs an absolute path"),
        ({"metrics_collector": MetricsCollector("Prometheus")}, "Prometheus needs a port"),
        ({"resume_policy": "Sometimes"}, "resume_policy='Sometimes'"),
        ({"name": "Mnist"}, "Experiment name='Mnist': must be a DNS-1035 label"),
    ],
)
def test_webhook_rejections_are_prop_errors(
    chart: Any, katib_cluster: Cluster, kwargs: dict[str, Any], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        _experiment(chart, katib_cluster, **kwargs)


def test_cluster_without_katib(chart: Any, test_cluster: Cluster) -> None:
    with pytest.raises(ValueError, match="Experiment cluster='test': the cluster does not list katib"):
        _experiment(chart, test_cluster)
