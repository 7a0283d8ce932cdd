"""The YAML of the seed articles (../shared/seeds, transcribed under tests/seeds/) gives the findings
issue 12 lists, and no others than the reviewed list of tests/seeds/expected.tsv.

How a new user tries it: one ``trainops policy check`` per article (each seed is one author's
set of manifests; checking all five at once would mix unrelated objects, e.g. seed 003's and seed
004's ``training-data`` claims), default config, with the facts the issue implies
(``tests/seeds/facts.yaml``: a cluster whose only StorageClass is ``standard``).

What "findings" means here: every finding of the default config that can fail a run, i.e. errors
and warnings (``--strict`` fails on both, and CI runs policy checks strict), at the granularity of
(rule, file, object). Info-level notices never fail a run and are not counted (there are none).

"And no others": the issue's list names the problems a reader of these articles should see first.
The pack also reports, on every hand-written object, what the articles never set (security
context, labels, namespace, requests, probes...) and a few further true problems the list leaves
out (seed 000's 8-GPU job also lacks /dev/shm; seed 000's Katib trial template uses parameters it
never declares; seed 003's pods mount claims and ConfigMaps it never defines). Turning those rules
off or down would hide real problems of the same YAML, so the test pins the complete reviewed set
(``expected.tsv``, reasons per rule in ``tests/seeds/README.md``): any finding outside it, or a
vanished one, fails; ``ISSUE`` checks that each listed problem is among them, with its message.
"""

from __future__ import annotations

import difflib
import json
import re
from collections import Counter
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from conftest import REPO
from trainops.pipeline import policy_check, policy_run

SEEDS = REPO / "tests" / "seeds"
FACTS = SEEDS / "facts.yaml"
EXPECTED = SEEDS / "expected.tsv"
HEADER = "rule\tfile\tobject\tcount"

S000, S003, S004 = "000_8252f191c214e13d", "003_331104d28dbdbb0b", "004_c7213899911f3dc5"

#: The issue's list: each problem → the findings (rule, file under tests/seeds, object, message part).
ISSUE: dict[str, list[tuple[str, str, str, str]]] = {
    "`latest` tags on every image": [
        ("image-pinned", f"{S000}/pytorchjob.yaml", "PyTorchJob/my-large-model-training", "is tagged latest"),
        ("image-pinned", f"{S000}/experiment.yaml", "Experiment/large-model-hpo", "is tagged latest"),
        (
            "image-pinned",
            f"{S003}/3.1-tfjob.yaml",
            "TFJob/default/tensorflow-training",
            "is tagged latest-gpu",
        ),
        ("image-pinned", f"{S003}/3.2-mpijob.yaml", "MPIJob/default/pytorch-training", "is tagged latest"),
        ("image-pinned", f"{S003}/4.1-deployment-service.yaml", "Deployment/default/model-serving", "latest"),
        (
            "image-pinned",
            f"{S003}/9.2-mpijob.yaml",
            "MPIJob/ml-workloads/pytorch-training",
            "is tagged latest",
        ),
        (
            "image-pinned",
            f"{S003}/9.3-deployment-service.yaml",
            "Deployment/ml-workloads/model-serving",
            "latest",
        ),
        (
            "image-pinned",
            f"{S004}/pytorchjob-single-node.yaml",
            "PyTorchJob/pytorch-ddp-single-node",
            "latest",
        ),
        ("image-pinned", f"{S004}/pytorchjob-multi-node.yaml", "PyTorchJob/pytorch-ddp-multi-node", "latest"),
    ],
    "a 4-GPU job without /dev/shm": [
        (
            "shm-size",
            f"{S004}/pytorchjob-single-node.yaml",
            "PyTorchJob/pytorch-ddp-single-node",
            '"pytorch" (4 GPUs) mounts no memory emptyDir at /dev/shm',
        ),
    ],
    "an elastic job started without torchrun": [
        (
            "elastic-bounds",
            f"{S004}/pytorchjob-multi-node.yaml",
            "PyTorchJob/pytorch-ddp-multi-node",
            "not torchrun",
        ),
    ],
    "an HPA on a Deployment without requests that also pins replicas": [
        (
            "hpa-target",
            f"{S003}/5.1-hpa.yaml",
            "HorizontalPodAutoscaler/default/model-serving-hpa",
            "requests no cpu",
        ),
        (
            "hpa-target",
            f"{S003}/9.4-hpa.yaml",
            "HorizontalPodAutoscaler/ml-workloads/model-serving-hpa",
            "requests no memory",
        ),
        (
            "hpa-bounds",
            f"{S003}/4.1-deployment-service.yaml",
            "Deployment/default/model-serving",
            "omit spec.replicas",
        ),
        (
            "hpa-bounds",
            f"{S003}/9.3-deployment-service.yaml",
            "Deployment/ml-workloads/model-serving",
            "omit spec.replicas",
        ),
    ],
    "a public LoadBalancer in front of a model server": [
        (
            "exposed-service",
            f"{S003}/9.3-deployment-service.yaml",
            "Service/ml-workloads/model-serving",
            "LoadBalancer",
        ),
    ],
    "a ServiceMonitor whose Service has no labels and an unnamed port": [
        (
            "servicemonitor-target",
            f"{S003}/7.2-servicemonitor.yaml",
            "ServiceMonitor/monitoring/model-serving",
            "selects pods by app=model-serving but carries no labels",
        ),
        (
            "servicemonitor-target",
            f"{S003}/7.2-servicemonitor.yaml",
            "ServiceMonitor/monitoring/model-serving",
            "has no port named metrics",
        ),
        (
            "named-ports",
            f"{S003}/4.1-deployment-service.yaml",
            "Service/default/model-serving",
            "8501 has no name",
        ),
        (
            "named-ports",
            f"{S003}/9.3-deployment-service.yaml",
            "Service/ml-workloads/model-serving",
            "8501 has no name",
        ),
    ],
    "an RWX PVC on a storage class the cluster does not have": [
        (
            "pvc-storage",
            f"{S004}/pvc-nas.yaml",
            "PersistentVolumeClaim/training-data",
            '"alicloud-nas" is not a class',
        ),
    ],
    "two HPAs with the same name": [
        (
            "unique-objects",
            f"{S003}/5.2-hpa.yaml",
            "HorizontalPodAutoscaler/default/model-serving-hpa",
            "defined more than once",
        ),
    ],
}

Row = tuple[str, str, str]


def seed_dirs() -> list[Path]:
    """One directory per seed article that holds YAML."""
    return sorted(d for d in SEEDS.iterdir() if d.is_dir())


def _key(file: str, rule: str, kind: str | None, namespace: str | None, name: str | None) -> Row:
    where = f"{namespace}/" if namespace else ""
    return (rule, str(Path(file).resolve().relative_to(SEEDS)), f"{kind}/{where}{name}")


@cache
def findings() -> tuple[tuple[Row, str, str], ...]:
    """(row, level, message) of every finding, one ``policy_check`` per seed directory."""
    run = policy_run(facts=str(FACTS))
    found: list[tuple[Row, str, str]] = []
    for directory in seed_dirs():
        result = policy_check([str(p) for p in sorted(directory.glob("*.yaml"))], run)
        found += [
            (_key(f.file, f.rule, f.kind, f.namespace, f.name), f.level, f.message) for f in result.sorted()
        ]
    return tuple(found)


def rows() -> list[str]:
    counts = Counter(row for row, _level, _message in findings())
    return [f"{r}\t{f}\t{o}\t{counts[(r, f, o)]}" for r, f, o in sorted(counts)]


def read_expected() -> list[str]:
    lines = EXPECTED.read_text(encoding="utf-8").splitlines()
    return [line for line in lines if line and not line.startswith("#") and line != HEADER]


def test_exactly_the_reviewed_findings(request: pytest.FixtureRequest) -> None:
    current = rows()
    if request.config.getoption("--update-golden"):
        head = [line for line in EXPECTED.read_text(encoding="utf-8").splitlines() if line.startswith("#")]
        EXPECTED.write_text("\n".join([*head, HEADER, *current]) + "\n", encoding="utf-8")
    expected = read_expected()
    diff = "\n".join(difflib.unified_diff(expected, current, "expected.tsv", "current findings", lineterm=""))
    assert current == expected, f"findings on tests/seeds changed (review, then --update-golden):\n{diff}"


@pytest.mark.parametrize(
    ("problem", "rule", "file", "obj", "part"), [(p, *f) for p, fs in ISSUE.items() for f in fs]
)
def test_issue_finding_is_reported(problem: str, rule: str, file: str, obj: str, part: str) -> None:
    messages = [
        m for row, level, m in findings() if row == (rule, file, obj) and level in ("error", "warning")
    ]
    assert any(part in m for m in messages), f"{problem}: no {rule} finding on {file} {obj} saying {part!r}"


def test_every_image_is_flagged_as_latest() -> None:
    images = sum(
        len(re.findall(r"^\s*(?:- )?image:", p.read_text("utf-8"), re.M)) for p in SEEDS.rglob("*.yaml")
    )
    flagged = [m for row, _level, m in findings() if row[0] == "image-pinned"]
    assert images and len(flagged) == images
    assert all(re.search(r"is tagged latest(-gpu)?$", m) for m in flagged)


def test_findings_are_errors_or_warnings() -> None:
    assert {level for _row, level, _m in findings()} == {"error", "warning"}


def test_every_rule_beyond_the_issue_is_reviewed() -> None:
    listed = {rule for fs in ISSUE.values() for rule, *_ in fs}
    extra = {line.split("\t")[0] for line in read_expected()} - listed
    reviewed = set(re.findall(r"`([a-z][a-z0-9-]*)`", (SEEDS / "README.md").read_text("utf-8")))
    assert extra <= reviewed


def test_cli_reports_the_same(cli: Any) -> None:
    run = cli("policy", "check", "--facts", str(FACTS), "--format", "json", str(SEEDS / S003))
    assert run.code == 1
    reported = sorted(
        _key(f["file"], f["rule"], f.get("kind"), f.get("namespace"), f.get("name"))
        for f in json.loads(run.out)["findings"]
    )
    assert reported == sorted(row for row, _level, _m in findings() if row[1].startswith(S003))
