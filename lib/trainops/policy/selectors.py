"""Label selectors as the API server evaluates them, and the labels controllers add to pods.

:func:`matches` mirrors ``k8s.io/apimachinery/pkg/apis/meta/v1`` ``LabelSelectorAsSelector``
(matchLabels AND every matchExpression: In, NotIn, Exists, DoesNotExist; an empty selector selects
everything); :func:`matches_map` is a Service's equality-only ``spec.selector``.
:func:`pod_labels` adds what operators put on the pods they create, so a Service selecting
``training.kubeflow.org/replica-type: master`` is seen to select the Master pods of a PyTorchJob.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from trainops.core.kinds import KUBEFLOW_JOBS, PodSite, group_kind
from trainops.policy.objects import ObjectSet, PerSequence, hashable
from trainops.policy.pods import as_list, metadata_of, pod_templates

#: Pod labels whose value the controller picks at run time (any value matches).
ANY_VALUE_LABELS = frozenset(
    {
        "training.kubeflow.org/replica-index",
        "batch.kubernetes.io/job-completion-index",
        "controller-uid",
        "batch.kubernetes.io/controller-uid",
        "pod-template-hash",
        "rollouts-pod-template-hash",
        "statefulset.kubernetes.io/pod-name",
        "apps.kubernetes.io/pod-index",
        "jobset.sigs.k8s.io/job-index",
    }
)


def matches(selector: Any, labels: dict[str, Any], any_value: frozenset[str] = frozenset()) -> bool:
    """Whether a LabelSelector (``matchLabels``/``matchExpressions``) selects ``labels``.

    Labels in ``any_value`` match whatever value a selector asks for (``In``/equality).
    """
    if not isinstance(selector, dict):
        return False
    match_labels = selector.get("matchLabels") or {}
    if isinstance(match_labels, dict) and not matches_map(match_labels, labels, any_value):
        return False
    expressions = selector.get("matchExpressions") or []
    for expression in expressions if isinstance(expressions, list) else [None]:
        if not isinstance(expression, dict):
            return False
        key, operator = expression.get("key"), expression.get("operator")
        values: list[Any] = as_list(expression.get("values"))
        if not isinstance(key, str):
            return False
        present = key in labels or key in any_value
        value = labels.get(key)
        if operator == "In" and not (key in any_value or (present and value in values)):
            return False
        if operator == "NotIn" and present and value in values:
            return False
        if operator == "Exists" and not present:
            return False
        if operator == "DoesNotExist" and present:
            return False
    return True


def matches_map(
    selector: dict[str, Any], labels: dict[str, Any], any_value: frozenset[str] = frozenset()
) -> bool:
    """Whether an equality selector (a Service's ``spec.selector``) selects ``labels``."""
    return all(key in any_value or labels.get(key) == value for key, value in selector.items())


@dataclass(frozen=True)
class Pods:
    """A pod template of a rendered object, with the labels its pods will carry.

    Args:
        index: index of the owning object in the checked set.
        obj: the owning object.
        site: the pod spec.
        labels: template labels plus controller-added ones.
        namespace: the owning object's namespace.
    """

    index: int
    obj: dict[str, Any]
    site: PodSite
    labels: dict[str, Any]
    namespace: str | None


def pod_labels(obj: dict[str, Any], site: PodSite) -> dict[str, Any]:
    """The template's labels plus those the owning controller adds (Training Operator
    ``training.kubeflow.org/operator-name``/``job-name``/``replica-type``, Job ``job-name``, KServe
    ``serving.kserve.io/inferenceservice``/``component``, JobSet ``jobset.sigs.k8s.io/jobset-name``,
    LeaderWorkerSet ``leaderworkerset.sigs.k8s.io/name``)."""
    labels = dict(site.labels)
    name = metadata_of(obj).get("name")
    key = group_kind(obj)
    if key is not None and key in KUBEFLOW_JOBS and len(site.parts) > 2:
        # JobController.GenLabels (kubeflow/trainer v1.9 pkg/controller.v1/common/job_controller.go)
        labels.setdefault("training.kubeflow.org/operator-name", f"{key[1].lower()}-controller")
        labels.setdefault("training.kubeflow.org/job-name", name)
        labels.setdefault("training.kubeflow.org/replica-type", str(site.parts[2]).lower())
    elif key == ("batch", "Job"):
        labels.setdefault("job-name", name)
        labels.setdefault("batch.kubernetes.io/job-name", name)
    elif key == ("serving.kserve.io", "InferenceService") and len(site.parts) > 1:
        labels.setdefault("serving.kserve.io/inferenceservice", name)
        labels.setdefault("component", str(site.parts[1]))
    elif key == ("jobset.x-k8s.io", "JobSet"):
        labels.setdefault("jobset.sigs.k8s.io/jobset-name", name)
    elif key == ("leaderworkerset.x-k8s.io", "LeaderWorkerSet"):
        # every pod of the set, leader and workers (kubernetes-sigs/lws v0.10.0
        # api/leaderworkerset/v1/leaderworkerset_types.go SetNameLabelKey)
        labels.setdefault("leaderworkerset.sigs.k8s.io/name", name)
    return labels


def all_pods(objects: Sequence[dict[str, Any]]) -> Iterator[Pods]:
    """Every pod template of every object, not those of Katib trial templates (never run as written).

    Read once per run when ``objects`` is the engine's :class:`~trainops.policy.objects.ObjectSet`.
    """
    if isinstance(objects, ObjectSet):
        pods: list[Pods] | None = objects.derived.get("pods")
        if pods is None:
            pods = objects.derived["pods"] = list(_all_pods(objects))
        yield from pods
    else:
        yield from _all_pods(objects)


def _all_pods(objects: Sequence[dict[str, Any]]) -> Iterator[Pods]:
    for index, obj in enumerate(objects):
        namespace = metadata_of(obj).get("namespace")
        for site in pod_templates(obj):
            if not site.templated:
                yield Pods(
                    index, obj, site, pod_labels(obj, site), namespace if isinstance(namespace, str) else None
                )


_DERIVED = PerSequence()


def pods_in(pods: Sequence[Pods], namespace: Any) -> Sequence[Pods]:
    """The pods of ``pods`` in ``namespace``: ``[p for p in pods if p.namespace == namespace]``, with
    ``pods`` grouped by namespace once."""
    if not hashable(namespace):
        return [p for p in pods if p.namespace == namespace]
    return _DERIVED.get(pods, "namespace", _by_namespace).get(namespace, [])


def _by_namespace(pods: Sequence[Pods]) -> dict[str | None, list[Pods]]:
    groups: dict[str | None, list[Pods]] = {}
    for pod in pods:
        groups.setdefault(pod.namespace, []).append(pod)
    return groups


def _by_label(pods: Sequence[Pods]) -> dict[tuple[str | None, Any, Any], list[Pods]]:
    groups: dict[tuple[str | None, Any, Any], list[Pods]] = {}
    for pod in pods:
        for key, value in pod.labels.items():
            if hashable(value):
                groups.setdefault((pod.namespace, key, value), []).append(pod)
    return groups


def selected_pods(
    selector: Any, pods: Sequence[Pods], namespace: Any, any_value: frozenset[str] = frozenset()
) -> list[Pods]:
    """The pods of ``pods`` in ``namespace`` a LabelSelector selects (:func:`matches`), in order:
    ``[p for p in pods if p.namespace == namespace and matches(selector, p.labels, any_value)]``."""
    candidates = pods_in(pods, namespace)
    match_labels = selector.get("matchLabels") if isinstance(selector, dict) else None
    if isinstance(match_labels, dict) and hashable(namespace):  # narrow down by one label it asks for
        for key, value in match_labels.items():
            if key not in any_value and isinstance(key, str) and hashable(value):
                candidates = _DERIVED.get(pods, "label", _by_label).get((namespace, key, value), [])
                break
    return [p for p in candidates if matches(selector, p.labels, any_value)]


def service_pods(service: dict[str, Any], pods: Sequence[Pods]) -> list[Pods]:
    """The pod templates a Service selects (same namespace, equality selector; none without one)."""
    selector = service.get("spec", {}).get("selector") if isinstance(service.get("spec"), dict) else None
    namespace = metadata_of(service).get("namespace")
    if not isinstance(selector, dict) or not selector:
        return []
    candidates = pods_in(pods, namespace)
    if hashable(namespace):  # narrow down by one label the selector asks for
        for key, value in selector.items():
            if key not in ANY_VALUE_LABELS and isinstance(key, str) and hashable(value):
                candidates = _DERIVED.get(pods, "label", _by_label).get((namespace, key, value), [])
                break
    return [p for p in candidates if matches_map(selector, p.labels, ANY_VALUE_LABELS)]
