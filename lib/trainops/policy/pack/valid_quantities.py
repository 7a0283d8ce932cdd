"""Resource quantities parse, are not negative, and GPU counts are whole numbers.

Why: a GPU count of ``0.5`` or ``500m`` is rejected by the API server only when the object is
applied (extended resources cannot be overcommitted or split), which for a training job is the
moment Argo CD syncs, not the moment the PR is reviewed; ``1.5Gi`` typed as ``1.5G`` silently
means decimal gigabytes.

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
          limits: {cpu: 500m, memory: 1Gi, nvidia.com/gpu: "1"}

FAIL:

    apiVersion: v1
    kind: Pod
    metadata: {name: train}
    spec:
      containers:
      - name: train
        image: registry.example.com/train:1.0
        resources:
          limits: {nvidia.com/gpu: "0.5"}

Remediation: Write quantities as Kubernetes quantities (e.g. 500m, 16Gi) and GPU counts as whole numbers.

Source: https://github.com/kubernetes/kubernetes/blob/master/pkg/apis/core/validation/validation.go (ValidateResourceRequirements, validateResourceQuantityValue)
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from trainops.findings import Issue, Level
from trainops.policy.pods import POD_KINDS, all_containers, quantity, show, templated
from trainops.policy.rule import Context, describe
from trainops.rules import register

ID = "valid-quantities"
LEVEL: Level = "error"
KINDS = POD_KINDS
CONF: dict[str, dict[str, Any]] = {}
DEFAULT: dict[str, Any] = {}
RULE = register(describe(ID, LEVEL, __doc__))


def check(conf: Mapping[str, Any], obj: dict[str, Any], ctx: Context) -> Iterator[Issue]:
    """Each requests/limits value that is not a quantity, is negative, or is a fractional GPU count."""
    for container in all_containers(obj):
        for section in ("requests", "limits"):
            values = container.get("resources", section)
            if not isinstance(values, dict):
                continue
            for name, raw in values.items():
                if templated(raw):
                    continue
                where = container.at("resources", section, name)
                value = quantity(raw)
                prefix = f'container "{container.name}" {section}.{name}'
                if value is None:
                    yield Issue(where, f"{prefix} {show(raw)} is not a quantity", ID)
                elif value < 0:
                    yield Issue(where, f"{prefix} {show(raw)} is negative", ID)
                elif name in ctx.facts.gpu_resources and value.denominator != 1:
                    yield Issue(where, f"{prefix} {show(raw)} is not a whole number of GPUs", ID)
