"""Validate YAML documents against the schema registry and report findings.

Per document, in order: YAML problems (syntax, duplicate keys), shape (a mapping with apiVersion
and kind), integers outside int64 (:mod:`trainops.validate.integers`: they end the checks),
apiVersion deprecations and removals, schema lookup (unknown kinds are errors unless downgraded),
then every check family of the document's API group (:func:`trainops.validate.checks.checks_for`:
strict JSON Schema, API-server checks, list-map keys, CEL rules, CRD version deprecation, literal
credentials, and the operators' webhooks of that group). Positions are computed only for documents
with findings.
"""

from __future__ import annotations

import gc
import weakref
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from trainops.core.findings import Finding, Issue, Level, Result
from trainops.core.kinds import group_of
from trainops.core.rules import RuleInfo, register
from trainops.schemas.registry import SchemaRegistry
from trainops.validate.checks import checks_for
from trainops.validate.checks.deprecated_api import api_version_issues
from trainops.validate.checks.schema import RULE as SCHEMA
from trainops.validate.checks.schema import type_name
from trainops.validate.context import DocumentContext, UnknownKinds, ValidateOptions
from trainops.validate.integers import out_of_int64
from trainops.validate.nulls import prune_known_nulls
from trainops.validate.scan import Scan, scan
from trainops.yaml.load import YAML, Document, locate_issues, stream_text
from trainops.yaml.source import read_source
from trainops.yaml.template import template_hint

__all__ = [
    "UnknownKinds",
    "ValidateOptions",
    "relax_gc",
    "validate_document",
    "validate_files",
    "validate_text",
]

UNKNOWN_KIND = register(
    RuleInfo(
        id="unknown-kind",
        level="error",
        summary="The target knows the document's apiVersion and kind: a built-in kind of its "
        "Kubernetes minor, or a CRD of an operator it runs.",
        rationale="The API server answers 404 for a kind it does not serve; an operator the cluster "
        "does not run never acts on its objects.",
        remediation="Use an apiVersion the target serves, install the operator, or pass "
        "--unknown-kinds warning for kinds validated elsewhere.",
        source="https://kubernetes.io/docs/concepts/extend-kubernetes/api-extension/custom-resources/",
    )
)


def validate_files(files: Sequence[str], registry: SchemaRegistry, options: ValidateOptions) -> Result:
    """Validate every document of every file; see the module docstring for the checks.

    A file that cannot be read as YAML text (binary, not UTF-8, a symlink loop or out of the
    repository) is a ``yaml`` finding; the other files are still validated.

    Raises:
        SchemaError: a cached schema is unreadable.
    """
    result = Result()
    for path in files:
        result.files += 1
        source = read_source(path)
        result.extend(source.findings)
        if source.text is not None:
            validate_text(source.text, path, registry, options, result)
    return result


def validate_text(
    text: str,
    path: str,
    registry: SchemaRegistry,
    options: ValidateOptions,
    result: Result,
    *,
    line_offset: int = 0,
    index_offset: int = 0,
) -> None:
    """Validate the documents of ``text`` one at a time, adding findings and counts to ``result``;
    a Helm template gets a hint to render it first (:func:`~trainops.yaml.template.template_hint`)."""
    for item in stream_text(text, path, line_offset=line_offset, index_offset=index_offset):
        if isinstance(item, Finding):
            result.findings.append(item)
        elif item.rejected is not None:
            result.findings.append(item.rejected)
        elif item.data is not None:
            result.documents += 1
            result.extend(validate_guarded(item, registry, options))

    hint = template_hint(text, path, line_offset=line_offset)
    if hint is not None:
        result.findings.append(hint)


def validate_guarded(document: Document, registry: SchemaRegistry, options: ValidateOptions) -> list[Finding]:
    """:func:`validate_document`, with running out of memory (or stack) a finding for the document.

    The memory ceiling is :func:`trainops.yaml.limits.apply_memory_limit`'s.
    """
    try:
        return validate_document(document, registry, options)
    except (MemoryError, RecursionError) as exc:
        what = "memory" if isinstance(exc, MemoryError) else "stack"
        return [
            Finding(
                rule=YAML.id,
                level="error",
                message=f"validating the document exhausted the {what} ceiling of trainops validate; not checked",
                file=document.file,
                line=document.line_offset + 1,
                document=document.index,
                keyword="limit",
            )
        ]


def validate_document(
    document: Document, registry: SchemaRegistry, options: ValidateOptions
) -> list[Finding]:
    """Findings for one document."""
    data = document.data
    raws: list[Issue] = [*document.problems]
    if not isinstance(data, dict):
        raws.append(Issue((), f"document is not a mapping (got {type_name(data)})", YAML.id, None))
        return locate_issues(document, raws, {})
    api_version, kind = data.get("apiVersion"), data.get("kind")
    if api_version is None and kind is None:
        raws.append(Issue((), "not a Kubernetes object: no apiVersion and no kind", SCHEMA.id, "required"))
        return locate_issues(document, raws, data)
    for field_name, value in (("apiVersion", api_version), ("kind", kind)):
        if not isinstance(value, str) or not value:
            raws.append(Issue((field_name,), f"missing or empty {field_name}", SCHEMA.id, "required"))
    if not isinstance(api_version, str) or not isinstance(kind, str) or not api_version or not kind:
        return locate_issues(document, raws, data)
    # the faster path collected the strings and env values while reading (its integers fit int64)
    scanned = scan(data) if document.values is None else Scan(*document.values, huge=False)
    huge = list(out_of_int64(data)) if scanned.huge else []
    if huge:  # the API server cannot read the document; checks would misread the number
        return locate_issues(document, [*raws, *huge], data)
    schema = registry.get(api_version, kind)
    deprecations = _deprecations_on(registry, api_version, kind)
    raws.extend(deprecations)
    if schema is None:
        removed = any(issue.level == "error" for issue in deprecations)
        if options.unknown_kinds != "skip" and not removed:
            level: Level = "error" if options.unknown_kinds == "error" else "warning"
            raws.append(
                Issue(
                    ("kind",),
                    _unknown_kind_message(api_version, kind, registry),
                    UNKNOWN_KIND.id,
                    None,
                    level,
                )
            )
        return locate_issues(document, raws, data)
    if schema.openapi is not None:
        prune_known_nulls(data, schema.openapi)
    context = DocumentContext(data, api_version, kind, schema, registry, options, scanned)
    for check in checks_for(group_of(api_version)):
        context.found.extend(check.run(context))
    raws.extend(context.found)
    return locate_issues(document, raws, data)


#: The registry :func:`_deprecations_on` last saw, and its operators as :func:`_deprecations` keys them.
_LAST_REGISTRY: list[Any] = [None, None]


def _deprecations_on(registry: SchemaRegistry, api_version: str, kind: str) -> tuple[Issue, ...]:
    """:func:`_deprecations` for ``registry``'s target; the operators' key is made once per registry
    (a run validates against one, whose operators do not change), not sorted per document."""
    if _LAST_REGISTRY[0] is not registry:
        operators = tuple(sorted(registry.operators.items())) if registry.operators is not None else None
        _LAST_REGISTRY[:] = [registry, operators]
    return _deprecations(api_version, kind, registry.core.minor, _LAST_REGISTRY[1])


@lru_cache(maxsize=1024)
def _deprecations(
    api_version: str, kind: str, minor: int, operators: tuple[tuple[str, str], ...] | None
) -> tuple[Issue, ...]:
    """:func:`api_version_issues`, memoised: it depends only on its arguments (hot per document)."""
    installed = dict(operators) if operators is not None else None
    return tuple(api_version_issues(api_version, kind, kubernetes_minor=minor, operators=installed))


#: :func:`_unknown_kind_message` per registry, by (apiVersion, kind).
_UNKNOWN_MESSAGES: weakref.WeakKeyDictionary[SchemaRegistry, dict[tuple[str, str], str]] = (
    weakref.WeakKeyDictionary()
)


def _unknown_kind_message(api_version: str, kind: str, registry: SchemaRegistry) -> str:
    """Why ``registry`` has no schema for (``api_version``, ``kind``), memoised per registry: every
    document of a kind the target lacks gets the same answer, and working it out scans the catalog."""
    known = _UNKNOWN_MESSAGES.setdefault(registry, {})
    message = known.get((api_version, kind))
    if message is None:
        message = known[(api_version, kind)] = _explain_unknown_kind(api_version, kind, registry)
    return message


def _explain_unknown_kind(api_version: str, kind: str, registry: SchemaRegistry) -> str:
    missing = registry.not_installed(api_version, kind)
    if missing:
        group = api_version.split("/")[0]
        served = registry.served_versions(kind, group)
        also = f"; the cluster serves {kind} as {', '.join(served)}" if served else ""
        return f"{api_version} {kind} is served by {', '.join(missing)}, which the target cluster does not run{also}"
    hint = "" if registry.has_crds else "; no CRD schemas cached (run `trainops schemas sync`)"
    return f"no schema for {api_version} {kind} on Kubernetes {registry.kubernetes_version}{hint}"


def relax_gc() -> None:
    """Tune the cyclic garbage collector for streaming validation.

    Each document allocates many short-lived, acyclic dicts and lists (freed by reference counting);
    frequent young-generation collections only cost time. Objects alive now (schemas, registry) are
    frozen out of future collections.
    """
    gc.freeze()
    gc.set_threshold(100_000, 50, 100)
