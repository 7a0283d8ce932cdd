"""Join the reports of CI shards (``trainops ci --merge``) into the report one unsharded run writes.

Shards check disjoint apps, so each file's findings come from exactly one shard: joining is a
union ordered by file, the order :meth:`trainops.core.findings.Result.sorted` gives one run. Only
reports trainops wrote are read (SARIF from :mod:`trainops.report.sarif`, JUnit from
:mod:`trainops.report.junit`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from trainops.core.errors import UsageError
from trainops.report.junit import PLACEHOLDER_CASE, junit_document

#: One report: ``(file name, text)``.
Report = tuple[str, str]

_CASE = re.compile(r'    <testcase classname="trainops" name=.*?(?:</testcase>|/>)(?=\n)', re.S)


@dataclass(frozen=True)
class Merger:
    """How ``--merge`` joins one format.

    Args:
        pattern: the file names it reads under the merge directory (a ``Path.rglob`` pattern).
        join: ``reports -> (joined text, whether it holds an error-level finding)``; raises
            :class:`UsageError` for a report trainops did not write.
    """

    pattern: str
    join: Callable[[Sequence[Report]], tuple[str, bool]]


def join_sarif(reports: Sequence[Report]) -> tuple[str, bool]:
    """One SARIF 2.1.0 log with one run: every shard's results, stably ordered by file, and the
    union of their rule descriptors by ID.

    Raises:
        UsageError: a report is not a one-run SARIF log of trainops.
    """
    runs = [_sarif_run(name, text) for name, text in reports]
    results = sorted((r for run in runs for r in run["results"]), key=_result_file)
    rules = {rule["id"]: rule for run in runs for rule in run["tool"]["driver"]["rules"]}
    first = json.loads(reports[0][1])
    run: dict[str, Any] = dict(first["runs"][0])
    run["results"] = results
    run["tool"] = {"driver": {**run["tool"]["driver"], "rules": [rules[k] for k in sorted(rules)]}}
    first["runs"] = [run]
    errors = any(r.get("level") == "error" for r in results)
    return json.dumps(first, indent=2, sort_keys=True) + "\n", errors


def join_junit(reports: Sequence[Report]) -> tuple[str, bool]:
    """One JUnit document: every shard's test cases (one per file), ordered by file.

    Raises:
        UsageError: a report is not a JUnit document of trainops.
    """
    from xml.etree import ElementTree

    cases: list[tuple[str, str, bool]] = []
    for name, text in reports:
        if '<testsuite name="trainops"' not in text:
            raise UsageError(f"{name}: not a JUnit report of trainops")
        for case in _CASE.findall(text):
            if case == PLACEHOLDER_CASE:
                continue
            try:
                element = ElementTree.fromstring(case)
            except ElementTree.ParseError as exc:
                raise UsageError(f"{name}: not a JUnit report of trainops ({exc})") from None
            cases.append((str(element.get("name")), case, element.find("failure") is not None))
    cases.sort(key=lambda item: item[0])
    failures = sum(1 for _, _, failed in cases if failed)
    return junit_document([case for _, case, _ in cases], failures), failures > 0


#: ``--format`` → how ``--merge`` joins it.
MERGERS: dict[str, Merger] = {
    "sarif": Merger("*.sarif", join_sarif),
    "junit": Merger("*.xml", join_junit),
}


def _sarif_run(name: str, text: str) -> dict[str, Any]:
    try:
        log = json.loads(text)
        [run] = log["runs"]
        if run["tool"]["driver"]["name"] != "trainops" or not isinstance(run["results"], list):
            raise ValueError("not trainops's")
        return dict(run)
    except (ValueError, KeyError, TypeError) as exc:
        raise UsageError(f"{name}: not a SARIF report of trainops ({exc})") from None


def _result_file(result: dict[str, Any]) -> str:
    return str(result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"])
