"""``trainops synth --changed`` and ``-v`` (issue 15 point 8): only apps whose sources or
imported modules changed since BASE are rendered, and the tree is byte-identical to a full synth;
the bench project of ``make bench`` synthesises valid objects (7 per app)."""

from __future__ import annotations

import hashlib
import re
import textwrap
from pathlib import Path
from typing import Any

import pytest

from bench.synth import write_project as write_bench_project
from tests.workflow.project import commit_all, git, init_repo, write_project

SHARED = '''
"""A module two apps import."""

IMAGE = "{image}"
'''


def _digest(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


@pytest.fixture
def repo(cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The workflow project with ``train`` and ``web`` reading their image from ``apps/shared.py``."""
    root = write_project(tmp_path / "repo")
    init = root / "apps" / "__init__.py"
    text = init.read_text().replace(
        "from apps.clusters import CLUSTERS\n",
        "from apps.clusters import CLUSTERS\nfrom apps import shared\n",
    )
    text = text.replace('image=P["image"]', "image=shared.IMAGE").replace(
        '"image": "nginx:1.27"', '"image": shared.IMAGE'
    )
    init.write_text(text)
    (root / "apps" / "shared.py").write_text(
        textwrap.dedent(SHARED.format(image="registry.example.com/app:1.0"))
    )
    monkeypatch.chdir(root)
    assert cli("synth").code == 0
    init_repo(root)
    return root


def _rendered(err: str) -> set[str]:
    return {m.group(1) for m in re.finditer(r"synth: lab/(\S+): \d+ objects, render", err)}


def test_nothing_changed_renders_nothing(cli: Any, repo: Path) -> None:
    before = _digest(repo / "generated")
    run = cli("synth", "--changed", "-v")
    assert run.code == 0, run.err
    assert _rendered(run.err) == set()
    assert "(0 rendered, 3 unchanged)" in run.err
    assert _digest(repo / "generated") == before


def test_a_module_imported_by_one_app_changes_that_app_only(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "bench"
    write_bench_project(root, 3)
    (root / "apps" / "common.py").write_text('SUFFIX = "a"\n')
    app = root / "apps" / "app002.py"
    app.write_text(
        app.read_text().replace("WORKERS = 2\n", "WORKERS = 2\nfrom apps.common import SUFFIX  # noqa\n")
    )
    monkeypatch.chdir(root)
    assert cli("synth").code == 0
    init_repo(root)
    (root / "apps" / "common.py").write_text('SUFFIX = "b"\n')
    run = cli("synth", "--changed", "-v")
    assert run.code == 0, run.err
    assert {m.group(1) for m in re.finditer(r"synth: bench/(\S+): \d+ objects, render", run.err)} == {
        "app002"
    }


def test_an_imported_module_changes_the_apps_importing_it(cli: Any, repo: Path) -> None:
    (repo / "apps" / "shared.py").write_text(
        textwrap.dedent(SHARED.format(image="registry.example.com/app:2.0"))
    )
    run = cli("synth", "--changed", "-v")
    assert run.code == 0, run.err
    assert _rendered(run.err) == {"data", "train", "web"}  # the package __init__ imports shared


def test_changed_output_equals_a_full_synth(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "bench"
    write_bench_project(root, 3)
    monkeypatch.chdir(root)
    assert cli("synth").code == 0
    init_repo(root)
    app = root / "apps" / "app001.py"
    app.write_text(app.read_text().replace("WORKERS = 2", "WORKERS = 3"))
    run = cli("synth", "--changed", "-v")
    assert run.code == 0, run.err
    assert _rendered(run.err.replace("synth: bench/", "synth: lab/")) == {"app001"}
    assert "synth: bench/app000: 7 objects kept (unchanged)" in run.err
    partial = _digest(root / "generated")
    assert cli("synth").code == 0
    assert _digest(root / "generated") == partial
    commit_all(root, "three workers")
    assert cli("synth", "--changed", "--base", "HEAD", "-v").code == 0


def test_bench_project_apps_have_seven_valid_objects(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "bench"
    write_bench_project(root, 2)
    monkeypatch.chdir(root)
    run = cli("synth", "-v")
    assert run.code == 0, run.out + run.err
    assert run.err.count(": 7 objects, render ") == 2


def test_changed_names_what_it_re_rendered(cli: Any, repo: Path) -> None:
    (repo / "apps" / "shared.py").write_text(
        textwrap.dedent(SHARED.format(image="registry.example.com/app:3.0"))
    )
    run = cli("synth", "--changed", "--base", "HEAD")
    assert run.code == 0, run.err
    head = re.search(r"synth: --changed since ([0-9a-f]{12}): re-rendered (.*)$", run.err, re.MULTILINE)
    assert head is not None, run.err
    assert head.group(2) == "lab/data, lab/train, lab/web"


def test_changed_says_when_nothing_is_re_rendered(cli: Any, repo: Path) -> None:
    run = cli("synth", "--changed", "--base", "HEAD")
    assert run.code == 0, run.err
    assert re.search(r"^synth: --changed since [0-9a-f]{12}: nothing to re-render$", run.err, re.MULTILINE)


def test_pre_commit_hook_finds_a_stale_app_by_its_change_alone(cli: Any, repo: Path) -> None:
    """The ``trainops-synth-check`` hook (``synth --check --changed --base HEAD``) re-renders the app
    whose source changed since the last commit and fails on its stale files."""
    assert cli("synth", "--check", "--changed", "--base", "HEAD").code == 0
    (repo / "apps" / "shared.py").write_text(
        textwrap.dedent(SHARED.format(image="registry.example.com/app:4.0"))
    )
    stale = cli("synth", "--check", "--changed", "--base", "HEAD")
    assert stale.code == 1, stale.err
    assert "re-rendered lab/data, lab/train, lab/web" in stale.err


def test_pre_commit_hook_before_the_first_commit_checks_every_app(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In a repository with no commit yet (the first commit after ``trainops init``) every app is
    new: the hook renders them all instead of failing on a missing ``HEAD``."""
    root = write_project(tmp_path / "repo")
    monkeypatch.chdir(root)
    assert cli("synth").code == 0
    git(root, "init", "-q", "-b", "main")
    run = cli("synth", "--check", "--changed", "--base", "HEAD")
    assert run.code == 0, run.err
    assert "synth: --changed before the first commit: re-rendered lab/data, lab/train, lab/web" in run.err
    write_project(root, replicas=3)
    assert cli("synth", "--check", "--changed", "--base", "HEAD").code == 1


def test_changed_outside_a_git_repository_is_a_usage_error(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = write_project(tmp_path / "repo")
    monkeypatch.chdir(root)
    run = cli("synth", "--changed")
    assert run.code == 2
    assert "not a git repository" in run.err
