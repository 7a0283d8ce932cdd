"""The pack's Pod Security rules against the real PodSecurity admission (issue 26 point 3).

``../shared/ground-truth/pod-security/verdicts.tsv`` records what a kube-apiserver v1.36 enforcing
``baseline`` and ``restricted`` said about every pod spec of ../shared/examples and about Pods
broken one control at a time (its README). For every row the server judged (not ``invalid``), the
pack's Pod Security rules (:data:`trainops.policy.pss.PSS_RULES`, default options) must flag the pod
spec at a level exactly when the server forbids it there: a finding at or below the pod spec's path
whose level (:func:`trainops.policy.pss.level_of`) is baseline forbids it at both levels, one at
restricted at restricted only. Every disagreement is listed, with its reason, in
``tests/policies/pss_disagreements.tsv``; a new or vanished disagreement fails with the row.
Rewrite the file's rows (reasons kept) with ``pytest tests/policy/test_pod_security_ground_truth.py --update-golden``.
"""

from __future__ import annotations

import csv
from functools import cache
from pathlib import Path

import pytest

from conftest import EXAMPLES, REPO, SHARED, needs_shared
from trainops.core.findings import Finding
from trainops.pipeline import policy_run
from trainops.policy.config import PolicyConfig
from trainops.policy.engine import PolicyRun, run_policies
from trainops.policy.pss import PSS_RULES, PssLevel, forbids
from trainops.yaml.load import Document, stream_text

pytestmark = needs_shared

GROUND = SHARED / "ground-truth" / "pod-security"
VERDICTS = GROUND / "verdicts.tsv"
DISAGREEMENTS = REPO / "tests" / "policies" / "pss_disagreements.tsv"
HEADER = ["file", "document", "pod_spec_path", "level", "server", "trainops", "reason"]
LEVELS: tuple[PssLevel, ...] = ("baseline", "restricted")


def _rows() -> list[dict[str, str]]:
    if not VERDICTS.is_file():
        return []
    with VERDICTS.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle, delimiter="\t"))


ROWS = _rows()
JUDGED = [row for row in ROWS if row["baseline"] != "invalid" and row["restricted"] != "invalid"]


def _source(file: str) -> Path:
    return GROUND / file if file.startswith("mutations/") else EXAMPLES / file


@cache
def _run() -> PolicyRun:
    run = policy_run()
    config = PolicyConfig({k: v for k, v in run.config.rules.items() if k in PSS_RULES}, run.config.source)
    return PolicyRun(run.pack, config, run.facts)


@cache
def _findings(file: str) -> tuple[Finding, ...]:
    path = _source(file)
    documents = [
        d for d in stream_text(path.read_text(encoding="utf-8"), str(path)) if isinstance(d, Document)
    ]
    return tuple(run_policies(documents, _run()))


def _under(path: str, pod_spec_path: str) -> bool:
    """Whether a finding's path is in the pod spec, or in its template's annotations (AppArmor)."""
    if path == pod_spec_path or path.startswith((pod_spec_path + ".", pod_spec_path + "[")):
        return True
    parent = pod_spec_path.removesuffix(".spec") if pod_spec_path != "$.spec" else "$"
    return pod_spec_path.endswith(".spec") and path.startswith(parent + ".metadata.annotations")


def verdicts(row: dict[str, str]) -> dict[PssLevel, str]:
    """What the pack says about the row's pod spec at each level: ``forbidden`` or ``allowed``."""
    document = int(row["document"])
    found = [
        f for f in _findings(row["file"]) if f.document == document and _under(f.path, row["pod_spec_path"])
    ]
    return {
        level: "forbidden" if any(forbids(level, f.rule, f.keyword) for f in found) else "allowed"
        for level in LEVELS
    }


def disagreements() -> list[dict[str, str]]:
    """Every (row, level) where the pack and the server differ."""
    out = []
    for row in JUDGED:
        ours = verdicts(row)
        for level in LEVELS:
            if ours[level] != row[level]:
                out.append(
                    {
                        "file": row["file"],
                        "document": row["document"],
                        "pod_spec_path": row["pod_spec_path"],
                        "level": level,
                        "server": row[level],
                        "trainops": ours[level],
                        "server_said": row[f"{level}_violations"],
                    }
                )
    return out


def _key(item: dict[str, str]) -> tuple[str, ...]:
    return tuple(item[k] for k in HEADER[:-1])


def read_table() -> list[dict[str, str]]:
    with DISAGREEMENTS.open(encoding="utf-8", newline="") as handle:
        lines = [line for line in handle if not line.startswith("#")]
    return list(csv.DictReader(lines, delimiter="\t"))


def test_the_ground_truth_is_read() -> None:
    assert len(JUDGED) > 380
    assert {row["baseline"] for row in JUDGED} == {"allowed", "forbidden"}


def test_pss_rules_agree_with_the_podsecurity_admission(request: pytest.FixtureRequest) -> None:
    found = disagreements()
    if request.config.getoption("--update-golden"):
        reasons = {_key(row): row["reason"] for row in read_table()} if DISAGREEMENTS.is_file() else {}
        head = [line for line in DISAGREEMENTS.read_text("utf-8").splitlines() if line.startswith("#")]
        body = [
            "\t".join([*_key(item), reasons.get(_key(item), "TODO: " + item["server_said"])])
            for item in found
        ]
        DISAGREEMENTS.write_text("\n".join([*head, "\t".join(HEADER), *body]) + "\n", encoding="utf-8")
    table = read_table()
    listed = {_key(row) for row in table}
    current = {_key(item) for item in found}
    new = [item for item in found if _key(item) not in listed]
    assert not new, (
        "disagreements with the server not listed in tests/policies/pss_disagreements.tsv:\n"
        + "\n".join(
            f"{i['file']}#{i['document']} {i['pod_spec_path']} {i['level']}: server {i['server']}, trainops "
            f"{i['trainops']} (server: {i['server_said'] or '-'})"
            for i in new
        )
    )
    assert listed <= current, f"listed disagreements that no longer occur: {sorted(listed - current)}"


def test_every_disagreement_is_explained() -> None:
    for row in read_table():
        assert row["reason"] and not row["reason"].startswith("TODO"), row


@pytest.mark.parametrize(
    ("control", "levels"),
    [
        ("privileged", {"baseline", "restricted"}),
        ("sysctl-unsafe", {"baseline", "restricted"}),
        ("proc-mount", {"restricted"}),
        ("selinux-type", {"baseline", "restricted"}),
        ("apparmor-unconfined", {"baseline", "restricted"}),
        ("volume-nfs", {"restricted"}),
        ("run-as-root-uid", {"restricted"}),
        ("sysctl-safe", set()),
        ("volume-emptydir-ok", set()),
    ],
)
def test_each_broken_control_is_found_where_the_server_finds_it(control: str, levels: set[str]) -> None:
    """A readable sample of the comparison above: the mutations of one control, level by level."""
    rows = [row for row in JUDGED if row["file"].startswith(f"mutations/{control}/")]
    assert rows
    for row in rows:
        ours = verdicts(row)
        assert {level for level in LEVELS if ours[level] == "forbidden"} == levels, row["file"]
        assert {level for level in LEVELS if row[level] == "forbidden"} == levels, row["file"]
