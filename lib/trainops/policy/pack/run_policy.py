"""Kubeflow jobs set ``runPolicy`` explicitly: cleanPodPolicy Running or All, a bounded backoffLimit
and an activeDeadlineSeconds.

Why: with cleanPodPolicy None finished pods keep their GPUs' node slots and logs pile up; an
unbounded backoffLimit retries a broken job all night on expensive nodes; without a deadline a hung
NCCL collective holds the GPUs until someone notices. mpi-operator's v2beta1 MPIJob passes
``backoffLimit`` to its launcher Job (``newLauncherJob``, ``mpi_job_controller.go``), whose unset
backoffLimit the API server defaults to 6 (``SetDefaults_Job``): bounded, so unset is accepted there.

Options: ``max-backoff-limit``: largest allowed backoffLimit.

Default: enabled, level warning, ``max-backoff-limit: 10``.

PASS:

    apiVersion: kubeflow.org/v1
    kind: PyTorchJob
    metadata: {name: train}
    spec:
      runPolicy: {cleanPodPolicy: Running, backoffLimit: 3, activeDeadlineSeconds: 86400}
      pytorchReplicaSpecs:
        Master:
          replicas: 1
          restartPolicy: OnFailure
          template:
            spec:
              containers: [{name: pytorch, image: registry.example.com/train:1.0}]

FAIL:

    apiVersion: kubeflow.org/v1
    kind: PyTorchJob
    metadata: {name: train}
    spec:
      pytorchReplicaSpecs:
        Master:
          replicas: 1
          restartPolicy: OnFailure
          template:
            spec:
              containers: [{name: pytorch, image: registry.example.com/train:1.0}]

Remediation: Set spec.runPolicy.cleanPodPolicy (Running or All), backoffLimit and activeDeadlineSeconds.

Source: https://github.com/kubeflow/trainer/blob/release-1.9/pkg/apis/kubeflow.org/v1/common_types.go (RunPolicy)
"""

from __future__ import annotations

from typing import Any

from trainops.findings import Level
from trainops.kinds import KUBEFLOW_JOBS
from trainops.policy.admission import Variable, violations
from trainops.policy.celrule import CelRule
from trainops.policy.rule import describe
from trainops.rules import register

#: The API server's default ``backoffLimit`` of a batch/v1 Job (``SetDefaults_Job``).
JOB_BACKOFF_LIMIT = 6

ID = "run-policy"
LEVEL: Level = "warning"
KINDS = KUBEFLOW_JOBS
CONF: dict[str, dict[str, Any]] = {"max-backoff-limit": {"type": "integer", "minimum": 0}}
DEFAULT: dict[str, Any] = {"max-backoff-limit": 10}
RULE = register(describe(ID, LEVEL, __doc__))

#: runPolicy's cleanPodPolicy, backoffLimit and activeDeadlineSeconds; for mpi-operator's v1alpha1 and
#: v1alpha2 MPIJob, which have no runPolicy (mpi-operator ``pkg/apis/kubeflow/v1alpha1/types.go``,
#: ``v1alpha2/types.go``), ``spec.backoffLimit`` (default 6) and ``spec.activeDeadlineSeconds``.
CEL = CelRule(
    variables=(
        Variable(
            "legacy",
            "object.kind == 'MPIJob' && object.apiVersion in ['kubeflow.org/v1alpha1', 'kubeflow.org/v1alpha2']",
        ),
        Variable("run", "variables.legacy ? object.?spec.orValue({}) : object.?spec.?runPolicy.orValue({})"),
        Variable("at", "variables.legacy ? 'spec.' : 'runPolicy.'"),
        Variable("prefix", "variables.legacy ? '$.spec.' : '$.spec.runPolicy.'"),
        # mpi-operator hands an unset backoffLimit to the launcher's batch/v1 Job (default 6)
        Variable(
            "backoff",
            "has(variables.run.backoffLimit) ? dyn(variables.run.backoffLimit) : "
            f"object.apiVersion == 'kubeflow.org/v2beta1' || variables.legacy ? dyn({JOB_BACKOFF_LIMIT}) : dyn(null)",
        ),
        Variable(
            "violations",
            "(variables.legacy || variables.run.?cleanPodPolicy.orValue('') in ['Running', 'All'] ? [] : "
            "[{'path': '$.spec.runPolicy.cleanPodPolicy', 'message': 'runPolicy.cleanPodPolicy is ' + "
            "(has(variables.run.cleanPodPolicy) ? string(variables.run.cleanPodPolicy) : 'unset') + "
            "'; want Running or All'}]) + "
            "(variables.backoff == null ? "
            "[{'path': variables.prefix + 'backoffLimit', 'message': variables.at + 'backoffLimit is unset'}] : "
            "type(variables.backoff) == int && variables.backoff > int(params.data['max-backoff-limit']) ? "
            "[{'path': variables.prefix + 'backoffLimit', 'message': variables.at + 'backoffLimit ' + "
            "string(variables.backoff) + ' exceeds max-backoff-limit ' + params.data['max-backoff-limit']}] "
            ": []) + "
            "(has(variables.run.activeDeadlineSeconds) ? [] : "
            "[{'path': variables.prefix + 'activeDeadlineSeconds', "
            "'message': variables.at + 'activeDeadlineSeconds is unset'}])",
        ),
    ),
    validations=(violations("variables.violations", message="runPolicy is incomplete"),),
)
