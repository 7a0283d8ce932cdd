"""``trainops init [DIR]``: create a trainops GitOps repository that passes ``trainops ci`` at once.

It writes the ``apps`` package (one cluster in ``apps/clusters.py``; a platform app creating the
namespaces ``ml-training`` and ``ml-serving``; a first app with ``--example``; synth then writes the
Argo CD Applications installing the cluster's operators, ``trainops.core.platform``),
``policies/config.yaml`` extending the default rule pack, ``.gitignore``, a README, ``cdk8s.yaml``,
the GitHub Actions workflow, the pre-commit configuration and CODEOWNERS (templates shipped in
``trainops/templates/init/``, see :mod:`trainops.scaffold.repository`), then runs ``trainops
synth`` so that ``generated/`` is fresh.

Every path is checked before anything is written (:mod:`trainops.scaffold.files`): an existing
file is kept, a path of the wrong type or a symlink that would be written through is a one-line
error (exit 2) and nothing is written.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import click

from trainops.cli.options import require_utf8
from trainops.core.errors import UsageError
from trainops.scaffold.files import plan_files, write_files
from trainops.scaffold.repository import (
    APPS_INIT,
    DEFAULT_ARGOCD_SERVER,
    DEFAULT_CLUSTER,
    DEFAULT_OPERATORS,
    EXAMPLES,
    PLACEHOLDER_REPO_URL,
    Example,
    RepositorySpec,
    repository_files,
)

#: How each state is reported.
_VERBS = {
    "new": "wrote",
    "overwrite": "overwrote",
    "kept": "kept {path} (it exists; init never overwrites it)",
    "unchanged": "kept {path} (unchanged)",
}


#: Most runners ``init --ci-shards`` splits CI over (GitHub Actions allows 256 jobs per matrix).
MAX_CI_SHARDS = 64


@dataclass(frozen=True)
class InitOptions:
    """Parsed options of ``trainops init``.

    Args:
        directory: the repository root; created when missing. Default: the working directory.
        cluster: name of the cluster in ``apps/clusters.py``. Default: ``dev``.
        kubernetes_version: its Kubernetes minor, ``1.N``. Default: the newest minor whose core
            schemas trainops ships.
        operators: ``NAME=VERSION`` or ``NAME`` (the release of the shipped CRD catalog); they
            replace the default set (Training Operator, Prometheus Operator, Argo CD).
        repo_url: the git repository Argo CD syncs ``generated/`` from. Default: a placeholder.
        argocd_server: the cluster's API URL as Argo CD knows it. Default:
            ``https://kubernetes.default.svc`` (the cluster Argo CD runs in).
        install_spec: what the CI workflow ``pip install``\\ s: a requirement, a git URL or a path.
            Default: ``trainops==<this version>``.
        example: add a first app (``pytorchjob`` or ``serving``). Default: none.
        force: overwrite the CI workflow, the pre-commit configuration and CODEOWNERS when they
            exist (e.g. after upgrading trainops); other files are never overwritten.
        ci_shards: runners the CI workflow splits ``trainops ci`` over (1 to 64). Default: 1.
    """

    directory: Path = Path(".")
    cluster: str = DEFAULT_CLUSTER
    kubernetes_version: str | None = None
    operators: tuple[str, ...] = ()
    repo_url: str | None = None
    argocd_server: str = DEFAULT_ARGOCD_SERVER
    install_spec: str | None = None
    example: Example | None = None
    force: bool = False
    ci_shards: int = 1


def run_init(opts: InitOptions) -> int:
    """Check every path, then write the repository (one line per file on stderr) and synthesise
    ``generated/`` when the ``apps`` package is new.

    Returns:
        0, or the exit code of that synth (the files stay written).

    Raises:
        UsageError: a bad option (cluster name, Kubernetes minor, operator or release, URL, install
            spec, an option that is not valid UTF-8); ``--example`` where an ``apps`` package
            exists; a path of the wrong type or a symlink in the way (see
            :func:`trainops.scaffold.files.plan_files`); a write that fails (nothing is left).
    """
    spec = _spec(opts)
    planned = plan_files(opts.directory, repository_files(spec), force=opts.force)
    write_files(opts.directory, planned)
    for item in planned:
        verb = _VERBS[item.state]
        line = verb.format(path=item.file.path) if "{" in verb else f"{verb} {item.file.path}"
        print(f"init: {line}", file=sys.stderr)
    if not spec.with_apps:
        print(f"init: kept apps/ ({APPS_INIT} exists: the apps package is yours)", file=sys.stderr)
    elif spec.repo_url is None:
        print(
            "init: apps/clusters.py: repo_url is a placeholder; set it to your repository's URL "
            "before Argo CD syncs (or run init with --repo-url)",
            file=sys.stderr,
        )
    if spec.with_apps:
        code = _synth(opts.directory)
        if code != 0:
            return code
    print(
        "init: next: trainops new pytorchjob NAME --image IMAGE -- COMMAND..., then trainops synth",
        file=sys.stderr,
    )
    return 0


def _synth(directory: Path) -> int:
    """``trainops synth`` in the new repository, so that ``generated/`` holds the platform app (and
    the example) and ``trainops ci`` passes; the files written stay when it fails (e.g. schemas out
    of reach)."""
    from trainops.cli.synth import SynthOptions, run_synth

    root = directory.resolve()
    code = run_synth(SynthOptions(out=root / "generated"), root)
    if code != 0:
        print(
            f"init: the files are written; run `trainops synth` in {root} once this is fixed", file=sys.stderr
        )
    return code


def _spec(opts: InitOptions) -> RepositorySpec:
    from trainops.cluster import Cluster

    require_utf8(
        "init",
        {
            "DIR": str(opts.directory),
            "--cluster": opts.cluster,
            "--kubernetes-version": opts.kubernetes_version,
            "--operator": opts.operators,
            "--repo-url": opts.repo_url,
            "--argocd-server": opts.argocd_server,
            "--install-spec": opts.install_spec,
        },
    )
    root = opts.directory
    apps_exist = (root / APPS_INIT).is_file() or (root / APPS_INIT).is_symlink()
    if apps_exist and opts.example is not None:
        raise UsageError(
            f"init --example: {root / APPS_INIT} exists; add an app to it with `trainops new KIND NAME`"
        )
    version = opts.kubernetes_version or _newest_minor()
    _check_minor(version)
    operators = _operators(opts.operators)
    if opts.repo_url is not None:
        _check_repo_url(opts.repo_url)
    _check_server(opts.argocd_server)
    install = opts.install_spec
    if install is not None and (not install.strip() or any(not c.isprintable() for c in install)):
        raise UsageError(f"init --install-spec {install!r}: expected a requirement, a git URL or a path")
    try:  # the checks of the model itself (name syntax, "1.N")
        Cluster(
            name=opts.cluster,
            kubernetes_version=version,
            operators=operators,
            argocd_server=opts.argocd_server,
            repo_url=opts.repo_url or PLACEHOLDER_REPO_URL,
        )
    except ValueError as exc:
        raise UsageError(f"init: {exc}") from None
    name = Path(opts.directory).resolve().name or "trainops"
    spec = RepositorySpec(
        name=name.encode("utf-8", "replace").decode("utf-8"),
        cluster=opts.cluster,
        kubernetes_version=version,
        operators=operators,
        argocd_server=opts.argocd_server,
        repo_url=opts.repo_url,
        example=opts.example,
        with_apps=not apps_exist,
    )
    if not 1 <= opts.ci_shards <= MAX_CI_SHARDS:
        raise UsageError(f"init --ci-shards {opts.ci_shards}: expected 1 to {MAX_CI_SHARDS} runners")
    spec = replace(spec, ci_shards=opts.ci_shards)
    return replace(spec, install_spec=install) if install is not None else spec


def _newest_minor() -> str:
    from trainops.schemas.registry import core_versions

    return f"1.{max(core_versions())}"


def _check_minor(version: str) -> None:
    from trainops.schemas.registry import core_versions

    known = sorted(core_versions())
    if version not in {f"1.{m}" for m in known}:
        raise UsageError(
            f"init --kubernetes-version {version!r}: trainops ships schemas for 1.{known[0]} to 1.{known[-1]}"
        )


def _operators(given: tuple[str, ...]) -> dict[str, str]:
    """``NAME[=VERSION]`` options → operator → release, checked against the shipped CRD catalog
    and the platform catalog (components without CRDs the apps use, e.g. ``gpu-operator``, that
    trainops installs; ``trainops.core.platform``); the default set when none is given."""
    from trainops.core.platform import platform_catalog
    from trainops.schemas.catalog import default_catalog_path, load_catalog

    releases: dict[str, list[str]] = {}
    for entry in load_catalog(default_catalog_path()):
        tags = releases.setdefault(entry.operator, [])
        if entry.tag not in tags:
            tags.append(entry.tag)
    for name, component in platform_catalog().items():
        if name not in releases:  # the CRD catalog's releases are what validation can check
            releases[name] = list(component.releases)
    wanted = given or DEFAULT_OPERATORS
    operators: dict[str, str] = {}
    for item in wanted:
        name, sep, version = item.partition("=")
        if name not in releases:
            raise UsageError(
                f"init --operator {item!r}: unknown operator (the catalog has {', '.join(sorted(releases))})"
            )
        tags = releases[name]
        if not sep:
            if len(tags) > 1:
                raise UsageError(f"init --operator {item!r}: give the release, one of {', '.join(tags)}")
            version = tags[0]
        elif version not in tags:
            raise UsageError(
                f"init --operator {item!r}: trainops ships the CRDs of {name} {', '.join(tags)} only"
            )
        operators[name] = version
    return operators


def _check_repo_url(url: str) -> None:
    from trainops.constructs.argocd_application import require_repo_url

    try:
        require_repo_url("init --repo-url:", url)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def _check_server(url: str) -> None:
    parts = urlsplit(url)
    if (
        parts.scheme != "https"
        or not parts.hostname
        or parts.username is not None
        or any(c.isspace() for c in url)
    ):
        raise UsageError(
            f"init --argocd-server {url!r}: expected the cluster's API URL as Argo CD knows it, "
            "e.g. https://kubernetes.default.svc"
        )


@click.command("init")
@click.argument(
    "directory", metavar="[DIR]", required=False, type=click.Path(file_okay=False, path_type=Path)
)
@click.option(
    "--directory",
    "-C",
    "directory_option",
    type=click.Path(file_okay=False, path_type=Path),
    help="Repository root (the same as DIR).",
)
@click.option(
    "--cluster", default=DEFAULT_CLUSTER, show_default=True, help="Name of the cluster in apps/clusters.py."
)
@click.option(
    "--kubernetes-version",
    "-k",
    help="The cluster's Kubernetes minor, e.g. 1.34. Default: the newest trainops ships schemas for.",
)
@click.option(
    "--operator",
    "operators",
    multiple=True,
    metavar="NAME[=VERSION]",
    help="An operator the cluster runs (repeatable; replaces the default training-operator, "
    "prometheus-operator and argo-cd). VERSION defaults to the release of the shipped CRD catalog.",
)
@click.option("--repo-url", help="The git repository Argo CD syncs generated/ from.")
@click.option(
    "--argocd-server",
    default=DEFAULT_ARGOCD_SERVER,
    show_default=True,
    help="The cluster's API URL as Argo CD knows it.",
)
@click.option(
    "--install-spec",
    help="What the CI workflow pip-installs (a git URL or a path). Default: trainops==<this version>.",
)
@click.option(
    "--example", type=click.Choice(sorted(EXAMPLES)), help="Add a first app and synthesise generated/ for it."
)
@click.option(
    "--ci-shards",
    type=int,
    default=1,
    show_default=True,
    metavar="N",
    help="Split `trainops ci` over N GitHub Actions runners (a matrix of --shard K/N jobs and a --merge job).",
)
@click.option(
    "--force",
    is_flag=True,
    help="Overwrite the CI workflow, pre-commit config and CODEOWNERS if they exist (other files never).",
)
def command(directory: Path | None, directory_option: Path | None, **kwargs: Any) -> None:
    """Create a trainops repository in DIR (default: the working directory): apps/, policies/,
    .gitignore, README.md, cdk8s.yaml, the CI workflow, the pre-commit config and CODEOWNERS; then
    synthesise generated/.

    Existing files are kept; nothing is written when a path is in the way.
    """
    if directory is not None and directory_option is not None and directory != directory_option:
        raise UsageError("init: give the directory once (DIR or --directory)")
    kwargs["operators"] = tuple(kwargs["operators"])
    sys.exit(run_init(InitOptions(directory=directory or directory_option or Path("."), **kwargs)))
