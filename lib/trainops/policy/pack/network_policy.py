"""Serving pods (Deployments, StatefulSets and InferenceServices) are selected by a NetworkPolicy
in their namespace.

Why: without one, every pod in the cluster (including any compromised training job running
arbitrary code) can call the model server and its admin or metrics ports directly.

Options: none.

Default: enabled, level warning.

PASS:

    apiVersion: networking.k8s.io/v1
    kind: NetworkPolicy
    metadata: {name: serve, namespace: ml}
    spec:
      podSelector: {matchLabels: {app: serve}}
      policyTypes: [Ingress]
      ingress: [{from: [{namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: gateway}}}]}]
    ---
    apiVersion: apps/v1
    kind: Deployment
    metadata: {name: serve, namespace: ml}
    spec:
      selector: {matchLabels: {app: serve}}
      template:
        metadata: {labels: {app: serve}}
        spec:
          containers: [{name: server, image: registry.example.com/serve:1.0}]

FAIL:

    apiVersion: apps/v1
    kind: Deployment
    metadata: {name: serve, namespace: ml}
    spec:
      selector: {matchLabels: {app: serve}}
      template:
        metadata: {labels: {app: serve}}
        spec:
          containers: [{name: server, image: registry.example.com/serve:1.0}]

Remediation: Add a NetworkPolicy selecting the serving pods that admits only the ingress gateway and the monitoring namespace.

Source: https://kubernetes.io/docs/concepts/services-networking/network-policies/
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from trainops.core.findings import Issue, Level
from trainops.core.kinds import group_kind
from trainops.core.rules import register
from trainops.policy.objects import hashable
from trainops.policy.pods import dig, metadata_of
from trainops.policy.rule import Context, describe
from trainops.policy.selectors import all_pods, matches

ID = "network-policy"
LEVEL: Level = "warning"
KINDS = None
CONF: dict[str, dict[str, Any]] = {}
DEFAULT: dict[str, Any] = {}
RULE = register(describe(ID, LEVEL, __doc__))

SERVING_KINDS = frozenset(
    {
        ("apps", "Deployment"),
        ("apps", "StatefulSet"),
        ("argoproj.io", "Rollout"),
        ("serving.kserve.io", "InferenceService"),
    }
)
NETWORK_POLICY = ("networking.k8s.io", "NetworkPolicy")


def _ingress(policy: dict[str, Any]) -> bool:
    types = dig(policy, "spec", "policyTypes")
    return "Ingress" in types if isinstance(types, list) and types else True


def check_all(
    conf: Mapping[str, Any], objects: Sequence[dict[str, Any]], ctx: Context
) -> Iterator[tuple[int, Issue]]:
    """Each serving pod template no ingress NetworkPolicy of its namespace selects."""
    policies = [
        (metadata_of(o).get("namespace"), dig(o, "spec", "podSelector"))
        for o in objects
        if group_kind(o) == NETWORK_POLICY and _ingress(o)
    ]
    by_namespace: dict[Any, list[Any]] = {}  # the policies of each (hashable) namespace, in order
    for ns, selector in policies:
        if hashable(ns):
            by_namespace.setdefault(ns, []).append(selector)
    for pod in all_pods(objects):
        if group_kind(pod.obj) not in SERVING_KINDS:
            continue
        if hashable(pod.namespace):
            selectors = by_namespace.get(pod.namespace, [])
        else:
            selectors = [selector for ns, selector in policies if ns == pod.namespace]
        if not any(matches(selector or {}, pod.labels) for selector in selectors):
            yield pod.index, Issue(pod.site.parts, "serving pods are not selected by any NetworkPolicy", ID)
