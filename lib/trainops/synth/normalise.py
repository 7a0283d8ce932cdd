"""Normalise rendered objects: standard labels, a spec-hash annotation, canonical quantities and a
stable key order, so the same input gives byte-identical output (DESIGN.md decision 5)."""

from __future__ import annotations

from typing import Any

from trainops.app import AppDef
from trainops.hashing import content_hash
from trainops.kinds import CLUSTER_SCOPED, group_kind
from trainops.quantity import QuantityError, canonical_quantity

SPEC_HASH_ANNOTATION = "trainops.dev/spec-hash"
TEAM_LABEL = "trainops.dev/team"
MANAGED_BY = "trainops"

# Keys that come first, in this order; every other key follows in sorted order.
_KEY_PRIORITY: dict[str, int] = {
    key: index
    for index, key in enumerate(
        [
            "apiVersion",
            "kind",
            "metadata",
            "name",
            "namespace",
            "generateName",
            "labels",
            "annotations",
            "spec",
            "data",
            "stringData",
            "type",
            "image",
        ]
    )
}
_QUANTITY_MAPS = frozenset({"limits", "requests"})


def normalise(obj: dict[str, Any], app_def: AppDef) -> dict[str, Any]:
    """Return ``obj`` with standard labels, spec hash, canonical quantities and stable key order.

    Labels added when absent: ``app.kubernetes.io/name`` (the app name), ``part-of``,
    ``version``, ``managed-by: trainops`` and ``trainops.dev/team``. The annotation
    ``trainops.dev/spec-hash`` is the sha256 (16 hex digits) of everything but ``metadata``
    and ``status``. Cluster-scoped kinds (:data:`trainops.kinds.CLUSTER_SCOPED`) lose the
    ``metadata.namespace`` a cdk8s Chart gives every object.

    Raises:
        ValueError: a resources quantity that does not parse, naming its path.
    """
    obj = _canonical_quantities(obj, "$")
    metadata = dict(obj.get("metadata") or {})
    if group_kind(obj) in CLUSTER_SCOPED:
        metadata.pop("namespace", None)
    labels = dict(metadata.get("labels") or {})
    labels.setdefault("app.kubernetes.io/name", app_def.name)
    labels.setdefault("app.kubernetes.io/part-of", app_def.name)
    labels.setdefault("app.kubernetes.io/version", app_def.version)
    labels.setdefault("app.kubernetes.io/managed-by", MANAGED_BY)
    labels.setdefault(TEAM_LABEL, app_def.team)
    metadata["labels"] = labels
    body = {k: v for k, v in obj.items() if k not in ("metadata", "status")}
    annotations = dict(metadata.get("annotations") or {})
    annotations[SPEC_HASH_ANNOTATION] = content_hash(body, 16)
    metadata["annotations"] = annotations
    obj = {**obj, "metadata": metadata}
    ordered: dict[str, Any] = _ordered(obj)
    return ordered


def file_name(obj: dict[str, Any]) -> str:
    """``<kind>_<name>.yaml`` with the kind lower-cased, e.g. ``pytorchjob_bert-3f2a1b.yaml``."""
    return f"{str(obj['kind']).lower()}_{obj['metadata']['name']}.yaml"


def _ordered(value: Any) -> Any:
    if isinstance(value, dict):
        keys = sorted(value, key=lambda k: (_KEY_PRIORITY.get(k, len(_KEY_PRIORITY)), k))
        return {k: _ordered(value[k]) for k in keys}
    if isinstance(value, list):
        return [_ordered(v) for v in value]
    return value


def _canonical_quantities(value: Any, path: str) -> Any:
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            child = f"{path}.{key}"
            if key in _QUANTITY_MAPS and isinstance(item, dict) and path.endswith("resources"):
                out[key] = {name: _quantity(q, f"{child}.{name}") for name, q in item.items()}
            elif key == "sizeLimit" and isinstance(item, str | int | float):
                out[key] = _quantity(item, child)
            else:
                out[key] = _canonical_quantities(item, child)
        return out
    if isinstance(value, list):
        return [_canonical_quantities(v, f"{path}[{i}]") for i, v in enumerate(value)]
    return value


def _quantity(raw: Any, path: str) -> str:
    try:
        return canonical_quantity(raw)
    except QuantityError as exc:
        raise ValueError(f"{path}: {exc}") from None
