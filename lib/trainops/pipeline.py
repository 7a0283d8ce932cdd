"""The one check path: load → validate → (policy), in memory, for ``validate``, ``ci`` and later
``policy check`` and ``diff``.

:func:`resolve_target` turns the target options (``--cluster``, ``--kubernetes-version``) into a
:class:`Target`; :func:`check` validates files on disk or texts in memory against it and returns a
:class:`~trainops.findings.Result`. Large inputs on disk are validated in parallel
(:mod:`trainops.validate.parallel`); the scheduling is decided here, not in the commands.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from trainops.cluster import Cluster
from trainops.findings import Result
from trainops.project import declared_clusters, find_cluster
from trainops.schemas.catalog import CatalogEntry
from trainops.schemas.registry import SchemaRegistry, newest_kubernetes_version
from trainops.schemas.sync import SyncReport, sync
from trainops.validate.checks.cel import census
from trainops.validate.context import ValidateOptions
from trainops.validate.engine import validate_files, validate_text
from trainops.validate.parallel import PARALLEL_BYTES, relax_gc, validate_parallel
from trainops.yaml.source import file_size

#: ``progress(done_units, total_units)``, called while large inputs are validated in parallel.
Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class Target:
    """What documents are validated against.

    Args:
        kubernetes_version: the Kubernetes minor, e.g. ``"1.34"``.
        operators: installed operators → versions (e.g. ``{"training-operator": "v1.9.4"}``), or
            ``None`` for "every catalogued operator".
        cache_dir: the schema cache directory.
        cluster: the cluster the target was taken from, if any.
    """

    kubernetes_version: str
    operators: Mapping[str, str] | None
    cache_dir: Path
    cluster: str | None = None
    _registry: dict[str, SchemaRegistry] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def of_cluster(cls, cluster: Cluster, cache_dir: Path) -> Target:
        """The target of a declared cluster: its Kubernetes minor and installed operators."""
        return cls(cluster.kubernetes_version, dict(cluster.operators), cache_dir, cluster.name)

    @cached_property
    def registry(self) -> SchemaRegistry:
        """The schema registry of this target (built once)."""
        return SchemaRegistry(self.kubernetes_version, self.cache_dir, self.operators)


def resolve_target(
    kubernetes_version: str | None, cluster: str | None, cache_dir: Path, root: Path | None = None
) -> Target:
    """Pick the target of a validate run.

    With ``cluster`` the minor and operators come from that cluster in ``apps/clusters.py``;
    otherwise the minor is the first declared cluster's (else the newest shipped) and every
    catalogued operator is assumed. ``kubernetes_version`` always wins for the minor.

    Raises:
        UsageError: ``cluster`` is not declared; ``apps/clusters.py`` fails to load.
    """
    clusters = declared_clusters(root)
    if cluster is not None:
        declared = find_cluster(clusters, cluster)
        return Target(
            kubernetes_version or declared.kubernetes_version,
            dict(declared.operators),
            cache_dir,
            declared.name,
        )
    default = clusters[0].kubernetes_version if clusters else newest_kubernetes_version()
    return Target(kubernetes_version or default, None, cache_dir)


@dataclass(frozen=True)
class Text:
    """A document source held in memory (e.g. a freshly rendered manifest).

    Args:
        path: the name findings carry, e.g. ``generated/gpu-prod/app/pytorchjob_x.yaml``.
        text: the YAML text.
    """

    path: str
    text: str


def check(
    target: Target,
    inputs: Sequence[str] | Sequence[Text],
    options: ValidateOptions | None = None,
    *,
    workers: int = 1,
    progress: Progress | None = None,
) -> Result:
    """Validate ``inputs`` (file paths, or :class:`Text` s in memory) against ``target``.

    Files whose total size is at least :data:`~trainops.validate.parallel.PARALLEL_BYTES` are split
    across ``workers`` processes when ``workers > 1``; the findings are those of a serial run.

    Raises:
        UsageError: a file cannot be read or is not UTF-8.
        SchemaError: a cached schema is unreadable.
    """
    options = options or ValidateOptions()
    registry = target.registry
    relax_gc()
    texts = [item for item in inputs if isinstance(item, Text)]
    if texts:
        result = Result()
        for item in texts:
            result.files += 1
            validate_text(item.text, item.path, registry, options, result)
        return result
    files = [item for item in inputs if isinstance(item, str)]
    if workers > 1 and sum(file_size(f) for f in files) >= PARALLEL_BYTES:
        return validate_parallel(files, registry, options, workers=workers, progress=progress)
    return validate_files(files, registry, options)


def sync_schemas(
    entries: list[CatalogEntry],
    cache: Path,
    *,
    mirror: Path | None,
    force: bool = False,
    progress: Callable[[CatalogEntry], None] | None = None,
) -> SyncReport:
    """:func:`trainops.schemas.sync.sync` with the validator's CEL census recorded in the index."""
    return sync(entries, cache, mirror=mirror, force=force, progress=progress, census=census)
