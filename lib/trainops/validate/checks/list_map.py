"""Duplicate keys in ``x-kubernetes-list-type: map`` lists.

A list declared ``x-kubernetes-list-type: map`` is a map keyed by the item fields named in
``x-kubernetes-list-map-keys`` (containers by ``name``, container ports by
``containerPort`` + ``protocol``, ClusterQueue flavors by ``name``, ...). Two items with the same
key values are rejected:

* for custom resources by the API server's structural-schema validation
  (``Duplicate value: map[string]interface {}{"name":"web"}``), see "Extend the Kubernetes API
  with CustomResourceDefinitions", section *Validation* / ``x-kubernetes-list-type``:
  https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definitions/;
* for built-in kinds by server-side apply (``duplicate entries for key [containerPort=8080,
  protocol="TCP"]``), which Argo CD uses with ``ServerSideApply=true``; plain create/update
  rejects duplicate container/volume names and only warns on duplicate env names and ports
  (kubernetes/kubernetes#113482): https://kubernetes.io/docs/reference/using-api/server-side-apply/

Key fields are compared after defaulting, as the API server decodes (and defaults) an object
before it validates it: a missing key with a schema ``default`` counts as that default. The
built-in OpenAPI that kubernetes-validate ships omits the ``+default="TCP"`` of
``ContainerPort.protocol`` and ``ServicePort.protocol`` (``k8s.io/api/core/v1/types.go``), so
those defaults are supplied here (:data:`CORE_KEY_DEFAULTS`). An item missing a *required* key
with no default is left to schema validation (``required``); a missing optional key without a
default compares as absent.

PASS::

    containers:
    - {name: web, ports: [{containerPort: 80}, {containerPort: 80, protocol: UDP}]}

FAIL::

    containers:
    - {name: web}
    - {name: web}   # duplicate entry for key name="web" ...; first at index 0

Remediation: rename or merge the duplicate item; for ports that differ only by ``hostPort``,
expose the port once (server-side apply keys ports by ``containerPort`` and ``protocol``).

``x-kubernetes-list-type: set`` is not checked here: sets of scalars are ``uniqueItems`` in the
converted schemas, and sets of objects are rare (none in the catalogued CRDs).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple

from trainops.core.findings import Issue
from trainops.core.rules import RuleInfo, register
from trainops.schemas.registry import KindSchema
from trainops.validate.context import Check, DocumentContext

RULE = register(
    RuleInfo(
        id="list-map",
        level="error",
        summary="Items of x-kubernetes-list-type: map lists have unique keys (env names, ports, "
        "conditions ...).",
        rationale="apiextensions-apiserver rejects duplicate keys in custom resources; for built-in "
        "kinds the API server only warns but server-side apply (Argo CD ServerSideApply) rejects them.",
        remediation="Remove or rename the duplicate list item so each key appears once.",
        source="https://github.com/kubernetes/kubernetes/issues/113482",
    )
)
KEYWORD = "x-kubernetes-list-map-keys"

#: Defaults of list-map key fields that the built-in OpenAPI does not carry, by definition name.
CORE_KEY_DEFAULTS: dict[str, dict[str, Any]] = {
    "io.k8s.api.core.v1.ContainerPort": {"protocol": "TCP"},
    "io.k8s.api.core.v1.ServicePort": {"protocol": "TCP"},
}

#: Deepest schema nesting followed (``$ref`` cycles such as JSONSchemaProps are cut by
#: memoisation; this bounds pathological nesting well below Python's recursion limit).
MAX_DEPTH = 200

#: ``MapKeys.defaults`` entry of a key without a default.
NO_DEFAULT: Any = object()
_MISSING = object()
_REF_PREFIXES = ("#/$defs/", "#/definitions/")
#: Keywords through which a schema can be or lead to a map list; a schema with none of them (a
#: string, a number, a free-form object) gets no node.
_NESTING = frozenset(
    {
        "properties",
        "items",
        "additionalProperties",
        "$ref",
        "allOf",
        "anyOf",
        "oneOf",
        "x-kubernetes-list-type",
    }
)


class MapKeys(NamedTuple):
    """The key of one map list.

    Args:
        names: the ``x-kubernetes-list-map-keys``, in order.
        defaults: per key, its default value, or :data:`NO_DEFAULT`.
        required: per key, whether the item schema requires it.
    """

    names: tuple[str, ...]
    defaults: tuple[Any, ...]
    required: tuple[bool, ...]


@dataclass(eq=False)
class _Node:
    """What to check at one schema node; only nodes leading to a map list survive pruning."""

    props: dict[str, list[_Node]] = field(default_factory=dict)
    items: list[_Node] = field(default_factory=list)
    additional: list[_Node] = field(default_factory=list)
    map_keys: MapKeys | None = None

    def children(self) -> Iterable[_Node]:
        for nodes in self.props.values():
            yield from nodes
        yield from self.items
        yield from self.additional


class _Builder:
    """Turns a schema into a graph of :class:`_Node`, one per distinct schema mapping. Schemas are
    JSON data (``json.loads`` of kubernetes-validate's files, CRDs read from YAML): their mappings are
    ``dict`` s, tested as such (a ``Mapping`` test is a slow ABC check per node)."""

    def __init__(self, defs: dict[str, Any]) -> None:
        self.defs = defs
        self.memo: dict[int, _Node] = {}
        self.keep: list[Any] = []  # schema mappings whose id() is memoised stay alive

    def node(self, schema: dict[str, Any], depth: int = 0) -> _Node:
        if depth > MAX_DEPTH:
            return _Node()
        key = id(schema)
        found = self.memo.get(key)
        if found is not None:
            return found
        node = _Node()
        self.memo[key] = node
        self.keep.append(schema)
        for facet, _ in self._facets(schema):
            self._fill(node, facet, depth)
        return node

    def _facets(self, schema: dict[str, Any]) -> list[tuple[dict[str, Any], str | None]]:
        """``schema`` and what it includes by ``$ref``/``allOf``/``anyOf``/``oneOf``, with ref names."""
        out: list[tuple[dict[str, Any], str | None]] = []
        stack: list[tuple[dict[str, Any], str | None]] = [(schema, None)]
        seen: set[int] = set()
        while stack:
            current, name = stack.pop()
            if id(current) in seen:
                continue
            seen.add(id(current))
            out.append((current, name))
            ref = current.get("$ref")
            if isinstance(ref, str):
                target_name = _ref_name(ref)
                target = self.defs.get(target_name) if target_name else None
                if isinstance(target, dict):
                    stack.append((target, target_name))
            for combinator in ("allOf", "anyOf", "oneOf"):
                members = current.get(combinator)
                if isinstance(members, list):
                    stack.extend((m, None) for m in members if isinstance(m, dict))
        return out

    def _fill(self, node: _Node, facet: dict[str, Any], depth: int) -> None:
        props = facet.get("properties")
        if isinstance(props, dict):
            for name, sub in props.items():
                if isinstance(sub, dict) and not sub.keys().isdisjoint(_NESTING):
                    node.props.setdefault(str(name), []).append(self.node(sub, depth + 1))
        items = facet.get("items")
        if isinstance(items, dict) and not items.keys().isdisjoint(_NESTING):
            node.items.append(self.node(items, depth + 1))
        additional = facet.get("additionalProperties")
        if isinstance(additional, dict) and not additional.keys().isdisjoint(_NESTING):
            node.additional.append(self.node(additional, depth + 1))
        keys = facet.get(KEYWORD)
        if (
            facet.get("x-kubernetes-list-type") == "map"
            and isinstance(keys, list)
            and keys
            and all(isinstance(k, str) for k in keys)
            and node.map_keys is None
        ):
            item_schema = items if isinstance(items, dict) else {}
            node.map_keys = self._map_keys(tuple(keys), item_schema)

    def _map_keys(self, names: tuple[str, ...], item: dict[str, Any]) -> MapKeys:
        defaults: dict[str, Any] = {}
        required: set[str] = set()
        for facet, ref_name in self._facets(item):
            for key, value in CORE_KEY_DEFAULTS.get(ref_name or "", {}).items():
                defaults.setdefault(key, value)
            props = facet.get("properties")
            if isinstance(props, dict):
                for key in names:
                    prop = props.get(key)
                    if isinstance(prop, dict) and "default" in prop:
                        defaults.setdefault(key, prop["default"])
            req = facet.get("required")
            if isinstance(req, list):
                required.update(str(r) for r in req)
        return MapKeys(
            names=names,
            defaults=tuple(defaults.get(k, NO_DEFAULT) for k in names),
            required=tuple(k in required for k in names),
        )


class ListMapChecker:
    """Finds duplicate keys in the map lists of one kind's documents.

    Build it once per schema with :meth:`from_schema`; :meth:`issues` then walks only the
    paths of the document that can lead to a map list.
    """

    def __init__(self, root: _Node | None) -> None:
        self._root = root

    @classmethod
    def from_schema(cls, schema: dict[str, Any], defs: Mapping[str, Any] | None = None) -> ListMapChecker:
        """Precompute where map lists occur in ``schema``.

        Args:
            schema: a CRD version's raw ``openAPIV3Schema`` (inline ``properties``/``items``), a
                kubernetes-validate kind schema (``$ref: /api/_definitions.json#/$defs/<name>``)
                or a bundle carrying its own ``$defs``.
            defs: definitions that ``$ref`` names resolve against (the ``$defs`` of
                kubernetes-validate's ``_definitions.json``); merged over ``schema``'s own
                ``$defs``/``definitions``.
        """
        all_defs: dict[str, Any] = {}
        for own in ("definitions", "$defs"):
            value = schema.get(own)
            if isinstance(value, dict):
                all_defs.update(value)
        if defs is not None:
            all_defs.update(defs)
        builder = _Builder(all_defs)
        root = builder.node(schema)
        return cls(_prune(root, builder.memo.values()))

    @property
    def empty(self) -> bool:
        """Whether the schema has no map lists at all (then :meth:`issues` is always ``[]``)."""
        return self._root is None

    def issues(self, obj: dict[str, Any]) -> list[Issue]:
        """``list-map`` errors for duplicate map-list keys in ``obj``, at the duplicate item."""
        if self._root is None:
            return []
        out: list[Issue] = []
        _walk(self._root, obj, [], out)
        return out


def _ref_name(ref: str) -> str | None:
    for prefix in _REF_PREFIXES:
        at = ref.find(prefix)
        if at >= 0:
            return ref[at + len(prefix) :]
    return None


def _prune(root: _Node, nodes: Iterable[_Node]) -> _Node | None:
    """Drop every branch that cannot reach a map list; ``None`` when the root cannot."""
    all_nodes = list(nodes)
    parents: dict[int, list[_Node]] = {}
    for node in all_nodes:
        for child in node.children():
            parents.setdefault(id(child), []).append(node)
    useful: set[int] = set()
    stack = [node for node in all_nodes if node.map_keys is not None]
    while stack:
        node = stack.pop()
        if id(node) in useful:
            continue
        useful.add(id(node))
        stack.extend(parents.get(id(node), ()))
    if id(root) not in useful:
        return None
    for node in all_nodes:
        if id(node) not in useful:
            continue
        node.props = {
            name: kept
            for name, group in node.props.items()
            if (kept := [c for c in group if id(c) in useful])
        }
        node.items = [c for c in node.items if id(c) in useful]
        node.additional = [c for c in node.additional if id(c) in useful]
    return root


def _walk(node: _Node, value: Any, path: list[str | int], out: list[Issue]) -> None:
    if isinstance(value, dict):
        for name, children in node.props.items():
            child = value.get(name)
            if child is None:
                continue
            path.append(name)
            for sub in children:
                _walk(sub, child, path, out)
            path.pop()
        if node.additional:
            for name, child in value.items():
                if name in node.props or child is None:
                    continue
                path.append(name)
                for sub in node.additional:
                    _walk(sub, child, path, out)
                path.pop()
    elif isinstance(value, list):
        if node.map_keys is not None and len(value) > 1:
            _duplicates(node.map_keys, value, path, out)
        if node.items:
            for index, item in enumerate(value):
                path.append(index)
                for sub in node.items:
                    _walk(sub, item, path, out)
                path.pop()


def _duplicates(keys: MapKeys, items: list[Any], path: list[str | int], out: list[Issue]) -> None:
    if _distinct(keys, items):
        return
    first: dict[tuple[Any, ...], int] = {}
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            continue
        values: list[Any] = []
        defaulted: list[bool] = []
        for name, default, required in zip(keys.names, keys.defaults, keys.required, strict=True):
            value = item.get(name, _MISSING)
            if value is _MISSING and default is not NO_DEFAULT:
                value, was_defaulted = default, True
            else:
                was_defaulted = False
            if value is _MISSING and required:
                break  # schema validation reports the missing key
            values.append(value)
            defaulted.append(was_defaulted)
        else:
            token = tuple(_token(v) for v in values)
            if token in first:
                out.append(
                    Issue(
                        (*path, index),
                        _message(keys, values, defaulted, first[token]),
                        RULE.id,
                        KEYWORD,
                    )
                )
            else:
                first[token] = index


def _distinct(keys: MapKeys, items: list[Any]) -> bool:
    """Whether every mapping of ``items`` has key values that are strings or integers (after
    defaulting), all different: then :func:`_duplicates` finds nothing (its fast pre-test).

    For strings and integers other than ``bool``, equal values are exactly equal :func:`_token`s;
    anything else (a missing key, ``null``, floats, bools, objects) answers ``False``, and the
    duplicates are then looked for item by item."""
    seen: set[Any] = set()
    names = keys.names
    if len(names) == 1:
        name = names[0]
        for item in items:
            if isinstance(item, dict):
                value = item.get(name)
                if type(value) is not str or value in seen:
                    return False
                seen.add(value)
        return True
    for item in items:
        if isinstance(item, dict):
            values = tuple(
                item.get(name, default) for name, default in zip(names, keys.defaults, strict=True)
            )
            for value in values:
                if type(value) is not str and type(value) is not int:
                    return False
            if values in seen:
                return False
            seen.add(values)
    return True


def _token(value: Any) -> tuple[str, Any]:
    """A hashable, type-aware form of a key value (``1``, ``1.0``, ``True`` and ``"1"`` differ
    where JSON differs)."""
    if value is _MISSING:
        return ("missing", None)
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, int | float):
        return ("number", value)
    if isinstance(value, str):
        return ("string", value)
    return ("json", json.dumps(value, sort_keys=True, default=str))


def _message(keys: MapKeys, values: list[Any], defaulted: list[bool], first: int) -> str:
    parts = []
    for name, value, was_defaulted in zip(keys.names, values, defaulted, strict=True):
        shown = "<absent>" if value is _MISSING else json.dumps(value, default=str)
        parts.append(f"{name}={shown}" + (" (default)" if was_defaulted else ""))
    return (
        f"duplicate entry for key {', '.join(parts)} "
        f"({KEYWORD} [{', '.join(keys.names)}]); first at index {first}"
    )


def checker_for(schema: KindSchema) -> ListMapChecker | None:
    """The schema's :class:`ListMapChecker`, built once and cached with the schema; ``None`` when the
    kind has no map lists. CRDs use the raw ``openAPIV3Schema`` (the converted schema drops
    ``x-kubernetes-list-*``); built-in kinds use the bundle, whose definitions keep them."""
    cached = schema.extras.get(RULE.id)
    if cached is None:
        built = ListMapChecker.from_schema(schema.openapi if schema.openapi is not None else schema.schema)
        cached = schema.extras[RULE.id] = False if built.empty else built
    return cached if isinstance(cached, ListMapChecker) else None


def check(context: DocumentContext) -> list[Issue]:
    """Duplicate list-map keys: errors for custom resources, warnings for built-in kinds.

    apiextensions-apiserver rejects duplicates in ``x-kubernetes-list-type: map`` lists of custom
    resources. For built-in kinds create/update only warns (duplicate env names, ports); server-side
    apply rejects them (kubernetes/kubernetes#113482). Duplicates the API server's own validation
    rejects (container and volume names) are already reported by the ``api-server`` family.
    """
    checker = checker_for(context.schema)
    if checker is None:
        return []
    issues = checker.issues(context.data)
    if context.schema.openapi is not None:
        return issues
    covered = context.found_by("api-server")
    out = []
    for issue in issues:
        if any(other.parts[: len(issue.parts)] == issue.parts for other in covered):
            continue
        message = f"{issue.message}; the API server warns, server-side apply rejects it"
        out.append(replace(issue, level="warning", message=message))
    return out


CHECK = Check(RULE, check)
