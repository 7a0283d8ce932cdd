"""``trainops new`` (issue 15 point 3): each supported kind scaffolds a module that registers
itself, synthesises and validates clean at once, and passes the repository's ruff rules; existing
apps are never overwritten; unsupported kinds are one-line usage errors."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from conftest import REPO, SAMPLE
from trainops.core.errors import UsageError
from trainops.scaffold import Request, create_app

ARGS: dict[str, tuple[str, ...]] = {
    "pytorchjob": (
        "--gpus", "4", "--workers", "4", "--image", "registry.example.com/train:1.2",
        "--data", "training-data:/data", "--",
        "python", "-m", "torch.distributed.run", "--nproc_per_node=4", "train.py",
    ),
    "serving": ("--image", "registry.example.com/serve:1.0", "--data", "training-output:/models", "--port", "8501"),
    "katib": ("--image", "registry.example.com/train:1.2", "--", "python", "train.py"),
    "tfjob": ("--workers", "2", "--gpus", "1", "--image", "registry.example.com/tf:2.16", "--", "python", "train.py"),
    "mpijob": ("--workers", "2", "--gpus", "2", "--image", "registry.example.com/horovod:0.28", "--", "python", "train.py"),
    "xgboostjob": ("--workers", "3", "--image", "registry.example.com/xgb:2.1", "--data", "training-data:/data", "--", "python", "train.py"),
    "kserve": ("--model-format", "xgboost", "--storage-uri", "s3://models/fraud/v3", "--max-replicas", "4"),
}  # fmt: skip
KINDS_WRITTEN = {
    "pytorchjob": ["PyTorchJob"],
    "serving": ["Deployment", "HorizontalPodAutoscaler", "Service"],
    "katib": ["Experiment"],
    "tfjob": ["TFJob"],
    "mpijob": ["MPIJob"],
    "xgboostjob": ["XGBoostJob"],
    "kserve": ["InferenceService"],
}


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cli: Any) -> Path:
    """A copy of the bundled apps/ and generated/ (the repository's own layout)."""
    root = tmp_path / "repo"
    shutil.copytree(SAMPLE / "apps", root / "apps", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(SAMPLE / "generated", root / "generated")
    monkeypatch.chdir(root)
    assert cli("synth", "--force").code == 0
    return root


@pytest.fixture
def bare_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the bundled apps/ alone: enough for options refused before anything is synthesised."""
    root = tmp_path / "repo"
    shutil.copytree(SAMPLE / "apps", root / "apps", ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.chdir(root)
    return root


def _ruff(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ruff", *args, "--config", str(REPO / "pyproject.toml"), str(root / "apps")],
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.mark.parametrize("kind", list(ARGS))
def test_scaffold_registers_synthesises_and_validates(cli: Any, repo: Path, kind: str) -> None:
    name = f"demo-{kind}"
    run = cli("new", kind, name, *ARGS[kind])
    assert run.code == 0, run.err
    module = repo / "apps" / f"demo_{kind}.py"
    assert module.is_file()
    assert f"demo_{kind}.APP," in (repo / "apps" / "__init__.py").read_text()
    clusters = sorted(p.parent.name for p in (repo / "generated").glob(f"*/{name}"))
    assert clusters
    for cluster in clusters:
        written = sorted(
            yaml.safe_load(p.read_text())["kind"]
            for p in (repo / "generated" / cluster / name).glob("*.yaml")
        )
        assert written == KINDS_WRITTEN[kind], cluster
    ci = cli("ci", "--format", "text", "--no-diff")
    assert ci.code == 0, ci.out + ci.err
    assert "0 errors, 0 warnings" in ci.out
    lint = _ruff(repo, "check")
    assert lint.returncode == 0, lint.stdout
    formatted = _ruff(repo, "format", "--check")
    assert formatted.returncode == 0, formatted.stdout


def test_pytorchjob_scaffold_mirrors_arena_options(cli: Any, repo: Path) -> None:
    assert cli("new", "pytorchjob", "bert-ft", *ARGS["pytorchjob"]).code == 0
    job = yaml.safe_load(
        next((repo / "generated/gpu-prod/bert-ft").glob("pytorchjob_bert-ft-*.yaml")).read_text()
    )
    worker = job["spec"]["pytorchReplicaSpecs"]["Worker"]
    container = worker["template"]["spec"]["containers"][0]
    assert worker["replicas"] == 4
    assert container["resources"]["limits"]["nvidia.com/gpu"] == "4"
    assert container["image"] == "registry.example.com/train:1.2"
    assert container["command"] == ["python", "-m", "torch.distributed.run", "--nproc_per_node=4", "train.py"]
    mounts = {m["mountPath"]: m["name"] for m in container["volumeMounts"]}
    volumes = {v["name"]: v for v in worker["template"]["spec"]["volumes"]}
    assert volumes[mounts["/data"]]["persistentVolumeClaim"]["claimName"] == "training-data"


def test_xgboostjob_counts_the_master_among_the_workers(cli: Any, repo: Path) -> None:
    assert cli("new", "xgboostjob", "xgb", *ARGS["xgboostjob"]).code == 0
    job = yaml.safe_load(next((repo / "generated/gpu-prod/xgb").glob("xgboostjob_xgb-*.yaml")).read_text())
    replicas = {role: spec["replicas"] for role, spec in job["spec"]["xgbReplicaSpecs"].items()}
    assert replicas == {"Master": 1, "Worker": 2}


def test_refuses_to_overwrite(cli: Any, repo: Path) -> None:
    assert cli("new", "serving", "api", "--image", "registry.example.com/serve:1.0").code == 0
    module = repo / "apps" / "api.py"
    before = module.read_text(), (repo / "apps" / "__init__.py").read_text()
    run = cli("new", "serving", "api", "--image", "registry.example.com/serve:2.0")
    assert run.code == 2
    assert "already exists: refusing to overwrite" in run.err
    assert (module.read_text(), (repo / "apps" / "__init__.py").read_text()) == before


def test_refuses_an_app_name_already_registered(cli: Any, repo: Path) -> None:
    run = cli("new", "serving", "tf-serving", "--image", "registry.example.com/serve:1.0")
    assert run.code == 2
    assert "already" in run.err


def test_unknown_kind_is_a_usage_error(cli: Any, repo: Path) -> None:
    run = cli("new", "sparkjob", "later", "--image", "registry.example.com/x:1")
    assert run.code == 2
    assert "'sparkjob' is not one of" in run.err
    assert not (repo / "apps" / "later.py").exists()


def test_a_kind_without_template_is_not_yet_supported(repo: Path) -> None:
    request = Request(kind="sparkjob", name="later", image="registry.example.com/x:1")  # type: ignore[arg-type]
    with pytest.raises(UsageError, match=r"^not yet supported: sparkjob"):
        create_app(repo / "apps", request, lambda: None)
    assert not (repo / "apps" / "later.py").exists()


def test_a_scaffold_that_fails_to_build_is_removed(cli: Any, repo: Path) -> None:
    before = (repo / "apps" / "__init__.py").read_text()
    run = cli("new", "pytorchjob", "broken", "--image", "not an image")
    assert run.code == 2
    assert "apps/broken.py:" in run.err and "image" in run.err
    assert not (repo / "apps" / "broken.py").exists()
    assert (repo / "apps" / "__init__.py").read_text() == before


@pytest.mark.parametrize(
    ("args", "message"),
    [
        pytest.param(
            ("--image", "a/b:1", "--data", "nocolon"), "expected CLAIM:/absolute/path", id="bad-data"
        ),
        pytest.param((), "--image is required", id="no-image"),
        pytest.param(("--image", "a/b:1", "--env", "NOEQUALS"), "expected KEY=VALUE", id="bad-env"),
    ],
)
def test_bad_options(cli: Any, repo: Path, args: tuple[str, ...], message: str) -> None:
    run = cli("new", "pytorchjob", "opts", *args)
    assert run.code == 2
    assert message in run.err
    assert not (repo / "apps" / "opts.py").exists()


# --- large-model options (issue 33 point 6): --nodes, --gpus-per-node, --queue, --placement, --cluster ---

BIG = (
    "--nodes",
    "4",
    "--gpus-per-node",
    "8",
    "--queue",
    "ml-training",
    "--image",
    "registry.example.com/train:1.2",
)


def test_large_model_options_place_and_queue_the_job(cli: Any, repo: Path) -> None:
    run = cli("new", "mpijob", "big", *BIG, "--placement", "rack", "--", "python", "train.py")
    assert run.code == 0, run.err
    # Only gpu-next and its MultiKueue workers run Kueue with a topology that declares "rack"; the job
    # itself goes to the manager only (MultiKueue creates it on a worker).
    assert 'clusters=("gpu-next",)' in (repo / "apps" / "big.py").read_text()
    jobs = sorted(p.parent.parent.name for p in (repo / "generated").glob("*/big/mpijob_big-*.yaml"))
    assert jobs == ["gpu-next"]
    job = yaml.safe_load(next((repo / "generated/gpu-next/big").glob("mpijob_big-*.yaml")).read_text())
    assert job["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] == "ml-training"
    specs = job["spec"]["mpiReplicaSpecs"]
    assert specs["Worker"]["replicas"] == 4
    container = specs["Worker"]["template"]["spec"]["containers"][0]
    assert container["resources"]["limits"]["nvidia.com/gpu"] == "8"
    for role in ("Launcher", "Worker"):
        annotations = specs[role]["template"]["metadata"]["annotations"]
        assert annotations["kueue.x-k8s.io/podset-required-topology"] == "cloud.example.com/topology-rack"
        assert annotations["kueue.x-k8s.io/podset-group-name"] == "rack"
    assert 'placement=TopologyPlacement(required="rack")' in (repo / "apps" / "big.py").read_text()
    ci = cli("ci", "--format", "text", "--no-diff")
    assert ci.code == 0, ci.out + ci.err
    assert _ruff(repo, "check").returncode == 0
    assert _ruff(repo, "format", "--check").returncode == 0


def test_preferred_placement(cli: Any, repo: Path) -> None:
    run = cli("new", "mpijob", "pref", *BIG, "--placement", "preferred:block", "--", "python", "train.py")
    assert run.code == 0, run.err
    job = yaml.safe_load(next((repo / "generated/gpu-next/pref").glob("mpijob_pref-*.yaml")).read_text())
    worker = job["spec"]["mpiReplicaSpecs"]["Worker"]["template"]["metadata"]["annotations"]
    assert worker["kueue.x-k8s.io/podset-preferred-topology"] == "cloud.example.com/topology-block"
    assert "kueue.x-k8s.io/podset-required-topology" not in worker


@pytest.mark.parametrize(
    ("args", "message"),
    [
        pytest.param(
            ("mpijob", *BIG, "--placement", "zone"),
            "cluster 'gpu-next' topology 'gpu-fabric' has no level 'zone' (levels: block, rack, host)",
            id="undeclared-level",
        ),
        pytest.param(
            ("pytorchjob", *BIG),
            "cluster 'gpu-prod' does not run Kueue (no kueue in operators) for --queue 'ml-training'",
            id="queue-without-kueue",
        ),
        pytest.param(
            ("mpijob", *BIG, "--cluster", "gpu-prod"),
            "mpijob: cluster 'gpu-prod' does not run Kueue",
            id="named-cluster-without-kueue",
        ),
        pytest.param(
            ("mpijob", "--cluster", "gpu-nowhere", "--image", "a/b:1"),
            "--cluster 'gpu-nowhere' is not in apps/clusters.py",
            id="unknown-cluster",
        ),
        pytest.param(
            ("mpijob", "--placement", "rack", "--image", "a/b:1"),
            "--placement 'rack' needs --queue",
            id="no-queue",
        ),
        pytest.param(
            ("mpijob", *BIG, "--placement", "sideways:rack"), "expected LEVEL, required:LEVEL", id="bad-mode"
        ),
        pytest.param(("mpijob", "--queue", "Team_A", "--image", "a/b:1"), "DNS-1123 label", id="bad-queue"),
        pytest.param(
            ("serving", "--queue", "ml-training", "--image", "a/b:1"),
            "--queue applies to pytorchjob, tfjob, mpijob, xgboostjob only",
            id="kind-without-queue",
        ),
    ],
)
def test_bad_large_model_options_write_nothing(
    cli: Any, bare_repo: Path, args: tuple[str, ...], message: str
) -> None:
    repo = bare_repo
    before = (repo / "apps" / "__init__.py").read_text()
    run = cli("new", args[0], "big", *args[1:], "--", "python", "train.py")
    assert run.code == 2
    assert message in run.err
    assert run.err.count("\n") == 1, run.err
    assert not (repo / "apps" / "big.py").exists()
    assert (repo / "apps" / "__init__.py").read_text() == before
