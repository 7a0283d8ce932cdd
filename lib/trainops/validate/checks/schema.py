"""Strict JSON Schema validation of a document against its kind's schema (rule ``schema``).

Built-in kinds use kubernetes-validate's strict per-minor schemas, custom resources their CRD's
``openAPIV3Schema`` converted with the API server's structural semantics (``trainops.schemas``).
Unknown fields are errors unless the schema preserves unknown fields.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Iterable, Sequence
from typing import Any

import jsonschema_rs

from trainops.core.findings import Issue
from trainops.core.naming import quoted, shortened
from trainops.core.rules import RuleInfo, register
from trainops.schemas.registry import KindSchema
from trainops.validate.context import Check, DocumentContext

RULE = register(
    RuleInfo(
        id="schema",
        level="error",
        summary="The document matches its kind's OpenAPI schema strictly: types, required fields, "
        "enums, formats, ranges, and no unknown fields.",
        rationale="The API server rejects such a document on apply (strict field validation), "
        "or silently drops unknown fields, so what is in git is not what runs.",
        remediation="Fix the field named in the message to the type and value the schema allows.",
        source="https://kubernetes.io/docs/reference/using-api/api-concepts/#field-validation",
    )
)

_JSON_TYPES = {dict: "object", list: "array", str: "string", bool: "boolean", int: "integer", float: "number"}


def _is_base64(value: str) -> bool:
    """OpenAPI ``format: byte``: padded standard base64, as Go's ``base64.StdEncoding`` decodes
    ``[]byte`` JSON fields (Secret ``data``); line breaks are ignored, as Go ignores them."""
    value = value.replace("\r", "").replace("\n", "")
    if len(value) % 4:
        return False
    try:
        base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        return False
    return True


#: Formats the API server checks that jsonschema-rs does not know (date-time it checks itself).
FORMATS = {"byte": _is_base64}


def validator_for(schema: KindSchema) -> Any:
    """The schema's compiled jsonschema-rs validator (Draft 2020-12, formats checked), built on first
    use and cached with the schema."""
    validator = schema.extras.get(RULE.id)
    if validator is None:
        validator = jsonschema_rs.Draft202012Validator(schema.schema, validate_formats=True, formats=FORMATS)
        schema.extras[RULE.id] = validator
    return validator


def check(context: DocumentContext) -> list[Issue]:
    """Schema errors of the document, at most ``options.max_messages`` (then one summary issue).

    ``is_valid`` answers first: it stops at the first error and builds no error objects (about a third
    of the cost of ``iter_errors`` on a valid manifest), and most documents are valid."""
    validator = validator_for(context.schema)
    if validator.is_valid(context.data):
        return []
    issues: list[Issue] = []
    limit = context.options.max_messages
    for error in validator.iter_errors(context.data):
        issues.extend(_explain(error, context.data))
        if len(issues) >= limit:
            issues.append(
                Issue((), f"more than {limit} schema errors; showing the first {limit}", RULE.id, None)
            )
            break
    return issues


CHECK = Check(RULE, check)


def _explain(error: Any, data: dict[str, Any]) -> Iterable[Issue]:
    parts = tuple(error.instance_path)
    kind = error.kind
    name = type(kind).__name__
    if name == "AdditionalProperties":
        for field_name in kind.unexpected:
            yield Issue(
                (*parts, field_name), f"unknown field {quoted(field_name)}", RULE.id, "additionalProperties"
            )
        return
    if name == "Required":
        yield Issue(parts, f'missing required field "{kind.property}"', RULE.id, "required")
        return
    if name == "Type":
        expected = [t for t in _types(kind) if t != "null"]
        value = _value_at(data, parts)
        yield Issue(
            parts,
            f"expected {' or '.join(expected)}, got {type_name(value)} {_short(value)}".rstrip(),
            RULE.id,
            "type",
        )
        return
    keyword = str(error.schema_path[-1]) if error.schema_path else None
    yield Issue(parts, str(error.message), RULE.id, keyword)


def _types(kind: Any) -> list[str]:
    types = getattr(kind, "types", None)
    if types is None:
        return []
    return [str(t) for t in (types if isinstance(types, list | tuple) else [types])]


def _value_at(data: Any, parts: Sequence[str | int]) -> Any:
    for part in parts:
        try:
            data = data[part]
        except (KeyError, IndexError, TypeError):
            return None
    return data


def type_name(value: Any) -> str:
    """The JSON type name of a loaded YAML value: ``object``, ``array``, ``string``, ``null`` ..."""
    if value is None:
        return "null"
    return _JSON_TYPES.get(type(value), type(value).__name__)


def _short(value: Any, limit: int = 60) -> str:
    if value is None:
        return ""
    return shortened(repr(value) if isinstance(value, str) else str(value), limit)
