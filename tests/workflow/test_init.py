"""``trainops init`` (issue 24 points 2 and 3, issue 25's ``--repo-url``/``--argocd-server``, issue
27's init items): a complete repository that passes ``trainops ci`` at once; the workflow validates
against the GitHub workflow schema check-jsonschema ships and installs, caches and keys as the
README says; paths in the way are refused before anything is written; existing files are kept."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from conftest import REPO
from tests.workflow.project import write_project
from trainops import __version__
from trainops.project import load_clusters
from trainops.schemas.catalog import PACKAGED_CATALOG, load_catalog
from trainops.schemas.registry import core_versions

WORKFLOW = ".github/workflows/trainops.yml"
FILES = [
    ".github/CODEOWNERS",
    WORKFLOW,
    ".gitignore",
    ".pre-commit-config.yaml",
    "README.md",
    "apps/__init__.py",
    "apps/__main__.py",
    "apps/clusters.py",
    "apps/ml_platform.py",
    "cdk8s.yaml",
    "policies/config.yaml",
]
RELEASES = {e.operator: e.tag for e in load_catalog(PACKAGED_CATALOG)}


def tree(root: Path) -> dict[str, str]:
    """Every path under ``root`` (files, directories, symlinks) → what it is, for before/after checks."""
    entries: dict[str, str] = {}
    for directory, dirs, files in os.walk(root):
        for name in [*dirs, *files]:
            path = Path(directory, name)
            rel = str(path.relative_to(root))
            if path.is_symlink():
                entries[rel] = f"-> {os.readlink(path)}"
            elif path.is_file():
                entries[rel] = path.read_text(errors="replace")
            else:
                entries[rel] = "dir" if path.is_dir() else "other"
    return entries


@pytest.fixture
def initialised(cli: Any, tmp_path: Path) -> Path:
    root = tmp_path / "platform"
    run = cli("init", str(root))
    assert run.code == 0, run.err
    return root


def test_writes_a_complete_repository(cli: Any, tmp_path: Path) -> None:
    run = cli("init", str(tmp_path / "platform"))
    assert run.code == 0, run.err
    root = tmp_path / "platform"
    written = sorted(
        str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() and p.parts[-2] != "__pycache__"
    )
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    check_ignore = ["git", "-C", str(root), "check-ignore", "--stdin"]
    ignored = subprocess.run(
        check_ignore, input="\n".join(written), capture_output=True, text=True, check=False
    ).stdout.split()
    assert ignored == [".generated.lock"]
    written = [f for f in written if f not in ignored]
    generated = [f for f in written if f.startswith("generated/")]
    assert [f for f in written if f not in generated] == FILES
    # synthesised at once: the platform app's namespaces, delivered by Argo CD
    assert "generated/dev/ml-platform/namespace_ml-training.yaml" in generated
    assert "generated/dev/argocd/root.yaml" in generated
    # and the platform app for the cluster: its operators installed from their upstream releases
    assert "generated/dev/argocd/appproject_platform-dev.yaml" in generated
    for operator in ("training-operator", "prometheus-operator"):
        app = yaml.safe_load((root / f"generated/dev/argocd/application_dev-{operator}.yaml").read_text())
        assert app["metadata"]["labels"]["trainops.dev/platform-version"] == RELEASES[operator]
    assert "generated/dev/argocd/application_dev-argo-cd.yaml" not in generated  # bootstrapped by hand
    wrote = [
        line.removeprefix("init: wrote ") for line in run.err.splitlines() if line.startswith("init: wrote ")
    ]
    assert sorted(wrote) == FILES
    assert {oct((root / f).stat().st_mode & 0o777) for f in FILES} == {"0o644"}
    assert (root / "policies/config.yaml").read_text().rstrip().endswith("extends: default")
    assert ".trainops-cache/" in (root / ".gitignore").read_text().splitlines()
    assert yaml.safe_load((root / "cdk8s.yaml").read_text()) == {
        "language": "python",
        "app": "python -m apps",
        "output": "dist",
    }
    assert "/generated/" in (root / ".github/CODEOWNERS").read_text()


def test_the_cluster_is_the_newest_minor_with_the_catalog_releases(initialised: Path) -> None:
    (cluster,) = load_clusters(initialised)
    assert cluster.name == "dev"
    assert cluster.kubernetes_version == f"1.{max(core_versions())}"
    assert cluster.operators == {
        "training-operator": RELEASES["training-operator"],
        "prometheus-operator": RELEASES["prometheus-operator"],
        "argo-cd": RELEASES["argo-cd"],
    }
    assert cluster.argocd_server == "https://kubernetes.default.svc"


def test_options_are_written_into_the_cluster(cli: Any, tmp_path: Path) -> None:
    run = cli(
        "init",
        str(tmp_path),
        "--cluster",
        "gpu-lab",
        "--kubernetes-version",
        "1.33",
        "--operator",
        "trainer",
        "--operator",
        "kueue=" + RELEASES["kueue"],
        "--operator",
        "argo-cd",
        "--operator",
        "gpu-operator",
        "--repo-url",
        "https://git.example.org/ml/gitops.git",
        "--argocd-server",
        "https://gpu-lab.k8s.example.org:6443",
    )
    assert run.code == 0, run.err
    (cluster,) = load_clusters(tmp_path)
    assert (cluster.name, cluster.kubernetes_version) == ("gpu-lab", "1.33")
    assert cluster.operators == {
        "trainer": "v2.3.0",
        "kueue": RELEASES["kueue"],
        "argo-cd": RELEASES["argo-cd"],
        "gpu-operator": "v26.3.3",  # no CRDs the apps use: its release comes from the platform catalog
    }
    gpu = yaml.safe_load(
        (tmp_path / "generated/gpu-lab/argocd/application_gpu-lab-gpu-operator.yaml").read_text()
    )
    assert gpu["spec"]["source"]["chart"] == "gpu-operator"
    assert cluster.repo_url == "https://git.example.org/ml/gitops.git"
    assert cluster.argocd_server == "https://gpu-lab.k8s.example.org:6443"
    assert "placeholder" not in (tmp_path / "apps/clusters.py").read_text()


@pytest.mark.parametrize("example", ["pytorchjob", "serving"])
def test_a_new_repository_passes_ci_at_once(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, example: str
) -> None:
    root = tmp_path / "platform"
    args = ["init", str(root), "--repo-url", "https://git.example.org/ml/gitops.git"]
    args += ["--argocd-server", "https://lab.example.org:6443", "--example", example]
    run = cli(*args)
    assert run.code == 0, run.err
    monkeypatch.chdir(root)
    ci = cli("ci", "--format", "text", "--no-diff")
    assert ci.code == 0, ci.out + ci.err
    assert "0 errors" in ci.out
    # delivery reads --repo-url and --argocd-server: the Argo CD objects carry them
    argocd = [yaml.safe_load(p.read_text()) for p in sorted((root / "generated/dev/argocd").glob("*.yaml"))]
    project = next(o for o in argocd if o["kind"] == "AppProject")
    assert project["spec"]["sourceRepos"] == ["https://git.example.org/ml/gitops.git"]
    assert {d["server"] for d in project["spec"]["destinations"]} == {"https://lab.example.org:6443"}
    # `cdk8s synth` runs `python -m apps` (cdk8s.yaml)
    env = {**os.environ, "CDK8S_OUTDIR": str(tmp_path / "dist")}
    cdk8s = subprocess.run(
        [sys.executable, "-m", "apps"], cwd=root, env=env, capture_output=True, text=True, check=False
    )
    assert cdk8s.returncode == 0, cdk8s.stderr
    assert sorted(p.name for p in (tmp_path / "dist").iterdir()) == sorted(
        [
            "dev-argocd.k8s.yaml",
            "dev-ml-platform.k8s.yaml",
            f"dev-example-{'train' if example == 'pytorchjob' else 'serve'}.k8s.yaml",
        ]
    )


def test_the_repository_without_apps_passes_ci(
    cli: Any, initialised: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(initialised)
    ci = cli("ci", "--format", "text", "--no-diff")
    assert ci.code == 0, ci.out + ci.err
    assert "0 errors" in ci.out
    # the platform team's project holds Namespaces only: every namespaced kind is denied
    project = yaml.safe_load(
        (initialised / "generated/dev/argocd/appproject_ml-platform-dev.yaml").read_text()
    )
    assert project["spec"]["clusterResourceWhitelist"] == [{"group": "", "kind": "Namespace"}]
    assert project["spec"]["namespaceResourceBlacklist"] == [{"group": "*", "kind": "*"}]


def test_new_registers_into_the_new_package(
    cli: Any, initialised: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(initialised)
    run = cli("new", "serving", "api", "--image", "registry.example.com/serve:1.0")
    assert run.code == 0, run.err
    text = (initialised / "apps/__init__.py").read_text()
    assert (
        "from __future__ import annotations\n\nfrom apps import api, ml_platform\nfrom trainops.app import AppDef\n"
        in text
    )
    lint = subprocess.run(
        [
            sys.executable,
            "-m",
            "ruff",
            "check",
            "--config",
            str(REPO / "pyproject.toml"),
            str(initialised / "apps"),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert lint.returncode == 0, lint.stdout


def test_an_argument_that_is_not_utf8_leaves_no_file(
    cli: Any, initialised: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(initialised)
    before = tree(initialised)
    bad = b"registry.example.com/x\xff:1".decode("utf-8", "surrogateescape")  # how Python receives it
    run = cli("new", "pytorchjob", "demo", "--image", bad, "--", "python", "train.py")
    assert run.code == 2
    assert (
        run.err
        == "trainops: trainops new pytorchjob --image 'registry.example.com/x\\xff:1': not valid UTF-8\n"
    )
    assert tree(initialised) == before
    retry = cli("new", "serving", "demo", "--image", "registry.example.com/x:1")
    assert retry.code == 0, retry.err


# --- paths in the way: refused before anything is written ---------------------------------------


def _file(root: Path, rel: str) -> None:
    (root / rel).parent.mkdir(parents=True, exist_ok=True)
    (root / rel).write_text("mine\n")


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        pytest.param(
            lambda root, out: _file(root, ".github"),
            "init: .github is a file: .github/workflows/trainops.yml needs a directory there",
            id="github-is-a-file",
        ),
        pytest.param(
            lambda root, out: (root / ".pre-commit-config.yaml").mkdir(),
            "init: .pre-commit-config.yaml is a directory; expected a file",
            id="pre-commit-config-is-a-directory",
        ),
        pytest.param(
            lambda root, out: (root / "README.md").symlink_to(out / "README.md"),
            "init: README.md is a symlink to {out}/README.md (outside {root}): init never writes through a "
            "symlink (remove it, or point it at a file)",
            id="dangling-symlink-outside",
        ),
        pytest.param(
            lambda root, out: (root / "cdk8s.yaml").symlink_to("missing.yaml"),
            "init: cdk8s.yaml is a symlink to missing.yaml (a missing file): init never writes through a "
            "symlink (remove it, or point it at a file)",
            id="dangling-symlink-inside",
        ),
        pytest.param(
            lambda root, out: (root / ".github").symlink_to(out, target_is_directory=True),
            "init: .github is a symlink to {out}, outside {root}: init never writes through it "
            "(replace it with a directory)",
            id="directory-symlink-outside",
        ),
        pytest.param(
            lambda root, out: (root / "policies").symlink_to(out / "gone", target_is_directory=True),
            "init: policies is a symlink to {out}/gone, outside {root}: init never writes through it "
            "(replace it with a directory)",
            id="dangling-directory-symlink",
        ),
        pytest.param(
            lambda root, out: os.mkfifo(root / ".gitignore"),
            "init: .gitignore is a FIFO; expected a file",
            id="fifo",
        ),
    ],
)
def test_a_path_in_the_way_is_refused_before_anything_is_written(
    cli: Any, tmp_path: Path, setup: Any, message: str
) -> None:
    root, out = tmp_path / "repo", tmp_path / "outside"
    root.mkdir()
    out.mkdir()
    setup(root, out)
    before, outside = tree(root), tree(out)
    run = cli("init", str(root))
    assert run.code == 2
    assert run.err == f"trainops: {message.format(root=root, out=out)}\n"
    assert tree(root) == before
    assert tree(out) == outside


def test_a_symlink_to_a_file_inside_is_kept_not_written_through(cli: Any, tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs/intro.md").write_text("mine\n")
    (tmp_path / "README.md").symlink_to("docs/intro.md")
    run = cli("init", str(tmp_path), "--force")
    assert run.code == 0, run.err
    assert "init: kept README.md (it exists; init never overwrites it)" in run.err.splitlines()
    assert (tmp_path / "README.md").is_symlink()
    assert (tmp_path / "docs/intro.md").read_text() == "mine\n"


def test_a_directory_symlink_inside_is_followed(cli: Any, tmp_path: Path) -> None:
    (tmp_path / "ci").mkdir()
    (tmp_path / ".github").symlink_to("ci", target_is_directory=True)
    assert cli("init", str(tmp_path)).code == 0
    assert (tmp_path / "ci/workflows/trainops.yml").is_file()


def test_a_failed_write_leaves_nothing(cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import trainops.scaffold.files as files

    real = files.atomic_write
    calls = []

    def flaky(path: Path, data: bytes, *, mode: int | None = None) -> None:
        calls.append(path)
        if len(calls) == 6:
            raise OSError(28, "No space left on device", str(path))
        real(path, data, mode=mode)

    monkeypatch.setattr(files, "atomic_write", flaky)
    root = tmp_path / "repo"
    root.mkdir()
    (root / "README.md").write_text("mine\n")
    run = cli("init", str(root))
    assert run.code == 2
    assert run.err.startswith(f"trainops: init: cannot write {calls[5]}: No space left on device; nothing")
    assert tree(root) == {"README.md": "mine\n"}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        pytest.param(
            ("--cluster", "GPU_Lab"), "Cluster name='GPU_Lab': must be a DNS-1123 label", id="cluster"
        ),
        pytest.param(
            ("-k", "1.20"), "init --kubernetes-version '1.20': trainops ships schemas for 1.", id="minor"
        ),
        pytest.param(("-k", "v1.34"), "init --kubernetes-version 'v1.34'", id="minor-syntax"),
        pytest.param(("--operator", "spark"), "init --operator 'spark': unknown operator", id="operator"),
        pytest.param(
            ("--operator", "kueue=v0.1.0"),
            "init --operator 'kueue=v0.1.0': trainops ships the CRDs of kueue",
            id="release",
        ),
        pytest.param(("--repo-url", "ftp://git/x"), "repo_url='ftp://git/x'", id="repo-url"),
        pytest.param(
            ("--argocd-server", "kubernetes.default.svc"), "init --argocd-server", id="server-scheme"
        ),
        pytest.param(("--argocd-server", "http://k8s:6443"), "init --argocd-server", id="server-http"),
        pytest.param(
            ("--argocd-server", "https://admin:secret@k8s:6443"), "init --argocd-server", id="server-userinfo"
        ),
        pytest.param(("--install-spec", "trainops\n==1"), "init --install-spec", id="install-spec"),
        pytest.param(
            ("--repo-url", b"https://git/\xff".decode("utf-8", "surrogateescape")),
            "init --repo-url 'https://git/\\xff': not valid UTF-8",
            id="not-utf8",
        ),
        pytest.param(
            ("-C", "elsewhere"), "init: give the directory once (DIR or --directory)", id="two-dirs"
        ),
    ],
)
def test_bad_options_write_nothing(cli: Any, tmp_path: Path, args: tuple[str, ...], message: str) -> None:
    root = tmp_path / "repo"
    run = cli("init", str(root), *args)
    assert run.code == 2
    assert message in run.err
    assert len(run.err.splitlines()) == 1
    assert not root.exists()


# --- existing files ----------------------------------------------------------------------------


def test_existing_files_are_kept_and_a_second_run_changes_nothing(cli: Any, initialised: Path) -> None:
    (initialised / "README.md").write_text("# mine\n")
    before = tree(initialised)
    again = cli("init", str(initialised))
    assert again.code == 0, again.err
    assert "init: kept README.md (it exists; init never overwrites it)" in again.err.splitlines()
    assert "init: kept .gitignore (unchanged)" in again.err.splitlines()
    assert "init: kept apps/ (apps/__init__.py exists: the apps package is yours)" in again.err.splitlines()
    assert tree(initialised) == before


def test_force_rewrites_only_the_ci_files(cli: Any, initialised: Path) -> None:
    for rel in (WORKFLOW, "README.md", "policies/config.yaml"):
        (initialised / rel).write_text("# mine\n")
    run = cli("init", str(initialised), "--force")
    assert run.code == 0, run.err
    assert f"init: overwrote {WORKFLOW}" in run.err.splitlines()
    assert "trainops ci" in (initialised / WORKFLOW).read_text()
    assert (initialised / "README.md").read_text() == "# mine\n"
    assert (initialised / "policies/config.yaml").read_text() == "# mine\n"


def test_an_existing_apps_package_is_the_users(cli: Any, tmp_path: Path) -> None:
    _file(tmp_path, "apps/__init__.py")
    run = cli("init", str(tmp_path))
    assert run.code == 0, run.err
    assert not (tmp_path / "apps/clusters.py").exists()  # the package's own CLUSTERS stay in charge
    refused = cli("init", str(tmp_path), "--example", "serving")
    assert refused.code == 2
    assert "add an app to it with `trainops new KIND NAME`" in refused.err


def test_directory_option_is_an_alias(cli: Any, tmp_path: Path) -> None:
    assert cli("init", "-C", str(tmp_path)).code == 0
    assert (tmp_path / "apps/clusters.py").is_file()


# --- the workflow ---------------------------------------------------------------------------------


def _workflow(root: Path) -> dict[str, Any]:
    data = yaml.safe_load((root / WORKFLOW).read_text())
    assert isinstance(data, dict)
    return data


@pytest.mark.parametrize(
    "spec",
    [
        None,
        "git+https://github.com/example/trainops@v0.1.0",
        "./vendor/trainops",
        "trainops @ https://example.com/t.whl#sha256=00\"'$(id)`x`",
    ],
)
def test_workflow_validates_against_the_github_workflow_schema(
    cli: Any, tmp_path: Path, spec: str | None
) -> None:
    run = cli("init", str(tmp_path), *(("--install-spec", spec) if spec else ()))
    assert run.code == 0, run.err
    check = subprocess.run(
        [
            sys.executable,
            "-m",
            "check_jsonschema",
            "--builtin-schema",
            "vendor.github-workflows",
            str(tmp_path / WORKFLOW),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert check.returncode == 0, check.stdout + check.stderr
    steps = _workflow(tmp_path)["jobs"]["trainops"]["steps"]
    install = next(s for s in steps if s.get("name") == "Install trainops")
    assert install["env"]["INSTALL_SPEC"] == (spec or f"trainops=={__version__}")
    assert install["run"] == 'python -m pip install "$INSTALL_SPEC"'


def test_workflow_caches_the_schema_directory_it_sets_keyed_on_what_decides_it(initialised: Path) -> None:
    workflow = _workflow(initialised)
    job = workflow["jobs"]["trainops"]
    steps = job["steps"]
    uses = {s.get("uses", "").split("@")[0]: s for s in steps}
    cache = uses["actions/cache"]["with"]
    assert job["env"]["TRAINOPS_CACHE_DIR"] == "${{ github.workspace }}/" + cache["path"]
    key_step = next(s for s in steps if s.get("id") == "schemas")
    assert "importlib.metadata" in key_step["run"] and '"trainops"' in key_step["run"]
    assert cache["key"] == (
        "trainops-schemas-${{ steps.schemas.outputs.trainops }}-${{ hashFiles('apps/clusters.py') }}"
    )
    assert steps.index(key_step) < steps.index(uses["actions/cache"])
    runs = " ".join(s.get("run", "") for s in steps)
    assert "schemas sync" not in runs  # schemas are fetched on first use
    assert uses["actions/setup-python"]["with"]["cache-dependency-path"] == WORKFLOW
    assert uses["github/codeql-action/upload-sarif"]["with"]["sarif_file"] == "trainops.sarif"
    assert "trainops ci" in runs and "--format sarif --output trainops.sarif" in runs
    assert "--format markdown --output trainops-diff.md" in runs
    assert "gh pr comment" in runs
    assert workflow["permissions"]["security-events"] == "write"


def test_hooks_file_matches_pre_commits_manifest_schema() -> None:
    from pre_commit.clientlib import load_manifest

    hooks = load_manifest(str(REPO / ".pre-commit-hooks.yaml"))
    assert [h["id"] for h in hooks] == ["trainops-synth-check", "trainops-validate", "trainops-policy"]


def test_example_config_matches_pre_commits_config_schema(initialised: Path) -> None:
    from pre_commit.clientlib import load_config

    config = load_config(str(initialised / ".pre-commit-config.yaml"))
    hooks = [h["id"] for repo in config["repos"] for h in repo["hooks"]]
    manifest = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())
    assert hooks == [h["id"] for h in manifest]
    assert [h["entry"] for repo in config["repos"] for h in repo["hooks"]] == [h["entry"] for h in manifest]


def test_synth_check_hook_command(cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = write_project(tmp_path / "repo")
    monkeypatch.chdir(root)
    assert cli("synth").code == 0
    assert cli("synth", "--check").code == 0
    write_project(root, replicas=3)
    stale = cli("synth", "--check")
    assert stale.code == 1
    assert "changed  generated/lab/web/deployment_web.yaml" in stale.err
    assert "replicas: 2" in (root / "generated/lab/web/deployment_web.yaml").read_text()


# --- the sharded workflow (issue 36 point 4) --------------------------------------------------------


@pytest.mark.parametrize("shards", [2, 5])
def test_ci_shards_writes_a_matrix_joined_by_merge(cli: Any, tmp_path: Path, shards: int) -> None:
    run = cli("init", str(tmp_path), "--ci-shards", str(shards))
    assert run.code == 0, run.err
    check = subprocess.run(
        [
            sys.executable,
            "-m",
            "check_jsonschema",
            "--builtin-schema",
            "vendor.github-workflows",
            str(tmp_path / WORKFLOW),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert check.returncode == 0, check.stdout + check.stderr
    workflow = _workflow(tmp_path)
    shard, merge = workflow["jobs"]["shard"], workflow["jobs"]["trainops"]
    assert shard["strategy"]["matrix"]["shard"] == list(range(1, shards + 1))
    assert shard["strategy"]["fail-fast"] is False
    runs = " ".join(s.get("run", "") for s in shard["steps"])
    assert f'--shard "${{{{ matrix.shard }}}}/{shards}"' in runs
    assert '--diff-output "reports/trainops-${{ matrix.shard }}.diff.json"' in runs
    uploads = [s for s in shard["steps"] if s.get("uses", "").startswith("actions/upload-artifact")]
    assert uploads and uploads[0]["with"]["path"] == "reports/"
    assert merge["needs"] == "shard" and merge["if"] == "always()"
    merge_runs = " ".join(s.get("run", "") for s in merge["steps"])
    assert "trainops ci --merge reports" in merge_runs and "--diff-output trainops-diff.md" in merge_runs
    assert '"${{ needs.shard.result }}" = success' in merge_runs  # one required check fails with any shard
    assert workflow["env"]["INSTALL_SPEC"] == f"trainops=={__version__}"


@pytest.mark.parametrize("shards", ["0", "65", "-2"])
def test_ci_shards_out_of_range_is_a_usage_error(cli: Any, tmp_path: Path, shards: str) -> None:
    run = cli("init", str(tmp_path / "x"), "--ci-shards", shards)
    assert run.code == 2
    assert "--ci-shards" in run.err
    assert not (tmp_path / "x").exists()


def test_one_ci_shard_is_the_single_job_workflow(cli: Any, tmp_path: Path) -> None:
    assert cli("init", str(tmp_path), "--ci-shards", "1").code == 0
    assert set(_workflow(tmp_path)["jobs"]) == {"trainops"}
