"""``trainops validate PATHS...``."""

from __future__ import annotations

import os
import runpy
import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from trainops.cluster import Cluster
from trainops.errors import EXIT_FINDINGS, EXIT_OK, UsageError
from trainops.report import render
from trainops.schemas.catalog import default_cache_dir, find_root
from trainops.schemas.registry import SchemaRegistry, newest_kubernetes_version
from trainops.validate.engine import (
    UnknownKinds,
    ValidateOptions,
    relax_gc,
    validate_files,
    validate_parallel,
)
from trainops.validate.loader import expand_paths


@dataclass(frozen=True)
class ValidateCommand:
    """Parsed options of ``trainops validate`` (see ``trainops validate --help``)."""

    paths: tuple[str, ...]
    kubernetes_version: str | None = None
    cluster: str | None = None
    unknown_kinds: UnknownKinds = "error"
    fmt: str = "auto"
    strict: bool = False
    cache_dir: Path | None = None
    workers: int | None = None


#: Inputs at least this large (bytes) are validated by several processes.
PARALLEL_BYTES = 4 << 20


@contextmanager
def _progress() -> Iterator[Callable[[int, int], None] | None]:
    """A progress bar on stderr when stderr is a terminal; otherwise no callback."""
    if not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import Progress

    with Progress(console=Console(file=sys.stderr), transient=True) as bar:
        task = bar.add_task("validating", total=None)

        def update(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield update


def declared_clusters(root: Path | None = None) -> tuple[Cluster, ...]:
    """Clusters from ``<repo>/apps/clusters.py``, loaded on its own (no cdk8s import).

    Returns an empty tuple outside a trainops repository.

    Raises:
        UsageError: the file exists but fails to load or lacks ``CLUSTERS``.
    """
    root = root or find_root()
    if root is None or not (root / "apps" / "clusters.py").is_file():
        return ()
    path = root / "apps" / "clusters.py"
    try:
        namespace = runpy.run_path(str(path))
    except Exception as exc:  # user code: report it, do not crash
        raise UsageError(f"{path}: failed to load: {type(exc).__name__}: {exc}") from None
    clusters = namespace.get("CLUSTERS")
    if not isinstance(clusters, tuple | list):
        raise UsageError(f"{path}: must define CLUSTERS (a tuple of Cluster)")
    return tuple(clusters)


def resolve_target(
    kubernetes_version: str | None, cluster: str | None
) -> tuple[str, Mapping[str, str] | None]:
    """Pick (Kubernetes minor, installed operators) for a validate run.

    With ``--cluster`` both come from that cluster in apps/clusters.py; otherwise the minor is the
    first declared cluster's (else the newest shipped) and every catalogued operator is assumed.
    ``--kubernetes-version`` always wins for the minor.

    Raises:
        UsageError: ``cluster`` is not declared.
    """
    clusters = declared_clusters()
    if cluster is not None:
        matches = [c for c in clusters if c.name == cluster]
        if not matches:
            known = ", ".join(c.name for c in clusters) or "none"
            raise UsageError(f"--cluster {cluster!r}: not in apps/clusters.py (declared: {known})")
        target = matches[0]
        return kubernetes_version or target.kubernetes_version, dict(target.operators)
    default = clusters[0].kubernetes_version if clusters else newest_kubernetes_version()
    return kubernetes_version or default, None


def run_validate(options: ValidateCommand) -> int:
    """Validate and print the report; return 0 (clean), 1 (findings) or raise for usage errors."""
    files = expand_paths(options.paths)
    version, operators = resolve_target(options.kubernetes_version, options.cluster)
    registry = SchemaRegistry(version, options.cache_dir or default_cache_dir(), operators)
    validate_options = ValidateOptions(unknown_kinds=options.unknown_kinds)
    relax_gc()
    workers = options.workers if options.workers is not None else (os.cpu_count() or 1)
    size = sum(os.path.getsize(f) for f in files)
    if workers > 1 and size >= PARALLEL_BYTES:
        with _progress() as progress:
            result = validate_parallel(files, registry, validate_options, workers=workers, progress=progress)
    else:
        result = validate_files(files, registry, validate_options)
    sys.stdout.write(render(result, options.fmt))
    return EXIT_FINDINGS if result.failed(strict=options.strict) else EXIT_OK
