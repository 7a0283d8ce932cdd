"""Findings are data: validation and policy results that reporters only present (STYLE.md habit 6)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from trainops.core.naming import KEY_LIMIT, shortened

Level = Literal["error", "warning", "info"]
LEVELS: tuple[Level, ...] = ("error", "warning", "info")

_SIMPLE_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*$")


@dataclass(frozen=True)
class Finding:
    """One problem found in one document.

    Args:
        rule: what found it: ``yaml``, ``schema``, ``unknown-kind``, ``cel`` or a policy rule ID.
        level: ``error`` fails the run; ``warning`` fails only with ``--strict``; ``info`` never.
        message: one line saying what is wrong, with the actual value and the limit.
        file: path as given on the command line (or relative to the repository root).
        line: 1-based line of the offending node, when known.
        column: 1-based column, when known.
        document: 0-based index of the document in a multi-document file, when known.
        api_version: the document's apiVersion, when known.
        kind: the document's kind, when known.
        namespace: ``metadata.namespace``, when set.
        name: ``metadata.name`` (or ``generateName``), when set.
        path: JSON path of the offending value, e.g. ``$.spec.replicas``; ``$`` is the document.
        keyword: the schema keyword or CEL rule that failed, when applicable.
        remediation: one sentence ending with a period, for policy findings.
    """

    rule: str
    level: Level
    message: str
    file: str
    line: int | None = None
    column: int | None = None
    document: int | None = None
    api_version: str | None = None
    kind: str | None = None
    namespace: str | None = None
    name: str | None = None
    path: str = "$"
    keyword: str | None = None
    remediation: str | None = None

    @property
    def object_ref(self) -> str:
        """``Kind/name`` (``Kind/namespace/name`` is not used: namespace is shown separately)."""
        if self.kind and self.name:
            return f"{self.kind}/{self.name}"
        return self.kind or ""

    @property
    def gvk(self) -> str:
        """GroupVersionKind as ``group/version, Kind=kind`` (``v1, Kind=Service`` for core)."""
        if not self.api_version or not self.kind:
            return ""
        return f"{self.api_version}, Kind={self.kind}"


@dataclass(frozen=True)
class Issue:
    """One problem at a JSON path of a document, before positions are known: what every check and
    policy rule returns; the engine adds file, line and object identity to make a :class:`Finding`.

    Args:
        parts: path inside the document, e.g. ``("spec", "containers", 0, "name")``; ``()`` is the root.
        message: one line: what is wrong, the actual value and the limit.
        rule: the ID of a rule registered in :mod:`trainops.core.rules` (e.g. ``api-server``, ``schema``).
        keyword: the schema keyword, CEL rule or named check that failed, when applicable.
        level: ``error`` (default), ``warning`` or ``info``.
    """

    parts: tuple[str | int, ...]
    message: str
    rule: str
    keyword: str | None = None
    level: Level = "error"


@dataclass
class Result:
    """Findings of one run plus counts of what was checked.

    ``target`` describes what the documents were validated against (``Target.describe()`` of
    :mod:`trainops.pipeline`: cluster, Kubernetes minor, operators), when known; json and sarif show it.
    """

    findings: list[Finding] = field(default_factory=list)
    files: int = 0
    documents: int = 0
    target: Mapping[str, object] | None = None

    def extend(self, findings: Iterable[Finding]) -> None:
        """Add findings."""
        self.findings.extend(findings)

    def count(self, level: Level) -> int:
        """Number of findings at ``level``."""
        return sum(1 for f in self.findings if f.level == level)

    def sorted(self) -> list[Finding]:
        """Findings ordered by file, document, line, path, rule (deterministic output)."""
        return sorted(
            self.findings,
            key=lambda f: (f.file, f.document or 0, f.line or 0, f.column or 0, f.path, f.rule, f.message),
        )

    def failed(self, *, strict: bool = False) -> bool:
        """Whether the run fails: any error, or any warning when ``strict``."""
        return self.count("error") > 0 or (strict and self.count("warning") > 0)


def json_path(parts: Sequence[str | int]) -> str:
    """Render path parts as a JSON path: ``["spec", "containers", 0, "name"]`` → ``$.spec.containers[0].name``.

    Keys that are not simple identifiers are quoted: ``$.metadata.labels['app.kubernetes.io/name']``.
    A key longer than :data:`~trainops.core.naming.KEY_LIMIT` characters (longer than any key the
    API server accepts) is :func:`~trainops.core.naming.shortened` as messages shorten values, and so
    quoted, ending in ``…``: a 2 MB key does not make a 2 MB report.
    """
    out = ["$"]
    for part in parts:
        if isinstance(part, int):
            out.append(f"[{part}]")
            continue
        if len(part) > KEY_LIMIT:
            part = shortened(part, KEY_LIMIT)
        if _SIMPLE_KEY.match(part):
            out.append(f".{part}")
        else:
            escaped = part.replace("\\", "\\\\").replace("'", "\\'")
            out.append(f"['{escaped}']")
    return "".join(out)


_PATH_TOKEN = re.compile(r"\.([A-Za-z_][A-Za-z0-9_-]*)|\[(\d+)\]|\['((?:[^'\\]|\\.)*)'\]")


def parse_json_path(path: str) -> tuple[str | int, ...]:
    """Inverse of :func:`json_path`: ``$.spec.containers[0]['a.b']`` → ``("spec", "containers", 0, "a.b")``.

    Parsing stops at the first token it does not understand (the prefix still locates a line).
    """
    parts: list[str | int] = []
    position = 1 if path.startswith("$") else 0
    while position < len(path):
        match = _PATH_TOKEN.match(path, position)
        if match is None:
            break
        name, index, quoted = match.groups()
        if name is not None:
            parts.append(name)
        elif index is not None:
            parts.append(int(index))
        else:
            parts.append(re.sub(r"\\(.)", r"\1", quoted))
        position = match.end()
    return tuple(parts)


#: Characters of a finding's message: the longest the pack and the validator write on the upstream
#: examples is about 260; a longer one quotes a value from the document whole (a rule's message).
MESSAGE_LIMIT = 1000


def one_line(text: str) -> str:
    """Text quoting values from a document (messages, kinds, names, paths) as one printable line:
    line breaks (including U+2028/U+2029/U+0085) and other control characters are escaped, so a
    finding is one line in every report (found by ``make fuzz``)."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)
