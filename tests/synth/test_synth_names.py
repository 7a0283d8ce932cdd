"""What synth builds paths from (issue 27): ``--cluster`` is a declared cluster's name, never a path;
an object's kind and name give one flat, visible file ``<kind>_<name>.yaml`` in its app directory."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path
from typing import Any

import pytest

from conftest import SAMPLE
from trainops.synth.normalise import file_name

APPS_INIT = """
from trainops.app import AppDef
from trainops.core.cluster import Cluster
from trainops.constructs._core.base import emit
from constructs import Construct

CLUSTERS = (Cluster(name="lab", kubernetes_version="1.34", operators={{}}),)


def build(chart, cluster):
    emit(Construct(chart, "c"), {{"apiVersion": "v1", "kind": {kind!r}, "metadata": {{"name": {name!r}}}}})


APPS = (AppDef(name="demo", build=build, namespace="ml", team="research"),)
"""


def _object(kind: str, name: object) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": kind, "metadata": {"name": name}}


@pytest.mark.parametrize(
    ("kind", "name", "problem"),
    [
        ("ConfigMap", "a/.hidden", "ConfigMap metadata.name 'a/.hidden' may not contain '/' or '%'"),
        ("ConfigMap", "..", "ConfigMap metadata.name '..' may not be '.' or '..'"),
        ("ConfigMap", "a%2fb", "ConfigMap metadata.name 'a%2fb' may not contain '/' or '%'"),
        ("ConfigMap", "a\nb", "ConfigMap metadata.name 'a\\nb' may not contain control characters"),
        ("ConfigMap", "", "ConfigMap without a metadata.name"),
        ("ConfigMap", None, "ConfigMap without a metadata.name"),
        (".Hidden", "x", "kind '.Hidden' is not a Kubernetes kind"),
        ("Config/Map", "x", "kind 'Config/Map' is not a Kubernetes kind"),
    ],
)
def test_names_that_are_no_file_names_are_refused(kind: str, name: object, problem: str) -> None:
    with pytest.raises(ValueError, match="^" + re.escape(problem)):
        file_name(_object(kind, name))


@pytest.mark.parametrize(
    ("kind", "name", "expected"),
    [
        ("PyTorchJob", "bert-3f2a1b", "pytorchjob_bert-3f2a1b.yaml"),
        ("ClusterRole", "system:.aggregate", "clusterrole_system:.aggregate.yaml"),  # a path segment name
        ("Role", ".leading-dot", "role_.leading-dot.yaml"),  # the kind prefix keeps it visible
    ],
)
def test_valid_names_give_one_flat_visible_file(kind: str, name: str, expected: str) -> None:
    assert file_name(_object(kind, name)) == expected


def test_synth_of_an_object_named_like_a_hidden_path_writes_nothing(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "repo"
    (root / "apps").mkdir(parents=True)
    (root / "apps" / "__init__.py").write_text(
        textwrap.dedent(APPS_INIT.format(kind="ConfigMap", name="a/.hidden"))
    )
    monkeypatch.chdir(root)
    run = cli("synth")
    assert run.code == 2
    assert run.err == (
        "trainops: apps: app 'demo' on cluster 'lab': ConfigMap metadata.name 'a/.hidden' may not "
        "contain '/' or '%': it is no object name and no file name\n"
    )
    assert not (root / "generated").exists()


@pytest.mark.parametrize("command", ["synth", "ci"])
@pytest.mark.parametrize(
    ("cluster", "message"),
    [
        ("..", "--cluster '..': not a cluster name: it is not a DNS-1123 label"),
        (
            "../../../../../../..",
            "--cluster '../../../../../../..': not a cluster name: it is not a DNS-1123 label",
        ),
        ("/", "--cluster '/': not a cluster name: it is not a DNS-1123 label"),
        ("gpu-prod/..", "--cluster 'gpu-prod/..': not a cluster name: it is not a DNS-1123 label"),
        ("nope", "unknown cluster 'nope' (apps/clusters.py declares: "),
    ],
)
def test_cluster_option_is_a_declared_name_checked_before_the_filesystem(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str, cluster: str, message: str
) -> None:
    monkeypatch.chdir(SAMPLE)
    out = tmp_path / "out"
    run = cli(command, "--cluster", cluster, "--out", str(out))
    assert run.code == 2
    assert run.err.startswith(f"trainops: {message}")
    assert len(run.err.splitlines()) == 1
    assert not out.exists()  # not even synth's lock file
