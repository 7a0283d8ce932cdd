"""Null handling of custom resources, as apiextensions-apiserver does it under strict field validation.

The API server decodes a custom resource strictly first (``fieldValidation=Strict``: every field the
structural schema does not know is an error, *whatever its value*, ``null`` included), and only then
prunes ``null`` values of the fields it knows that are not ``nullable`` (``structuraldefaulting.
PruneNonNullableNullsWithoutDefaults``, apiextensions-apiserver ``pkg/apiserver/schema/defaulting``;
Kubernetes docs "Defaulting and Nullable"). So ``command: ~`` means "no command", while an unknown
``template.metadata.creationTimestamp: null`` is rejected (``strict decoding error: unknown field
"spec.….creationTimestamp"``, checked against kube-apiserver v1.36 in tests/validate/test_api_server_parity.py).

:func:`prune_known_nulls` drops the nulls the server would prune and keeps unknown ones, so the
strict schema check reports them as unknown fields. Known nullable fields are pruned as well: their
null is valid either way, and dropping it loses no check.
"""

from __future__ import annotations

from typing import Any, Final

#: ``metadata`` fields of an object (``ObjectMeta``, k8s.io/apimachinery ``pkg/apis/meta/v1/types.go``);
#: the root ``metadata`` and that of ``x-kubernetes-embedded-resource`` objects are ObjectMeta.
OBJECT_META_FIELDS: Final = frozenset(
    {
        "name",
        "generateName",
        "namespace",
        "selfLink",
        "uid",
        "resourceVersion",
        "generation",
        "creationTimestamp",
        "deletionTimestamp",
        "deletionGracePeriodSeconds",
        "labels",
        "annotations",
        "ownerReferences",
        "finalizers",
        "managedFields",
    }
)
_OBJECT_META: Final[dict[str, Any]] = {"properties": dict.fromkeys(OBJECT_META_FIELDS)}
_EMBEDDED: Final = ("apiVersion", "kind", "metadata")
#: A schema node below which every field is known (``x-kubernetes-preserve-unknown-fields`` or a
#: field of ObjectMeta): all nulls are pruned.
_ANY: Final[dict[str, Any]] = {"x-kubernetes-preserve-unknown-fields": True}
_UNKNOWN: Final = object()


def prune_known_nulls(data: dict[str, Any], openapi: dict[str, Any]) -> None:
    """Drop in place the ``null`` values of fields the CRD schema knows; keep unknown fields.

    Args:
        data: the custom resource (a mapping from YAML); modified in place.
        openapi: the CRD version's raw ``openAPIV3Schema`` (``properties``, ``items``,
            ``additionalProperties``, ``x-kubernetes-preserve-unknown-fields``,
            ``x-kubernetes-embedded-resource``). The root's ``apiVersion``, ``kind`` and
            ``metadata`` (ObjectMeta) are always known.
    """
    if not _has_null(data):  # most documents: one flat pass, no holders to record
        return
    holders = _null_holders(data)
    if holders:
        _prune(data, openapi, holders, root=True)


def _has_null(data: Any) -> bool:
    """Whether some mapping value or list item of ``data`` (at any depth) is ``None``; iterative."""
    containers: list[Any] = [data] if isinstance(data, dict | list) else []
    for node in containers:  # grows while it is read: each collection is visited once
        for item in node.values() if isinstance(node, dict) else node:
            if item is None:
                return True
            if isinstance(item, _CONTAINERS):
                containers.append(item)
    return False


_CONTAINERS: Final = (dict, list)


def _null_holders(data: Any) -> set[int]:
    """The ``id()`` of every mapping and list of ``data`` that holds a ``None`` (directly or further
    down): :func:`_prune` descends only into those (a branch without a null has nothing to prune)."""
    holders: set[int] = set()

    def holds(value: Any) -> bool:
        found = False
        items = value.values() if isinstance(value, dict) else value
        for item in items:
            if item is None or (isinstance(item, dict | list) and holds(item)):
                found = True
        if found:
            holders.add(id(value))
        return found

    if isinstance(data, dict | list):
        holds(data)
    return holders


def _prune(value: Any, node: dict[str, Any], holders: set[int], *, root: bool = False) -> None:
    if isinstance(value, dict):
        doomed: list[str] = []
        for key, item in value.items():
            if item is not None and id(item) not in holders:
                continue  # nothing to prune below (and a known or unknown scalar stays)
            child = _child(node, key, root)
            if child is _UNKNOWN:
                continue  # the schema check reports it, null or not
            if item is None:
                doomed.append(key)
            else:
                _prune(item, child, holders)
        for key in doomed:
            del value[key]
    elif isinstance(value, list):
        items = node.get("items")
        child = items if isinstance(items, dict) else _ANY
        for item in value:
            if item is not None and id(item) in holders:
                _prune(item, child, holders)


def _child(node: dict[str, Any], key: Any, root: bool) -> Any:
    """The schema node of field ``key`` of an object with schema ``node``, or ``_UNKNOWN``."""
    if node is _ANY or node is None:
        return _ANY
    properties = node.get("properties")
    if isinstance(properties, dict) and key in properties:
        child = properties[key]
        if (root or node.get("x-kubernetes-embedded-resource")) and key == "metadata":
            return _OBJECT_META
        return child if isinstance(child, dict) else _ANY
    if (root or node.get("x-kubernetes-embedded-resource")) and key in _EMBEDDED:
        return _OBJECT_META if key == "metadata" else _ANY
    additional = node.get("additionalProperties")
    if isinstance(additional, dict):
        return additional
    if additional is True or node.get("x-kubernetes-preserve-unknown-fields"):
        return _ANY
    return _UNKNOWN
