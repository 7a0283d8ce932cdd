"""The policy part of ``make bench``: every rule and Checkov check has one category, Checkov's JSON
report and trainops's are read right, and Checkov's sample is whole files of the corpus.

No timing is asserted here (targets live in ``make bench``).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

from bench import checkov
from bench.corpus import CorpusSpec, read_expected, write_corpus
from bench.measure import Measurement
from bench.policy import (
    CATEGORIES,
    CHECKOV_CATEGORY,
    TRAINOPS_CATEGORY,
    VALIDATE_ALONE,
    PolicyBench,
    checkov_category,
    checkov_findings,
    checkov_sample,
    evaluate,
    pack_budget,
    trainops_category,
    trainops_findings,
)
from bench.run import Report, ToolRun
from conftest import CliRun
from trainops.policy.loader import default_pack

Cli = Callable[..., CliRun]
REPO = Path(__file__).resolve().parents[2]
PACK = default_pack()


def test_every_rule_of_the_pack_has_a_category() -> None:
    assert set(PACK.rules) <= set(TRAINOPS_CATEGORY)
    assert set(TRAINOPS_CATEGORY) - set(PACK.rules) == {"waiver"}  # the engine's own rule


@pytest.mark.parametrize("table", [TRAINOPS_CATEGORY, CHECKOV_CATEGORY], ids=["trainops", "checkov"])
def test_categories_are_the_declared_ones(table: dict[str, str]) -> None:
    assert set(table.values()) <= set(CATEGORIES)


@pytest.mark.parametrize(
    ("check_id", "category"),
    [
        ("CKV_K8S_43", "images"),  # Image should use digest
        ("CKV_K8S_14", "images"),
        ("CKV_K8S_13", "resources"),  # Memory limits should be set
        ("CKV_K8S_9", "reliability"),  # Readiness Probe
        ("CKV2_K8S_6", "networking"),  # pods without a NetworkPolicy
        ("CKV_K8S_21", "gitops/config"),  # default namespace
        ("CKV_K8S_20", "security"),  # allowPrivilegeEscalation
        ("CKV_K8S_49", "security"),  # wildcards in Roles
    ],
)
def test_checkov_category(check_id: str, category: str) -> None:
    assert checkov_category(check_id) == category


@pytest.mark.parametrize(
    ("rule", "category"),
    [
        ("no-privileged", "security"),
        ("image-pinned", "images"),
        ("pvc-exists", "storage"),
        ("schema", "other"),
    ],
)
def test_trainops_category(rule: str, category: str) -> None:
    assert trainops_category(rule) == category


def _failed(check_id: str, name: str, file: str) -> dict[str, object]:
    return {"check_id": check_id, "check_name": name, "file_path": file, "resource": "Deployment.ml.x"}


def _report(failed: list[dict[str, object]], passed: int, resources: int) -> dict[str, object]:
    return {
        "check_type": "kubernetes",
        "results": {"failed_checks": failed},
        "summary": {
            "passed": passed,
            "failed": len(failed),
            "resource_count": resources,
            "checkov_version": "3.3.30",
        },
    }


def test_checkov_report_is_counted_per_check_and_file() -> None:
    report = _report(
        [
            _failed("CKV_K8S_43", "Image should use digest", "/core/part-0000.yaml"),
            _failed("CKV_K8S_43", "Image should use digest", "/core/part-0001.yaml"),
            _failed(
                "CKV_K8S_20",
                "Containers should not run with allowPrivilegeEscalation",
                "/core/part-0000.yaml",
            ),
        ],
        passed=10,
        resources=4,
    )
    output = checkov.parse_checkov(json.dumps(report))
    assert output.failed == Counter({"CKV_K8S_43": 2, "CKV_K8S_20": 1})
    assert output.names["CKV_K8S_43"] == "Image should use digest"
    assert (output.passed, output.resources) == (10, 4)
    found = checkov_findings(output, ["core/part-0000.yaml", "core/part-0001.yaml"])
    assert found.per_category == Counter({"images": 2, "security": 1})
    assert found.per_file == Counter({"core/part-0000.yaml": 2, "core/part-0001.yaml": 1})
    assert found.total == 3


def test_checkov_list_of_reports_and_empty_summary() -> None:
    empty = {"passed": 0, "failed": 0, "skipped": 0, "parsing_errors": 0, "resource_count": 0}
    one = _report([_failed("CKV_K8S_9", "Readiness Probe Should be Configured", "/a.yaml")], 1, 1)
    assert checkov.parse_checkov(json.dumps([one, one])).failed == Counter({"CKV_K8S_9": 2})
    assert checkov.parse_checkov(json.dumps(empty)).failed == Counter()


@pytest.mark.parametrize("text", ["not json", "[1]", '{"results_missing": true}'])
def test_checkov_unreadable_report(text: str) -> None:
    with pytest.raises(ValueError, match="checkov output"):
        checkov.parse_checkov(text)


def test_checkov_command_line_is_offline_kubernetes_json(tmp_path: Path) -> None:
    argv = checkov.argv(tmp_path / "checkov", ["core/a.yaml", "crd/b.yaml"])
    assert argv[1:3] == ["--framework", "kubernetes"]
    assert "--skip-download" in argv
    assert argv[argv.index("--output") + 1] == "json"
    assert argv[-3:] == ["--file", "core/a.yaml", "crd/b.yaml"]


def test_trainops_policy_report_is_counted_per_category(cli: Cli) -> None:
    fixture = REPO / "tests" / "policies" / "no-privileged" / "fail.yaml"
    run = cli("policy", "check", "--format", "json", str(fixture))
    assert run.code == 1, run.err
    found = trainops_findings(run.out, fixture.parent, Path.cwd())
    rules = Counter(f["rule"] for f in json.loads(run.out)["findings"])
    assert found.per_rule == rules
    assert found.per_category["security"] >= rules["no-privileged"] > 0
    assert found.total == sum(rules.values())
    assert trainops_findings(run.out, fixture.parent, Path.cwd(), files=["other.yaml"]).total == 0


def test_trainops_unreadable_report() -> None:
    with pytest.raises(ValueError, match="trainops output"):
        trainops_findings("{}", Path("."), Path("."))


def test_checkov_sample_is_whole_core_files_plus_the_first_crd_file(tmp_path: Path) -> None:
    write_corpus(CorpusSpec(documents=400, docs_per_file=100, crd_share=0.25), tmp_path)
    files, documents = checkov_sample(tmp_path, documents=150)
    counts = Counter(r.file for r in read_expected(tmp_path))
    assert files == ["core/part-0000.yaml", "core/part-0001.yaml", "crd/part-0000.yaml"]
    assert documents == sum(counts[f] for f in files)


def test_pack_budget_is_what_validation_leaves_of_the_target() -> None:
    # 10,000 documents at 5,000 docs/s on 2 CPUs: 2 s, 4 CPU-s at most
    budget = pack_budget(10_000, 2, validation_cpu_s=2.7, both_cpu_s=14.0)
    assert budget.total_cpu_s == pytest.approx(4.0)
    assert budget.left_cpu_s == pytest.approx(1.3)
    assert budget.pack_cpu_s == pytest.approx(11.3)
    # validation alone over the budget leaves a negative share
    over = pack_budget(5_000, 1, validation_cpu_s=1.5, both_cpu_s=2.0)
    assert (over.total_cpu_s, over.left_cpu_s, over.pack_cpu_s) == pytest.approx((1.0, -0.5, 0.5))


def _run(name: str, wall_s: float, cpu_s: float, tmp_path: Path) -> ToolRun:
    measured = Measurement(
        argv=("trainops",),
        exit_code=1,
        wall_s=wall_s,
        cpu_s=cpu_s,
        max_rss_mb=100.0,
        tree_pss_mb=100.0,
        tree_rss_mb=100.0,
        max_processes=3,
        stdout=tmp_path / f"{len(name)}.out",
        stderr=tmp_path / f"{len(name)}.err",
        method="test",
    )
    return ToolRun(name, "corpus-10k/core+crd", "corpus-10k", "policy", 10_000, measured)


def test_the_validate_policy_target_shows_what_validation_leaves_to_the_pack(tmp_path: Path) -> None:
    bench = PolicyBench(corpus="corpus-10k")
    bench.runs[VALIDATE_ALONE] = _run(VALIDATE_ALONE, 1.6, 2.7, tmp_path)
    bench.runs["trainops validate+policy"] = _run("trainops validate+policy", 10.0, 14.0, tmp_path)
    report = Report(machine={"cpus": 2})
    evaluate(bench, report)
    (target,) = report.targets
    assert not target.passed
    assert target.measured == (
        "1,000 docs/s; validation alone 6,250 docs/s, 2.70 CPU-s, leaves the pack 1.30 of 4.00 CPU-s;"
        " it used 11.30"
    )
    del bench.runs[VALIDATE_ALONE]  # not measured: the rate alone
    report = Report(machine={"cpus": 2})
    evaluate(bench, report)
    assert report.targets[0].measured == "1,000 docs/s"
