"""Validate YAML documents against the schema registry and report findings.

Per document, in order: YAML problems (syntax, duplicate keys), shape (a mapping with apiVersion
and kind), schema lookup (unknown kinds are errors unless downgraded), strict JSON Schema
validation, CRD version deprecation. Positions are computed only for documents with findings.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import re
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any, Literal

from trainops.errors import UsageError
from trainops.findings import Finding, Level, Result, json_path, parse_json_path
from trainops.schemas.registry import KindSchema, SchemaRegistry
from trainops.validate.deprecations import api_version_issues
from trainops.validate.fastload import silence_stderr
from trainops.validate.issues import Issue
from trainops.validate.loader import Document, read_text, stream_text
from trainops.validate.semantic import semantic_issues

UnknownKinds = Literal["error", "warning", "skip"]

_JSON_TYPES = {dict: "object", list: "array", str: "string", bool: "boolean", int: "integer", float: "number"}


@dataclass(frozen=True)
class ValidateOptions:
    """Options of one validation run.

    Args:
        unknown_kinds: what a kind with no schema is: ``error`` (default), ``warning`` or ``skip``.
        max_messages: cap on schema findings per document (the rest are summarised). Default: 50.
    """

    unknown_kinds: UnknownKinds = "error"
    max_messages: int = 50


def validate_files(files: Sequence[str], registry: SchemaRegistry, options: ValidateOptions) -> Result:
    """Validate every document of every file; see the module docstring for the checks.

    Raises:
        UsageError: a file cannot be read.
        SchemaError: a cached schema is unreadable.
    """
    result = Result()
    for path in files:
        result.files += 1
        validate_text(read_text(path), path, registry, options, result)
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
    """Validate the documents of ``text`` one at a time, adding findings and counts to ``result``."""
    for item in stream_text(text, path, line_offset=line_offset, index_offset=index_offset):
        if isinstance(item, Finding):
            result.findings.append(item)
        elif item.data is not None:
            result.documents += 1
            result.extend(validate_document(item, registry, options))


def validate_document(
    document: Document, registry: SchemaRegistry, options: ValidateOptions
) -> list[Finding]:
    """Findings for one document."""
    data = document.data
    raws: list[Issue] = [*document.problems]
    if not isinstance(data, dict):
        raws.append(Issue((), f"document is not a mapping (got {_type_name(data)})", "yaml", None))
        return _locate(document, raws, {})
    api_version, kind = data.get("apiVersion"), data.get("kind")
    if api_version is None and kind is None:
        raws.append(Issue((), "not a Kubernetes object: no apiVersion and no kind", "schema", "required"))
        return _locate(document, raws, data)
    for field_name, value in (("apiVersion", api_version), ("kind", kind)):
        if not isinstance(value, str) or not value:
            raws.append(Issue((field_name,), f"missing or empty {field_name}", "schema", "required"))
    if not isinstance(api_version, str) or not isinstance(kind, str) or not api_version or not kind:
        return _locate(document, raws, data)
    schema = registry.get(api_version, kind)
    operators = tuple(sorted(registry.operators.items())) if registry.operators is not None else None
    deprecations = _deprecations(api_version, kind, registry.core.minor, operators)
    raws.extend(deprecations)
    if schema is None:
        removed = any(issue.level == "error" for issue in deprecations)
        if options.unknown_kinds != "skip" and not removed:
            level: Level = "error" if options.unknown_kinds == "error" else "warning"
            raws.append(
                Issue(
                    ("kind",), _unknown_kind_message(api_version, kind, registry), "unknown-kind", None, level
                )
            )
        return _locate(document, raws, data)
    if schema.openapi is not None:
        _prune_nulls(data)
    schema_issues = _schema_errors(schema, data, options.max_messages)
    raws.extend(schema_issues)
    at_fault = {issue.parts for issue in schema_issues}
    semantic = [
        issue
        for issue in semantic_issues(data, api_version, kind, namespaced=schema.namespaced)
        if issue.parts not in at_fault
    ]
    raws.extend(semantic)
    list_maps = schema.list_maps
    if list_maps is not None:
        raws.extend(
            _list_map_issues(list_maps.issues(data), builtin=schema.openapi is None, covered=semantic)
        )
    cel = schema.cel
    if cel is not None:
        raws.extend(Issue(parse_json_path(v.path), v.message, "cel", v.rule) for v in cel.validate(data))
    if schema.deprecated:
        warning = schema.deprecation_warning or f"{api_version} {kind} is deprecated"
        raws.append(Issue(("apiVersion",), warning, "deprecated-api", None, "warning"))
    return _locate(document, raws, data)


@lru_cache(maxsize=1024)
def _deprecations(
    api_version: str, kind: str, minor: int, operators: tuple[tuple[str, str], ...] | None
) -> tuple[Issue, ...]:
    """:func:`api_version_issues`, memoised: it depends only on its arguments (hot per document)."""
    installed = dict(operators) if operators is not None else None
    return tuple(api_version_issues(api_version, kind, kubernetes_minor=minor, operators=installed))


def _list_map_issues(issues: list[Issue], *, builtin: bool, covered: list[Issue]) -> list[Issue]:
    """Duplicate list-map keys: errors for custom resources, warnings for built-in kinds.

    apiextensions-apiserver rejects duplicates in ``x-kubernetes-list-type: map`` lists of custom
    resources. For built-in kinds create/update only warns (duplicate env names, ports); server-side
    apply rejects them (kubernetes/kubernetes#113482). Duplicates the API server's own validation
    rejects (container and volume names) are already reported by the semantic checks.
    """
    if not builtin:
        return issues
    out = []
    for issue in issues:
        if any(other.parts[: len(issue.parts)] == issue.parts for other in covered):
            continue
        message = f"{issue.message}; the API server warns, server-side apply rejects it"
        out.append(replace(issue, level="warning", message=message))
    return out


def _prune_nulls(value: Any) -> None:
    """Drop ``null`` object fields in place, as the API server does for custom resources.

    apiextensions-apiserver prunes null values of fields that are not ``nullable`` before
    defaulting and validation ("Defaulting and Nullable", Kubernetes CRD docs), so ``command: ~``
    means "no command". Nullable fields are rare; dropping their nulls too loses no check.
    """
    if isinstance(value, dict):
        for key in [k for k, v in value.items() if v is None]:
            del value[key]
        for item in value.values():
            _prune_nulls(item)
    elif isinstance(value, list):
        for item in value:
            _prune_nulls(item)


def _schema_errors(schema: KindSchema, data: dict[str, Any], limit: int) -> list[Issue]:
    raws: list[Issue] = []
    for error in schema.validator.iter_errors(data):
        raws.extend(_explain(error, data))
        if len(raws) >= limit:
            raws.append(
                Issue((), f"more than {limit} schema errors; showing the first {limit}", "schema", None)
            )
            break
    return raws


def _explain(error: Any, data: dict[str, Any]) -> Iterable[Issue]:
    parts = tuple(error.instance_path)
    kind = error.kind
    name = type(kind).__name__
    if name == "AdditionalProperties":
        for field_name in kind.unexpected:
            yield Issue(
                (*parts, field_name), f'unknown field "{field_name}"', "schema", "additionalProperties"
            )
        return
    if name == "Required":
        yield Issue(parts, f'missing required field "{kind.property}"', "schema", "required")
        return
    if name == "Type":
        expected = [t for t in _types(kind) if t != "null"]
        value = _value_at(data, parts)
        yield Issue(
            parts,
            f"expected {' or '.join(expected)}, got {_type_name(value)} {_short(value)}".rstrip(),
            "schema",
            "type",
        )
        return
    keyword = str(error.schema_path[-1]) if error.schema_path else None
    yield Issue(parts, str(error.message), "schema", keyword)


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


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    return _JSON_TYPES.get(type(value), type(value).__name__)


def _short(value: Any, limit: int = 60) -> str:
    if value is None:
        return ""
    text = repr(value) if isinstance(value, str) else str(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _unknown_kind_message(api_version: str, kind: str, registry: SchemaRegistry) -> str:
    missing = registry.not_installed(api_version, kind)
    if missing:
        group = api_version.split("/")[0]
        served = registry.served_versions(kind, group)
        also = f"; the cluster serves {kind} as {', '.join(served)}" if served else ""
        return f"{api_version} {kind} is served by {', '.join(missing)}, which the target cluster does not run{also}"
    hint = "" if registry.has_crds else "; no CRD schemas cached (run `trainops schemas sync`)"
    return f"no schema for {api_version} {kind} on Kubernetes {registry.kubernetes_version}{hint}"


def _locate(document: Document, raws: list[Issue], data: Any) -> list[Finding]:
    if not raws:
        return []
    raws = list(dict.fromkeys(raws))  # the same error reached through several schema branches
    metadata = data.get("metadata") if isinstance(data, dict) else None
    metadata = metadata if isinstance(metadata, dict) else {}
    api_version = data.get("apiVersion") if isinstance(data, dict) else None
    kind = data.get("kind") if isinstance(data, dict) else None
    name = metadata.get("name") or metadata.get("generateName")
    namespace = metadata.get("namespace")
    findings = []
    for raw in raws:
        line, column = document.locate(raw.parts)
        findings.append(
            Finding(
                rule=raw.rule,
                level=raw.level,
                message=raw.message,
                file=document.file,
                line=line,
                column=column,
                document=document.index,
                api_version=api_version if isinstance(api_version, str) else None,
                kind=kind if isinstance(kind, str) else None,
                namespace=namespace if isinstance(namespace, str) else None,
                name=name if isinstance(name, str) else None,
                path=json_path(raw.parts),
                keyword=raw.keyword,
            )
        )
    return findings


# --- parallel validation of large inputs ------------------------------------------------------

#: Files larger than this (bytes) are split at document boundaries into chunks of about this size;
#: smaller files are whole units (the parent then reads nothing before the workers start).
CHUNK_BYTES = 4 << 20
_DOC_START = re.compile(rb"^---(?:[ \t\r]|$)", re.MULTILINE)


@dataclass(frozen=True)
class Unit:
    """A piece of work: the bytes of ``path`` from ``start`` to ``end``.

    ``line_offset`` is the number of lines before ``start``; ``chunk`` orders the units of a file.
    """

    path: str
    chunk: int
    start: int
    end: int
    line_offset: int


def plan_units(path: str, data: bytes, chunk_bytes: int = CHUNK_BYTES) -> list[Unit]:
    """Split ``data`` into units at ``---`` lines, each at least ``chunk_bytes`` long (but the last).

    A line starting with ``---`` at column 0 always starts a YAML document (the spec forbids
    document markers inside scalars and flow collections), so chunks parse on their own.
    """
    if len(data) <= chunk_bytes:
        return [Unit(path, 0, 0, len(data), 0)]
    units: list[Unit] = []
    start = 0
    lines_before = 0
    for match in _DOC_START.finditer(data, chunk_bytes):
        cut = match.start()
        if cut - start < chunk_bytes:
            continue
        units.append(Unit(path, len(units), start, cut, lines_before))
        lines_before += data.count(b"\n", start, cut)
        start = cut
    units.append(Unit(path, len(units), start, len(data), lines_before))
    return units


_WORKER: tuple[SchemaRegistry, ValidateOptions] | None = None


def relax_gc() -> None:
    """Tune the cyclic garbage collector for streaming validation.

    Each document allocates many short-lived, acyclic dicts and lists (freed by reference counting);
    frequent young-generation collections only cost time. Objects alive now (schemas, registry) are
    frozen out of future collections.
    """
    gc.freeze()
    gc.set_threshold(100_000, 50, 100)


def _init_worker() -> None:
    silence_stderr()
    relax_gc()


@dataclass
class _UnitResult:
    unit: Unit
    findings: list[Finding]
    documents: int
    nodes: int
    stopped: bool
    usage_error: str | None


def _run_unit(unit: Unit) -> _UnitResult:
    assert _WORKER is not None
    registry, options = _WORKER
    with open(unit.path, "rb") as handle:
        handle.seek(unit.start)
        data = handle.read(unit.end - unit.start)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        reason = f"{unit.path}: not UTF-8 text ({exc.reason} at byte {unit.start + exc.start})"
        return _UnitResult(unit, [], 0, 0, True, reason)
    result = Result()
    nodes = 0
    stopped = False
    for item in stream_text(text, unit.path, line_offset=unit.line_offset):
        if isinstance(item, Finding):
            result.findings.append(item)
            stopped = True
            continue
        nodes += 1
        if item.data is not None:
            result.documents += 1
            result.extend(validate_document(item, registry, options))
    return _UnitResult(unit, result.findings, result.documents, nodes, stopped, None)


def validate_parallel(
    files: Sequence[str],
    registry: SchemaRegistry,
    options: ValidateOptions,
    *,
    workers: int,
    progress: Callable[[int, int], None] | None = None,
) -> Result:
    """Validate ``files`` across ``workers`` forked processes; same findings as :func:`validate_files`.

    Large files are split into chunks at document boundaries; document indices are renumbered and
    a YAML error stops its file exactly as in a serial run.

    Args:
        progress: called as ``progress(done_units, total_units)`` after each unit.
    """
    global _WORKER
    units: list[Unit] = []
    for path in files:
        try:
            size = os.path.getsize(path)
            if size <= CHUNK_BYTES:
                units.append(Unit(path, 0, 0, size, 0))
                continue
            with open(path, "rb") as handle:
                units.extend(plan_units(path, handle.read(), CHUNK_BYTES))
        except OSError as exc:
            raise UsageError(f"{path}: {exc.strerror}") from None
    _WORKER = (registry, options)
    results: list[_UnitResult] = []
    try:
        context = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=_init_worker) as pool:
            for done, unit_result in enumerate(pool.map(_run_unit, units, chunksize=1), start=1):
                results.append(unit_result)
                if progress:
                    progress(done, len(units))
    finally:
        _WORKER = None
    total = Result(files=len(files))
    by_file: dict[str, list[_UnitResult]] = {}
    for unit_result in results:
        if unit_result.usage_error is not None:
            raise UsageError(unit_result.usage_error)
        by_file.setdefault(unit_result.unit.path, []).append(unit_result)
    for path in files:
        offset = 0
        for unit_result in sorted(by_file.get(path, []), key=lambda r: r.unit.chunk):
            total.documents += unit_result.documents
            total.findings.extend(
                replace(f, document=(f.document or 0) + offset) if offset else f for f in unit_result.findings
            )
            offset += unit_result.nodes
            if unit_result.stopped:
                break
    return total
