"""Differential test: every document's verdict from ``trainops validate`` vs the real kube-apiserver.

Run with ``make conformance`` (deselected from ``make test`` by the ``conformance`` marker). The
session starts this suite's own oracle (``../shared/oracle/oracle.sh``, state in
``/tmp/trainops-conformance-oracle-<uid>``, ports 6443/2379, wiped first), installs every CRD of
``../shared/crds``, creates the namespaces the documents use, sends each document with server-side
dry run and strict field validation, and stops the oracle at the end. When the oracle cannot start
(no etcd, a port in use) every test skips with the reason.

Target (issue 14): the server rejects ⇔ trainops rejects. Each remaining disagreement is listed in
``known_disagreements.yaml`` with its reason; a new disagreement fails, and so does a listed one
that went away. The agreement table is printed and written with the per-document list to
``bench/out/conformance/`` (``agreement.md``, ``outcomes.json``).
"""

from __future__ import annotations

import csv
import os
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import yaml

from conformance.adapter import trainops_errors
from conformance.compare import (
    COLUMNS,
    DIRECTIONS,
    Known,
    Outcome,
    agreement_percent,
    load_known,
    missed_by_cause,
    overlap_summary,
    render_table,
    table_rows,
    write_known,
    write_report,
)
from conformance.documents import Case, Phase, all_cases, iter_sent, split_documents
from conformance.oracle import (
    OracleClient,
    OracleUnavailable,
    Resource,
    ServerVerdict,
    start_oracle,
    stop_oracle,
)
from conftest import CRDS, EXAMPLES, REPO, needs_shared

pytestmark = [pytest.mark.conformance, needs_shared]

CASES: list[Case] = all_cases() if EXAMPLES.is_dir() else []
KNOWN_FILE = Path(__file__).with_name("known_disagreements.yaml")
REPORT_DIR = REPO / "bench" / "out" / "conformance"
#: Set to 1 to rewrite known_disagreements.yaml from this run (review the diff before committing).
UPDATE_ENV = "TRAINOPS_CONFORMANCE_UPDATE"
#: mpijobs.kubeflow.org exists in two folders; one CRD name can be installed once at a time.
MPI_V2_FOLDER = "mpi-operator"
THREADS = 4


# --- the oracle session ---------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def oracle() -> Iterator[OracleClient]:
    """This suite's oracle, started fresh, stopped at the end of the session."""
    try:
        env = start_oracle()
    except OracleUnavailable as exc:
        pytest.skip(str(exc))
    client = OracleClient(env)
    try:
        yield client
    finally:
        client.close()
        stop_oracle()


def _catalog() -> list[dict[str, str]]:
    with (CRDS / "catalog.tsv").open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle, delimiter="\t"))


def _install(client: OracleClient, rows: list[dict[str, str]], failures: dict[str, str]) -> None:
    """Create the CRDs of ``rows`` and wait until they are established and served by discovery."""
    names = []
    for row in rows:
        name, error = client.create_crd((CRDS / row["path"]).read_text(encoding="utf-8"))
        if name is None:
            failures[row["path"]] = error
        else:
            names.append(name)
    client.wait_established(names)
    expected = {
        (f"{row['group']}/{version}", row["kind"])
        for row in rows
        if row["path"] not in failures
        for version in row["versions"].split(",")
    }
    deadline = time.monotonic() + 120
    while missing := expected - set(client.discover()):
        if time.monotonic() > deadline:
            raise TimeoutError(f"discovery does not serve {sorted(missing)}")
        time.sleep(0.5)


def _send_phase(client: OracleClient, cases: list[Case], phase: Phase) -> dict[str, ServerVerdict]:
    served = client.discover()

    def one(case: Case) -> tuple[str, ServerVerdict]:
        assert case.api_version is not None and case.kind is not None
        resource: Resource | None = served.get((case.api_version, case.kind))
        if resource is None:
            message = (
                f"{case.api_version} {case.kind} is not served (no such API, or its CRD is not installed)"
            )
            return case.id, ServerVerdict("not-served", 0, message)
        return case.id, client.dry_run(case.text, case.api_version, resource, case.namespace or "default")

    with ThreadPoolExecutor(THREADS) as pool:
        return dict(pool.map(one, list(iter_sent(cases, phase))))


def server_verdicts(
    client: OracleClient, cases: list[Case]
) -> tuple[dict[str, ServerVerdict], dict[str, str]]:
    """Send every case in its phase; return (id → verdict, CRD files the server refused → why)."""
    failures: dict[str, str] = {}
    verdicts = _send_phase(client, cases, "pre")
    rows = _catalog()
    _install(client, [r for r in rows if not r["path"].startswith(f"{MPI_V2_FOLDER}/")], failures)
    for namespace in sorted({c.namespace for c in cases if c.namespace and c.phase != "pre"}):
        client.ensure_namespace(namespace)
    verdicts.update(_send_phase(client, cases, "main"))
    mpi_v1 = next(
        r for r in rows if (r["group"], r["kind"], r["versions"]) == ("kubeflow.org", "MPIJob", "v1")
    )
    client.delete_crd(f"mpijobs.{mpi_v1['group']}")
    _install(client, [r for r in rows if r["path"].startswith(f"{MPI_V2_FOLDER}/")], failures)
    verdicts.update(_send_phase(client, cases, "mpi-v2"))
    return verdicts, failures


def trainops_verdicts(
    cases: list[Case], cache: Path, scratch: Path
) -> tuple[dict[str, tuple[str, ...]], list[tuple[str, int]]]:
    """(id → trainops's error findings, (file, document) of findings that name no case).

    One ``trainops validate`` run over every example file and every mutation (one file each).
    """
    files: dict[str, Path] = {}
    for number, case in enumerate(cases):
        if case.file is None:
            path = scratch / f"{number:04d}.yaml"
            path.write_text(case.text, encoding="utf-8")
            files[case.id] = path
        else:
            files[case.id] = case.file
    errors = trainops_errors(sorted(set(files.values())), cache)
    out = {}
    for case in cases:
        file = str(files[case.id])
        out[case.id] = tuple(errors.get((file, case.index), []) + errors.get((file, -1), []))
    named = {(str(files[c.id]), c.index) for c in cases} | {(str(f), -1) for f in files.values()}
    return out, sorted(set(errors) - named)


@pytest.fixture(scope="session")
def trainops_run(
    schema_cache: Path, tmp_path_factory: pytest.TempPathFactory
) -> tuple[dict[str, tuple[str, ...]], list[tuple[str, int]]]:
    """:func:`trainops_verdicts` of every case (needs no oracle)."""
    return trainops_verdicts(CASES, schema_cache, tmp_path_factory.mktemp("mutations"))


@pytest.fixture(scope="session")
def outcomes(
    oracle: OracleClient, trainops_run: tuple[dict[str, tuple[str, ...]], list[tuple[str, int]]]
) -> dict[str, Outcome]:
    """Every case with both verdicts; writes the report (and the known list in update mode)."""
    server, crd_failures = server_verdicts(oracle, CASES)
    trainops = trainops_run[0]
    result = {c.id: Outcome(c, server.get(c.id), trainops[c.id]) for c in CASES}
    write_report(REPORT_DIR, list(result.values()))
    (REPORT_DIR / "crd-failures.yaml").write_text(
        yaml.safe_dump(crd_failures, width=100_000), encoding="utf-8"
    )
    if os.environ.get(UPDATE_ENV) == "1":
        write_known(KNOWN_FILE, list(result.values()), load_known(KNOWN_FILE) if KNOWN_FILE.is_file() else {})
    return result


@pytest.fixture(scope="session")
def known(outcomes: dict[str, Outcome]) -> dict[str, Known]:
    """The committed known-disagreement list (read after ``outcomes``, which may rewrite it)."""
    return load_known(KNOWN_FILE)


# --- tests ----------------------------------------------------------------------------------------------


def _details(outcome: Outcome) -> str:
    server = outcome.server
    said = "not sent" if server is None else f"{server.status} ({server.code}) {server.message}"
    return f"server: {said}\ntrainops: {list(outcome.trainops) or 'accepts'}"


@pytest.mark.parametrize("case_id", [c.id for c in CASES])
def test_verdicts_agree_or_are_listed(
    outcomes: dict[str, Outcome], known: dict[str, Known], case_id: str
) -> None:
    outcome = outcomes[case_id]
    listed = known.get(case_id)
    if outcome.agreement in DIRECTIONS:
        assert listed is not None, (
            f"new disagreement ({outcome.agreement}) not in {KNOWN_FILE.name}:\n{_details(outcome)}"
        )
        assert listed.direction == outcome.agreement, f"listed as {listed.direction}:\n{_details(outcome)}"
        return
    assert listed is None, (
        f"listed as {listed.direction} in {KNOWN_FILE.name} but now {outcome.agreement}: remove the entry\n"
        f"{_details(outcome)}"
    )
    if outcome.agreement not in ("both-accept", "both-reject"):
        pytest.skip(f"{outcome.agreement}: {outcome.reason}"[:300])


def test_known_list_names_existing_cases() -> None:
    assert set(load_known(KNOWN_FILE)) <= {c.id for c in CASES}


def test_agreement_table(outcomes: dict[str, Outcome], capsys: pytest.CaptureFixture[str]) -> None:
    values = list(outcomes.values())
    table = render_table(values)
    with capsys.disabled():
        print(f"\n\ntrainops validate vs kube-apiserver v1.36.2 ({len(values)} documents)\n\n{table}")
        print(overlap_summary(values) + "\n")
        print("missed, by server cause (top 25):")
        for cause, count in missed_by_cause(values)[:25]:
            print(f"  {count:4d}  {cause}")
        print(f"\nper-document report: {REPORT_DIR / 'agreement.md'}\n")
    rows = dict(table_rows(values))
    assert sum(rows["all documents"][a] for a in COLUMNS) == len(CASES)
    assert agreement_percent(rows["examples"]) is not None


@pytest.mark.parametrize(
    "rel", sorted({c.id.split(":", 1)[1].rsplit("#", 1)[0] for c in CASES if c.source == "example"})
)
def test_document_split_matches_yaml_streams(rel: str) -> None:
    """Each example document's text, parsed alone, is what the whole file's stream holds at its index."""
    text = (EXAMPLES / rel).read_text(encoding="utf-8")
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        whole = list(yaml.load_all(text, Loader=loader))
    except yaml.YAMLError:
        pytest.skip("the file does not parse as a whole; its broken rest is one document")
    assert [yaml.load(part, Loader=loader) for part in split_documents(text)] == whole


def test_every_trainops_finding_names_a_document(
    trainops_run: tuple[dict[str, tuple[str, ...]], list[tuple[str, int]]],
) -> None:
    """trainops's document indexes are the split's: no error finding falls outside the cases."""
    assert trainops_run[1] == []
