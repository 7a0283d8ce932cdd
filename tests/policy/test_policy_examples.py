"""The default rule pack over every upstream example under ../shared/examples (issue 12, "Real input").

Each example file is checked on its own (the unit upstream publishes and a reader applies with
``kubectl apply -f``), with the facts of ``tests/policies/examples_facts.yaml`` ("a typical
cluster"), plus, as external objects, what the other files of its upstream directory define (the
companion files a tutorial applies with it: ``mysql-pv.yaml`` beside ``mysql-deployment.yaml``).

Every finding (rule, file, object) is listed in ``tests/policies/examples_expected.tsv``, reviewed
by hand rule by rule (``tests/policies/examples_review.md`` says why each rule's findings are true
problems of the example). A new, changed or vanished finding fails with a diff; after reviewing it,
rewrite the file with ``pytest tests/policy/test_policy_examples.py --update-golden``. README.md's table of
counts is checked against the file.
"""

from __future__ import annotations

import difflib
import re
from collections import Counter
from dataclasses import replace
from functools import cache
from pathlib import Path

import pytest

from conftest import EXAMPLES, REPO, needs_shared
from trainops.core.cluster import ExternalObject
from trainops.core.kinds import CLUSTER_SCOPED, group_kind
from trainops.pipeline import policy_check, policy_run
from trainops.yaml.load import Document, stream_text

pytestmark = needs_shared

EXPECTED = REPO / "tests" / "policies" / "examples_expected.tsv"
FACTS = REPO / "tests" / "policies" / "examples_facts.yaml"
README = REPO / "README.md"
HEADER = "rule\tfile\tobject\tcount"

#: One finding's identity in the expectation: rule, file (relative to ../shared/examples), object.
Row = tuple[str, str, str]


def example_files() -> list[Path]:
    """Every YAML file of ../shared/examples, sorted."""
    return sorted(p for p in EXAMPLES.rglob("*") if p.is_file() and p.suffix in (".yaml", ".yml"))


def _identities(path: Path) -> list[ExternalObject]:
    found: list[ExternalObject] = []
    for item in stream_text(path.read_text(encoding="utf-8"), str(path)):
        data = item.data if isinstance(item, Document) else None
        key = group_kind(data) if isinstance(data, dict) else None
        meta = data.get("metadata") if isinstance(data, dict) else None
        if key is None or not isinstance(meta, dict) or not isinstance(meta.get("name"), str):
            continue
        namespace = meta.get("namespace") if key not in CLUSTER_SCOPED else None
        found.append(ExternalObject(key[1], meta["name"], namespace if isinstance(namespace, str) else None))
    return found


@cache
def run_examples() -> tuple[int, Counter[Row]]:
    """Documents checked, and the findings of the default pack by (rule, file, object)."""
    run = policy_run(facts=str(FACTS))
    files = example_files()
    defined = {path: _identities(path) for path in files}
    documents = 0
    counts: Counter[Row] = Counter()
    for path in files:
        siblings = tuple(
            o for other in files if other.parent == path.parent and other != path for o in defined[other]
        )
        facts = replace(run.facts, external=run.facts.external + siblings)
        result = policy_check([str(path)], replace(run, facts=facts))
        documents += result.documents
        rel = str(path.relative_to(EXAMPLES))
        for finding in result.findings:
            where = f"{finding.namespace}/" if finding.namespace else ""
            counts[(finding.rule, rel, f"{finding.kind}/{where}{finding.name}")] += 1
    return documents, counts


def render(counts: Counter[Row]) -> list[str]:
    """The expectation rows (``rule<TAB>file<TAB>object<TAB>count``), sorted."""
    return [f"{rule}\t{file}\t{obj}\t{counts[(rule, file, obj)]}" for rule, file, obj in sorted(counts)]


def read_expected() -> list[str]:
    """The rows of the committed expectation (comments and the header skipped)."""
    lines = EXPECTED.read_text(encoding="utf-8").splitlines()
    return [line for line in lines if line and not line.startswith("#") and line != HEADER]


def readme_table(documents: int, files: int, counts: Counter[Row], columns: int = 3) -> str:
    """The README's summary of the expectation: totals, then findings (and files) per rule, most
    frequent first, ``columns`` rules per table row."""
    per_rule: Counter[str] = Counter()
    files_of: dict[str, set[str]] = {}
    for (rule, file, _obj), count in counts.items():
        per_rule[rule] += count
        files_of.setdefault(rule, set()).add(file)
    flagged = len({file for _rule, file, _obj in counts})
    cells = [
        f"{rule} | {per_rule[rule]} ({len(files_of[rule])})"
        for rule in sorted(per_rule, key=lambda r: (-per_rule[r], r))
    ]
    cells += [" | "] * (-len(cells) % columns)
    rows = [" | ".join(cells[i : i + columns]) for i in range(0, len(cells), columns)]
    return "\n".join(
        [
            f"{files} files, {documents} documents; {sum(per_rule.values())} findings of {len(per_rule)} rules "
            f"in {flagged} files ({files - flagged} files without a finding). Findings (files) per rule:",
            "",
            "| " + " | ".join(["rule | findings"] * columns) + " |",
            "|" + "---|---:|" * columns,
            *(f"| {row} |" for row in rows),
        ]
    )


def test_findings_match_the_reviewed_expectation(request: pytest.FixtureRequest) -> None:
    _documents, counts = run_examples()
    rows = render(counts)
    if request.config.getoption("--update-golden"):
        head = [line for line in EXPECTED.read_text(encoding="utf-8").splitlines() if line.startswith("#")]
        EXPECTED.write_text("\n".join([*head, HEADER, *rows]) + "\n", encoding="utf-8")
    expected = read_expected()
    diff = "\n".join(
        difflib.unified_diff(expected, rows, "examples_expected.tsv", "current findings", lineterm="")
    )
    assert rows == expected, (
        f"the pack's findings on ../shared/examples changed; review, then run "
        f"`pytest tests/policy/test_policy_examples.py --update-golden`:\n{diff}"
    )


def test_every_rule_with_findings_is_reviewed() -> None:
    reviewed = set(
        re.findall(r"^## ([a-z0-9-]+)", (EXPECTED.parent / "examples_review.md").read_text("utf-8"), re.M)
    )
    assert {line.split("\t")[0] for line in read_expected()} == reviewed


def test_readme_states_the_counts() -> None:
    """The README's figures are those of the committed expectation file (and the documents read)."""
    documents, _current = run_examples()
    counts: Counter[Row] = Counter()
    for line in read_expected():
        rule, file, obj, count = line.split("\t")
        counts[(rule, file, obj)] = int(count)
    table = readme_table(documents, len(example_files()), counts)
    assert table in README.read_text(encoding="utf-8"), (
        f"README.md's policy table is stale; it should read:\n{table}"
    )
