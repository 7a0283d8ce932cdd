"""JSON Schema checks of the policy config and facts files, with one-line messages.

The schemas are built in code (:func:`trainops.policy.config.config_schema`,
:data:`trainops.policy.facts.FACTS_SCHEMA`) and written for editors to ``lib/trainops/schemas/local/``
(STYLE.md habit 9; tests fail when they are stale); the messages follow yamllint's
(``yamllint/config.py``: ``unknown option "x" for rule "y"``), so a typo in a config is named exactly.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from trainops.core.errors import UsageError

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError


class ConfigError(UsageError):
    """A policy config or facts file that does not match its schema (exit 2)."""


def check_schema(data: Any, schema: dict[str, Any], source: str) -> None:
    """Check ``data`` against ``schema``; the first problem (in document order) is raised.

    Raises:
        ConfigError: ``<source>: <message>``, e.g. ``policies/config.yaml: unknown rule "no-privilege"``.
    """
    import jsonschema  # imported when a config is read: keeps `trainops validate` start-up lean
    from jsonschema.exceptions import best_match

    validator = jsonschema.Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(data), key=lambda e: [str(p) for p in e.absolute_path])
    if errors:
        error = best_match(errors)
        raise ConfigError(f"{source}: {message(error)}")


def message(error: ValidationError) -> str:
    """A one-line message for a schema error, naming the rule and option when the path has them."""
    path = list(error.absolute_path)
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        known = set(error.schema.get("properties", {}))
        extra = sorted(k for k in error.instance if k not in known)
        name = extra[0] if extra else "?"
        if path == ["rules"]:
            return f'unknown rule "{name}"'
        if len(path) == 2 and path[0] == "rules":
            return f'unknown option "{name}" for rule "{path[1]}"'
        where = f' in "{_dotted(path)}"' if path else ""
        return f'unknown key "{name}"{where}'
    got = json.dumps(error.instance, sort_keys=True)
    expected = _expected(error)
    if len(path) >= 3 and path[0] == "rules":
        return f'invalid value for option "{_dotted(path[2:])}" of rule "{path[1]}": expected {expected}, got {got}'
    if len(path) == 2 and path[0] == "rules":
        return (
            f'invalid value for rule "{path[1]}": expected enable, disable or a mapping of options, got {got}'
        )
    where = _dotted(path) or "the file"
    return f'invalid value for "{where}": expected {expected}, got {got}'


def _expected(error: ValidationError) -> str:
    schema = error.schema if isinstance(error.schema, dict) else {}
    if error.validator == "enum":
        return "one of " + ", ".join(str(v) for v in error.validator_value)
    if error.validator == "type":
        return _type_text(schema)
    if error.validator in ("minimum", "maximum", "minItems", "pattern", "required", "const"):
        return f"{error.validator} {json.dumps(error.validator_value)}"
    if error.validator in ("anyOf", "oneOf"):
        return " or ".join(_type_text(s) for s in error.validator_value if isinstance(s, dict))
    return str(error.message)


def _type_text(schema: dict[str, Any]) -> str:
    if "enum" in schema:
        return "one of " + ", ".join(str(v) for v in schema["enum"])
    kind = schema.get("type", "value")
    kinds: Sequence[str] = kind if isinstance(kind, list) else [kind]
    if "array" in kinds and isinstance(schema.get("items"), dict):
        return f"a list of {_type_text(schema['items'])}"
    names = {"object": "a mapping", "array": "a list", "string": "a string", "integer": "an integer"}
    return " or ".join(names.get(k, f"a {k}") for k in kinds)


def _dotted(path: Sequence[Any]) -> str:
    return ".".join(str(p) for p in path)
