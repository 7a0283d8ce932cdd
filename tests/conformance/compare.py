"""Verdict pairs, the agreement table and the known-disagreement list.

Each sent document ends in one of: ``both-accept``, ``both-reject``, ``missed`` (the server
rejects, trainops accepts), ``false-alarm`` (the server accepts, trainops rejects), or outside the
comparison: ``skipped`` (not a Kubernetes object), ``not-served`` (no such apiVersion/kind on the
server: removed APIs, kinds with no CRD in ../shared/crds) and ``other`` (403/404/409/5xx: admission
or cluster state, not a verdict on the document).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import yaml

from conformance.documents import Case
from conformance.oracle import ServerVerdict

Agreement = Literal["both-accept", "both-reject", "missed", "false-alarm", "skipped", "not-served", "other"]
Direction = Literal["missed", "false-alarm"]
DIRECTIONS: tuple[Direction, ...] = ("missed", "false-alarm")


@dataclass(frozen=True)
class Outcome:
    """One case with both verdicts.

    Args:
        case: the document.
        server: the server's verdict (``None`` when the case was not sent).
        trainops: trainops's error findings (empty: trainops accepts).
    """

    case: Case
    server: ServerVerdict | None
    trainops: tuple[str, ...]

    @property
    def agreement(self) -> Agreement:
        """Where this case lands in the table."""
        if self.server is None:
            return "skipped"
        if self.server.status in ("not-served", "other"):
            return self.server.status
        rejects = self.server.status == "reject"
        if rejects:
            return "both-reject" if self.trainops else "missed"
        return "false-alarm" if self.trainops else "both-accept"

    @property
    def reason(self) -> str:
        """One line: the server's message for a miss, trainops's first finding for a false alarm."""
        if self.agreement == "false-alarm":
            return f"trainops: {self.trainops[0]}"
        if self.server is None:
            return self.case.skip or ""
        return f"server {self.server.code}: {' '.join(self.server.message.split())}"


# --- the table ----------------------------------------------------------------------------------------

COMPARED: tuple[Agreement, ...] = ("both-accept", "both-reject", "missed", "false-alarm")
COLUMNS: tuple[Agreement, ...] = (*COMPARED, "not-served", "other", "skipped")


def _row(outcomes: Iterable[Outcome]) -> Counter[Agreement]:
    return Counter(o.agreement for o in outcomes)


def agreement_percent(counts: Mapping[Agreement, int]) -> float | None:
    """Share of compared documents where both agree, in percent (``None`` when none compared)."""
    compared = sum(counts.get(a, 0) for a in COMPARED)
    agreed = counts.get("both-accept", 0) + counts.get("both-reject", 0)
    return 100.0 * agreed / compared if compared else None


def table_rows(outcomes: list[Outcome]) -> list[tuple[str, Counter[Agreement]]]:
    """Rows: all, examples, mutations, each mutation set, then each kind family."""
    rows: list[tuple[str, Counter[Agreement]]] = [("all documents", _row(outcomes))]
    rows.append(("examples", _row(o for o in outcomes if o.case.source == "example")))
    mutations = [o for o in outcomes if o.case.source == "mutation"]
    rows.append(("mutations", _row(mutations)))
    for name in sorted({o.case.id.split(":", 1)[1].split("/", 1)[0] for o in mutations}):
        rows.append(
            (f"  mutations: {name}", _row(o for o in mutations if o.case.id.startswith(f"mutation:{name}/")))
        )
    for fam in sorted({o.case.family for o in outcomes}):
        rows.append((f"family: {fam}", _row(o for o in outcomes if o.case.family == fam)))
    return rows


def render_table(outcomes: list[Outcome]) -> str:
    """The agreement table as Markdown (one row per :func:`table_rows` entry)."""
    header = (
        "",
        "both accept",
        "both reject",
        "missed",
        "false alarm",
        "agree %",
        "not served",
        "other",
        "skipped",
    )
    lines = ["| " + " | ".join(header) + " |", "|---" + "|---:" * (len(header) - 1) + "|"]
    for label, counts in table_rows(outcomes):
        percent = agreement_percent(counts)
        cells = [str(counts.get(a, 0)) for a in COMPARED]
        cells.append("-" if percent is None else f"{percent:.1f}")
        cells.extend(str(counts.get(a, 0)) for a in ("not-served", "other", "skipped"))
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


# --- do both point at the same place? ---------------------------------------------------------------------

_SEGMENT = re.compile(r"\[(\d+)\]|\['([^']*)'\]|\[([^\]]*)\]|\.?([^.\[]+)")


def _canonical(path: str) -> str:
    """A path without list indexes, map keys dotted: ``$.a[0].b['c.d']`` and ``a.b.c.d`` → ``a.b.c.d``.

    Decoding errors name fields without indexes (``containers.ports.containerPort``) and CRD errors
    write map keys dotted, so both sides are compared in this form.
    """
    path = path.removeprefix("$").removeprefix(".")
    parts = []
    for match in _SEGMENT.finditer(path):
        if match.group(1) is None:
            parts.append(next(g for g in match.groups()[1:] if g is not None))
    return ".".join(parts)


def same_place(outcome: Outcome) -> bool:
    """Whether a server field and a trainops path overlap (one is the other or contains it).

    trainops reports a missing field at the object lacking it, the server at the field itself, so
    containment either way counts. ``False`` when the server named no field.
    """
    if outcome.server is None:
        return False
    ours = [_canonical(message.split(": ", 1)[0]) for message in outcome.trainops]
    theirs = [_canonical(field) for field in outcome.server.fields]
    return any(_contains(a, b) or _contains(b, a) for a in ours for b in theirs)


def _contains(outer: str, inner: str) -> bool:
    return outer == "" or inner == outer or inner.startswith(f"{outer}.")


def overlap_summary(outcomes: list[Outcome]) -> str:
    """One sentence: of the documents both reject, how many have a server field trainops also points at."""
    both = [o for o in outcomes if o.agreement == "both-reject"]
    overlapping = sum(same_place(o) for o in both)
    return (
        f"Both reject {len(both)} documents; in {overlapping} of them a field the server names overlaps a "
        "path trainops reports (in the rest the server names no field, or they point at different fields)."
    )


# --- what trainops misses, grouped by the server's cause ------------------------------------------------

_QUOTED = re.compile(r'"[^"]*"')
_NUMBER = re.compile(r"\b\d+\b")
_INDEX = re.compile(r"\[[^\]]*\]")


def cause_category(outcome: Outcome) -> list[str]:
    """The server's causes of a rejection with values and indexes blanked (``field: message``)."""
    server = outcome.server
    if server is None:
        return []
    causes = list(server.causes)
    if not causes:  # a decoding error (400): "<Kind> in version ... cannot be handled as a <Kind>: <why>"
        text = " ".join(server.message.split()).split(" cannot be handled as a ", 1)[-1]
        text = text.split(": ", 1)[-1] if ": " in text else text
        if text.startswith("strict decoding error: "):
            causes = text.removeprefix("strict decoding error: ").split(", ")
        else:
            causes = [text]
    return [
        _NUMBER.sub("N", _INDEX.sub("[*]", _QUOTED.sub('"…"', " ".join(c.split()))))[:200] for c in causes
    ]


def missed_by_cause(outcomes: list[Outcome]) -> list[tuple[str, int]]:
    """(normalised server cause, number of missed documents), most frequent first."""
    counts: Counter[str] = Counter()
    for outcome in outcomes:
        if outcome.agreement == "missed":
            counts.update(set(cause_category(outcome)))
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))


# --- the known-disagreement list -----------------------------------------------------------------------


@dataclass(frozen=True)
class Known:
    """One listed disagreement: ``direction`` (``missed`` or ``false-alarm``) and ``reason``."""

    direction: Direction
    reason: str


def load_known(path: Path) -> dict[str, Known]:
    """``known_disagreements.yaml``: a list of ``{id, direction, reason}``, id → :class:`Known`.

    Raises:
        ValueError: an entry is malformed or an id repeats.
    """
    entries = yaml.safe_load(path.read_text(encoding="utf-8")) or []
    out: dict[str, Known] = {}
    for entry in entries:
        if entry.get("direction") not in DIRECTIONS or not entry.get("id") or not entry.get("reason"):
            raise ValueError(f"{path}: malformed entry {entry!r}")
        if entry["id"] in out:
            raise ValueError(f"{path}: {entry['id']} is listed twice")
        out[entry["id"]] = Known(entry["direction"], entry["reason"])
    return out


_HEADER = """\
# Disagreements between `trainops validate` (Kubernetes 1.36, every catalogued operator) and the real
# kube-apiserver v1.36.2 of ../shared/oracle (server-side dry run, strict field validation, the CRDs of
# ../shared/crds installed). Checked by `make conformance` (tests/conformance): a disagreement not
# listed here fails, and so does an entry that no longer disagrees, so the list stays truthful.
#   direction: missed      = the server rejects, trainops accepts (reason: the server's message)
#              false-alarm = the server accepts, trainops rejects (reason: why, or trainops's finding)
# Rewrite with TRAINOPS_CONFORMANCE_UPDATE=1 make conformance (reasons of kept entries are preserved).
"""


def write_known(path: Path, outcomes: list[Outcome], previous: Mapping[str, Known]) -> None:
    """Rewrite ``path`` from the measured disagreements, keeping the reasons of unchanged entries."""
    entries = []
    for outcome in sorted(outcomes, key=lambda o: o.case.id):
        if outcome.agreement in DIRECTIONS:
            old = previous.get(outcome.case.id)
            reason = old.reason if old is not None and old.direction == outcome.agreement else outcome.reason
            entries.append({"id": outcome.case.id, "direction": outcome.agreement, "reason": reason})
    body = yaml.safe_dump(entries, sort_keys=False, allow_unicode=True, width=100_000) if entries else "[]\n"
    path.write_text(_HEADER + body, encoding="utf-8")


def write_report(directory: Path, outcomes: list[Outcome]) -> Path:
    """Write ``agreement.md`` (table, misses by cause) and ``outcomes.json`` (every case) into ``directory``."""
    directory.mkdir(parents=True, exist_ok=True)
    records = [
        {
            "id": o.case.id,
            "family": o.case.family,
            "agreement": o.agreement,
            "server_code": o.server.code if o.server else None,
            "server_message": o.server.message if o.server else None,
            "server_causes": list(o.server.causes) if o.server else [],
            "trainops_errors": list(o.trainops),
            "skip": o.case.skip,
        }
        for o in sorted(outcomes, key=lambda o: o.case.id)
    ]
    (directory / "outcomes.json").write_text(json.dumps(records, indent=1) + "\n", encoding="utf-8")
    lines = ["# trainops validate vs kube-apiserver v1.36.2", "", render_table(outcomes)]
    lines += [overlap_summary(outcomes), ""]
    lines += ["## Missed (server rejects, trainops accepts), by server cause", ""]
    lines += [f"- {count} × `{cause}`" for cause, count in missed_by_cause(outcomes)]
    lines += ["", "## Disagreements", ""]
    for o in sorted(outcomes, key=lambda o: o.case.id):
        if o.agreement in DIRECTIONS:
            lines.append(f"- **{o.agreement}** `{o.case.id}`: {o.reason}")
    lines += ["", "## Not served / other / skipped", ""]
    for o in sorted(outcomes, key=lambda o: o.case.id):
        if o.agreement in ("not-served", "other", "skipped"):
            lines.append(f"- {o.agreement} `{o.case.id}`: {o.reason}")
    report = directory / "agreement.md"
    report.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return report
