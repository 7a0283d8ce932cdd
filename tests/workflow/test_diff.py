"""``trainops diff`` on real git histories built in a temporary repository (issue 15 point 2)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.workflow.project import commit_all, git, write_project


def _change(cli: Any, root: Path, **params: Any) -> dict[str, Any]:
    write_project(root, **params)
    run = cli("synth")
    assert run.code == 0, run.out + run.err
    out = cli("diff", "HEAD", "--format", "json")
    assert out.code == 0, out.err
    payload: dict[str, Any] = json.loads(out.out)
    return payload


def _only(payload: dict[str, Any], **match: str) -> dict[str, Any]:
    hits = [c for c in payload["changes"] if all(c[k] == v for k, v in match.items())]
    assert len(hits) == 1, payload["changes"]
    return hits[0]


def _flags(change: dict[str, Any]) -> list[str]:
    return [a["kind"] for a in change["attention"]]


def test_no_changes(cli: Any, repo: Path) -> None:
    run = cli("diff", "HEAD")
    assert run.code == 0
    assert run.out.strip() == "generated/ HEAD → working tree: no changes"


def test_run_once_rehash_is_a_new_run_with_field_diff(cli: Any, repo: Path) -> None:
    payload = _change(cli, repo, workers=8, image="registry.example.com/train:1.1")
    assert payload["summary"]["new-run"] == 1
    assert payload["summary"]["added"] == payload["summary"]["removed"] == 0
    change = _only(payload, kind="PyTorchJob")
    assert change["change"] == "new-run"
    assert change["base"] == "bert"
    assert change["old"]["name"] != change["new"]["name"]
    fields = {f["path"]: (f["old"], f["new"]) for f in change["fields"]}
    assert fields["$.spec.pytorchReplicaSpecs.Worker.replicas"] == (4, 8)
    image = "$.spec.pytorchReplicaSpecs.Worker.template.spec.containers[name=pytorch].image"
    assert fields[image] == ("registry.example.com/train:1.0", "registry.example.com/train:1.1")
    assert _flags(change) == ["new-run"]
    text = cli("diff", "HEAD").out
    assert f"new run of bert: PyTorchJob ml/{change['old']['name']} → {change['new']['name']}" in text
    assert "$.spec.pytorchReplicaSpecs.Worker.replicas: 4 → 8" in text


def test_change_in_place(cli: Any, repo: Path) -> None:
    change = _only(_change(cli, repo, replicas=3), kind="Deployment")
    assert change["change"] == "changed"
    assert change["fields"] == [{"path": "$.spec.replicas", "old": 2, "new": 3}]
    assert change["attention"] == []


def test_added_object_and_new_run(cli: Any, repo: Path) -> None:
    payload = _change(cli, repo, volumes=["dataset", "checkpoints", "scratch"])
    change = _only(payload, kind="PersistentVolumeClaim", change="added")
    assert (change["base"], change["new"]["file"]) == (
        "scratch",
        "generated/lab/data/persistentvolumeclaim_scratch.yaml",
    )
    assert change["attention"] == []


@pytest.mark.parametrize("kind", ["removed"])
def test_removed_pvc_is_flagged_as_data_loss(cli: Any, repo: Path, kind: str) -> None:
    payload = _change(cli, repo, volumes=["dataset"])
    change = _only(payload, kind="PersistentVolumeClaim", change=kind)
    assert change["base"] == "checkpoints"
    assert _flags(change) == ["data-deleted"]
    markdown = cli("diff", "HEAD", "--format", "markdown").out
    assert "**data-deleted**" in markdown
    assert "<details><summary><code>lab/data</code>: 1 removed</summary>" in markdown


def test_rename_is_one_change(cli: Any, repo: Path) -> None:
    payload = _change(cli, repo, web="frontend")
    change = _only(payload, kind="Deployment")
    assert change["change"] == "renamed"
    assert (change["old"]["name"], change["new"]["name"]) == ("web", "frontend")
    assert payload["summary"]["added"] == payload["summary"]["removed"] == 0


@pytest.mark.parametrize(
    ("params", "kind", "path"),
    [
        pytest.param(
            {"selector": "frontend"}, "Deployment", "$.spec.selector.matchLabels.app", id="selector"
        ),
        pytest.param(
            {"storage_role": "default"}, "PersistentVolumeClaim", "$.spec.storageClassName", id="pvc-class"
        ),
    ],
)
def test_immutable_field_change_is_flagged(
    cli: Any, repo: Path, params: dict[str, Any], kind: str, path: str
) -> None:
    payload = _change(cli, repo, **params)
    changes = [c for c in payload["changes"] if c["kind"] == kind]
    assert changes and all(c["change"] == "changed" for c in changes)
    for change in changes:
        assert _flags(change) == ["immutable"]
        assert path in change["attention"][0]["message"]


def test_move_to_a_protected_cluster(cli: Any, repo: Path) -> None:
    payload = _change(cli, repo, data_clusters=["prod"])
    moved = [c for c in payload["changes"] if c["change"] == "moved"]
    assert sorted(c["base"] for c in moved) == ["checkpoints", "dataset"]
    for change in moved:
        assert (change["old"]["cluster"], change["new"]["cluster"]) == ("lab", "prod")
        assert _flags(change) == ["data-deleted", "moved", "protected"]


def test_a_platform_version_bump_is_a_platform_upgrade_with_its_api_impact(cli: Any, repo: Path) -> None:
    # one source of truth: bumping Kueue in apps/clusters.py changes the Application installing it
    # (and the operator version validation targets); the diff names the upgrade and what it deprecates
    lab = {"argo-cd": "v3.5.1", "kueue": "v0.14.8"}
    write_project(repo, lab_operators=lab, queue=True)
    assert cli("synth").code == 0
    commit_all(repo, "kueue v0.14.8")
    payload = _change(cli, repo, lab_operators={**lab, "kueue": "v0.19.2"}, queue=True)
    change = _only(payload, kind="Application", base="lab-kueue")
    fields = {f["path"]: (f["old"], f["new"]) for f in change["fields"]}
    assert fields["$.spec.source.targetRevision"] == ("0.14.8", "0.19.2")
    assert ("v0.14.8", "v0.19.2") in fields.values()  # the version label
    (why,) = [a["message"] for a in change["attention"] if a["kind"] == "platform-upgrade"]
    assert why == (
        "platform upgrade on lab: kueue v0.14.8 → v0.19.2; "
        "it deprecates kueue.x-k8s.io/v1beta1 LocalQueue, still used there"
    )
    text = cli("diff", "HEAD").out
    assert "! [platform-upgrade] lab/argocd: platform upgrade on lab: kueue v0.14.8 → v0.19.2" in text


def test_default_base_is_the_merge_base_with_main(cli: Any, repo: Path) -> None:
    git(repo, "checkout", "-q", "-b", "feature")
    write_project(repo, replicas=5)
    assert cli("synth").code == 0
    commit_all(repo, "five replicas")
    write_project(repo, replicas=6)
    assert cli("synth").code == 0
    run = cli("diff", "--format", "json")
    assert run.code == 0, run.err
    payload = json.loads(run.out)
    assert payload["base"].startswith("merge-base ")
    change = _only(payload, kind="Deployment")
    assert change["fields"] == [{"path": "$.spec.replicas", "old": 2, "new": 6}]


def test_reads_the_base_from_git_objects_without_checkout(cli: Any, repo: Path) -> None:
    head = git(repo, "rev-parse", "HEAD").strip()
    write_project(repo, replicas=4)
    assert cli("synth").code == 0
    commit_all(repo, "four replicas")
    payload = json.loads(cli("diff", head, "--format", "json").out)
    assert _only(payload, kind="Deployment")["fields"] == [{"path": "$.spec.replicas", "old": 2, "new": 4}]
    assert git(repo, "status", "--porcelain") == ""


@pytest.mark.parametrize(
    ("args", "message"),
    [
        pytest.param(("no-such-rev",), "unknown revision 'no-such-rev'", id="bad-revision"),
    ],
)
def test_usage_errors(cli: Any, repo: Path, args: tuple[str, ...], message: str) -> None:
    run = cli("diff", *args)
    assert run.code == 2
    assert message in run.err


def test_outside_a_repository(cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    run = cli("diff", "HEAD")
    assert run.code == 2
    assert "not inside a git repository" in run.err
