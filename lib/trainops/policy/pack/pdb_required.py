"""Serving workloads that run more than one replica, or that an HPA scales, have a
PodDisruptionBudget, and every PodDisruptionBudget sets ``unhealthyPodEvictionPolicy: AlwaysAllow``.

Why: without a budget a node drain or a cluster autoscaler scale-down may evict every replica of a
model server at once; with one whose policy is the default ``IfHealthyBudget``, pods stuck unready
(a model that never loads, a crash loop) block the drain of their node until someone deletes them.

Options: ``unhealthy-pod-eviction-policy``: the policy every PodDisruptionBudget must set
(``AlwaysAllow``); an empty string skips that check.

Default: enabled, level warning, ``unhealthy-pod-eviction-policy: AlwaysAllow``. Workloads are
Deployments, StatefulSets and Argo Rollouts Rollouts (KServe and Seldon create their own Deployments, out of the rendered set).

PASS:

    apiVersion: apps/v1
    kind: Deployment
    metadata: {name: serve, namespace: ml}
    spec:
      replicas: 3
      selector: {matchLabels: {app: serve}}
      template:
        metadata: {labels: {app: serve}}
        spec:
          containers: [{name: serve, image: registry.example.com/serve:1.0}]
    ---
    apiVersion: policy/v1
    kind: PodDisruptionBudget
    metadata: {name: serve, namespace: ml}
    spec:
      maxUnavailable: 1
      selector: {matchLabels: {app: serve}}
      unhealthyPodEvictionPolicy: AlwaysAllow

FAIL:

    apiVersion: apps/v1
    kind: Deployment
    metadata: {name: serve, namespace: ml}
    spec:
      replicas: 3
      selector: {matchLabels: {app: serve}}
      template:
        metadata: {labels: {app: serve}}
        spec:
          containers: [{name: serve, image: registry.example.com/serve:1.0}]

Remediation: Add a PodDisruptionBudget (maxUnavailable: 1) selecting the workload's pods, with unhealthyPodEvictionPolicy: AlwaysAllow.

Source: Polaris missingPodDisruptionBudget; kube-score deployment-has-poddisruptionbudget; https://kubernetes.io/docs/tasks/run-application/configure-pdb/#unhealthy-pod-eviction-policy
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Final

from trainops.core.findings import Issue, Level
from trainops.core.kinds import group_kind
from trainops.core.rules import register
from trainops.policy.index import ObjectIndex
from trainops.policy.pods import dig, metadata_of, show
from trainops.policy.rule import Context, describe
from trainops.policy.selectors import ANY_VALUE_LABELS, all_pods, selected_pods

ID = "pdb-required"
LEVEL: Level = "warning"
KINDS = None
CONF: dict[str, dict[str, Any]] = {"unhealthy-pod-eviction-policy": {"type": "string"}}
DEFAULT: dict[str, Any] = {"unhealthy-pod-eviction-policy": "AlwaysAllow"}
RULE = register(describe(ID, LEVEL, __doc__))

PDB: Final = ("policy", "PodDisruptionBudget")
#: Workloads a budget protects.
WORKLOADS: Final = frozenset({("apps", "Deployment"), ("apps", "StatefulSet"), ("argoproj.io", "Rollout")})


def check_all(
    conf: Mapping[str, Any], objects: Sequence[dict[str, Any]], ctx: Context
) -> Iterator[tuple[int, Issue]]:
    """Each PDB without the required unhealthyPodEvictionPolicy; each workload with more than one
    replica (``spec.replicas``, else its HPA's maxReplicas) none of whose pods a rendered PDB
    selects, and without an external PDB of its own name in its namespace (facts)."""
    policy = conf["unhealthy-pod-eviction-policy"]
    pods = list(all_pods(objects))
    index_ = ObjectIndex(objects, ctx.facts)
    protected: set[int] = set()
    for index, pdb in enumerate(objects):
        if group_kind(pdb) != PDB:
            continue
        namespace = metadata_of(pdb).get("namespace")
        protected.update(
            p.index for p in selected_pods(dig(pdb, "spec", "selector"), pods, namespace, ANY_VALUE_LABELS)
        )
        found = dig(pdb, "spec", "unhealthyPodEvictionPolicy")
        if policy and found != policy:
            shown = "unset (IfHealthyBudget)" if found is None else show(found)
            yield (
                index,
                Issue(
                    ("spec", "unhealthyPodEvictionPolicy"),
                    f"unhealthyPodEvictionPolicy is {shown}, not {policy}",
                    ID,
                ),
            )
    for index, obj in enumerate(objects):
        if (
            group_kind(obj) not in WORKLOADS
            or index in protected
            or dig(obj, "spec", "workloadRef") is not None
        ):
            continue
        meta = metadata_of(obj)
        name, namespace = meta.get("name"), meta.get("namespace")
        if isinstance(name, str) and ctx.facts.has_external(
            PDB[1], name, namespace if isinstance(namespace, str) else None
        ):
            continue  # an external budget of the workload's name (its selector is not known here)
        scaled = index_.hpa_max(obj)
        replicas = dig(obj, "spec", "replicas")
        if scaled is not None:
            why = f"an HPA scales it up to {scaled} replicas"
        elif isinstance(replicas, int) and not isinstance(replicas, bool) and replicas > 1:
            why = f"it runs {replicas} replicas"
        else:
            continue
        yield index, Issue(("spec", "selector"), f"no PodDisruptionBudget selects its pods, and {why}", ID)
