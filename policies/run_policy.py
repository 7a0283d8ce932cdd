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

from collections.abc import Iterator, Mapping
from typing import Any

from trainops.findings import Issue, Level
from trainops.kinds import KUBEFLOW_JOBS
from trainops.policy.pods import dig
from trainops.policy.rule import Context, describe
from trainops.rules import register

#: The API server's default ``backoffLimit`` of a batch/v1 Job (``SetDefaults_Job``).
JOB_BACKOFF_LIMIT = 6

ID = "run-policy"
LEVEL: Level = "warning"
KINDS = KUBEFLOW_JOBS
CONF: dict[str, dict[str, Any]] = {"max-backoff-limit": {"type": "integer", "minimum": 0}}
DEFAULT: dict[str, Any] = {"max-backoff-limit": 10}
RULE = register(describe(ID, LEVEL, __doc__))


def check(conf: Mapping[str, Any], obj: dict[str, Any], ctx: Context) -> Iterator[Issue]:
    """runPolicy's cleanPodPolicy, backoffLimit and activeDeadlineSeconds."""
    run = dig(obj, "spec", "runPolicy")
    run = run if isinstance(run, dict) else {}
    base = ("spec", "runPolicy")
    clean = run.get("cleanPodPolicy")
    if clean not in ("Running", "All"):
        shown = "unset" if clean is None else clean
        yield Issue(
            (*base, "cleanPodPolicy"), f"runPolicy.cleanPodPolicy is {shown}; want Running or All", ID
        )
    backoff = run.get("backoffLimit")
    if backoff is None and obj.get("apiVersion") == "kubeflow.org/v2beta1":
        backoff = JOB_BACKOFF_LIMIT  # mpi-operator hands it to the launcher's batch/v1 Job
    if backoff is None:
        yield Issue((*base, "backoffLimit"), "runPolicy.backoffLimit is unset", ID)
    elif isinstance(backoff, int) and backoff > conf["max-backoff-limit"]:
        yield Issue(
            (*base, "backoffLimit"),
            f"runPolicy.backoffLimit {backoff} exceeds max-backoff-limit {conf['max-backoff-limit']}",
            ID,
        )
    if run.get("activeDeadlineSeconds") is None:
        yield Issue((*base, "activeDeadlineSeconds"), "runPolicy.activeDeadlineSeconds is unset", ID)
