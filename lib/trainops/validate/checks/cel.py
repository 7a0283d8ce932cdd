"""CRD validation rules (``x-kubernetes-validations``) evaluated offline (rule ``cel``).

The rules are compiled once per schema with :class:`trainops.cel.crd_rules.CelValidator` (cel-expr-python
plus the Kubernetes CEL libraries) and cached with the schema. Transition rules (``oldSelf``) need
the stored object and are skipped.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, cast

from trainops.core.findings import Issue, parse_json_path
from trainops.core.rules import RuleInfo, register
from trainops.schemas.registry import KindSchema
from trainops.validate.context import Check, DocumentContext

if TYPE_CHECKING:
    from trainops.cel.crd_rules import CelValidator

RULE = register(
    RuleInfo(
        id="cel",
        level="error",
        summary="The CRD's x-kubernetes-validations (CEL) rules hold for the document.",
        rationale="The API server evaluates these rules on create and update and rejects the object "
        "with the rule's message when one fails.",
        remediation="Change the object so the rule quoted in the message holds.",
        source="https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definitions/#validation-rules",
    )
)


def validator_for(schema: KindSchema) -> CelValidator | None:
    """The schema's compiled CEL rules, built once and cached with the schema; ``None`` for built-in
    kinds and CRD versions without rules to evaluate (known from the schema cache's census without
    compiling, when it has one)."""
    if schema.openapi is None or schema.cel_rules_to_evaluate is False:
        return None  # built-in kinds; CRD versions whose census has nothing to evaluate
    cached = schema.extras.get(RULE.id)
    if cached is None:
        from trainops.cel.crd_rules import CelValidator  # cel-expr-python: imported only for CRDs

        built = CelValidator.for_schema(schema.openapi)
        cached = schema.extras[RULE.id] = built if built.has_rules else False
    return cast("CelValidator | None", cached or None)


def check(context: DocumentContext) -> list[Issue]:
    """One issue per failed rule, at the rule's field path, with its message."""
    validator = validator_for(context.schema)
    if validator is None:
        return []
    return [
        Issue(parse_json_path(v.path), v.message, RULE.id, v.rule) for v in validator.validate(context.data)
    ]


CHECK = Check(RULE, check)


def census(openapi: dict[str, Any]) -> dict[str, int]:
    """Counts of a CRD version's CEL rules: ``rules`` (total), ``evaluated``, ``skipped`` (transition
    rules), ``errors`` (failed to compile); the census ``trainops schemas sync`` records."""
    if "x-kubernetes-validations" not in json.dumps(openapi):
        return {"rules": 0, "evaluated": 0, "skipped": 0, "errors": 0}
    from trainops.cel.crd_rules import CelValidator

    counts = CelValidator.for_schema(openapi).census
    return {
        "rules": counts.total,
        "evaluated": counts.evaluated,
        "skipped": counts.skipped_transition,
        "errors": counts.errors,
    }
