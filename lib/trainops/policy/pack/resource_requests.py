"""Every container requests cpu and memory (a limit alone counts: the API server copies it to the request).

Why: the scheduler places pods by their requests; a pod without them lands on a node it does not
fit, is the first evicted under memory pressure (BestEffort QoS), and makes quota and Kueue
admission meaningless. InferenceService containers are left to KServe, whose mutating webhook fills
the cpu and memory requests and limits they leave out.

Options: none.

Default: enabled, level error.

PASS:

    apiVersion: v1
    kind: Pod
    metadata: {name: train}
    spec:
      containers:
      - name: train
        image: registry.example.com/train:1.0
        resources:
          requests: {cpu: "4", memory: 16Gi}

FAIL:

    apiVersion: v1
    kind: Pod
    metadata: {name: train}
    spec:
      containers:
      - name: train
        image: registry.example.com/train:1.0
        resources:
          requests: {cpu: "4"}

Remediation: Set resources.requests.cpu and resources.requests.memory on every container.

Source: https://kubernetes.io/docs/concepts/configuration/manage-resources-containers/#requests-and-limits
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from trainops.findings import Issue, Level
from trainops.policy.pods import POD_KINDS, all_containers
from trainops.policy.rule import Context, describe
from trainops.rules import register

#: KServe's mutating webhook (``InferenceServiceDefaulter.Default`` → ``setResourceRequirementDefaults``,
#: ``pkg/apis/serving/v1beta1/inference_service_defaults.go``) sets the cpu and memory requests and limits
#: a predictor, transformer or explainer container leaves out (1 CPU, 2Gi unless configured).
KSERVE = ("serving.kserve.io", "InferenceService")

ID = "resource-requests"
LEVEL: Level = "error"
KINDS = POD_KINDS
CONF: dict[str, dict[str, Any]] = {}
DEFAULT: dict[str, Any] = {}
RULE = register(describe(ID, LEVEL, __doc__))


def check(conf: Mapping[str, Any], obj: dict[str, Any], ctx: Context) -> Iterator[Issue]:
    """Each (non-ephemeral) container missing a cpu or memory request (and the matching limit)."""
    for container in all_containers(obj, ephemeral=False):
        if container.site.partial:  # resources come from the runtime and spec.trainer.resourcesPerNode
            continue
        if container.site.owner == KSERVE and container.field == "containers":
            continue  # KServe's defaulter fills cpu and memory requests and limits
        for name in ("cpu", "memory"):
            if (
                container.get("resources", "requests", name) is None
                and container.get("resources", "limits", name) is None
            ):
                yield Issue(
                    container.at("resources", "requests", name),
                    f'container "{container.name}" sets no {name} request',
                    ID,
                )
