"""The everyday loop's shared step: validate freshly rendered apps in memory, per cluster target.

``trainops synth`` (before it writes anything) and ``trainops ci`` (after the drift check) both
validate what synth rendered through :func:`trainops.pipeline.check`, each cluster against its
own target as the one resolver gives it (:func:`trainops.pipeline.resolve_targets`: the files of
``<out>/<cluster>/`` are that cluster's), unless a ``--kubernetes-version`` overrides the minor.
"""

from __future__ import annotations

import hashlib
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from trainops.core.errors import UsageError
from trainops.core.findings import Result
from trainops.pipeline import Target, Text, check, resolve_targets
from trainops.project import Project
from trainops.synth import AppResult
from trainops.validate.context import ValidateOptions
from trainops.yaml import limits
from trainops.yaml.load import Document

#: ``policy(texts, targets) -> Result``: the policy rules over one cluster's rendered texts, each
#: with its target (by name) giving the facts.
PolicyHook = Callable[[list[Text], Mapping[str, Target]], Result]


#: Documents from which :func:`check_rendered` validates the apps in ``workers`` processes.
PARALLEL_DOCUMENTS = 2000

#: ``K/N``: shard K (1-based) of N.
_SHARD = re.compile(r"^([1-9][0-9]{0,3})/([1-9][0-9]{0,3})$")
#: The Argo CD objects and ``lock.json`` of each cluster go to the shard of this name (the
#: ``generated/<cluster>/argocd/`` directory, :data:`trainops.synth.delivery.DELIVERY_APP`).
DELIVERY_SHARD_NAME = "argocd"


def shard_number(app: str, count: int) -> int:
    """The shard (``1``…``count``) that checks ``app``: the first 8 bytes of the SHA-256 of its name,
    big-endian, modulo ``count``, plus one. It depends on nothing but the name and ``count``, so an
    app keeps its shard when others are added or removed, and every runner computes the same split.
    """
    return int.from_bytes(hashlib.sha256(app.encode("utf-8")).digest()[:8], "big") % count + 1


@dataclass(frozen=True)
class Shard:
    """One of ``count`` parts of a repository's apps, for ``trainops ci --shard K/N``.

    Args:
        index: this shard, 1-based (``K``).
        count: how many shards (``N``), 1…9999.
    """

    index: int
    count: int

    @classmethod
    def parse(cls, text: str) -> Shard:
        """``"2/4"`` → ``Shard(2, 4)``.

        Raises:
            UsageError: not ``K/N`` with 1 ≤ K ≤ N ≤ 9999.
        """
        match = _SHARD.match(text.strip())
        if match is None or int(match.group(1)) > int(match.group(2)):
            raise UsageError(f"--shard: expected K/N with 1 <= K <= N (e.g. 2/4), got {text!r}")
        return cls(int(match.group(1)), int(match.group(2)))

    def holds(self, app: str) -> bool:
        """Whether this shard checks ``app`` (an app name, or ``argocd`` for the Argo CD objects
        and ``lock.json`` of every cluster): :func:`shard_number`."""
        return shard_number(app, self.count) == self.index

    def holds_path(self, rel: str) -> bool:
        """Whether this shard checks the file ``<cluster>/<app>/<file>`` (relative to the
        generated root); ``<cluster>/lock.json`` goes with the Argo CD objects."""
        parts = rel.split("/")
        return self.holds(parts[1] if len(parts) > 2 else DELIVERY_SHARD_NAME)


@dataclass(frozen=True)
class AppCheck:
    """The validation of one rendered app.

    Args:
        app: what synth rendered.
        result: the findings of its objects.
        seconds: wall time of the validation, in seconds.
    """

    app: AppResult
    result: Result
    seconds: float


def check_rendered(
    project: Project,
    results: list[AppResult],
    *,
    out: Path,
    cache_dir: Path,
    kubernetes_version: str | None = None,
    options: ValidateOptions | None = None,
    policy: PolicyHook | None = None,
    only: Callable[[AppResult], bool] | None = None,
    workers: int = 1,
) -> tuple[Result, list[AppCheck]]:
    """Validate every rendered app against its cluster's target, in memory.

    Args:
        project: the loaded project (for the clusters).
        results: what :func:`trainops.synth.render_project` returned.
        out: the output root; findings name ``<out>/<cluster>/<app>/<file>``.
        cache_dir: the schema cache.
        kubernetes_version: overrides every cluster's minor, e.g. ``"1.33"``. Default: the cluster's.
        options: validation options. Default: :class:`ValidateOptions` defaults.
        policy: called once per cluster with all of that cluster's texts (cross-object rules see
            the whole rendered set); its findings join the merged result. Default: no policies.
        only: the apps to validate and report (``trainops ci --shard``): the others are read by the
            policy step as context (cross-object rules still see every object of the cluster), and
            findings in their files are left out. Default: every app.
        workers: processes to validate the apps in, from :data:`PARALLEL_DOCUMENTS` documents
            (:func:`trainops.core.forking.fork_map`, each taking every ``workers``-th app); the
            result is the same for any number. Default: 1.

    Returns:
        The merged result and one :class:`AppCheck` per reported app, in the order of ``results``.

    Raises:
        UsageError: a cluster is not declared. SchemaError: a cached schema is unreadable.
    """
    total = Result()
    checks: list[AppCheck] = []
    inputs: dict[int, list[Text]] = {}
    targets: dict[str, Target] = {}
    for cluster_name in dict.fromkeys(app.cluster for app in results):
        project.cluster(cluster_name)  # a declared cluster, or UsageError
        for app in results:
            if app.cluster == cluster_name:
                inputs[id(app)] = rendered_inputs(app, out)
        names = [text.path for app in results if app.cluster == cluster_name for text in inputs[id(app)]]
        targets.update(
            resolve_targets(
                names,
                cache_dir=cache_dir,
                cluster=cluster_name,
                kubernetes_version=kubernetes_version,
                root=project.root,
                clusters=project.clusters,
            )
        )
    reported = [app for app in results if only is None or only(app)]

    def validate(apps: Sequence[AppResult]) -> list[tuple[Result, float]]:
        """The result of each of ``apps`` and its wall time in seconds."""
        out = []
        for app in apps:
            start = time.perf_counter()
            texts = inputs[id(app)]
            result = check({text.path: targets[text.path] for text in texts}, texts, options)
            out.append((result, time.perf_counter() - start))
        return out

    if workers < 2 or sum(len(app.files) for app in reported) < PARALLEL_DOCUMENTS:
        validated = validate(reported)
    else:
        from trainops.core.forking import fork_map  # most runs never fork (start-up)

        shares = [reported[part::workers] for part in range(workers)]  # interleaved: apps cost unevenly
        by_share: dict[int, list[tuple[Result, float]]] = dict(fork_map(validate, shares, workers))
        validated = [by_share[index % workers][index // workers] for index in range(len(reported))]
    for app, (result, seconds) in zip(reported, validated, strict=True):
        checks.append(AppCheck(app, result, seconds))
        total.files += result.files
        total.documents += result.documents
        total.extend(result.findings)
    if policy is not None:
        mine = {text.path for app in reported for text in inputs[id(app)]}
        for cluster_name in dict.fromkeys(app.cluster for app in reported):
            texts = [text for app in results if app.cluster == cluster_name for text in inputs[id(app)]]
            found = policy(texts, targets).findings
            total.extend(found if only is None else [f for f in found if f.file in mine])
    return total, checks


def rendered_inputs(app: AppResult, out: Path) -> list[Text]:
    """The files of a rendered app as :class:`~trainops.pipeline.Text` s named
    ``<out>/<cluster>/<app>/<file>``, each carrying its document as the YAML loader reads it: the
    rendered object itself (synth wrote the text from it and the writer round-trips: one document,
    no duplicate keys, every ambiguous scalar quoted), so it is not parsed again. Files kept from
    disk (``--changed``) and documents over the loader's size or depth limits are read as usual.
    """
    texts = []
    for name, text in app.files.items():
        path = str(out / app.cluster / app.app / name)
        obj = None if app.kept is not None else app.objects.get(name)
        if (
            obj is not None
            and limits.utf8_size(text) <= limits.MAX_DOCUMENT_BYTES
            and limits.depth_bound(text) <= limits.MAX_DEPTH
        ):
            texts.append(Text(path, text, Document(path, 0, obj, None, [], 0, text)))
        else:
            texts.append(Text(path, text))
    return texts


def policy_hook(root: Path, *, workers: int = 1) -> PolicyHook | None:
    """The policy step of ``synth`` and ``ci``: the default rule pack plus the repository's
    ``<root>/policies`` (its config, own rules and ValidatingAdmissionPolicies), run per cluster
    with its targets' facts; ``None`` when the repository has no ``policies/`` (holding
    ``config.yaml`` or ``__init__.py``). ``workers``: processes for the per-document work of large
    sets (:func:`trainops.policy.engine.run_policies`; the same findings for any number). Default: 1.

    Raises:
        UsageError: the pack or its config is invalid.
    """
    from trainops.pipeline import policy_check
    from trainops.policy.config import load_config
    from trainops.policy.engine import PolicyRun
    from trainops.policy.facts import Facts
    from trainops.policy.loader import PACKAGE, is_policy_dir, load_pack

    if not is_policy_dir(root / PACKAGE):
        return None
    pack = load_pack(root / PACKAGE)
    config = load_config(pack)

    def run(texts: list[Text], targets: Mapping[str, Target]) -> Result:
        return policy_check(texts, PolicyRun(pack, config, Facts()), targets=targets, workers=workers)

    return run
