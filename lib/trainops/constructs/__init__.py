"""trainops L2 constructs: one construct per module, cdk8s core only (DESIGN.md decision 3).

Each construct builds its Kubernetes object as a plain dict and emits it with
:func:`trainops.constructs._core.base.emit`; props are keyword-only with documented defaults and bad
values raise ``ValueError`` quoting prop and value at once.
"""

from __future__ import annotations

from trainops.constructs._core.devices import DeviceClaim
from trainops.constructs._core.jobset import Dependency, FailurePolicy, FailureRule
from trainops.constructs._core.pod import Mount
from trainops.constructs._core.protocols import AccessMode, ClaimSource, Scalable, ScrapeTarget, Selectable
from trainops.constructs._core.topology import TopologyPlacement
from trainops.constructs.analysis_template import AnalysisArg, AnalysisTemplate, JobMetric, PrometheusMetric
from trainops.constructs.autoscaler import (
    Autoscaler,
    ExternalMetric,
    ObjectMetric,
    PodsMetric,
    ScalingPolicy,
    ScalingRules,
)
from trainops.constructs.cluster_queue import ClusterQueue, FlavorQuota
from trainops.constructs.cluster_serving_runtime import ClusterServingRuntime
from trainops.constructs.data_prep_job import DataPrepJob
from trainops.constructs.experiment import Algorithm, Experiment, MetricsCollector, Objective, Parameter
from trainops.constructs.grafana_dashboard import DashboardPanel, DashboardQuery, GrafanaDashboard
from trainops.constructs.inference_service import InferenceService
from trainops.constructs.jax_job import JAXJob
from trainops.constructs.job_set import JobSet, ReplicatedJob
from trainops.constructs.kubeflow import RunPolicy
from trainops.constructs.limit_range import LimitRange
from trainops.constructs.llm_server import LLMEngine, LLMServer
from trainops.constructs.local_queue import LocalQueue
from trainops.constructs.model_server import ModelServer
from trainops.constructs.model_service import ModelService
from trainops.constructs.mpi_job import MPIJob
from trainops.constructs.multikueue import MultiKueue
from trainops.constructs.network_policy import NetworkPolicy
from trainops.constructs.paddle_job import PaddleElasticPolicy, PaddleJob
from trainops.constructs.pod_disruption_budget import PodDisruptionBudget
from trainops.constructs.pod_monitor import PodMonitor
from trainops.constructs.prometheus_rule import AlertRule, PrometheusRule, RecordingRule, RuleGroup
from trainops.constructs.pytorch_job import ElasticPolicy, PyTorchJob
from trainops.constructs.resource_claim_template import ResourceClaimTemplate
from trainops.constructs.resource_flavor import ResourceFlavor
from trainops.constructs.resource_quota import ResourceQuota
from trainops.constructs.role import PolicyRule, Role
from trainops.constructs.role_binding import RoleBinding
from trainops.constructs.rollout_strategy import Analysis, BlueGreen, Canary
from trainops.constructs.runtime_presets import runtime_preset
from trainops.constructs.seldon_deployment import SeldonDeployment
from trainops.constructs.service_account import ServiceAccount
from trainops.constructs.service_monitor import ServiceMonitor
from trainops.constructs.serving_runtime import ModelFormat, ServingRuntime
from trainops.constructs.team_namespace import TeamNamespace
from trainops.constructs.tf_job import TFJob
from trainops.constructs.topology import Topology
from trainops.constructs.train_job import TrainJob
from trainops.constructs.training_job import TrainingJob
from trainops.constructs.training_runtime import TrainingRuntime
from trainops.constructs.volume_claim import DataVolume, VolumeClaim
from trainops.constructs.workload_priority_class import WorkloadPriorityClass
from trainops.constructs.xgboost_job import XGBoostJob

__all__ = [
    "AccessMode",
    "AlertRule",
    "Algorithm",
    "Analysis",
    "AnalysisArg",
    "AnalysisTemplate",
    "Autoscaler",
    "BlueGreen",
    "Canary",
    "ClaimSource",
    "ClusterQueue",
    "ClusterServingRuntime",
    "DashboardPanel",
    "DashboardQuery",
    "DataPrepJob",
    "DataVolume",
    "Dependency",
    "DeviceClaim",
    "ElasticPolicy",
    "Experiment",
    "ExternalMetric",
    "FailurePolicy",
    "FailureRule",
    "FlavorQuota",
    "GrafanaDashboard",
    "InferenceService",
    "JAXJob",
    "JobMetric",
    "JobSet",
    "LLMEngine",
    "LLMServer",
    "LimitRange",
    "LocalQueue",
    "MPIJob",
    "MetricsCollector",
    "ModelFormat",
    "ModelServer",
    "ModelService",
    "Mount",
    "MultiKueue",
    "NetworkPolicy",
    "ObjectMetric",
    "Objective",
    "PaddleElasticPolicy",
    "PaddleJob",
    "Parameter",
    "PodDisruptionBudget",
    "PodMonitor",
    "PodsMetric",
    "PolicyRule",
    "PrometheusMetric",
    "PrometheusRule",
    "PyTorchJob",
    "RecordingRule",
    "ReplicatedJob",
    "ResourceClaimTemplate",
    "ResourceFlavor",
    "ResourceQuota",
    "Role",
    "RoleBinding",
    "RuleGroup",
    "RunPolicy",
    "Scalable",
    "ScalingPolicy",
    "ScalingRules",
    "ScrapeTarget",
    "SeldonDeployment",
    "Selectable",
    "ServiceAccount",
    "ServiceMonitor",
    "ServingRuntime",
    "TFJob",
    "TeamNamespace",
    "Topology",
    "TopologyPlacement",
    "TrainJob",
    "TrainingJob",
    "TrainingRuntime",
    "VolumeClaim",
    "WorkloadPriorityClass",
    "XGBoostJob",
    "runtime_preset",
]
