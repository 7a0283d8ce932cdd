"""The one check path: load → validate → (policy), in memory, for ``validate``, ``policy check``,
``synth`` and ``ci``.

:func:`resolve_targets` gives every input its :class:`Target` (the cluster the one resolver,
:func:`trainops.project.resolve_clusters`, picks for it, with the ``--kubernetes-version``
override); :func:`check` validates files on disk or texts in memory, each against its target, and
returns a :class:`~trainops.core.findings.Result`. Large inputs on disk are validated in parallel
(:mod:`trainops.validate.parallel`); the scheduling is decided here, not in the commands.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple, TextIO

from trainops.core.findings import Finding, Result
from trainops.project import TREE, resolve_clusters, synth_trees
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
    from trainops.core.cluster import Cluster
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
    """What a document is checked against: the one target model.

    A declared :class:`~trainops.core.cluster.Cluster` (``apps/clusters.py``) becomes a target; the
    schema side of it is its Kubernetes minor and operators (:attr:`registry`), the policy side is
    its :class:`~trainops.policy.facts.Facts` (:attr:`facts`). Without a cluster, the target is
    every catalogued operator on the newest Kubernetes, with default facts.

    Args:
        kubernetes_version: the Kubernetes minor, e.g. ``"1.34"``.
        operators: installed operators → versions (e.g. ``{"training-operator": "v1.9.4"}``), or
            ``None`` for "every catalogued operator".
        cache_dir: the schema cache directory.
        cluster: the name of the cluster the target was taken from, if any.
        declared: that cluster itself (its facts feed the policy rules). Default: ``None``.
        facts_file: facts read from a facts file (``policy check --facts``), used instead of the
            cluster's. Default: ``None``.
        reason: how the resolver chose it (``-v``), e.g. ``synth tree generated/gpu-next``.

    Equality compares the first four fields (what validation depends on).
    """

    kubernetes_version: str
    operators: Mapping[str, str] | None
    cache_dir: Path
    cluster: str | None = None
    declared: Cluster | None = field(default=None, compare=False, repr=False)
    facts_file: Facts | None = field(default=None, compare=False, repr=False)
    reason: str = field(default="", compare=False)

    @classmethod
    def of_cluster(
        cls, cluster: Cluster, cache_dir: Path, *, kubernetes_version: str | None = None, reason: str = ""
    ) -> Target:
        """The target of a declared cluster: its Kubernetes minor (unless ``kubernetes_version``
        overrides it) and installed operators."""
        return cls(
            kubernetes_version or cluster.kubernetes_version,
            dict(cluster.operators),
            cache_dir,
            cluster.name,
            declared=cluster,
            reason=reason,
        )

    @cached_property
    def registry(self) -> SchemaRegistry:
        """The schema registry of this target (built once)."""
        return SchemaRegistry(self.kubernetes_version, self.cache_dir, self.operators)

    @cached_property
    def facts(self) -> Facts:
        """What policy rules know of the target: the facts file's, else the cluster's
        (:meth:`Facts.of_cluster <trainops.policy.facts.Facts.of_cluster>`), else the defaults."""
        from trainops.policy.facts import Facts

        if self.facts_file is not None:
            return self.facts_file
        return Facts.of_cluster(self.declared) if self.declared is not None else Facts()

    def describe(self) -> dict[str, object]:
        """The target as data (json and sarif reports): ``cluster`` (``None`` for the all-operators
        target), ``kubernetesVersion`` (``"1.N"``), ``operators`` (name → version, or ``"all"``)."""
        operators: object = (
            dict(sorted(self.operators.items())) if self.operators is not None else ALL_OPERATORS
        )
        return {"cluster": self.cluster, "kubernetesVersion": self.kubernetes_version, "operators": operators}

    def summary(self) -> str:
        """One line for ``-v``, e.g. ``cluster gpu-next (synth tree generated/gpu-next): Kubernetes
        1.34; operators: kueue v0.19.2, ...`` or ``all known operators, Kubernetes 1.34 (no
        apps/clusters.py)``."""
        if self.operators is None:
            return f"{ALL_OPERATORS} known operators, Kubernetes {self.kubernetes_version} ({self.reason})"
        installed = ", ".join(f"{name} {version}" for name, version in sorted(self.operators.items()))
        return (
            f"cluster {self.cluster} ({self.reason}): Kubernetes {self.kubernetes_version}; "
            f"operators: {installed or 'none'}"
        )


#: ``Target.operators is None``: every operator of the catalog is assumed installed.
ALL_OPERATORS = "all"


def resolve_targets(
    names: Sequence[str],
    *,
    cache_dir: Path,
    cluster: str | None = None,
    kubernetes_version: str | None = None,
    facts: Facts | None = None,
    root: Path | None = None,
    clusters: tuple[Cluster, ...] | None = None,
) -> dict[str, Target]:
    """The target of every input, by name (a path, or a :class:`Text`'s name).

    The cluster is :func:`trainops.project.resolve_clusters`'s (a synth tree's own cluster, else
    ``cluster``, else the first declared, else every catalogued operator on the newest Kubernetes
    minor kubernetes-validate ships); ``kubernetes_version`` (``"1.N"``) always wins for the minor;
    ``facts`` (a facts file) replaces the facts of inputs outside synth trees. Inputs resolved
    alike share one :class:`Target` (one schema registry). ``root`` and ``clusters``: see
    :func:`~trainops.project.resolve_clusters`.

    Raises:
        UsageError: ``cluster`` is not declared; ``apps/clusters.py`` fails to load.
    """
    shared: dict[str, Target] = {}
    targets: dict[str, Target] = {}
    resolved = resolve_clusters(names, cluster=cluster, root=root, clusters=clusters)
    for name, resolution in resolved.items():
        target = shared.get(resolution.reason)
        if target is None:
            if resolution.cluster is None:
                target = Target(
                    kubernetes_version or newest_kubernetes_version(),
                    None,
                    cache_dir,
                    reason=resolution.reason,
                )
            else:
                target = Target.of_cluster(
                    resolution.cluster,
                    cache_dir,
                    kubernetes_version=kubernetes_version,
                    reason=resolution.reason,
                )
            if facts is not None and resolution.tree is None:
                target = replace(target, facts_file=facts)
            shared[resolution.reason] = target
        targets[name] = target
    return targets


def input_name(item: str | Text) -> str:
    """The name an input's findings carry: its path, or the :class:`Text`'s name."""
    return item if isinstance(item, str) else item.path


def print_targets(targets: Mapping[str, Target], *, file: TextIO) -> None:
    """``-v``: each distinct target once (``trainops: target: <summary>``), then the files checked
    against it (``trainops:   <file>``)."""
    groups: dict[int, list[str]] = {}
    first: dict[int, Target] = {}
    for name, target in targets.items():
        groups.setdefault(id(target), []).append(name)
        first.setdefault(id(target), target)
    for key, names in groups.items():
        print(f"trainops: target: {first[key].summary()}", file=file)
        for name in names:
            print(f"trainops:   {name}", file=file)


def repository_note(repository: Path | None) -> str:
    """``-v``: the repository a run took its clusters (and policies) from, in one line."""
    if repository is None:
        return (
            "trainops: repository: none (no apps/clusters.py at or above the checked files "
            "or the working directory)"
        )
    return f"trainops: repository: {repository} (its apps/clusters.py)"


def tree_notes(targets: Mapping[str, Target], cluster: str | None) -> list[str]:
    """One line per synth tree whose own cluster is not ``cluster`` (``--cluster``): its files are
    checked against their own cluster (:func:`trainops.project.resolve_clusters`), which the user
    should know."""
    if cluster is None:
        return []
    trees = {
        t.reason: t.cluster for t in targets.values() if t.cluster != cluster and t.reason.startswith(TREE)
    }
    return [
        f"trainops: note: files under {reason} are checked against their own cluster {own}, not --cluster {cluster}"
        for reason, own in trees.items()
    ]


class Text(NamedTuple):
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
    target: Target | Mapping[str, Target],
    inputs: Sequence[str | Text],
    options: ValidateOptions | None = None,
    *,
    workers: int = 1,
    progress: Progress | None = None,
    policy: PolicyRun | None = None,
) -> Result:
    """Validate ``inputs`` (file paths and/or :class:`Text` s in memory), each against its target,
    then run ``policy`` over all of them when given (:func:`policy_check`, each input with its
    target's facts).

    Args:
        target: one target for every input, or the target of each input by name
            (:func:`resolve_targets`; every input must be in it).

    Files whose total size is at least :data:`PARALLEL_BYTES` are split
    across ``workers`` processes when ``workers > 1``, and the policy check splits its per-document
    work across them too (:mod:`trainops.core.forking`); the findings are those of a serial run.
    Texts are validated after the files. The result carries the target's ``describe()`` (with
    several targets: ``{"targets": [...]}``, in order of first use) and at most one "superseded by
    Kubeflow Trainer v2" notice (see :func:`once_per_run`).

    Raises:
        SchemaError: a cached schema is unreadable.
    """
    targets = {input_name(item): target for item in inputs} if isinstance(target, Target) else dict(target)
    only = target if isinstance(target, Target) else None
    result = _validate_each(targets, inputs, options, only=only, workers=workers, progress=progress)
    if policy is not None:  # unreadable files are already validation findings
        files = [item for item in inputs if isinstance(item, str)]
        large = workers > 1 and sum(file_size(f) for f in files) >= PARALLEL_BYTES
        checked = policy_check(inputs, policy, targets=targets, workers=workers if large else 1)
        result.extend(f for f in checked.findings if f.rule != YAML.id)
    return result


def _validate_each(
    targets: Mapping[str, Target],
    inputs: Sequence[str | Text],
    options: ValidateOptions | None,
    *,
    only: Target | None,
    workers: int,
    progress: Progress | None,
) -> Result:
    """:func:`_validate` of the inputs of each target, merged (``only``: the one target named,
    reported even when there is no input)."""
    groups: dict[int, list[str | Text]] = {}
    chosen: dict[int, Target] = {}
    for item in inputs:
        target = targets[input_name(item)]
        groups.setdefault(id(target), []).append(item)
        chosen.setdefault(id(target), target)
    if only is not None:
        chosen.setdefault(id(only), only)
    result = Result()
    trainer_v2 = False
    for key, target in chosen.items():
        part = _validate(target, groups.get(key, []), options, workers=workers, progress=progress)
        # asked only when the part has a notice to keep: the answer reads the schema cache's index
        if _has_superseded(part) and offers_trainer_v2(target.registry):
            trainer_v2 = True
        else:
            part.findings = once_per_run(part, False)
        result.files += part.files
        result.documents += part.documents
        result.extend(part.findings)
    result.findings = once_per_run(result, trainer_v2)
    described = [target.describe() for target in chosen.values()]
    result.target = described[0] if len(described) == 1 else {"targets": described} if described else None
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
    notices = [f for f in result.findings if _superseded(f)]
    if not notices:
        return result.findings
    kept = [f for f in result.findings if not _superseded(f)]
    if trainer_v2:
        first = Result(notices).sorted()[0]
        more = f" [shown once per run: {len(notices)} Training Operator v1 jobs]" if len(notices) > 1 else ""
        kept.append(replace(first, message=first.message + more))
    return kept


def _superseded(finding: Finding) -> bool:
    """Whether ``finding`` is a "superseded by Kubeflow Trainer v2" notice (:func:`once_per_run`)."""
    return finding.rule == DEPRECATED_API.id and finding.keyword == SUPERSEDED


def _has_superseded(result: Result) -> bool:
    """Whether ``result`` holds a "superseded by Kubeflow Trainer v2" notice."""
    return any(_superseded(f) for f in result.findings)


def policy_run(
    *,
    config: str | None = None,
    facts: str | None = None,
    show_waived: bool = False,
    root: Path | None = None,
) -> PolicyRun:
    """The rule pack, effective config and facts of a policy run.

    ``facts`` (a facts file) gives the run's facts, else the defaults (GPU resource names only);
    :func:`policy_check` with ``targets`` uses each input's target's facts instead. ``root``: the
    repository whose ``policies/`` (its rules and ``config.yaml``) the run uses
    (:func:`trainops.project.find_repository`), the default pack alone when it has none; default:
    the ``policies/`` at or above the working directory. ``config`` (a file) replaces its config.

    Raises:
        UsageError: a bad config or facts file.
    """
    # the policy modules are imported when policies run (synth --changed and validate never do)
    from trainops.policy.config import load_config
    from trainops.policy.engine import PolicyRun
    from trainops.policy.facts import Facts, load_facts
    from trainops.policy.loader import default_pack, find_policy_dir, load_pack

    if root is None:
        pack = load_pack()
    else:
        directory = find_policy_dir(root)
        pack = load_pack(directory) if directory is not None else default_pack()
    return PolicyRun(pack, load_config(pack, config), load_facts(facts) if facts else Facts(), show_waived)


def policy_check(
    inputs: Sequence[str | Text],
    run: PolicyRun,
    *,
    targets: Mapping[str, Target] | None = None,
    workers: int = 1,
) -> Result:
    """Run the policy rules over the documents of ``inputs``; cross-object rules see the documents of
    one target at once, and each synth tree (``generated/<cluster>/``, holding lock.json) is a set of
    its own (:func:`trainops.project.synth_trees`).

    Args:
        inputs: file paths, or texts in memory.
        run: pack, config and facts.
        targets: the target of each input by name (:func:`resolve_targets`): its facts replace
            ``run.facts``. Default: every input with ``run.facts``.
        workers: processes for the per-document work of large sets (see
            :func:`~trainops.policy.engine.run_policies`).

    A file that cannot be read as YAML text (binary, not UTF-8, a FIFO) is a ``yaml`` finding
    (:func:`trainops.yaml.source.read_source`); the other files are still checked.
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
    groups: dict[tuple[int, str | None], list[Document]] = {}
    facts: dict[tuple[int, str | None], Facts] = {}
    trees = synth_trees([path for path, _ in texts])
    for path, text in texts:
        target = targets.get(path) if targets is not None else None
        key = (id(target) if target is not None else 0, trees[path])
        if target is not None:
            facts.setdefault(key, target.facts)
        for item in [text] if isinstance(text, Document) else stream_text(text, path):
            if isinstance(item, Document) and item.data is not None:
                groups.setdefault(key, []).append(item)
    result = Result(files=len(inputs), documents=sum(len(docs) for docs in groups.values()))
    result.extend(unreadable)
    for key, documents in groups.items():
        chosen = replace(run, facts=facts[key]) if key in facts else run
        result.extend(run_policies(documents, chosen, workers=workers))
    return result


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
