"""Deployments, StatefulSets and Argo Rollouts Rollouts run at least ``min-replicas`` pods (their HPA's minReplicas when an
HPA scales them) and spread them with pod anti-affinity or topology spread constraints.

Why: one replica means every node drain, OOM kill or rollout is an outage of the model endpoint;
several replicas on one node fail together.

A pod anti-affinity term counts only if it keeps these pods apart: its ``labelSelector`` (with
``matchLabelKeys``) selects the pod template's labels, and its ``namespaces`` /
``namespaceSelector`` include the object's own namespace (none of either: the pod's namespace; an
empty ``namespaceSelector``: every namespace; a selector is evaluated on the labels of a rendered
Namespace and its ``kubernetes.io/metadata.name``, and given the benefit of the doubt on labels of
a Namespace that is not rendered). As kube-linter ``no-anti-affinity``
(``pkg/templates/antiaffinity/template.go`` ``validateAffinityTermMatchesAgainstNodes``), any
topology key counts here.

Options: ``min-replicas``: the minimum replica count.

Default: enabled, level warning, ``min-replicas: 2``.

PASS:

    apiVersion: apps/v1
    kind: Deployment
    metadata: {name: serve, namespace: ml}
    spec:
      replicas: 2
      selector: {matchLabels: {app: serve}}
      template:
        metadata: {labels: {app: serve}}
        spec:
          topologySpreadConstraints:
          - {maxSkew: 1, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: ScheduleAnyway, labelSelector: {matchLabels: {app: serve}}}
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

Remediation: Run at least min-replicas replicas (or an HPA minReplicas) and add topologySpreadConstraints or pod anti-affinity.

Source: https://kubernetes.io/docs/concepts/scheduling-eviction/topology-spread-constraints/
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from trainops.core.findings import Issue, Level
from trainops.core.kinds import group_kind
from trainops.core.rules import register
from trainops.policy.pods import as_dict, as_list, as_str, dig, labels_of, metadata_of
from trainops.policy.rule import Context, describe
from trainops.policy.selectors import ANY_VALUE_LABELS, matches

ID = "high-availability"
LEVEL: Level = "warning"
KINDS = None
CONF: dict[str, dict[str, Any]] = {"min-replicas": {"type": "integer", "minimum": 1}}
DEFAULT: dict[str, Any] = {"min-replicas": 2}
RULE = register(describe(ID, LEVEL, __doc__))

TARGETS = frozenset({("apps", "Deployment"), ("apps", "StatefulSet"), ("argoproj.io", "Rollout")})
HPA = ("autoscaling", "HorizontalPodAutoscaler")
NAMESPACE = ("", "Namespace")
#: The label the API server puts on every Namespace, its name (``NamespaceDefaultLabelName``).
NAME_LABEL = "kubernetes.io/metadata.name"


def hpa_min_replicas(objects: Sequence[dict[str, Any]]) -> dict[tuple[Any, Any, Any], int]:
    """(namespace, kind, name) of each HPA target → the HPA's minReplicas (default 1)."""
    found: dict[tuple[Any, Any, Any], int] = {}
    for obj in objects:
        if group_kind(obj) != HPA:
            continue
        ref = as_dict(dig(obj, "spec", "scaleTargetRef"))
        minimum = dig(obj, "spec", "minReplicas")
        key = (as_str(metadata_of(obj).get("namespace")), as_str(ref.get("kind")), as_str(ref.get("name")))
        found[key] = minimum if isinstance(minimum, int) else 1
    return found


def check_all(
    conf: Mapping[str, Any], objects: Sequence[dict[str, Any]], ctx: Context
) -> Iterator[tuple[int, Issue]]:
    """Per Deployment/StatefulSet: effective replicas and spreading."""
    scaled = hpa_min_replicas(objects)
    wanted = conf["min-replicas"]
    namespaces = {
        name: labels_of(o)
        for o in objects
        if group_kind(o) == NAMESPACE and isinstance(name := metadata_of(o).get("name"), str)
    }
    for index, obj in enumerate(objects):
        if group_kind(obj) not in TARGETS or dig(obj, "spec", "workloadRef") is not None:
            continue
        meta = metadata_of(obj)
        hpa = scaled.get((as_str(meta.get("namespace")), as_str(obj.get("kind")), as_str(meta.get("name"))))
        replicas = dig(obj, "spec", "replicas")
        count = hpa if hpa is not None else (replicas if isinstance(replicas, int) else 1)
        source = "HPA minReplicas" if hpa is not None else "replicas"
        if count < wanted:
            yield index, Issue(("spec", "replicas"), f"{source} {count} is below min-replicas {wanted}", ID)
            continue
        pod = as_dict(dig(obj, "spec", "template", "spec"))
        if pod.get("topologySpreadConstraints"):
            continue
        anti = dig(pod, "affinity", "podAntiAffinity")
        if not anti:
            yield (
                index,
                Issue(
                    ("spec", "template", "spec"),
                    f"{count} replicas without topologySpreadConstraints or podAntiAffinity may share one node",
                    ID,
                ),
            )
        elif not any(_keeps_apart(term, obj, namespaces) for term in _terms(anti)):
            yield (
                index,
                Issue(
                    ("spec", "template", "spec", "affinity", "podAntiAffinity"),
                    f"{count} replicas may share one node: no podAntiAffinity term selects these pods"
                    " (their labels in their namespace), and no topologySpreadConstraints",
                    ID,
                ),
            )


def _terms(anti: Any) -> list[dict[str, Any]]:
    """The required terms and the preferred terms' ``podAffinityTerm`` of a podAntiAffinity."""
    anti = as_dict(anti)
    terms = as_list(anti.get("requiredDuringSchedulingIgnoredDuringExecution"))
    terms += [
        as_dict(w).get("podAffinityTerm")
        for w in as_list(anti.get("preferredDuringSchedulingIgnoredDuringExecution"))
    ]
    return [t for t in terms if isinstance(t, dict)]


def _keeps_apart(term: dict[str, Any], obj: dict[str, Any], namespaces: dict[str, dict[str, Any]]) -> bool:
    """Whether an anti-affinity term applies to the pods of ``obj``'s own template, in its namespace."""
    labels = as_dict(dig(obj, "spec", "template", "metadata", "labels"))
    selector = term.get("labelSelector")
    if selector is None:  # a null selector matches no pod; matchLabelKeys alone selects the pod's own
        if not as_list(term.get("matchLabelKeys")):
            return False
    elif not matches(selector, labels, ANY_VALUE_LABELS):
        return False
    return _own_namespace(term, as_str(metadata_of(obj).get("namespace")), namespaces)


def _own_namespace(
    term: dict[str, Any], namespace: str | None, namespaces: dict[str, dict[str, Any]]
) -> bool:
    """Whether the term's ``namespaces`` / ``namespaceSelector`` include ``namespace`` (``None``:
    unknown, the Application's destination, so yes)."""
    names = as_list(term.get("namespaces"))
    selector = term.get("namespaceSelector")
    if (not names and selector is None) or namespace is None or namespace in names:
        return True
    if not isinstance(selector, dict):
        return False
    known = namespaces.get(namespace)
    if known is None:
        keys = {k for k in as_dict(selector.get("matchLabels")) if isinstance(k, str)}
        keys |= {
            k
            for e in as_list(selector.get("matchExpressions"))
            if isinstance(k := as_dict(e).get("key"), str)
        }
        if keys - {NAME_LABEL}:  # labels of a Namespace that is not rendered: unknown
            return True
    return matches(selector, {**(known or {}), NAME_LABEL: namespace})
