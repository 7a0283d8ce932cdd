"""Synth safety: atomic writes, all-or-nothing swap of generated/, Ctrl-C, a file lock between
concurrent synths, and output paths confined to generated/ whatever an object's name is."""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from conftest import SAMPLE
from tests.workflow.project import commit_all, git
from trainops.core.atomic import atomic_write, staged_directories
from trainops.core.errors import UsageError
from trainops.synth import write_tree
from trainops.synth.lock import lock_path, output_lock

TRAINOPS = str(Path(sys.executable).parent / "trainops")

APPS_INIT = """
from trainops.app import AppDef
from trainops.core.cluster import Cluster
from trainops.constructs._core.base import emit
from constructs import Construct

CLUSTERS = (
    Cluster(name="lab", kubernetes_version="1.34", operators={{}}),
    Cluster(name="prod", kubernetes_version="1.34", operators={{}}),
)


def build(chart, cluster):
    for i in range(3):
        emit(Construct(chart, f"c{{i}}"), {{
            "apiVersion": "v1", "kind": "ConfigMap", "metadata": {{"name": {name!r} + str(i)}},
            "data": {{"revision": {revision!r}}},
        }})


APPS = (AppDef(name="demo", build=build, namespace="ml", team="research"),)
"""

#: Runs ``trainops synth`` with the per-file write paused after the first file of the second
#: cluster: it touches $PAUSED and waits for $RESUME (so a test can interrupt or race it).
DRIVER = """
import os, pathlib, sys, time
import trainops.synth.tree as tree
real = tree.atomic_write
count = 0
def paused(path, data):
    global count
    real(path, data)
    count += 1
    if count == 4:
        pathlib.Path(os.environ["PAUSED"]).touch()
        while not pathlib.Path(os.environ["RESUME"]).exists():
            time.sleep(0.02)
tree.atomic_write = paused
from trainops.cli import main
sys.exit(main(["synth"]))
"""


def _project(root: Path, revision: str, name: str = "settings-") -> Path:
    (root / "apps").mkdir(parents=True, exist_ok=True)
    (root / "apps" / "__init__.py").write_text(
        textwrap.dedent(APPS_INIT.format(revision=revision, name=name))
    )
    return root


def _snapshot(root: Path) -> dict[str, str]:
    """Every file and directory under ``root`` → sha256 of its bytes, or "dir"."""
    out = {}
    for path in sorted(root.rglob("*")):
        out[str(path.relative_to(root))] = (
            "dir" if path.is_dir() else hashlib.sha256(path.read_bytes()).hexdigest()
        )
    return out


@pytest.fixture
def synthesised(cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project synthesised once at revision "1", then changed to revision "2" (not yet synthesised)."""
    root = _project(tmp_path / "repo", "1")
    monkeypatch.chdir(root)
    run = cli("synth")
    assert run.code == 0, run.err
    _project(root, "2")
    return root


def test_exception_mid_write_leaves_generated_unchanged(
    cli: Any, synthesised: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import trainops.synth.tree as tree

    before = _snapshot(synthesised / "generated")
    written: list[Path] = []

    def failing(path: Path, data: bytes) -> None:
        if len(written) == 4:  # the first cluster is complete, the second half-written
            raise OSError(28, "No space left on device")
        atomic_write(path, data)
        written.append(path)

    monkeypatch.setattr(tree, "atomic_write", failing)
    run = cli("synth")
    assert run.code == 2 and "No space left on device" in run.err  # a one-line error (issue 27)
    assert _snapshot(synthesised / "generated") == before
    assert "revision: '1'" in (synthesised / "generated/prod/demo/configmap_settings-0.yaml").read_text()


def test_failed_swap_is_undone(synthesised: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A rename failing in the middle of the multi-cluster swap puts back the clusters already swapped."""
    out = synthesised / "generated"
    before = _snapshot(out)
    real_rename = Path.rename
    staged = 0

    def rename(self: Path, target: Any) -> Any:
        nonlocal staged
        if self.name.startswith(".prod.") and ".old." not in self.name:
            staged += 1
            raise OSError(18, "Invalid cross-device link")
        return real_rename(self, target)

    monkeypatch.setattr(Path, "rename", rename)
    with pytest.raises(OSError, match="cross-device"):
        write_tree(out, {"lab/demo/a.yaml": "a: 1\n", "prod/demo/a.yaml": "a: 1\n"}, ["lab", "prod"])
    assert staged == 1
    assert _snapshot(out) == before


def test_staged_directories_swap_all(tmp_path: Path) -> None:
    finals = [tmp_path / "a", tmp_path / "b"]
    finals[0].mkdir()
    (finals[0] / "old.txt").write_text("old")
    with staged_directories(finals) as stagings:
        for staging in stagings:
            (staging / "new.txt").write_text("new")
    assert sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*")) == [
        "a",
        "a/new.txt",
        "b",
        "b/new.txt",
    ]


def test_atomic_write_failure_keeps_old_content(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "f.yaml"
    path.write_text("old\n")

    def replace(src: str, dst: str) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", replace)
    with pytest.raises(KeyboardInterrupt):
        atomic_write(path, b"new\n")
    assert path.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["f.yaml"]


def _driver(root: Path, tmp_path: Path, tag: str, **env: str) -> tuple[subprocess.Popen[str], Path, Path]:
    paused, resume = tmp_path / f"{tag}.paused", tmp_path / f"{tag}.resume"
    proc = subprocess.Popen(
        [sys.executable, "-c", DRIVER],
        cwd=root,
        env={**os.environ, "PAUSED": str(paused), "RESUME": str(resume), **env},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    return proc, paused, resume


def _wait_for(path: Path, proc: subprocess.Popen[str], seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not path.exists():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.05)


def test_sigint_mid_synth_leaves_generated_unchanged(synthesised: Path, tmp_path: Path) -> None:
    before = _snapshot(synthesised / "generated")
    proc, paused, _ = _driver(synthesised, tmp_path, "a")
    _wait_for(paused, proc)  # the first cluster is staged, the second half-written
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert err.strip() == "trainops: interrupted"
    assert _snapshot(synthesised / "generated") == before


def test_concurrent_synths_are_serialised_by_a_lock(synthesised: Path, tmp_path: Path) -> None:
    first, paused, resume = _driver(synthesised, tmp_path, "first")
    _wait_for(paused, first)
    impatient = subprocess.run(
        [TRAINOPS, "synth"],
        cwd=synthesised,
        env={**os.environ, "TRAINOPS_LOCK_TIMEOUT": "0.5"},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert impatient.returncode == 2
    lock = lock_path(Path("generated"))
    assert impatient.stderr.splitlines()[-1] == (
        f"trainops: generated/ is still being written by another trainops synth after 0 s ({lock}); "
        "wait for it to finish or stop it"
    )
    second = subprocess.Popen(
        [TRAINOPS, "synth"],
        cwd=synthesised,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert second.stderr is not None
    waiting = second.stderr.readline()
    assert waiting.startswith("trainops: generated/ is being written by another trainops synth")
    resume.touch()
    assert first.wait(timeout=120) == 0
    assert second.wait(timeout=120) == 0
    assert "revision: '2'" in (synthesised / "generated/prod/demo/configmap_settings-2.yaml").read_text()


def test_lock_is_released_after_a_synth(tmp_path: Path) -> None:
    with output_lock(tmp_path / "generated", timeout=0):
        pass
    with output_lock(tmp_path / "generated", timeout=0) as path:
        assert path == tmp_path / ".generated.lock"
    assert not (tmp_path / "generated").exists()  # nothing is written into the output root


@pytest.mark.parametrize(
    "command",
    [
        ("synth",),
        ("new", "pytorchjob", "demo", "--image", "registry.example.com/demo:1.0", "--", "python", "train.py"),
    ],
    ids=["synth", "new"],
)
def test_the_lock_is_kept_where_git_does_not_see_it(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: tuple[str, ...]
) -> None:
    """Issue 32 point 4: in a repository without init's .gitignore (the sample), ``.generated.lock``
    in the root showed as untracked; the lock now lives in the git directory."""
    root = tmp_path / "platform"
    ignore = shutil.ignore_patterns("__pycache__", ".generated.lock")
    shutil.copytree(SAMPLE, root, ignore=ignore)  # its .gitignore does not name the lock
    git(root, "init", "-q", "-b", "main")
    commit_all(root, "the sample")
    monkeypatch.chdir(root)
    run = cli(*command)
    assert run.code == 0, run.out + run.err
    changed = [line[3:] for line in git(root, "status", "--porcelain", "--untracked-files=all").splitlines()]
    if command[0] == "new":  # the new app's module, its registration and its output
        assert "apps/demo.py" in changed and any(p.startswith("generated/") for p in changed)
        assert all(p.startswith(("apps/", "generated/")) for p in changed), changed
    else:  # generated/ was up to date
        assert changed == []
    assert lock_path(root / "generated") == root / ".git" / "trainops-generated.lock"
    assert lock_path(root / "generated").is_file()


def test_the_lock_of_a_linked_worktree_is_in_its_own_git_directory(tmp_path: Path) -> None:
    main = tmp_path / "main"
    main.mkdir()
    (main / "README.md").write_text("x\n")
    git(main, "init", "-q", "-b", "main")
    commit_all(main, "first")
    git(main, "worktree", "add", "-q", str(tmp_path / "feature"), "-b", "feature")
    with output_lock(tmp_path / "feature" / "deploy" / "generated", timeout=0) as path:
        assert path == main / ".git" / "worktrees" / "feature" / "trainops-deploy-generated.lock"
    assert git(tmp_path / "feature", "status", "--porcelain", "--untracked-files=all") == ""


@pytest.mark.parametrize(
    ("tree", "clusters"),
    [
        ({"lab/demo/configmap_../../../escape.yaml": "x: 1\n"}, ["lab"]),
        ({"lab/../escape.yaml": "x: 1\n"}, ["lab"]),
        ({"lab//escape.yaml": "x: 1\n"}, ["lab"]),
        ({"lab/demo/con\nfigmap.yaml": "x: 1\n"}, ["lab"]),
        ({"lab/demo/a\\..\\b.yaml": "x: 1\n"}, ["lab"]),
        ({"../escape/a.yaml": "x: 1\n"}, [".."]),
        ({"/tmp/escape/a.yaml": "x: 1\n"}, ["/tmp/escape"]),
    ],
    ids=[
        "dotdot-in-name",
        "dotdot-dir",
        "empty-part",
        "control-char",
        "backslash",
        "cluster-dotdot",
        "absolute",
    ],
)
def test_output_paths_are_confined(tmp_path: Path, tree: dict[str, str], clusters: list[str]) -> None:
    out = tmp_path / "repo" / "generated"
    out.mkdir(parents=True)
    with pytest.raises(UsageError, match="refusing to write outside"):
        write_tree(out, tree, clusters)
    assert [p for p in tmp_path.rglob("*") if p.is_file()] == []


def test_object_name_cannot_escape_generated(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _project(tmp_path / "repo", "1", name="../../../../escape-")
    monkeypatch.chdir(root)
    for args in (["synth"], ["synth", "--no-validate"]):  # the file name is refused before validation
        run = cli(*args)
        assert run.code == 2
        assert run.err == (
            "trainops: apps: app 'demo' on cluster 'lab': ConfigMap metadata.name '../../../../escape-0' "
            "may not contain '/' or '%': it is no object name and no file name\n"
        )
    assert [p.name for p in tmp_path.rglob("*escape*")] == []
