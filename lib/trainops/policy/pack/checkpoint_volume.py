"""Restartable or elastic training jobs keep checkpoints beyond the pod: a writable PVC mounted in the
training container, or an object-store location (``s3://``, ``gs://``...) given to it as the
checkpoint directory.

Why: a job that restarts (restartPolicy OnFailure/ExitCode, a backoffLimit, elastic scaling) resumes
from its last checkpoint only if the checkpoint outlived the pod; on an emptyDir or the container
file system every restart starts the run from step zero.

Options: none.

Default: enabled, level warning.

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
              containers:
              - name: pytorch
                image: registry.example.com/train:1.0
                volumeMounts: [{name: ckpt, mountPath: /checkpoints}]
              volumes:
              - {name: ckpt, persistentVolumeClaim: {claimName: checkpoints}}

FAIL:

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

Remediation: Mount a PersistentVolumeClaim read-write in the training container and write checkpoints there, or pass an object-store checkpoint location (e.g. --checkpoint-dir=s3://bucket/run).

Source: https://pytorch.org/docs/stable/elastic/train_script.html
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from trainops.findings import Issue, Level
from trainops.kinds import KUBEFLOW_JOBS
from trainops.policy.pods import as_str, dig, main_container, replicas_of
from trainops.policy.rule import Context, describe
from trainops.rules import register

ID = "checkpoint-volume"
LEVEL: Level = "warning"
KINDS = KUBEFLOW_JOBS
CONF: dict[str, dict[str, Any]] = {}
DEFAULT: dict[str, Any] = {}
RULE = register(describe(ID, LEVEL, __doc__))

_RESTARTING = ("OnFailure", "ExitCode", "Always")
#: URI schemes of object stores (S3 and compatibles, GCS, Azure Blob/ADLS, HDFS).
OBJECT_STORES = ("s3://", "s3a://", "gs://", "gcs://", "az://", "abfs://", "abfss://", "wasbs://", "hdfs://")
#: Words naming where a trainer writes its checkpoints, in a flag or a variable name.
_CHECKPOINT_WORDS = re.compile(r"checkpoint|ckpt|save|output", re.IGNORECASE)


def object_store_checkpoints(container: dict[str, Any]) -> bool:
    """Whether the container is told to write checkpoints to an object store: an argument
    ``--checkpoint-dir=s3://...`` (or the URI after such a flag), or a variable such as
    ``CHECKPOINT_DIR=gs://...``; the flag or variable name must mention checkpoint, ckpt, save or
    output (a dataset URI is no checkpoint)."""
    words: list[str] = []
    for field in ("command", "args"):
        items = container.get(field)
        words += [w for w in (items if isinstance(items, list) else []) if isinstance(w, str)]
    for previous, word in zip(["", *words], words, strict=False):
        flag, equals, value = word.partition("=")
        if equals and value.startswith(OBJECT_STORES) and _CHECKPOINT_WORDS.search(flag):
            return True
        if word.startswith(OBJECT_STORES) and previous.startswith("-") and _CHECKPOINT_WORDS.search(previous):
            return True
    env = container.get("env")
    return any(
        isinstance(item, dict)
        and isinstance(item.get("name"), str)
        and _CHECKPOINT_WORDS.search(item["name"])
        and isinstance(item.get("value"), str)
        and item["value"].startswith(OBJECT_STORES)
        for item in (env if isinstance(env, list) else [])
    )


def check(conf: Mapping[str, Any], obj: dict[str, Any], ctx: Context) -> Iterator[Issue]:
    """Each restartable replica (MPI launchers excepted) whose training container mounts no writable
    PVC and is given no object-store checkpoint location."""
    kind = str(obj.get("kind"))
    elastic = isinstance(dig(obj, "spec", "elasticPolicy"), dict)
    backoff = dig(obj, "spec", "runPolicy", "backoffLimit")
    retries = isinstance(backoff, int) and backoff > 0
    for replica in replicas_of(obj):
        if replica.type == "Launcher":
            continue
        if not (elastic or retries or replica.spec.get("restartPolicy") in _RESTARTING):
            continue
        found = main_container(replica.pod, kind)
        if found is None:
            continue
        volumes = replica.pod.get("volumes")
        claims = {
            as_str(v.get("name"))
            for v in (volumes if isinstance(volumes, list) else [])
            if isinstance(v, dict)
            and isinstance(v.get("persistentVolumeClaim"), dict)
            and not v["persistentVolumeClaim"].get("readOnly")
        }
        mounts = found[1].get("volumeMounts")
        writable = [
            m
            for m in (mounts if isinstance(mounts, list) else [])
            if isinstance(m, dict) and as_str(m.get("name")) in claims and not m.get("readOnly")
        ]
        if not writable and not object_store_checkpoints(found[1]):
            yield Issue(
                (*replica.parts, "template", "spec", "containers", found[0]),
                f'{replica.type} container "{found[1].get("name")}" of a restartable job mounts no writable PVC and names no object store for checkpoints',
                ID,
            )
