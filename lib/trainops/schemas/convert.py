"""Convert a CRD version's ``openAPIV3Schema`` into strict JSON Schema (draft 2020-12).

Structural-schema semantics of the API server (apiextensions-apiserver; Kubernetes docs
"Extend the Kubernetes API with CustomResourceDefinitions", sections *Specifying a structural
schema*, *Field pruning* and *Validation*):

* unknown fields are errors (kubectl's default ``--validate=strict``) except below a node with
  ``x-kubernetes-preserve-unknown-fields: true``: objects get ``additionalProperties: false``
  unless they declare ``additionalProperties`` or preserve unknown fields;
* ``x-kubernetes-int-or-string`` accepts an integer or a string;
* ``nullable: true`` also accepts ``null``;
* ``x-kubernetes-embedded-resource`` objects carry apiVersion, kind and ObjectMeta, checked inside;
* ``x-kubernetes-list-type: set`` items are unique (``map`` keys are checked by the engine);
* a ``required`` property whose schema declares a ``default`` is not required: the API server
  applies structural defaults when it decodes the object, before validation, so a missing
  defaulted field is filled in (apiextensions-apiserver ``pkg/apiserver/schema/defaulting``,
  ``Default``), e.g. LeaderWorkerSet v0.10.0's ``rolloutStrategy.type`` (default ``RollingUpdate``);
* OpenAPI v3.0 boolean ``exclusiveMinimum``/``exclusiveMaximum`` become draft 2020-12 numbers;
* ``format: int32``/``int64`` become range checks (the API server rejects out-of-range values);
* value-validation sub-schemas (``allOf``/``anyOf``/``oneOf``/``not``) never add
  ``additionalProperties: false`` (they only restrict values the outer schema declares);
* with a ``scale`` subresource, the integer at ``specReplicasPath`` must be in 0…2147483647 whatever
  the schema says (apiextensions-apiserver ``pkg/registry/customresource/validator.go``,
  ``customResourceValidator.ValidateScaleSpec``: "should be a non-negative integer"), e.g. an
  Alertmanager's ``spec.replicas`` (``format: int32`` with no ``minimum`` in its CRD).

The root ``metadata`` becomes a ``$ref`` to the core ObjectMeta definition, which the registry
supplies from the target Kubernetes version's schemas.
"""

from __future__ import annotations

from typing import Any

OBJECT_META_DEF = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
OBJECT_META_REF = f"#/$defs/{OBJECT_META_DEF}"
DRAFT = "https://json-schema.org/draft/2020-12/schema"

INT32 = (-(2**31), 2**31 - 1)
INT64 = (-(2**63), 2**63 - 1)

_COPY = (
    "enum",
    "pattern",
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "minProperties",
    "maxProperties",
    "multipleOf",
    "uniqueItems",
    "required",
    "format",
)


def convert_crd_schema(
    schema: dict[str, Any],
    *,
    group: str,
    version: str,
    kind: str,
    spec_replicas_path: str | None = None,
) -> dict[str, Any]:
    """Convert one CRD version's ``openAPIV3Schema`` for ``group/version`` ``kind``.

    Args:
        schema: the raw ``spec.versions[].schema.openAPIV3Schema`` mapping.
        group: API group, e.g. ``kubeflow.org``.
        version: API version, e.g. ``v1``.
        kind: the CRD's ``spec.names.kind``.
        spec_replicas_path: the version's ``subresources.scale.specReplicasPath`` (e.g.
            ``.spec.replicas``), if it has a scale subresource: the value there must be a
            non-negative int32 (:func:`scale_replicas_schema`). Default: none.

    Returns:
        A JSON Schema with ``$ref`` to ``#/$defs/<ObjectMeta>`` that the registry resolves.
    """
    out = _convert(schema, value_only=False)
    props = out.setdefault("properties", {})
    props["apiVersion"] = {"type": "string", "enum": [f"{group}/{version}"]}
    props["kind"] = {"type": "string", "enum": [kind]}
    props["metadata"] = {"$ref": OBJECT_META_REF}
    if "x-kubernetes-preserve-unknown-fields" not in schema:
        out["additionalProperties"] = False
    out["type"] = "object"
    out["$schema"] = DRAFT
    if spec_replicas_path:
        out["allOf"] = [*out.get("allOf", []), scale_replicas_schema(spec_replicas_path)]
    return out


def scale_replicas_schema(spec_replicas_path: str) -> dict[str, Any]:
    """A value-only schema bounding the integer at ``spec_replicas_path`` (dot-separated from the
    object root, a leading ``.`` ignored, as ``ValidateScaleSpec`` splits it) to 0…2147483647.

    It constrains nothing when the field is absent or not a number (the API server's
    ``unstructured.NestedInt64`` finds nothing there; a wrong type is the schema's own finding).
    """
    node: dict[str, Any] = {"minimum": 0, "maximum": INT32[1]}
    for name in reversed(spec_replicas_path.removeprefix(".").split(".")):
        node = {"properties": {name: node}}
    return node


def _undefaulted(required: list[Any], properties: Any) -> list[Any]:
    """The names of ``required`` whose property schema has no ``default`` (structural defaulting
    fills the others in before the API server validates; defaults of value-only sub-schemas are
    never applied, so only a node's own ``properties`` count)."""
    if not isinstance(properties, dict):
        return required
    return [
        name
        for name in required
        if not (isinstance(properties.get(name), dict) and "default" in properties[name])
    ]


def _convert(node: dict[str, Any], *, value_only: bool) -> dict[str, Any]:
    out: dict[str, Any] = {}
    preserve = bool(node.get("x-kubernetes-preserve-unknown-fields"))
    nullable = bool(node.get("nullable"))
    node_type = node.get("type")
    int_or_string = bool(node.get("x-kubernetes-int-or-string"))
    if int_or_string:
        out["type"] = ["integer", "string", "null"] if nullable else ["integer", "string"]
    elif node_type:
        out["type"] = [node_type, "null"] if nullable else node_type
    for key in _COPY:
        if key in node:
            out[key] = node[key]
    if "required" in out and not value_only:
        out["required"] = _undefaulted(out["required"], node.get("properties"))
        if not out["required"]:
            del out["required"]
    if nullable and "enum" in out and None not in out["enum"]:
        out["enum"] = [*out["enum"], None]
    _bounds(node, out)
    fmt = node.get("format")
    if node_type == "integer" and fmt in ("int32", "int64"):
        low, high = INT32 if fmt == "int32" else INT64
        out["minimum"] = max(out.get("minimum", low), low)
        out["maximum"] = min(out.get("maximum", high), high)
    if "properties" in node:
        out["properties"] = {
            name: _convert(child, value_only=value_only) for name, child in node["properties"].items()
        }
    if "items" in node and isinstance(node["items"], dict):
        out["items"] = _convert(node["items"], value_only=value_only)
    additional = node.get("additionalProperties")
    if isinstance(additional, dict):
        out["additionalProperties"] = _convert(additional, value_only=value_only)
    elif isinstance(additional, bool):
        out["additionalProperties"] = additional
    for combinator in ("allOf", "anyOf", "oneOf"):
        # controller-gen repeats int-or-string as anyOf [integer, string]: already a type union.
        if combinator in node and not (int_or_string and combinator == "anyOf"):
            out[combinator] = [_convert(child, value_only=True) for child in node[combinator]]
    if "not" in node:
        out["not"] = _convert(node["not"], value_only=True)
    if node.get("x-kubernetes-embedded-resource"):
        props = out.setdefault("properties", {})
        props.setdefault("apiVersion", {"type": "string", "minLength": 1})
        props.setdefault("kind", {"type": "string", "minLength": 1})
        props["metadata"] = {"$ref": OBJECT_META_REF}
        out["required"] = sorted({*out.get("required", []), "apiVersion", "kind"})
    if node.get("x-kubernetes-list-type") == "set":
        out["uniqueItems"] = True
    is_object = node_type == "object" or "properties" in node
    if is_object and not value_only and not preserve and "additionalProperties" not in out:
        out["additionalProperties"] = False
    return out


def _bounds(node: dict[str, Any], out: dict[str, Any]) -> None:
    for bound, exclusive in (("minimum", "exclusiveMinimum"), ("maximum", "exclusiveMaximum")):
        if bound not in node:
            continue
        if node.get(exclusive) is True:
            out[exclusive] = node[bound]
        else:
            out[bound] = node[bound]
