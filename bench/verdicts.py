"""Per-document verdicts from each tool's output, compared with the corpus's expected verdicts.

* **trainops** (``--format json``): a document is invalid when at least one ``error`` finding names
  its file and document index. Every finding's line is checked, and whether one finding points at
  the line where the corpus broke the document.
* **kubernetes-validate** (CLI): it prints one line per non-empty document, in order —
  ``INFO <file> passed ...``, ``ERROR <file> did not validate ...: <path>: <message>``,
  ``WARN <file> Couldn't find schema ...`` (not checked) or ``ERROR <file> could not be validated``.
  It names no document index, so the n-th line for a file is the file's n-th document (the
  corpus has no empty documents).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from bench.corpus import Expected

Verdict = Literal["valid", "invalid", "unchecked"]
DocKey = tuple[str, int]


@dataclass
class ToolOutput:
    """What one tool said about the documents it saw.

    Args:
        verdicts: (file relative to the corpus, document index) → verdict.
        finding_lines: per document, the lines of its error findings (trainops only).
        findings: number of findings (every level).
        findings_with_line: of those, how many carry a line number.
        unattributed: findings naming no document of the corpus (a file-level error, a parse problem).
        versions: Kubernetes versions the tool says it validated against.
    """

    verdicts: dict[DocKey, Verdict] = field(default_factory=dict)
    finding_lines: dict[DocKey, list[int]] = field(default_factory=dict)
    findings: int = 0
    findings_with_line: int = 0
    unattributed: int = 0
    versions: Counter[str] = field(default_factory=Counter)


def _relative(file: str, corpus: Path, cwd: Path) -> str:
    path = Path(file)
    path = path if path.is_absolute() else cwd / path
    return path.resolve().relative_to(corpus.resolve()).as_posix()


def parse_trainops(text: str, corpus: Path, cwd: Path, documents: Iterable[Expected]) -> ToolOutput:
    """Verdicts from ``trainops validate --format json`` run on (part of) ``corpus`` from ``cwd``.

    ``documents`` are the ones the run covered; those without error findings are valid.
    """
    report: dict[str, Any] = json.loads(text)
    out = ToolOutput()
    for record in documents:
        out.verdicts[(record.file, record.document)] = "valid"
    for finding in report["findings"]:
        out.findings += 1
        if finding.get("line") is not None:
            out.findings_with_line += 1
        document = finding.get("document")
        key: DocKey = (_relative(finding["file"], corpus, cwd), document if isinstance(document, int) else -1)
        if key not in out.verdicts:
            out.unattributed += 1
            continue
        if finding["level"] == "error":
            out.verdicts[key] = "invalid"
            if finding.get("line") is not None:
                out.finding_lines.setdefault(key, []).append(int(finding["line"]))
    return out


_KV_LINE = re.compile(
    r"^(?:(?P<info>INFO) (?P<f1>.+?) passed for resource \S+ against version (?P<v1>\S+)"
    r"|(?P<error>ERROR) (?P<f2>.+?) did not validate for resource \S+ against version (?P<v2>[^:\s]+):"
    r"|(?P<broken>ERROR) (?P<f3>.+?) could not be validated:"
    r"|(?P<warn>WARN) (?P<f4>.+?) Couldn't find schema)"
)


def parse_kubernetes_validate(
    text: str, corpus: Path, cwd: Path, documents: Sequence[Expected]
) -> ToolOutput:
    """Verdicts from ``kubernetes-validate`` output; documents it printed nothing for stay unchecked."""
    out = ToolOutput()
    order: dict[str, list[int]] = {}
    for record in documents:
        out.verdicts[(record.file, record.document)] = "unchecked"
        order.setdefault(record.file, []).append(record.document)
    seen: Counter[str] = Counter()
    for line in text.splitlines():
        match = _KV_LINE.match(line)
        if match is None:
            continue  # a continuation of a multi-line message
        file = next(match.group(g) for g in ("f1", "f2", "f3", "f4") if match.group(g))
        rel = _relative(file, corpus, cwd)
        position = seen[rel]
        seen[rel] += 1
        if position >= len(order.get(rel, [])):
            out.unattributed += 1
            continue
        key = (rel, order[rel][position])
        version = match.group("v1") or match.group("v2")
        if version:
            out.versions[version] += 1
        if match.group("info"):
            out.verdicts[key] = "valid"
        elif match.group("error") or match.group("broken"):
            out.verdicts[key] = "invalid"
            out.findings += 1
    return out


@dataclass(frozen=True)
class Agreement:
    """How a tool's verdicts compare with the expected ones on the documents it was run on.

    Args:
        documents: documents compared.
        checked: documents the tool gave a verdict for (not ``unchecked``).
        agree: documents whose verdict equals the expected one.
        expected_invalid: documents expected invalid.
        flagged_invalid: of those, how many the tool flagged.
        false_positives: documents expected valid that the tool flagged.
        at_expected_line: flagged invalid documents with a finding on the expected line.
        by_category: category → (flagged, expected).
        missed: a few (file, document, category) the tool missed, for the report.
        false_positive_examples: a few (file, document, kind) wrongly flagged.
    """

    documents: int
    checked: int
    agree: int
    expected_invalid: int
    flagged_invalid: int
    false_positives: int
    at_expected_line: int
    by_category: dict[str, tuple[int, int]]
    missed: list[tuple[str, int, str]]
    false_positive_examples: list[tuple[str, int, str]]

    @property
    def agreement(self) -> float:
        """Share of documents with the expected verdict (unchecked documents count as disagreeing)."""
        return self.agree / self.documents if self.documents else 0.0


def compare(expected: Iterable[Expected], output: ToolOutput, examples: int = 5) -> Agreement:
    """Compare ``output`` with ``expected`` over the documents present in ``output.verdicts``."""
    documents = checked = agree = expected_invalid = flagged = false_positives = at_line = 0
    by_category: dict[str, list[int]] = {}
    missed: list[tuple[str, int, str]] = []
    wrong: list[tuple[str, int, str]] = []
    for record in expected:
        key = (record.file, record.document)
        verdict = output.verdicts.get(key)
        if verdict is None:
            continue
        documents += 1
        checked += verdict != "unchecked"
        agree += verdict == record.verdict
        if record.verdict == "invalid":
            expected_invalid += 1
            counts = by_category.setdefault(str(record.category), [0, 0])
            counts[1] += 1
            if verdict == "invalid":
                flagged += 1
                counts[0] += 1
                at_line += record.error_line in output.finding_lines.get(key, [])
            elif len(missed) < examples:
                missed.append((record.file, record.document, str(record.category)))
        elif verdict == "invalid":
            false_positives += 1
            if len(wrong) < examples:
                wrong.append((record.file, record.document, record.kind))
    return Agreement(
        documents=documents,
        checked=checked,
        agree=agree,
        expected_invalid=expected_invalid,
        flagged_invalid=flagged,
        false_positives=false_positives,
        at_expected_line=at_line,
        by_category={k: (v[0], v[1]) for k, v in sorted(by_category.items())},
        missed=missed,
        false_positive_examples=wrong,
    )
