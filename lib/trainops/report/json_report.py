"""The ``json`` format: counts and every finding, machine-readable."""

from __future__ import annotations

import json

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


def render_json(result: Result) -> str:
    """Machine-readable report: counts and every finding."""
    payload = {
        "files": result.files,
        "documents": result.documents,
        "errors": result.count("error"),
        "warnings": result.count("warning"),
        "findings": [_as_dict(f) for f in result.sorted()],
    }
    if result.target is not None:
        payload["target"] = dict(result.target)
    return json.dumps(payload, indent=2, sort_keys=True) + "\n"
