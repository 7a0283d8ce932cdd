"""``cdk8s synth`` as the README promises (issue 15 point 7): the cdk8s CLI that ``make install``
puts in ``.venv/bin/cdk8s`` runs ``python -m apps`` (cdk8s.yaml) and writes the same objects as
``trainops synth``, one ``<cluster>-<app>.k8s.yaml`` per app and cluster."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import REPO, SAMPLE

CDK8S = REPO / ".venv" / "bin" / "cdk8s"


def generated_documents() -> dict[str, list[str]]:
    """``<cluster>-<app>.k8s.yaml`` → the texts of generated/<cluster>/<app>/*.yaml in file order."""
    out: dict[str, list[str]] = {}
    for cluster in sorted(p for p in (SAMPLE / "generated").iterdir() if p.is_dir()):
        for app in sorted(p for p in cluster.iterdir() if p.is_dir()):
            out[f"{cluster.name}-{app.name}.k8s.yaml"] = [f.read_text() for f in sorted(app.glob("*.yaml"))]
    return out


def written_documents(outdir: Path) -> dict[str, list[str]]:
    return {p.name: p.read_text().split("---\n") for p in sorted(outdir.glob("*.k8s.yaml"))}


def test_python_m_apps_writes_the_objects_of_generated(tmp_path: Path) -> None:
    env = {**os.environ, "CDK8S_OUTDIR": str(tmp_path)}
    subprocess.run([sys.executable, "-m", "apps"], cwd=SAMPLE, env=env, check=True, timeout=300)
    assert written_documents(tmp_path) == generated_documents()


def test_cdk8s_synth_writes_the_objects_of_generated(tmp_path: Path) -> None:
    if not CDK8S.exists():
        pytest.skip("the cdk8s CLI is not installed (make install installs it from npm)")
    outdir = tmp_path / "dist"
    run = subprocess.run(
        [str(CDK8S), "synth", "--output", str(outdir)],
        cwd=SAMPLE,
        # cdk8s.yaml runs `python -m apps`: the interpreter trainops is installed in comes first
        env={**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    written = written_documents(outdir)
    assert written == generated_documents()
    job = yaml.safe_load(written["gpu-prod-pytorch-ddp-multi-node.k8s.yaml"][0])
    assert job["metadata"]["labels"]["trainops.dev/run-of"] == "pytorch-ddp-multi-node"
    assert "trainops.dev/spec-hash" in job["metadata"]["annotations"]
