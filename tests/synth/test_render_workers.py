"""``render_pairs`` in worker processes, each with a Node.js of its own: the same results as in this
process, the error of the first failing app in render order, this process's kernel untouched, and
``synth --workers`` writing the same tree."""

from __future__ import annotations

import hashlib
import textwrap
from pathlib import Path
from typing import Any

import pytest

from conftest import SAMPLE
from trainops.project import load_project
from trainops.synth import render
from trainops.synth.render import cluster_pairs, render_pairs
from trainops.user_code import AppError

#: Six apps of one ConfigMap each; the apps whose number is in FAIL raise while being built.
APPS_INIT = """
from trainops.app import AppDef
from trainops.core.cluster import Cluster
from trainops.constructs._core.base import emit
from constructs import Construct

CLUSTERS = (Cluster(name="lab", kubernetes_version="1.34"),)
FAIL = {fail}


def builder(number):
    def build(chart, cluster):
        if number in FAIL:
            raise ValueError(f"Widget {{number}}: broken")
        emit(Construct(chart, "settings"), {{
            "apiVersion": "v1", "kind": "ConfigMap", "metadata": {{"name": f"settings-{{number}}"}},
            "data": {{"number": str(number)}},
        }})
    return build


APPS = tuple(AppDef(name=f"app{{n}}", build=builder(n), namespace="ml", team="research") for n in range(6))
"""


def _forced(monkeypatch: pytest.MonkeyPatch, batch: int) -> None:
    """Render in workers from the first pair on, ``batch`` renders per worker process."""
    monkeypatch.setattr(render, "PARALLEL_RENDERS", 1)
    monkeypatch.setattr(render, "BATCH_RENDERS", batch)


def _rows(results: list[Any]) -> list[Any]:
    return [None if r is None else (r.cluster, r.app, r.files, r.objects) for r in results]


def test_workers_render_the_sample_as_this_process_does(monkeypatch: pytest.MonkeyPatch) -> None:
    project = load_project(SAMPLE)
    pairs = [pair for target in project.clusters for pair in cluster_pairs(project, target)]
    assert len(pairs) > 20 and {mode for _, _, mode in pairs} == {"all", "mirror"}
    serial = render_pairs(pairs)
    assert None in serial  # a mirror render left empty keeps its slot
    _forced(monkeypatch, batch=7)
    assert _rows(render_pairs(pairs, workers=2)) == _rows(serial)
    # this process's own Node.js still answers, with the same objects, after the workers are gone
    assert _rows(render_pairs(pairs[:4])) == _rows(serial[:4])


def test_small_inputs_and_one_worker_stay_in_this_process(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_fork(*args: object, **kwargs: object) -> None:
        raise AssertionError("forked")

    monkeypatch.setattr("trainops.core.forking.fork_map", no_fork)
    project = load_project(SAMPLE)
    pairs = [pair for target in project.clusters for pair in cluster_pairs(project, target)]
    assert len(render_pairs(pairs[: render.PARALLEL_RENDERS - 1], workers=2)) == render.PARALLEL_RENDERS - 1
    _forced(monkeypatch, batch=2)
    assert len(render_pairs(pairs[:3], workers=1)) == 3


def _project(root: Path, fail: set[int]) -> Any:
    (root / "apps").mkdir(parents=True)
    (root / "apps" / "__init__.py").write_text(textwrap.dedent(APPS_INIT.format(fail=fail or "set()")))
    return load_project(root)


@pytest.mark.parametrize("fail", [{1, 4}, {4}])
def test_the_first_failing_app_in_order_is_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fail: set[int]
) -> None:
    project = _project(tmp_path, fail)
    pairs = cluster_pairs(project, project.clusters[0])
    with pytest.raises(AppError) as serial:
        render_pairs(pairs)
    _forced(monkeypatch, batch=2)  # three batches: app1 fails in the first, app4 in the last
    with pytest.raises(AppError) as parallel:
        render_pairs(pairs, workers=2)
    assert str(parallel.value) == str(serial.value)
    assert f"app {f'app{min(fail)}'!r}" in str(parallel.value)
    assert (parallel.value.file, parallel.value.line) == (serial.value.file, serial.value.line)


def _digest(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in root.rglob("*")
        if p.is_file()
    }


def test_synth_workers_write_the_same_tree(cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _forced(monkeypatch, batch=9)
    monkeypatch.setattr("trainops.workflow.PARALLEL_DOCUMENTS", 1)  # validation in workers too
    one, two = tmp_path / "one", tmp_path / "two"
    assert cli("synth", "--out", str(one), "--workers", "1").code == 0
    run = cli("synth", "--out", str(two), "-j", "2")
    assert run.code == 0, run.err
    assert _digest(two) == _digest(one) == _digest(SAMPLE / "generated")
