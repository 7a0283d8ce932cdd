"""What the operators' validating webhooks reject although the API server accepts it: Training
Operator jobs (a DNS-1035 job name, replica specs present, containers with images, the training
container named as the operator expects), mpi-operator MPIJobs (exactly one Launcher), KServe
InferenceServices (exactly one model, framework or container spec in the predictor) and Kueue
queue-name labels (DNS-1123 subdomains).

Why: the CRD schemas of these operators are loose; their webhooks reject the object when Argo CD
syncs it, or, where the webhook is not installed, the operator accepts it and then never starts a
pod (PyTorchJob without a container named ``pytorch``).

Options: none.

Default: enabled, level error.

PASS:

    apiVersion: kubeflow.org/v1
    kind: PyTorchJob
    metadata: {name: bert-ft}
    spec:
      pytorchReplicaSpecs:
        Worker:
          replicas: 2
          restartPolicy: OnFailure
          template:
            spec:
              containers: [{name: pytorch, image: registry.example.com/train:1.0}]

FAIL:

    apiVersion: kubeflow.org/v1
    kind: PyTorchJob
    metadata: {name: bert.ft}
    spec:
      pytorchReplicaSpecs:
        Worker:
          replicas: 2
          restartPolicy: OnFailure
          template:
            spec:
              containers: [{name: trainer, image: registry.example.com/train:1.0}]

Remediation: Change the object as the message says so that the operator's webhook accepts it.

Source: https://github.com/kubeflow/trainer/blob/release-1.9/pkg/webhooks/pytorch/pytorchjob_webhook.go (validatePyTorchJob, validatePytorchReplicaSpecs); https://github.com/kubeflow/mpi-operator/blob/master/pkg/apis/kubeflow/validation/validation.go (validateMPIReplicaSpecs); https://github.com/kserve/kserve/blob/master/pkg/apis/serving/v1beta1/inference_service_validation.go (validateExactlyOneImplementation); https://github.com/kubernetes-sigs/kueue/blob/main/pkg/controller/jobframework/validation.go (ValidateQueueName)
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from trainops.findings import Issue, Level
from trainops.kinds import KUBEFLOW_JOBS, REPLICA_SPECS_FIELD, group_kind
from trainops.naming import DNS1035_LABEL, DNS1123_SUBDOMAIN
from trainops.policy.pods import TRAINING_CONTAINER, dig, labels_of, metadata_of, replicas_of
from trainops.policy.rule import Context, describe
from trainops.rules import register

ID = "operator-admission"
LEVEL: Level = "error"
KINDS = None
CONF: dict[str, dict[str, Any]] = {}
DEFAULT: dict[str, Any] = {}
RULE = register(describe(ID, LEVEL, __doc__))

QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
#: KServe predictor implementations (``PredictorSpec`` fields; kserve ``predictor.go``).
KSERVE_PREDICTORS = (
    "model",
    "sklearn",
    "xgboost",
    "tensorflow",
    "pytorch",
    "triton",
    "onnx",
    "pmml",
    "lightgbm",
    "paddle",
    "huggingface",
)


def check(conf: Mapping[str, Any], obj: dict[str, Any], ctx: Context) -> Iterator[Issue]:
    """The webhook checks of the object's operator, and the Kueue label on any object."""
    key = group_kind(obj)
    api_version = obj.get("apiVersion")
    if key in KUBEFLOW_JOBS and api_version in ("kubeflow.org/v1", "kubeflow.org/v2beta1"):
        yield from _training_operator(obj)
    if key == ("serving.kserve.io", "InferenceService") and api_version == "serving.kserve.io/v1beta1":
        yield from _kserve(obj)
    queue = labels_of(obj).get(QUEUE_LABEL)
    if isinstance(queue, str) and (problem := DNS1123_SUBDOMAIN.problem(queue)):
        yield Issue(("metadata", "labels", QUEUE_LABEL), f'{QUEUE_LABEL} "{queue}" {problem}', ID)


def _training_operator(obj: dict[str, Any]) -> Iterator[Issue]:
    kind = str(obj.get("kind"))
    api_version = str(obj.get("apiVersion"))
    name = metadata_of(obj).get("name")
    mpi_v2 = kind == "MPIJob" and api_version == "kubeflow.org/v2beta1"
    if isinstance(name, str) and not mpi_v2 and (problem := DNS1035_LABEL.problem(name)):
        yield Issue(("metadata", "name"), f'{kind} name "{name}" {problem}', ID)
    field_name = REPLICA_SPECS_FIELD[kind]
    replicas = replicas_of(obj)
    if not replicas:
        yield Issue(("spec", field_name), f"{kind} spec.{field_name} must be specified and non-empty", ID)
        return
    expected = None if kind == "MPIJob" else TRAINING_CONTAINER.get(kind)
    for replica in replicas:
        containers = replica.pod.get("containers")
        base = (*replica.parts, "template", "spec", "containers")
        if not isinstance(containers, list) or not containers:
            yield Issue(base, f"{replica.type} has no containers", ID)
            continue
        for index, container in enumerate(containers):
            if isinstance(container, dict) and not container.get("image"):
                yield Issue(
                    (*base, index, "image"),
                    f'{replica.type} container "{container.get("name")}" has no image',
                    ID,
                )
        names = [c.get("name") for c in containers if isinstance(c, dict)]
        if expected and expected not in names:
            yield Issue(
                base,
                f'{replica.type} has no container named "{expected}" (the {kind} operator runs that one)',
                ID,
            )
    if mpi_v2:
        launcher = next((r for r in replicas if r.type == "Launcher"), None)
        if launcher is None:
            yield Issue(("spec", field_name), "MPIJob needs exactly one Launcher replica spec", ID)
        elif launcher.replicas != 1:
            yield Issue(
                (*launcher.parts, "replicas"), f"MPIJob Launcher replicas {launcher.replicas}: must be 1", ID
            )


def _kserve(obj: dict[str, Any]) -> Iterator[Issue]:
    predictor = dig(obj, "spec", "predictor")
    if not isinstance(predictor, dict):
        yield Issue(("spec", "predictor"), "InferenceService needs spec.predictor", ID)
        return
    found = [k for k in KSERVE_PREDICTORS if isinstance(predictor.get(k), dict)]
    if isinstance(predictor.get("containers"), list) and predictor["containers"]:
        found.append("containers")
    if len(found) != 1:
        shown = ", ".join(found) if found else "none"
        yield Issue(
            ("spec", "predictor"),
            f"predictor needs exactly one of model, a framework or containers (found: {shown})",
            ID,
        )
