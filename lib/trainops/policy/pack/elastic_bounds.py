"""Elastic PyTorchJobs keep ``minReplicas <= Worker.replicas <= maxReplicas``, use the ``c10d``
rendezvous backend, set ``maxRestarts`` and start their workers with torchrun.

Why: the operator sizes the rendezvous from the bounds; replicas outside them never form a group,
and without maxRestarts a crashing worker restarts the whole group forever. ``c10d`` is the
backend torchrun supports without an external etcd. In elastic mode the operator passes the
rendezvous as ``PET_*`` variables for torchrun and sets no ``WORLD_SIZE``/``RANK``
(``setPodEnv``, training-operator ``pkg/controller.v1/pytorch/envvar.go``): a worker started as
``python train.py`` never joins the group.

Options: none.

Default: enabled, level error.

PASS:

    apiVersion: kubeflow.org/v1
    kind: PyTorchJob
    metadata: {name: train}
    spec:
      elasticPolicy: {minReplicas: 2, maxReplicas: 4, rdzvBackend: c10d, maxRestarts: 3}
      pytorchReplicaSpecs:
        Worker:
          replicas: 4
          restartPolicy: ExitCode
          template:
            spec:
              containers: [{name: pytorch, image: registry.example.com/train:1.0}]

FAIL:

    apiVersion: kubeflow.org/v1
    kind: PyTorchJob
    metadata: {name: train}
    spec:
      elasticPolicy: {minReplicas: 2, maxReplicas: 4}
      pytorchReplicaSpecs:
        Worker:
          replicas: 8
          restartPolicy: ExitCode
          template:
            spec:
              containers: [{name: pytorch, image: registry.example.com/train:1.0}]

Remediation: Keep Worker.replicas within elasticPolicy min/maxReplicas, set rdzvBackend c10d and maxRestarts, and start the workers with torchrun.

Source: https://github.com/kubeflow/trainer/blob/release-1.9/pkg/apis/kubeflow.org/v1/pytorch_types.go (ElasticPolicy)
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from trainops.findings import Issue, Level
from trainops.policy.pods import dig, main_container, replicas_of
from trainops.policy.rule import Context, describe
from trainops.rules import register

ID = "elastic-bounds"
LEVEL: Level = "error"
KINDS = frozenset({("kubeflow.org", "PyTorchJob")})
CONF: dict[str, dict[str, Any]] = {}
DEFAULT: dict[str, Any] = {}
RULE = register(describe(ID, LEVEL, __doc__))


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def check(conf: Mapping[str, Any], obj: dict[str, Any], ctx: Context) -> Iterator[Issue]:
    """The elasticPolicy bounds against Worker.replicas, the backend and maxRestarts."""
    elastic = dig(obj, "spec", "elasticPolicy")
    if not isinstance(elastic, dict):
        return
    base = ("spec", "elasticPolicy")
    low, high = _int(elastic.get("minReplicas")), _int(elastic.get("maxReplicas"))
    if low is not None and high is not None and low > high:
        yield Issue((*base, "minReplicas"), f"elasticPolicy.minReplicas {low} exceeds maxReplicas {high}", ID)
    worker = next((r for r in replicas_of(obj) if r.type == "Worker"), None)
    if worker is not None:
        count = worker.replicas
        where = (*worker.parts, "replicas")
        if low is not None and count < low:
            yield Issue(where, f"Worker.replicas {count} is below elasticPolicy.minReplicas {low}", ID)
        if high is not None and count > high:
            yield Issue(where, f"Worker.replicas {count} exceeds elasticPolicy.maxReplicas {high}", ID)
    backend = elastic.get("rdzvBackend")
    if backend != "c10d":
        shown = "unset" if backend is None else backend
        yield Issue((*base, "rdzvBackend"), f"elasticPolicy.rdzvBackend is {shown}; want c10d", ID)
    if elastic.get("maxRestarts") is None:
        yield Issue((*base, "maxRestarts"), "elasticPolicy.maxRestarts is unset", ID)
    if worker is not None:
        yield from _launcher(worker.parts, worker.pod)


#: What starts torch elastic: ``torchrun`` or ``python -m torch.distributed.run`` (``.launch`` wraps it).
_TORCHRUN = ("torchrun", "torch.distributed.run", "torch.distributed.launch")


def _launcher(parts: tuple[str | int, ...], pod: dict[str, Any]) -> Iterator[Issue]:
    """The Worker's training container when its command and args never invoke torchrun (an unset
    command, i.e. the image's entrypoint, is not judged)."""
    found = main_container(pod, "PyTorchJob")
    if found is None:
        return
    index, container = found
    words = [
        word
        for key in ("command", "args")
        if isinstance(container.get(key), list)
        for word in container[key]
        if isinstance(word, str)
    ]
    if words and not any(name in word for word in words for name in _TORCHRUN):
        yield Issue(
            (*parts, "template", "spec", "containers", index, "command"),
            f'elastic job, but Worker container "{container.get("name")}" starts with '
            f'"{" ".join(words)[:60]}", not torchrun',
            ID,
        )
