"""The unit every check returns before positions are known: a path inside one document."""

from __future__ import annotations

from dataclasses import dataclass

from trainops.findings import Level


@dataclass(frozen=True)
class Issue:
    """One problem at a JSON path of a document; the engine adds file, line and object identity.

    Args:
        parts: path inside the document, e.g. ``("spec", "containers", 0, "name")``; ``()`` is the root.
        message: one line: what is wrong, the actual value and the limit.
        rule: the check family: ``yaml``, ``schema``, ``unknown-kind``, ``api-server``,
            ``deprecated-api``, ``cel``, ``list-map``.
        keyword: the schema keyword, CEL rule or named check that failed, when applicable.
        level: ``error`` (default), ``warning`` or ``info``.
    """

    parts: tuple[str | int, ...]
    message: str
    rule: str
    keyword: str | None = None
    level: Level = "error"
