"""GPU pods tolerate the cluster's GPU node taints and select GPU nodes.

Why: GPU nodes are tainted so that CPU pods stay off them; a GPU pod without the toleration never
schedules, and one without the GPU node selector may wait on a node pool that cannot serve it.

Options: ``require-node-selector``: require the cluster's GPU node labels in ``nodeSelector`` (or a
required node affinity on the same keys).

Default: enabled, level warning, ``require-node-selector: true``.

PASS:

    apiVersion: v1
    kind: Pod
    metadata: {name: train}
    spec:
      nodeSelector: {nvidia.com/gpu.present: "true"}
      tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
      containers:
      - name: train
        image: registry.example.com/train:1.0
        resources: {limits: {nvidia.com/gpu: "1"}}

FAIL:

    apiVersion: v1
    kind: Pod
    metadata: {name: train}
    spec:
      containers:
      - name: train
        image: registry.example.com/train:1.0
        resources: {limits: {nvidia.com/gpu: "1"}}

Remediation: Add a toleration for each GPU node taint and the GPU node labels to nodeSelector.

Source: https://kubernetes.io/docs/concepts/scheduling-eviction/taint-and-toleration/#example-use-cases
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from trainops.findings import Issue, Level
from trainops.policy.pods import POD_KINDS, as_list, containers, dig, gpu_count, pod_templates, tolerates
from trainops.policy.rule import Context, describe
from trainops.rules import register

ID = "gpu-scheduling"
LEVEL: Level = "warning"
KINDS = POD_KINDS
CONF: dict[str, dict[str, Any]] = {"require-node-selector": {"type": "boolean"}}
DEFAULT: dict[str, Any] = {"require-node-selector": True}
RULE = register(describe(ID, LEVEL, __doc__))


def _affinity_keys(spec: dict[str, Any]) -> set[str]:
    terms = dig(
        spec,
        "affinity",
        "nodeAffinity",
        "requiredDuringSchedulingIgnoredDuringExecution",
        "nodeSelectorTerms",
    )
    keys: set[str] = set()
    for term in terms if isinstance(terms, list) else []:
        for expression in as_list(dig(term, "matchExpressions")):
            if isinstance(expression, dict) and isinstance(expression.get("key"), str):
                keys.add(expression["key"])
    return keys


def check(conf: Mapping[str, Any], obj: dict[str, Any], ctx: Context) -> Iterator[Issue]:
    """Per GPU pod spec: each GPU taint tolerated; each GPU node label selected."""
    facts = ctx.facts
    for site in pod_templates(obj):
        if not any(gpu_count(c, facts.gpu_resources) > 0 for c in containers(site)):
            continue
        for taint in facts.gpu_taints:
            if not tolerates(site.spec.get("tolerations"), taint.key, taint.effect, taint.value):
                yield Issue(
                    (*site.parts, "tolerations"),
                    f"GPU pod does not tolerate the GPU node taint {taint.key}:{taint.effect}",
                    ID,
                )
        if not conf["require-node-selector"]:
            continue
        selector = site.spec.get("nodeSelector")
        selector = selector if isinstance(selector, dict) else {}
        affinity = _affinity_keys(site.spec)
        for key, value in facts.gpu_node_selector.items():
            if selector.get(key) != value and key not in affinity:
                yield Issue(
                    (*site.parts, "nodeSelector"),
                    f'GPU pod does not select GPU nodes (nodeSelector {key}: "{value}")',
                    ID,
                )
