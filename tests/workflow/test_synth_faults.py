"""Workflow faults of ``synth`` and ``ci`` (issue 27): a read-only checkout, a generated/ that
cannot be written, an object without a name, an app that prints, leftovers of a killed synth.
Each is one line on stderr with exit 2 (or a clean run), never exit 3, and generated/ is intact."""

from __future__ import annotations

import errno
import json
import tempfile
from pathlib import Path
from typing import Any

import pytest

from tests.workflow.project import write_project
from trainops.synth import lock as synth_lock
from trainops.synth import tree as synth_tree


def _snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _edit_web(root: Path, old: str, new: str) -> None:
    apps = root / "apps" / "__init__.py"
    text = apps.read_text()
    assert old in text
    apps.write_text(text.replace(old, new))


def test_check_takes_no_lock(cli: Any, repo: Path) -> None:
    """issue 27: `synth --check` in a read-only checkout exited 3: it created its lock file."""
    lock = synth_lock.lock_path(repo / "generated")  # in the repository's .git
    lock.unlink(missing_ok=True)
    run = cli("synth", "--check")
    assert (run.code, run.err.strip()) == (0, "synth: generated/ is fresh")
    assert not lock.exists()


def test_lock_that_cannot_be_created_is_a_usage_error(
    cli: Any, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(self: Any, *args: Any, **kwargs: Any) -> None:
        raise PermissionError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr(synth_lock.FileLock, "acquire", refuse)
    before = _snapshot(repo / "generated")
    run = cli("synth", "--force")
    assert run.code == 2
    assert run.err == (
        f"trainops: cannot create the lock file {repo / '.git' / 'trainops-generated.lock'}: "
        "Read-only file system; generated/ was not written\n"
    )
    assert _snapshot(repo / "generated") == before


@pytest.mark.parametrize(
    ("target", "error", "message"),
    [
        pytest.param(
            "atomic_write",
            OSError(errno.ENOSPC, "No space left on device"),
            "No space left on device",
            id="full",
        ),
        pytest.param(
            "mkdtemp",
            PermissionError(errno.EROFS, "Read-only file system"),
            "Read-only file system",
            id="read-only",
        ),
    ],
)
def test_force_on_an_unwritable_generated_is_one_line(
    cli: Any, repo: Path, monkeypatch: pytest.MonkeyPatch, target: str, error: OSError, message: str
) -> None:
    """issue 27: `synth --force` on a read-only or full generated/ exited 3 "unexpected error: OSError"."""

    def fail(*args: Any, **kwargs: Any) -> Any:
        raise error

    if target == "mkdtemp":
        monkeypatch.setattr(tempfile, "mkdtemp", fail)
    else:
        monkeypatch.setattr(synth_tree, target, fail)
    write_project(repo, replicas=5)
    before = _snapshot(repo / "generated")
    run = cli("synth", "--force")
    assert run.code == 2
    assert run.err.count("\n") == 1
    assert run.err.startswith("trainops: cannot write generated/: ")
    assert message in run.err
    assert run.err.endswith("; generated/ was left as it was\n")
    assert _snapshot(repo / "generated") == before
    assert sorted(p.name for p in (repo / "generated").iterdir()) == ["lab", "prod"]


def test_object_without_a_name_is_a_usage_error(cli: Any, repo: Path) -> None:
    """issue 27: an app object without metadata.name exited 3 with KeyError: 'name'."""
    _edit_web(
        repo,
        '    emit(Construct(chart, "web"), {',
        '    from cdk8s import JsonPatch\n    obj = emit(Construct(chart, "web"), {',
    )
    _edit_web(
        repo,
        "    })\n\n\nAPPS",
        '    })\n    obj.add_json_patch(JsonPatch.remove("/metadata/name"))\n\n\nAPPS',
    )
    run = cli("synth")
    assert run.code == 2
    assert run.err == ("trainops: apps: app 'web' on cluster 'lab': Deployment without a metadata.name\n")


def test_app_output_goes_to_stderr(cli: Any, repo: Path) -> None:
    """issue 27: with `ci --format json`, an app's print preceded the JSON on stdout."""
    _edit_web(repo, "def web(chart, cluster):\n", 'def web(chart, cluster):\n    print("building web")\n')
    _edit_web(repo, "import json\n", 'import json\nprint("importing apps")\n')
    run = cli("ci", "--format", "json", "--no-diff")
    assert run.code == 0, run.err
    assert json.loads(run.out)["documents"] > 0
    assert "importing apps" in run.err and "building web" in run.err


def test_leftovers_of_a_killed_synth_are_removed(cli: Any, repo: Path) -> None:
    """issue 27: a SIGKILL during synth could leave generated/.<cluster>.old.<random> behind."""
    generated = repo / "generated"
    leftovers = [
        generated / ".lab.old.k2j4h6g8",
        generated / ".lab.x9y8z7w6",
        generated / ".prod.old.a1b2c3d4",
    ]
    for leftover in leftovers:
        (leftover / "web").mkdir(parents=True)
        (leftover / "web" / "deployment_web.yaml").write_text("kind: [broken\n")
    kept = generated / ".notes"
    kept.mkdir()
    assert cli("validate", "generated").code == 0  # hidden: never read
    assert cli("synth", "--force").code == 0
    assert not any(leftover.exists() for leftover in leftovers)
    assert kept.exists()
