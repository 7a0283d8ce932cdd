"""The one check path: load → validate → (policy), in memory, for ``validate``, ``ci`` and later
``policy check`` and ``diff``.

:func:`resolve_target` turns the target options (``--cluster``, ``--kubernetes-version``) into a
:class:`Target`; :func:`check` validates files on disk or texts in memory against it and returns a
:class:`~trainops.findings.Result`. Large inputs on disk are validated in parallel
(:mod:`trainops.validate.parallel`); the scheduling is decided here, not in the commands.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property, partial
from pathlib import Path
from typing import TYPE_CHECKING

from trainops.cluster import Cluster
from trainops.errors import UsageError
from trainops.findings import Finding, Result
from trainops.project import declared_clusters, find_cluster
from trainops.schemas.catalog import PACKAGED_CATALOG, CatalogEntry
from trainops.schemas.registry import SchemaRegistry, newest_kubernetes_version
from trainops.validate.checks.cel import census
from trainops.validate.checks.deprecated_api import RULE as DEPRECATED_API
from trainops.validate.checks.deprecated_api import SUPERSEDED
from trainops.validate.context import ValidateOptions
from trainops.validate.engine import relax_gc, validate_files, validate_guarded, validate_text
from trainops.yaml.load import YAML, Document, stream_text
from trainops.yaml.source import file_size, read_source
from trainops.yaml.template import template_hint

if TYPE_CHECKING:
    from trainops.policy.engine import PolicyRun
    from trainops.policy.facts import Facts
    from trainops.schemas.sync import SyncReport

#: ``progress(done_units, total_units)``, called while large inputs are validated in parallel.
Progress = Callable[[int, int], None]

#: Inputs at least this large (bytes, all files together) are validated by several processes
#: (:mod:`trainops.validate.parallel`, imported only then).
PARALLEL_BYTES = 4 << 20


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

    def describe(self) -> dict[str, object]:
        """The target as data (json and sarif reports): ``cluster`` (``None`` for the all-operators
        target), ``kubernetesVersion`` (``"1.N"``), ``operators`` (name → version, or ``"all"``)."""
        operators: object = (
            dict(sorted(self.operators.items())) if self.operators is not None else ALL_OPERATORS
        )
        return {"cluster": self.cluster, "kubernetesVersion": self.kubernetes_version, "operators": operators}

    def summary(self) -> str:
        """One line for ``validate -v``, e.g. ``cluster gpu-prod (apps/clusters.py): Kubernetes 1.34;
        operators: training-operator v1.9.4`` or ``all known operators, Kubernetes 1.34``."""
        if self.operators is None:
            return (
                f"{ALL_OPERATORS} known operators, Kubernetes {self.kubernetes_version} (no apps/clusters.py)"
            )
        installed = ", ".join(f"{name} {version}" for name, version in sorted(self.operators.items()))
        return (
            f"cluster {self.cluster} (apps/clusters.py): Kubernetes {self.kubernetes_version}; "
            f"operators: {installed or 'none'}"
        )


#: ``Target.operators is None``: every operator of the catalog is assumed installed.
ALL_OPERATORS = "all"


def resolve_target(
    kubernetes_version: str | None, cluster: str | None, cache_dir: Path, root: Path | None = None
) -> Target:
    """Pick the target of a validate run (one model, README "Targets"; DESIGN.md decision 6).

    * ``cluster`` given: that cluster of ``apps/clusters.py`` (its minor and operators);
    * no ``cluster`` inside a trainops repository (``apps/clusters.py`` at or above ``root``, default
      the working directory): exactly the first declared cluster, the same target as
      ``--cluster <first>``;
    * otherwise (no repository, or one declaring no cluster): every catalogued operator on the newest
      Kubernetes minor kubernetes-validate ships.

    ``kubernetes_version`` (``"1.N"``) always wins for the minor.

    Raises:
        UsageError: ``cluster`` is not declared; ``apps/clusters.py`` fails to load.
    """
    clusters = declared_clusters(root)
    if cluster is not None:
        chosen = find_cluster(clusters, cluster)
    elif clusters:
        chosen = clusters[0]
    else:
        return Target(kubernetes_version or newest_kubernetes_version(), None, cache_dir)
    return Target(
        kubernetes_version or chosen.kubernetes_version, dict(chosen.operators), cache_dir, chosen.name
    )


@dataclass(frozen=True)
class Text:
    """A document source held in memory (e.g. a freshly rendered manifest).

    Args:
        path: the name findings carry, e.g. ``generated/gpu-prod/app/pytorchjob_x.yaml``.
        text: the YAML text.
        document: the text's one document exactly as :func:`~trainops.yaml.load.stream_text` reads
            it, when the caller already has it (``synth`` renders the object and then its text,
            :func:`trainops.workflow.rendered_inputs`): validation and policies skip reading the
            text again. Default: ``None``, read the text.
    """

    path: str
    text: str
    document: Document | None = None


def check(
    target: Target,
    inputs: Sequence[str | Text],
    options: ValidateOptions | None = None,
    *,
    workers: int = 1,
    progress: Progress | None = None,
    policy: PolicyRun | None = None,
) -> Result:
    """Validate ``inputs`` (file paths and/or :class:`Text` s in memory) against ``target``, then run
    ``policy`` over all of them at once when given (:func:`policy_check`).

    Files whose total size is at least :data:`PARALLEL_BYTES` are split
    across ``workers`` processes when ``workers > 1``, and the policy check of such inputs runs in
    a forked process meanwhile (:mod:`trainops.policy.background`), itself splitting its
    per-document work across ``workers`` processes; the findings are those of a serial run.
    Texts are validated after the files. The result carries ``target.describe()`` and at most one
    "superseded by Kubeflow Trainer v2" notice (see :func:`once_per_run`).

    Raises:
        SchemaError: a cached schema is unreadable.
    """
    files = [item for item in inputs if isinstance(item, str)]
    background = None
    if policy is not None and workers > 1 and sum(file_size(f) for f in files) >= PARALLEL_BYTES:
        from trainops.policy.background import start as start_background

        # overlaps validation; its per-document work is split across ``workers`` processes too
        background = start_background(partial(policy_check, workers=workers), inputs, policy)
    try:
        result = _validate(target, inputs, options, workers=workers, progress=progress)
    except BaseException:
        if background is not None:
            background.cancel()
        raise
    if policy is not None:  # unreadable files are already validation findings
        checked = background.result() if background is not None else policy_check(inputs, policy)
        result.extend(f for f in checked.findings if f.rule != YAML.id)
    return result


def _validate(
    target: Target,
    inputs: Sequence[str | Text],
    options: ValidateOptions | None,
    *,
    workers: int,
    progress: Progress | None,
) -> Result:
    options = options or ValidateOptions()
    registry = target.registry
    relax_gc()
    files = [item for item in inputs if isinstance(item, str)]
    if workers > 1 and sum(file_size(f) for f in files) >= PARALLEL_BYTES:
        from trainops.validate.parallel import validate_parallel  # only for large inputs

        result = validate_parallel(files, registry, options, workers=workers, progress=progress)
    else:
        result = validate_files(files, registry, options)
    for item in inputs:
        if isinstance(item, Text) and item.document is not None:  # as validate_text would read it
            result.files += 1
            result.documents += 1
            result.extend(validate_guarded(item.document, registry, options))
            hint = template_hint(item.text, item.path)
            if hint is not None:
                result.findings.append(hint)
        elif isinstance(item, Text):
            result.files += 1
            validate_text(item.text, item.path, registry, options, result)
    result.findings = once_per_run(result, offers_trainer_v2(registry))
    result.target = target.describe()
    return result


def offers_trainer_v2(registry: SchemaRegistry) -> bool:
    """Whether the target serves Kubeflow Trainer v2's ``TrainJob`` (a catalogued ``trainer.kubeflow.org``
    CRD of an installed operator, or of any operator for the all-operators target)."""
    return bool(registry.served_versions("TrainJob", "trainer.kubeflow.org"))


def once_per_run(result: Result, trainer_v2: bool) -> list[Finding]:
    """``result.findings`` with the "superseded by Kubeflow Trainer v2" notice (``deprecated-api``,
    keyword ``superseded``, level ``info``) kept once: the first in report order, saying how many
    documents it stands for; none at all when the target does not offer Trainer v2 (``trainer_v2``).
    """
    notices = [f for f in result.findings if f.rule == DEPRECATED_API.id and f.keyword == SUPERSEDED]
    if not notices:
        return result.findings
    kept = [f for f in result.findings if not (f.rule == DEPRECATED_API.id and f.keyword == SUPERSEDED)]
    if trainer_v2:
        first = Result(notices).sorted()[0]
        more = f" [shown once per run: {len(notices)} Training Operator v1 jobs]" if len(notices) > 1 else ""
        kept.append(replace(first, message=first.message + more))
    return kept


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
    # the policy modules are imported when policies run (synth --changed and validate never do)
    from trainops.policy.config import load_config
    from trainops.policy.engine import PolicyRun
    from trainops.policy.facts import Facts, load_facts
    from trainops.policy.pack import load_pack

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
    from trainops.policy.facts import Facts

    for cluster in declared_clusters():
        if cluster.name == name:
            return Facts.of_cluster(cluster)
    return None


def policy_check(
    inputs: Sequence[str | Text],
    run: PolicyRun,
    *,
    cluster_facts: Callable[[str], Facts | None] | None = None,
    workers: int = 1,
) -> Result:
    """Run the policy rules over the documents of ``inputs``; cross-object rules see them all at once,
    except that files inside different cluster trees (a directory holding ``lock.json``, i.e.
    ``generated/<cluster>/``) are checked as separate sets, one per cluster.

    Args:
        inputs: file paths, or texts in memory.
        run: pack, config and facts.
        cluster_facts: facts for a cluster tree by its directory name (``None`` keeps ``run.facts``);
            used when the user named no cluster or facts file.
        workers: processes for the per-document work of large sets (see
            :func:`~trainops.policy.engine.run_policies`).

    A file that cannot be read as YAML text (binary, not UTF-8, a symlink out of the repository) is a
    ``yaml`` finding (:func:`trainops.yaml.source.read_source`); the other files are still checked.
    """
    from trainops.policy.engine import run_policies

    relax_gc()  # many short-lived, acyclic objects per document, as in validation
    texts: list[tuple[str, str | Document]] = []
    unreadable: list[Finding] = []
    for entry in inputs:
        if isinstance(entry, Text):
            texts.append((entry.path, entry.document or entry.text))
            continue
        source = read_source(entry)
        unreadable.extend(f for f in source.findings if f.level == "error")
        if source.text is not None:
            texts.append((entry, source.text))
    groups: dict[Path | None, list[Document]] = {}
    for path, text in texts:
        tree = _cluster_tree(path)
        for item in [text] if isinstance(text, Document) else stream_text(text, path):
            if isinstance(item, Document) and item.data is not None:
                groups.setdefault(tree, []).append(item)
    result = Result(files=len(inputs), documents=sum(len(docs) for docs in groups.values()))
    result.extend(unreadable)
    for tree, documents in groups.items():
        facts = cluster_facts(tree.name) if cluster_facts is not None and tree is not None else None
        chosen = replace(run, facts=facts) if facts is not None else run
        result.extend(run_policies(documents, chosen, workers=workers))
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
    catalog: Path | None = None,
) -> SyncReport:
    """:func:`trainops.schemas.sync.sync` with the validator's CEL census recorded in the index
    (``catalog``: the file ``entries`` come from; default the shipped one)."""
    from trainops.schemas.sync import sync  # only `schemas sync` needs it (start-up of `validate`)

    return sync(
        entries,
        cache,
        mirror=mirror,
        force=force,
        progress=progress,
        census=census,
        catalog=catalog or PACKAGED_CATALOG,
    )
