"""The one check path: load → validate → (policy), in memory, for ``validate``, ``ci`` and later
``policy check`` and ``diff``.

:func:`resolve_target` turns the target options (``--cluster``, ``--kubernetes-version``) into a
:class:`Target`; :func:`check` validates files on disk or texts in memory against it and returns a
:class:`~trainops.findings.Result`. Large inputs on disk are validated in parallel
(:mod:`trainops.validate.parallel`); the scheduling is decided here, not in the commands.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path

from trainops.cluster import Cluster
from trainops.errors import UsageError
from trainops.findings import Result
from trainops.policy.config import load_config
from trainops.policy.engine import PolicyRun, run_policies
from trainops.policy.facts import Facts, load_facts
from trainops.policy.pack import load_pack
from trainops.project import declared_clusters, find_cluster
from trainops.schemas.catalog import CatalogEntry
from trainops.schemas.registry import SchemaRegistry, newest_kubernetes_version
from trainops.schemas.sync import SyncReport, sync
from trainops.validate.checks.cel import census
from trainops.validate.context import ValidateOptions
from trainops.validate.engine import validate_files, validate_text
from trainops.validate.parallel import PARALLEL_BYTES, relax_gc, validate_parallel
from trainops.yaml.load import Document, read_text, stream_text

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
    policy: PolicyRun | None = None,
) -> Result:
    """Validate ``inputs`` (file paths, or :class:`Text` s in memory) against ``target``, then run
    ``policy`` over all of them at once when given (:func:`policy_check`).

    Files whose total size is at least :data:`~trainops.validate.parallel.PARALLEL_BYTES` are split
    across ``workers`` processes when ``workers > 1``; the findings are those of a serial run.

    Raises:
        UsageError: a file cannot be read or is not UTF-8.
        SchemaError: a cached schema is unreadable.
    """
    result = _validate(target, inputs, options, workers=workers, progress=progress)
    if policy is not None:
        result.extend(policy_check(inputs, policy).findings)
    return result


def _validate(
    target: Target,
    inputs: Sequence[str] | Sequence[Text],
    options: ValidateOptions | None,
    *,
    workers: int,
    progress: Progress | None,
) -> Result:
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
    if workers > 1 and sum(os.path.getsize(f) for f in files) >= PARALLEL_BYTES:
        return validate_parallel(files, registry, options, workers=workers, progress=progress)
    return validate_files(files, registry, options)


def policy_run(
    *,
    config: str | None = None,
    cluster: str | None = None,
    facts: str | None = None,
    show_waived: bool = False,
) -> PolicyRun:
    """The rule pack, effective config and facts of a policy run.

    Facts come from ``facts`` (a facts file), else ``cluster`` in ``apps/clusters.py``, else the
    first declared cluster, else defaults (GPU resource names only).

    Raises:
        UsageError: both ``cluster`` and ``facts``; an unknown cluster; a bad config or facts file.
    """
    if cluster is not None and facts is not None:
        raise UsageError("give --cluster or --facts, not both")
    pack = load_pack()
    if facts is not None:
        found = load_facts(facts)
    else:
        clusters = declared_clusters()
        if cluster is not None:
            found = Facts.of_cluster(find_cluster(clusters, cluster))
        else:
            found = Facts.of_cluster(clusters[0]) if clusters else Facts()
    return PolicyRun(pack, load_config(pack, config), found, show_waived)


def cluster_facts(name: str) -> Facts | None:
    """Facts of the cluster ``name`` declared in ``apps/clusters.py`` (found from the working
    directory), or ``None`` when no such cluster is declared."""
    for cluster in declared_clusters():
        if cluster.name == name:
            return Facts.of_cluster(cluster)
    return None


def policy_check(
    inputs: Sequence[str] | Sequence[Text],
    run: PolicyRun,
    *,
    cluster_facts: Callable[[str], Facts | None] | None = None,
) -> Result:
    """Run the policy rules over the documents of ``inputs``; cross-object rules see them all at once,
    except that files inside different cluster trees (a directory holding ``lock.json``, i.e.
    ``generated/<cluster>/``) are checked as separate sets, one per cluster.

    Args:
        inputs: file paths, or texts in memory.
        run: pack, config and facts.
        cluster_facts: facts for a cluster tree by its directory name (``None`` keeps ``run.facts``);
            used when the user named no cluster or facts file.

    Raises:
        UsageError: a file cannot be read.
    """
    texts = [(item.path, item.text) if isinstance(item, Text) else (item, read_text(item)) for item in inputs]
    groups: dict[Path | None, list[Document]] = {}
    for path, text in texts:
        tree = _cluster_tree(path)
        for item in stream_text(text, path):
            if isinstance(item, Document) and item.data is not None:
                groups.setdefault(tree, []).append(item)
    result = Result(files=len(texts), documents=sum(len(docs) for docs in groups.values()))
    for tree, documents in groups.items():
        facts = cluster_facts(tree.name) if cluster_facts is not None and tree is not None else None
        result.extend(run_policies(documents, replace(run, facts=facts) if facts is not None else run))
    return result


def _cluster_tree(path: str) -> Path | None:
    """The cluster tree a file belongs to: the nearest of its three parent directories holding
    ``lock.json`` (``generated/<cluster>/<app>/file.yaml``), else ``None``."""
    for parent in list(Path(path).parents)[:3]:
        if (parent / "lock.json").is_file():
            return parent
    return None


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
