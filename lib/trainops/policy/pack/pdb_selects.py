"""PodDisruptionBudgets select pods of a rendered workload and leave room for one disruption.

Why: a PDB selecting nothing protects nothing; one with ``maxUnavailable: 0`` (or ``minAvailable``
equal to the replica count) blocks every node drain, so cluster upgrades stall on it.
``maxUnavailable: 0`` (or ``0%``) and ``minAvailable: 100%`` block every voluntary disruption
whatever the PDB selects, so they are reported even when no rendered workload is selected (Polaris
``pdbDisruptionsIsZero``, kube-linter ``pdb-max-unavailable``); an integer ``minAvailable`` is
compared with the pods of the rendered workloads it selects (their replicas, or their HPA's
maxReplicas).

Options: none.

Default: enabled, level warning.

PASS:

    apiVersion: policy/v1
    kind: PodDisruptionBudget
    metadata: {name: serve, namespace: ml}
    spec:
      maxUnavailable: 1
      selector: {matchLabels: {app: serve}}
    ---
    apiVersion: apps/v1
    kind: Deployment
    metadata: {name: serve, namespace: ml}
    spec:
      replicas: 3
      selector: {matchLabels: {app: serve}}
      template:
        metadata: {labels: {app: serve}}
        spec:
          containers: [{name: server, image: registry.example.com/serve:1.0}]

FAIL:

    apiVersion: policy/v1
    kind: PodDisruptionBudget
    metadata: {name: serve, namespace: ml}
    spec:
      maxUnavailable: 0
      selector: {matchLabels: {app: serve}}
    ---
    apiVersion: apps/v1
    kind: Deployment
    metadata: {name: serve, namespace: ml}
    spec:
      replicas: 3
      selector: {matchLabels: {app: serve}}
      template:
        metadata: {labels: {app: serve}}
        spec:
          containers: [{name: server, image: registry.example.com/serve:1.0}]

Remediation: Select the workload's pod labels and allow at least one pod to be unavailable.

Source: https://kubernetes.io/docs/tasks/run-application/configure-pdb/#think-about-how-your-application-reacts-to-disruptions
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from trainops.core.findings import Issue, Level
from trainops.core.kinds import group_kind
from trainops.core.rules import register
from trainops.policy.index import ObjectIndex
from trainops.policy.pods import dig, metadata_of
from trainops.policy.rule import Context, describe
from trainops.policy.selectors import ANY_VALUE_LABELS, all_pods, selected_pods

ID = "pdb-selects"
LEVEL: Level = "warning"
KINDS = None
CONF: dict[str, dict[str, Any]] = {}
DEFAULT: dict[str, Any] = {}
RULE = register(describe(ID, LEVEL, __doc__))

PDB = ("policy", "PodDisruptionBudget")


def check_all(
    conf: Mapping[str, Any], objects: Sequence[dict[str, Any]], ctx: Context
) -> Iterator[tuple[int, Issue]]:
    """Per PDB: selected pods, then whether it allows any disruption."""
    pods = list(all_pods(objects))
    index_ = ObjectIndex(objects, ctx.facts)
    for index, pdb in enumerate(objects):
        if group_kind(pdb) != PDB:
            continue
        raw_spec = pdb.get("spec")
        spec: dict[str, Any] = raw_spec if isinstance(raw_spec, dict) else {}
        unavailable, available = spec.get("maxUnavailable"), spec.get("minAvailable")
        blocks = _percent(unavailable) == 0 or (unavailable == 0 and not isinstance(unavailable, bool))
        if blocks:
            yield (
                index,
                Issue(
                    ("spec", "maxUnavailable"),
                    f"maxUnavailable {unavailable} blocks every voluntary disruption",
                    ID,
                ),
            )
        elif (_percent(available) or 0) >= 100:
            yield (
                index,
                Issue(
                    ("spec", "minAvailable"),
                    f"minAvailable {available} blocks every voluntary disruption",
                    ID,
                ),
            )
            blocks = True
        namespace = metadata_of(pdb).get("namespace")
        selector = dig(pdb, "spec", "selector")
        chosen = selected_pods(selector, pods, namespace, ANY_VALUE_LABELS)
        if not chosen:
            yield (
                index,
                Issue(("spec", "selector"), "PodDisruptionBudget selects no pod in its namespace", ID),
            )
            continue
        total = sum(index_.pod_count(p.obj, p.site) for p in chosen)
        if (
            not blocks
            and isinstance(available, int)
            and not isinstance(available, bool)
            and available >= total
        ):
            yield (
                index,
                Issue(
                    ("spec", "minAvailable"),
                    f"minAvailable {available} with {total} selected pods blocks every voluntary disruption",
                    ID,
                ),
            )


def _percent(value: Any) -> int | None:
    """The number of a percentage string (``"25%"`` → 25), else ``None``."""
    if isinstance(value, str) and value.endswith("%") and value[:-1].isdigit():
        return int(value[:-1])
    return None
