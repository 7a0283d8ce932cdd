"""Issue 15 points 1 and 6: labels, run-of identity, lock.json, hand-edit refusal, validation
before writing, and user errors in apps/ reported as one line naming app, file and line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.workflow.project import write_project
from trainops import __version__


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = write_project(tmp_path / "repo")
    monkeypatch.chdir(root)
    return root


def _job_file(root: Path) -> Path:
    return next((root / "generated/lab/train").glob("pytorchjob_bert-*.yaml"))


def test_run_once_objects_carry_their_base_name(cli: Any, project: Path) -> None:
    assert cli("synth").code == 0, cli("synth").err
    job = yaml.safe_load(_job_file(project).read_text())
    labels = job["metadata"]["labels"]
    assert labels["trainops.dev/run-of"] == "bert"
    assert job["metadata"]["name"].startswith("bert-")
    assert labels["app.kubernetes.io/managed-by"] == "trainops"
    assert labels["trainops.dev/team"] == "research"
    pvc = yaml.safe_load((project / "generated/lab/data/persistentvolumeclaim_dataset.yaml").read_text())
    assert "trainops.dev/run-of" not in pvc["metadata"]["labels"]


def test_lock_records_identity_file_sha_and_version(cli: Any, project: Path) -> None:
    assert cli("synth").code == 0
    lock = json.loads((project / "generated/lab/lock.json").read_text())
    assert lock["trainops"] == __version__
    entry = next(o for o in lock["objects"] if o["kind"] == "PyTorchJob")
    job_file = _job_file(project)
    assert entry["group"] == "kubeflow.org"
    assert entry["namespace"] == "ml"
    assert entry["base"] == "bert"
    assert entry["file"] == f"train/{job_file.name}"
    import hashlib

    assert entry["sha256"] == hashlib.sha256(job_file.read_bytes()).hexdigest()
    assert (
        entry["specHash"]
        == yaml.safe_load(job_file.read_text())["metadata"]["annotations"]["trainops.dev/spec-hash"]
    )
    deployment = next(o for o in lock["objects"] if o["kind"] == "Deployment")
    assert (deployment["group"], deployment["base"]) == ("apps", "web")


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        pytest.param("edit", "edited generated/lab/web/deployment_web.yaml", id="edited"),
        pytest.param("add", "added generated/lab/web/configmap_extra.yaml", id="added"),
        pytest.param("delete", "deleted generated/lab/web/deployment_web.yaml", id="deleted"),
    ],
)
def test_synth_refuses_a_hand_edited_tree_unless_forced(
    cli: Any, project: Path, edit: str, expected: str
) -> None:
    assert cli("synth").code == 0
    target = project / "generated/lab/web/deployment_web.yaml"
    if edit == "edit":
        target.write_text(target.read_text().replace("replicas: 2", "replicas: 3"))
    elif edit == "add":
        (target.parent / "configmap_extra.yaml").write_text("apiVersion: v1\nkind: ConfigMap\n")
    else:
        target.unlink()
    refused = cli("synth")
    assert refused.code == 2
    assert expected in refused.err
    assert "--force" in refused.err
    assert len(refused.err.strip().splitlines()) == 1
    forced = cli("synth", "--force")
    assert forced.code == 0, forced.err
    assert "replicas: 2" in target.read_text()
    assert cli("synth").code == 0


def test_synth_validates_before_writing(cli: Any, project: Path) -> None:
    assert cli("synth").code == 0
    before = (project / "generated/lab/web/deployment_web.yaml").read_text()
    write_project(project, replicas="two")
    run = cli("synth")
    assert run.code == 1
    assert "generated/lab/web/deployment_web.yaml" in run.out
    assert "$.spec.replicas" in run.out
    assert "was not written" in run.err
    assert (project / "generated/lab/web/deployment_web.yaml").read_text() == before


BROKEN_APP = """
def broken(chart, cluster):
    settings = {"workers": 4}
    return settings["workers"] + "4"
"""


def test_exception_in_an_app_names_app_file_and_line(cli: Any, project: Path) -> None:
    init = project / "apps" / "__init__.py"
    text = init.read_text().replace("\nAPPS = (", BROKEN_APP + "\n\nAPPS = (")
    text = text.replace(
        "APPS = (\n", 'APPS = (\n    AppDef(name="broken", build=broken, namespace="ml", team="research"),\n'
    )
    init.write_text(text)
    line = text.splitlines().index('    return settings["workers"] + "4"') + 1
    run = cli("synth")
    assert run.code == 2
    assert run.err.strip() == (
        f"trainops: apps/__init__.py:{line}: app 'broken' on cluster 'lab': "
        "TypeError: unsupported operand type(s) for +: 'int' and 'str'"
    )
    traced = cli("--traceback", "synth")
    assert traced.code == 2
    assert "Traceback (most recent call last)" in traced.err
    assert f'apps/__init__.py", line {line}, in broken' in traced.err


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        pytest.param("import nonexistent_module_xyz\n", "ModuleNotFoundError: No module named", id="import"),
        pytest.param(
            "VALUE = undefined_name\n", "NameError: name 'undefined_name' is not defined", id="name"
        ),
        pytest.param("def f(:\n", "SyntaxError: invalid syntax", id="syntax"),
    ],
)
def test_import_error_in_an_app_module_names_file_and_line(
    cli: Any, project: Path, source: str, expected: str
) -> None:
    (project / "apps" / "extra.py").write_text("X = 1\n" + source)
    init = project / "apps" / "__init__.py"
    init.write_text("from apps import extra\n" + init.read_text())
    run = cli("synth")
    assert run.code == 2
    assert run.err.startswith("trainops: apps/extra.py:2: apps: ")
    assert expected in run.err
    assert len(run.err.strip().splitlines()) == 1
