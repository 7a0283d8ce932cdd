"""All replica types of a training job run one training image.

Why: a Master on ``train:1.4`` and Workers on ``train:1.3`` run different code in one collective;
the job may hang or silently train with mismatched model definitions. The CPU and GPU builds of one
image (``tensorflow:2.15.0`` and ``tensorflow:2.15.0-gpu``, ``tf-benchmarks-cpu`` and
``tf-benchmarks-gpu`` with one tag) count as the same image: a parameter server without GPUs runs
the CPU build of the Workers' code, as the Kubeflow TFJob examples do.

Options: none.

Default: enabled, level warning.

PASS:

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
              containers: [{name: pytorch, image: registry.example.com/train:1.4}]
        Worker:
          replicas: 2
          restartPolicy: OnFailure
          template:
            spec:
              containers: [{name: pytorch, image: registry.example.com/train:1.4}]

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
              containers: [{name: pytorch, image: registry.example.com/train:1.4}]
        Worker:
          replicas: 2
          restartPolicy: OnFailure
          template:
            spec:
              containers: [{name: pytorch, image: registry.example.com/train:1.3}]

Remediation: Use the same image (tag or digest) for the training container of every replica type.

Source: https://www.kubeflow.org/docs/components/trainer/legacy-v1/user-guides/pytorch/
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from trainops.findings import Issue, Level
from trainops.kinds import KUBEFLOW_JOBS
from trainops.policy.pods import main_container, replicas_of
from trainops.policy.rule import Context, describe
from trainops.rules import register

ID = "same-image"
LEVEL: Level = "warning"
KINDS = KUBEFLOW_JOBS
CONF: dict[str, dict[str, Any]] = {}
DEFAULT: dict[str, Any] = {}
RULE = register(describe(ID, LEVEL, __doc__))


def check(conf: Mapping[str, Any], obj: dict[str, Any], ctx: Context) -> Iterator[Issue]:
    """Each replica whose training image differs from the first replica's."""
    kind = str(obj.get("kind"))
    first: tuple[str, str] | None = None
    for replica in replicas_of(obj):
        found = main_container(replica.pod, kind)
        image = found[1].get("image") if found else None
        if not isinstance(image, str) or found is None:
            continue
        if first is None:
            first = (replica.type, image)
        elif _build(image) != _build(first[1]):
            yield Issue(
                (*replica.parts, "template", "spec", "containers", found[0], "image"),
                f"{replica.type} image {image} differs from {first[0]} image {first[1]}",
                ID,
            )


#: A ``-cpu``/``-gpu`` suffix of the repository name or of the tag (before ``:``, ``@`` or the end).
_VARIANT = re.compile(r"-(cpu|gpu)(?=[:@]|$)")


def _build(image: str) -> str:
    """``image`` without its CPU/GPU build suffixes."""
    return _VARIANT.sub("", image)
