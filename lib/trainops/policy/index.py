"""What cross-object rules look up: which objects exist (rendered in the checked set, or declared
as external in the cluster facts) and how many pods a pod template runs."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from trainops.core.kinds import CLUSTER_SCOPED, KUBEFLOW_JOBS, PodSite, group_kind
from trainops.policy.facts import Facts
from trainops.policy.objects import hashable
from trainops.policy.pods import as_dict, as_str, dig, metadata_of

HPA = ("autoscaling", "HorizontalPodAutoscaler")


def where(namespace: Any) -> str:
    """``namespace "x"`` for messages, or ``the object's namespace (unset)`` when it has none."""
    return f'namespace "{namespace}"' if namespace else "the object's namespace (unset)"


def _namespace(obj: dict[str, Any]) -> Any:
    """``metadata.namespace`` as written, ``None`` for a cluster-scoped kind."""
    return None if group_kind(obj) in CLUSTER_SCOPED else metadata_of(obj).get("namespace")


@dataclass(frozen=True)
class ObjectIndex:
    """Rendered objects by (kind, namespace, name), plus the facts' external objects.

    Args:
        objects: the checked set.
        facts: the cluster facts (external objects).
    """

    objects: Sequence[dict[str, Any]]
    facts: Facts
    _keys: set[tuple[str, str | None, str]] = field(default_factory=set, init=False, repr=False)
    _scaled: dict[tuple[str | None, str, str], int] = field(default_factory=dict, init=False, repr=False)
    _first: dict[tuple[Any, Any, Any], dict[str, Any]] = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self) -> None:
        for obj in self.objects:
            key = group_kind(obj)
            meta = metadata_of(obj)
            name = meta.get("name")
            if key is None or not isinstance(name, str):
                continue
            namespace = None if key in CLUSTER_SCOPED else as_str(meta.get("namespace"))
            self._keys.add((key[1], namespace, name))
            if key == HPA:
                ref = as_dict(dig(obj, "spec", "scaleTargetRef"))
                high = dig(obj, "spec", "maxReplicas")
                self._scaled[(as_str(meta.get("namespace")), str(ref.get("kind")), str(ref.get("name")))] = (
                    high if isinstance(high, int) else 1
                )

    def exists(self, kind: str, name: str, namespace: str | None) -> bool:
        """Whether a ``kind`` called ``name`` exists in ``namespace`` (``None`` for cluster-scoped),
        rendered or external."""
        namespace = as_str(namespace)
        if (kind, namespace, name) in self._keys or (kind, None, name) in self._keys:
            return True
        return self.facts.has_external(kind, name, namespace)

    def first(self, kind: str, name: str, namespace: Any) -> dict[str, Any] | None:
        """The first rendered object whose ``kind``, ``metadata.name`` and namespace equal these (the
        group is not compared; ``namespace`` as written, ``None`` when unset). A cluster-scoped object
        (:data:`~trainops.core.kinds.CLUSTER_SCOPED`) has namespace ``None`` whatever stray
        ``metadata.namespace`` it carries: the API server drops it (``rest.BeforeCreate`` clears the
        namespace of objects whose strategy is not ``NamespaceScoped``, kubernetes
        ``staging/src/k8s.io/apiserver/pkg/registry/rest/create.go``)."""
        if not hashable(namespace):
            return next(
                (
                    o
                    for o in self.objects
                    if o.get("kind") == kind
                    and metadata_of(o).get("name") == name
                    and _namespace(o) == namespace
                ),
                None,
            )
        if not self._first:
            for obj in self.objects:
                key = (obj.get("kind"), metadata_of(obj).get("name"), _namespace(obj))
                if hashable(key):
                    self._first.setdefault(key, obj)
            self._first[(None, None, ())] = {}  # built (a key no document has)
        return self._first.get((kind, name, namespace))

    def hpa_max(self, obj: dict[str, Any]) -> int | None:
        """maxReplicas of the HPA scaling ``obj``, or ``None``."""
        meta = metadata_of(obj)
        return self._scaled.get((as_str(meta.get("namespace")), str(obj.get("kind")), str(meta.get("name"))))

    def pod_count(self, obj: dict[str, Any], site: PodSite) -> int:
        """How many pods a template runs at most: the replica type's replicas (Kubeflow), the
        workload's replicas (or its HPA's maxReplicas), a Job's parallelism; else 1."""
        key = group_kind(obj)
        if key in KUBEFLOW_JOBS and len(site.parts) > 2:
            value = dig(obj, *site.parts[:3], "replicas")
        elif key is not None and key[0] == "apps":
            scaled = self.hpa_max(obj)
            value = scaled if scaled is not None else dig(obj, "spec", "replicas")
        elif key == ("batch", "Job"):
            value = dig(obj, "spec", "parallelism")
        else:
            value = 1
        return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 1
