"""Helpers for pod-level rules: containers of every pod template, quantities, metadata.

Pod rules iterate :func:`containers` over :func:`trainops.core.kinds.pod_templates`, so a rule is
written once for every place a pod spec nests (workloads, Kubeflow replica specs, JobSet, Trainer
runtimes and overrides, Katib trial templates, KServe components).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Final

from trainops.core.kinds import (
    CONTAINER_FIELDS,
    REPLICA_SPECS_FIELD,
    KindGroup,
    Parts,
    PodSite,
    slot_name,
)
from trainops.core.kinds import POD_KINDS as POD_KINDS  # re-exported: the KINDS of pod-level rules
from trainops.core.kinds import TRAINING_CONTAINER as TRAINING_CONTAINER  # re-exported for the rules
from trainops.core.kinds import pod_templates as _pod_templates
from trainops.core.kueue_tas import dig as dig  # re-exported: ``node[k1][k2]...`` or ``None``
from trainops.core.quantity import QuantityError, parse_quantity

_RUNTIMES: Final = frozenset(
    {("trainer.kubeflow.org", "TrainingRuntime"), ("trainer.kubeflow.org", "ClusterTrainingRuntime")}
)
#: Owners of training pods: training jobs (:data:`trainops.core.kinds.TRAINING_JOBS`) and Trainer runtimes
#: (Katib trial pods are ``templated``).
TRAINING_OWNERS: Final = KindGroup(lambda info: info.training or info.key in _RUNTIMES)


@dataclass(frozen=True)
class Container:
    """One container of a pod spec.

    Args:
        site: the pod spec it belongs to.
        field: ``containers``, ``initContainers`` or ``ephemeralContainers`` (a container of a
            :attr:`~trainops.core.kinds.SpecSite.slots` field, e.g. KServe ``predictor.model``, counts
            as ``containers``).
        index: position in that list (``-1`` for a slot's container).
        spec: the container mapping.
        slot: for a slot's container, its path below the pod spec (e.g. ``("model",)``), else ``None``.
    """

    site: PodSite
    field: str
    index: int
    spec: dict[str, Any]
    slot: Parts | None = None

    @property
    def parts(self) -> Parts:
        """Path of the container."""
        if self.slot is not None:
            return (*self.site.parts, *self.slot)
        return (*self.site.parts, self.field, self.index)

    @property
    def name(self) -> str:
        """The container's name; when missing, a single slot container's field (``trainer``,
        ``model``: :func:`trainops.core.kinds.slot_name`), else ``"?"``."""
        name = self.spec.get("name")
        if isinstance(name, str):
            return name
        return slot_name(self.parts) if self.slot is not None else "?"

    def at(self, *parts: str | int) -> Parts:
        """Path of a field below the container."""
        return (*self.parts, *parts)

    def get(self, *keys: str) -> Any:
        """The value at ``keys`` below the container, ``None`` when absent or not a mapping on the way."""
        return dig(self.spec, *keys)


def is_training(site: PodSite) -> bool:
    """Whether a pod spec belongs to a training (job, runtime or Katib trial)."""
    return site.owner in TRAINING_OWNERS or site.templated


def pod_templates(obj: dict[str, Any]) -> list[PodSite]:
    """Every pod spec of ``obj`` (see :func:`trainops.core.kinds.pod_templates`); do not change the list.

    For the object the engine holds (:func:`hold`) the sites are read once for all its rules.
    """
    if _HELD[0] is obj:
        if _HELD[1] is None:
            _HELD[1] = _pod_templates(obj)
        sites: list[PodSite] = _HELD[1]
        return sites
    return _pod_templates(obj)


#: The object whose single-object rules the engine is running, and its sites once read.
_HELD: list[Any] = [None, None]


def hold(obj: dict[str, Any] | None) -> None:
    """Mark ``obj`` as the object every following :func:`pod_templates` call is about to read
    (its rules do not change it); ``None`` when the engine is done with it."""
    _HELD[0], _HELD[1] = obj, None


def containers(site: PodSite, *, ephemeral: bool = True) -> Iterator[Container]:
    """The containers of a pod spec: init, regular, then ephemeral (unless ``ephemeral=False``),
    then those of its slots (:attr:`trainops.core.kinds.PodSite.extra`, as ``containers``)."""
    for field_name in CONTAINER_FIELDS:
        if field_name == "ephemeralContainers" and not ephemeral:
            continue
        items = site.spec.get(field_name)
        if isinstance(items, list):
            for index, item in enumerate(items):
                if isinstance(item, dict):
                    yield Container(site, field_name, index, item)
    for slot, item in site.extra:
        yield Container(site, "containers", -1, item, slot)


def all_containers(obj: dict[str, Any], *, ephemeral: bool = True) -> Iterator[Container]:
    """:func:`containers` of every pod spec of ``obj``."""
    for site in pod_templates(obj):
        yield from containers(site, ephemeral=ephemeral)


def quantity(value: Any) -> Fraction | None:
    """A quantity's value (cores, bytes, count), or ``None`` when absent, templated or invalid.

    Values written as text are parsed once per process (the same few quantities recur).
    """
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, str):
        if value not in _QUANTITIES:
            if len(_QUANTITIES) >= 4096:
                _QUANTITIES.clear()
            _QUANTITIES[value] = _quantity(value)
        return _QUANTITIES[value]
    return _quantity(value)


#: Parsed quantities by their text.
_QUANTITIES: dict[str, Fraction | None] = {}


def _quantity(value: Any) -> Fraction | None:
    if isinstance(value, str) and "${" in value:
        return None
    try:
        return parse_quantity(value).value
    except (QuantityError, ValueError, TypeError):
        return None


def resource(container: Container, section: str, name: str) -> Fraction | None:
    """``resources.<section>.<name>`` of a container as a number (see :func:`quantity`)."""
    return quantity(container.get("resources", section, name))


def gpu_count(container: Container, gpu_resources: tuple[str, ...]) -> Fraction:
    """GPUs a container asks for: the larger of its limit and request over ``gpu_resources``."""
    total = Fraction(0)
    for name in gpu_resources:
        values = [resource(container, s, name) for s in ("limits", "requests")]
        total += max((v for v in values if v is not None), default=Fraction(0))
    return total


def metadata_of(obj: dict[str, Any]) -> dict[str, Any]:
    """``obj.metadata`` (``{}`` when missing)."""
    value = obj.get("metadata")
    return value if isinstance(value, dict) else {}


def labels_of(obj: dict[str, Any]) -> dict[str, Any]:
    """``metadata.labels`` (``{}`` when missing)."""
    value = metadata_of(obj).get("labels")
    return value if isinstance(value, dict) else {}


def annotations_of(obj: dict[str, Any]) -> dict[str, Any]:
    """``metadata.annotations`` (``{}`` when missing)."""
    value = metadata_of(obj).get("annotations")
    return value if isinstance(value, dict) else {}


def templated(value: Any) -> bool:
    """Whether ``value`` is a Katib ``${trialParameters.X}`` placeholder (checked at trial time)."""
    return isinstance(value, str) and "${" in value


def show(value: Any) -> str:
    """A value for a message: strings quoted, others as YAML would show them."""
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    return str(value)


@dataclass(frozen=True)
class Replica:
    """One replica spec of a Kubeflow v1 job.

    Args:
        type: the replica type, e.g. ``Worker``.
        spec: the replica spec mapping (``replicas``, ``restartPolicy``, ``template``).
        parts: path of the replica spec.
    """

    type: str
    spec: dict[str, Any]
    parts: Parts

    @property
    def replicas(self) -> int:
        """``replicas`` (the operators default an unset count to 1)."""
        value = self.spec.get("replicas", 1)
        return value if isinstance(value, int) and not isinstance(value, bool) else 1

    @property
    def pod(self) -> dict[str, Any]:
        """The pod spec of the template (``{}`` when missing)."""
        spec = dig(self.spec, "template", "spec")
        return spec if isinstance(spec, dict) else {}


def replicas_of(obj: dict[str, Any]) -> list[Replica]:
    """The replica specs of a Kubeflow v1 job (``[]`` for other kinds or a malformed field)."""
    kind = obj.get("kind")
    field_name = REPLICA_SPECS_FIELD.get(kind) if isinstance(kind, str) else None
    specs = dig(obj, "spec", field_name) if field_name else None
    if not isinstance(specs, dict):
        return []
    return [
        Replica(str(name), spec, ("spec", str(field_name), str(name)))
        for name, spec in specs.items()
        if isinstance(spec, dict)
    ]


def main_container(pod: dict[str, Any], kind: str) -> tuple[int, dict[str, Any]] | None:
    """The training container of a replica's pod: the one named as the operator expects, else the first."""
    items = pod.get("containers")
    if not isinstance(items, list):
        return None
    indexed = [(i, c) for i, c in enumerate(items) if isinstance(c, dict)]
    expected = TRAINING_CONTAINER.get(kind)
    for index, container in indexed:
        if container.get("name") == expected:
            return index, container
    return indexed[0] if indexed else None


def tolerates(tolerations: Any, key: str, effect: str, value: str | None) -> bool:
    """Whether ``tolerations`` tolerate a taint (``ToleratesTaint`` of k8s.io/api core/v1
    ``toleration.go``: empty key with Exists tolerates everything; empty effect matches all effects)."""
    for item in tolerations if isinstance(tolerations, list) else []:
        if not isinstance(item, dict):
            continue
        if item.get("effect") not in (None, "", effect):
            continue
        operator = item.get("operator") or "Equal"
        if not item.get("key"):
            if operator == "Exists":
                return True
            continue
        if item.get("key") != key:
            continue
        if operator == "Exists" or (operator == "Equal" and (item.get("value") or "") == (value or "")):
            return True
    return False


def as_list(value: Any) -> list[Any]:
    """``value`` when it is a list, else ``[]`` (rules never raise on values of the wrong type)."""
    return value if isinstance(value, list) else []


def as_dict(value: Any) -> dict[str, Any]:
    """``value`` when it is a mapping, else ``{}``."""
    return value if isinstance(value, dict) else {}


def as_str(value: Any) -> str | None:
    """``value`` when it is a string, else ``None`` (for names used as keys)."""
    return value if isinstance(value, str) else None


def pod_annotations(obj: dict[str, Any], site: PodSite) -> dict[str, Any]:
    """The annotations of a pod spec's pod: a Pod's ``metadata.annotations``, a template's
    ``metadata.annotations`` beside its ``spec``; ``{}`` when none (or the site is no template)."""
    if not site.parts or site.parts[-1] != "spec":
        return {}
    value = dig(obj, *site.parts[:-1], "metadata", "annotations") if site.parts[:-1] else None
    if not site.parts[:-1]:
        value = annotations_of(obj)
    return value if isinstance(value, dict) else {}


def user_namespace(site: PodSite) -> bool:
    """Whether the pod runs in a user namespace (``hostUsers: false``), where Pod Security relaxes
    runAsNonRoot, runAsUser and baseline procMount (pod-security-admission ``relaxPolicyForUserNamespacePod``)."""
    return site.spec.get("hostUsers") is False
