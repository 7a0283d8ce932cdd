"""``trainops ci --shard K/N`` and ``trainops ci --merge DIR`` (issue 36 point 4): shards check
disjoint apps, and the joined reports equal one unsharded run's, byte for byte."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.workflow.project import write_project
from trainops.core.errors import UsageError
from trainops.workflow import Shard, shard_number

#: The test repository's apps (its clusters run no Argo CD: no ``argocd`` objects); with 3 shards
#: they fall in shards 2 (data, and the rest of each lock.json), 3 (train) and 1 (web).
NAMES = ("data", "train", "web")


@pytest.fixture
def findings_repo(cli: Any, repo: Path) -> Path:
    """The workflow test repository with a new training run since the base commit (a diff), then
    the default policy pack (errors in every app: added after synth, which refuses them)."""
    write_project(repo, workers=8, replicas=3)
    assert cli("synth").code == 0
    (repo / "policies").mkdir()
    (repo / "policies" / "config.yaml").write_text("extends: default\n")
    return repo


def _reports(cli: Any, where: Path, *args: str) -> tuple[int, str]:
    where.mkdir(parents=True)
    run = cli(
        "ci",
        *args,
        "--format",
        "sarif",
        "--output",
        str(where / "trainops.sarif"),
        "--format",
        "junit",
        "--output",
        str(where / "trainops.xml"),
        "--diff-output",
        str(where / "trainops.diff.json"),
    )
    return run.code, run.err


@pytest.mark.parametrize("count", [2, 3, 4])
def test_joined_shard_reports_equal_one_run(
    cli: Any, findings_repo: Path, tmp_path: Path, count: int
) -> None:
    whole_code, _ = _reports(cli, tmp_path / "whole")
    codes = [
        _reports(cli, tmp_path / "shards" / str(k), "--shard", f"{k}/{count}")[0] for k in range(1, count + 1)
    ]
    merged = cli(
        "ci",
        "--merge",
        str(tmp_path / "shards"),
        "--format",
        "sarif",
        "--output",
        str(tmp_path / "merged.sarif"),
        "--format",
        "junit",
        "--output",
        str(tmp_path / "merged.xml"),
        "--diff-output",
        str(tmp_path / "merged.diff.json"),
    )
    whole = tmp_path / "whole"
    assert (tmp_path / "merged.sarif").read_text() == (whole / "trainops.sarif").read_text()
    assert (tmp_path / "merged.xml").read_text() == (whole / "trainops.xml").read_text()
    assert (tmp_path / "merged.diff.json").read_text() == (whole / "trainops.diff.json").read_text()
    assert '"level": "error"' in (whole / "trainops.sarif").read_text()  # the pack found errors
    assert '"change": "new-run"' in (whole / "trainops.diff.json").read_text()
    # the run fails when any shard fails, and the merge says so too
    assert whole_code == 1 and 1 in codes and merged.code == 1


def test_merged_diff_as_markdown_equals_the_diff_command(
    cli: Any, findings_repo: Path, tmp_path: Path
) -> None:
    for k in (1, 2, 3):
        _reports(cli, tmp_path / "shards" / str(k), "--shard", f"{k}/3")
    merged = cli("ci", "--merge", str(tmp_path / "shards"), "--diff-output", str(tmp_path / "diff.md"))
    assert merged.code == 0, merged.err  # no report format asked: only the diff
    direct = cli("diff", "--format", "markdown", "--output", str(tmp_path / "direct.md"))
    assert direct.code == 0, direct.err
    assert (tmp_path / "diff.md").read_text() == (tmp_path / "direct.md").read_text()
    assert "new run" in (tmp_path / "diff.md").read_text()


def test_each_shard_checks_its_own_apps(cli: Any, findings_repo: Path) -> None:
    expected = {k: sorted(n for n in NAMES if shard_number(n, 3) == k) for k in (1, 2, 3)}
    assert sorted(n for k in expected for n in expected[k]) == sorted(NAMES)
    for k, names in expected.items():
        run = cli("ci", "--shard", f"{k}/3", "--format", "text", "--no-diff")
        head = run.err.splitlines()[0]
        assert head == f"trainops ci: shard {k}/3: {len(names)} apps ({', '.join(names)})"
        shown = {line.split("│")[2].strip() for line in run.out.splitlines() if line.startswith("│ lab")}
        assert shown == set(names)


def test_a_shard_reports_drift_of_its_own_apps_only(cli: Any, findings_repo: Path) -> None:
    stale = findings_repo / "generated" / "lab" / "web"
    target = next(stale.glob("deployment_*.yaml"))
    target.write_text(target.read_text().replace("replicas: 3", "replicas: 5"))
    web = shard_number("web", 3)
    for other in {1, 2, 3} - {web}:  # the others, the one that checks the rest of lock.json too
        assert cli("ci", "--shard", f"{other}/3", "--format", "text", "--no-diff").code == 0
    run = cli("ci", "--shard", f"{web}/3", "--format", "text", "--no-diff")
    assert run.code == 1
    assert f"changed  generated/lab/web/{target.name}" in run.err
    assert "lock.json" not in run.err  # the lock records what synth wrote, which the edit did not change


def test_shards_are_stable_when_apps_are_added() -> None:
    before = {name: shard_number(name, 4) for name in NAMES}
    after = {name: shard_number(name, 4) for name in (*NAMES, "argocd", "new-app", "another")}
    assert {name: after[name] for name in NAMES} == before


@pytest.mark.parametrize("text", ["0/3", "4/3", "3", "a/b", "1/0", "-1/2", "1/3/4"])
def test_bad_shard_is_a_usage_error(cli: Any, repo: Path, text: str) -> None:
    with pytest.raises(UsageError, match="--shard: expected K/N"):
        Shard.parse(text)
    run = cli("ci", "--shard", text)
    assert run.code == 2
    assert run.err.count("\n") == 1 and "--shard: expected K/N" in run.err


@pytest.mark.parametrize(
    ("files", "message"),
    [
        ({}, "no sarif report (*.sarif)"),
        ({"a.sarif": "{}"}, "a.sarif: not a SARIF report of trainops"),
        ({"a.sarif": '{"runs": [{"tool": {"driver": {"name": "other"}}, "results": []}]}'}, "not a SARIF"),
    ],
)
def test_merge_rejects_what_trainops_did_not_write(
    cli: Any, tmp_path: Path, files: dict[str, str], message: str
) -> None:
    directory = tmp_path / "in"
    directory.mkdir()
    for name, text in files.items():
        (directory / name).write_text(text)
    run = cli("ci", "--merge", str(directory), "--format", "sarif", "--output", str(tmp_path / "out.sarif"))
    assert run.code == 2
    assert message in run.err and run.err.count("\n") == 1
    assert not (tmp_path / "out.sarif").exists()


def test_merge_rejects_a_diff_that_is_not_trainops(cli: Any, tmp_path: Path) -> None:
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "x.diff.json").write_text('{"base": "a"}')
    run = cli("ci", "--merge", str(tmp_path / "in"), "--diff-output", str(tmp_path / "d.md"))
    assert run.code == 2 and "x.diff.json: not a diff written by `trainops ci --diff-output`" in run.err


def test_shard_and_merge_exclude_each_other(cli: Any, repo: Path, tmp_path: Path) -> None:
    run = cli("ci", "--shard", "1/2", "--merge", str(tmp_path))
    assert run.code == 2 and "--shard and --merge exclude each other" in run.err
