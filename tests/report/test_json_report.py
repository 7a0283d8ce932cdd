"""The json reporter writes exactly what ``json.dumps(payload, indent=2, sort_keys=True)`` writes,
though it encodes findings itself (report/json_report.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from trainops.core.findings import Finding, Result
from trainops.report.json_report import _as_dict, render_json

EXAMPLES = Path(__file__).resolve().parents[3] / "shared" / "examples"

_text = st.text(st.characters(codec="utf-8"), max_size=12)  # controls, quotes, backslashes, non-ASCII
_maybe_text = st.none() | _text
_maybe_int = st.none() | st.integers(min_value=-(2**63), max_value=2**63)

_findings = st.builds(
    Finding,
    rule=_text,
    level=st.sampled_from(["error", "warning", "info"]),
    message=_text,
    file=_text,
    line=_maybe_int,
    column=_maybe_int,
    document=_maybe_int,
    api_version=_maybe_text,
    kind=_maybe_text,
    namespace=_maybe_text,
    name=_maybe_text,
    path=_text,
    keyword=_maybe_text,
    remediation=_maybe_text,
)
_targets = st.none() | st.dictionaries(
    st.sampled_from(["kubernetes", "operators", "findings", "cluster"]),
    st.none() | _text | st.lists(_text, max_size=3) | st.integers(),
    max_size=4,
)


def _reference(result: Result) -> str:
    """The reporter's contract: the standard library's indented, key-sorted text."""
    payload: dict[str, object] = {
        "files": result.files,
        "documents": result.documents,
        "errors": result.count("error"),
        "warnings": result.count("warning"),
        "findings": [_as_dict(f) for f in result.sorted()],
    }
    if result.target is not None:
        payload["target"] = dict(result.target)
    return json.dumps(payload, indent=2, sort_keys=True) + "\n"


@settings(max_examples=300, deadline=None)
@given(
    findings=st.lists(_findings, max_size=5),
    files=st.integers(min_value=0, max_value=10**6),
    target=_targets,
)
def test_same_text_as_json_dumps(
    findings: list[Finding], files: int, target: dict[str, object] | None
) -> None:
    result = Result(findings=findings, files=files, documents=files)
    result.target = target
    assert render_json(result) == _reference(result)


def test_same_text_on_real_findings(cli: Any) -> None:
    """Every finding the validator and the policy pack report on the upstream Kubeflow examples."""
    run = cli(
        "validate", "--policy", "-o", "json", str(EXAMPLES / "training-operator"), str(EXAMPLES / "kserve")
    )
    payload = json.loads(run.out)
    assert len(payload["findings"]) > 50
    assert run.out == json.dumps(payload, indent=2, sort_keys=True) + "\n"
