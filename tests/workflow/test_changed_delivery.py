"""``trainops synth --changed`` on clusters delivered by Argo CD: the ``argocd/`` objects are rendered
again from every app (kept apps read from their files), so the tree equals a full synth's."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path
from typing import Any

import pytest

from conftest import SAMPLE
from tests.workflow.project import init_repo

REPO = Path(__file__).resolve().parents[2]


def _digest(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


@pytest.mark.parametrize(
    ("module", "edit"),
    [
        ("tf_serving.py", ("", "\n# a comment: the app is rendered again, its objects are the same\n")),
        ("pytorch_ddp_multi_node.py", ("workers=4", "workers=6")),
    ],
)
def test_changed_keeps_argocd_objects_as_a_full_synth_writes_them(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, module: str, edit: tuple[str, str]
) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    shutil.copytree(SAMPLE / "apps", root / "apps", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(SAMPLE / "generated", root / "generated")
    monkeypatch.chdir(root)
    init_repo(root)
    assert any((root / "generated").glob("*/argocd/*.yaml")), "the bundled clusters are delivered by Argo CD"
    path = root / "apps" / module
    old, new = edit
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1) if old else text + new)
    run = cli("synth", "--changed", "--no-validate")
    assert run.code == 0, run.err
    partial = _digest(root / "generated")
    assert cli("synth", "--no-validate").code == 0
    assert _digest(root / "generated") == partial
