"""trainops L2 constructs: one construct per module, cdk8s core only (DESIGN.md decision 3).

Each construct builds its Kubernetes object as a plain dict and emits it with
:func:`trainops.constructs._core.base.emit`; props are keyword-only with documented defaults and bad
values raise ``ValueError`` quoting prop and value at once.
"""

from __future__ import annotations

from trainops.constructs._core.pod import Mount
from trainops.constructs._core.protocols import AccessMode, ClaimSource, Scalable, ScrapeTarget, Selectable
from trainops.constructs.autoscaler import Autoscaler
from trainops.constructs.cluster_queue import ClusterQueue, FlavorQuota
from trainops.constructs.data_prep_job import DataPrepJob
from trainops.constructs.data_volume import DataVolume
from trainops.constructs.experiment import Algorithm, Experiment, MetricsCollector, Objective, Parameter
from trainops.constructs.jax_job import JAXJob
from trainops.constructs.kubeflow import RunPolicy
from trainops.constructs.local_queue import LocalQueue
from trainops.constructs.model_server import ModelServer
from trainops.constructs.model_service import ModelService
from trainops.constructs.mpi_job import MPIJob
from trainops.constructs.paddle_job import PaddleElasticPolicy, PaddleJob
from trainops.constructs.pytorch_job import ElasticPolicy, PyTorchJob
from trainops.constructs.resource_flavor import ResourceFlavor
from trainops.constructs.service_monitor import ServiceMonitor
from trainops.constructs.tf_job import TFJob
from trainops.constructs.train_job import TrainJob
from trainops.constructs.training_job import TrainingJob
from trainops.constructs.workload_priority_class import WorkloadPriorityClass
from trainops.constructs.xgboost_job import XGBoostJob

__all__ = [
    "AccessMode",
    "Algorithm",
    "Autoscaler",
    "ClaimSource",
    "ClusterQueue",
    "DataPrepJob",
    "DataVolume",
    "ElasticPolicy",
    "Experiment",
    "FlavorQuota",
    "JAXJob",
    "LocalQueue",
    "MPIJob",
    "MetricsCollector",
    "ModelServer",
    "ModelService",
    "Mount",
    "Objective",
    "PaddleElasticPolicy",
    "PaddleJob",
    "Parameter",
    "PyTorchJob",
    "ResourceFlavor",
    "RunPolicy",
    "Scalable",
    "ScrapeTarget",
    "Selectable",
    "ServiceMonitor",
    "TFJob",
    "TrainJob",
    "TrainingJob",
    "WorkloadPriorityClass",
    "XGBoostJob",
]
