"""Normalise rendered objects: standard labels, a spec-hash annotation, canonical quantities and a
stable key order, so the same input gives byte-identical output (DESIGN.md decision 5)."""

from __future__ import annotations

import re
from typing import Any

from trainops.app import AppDef
from trainops.hashing import content_hash
from trainops.kinds import CLUSTER_SCOPED, RUN_ONCE, group_kind
from trainops.naming import PATH_SEGMENT
from trainops.quantity import QuantityError, canonical_quantity

SPEC_HASH_ANNOTATION = "trainops.dev/spec-hash"
TEAM_LABEL = "trainops.dev/team"
#: Label of a run-once object (``kinds.RUN_ONCE``) naming the base name every run of it shares, so
#: ``lock.json`` and ``trainops diff`` see ``<base>-<hash6>`` as a new run of ``<base>``.
RUN_OF_LABEL = "trainops.dev/run-of"
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
_RUN_ONCE_NAME = re.compile(r"(.+)-[0-9a-f]{6}")


def normalise(obj: dict[str, Any], app_def: AppDef) -> dict[str, Any]:
    """Return ``obj`` with standard labels, spec hash, canonical quantities and stable key order.

    Labels added when absent: ``app.kubernetes.io/name`` (the app name), ``part-of``,
    ``version``, ``managed-by: trainops``, ``trainops.dev/team`` and, on run-once objects named
    ``<base>-<hash6>``, ``trainops.dev/run-of: <base>``. The annotation
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
    base = run_of(obj)
    if base is not None:
        labels.setdefault(RUN_OF_LABEL, base)
    metadata["labels"] = labels
    body = {k: v for k, v in obj.items() if k not in ("metadata", "status")}
    annotations = dict(metadata.get("annotations") or {})
    annotations[SPEC_HASH_ANNOTATION] = content_hash(body, 16)
    metadata["annotations"] = annotations
    obj = {**obj, "metadata": metadata}
    ordered: dict[str, Any] = _ordered(obj)
    return ordered


def run_of(obj: dict[str, Any]) -> str | None:
    """The base name of a run-once object named ``<base>-<hash6>``
    (:func:`trainops.constructs._core.base.run_once_name`), or ``None`` for other objects."""
    if group_kind(obj) not in RUN_ONCE:
        return None
    match = _RUN_ONCE_NAME.fullmatch(str((obj.get("metadata") or {}).get("name", "")))
    return match.group(1) if match else None


def file_name(obj: dict[str, Any]) -> str:
    """``<kind>_<name>.yaml`` with the kind lower-cased, e.g. ``pytorchjob_bert-3f2a1b.yaml``: one
    plain file in its app's directory, never a nested or hidden path.

    Raises:
        ValueError: the kind is not an identifier (``[A-Za-z][A-Za-z0-9]*``), or ``metadata.name``
            is not a string the API server takes as an object name in a URL path segment (it
            contains ``/`` or ``%``, or is ``.``/``..``; upstream
            ``k8s.io/apimachinery/pkg/api/validation/path.IsValidPathSegmentName``: every object
            name must pass it), is empty, or holds a control character.
    """
    kind = obj.get("kind")
    name = (obj.get("metadata") or {}).get("name")
    if not isinstance(kind, str) or _KIND.fullmatch(kind) is None:
        raise ValueError(f"kind {kind!r} is not a Kubernetes kind (an identifier such as PyTorchJob)")
    if not isinstance(name, str) or not name:
        raise ValueError(f"{kind} without a metadata.name")
    problem = PATH_SEGMENT.problem(name)
    if problem is None and any(ord(c) < 0x20 or c == "\x7f" for c in name):
        problem = "may not contain control characters"
    if problem is not None:
        raise ValueError(f"{kind} metadata.name {name!r} {problem}: it is no object name and no file name")
    return f"{kind.lower()}_{name}.yaml"


#: What a kind looks like (an exported Go type name); also keeps file names flat and visible.
_KIND = re.compile(r"[A-Za-z][A-Za-z0-9]*")


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
