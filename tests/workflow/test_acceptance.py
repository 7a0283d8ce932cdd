"""Acceptance of issue 24: trainops used as a new user uses it, outside this source tree.

The wheel is built from this checkout (once per session: conftest ``built_wheel``), installed into a new virtual environment
outside the source tree, and in an empty temporary git repository every step of the user's first
change exits 0 with no ``trainops schemas sync`` before it (the schemas come on first use, from
TRAINOPS_CRD_MIRROR=../shared/crds as a download would bring them):

    trainops init
    trainops new pytorchjob demo --gpus 1 --workers 2 --image registry.example.com/demo/train:1.0.0 -- python train.py
    trainops synth
    trainops validate generated
    trainops policy check generated
    trainops ci
    git commit
    (the job's worker count changed in apps/demo.py)
    trainops synth
    trainops diff HEAD

and the commands that read the package's data files (issue 32 point 1: an installed ``trainops
argocd health-checks`` crashed on a Lua file left out of the wheel), each printing what the same
command of this checkout prints: ``trainops argocd health-checks``, ``trainops policy list``,
``trainops explain RULE``, ``trainops policy export-vap`` and ``trainops policy schema``.

Nothing is downloaded: the wheel is built without build isolation and installed without its
dependencies, which the new environment sees through a ``.pth`` file naming the site-packages of the
interpreter running the tests (a ``.pth`` line adds a directory to ``sys.path`` without running the
``.pth`` files in it, so this checkout's editable install is not seen). Run it alone with
``pytest -m acceptance``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from conftest import CRDS, REPO, needs_shared
from trainops.argocd.health import HEALTH_CHECKS, PRELUDE

pytestmark = [pytest.mark.acceptance, needs_shared]

NEW_JOB = (
    "new", "pytorchjob", "demo", "--gpus", "1", "--workers", "2",
    "--image", "registry.example.com/demo/train:1.0.0", "--", "python", "train.py",
)  # fmt: skip


@dataclass(frozen=True)
class Installed:
    """The new virtual environment holding the wheel."""

    venv: Path
    wheel: Path

    @property
    def bin(self) -> Path:
        return self.venv / "bin"


def _run(
    args: list[str], *, cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, check=False, timeout=600)


@pytest.fixture(scope="session")
def installed(built_wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Installed:
    """Install the wheel (conftest ``built_wheel``) into a new virtual environment."""
    work = tmp_path_factory.mktemp("acceptance")
    wheel = built_wheel
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"} | {"PIP_NO_INDEX": "1"}
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check"]
    venv = work / "venv"
    made = _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], cwd=work, env=env)
    assert made.returncode == 0, made.stderr
    python = venv / "bin" / "python"
    done = _run([*pip, "--python", str(python), "install", "--no-deps", str(wheel)], cwd=work, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    site = Path(
        _run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], cwd=work
        ).stdout.strip()
    )
    shared = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    (site / "zz-shared-dependencies.pth").write_text("".join(f"{p}\n" for p in sorted(shared)))
    return Installed(venv, wheel)


@pytest.fixture
def user_env(installed: Installed, tmp_path: Path) -> dict[str, str]:
    """The environment of a user's shell: the new venv on PATH, an empty schema cache, the mirror."""
    return _user_env(installed, tmp_path)


def _user_env(installed: Installed, home: Path) -> dict[str, str]:
    """:func:`user_env` with its home, cache and checkouts under ``home``."""
    cache = home / "cache"
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("PYTHONPATH", "VIRTUAL_ENV", "TRAINOPS_CACHE_DIR", "GITHUB_ACTIONS")
    }
    env |= {
        "PATH": f"{installed.bin}{os.pathsep}{env.get('PATH', '')}",
        "HOME": str(home / "home"),
        "TRAINOPS_CACHE_DIR": str(cache),
        "TRAINOPS_CRD_MIRROR": str(CRDS),
        "GIT_AUTHOR_NAME": "user",
        "GIT_AUTHOR_EMAIL": "user@example.com",
        "GIT_COMMITTER_NAME": "user",
        "GIT_COMMITTER_EMAIL": "user@example.com",
        "JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION": "18,20,22,24",
    }
    return env


def test_the_wheel_runs_from_the_new_environment(
    installed: Installed, user_env: dict[str, str], tmp_path: Path
) -> None:
    where = _run(
        [str(installed.bin / "python"), "-c", "import trainops; print(trainops.__file__)"],
        cwd=tmp_path,
        env=user_env,
    )
    assert where.returncode == 0, where.stderr
    assert Path(where.stdout.strip()).is_relative_to(installed.venv)
    assert shutil.which("trainops", path=user_env["PATH"]) == str(installed.bin / "trainops")


def test_a_new_users_first_change(installed: Installed, user_env: dict[str, str], tmp_path: Path) -> None:
    repo = tmp_path / "platform"
    repo.mkdir()
    assert _run(["git", "init", "-q", "-b", "main"], cwd=repo, env=user_env).returncode == 0
    trainops = str(installed.bin / "trainops")

    def step(*args: str) -> subprocess.CompletedProcess[str]:
        done = _run(list(args), cwd=repo, env=user_env)
        assert done.returncode == 0, (
            f"`{' '.join(args)}` exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
        )
        return done

    cache = Path(user_env["TRAINOPS_CACHE_DIR"])
    assert not cache.exists()  # no `trainops schemas sync` before any step
    step(trainops, "init")
    step(trainops, *NEW_JOB)
    step(trainops, "synth")
    step(trainops, "validate", "generated")
    step(trainops, "policy", "check", "generated")
    step(trainops, "ci")
    step("git", "add", "-A")
    step("git", "commit", "-q", "-m", "demo: a 2-worker PyTorchJob")
    module = repo / "apps/demo.py"
    assert module.read_text().count("workers=2,") == 1
    module.write_text(module.read_text().replace("workers=2,", "workers=3,"))
    step(trainops, "synth")
    diff = step(trainops, "diff", "HEAD")
    assert "new run of demo" in diff.stdout
    assert "Worker.replicas: 2 → 3" in diff.stdout
    # the schemas came on first use, from TRAINOPS_CRD_MIRROR
    assert any(p.name.startswith("kubeflow.org") for p in cache.rglob("*"))


def _health_checks(out: str) -> None:
    patch = yaml.safe_load(out)
    assert (patch["kind"], patch["metadata"]["name"]) == ("ConfigMap", "argocd-cm")
    assert set(patch["data"]) == {check.cm_key for check in HEALTH_CHECKS.values()}
    prelude = (REPO / "lib/trainops/argocd/health" / PRELUDE).read_text(encoding="utf-8")
    assert all(script.startswith(prelude) for script in patch["data"].values())


def _policy_list(out: str) -> None:
    listed = [line.split()[0] for line in out.splitlines() if line.strip()]
    default = yaml.safe_load((REPO / "lib/trainops/policy/pack/default.yaml").read_text(encoding="utf-8"))
    assert set(default["rules"]) <= set(listed)


def _explain(out: str) -> None:
    assert out.splitlines()[0] == "no-privileged (policy, error)"
    assert "Fix: Remove securityContext.privileged" in out


def _export_vap(out: str) -> None:
    kinds = [d["kind"] for d in yaml.safe_load_all(out) if d]
    assert set(kinds) == {"ConfigMap", "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding"}
    assert kinds.count("ValidatingAdmissionPolicy") == kinds.count("ValidatingAdmissionPolicyBinding") > 0


def _policy_schema(out: str) -> None:
    stored = (REPO / "lib/trainops/schemas/local/policy-config.json").read_text(encoding="utf-8")
    assert json.loads(out) == json.loads(stored)  # the repository's policies/ adds no rule


@pytest.fixture(scope="module")
def initialised(
    installed: Installed, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, dict[str, str]]:
    """A new git repository after the installed ``trainops init``, and the user's environment."""
    work = tmp_path_factory.mktemp("initialised")
    env = _user_env(installed, work)
    repo = work / "platform"
    repo.mkdir()
    assert _run(["git", "init", "-q", "-b", "main"], cwd=repo, env=env).returncode == 0
    done = _run([str(installed.bin / "trainops"), "init"], cwd=repo, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    return repo, env


@pytest.mark.parametrize(
    ("args", "check"),
    [
        pytest.param(("argocd", "health-checks"), _health_checks, id="argocd-health-checks"),
        pytest.param(("policy", "list"), _policy_list, id="policy-list"),
        pytest.param(("explain", "no-privileged"), _explain, id="explain"),
        pytest.param(("policy", "export-vap"), _export_vap, id="policy-export-vap"),
        pytest.param(("policy", "schema"), _policy_schema, id="policy-schema"),
    ],
)
def test_the_installed_package_reads_its_data_files(
    args: tuple[str, ...],
    check: Callable[[str], None],
    installed: Installed,
    initialised: tuple[Path, dict[str, str]],
) -> None:
    repo, env = initialised
    done = _run([str(installed.bin / "trainops"), *args], cwd=repo, env=env)
    assert done.returncode == 0, f"`trainops {' '.join(args)}` exited {done.returncode}:\n{done.stderr}"
    check(done.stdout)
    # the same output as this checkout's trainops in the same repository
    source = _run([str(Path(sys.executable).with_name("trainops")), *args], cwd=repo, env=env)
    assert (source.returncode, source.stdout) == (0, done.stdout)
