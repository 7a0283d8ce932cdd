"""The ``junit`` format: JUnit XML, one test case per file, failures for error findings."""

from __future__ import annotations

from trainops.core.findings import Finding, Result
from trainops.report.text import text_line


def render_junit(result: Result) -> str:
    """JUnit XML: one test case per file, failures for error findings."""
    from xml.sax.saxutils import escape, quoteattr  # here: it imports urllib (start-up of every command)

    by_file: dict[str, list[Finding]] = {}
    for finding in result.sorted():
        by_file.setdefault(finding.file, []).append(finding)
    failures = sum(1 for items in by_file.values() if any(f.level == "error" for f in items))
    cases = []
    for file, items in sorted(by_file.items()):
        body = "\n".join(escape(text_line(f)) for f in items)
        errors = [f for f in items if f.level == "error"]
        inner = (
            f'<failure message={quoteattr(errors[0].message)} type="{errors[0].rule}">{body}</failure>'
            if errors
            else f"<system-out>{body}</system-out>"
        )
        cases.append(f'    <testcase classname="trainops" name={quoteattr(file)}>{inner}</testcase>')
    return junit_document(cases, failures)


def junit_document(cases: list[str], failures: int) -> str:
    """The JUnit XML document around ``cases`` (one ``<testcase>`` element text each, in order),
    ``failures`` of which hold a failure; a placeholder case when there are none."""
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<testsuites><testsuite name="trainops" tests="{max(len(cases), 1)}" failures="{failures}">\n'
        + ("\n".join(cases) + "\n" if cases else f"{PLACEHOLDER_CASE}\n")
        + "</testsuite></testsuites>\n"
    )


#: The test case of a run with no finding (JUnit consumers reject an empty suite).
PLACEHOLDER_CASE = '    <testcase classname="trainops" name="all files"/>'
