"""``katib-hpo``: Bayesian hyperparameter search over ``lr`` and ``batch_size`` (Katib Experiment).

Seed 000 ("large-model-hpo"): maximise ``accuracy`` (goal 0.95) with ``bayesianoptimization``,
3 trials at a time and 10 in all, ``lr`` a double in [0.0001, 0.01] and ``batch_size`` an int in
[64, 256]; each trial trains with one GPU. Two experiments: the seed's batch Job trial, and the same
search over a PyTorchJob trial (or a TrainJob on Trainer v2). Differences on purpose: the seed's
``metricName``/``minValue``/``maxValue`` are written as Katib v1beta1 spells them
(``objectiveMetricName``, ``feasibleSpace.min``/``max``); a pinned image; explicit success/failure
conditions; ``maxFailedTrialCount`` 3.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from apps.training_data import NAMESPACE
from trainops.app import AppDef
from trainops.cluster import Cluster
from trainops.constructs import Algorithm, Experiment, Objective, Parameter, TrainingJob
from trainops.constructs._core.base import emit
from trainops.constructs._core.pod import (
    container_security_context,
    gpu_placement,
    guaranteed_resources,
    pod_security_context,
    scratch_volumes,
)
from trainops.quantity import parse_quantity

if TYPE_CHECKING:
    from cdk8s import Chart

IMAGE = "registry.example.com/ml/model-trainer:1.4.0"
TRAIN = ["python", "train.py", "--lr=${trialParameters.lr}", "--batch_size=${trialParameters.batch_size}"]
PARAMETERS = [Parameter.double("lr", 0.0001, 0.01), Parameter.integer("batch_size", 64, 256)]


def _job_trial(cluster: Cluster) -> Any:
    """The seed's trial: a batch/v1 Job with one GPU (restartPolicy Never), with the secure pod
    defaults and GPU placement every trainops pod gets."""

    def build(scope: Any) -> None:
        volumes, mounts = scratch_volumes(shm_size=None, tmp=True)
        pod = {
            "restartPolicy": "Never",
            "automountServiceAccountToken": False,
            "securityContext": pod_security_context(),
            "containers": [
                {
                    "name": "training-container",
                    "image": IMAGE,
                    "command": TRAIN,
                    "resources": guaranteed_resources(
                        parse_quantity("4"), parse_quantity("16Gi"), {cluster.gpu_resource: 1}
                    ),
                    "securityContext": container_security_context(),
                    "volumeMounts": mounts,
                }
            ],
            "volumes": volumes,
            **gpu_placement(cluster),
        }
        emit(
            scope,
            {
                "apiVersion": "batch/v1",
                "kind": "Job",
                "metadata": {"name": "trial"},
                "spec": {"template": {"spec": pod}},
            },
        )

    return build


def build(chart: Chart, cluster: Cluster) -> None:
    """Add both experiments."""
    common: dict[str, Any] = {
        "cluster": cluster,
        "objective": Objective("maximize", "accuracy", goal=0.95),
        "algorithm": Algorithm("bayesianoptimization"),
        "parameters": PARAMETERS,
        "parallel_trials": 3,
        "max_trials": 10,
    }
    Experiment(chart, "JobTrials", name="large-model-hpo", trial=_job_trial(cluster), **common)
    Experiment(
        chart,
        "DistributedTrials",
        name="large-model-hpo-ddp",
        trial=lambda scope: TrainingJob(
            scope,
            "Trial",
            cluster=cluster,
            name="trial",
            image=IMAGE,
            command=TRAIN,
            num_nodes=2,
            gpus_per_node=1,
            cpu="4",
            memory="16Gi",
        ),
        **common,
    )


APP = AppDef(
    name="katib-hpo",
    build=build,
    namespace=NAMESPACE,
    team="ml-platform",
    description="Katib bayesianoptimization over lr and batch_size (Job and distributed trials)",
)
