"""Kubeflow job replicas restart ``OnFailure`` or ``ExitCode`` (``ExitCode`` when elastic), never
``Always``; the MPI launcher ``OnFailure`` or ``Never``.

Why: ``Always`` restarts a worker that finished, so the job never completes; an elastic PyTorchJob
needs ``ExitCode`` so that the operator restarts only retryable failures (exit codes 128+) while
torchrun re-forms the group. Left unset, the operator picks a per-kind default (``Never`` for
TFJob) that the reader does not see; only the MPI launcher may stay unset, as both operators default
it to a policy allowed here (mpi-operator v2beta1 ``setDefaultsTypeLauncher``: ``OnFailure``; the
Training Operator's ``SetDefaults_MPIJob``, ``mpi_defaults.go``: ``MPIJobDefaultRestartPolicy``).

Options: none.

Default: enabled, level error.

PASS:

    apiVersion: kubeflow.org/v1
    kind: PyTorchJob
    metadata: {name: train}
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
    metadata: {name: train}
    spec:
      pytorchReplicaSpecs:
        Worker:
          replicas: 2
          restartPolicy: Always
          template:
            spec:
              containers: [{name: pytorch, image: registry.example.com/train:1.0}]

Remediation: Set restartPolicy to OnFailure (ExitCode for elastic PyTorchJobs; OnFailure or Never for the MPI launcher).

Source: https://github.com/kubeflow/trainer/blob/release-1.9/pkg/apis/kubeflow.org/v1/common_types.go (RestartPolicy)
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from trainops.findings import Issue, Level
from trainops.kinds import KUBEFLOW_JOBS
from trainops.policy.pods import dig, replicas_of
from trainops.policy.rule import Context, describe
from trainops.rules import register

ID = "replica-restart-policy"
LEVEL: Level = "error"
KINDS = KUBEFLOW_JOBS
CONF: dict[str, dict[str, Any]] = {}
DEFAULT: dict[str, Any] = {}
RULE = register(describe(ID, LEVEL, __doc__))


def check(conf: Mapping[str, Any], obj: dict[str, Any], ctx: Context) -> Iterator[Issue]:
    """Each replica spec's restartPolicy against what its role allows."""
    elastic = obj.get("kind") == "PyTorchJob" and isinstance(dig(obj, "spec", "elasticPolicy"), dict)
    for replica in replicas_of(obj):
        policy = replica.spec.get("restartPolicy")
        if obj.get("kind") == "MPIJob" and replica.type == "Launcher":
            if policy is None:  # both operators default it to an allowed value
                continue
            allowed: tuple[str, ...] = ("OnFailure", "Never")
        elif elastic and replica.type == "Worker":
            allowed = ("ExitCode",)
        else:
            allowed = ("OnFailure", "ExitCode")
        if policy not in allowed:
            shown = "unset" if policy is None else policy
            why = " (elastic job)" if allowed == ("ExitCode",) else ""
            yield Issue(
                (*replica.parts, "restartPolicy"),
                f"{replica.type} restartPolicy is {shown}{_CONSEQUENCE.get(str(policy), '')}; "
                f"want {' or '.join(allowed)}{why}",
                ID,
            )


#: What each refused policy does to a training job (Training Operator ``ReconcilePods``: a failed
#: pod of a Never replica fails the job; an Always pod is restarted even after it exits 0).
_CONSEQUENCE = {
    "Never": " (one crashed, OOM-killed or evicted pod fails the whole job, no restart)",
    "Always": " (pods restart even after they succeed, so the job never completes)",
}
