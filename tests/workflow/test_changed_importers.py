"""``trainops synth --changed`` finds the apps a change touches by scanning only the files that can
import a changed module (``diff.changed.importers``): the same answer as the full import graph; it
links the files of unchanged apps into the new tree instead of rewriting them."""

from __future__ import annotations

from pathlib import Path

import pytest

from trainops.diff.changed import importers, module_imports

PACKAGE = {
    "__init__.py": "from apps import one, two, three, four\n",
    "one.py": "from apps.common import IMAGE\n",
    "two.py": "from . import helpers\n",
    "three.py": "import apps.sub.deep\n",
    "four.py": "X = 'common helpers deep'  # names in text, no import\n",
    "common.py": "IMAGE = 'x'\n",
    "helpers.py": "from .common import IMAGE\n",
    "sub/__init__.py": "from . import deep\n",
    "sub/deep.py": "from .. import common\n",
    "sub/leaf.py": "from . import *\n",
}


@pytest.fixture
def apps_dir(tmp_path: Path) -> Path:
    root = tmp_path / "apps"
    for rel, text in PACKAGE.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root.resolve()


def _closure_answer(apps_dir: Path, changed: set[Path]) -> set[Path]:
    graph = module_imports(apps_dir, "apps")
    out = set()
    for start in graph:
        seen, todo = set(), [start]
        while todo:
            current = todo.pop()
            if current not in seen:
                seen.add(current)
                todo.extend(graph.get(current, ()))
        if seen & changed:
            out.add(start)
    return out


@pytest.mark.parametrize(
    "changed",
    [
        ["common.py"],
        ["helpers.py"],
        ["sub/deep.py"],
        ["sub/__init__.py"],
        ["four.py"],
        ["one.py", "two.py"],
        [],
    ],
)
def test_importers_agree_with_the_import_graph(apps_dir: Path, changed: list[str]) -> None:
    files = {apps_dir / rel for rel in changed}
    assert importers(apps_dir, "apps", files) == _closure_answer(apps_dir, files)


def test_a_shared_module_reaches_every_importer(apps_dir: Path) -> None:
    found = {
        p.relative_to(apps_dir).as_posix() for p in importers(apps_dir, "apps", {apps_dir / "common.py"})
    }
    assert found == {"common.py", "one.py", "helpers.py", "two.py", "sub/deep.py", "sub/__init__.py",
                     "three.py", "sub/leaf.py", "__init__.py"}  # fmt: skip


def test_kept_files_are_linked_not_rewritten(tmp_path: Path) -> None:
    from trainops.synth.tree import write_tree

    out = tmp_path / "generated"
    tree = {"lab/app/a.yaml": "a: 1\n", "lab/app/b.yaml": "b: 1\n", "lab/lock.json": "{}\n"}
    write_tree(out, tree, ["lab"])
    kept = out / "lab" / "app" / "a.yaml"
    inode = kept.stat().st_ino
    links = {"lab/app/a.yaml": kept, "lab/app/b.yaml": tmp_path / "missing.yaml"}
    write_tree(out, {**tree, "lab/app/b.yaml": "b: 2\n"}, ["lab"], links=links)
    assert kept.stat().st_ino == inode  # the same file, linked into the new tree
    assert kept.read_text() == "a: 1\n"
    assert (out / "lab" / "app" / "b.yaml").read_text() == "b: 2\n"  # link failed: written
    assert oct(kept.stat().st_mode & 0o777) == "0o644"
