"""The ``json`` format: counts and every finding, machine-readable.

The text is exactly ``json.dumps(payload, indent=2, sort_keys=True)`` plus a line break. The
standard library encodes with ``indent`` in pure Python (its C encoder serves only compact output),
which cost about a tenth of a ``validate --policy`` run on 55,000 findings; findings are flat
mappings of strings, integers and nulls, so :func:`render_json` writes their lines directly with the
C string encoder (``json.encoder.encode_basestring_ascii``) and leaves the rest to ``json.dumps``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from json.encoder import encode_basestring_ascii

from trainops.findings import Finding, Result


def _as_dict(finding: Finding) -> dict[str, object]:
    return {
        "rule": finding.rule,
        "level": finding.level,
        "message": finding.message,
        "file": finding.file,
        "line": finding.line,
        "column": finding.column,
        "document": finding.document,
        "apiVersion": finding.api_version,
        "kind": finding.kind,
        "namespace": finding.namespace,
        "name": finding.name,
        "path": finding.path,
        "keyword": finding.keyword,
        "remediation": finding.remediation,
    }


def _scalar(value: object) -> str:
    """``json.dumps(value)`` for the values findings hold (``None``, strings, integers)."""
    if value is None:
        return "null"
    if type(value) is str:
        return encode_basestring_ascii(value)
    if type(value) is int:
        return int.__repr__(value)
    return json.dumps(value)


def _finding_text(finding: Finding) -> str:
    """One finding as ``json.dumps(..., indent=2, sort_keys=True)`` writes :func:`_as_dict` of it at
    depth 2 (keys in sorted order)."""
    s = _scalar
    return (
        f'    {{\n      "apiVersion": {s(finding.api_version)},\n      "column": {s(finding.column)},\n'
        f'      "document": {s(finding.document)},\n      "file": {s(finding.file)},\n'
        f'      "keyword": {s(finding.keyword)},\n      "kind": {s(finding.kind)},\n'
        f'      "level": {s(finding.level)},\n      "line": {s(finding.line)},\n'
        f'      "message": {s(finding.message)},\n      "name": {s(finding.name)},\n'
        f'      "namespace": {s(finding.namespace)},\n      "path": {s(finding.path)},\n'
        f'      "remediation": {s(finding.remediation)},\n      "rule": {s(finding.rule)}\n    }}'
    )


def render_json(result: Result) -> str:
    """Machine-readable report: counts and every finding (``json.dumps`` with ``indent=2`` and sorted
    keys, then a line break; see the module docstring)."""
    return "".join(iter_json(result))


def iter_json(result: Result) -> Iterator[str]:
    """:func:`render_json`'s text in pieces, one per finding, so that a report of many findings is
    written without holding all of its text in memory (:func:`trainops.report.write_report`)."""
    payload: dict[str, object] = {
        "files": result.files,
        "documents": result.documents,
        "errors": result.count("error"),
        "warnings": result.count("warning"),
        "findings": [],
    }
    if result.target is not None:
        payload["target"] = dict(result.target)
    head = json.dumps(payload, indent=2, sort_keys=True)
    findings = result.sorted()
    if not findings:
        yield head + "\n"
        return
    # keys are sorted: the top-level "findings" is written before "target", the only other mapping
    before, marker, after = head.partition('"findings": []')
    assert marker, "the findings placeholder is always written"
    yield f'{before}"findings": [\n'
    for index, finding in enumerate(findings):
        yield (",\n" if index else "") + _finding_text(finding)
    yield f"\n  ]{after}\n"
