"""Replica counts fit the job's roles: Master and Chief at most 1, MPI Launcher exactly 1, Worker at
least 1; Launcher and parameter servers request no GPUs.

Why: two Masters are two rank-0 processes (the rendezvous never completes); an MPI job with no or
two launchers never starts; a GPU on a launcher or parameter server idles for the whole run.

Options: none.

Default: enabled, level error.

PASS:

    apiVersion: kubeflow.org/v1
    kind: TFJob
    metadata: {name: train}
    spec:
      tfReplicaSpecs:
        Chief:
          replicas: 1
          restartPolicy: OnFailure
          template:
            spec:
              containers: [{name: tensorflow, image: registry.example.com/tf:2.15}]
        Worker:
          replicas: 2
          restartPolicy: OnFailure
          template:
            spec:
              containers: [{name: tensorflow, image: registry.example.com/tf:2.15}]

FAIL:

    apiVersion: kubeflow.org/v1
    kind: TFJob
    metadata: {name: train}
    spec:
      tfReplicaSpecs:
        Chief:
          replicas: 2
          restartPolicy: OnFailure
          template:
            spec:
              containers: [{name: tensorflow, image: registry.example.com/tf:2.15}]

Remediation: Use one Master/Chief and one MPI Launcher, at least one Worker, and no GPUs on Launcher or PS replicas.

Source: https://github.com/kubeflow/trainer/blob/release-1.9/pkg/webhooks/tensorflow/tfjob_webhook.go (validateTFReplicaSpecs)
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from trainops.findings import Issue, Level
from trainops.kinds import KUBEFLOW_JOBS
from trainops.policy.pods import all_containers, gpu_count, replicas_of
from trainops.policy.rule import Context, describe
from trainops.rules import register

ID = "replica-topology"
LEVEL: Level = "error"
KINDS = KUBEFLOW_JOBS
CONF: dict[str, dict[str, Any]] = {}
DEFAULT: dict[str, Any] = {}
RULE = register(describe(ID, LEVEL, __doc__))

_AT_MOST_ONE = ("Master", "Chief")
_NO_GPU = ("Launcher", "PS")


def check(conf: Mapping[str, Any], obj: dict[str, Any], ctx: Context) -> Iterator[Issue]:
    """Replica counts by role, and GPUs on Launcher/PS containers."""
    replicas = replicas_of(obj)
    for replica in replicas:
        where = (*replica.parts, "replicas")
        count = replica.replicas
        if replica.type in _AT_MOST_ONE and count > 1:
            yield Issue(where, f"{replica.type}.replicas {count}: at most 1", ID)
        if replica.type == "Launcher" and count != 1:
            yield Issue(where, f"Launcher.replicas {count}: exactly 1", ID)
        if replica.type == "Worker" and count < 1:
            yield Issue(where, f"Worker.replicas {count}: at least 1", ID)
    if obj.get("kind") == "MPIJob" and replicas and not any(r.type == "Launcher" for r in replicas):
        yield Issue(replicas[0].parts[:2], "MPIJob has no Launcher replica", ID)
    for container in all_containers(obj):
        replica_type = container.site.parts[2] if len(container.site.parts) > 2 else None
        if replica_type in _NO_GPU and gpu_count(container, ctx.facts.gpu_resources) > 0:
            yield Issue(
                container.at("resources"),
                f'{replica_type} container "{container.name}" requests GPUs (the {replica_type} does no GPU work)',
                ID,
            )
