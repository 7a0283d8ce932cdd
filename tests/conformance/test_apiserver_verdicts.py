"""Differential test against the real kube-apiserver's recorded answers (issues 14 and 27).

``../shared/ground-truth/apiserver/verdicts.tsv`` holds what kube-apiserver v1.36.2 (every CRD of
``../shared/crds`` installed, server-side dry run, ``fieldValidation=Strict``) answered for every
document of ``../shared/examples`` and for 1,851 mutations of them
(``../shared/ground-truth/apiserver/mutations/``). ``trainops validate`` runs once over all those
files (:func:`conformance.adapter.trainops_errors`: Kubernetes 1.36, every catalogued operator) and
must agree accept/reject on every judged row; rows the server did not judge (``no-crd``: no CRD
serves the kind; ``unserved-version``) are left out. Each remaining disagreement is listed with its
reason in ``known_disagreements.yaml``; a new disagreement fails, and so does an entry that no
longer matches one.
"""

from __future__ import annotations

import csv
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import pytest
import yaml

from conformance.adapter import trainops_errors
from conftest import CRDS, SHARED, needs_shared

pytestmark = needs_shared

VERDICTS = SHARED / "ground-truth" / "apiserver" / "verdicts.tsv"
KNOWN_FILE = Path(__file__).with_name("known_disagreements.yaml")
Direction = Literal["missed", "false-alarm"]


@dataclass(frozen=True)
class Row:
    """One row of ``verdicts.tsv``: a document and the server's answer (``accept``, ``reject``,
    ``no-crd`` or ``unserved-version``), with its causes."""

    file: str
    document: int
    api_version: str
    kind: str
    server: str
    causes: str

    @property
    def id(self) -> str:
        """``<file>#<document>``, as entries of ``known_disagreements.yaml`` name rows."""
        return f"{self.file}#{self.document}"


@dataclass(frozen=True)
class Known:
    """An entry of ``known_disagreements.yaml``: one row (``id``) or every row whose errors all
    come from one trainops rule (``rule``)."""

    direction: Direction
    reason: str
    id: str | None = None
    rule: str | None = None

    def covers(self, row: Row, errors: tuple[str, ...], direction: Direction) -> bool:
        """Whether this entry explains ``row``'s disagreement in ``direction``."""
        if direction != self.direction:
            return False
        if self.id is not None:
            return self.id == row.id
        return bool(errors) and all(error.endswith(f" [{self.rule}]") for error in errors)


def load_rows() -> list[Row]:
    """The rows of ``verdicts.tsv`` (empty when ../shared is absent)."""
    if not VERDICTS.is_file():
        return []
    with VERDICTS.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
        return [
            Row(r["file"], int(r["document"]), r["apiVersion"], r["kind"], r["server"], r["server_causes"])
            for r in reader
        ]


def load_known() -> list[Known]:
    """The entries of ``known_disagreements.yaml``."""
    entries = yaml.safe_load(KNOWN_FILE.read_text(encoding="utf-8"))
    return [Known(**entry) for entry in entries]


ROWS = load_rows()
JUDGED = [row for row in ROWS if row.server in ("accept", "reject")]


@pytest.fixture(scope="module")
def errors(schema_cache: Path) -> Mapping[str, tuple[str, ...]]:
    """Row id → trainops's error findings for that document (empty: trainops accepts)."""
    found = trainops_errors(sorted({SHARED / row.file for row in ROWS}), schema_cache)
    out = {}
    for row in ROWS:
        path = str(SHARED / row.file)
        out[row.id] = tuple(found.get((path, row.document), []) + found.get((path, -1), []))
    return out


def _direction(row: Row, errors: tuple[str, ...]) -> Direction | None:
    if row.server == "reject" and not errors:
        return "missed"
    if row.server == "accept" and errors:
        return "false-alarm"
    return None


def test_the_recorded_corpus_is_complete() -> None:
    """Every example document and the 1,851 mutations are there, and each row's file exists."""
    mutations = [row for row in ROWS if row.file.startswith("ground-truth/")]
    assert len(mutations) == 1851
    assert {row.server for row in ROWS} == {"accept", "reject", "no-crd", "unserved-version"}
    assert all((SHARED / row.file).is_file() for row in ROWS)


def test_the_catalog_serves_the_servers_crds() -> None:
    """The server had every CRD of ../shared/crds installed: the shipped catalog names each of them
    by the same file and checksum, with the same group, kind and served versions, so the
    all-operators target validates against exactly the server's CRDs."""
    from trainops.schemas.catalog import PACKAGED_CATALOG, load_catalog

    catalog = {entry.mirror_path: entry for entry in load_catalog(PACKAGED_CATALOG)}
    with (CRDS / "catalog.tsv").open(newline="", encoding="utf-8") as handle:
        installed = list(csv.DictReader(handle, delimiter="\t"))
    assert sorted(catalog) == sorted(row["path"] for row in installed)
    for row in installed:
        entry = catalog[row["path"]]
        assert (entry.sha256, entry.group, entry.kind, ",".join(entry.versions)) == (
            row["sha256"],
            row["group"],
            row["kind"],
            row["versions"],
        ), row["path"]


def test_every_judged_row_agrees_or_is_listed(errors: Mapping[str, tuple[str, ...]]) -> None:
    known = load_known()
    unlisted = []
    used: set[int] = set()
    for row in JUDGED:
        direction = _direction(row, errors[row.id])
        if direction is None:
            continue
        matches = [i for i, entry in enumerate(known) if entry.covers(row, errors[row.id], direction)]
        used.update(matches)
        if not matches:
            said = row.causes or "accepted"
            unlisted.append(
                f"{direction}: {row.id} {row.kind}\n  server: {said}\n  trainops: {errors[row.id]}"
            )
    stale = [entry for i, entry in enumerate(known) if i not in used]
    assert unlisted == [], f"{len(unlisted)} disagreements not in {KNOWN_FILE.name}:\n" + "\n".join(unlisted)
    assert stale == [], f"entries of {KNOWN_FILE.name} that no longer disagree: remove them: {stale}"


#: Rows recorded ``no-crd`` before the CRD serving their kind was installed, which the same server
#: accepts with it (``../shared/ground-truth/README.md``: the LeaderWorkerSet of Kueue's TAS sample
#: was recorded before the LWS CRD): trainops, whose catalog now serves the kind, accepts them.
RECORDED_BEFORE_THEIR_CRD: frozenset[str] = frozenset(
    {"examples/kueue/site/static/examples/serving-workloads/sample-leaderworkerset-tas.yaml#0"}
)


def test_kinds_the_server_does_not_serve_are_errors(errors: Mapping[str, tuple[str, ...]]) -> None:
    """The rows the server did not judge (no CRD serves the kind, or a removed version): trainops
    rejects each too, as an unknown kind or a removed API."""
    unjudged = [row for row in ROWS if row.server not in ("accept", "reject")]
    assert unjudged
    assert [
        row.id for row in unjudged if not errors[row.id] and row.id not in RECORDED_BEFORE_THEIR_CRD
    ] == []


@pytest.mark.parametrize("row_id", sorted(RECORDED_BEFORE_THEIR_CRD))
def test_rows_recorded_before_their_crd_are_accepted(
    errors: Mapping[str, tuple[str, ...]], row_id: str
) -> None:
    """The server recorded no CRD for these rows; with the CRD installed it accepts them, and so
    does trainops, whose catalog serves the kind."""
    [row] = [row for row in ROWS if row.id == row_id]
    assert row.server == "no-crd"
    assert errors[row_id] == ()


@pytest.mark.parametrize(
    ("file", "server_cause"),
    [
        (
            "ground-truth/apiserver/mutations/replicas-negative/001-alertmanager.yaml",
            ".spec.replicas: Invalid value: -1: should be a non-negative integer",
        ),
    ],
)
def test_issue_27_disagreements_are_fixed(
    errors: Mapping[str, tuple[str, ...]], file: str, server_cause: str
) -> None:
    """The Alertmanager ``replicas: -1`` of issue 27: the CRD's schema has no minimum, but its scale
    subresource's specReplicasPath makes the server require a non-negative integer."""
    row = next(row for row in ROWS if row.file == file)
    assert (row.server, row.causes) == ("reject", server_cause)
    assert errors[row.id] == ("$.spec.replicas: -1 is less than the minimum of 0 [schema]",)
