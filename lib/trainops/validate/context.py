"""What a check family sees of one document, and the shape every family has."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

from trainops.core.findings import Issue
from trainops.core.kinds import KindGroup, PodSite, pod_templates
from trainops.core.rules import RuleInfo
from trainops.schemas.registry import KindSchema, SchemaRegistry
from trainops.validate.scan import Scan

UnknownKinds = Literal["error", "warning", "skip"]


@dataclass(frozen=True)
class ValidateOptions:
    """Options of one validation run.

    Args:
        unknown_kinds: what a kind with no schema is: ``error`` (default), ``warning`` or ``skip``.
        max_messages: cap on schema findings per document (the rest are summarised). Default: 50.
    """

    unknown_kinds: UnknownKinds = "error"
    max_messages: int = 50


@dataclass
class DocumentContext:
    """One document with a schema, as the check families see it.

    Args:
        data: the document (null fields of custom resources already pruned).
        api_version: e.g. ``kubeflow.org/v1``.
        kind: e.g. ``PyTorchJob``.
        schema: its compiled schema from the registry.
        registry: the target's schema registry.
        options: the run's options.
        scan: the one walk over every value of ``data`` (:func:`trainops.validate.scan.scan`), made
            before null fields were pruned (pruning removes no string and no ``env`` value).
        found: issues found so far by earlier families, in order (a family may skip what an earlier
            one reported, e.g. API-server checks skip paths the schema already rejected).
    """

    data: dict[str, Any]
    api_version: str
    kind: str
    schema: KindSchema
    registry: SchemaRegistry
    options: ValidateOptions
    scan: Scan
    found: list[Issue] = field(default_factory=list)
    _pod_sites: list[PodSite] | None = field(default=None, repr=False)

    def pod_sites(self) -> list[PodSite]:
        """:func:`trainops.core.kinds.pod_templates` of ``data``, found once per document (several families
        look at the pod specs; checks do not modify ``data``)."""
        if self._pod_sites is None:
            self._pod_sites = pod_templates(self.data)
        return self._pod_sites

    def found_by(self, rule_id: str) -> list[Issue]:
        """Issues an earlier family of rule ``rule_id`` reported for this document."""
        return [issue for issue in self.found if issue.rule == rule_id]


class Check(NamedTuple):
    """A check family: its registered rule and the function yielding its issues for a document.

    Args:
        rule: the family's :class:`~trainops.core.rules.RuleInfo` (every issue it yields carries ``rule.id``).
        run: ``run(context)`` yields :class:`~trainops.core.findings.Issue` s; it must not raise on odd
            input (values of unexpected types are the schema family's to report).
    """

    rule: RuleInfo
    run: Callable[[DocumentContext], Iterable[Issue]]


class Family(NamedTuple):
    """A module of API-server checks (rule ``api-server``: ``pod_fields``, ``workloads``...) that runs
    on documents of its kinds, inside the one ``api-server`` check
    (:func:`trainops.validate.checks.api_server.check_with`).

    Args:
        run: ``run(context)`` returns the module's issues for the document, in document order.
        names: the kind names it checks, in any API group (when ``group`` is ``None``).
        group: the ``(group, kind)`` pairs it checks, looked up in the kinds table at each document,
            or ``None`` when ``names`` says.
    """

    run: Callable[[DocumentContext], list[Issue]]
    names: frozenset[str] = frozenset()
    group: KindGroup | None = None

    def checks(self, api_group: str, kind: str) -> bool:
        """Whether the family checks documents of ``kind`` in ``api_group`` (``""`` for the core group)."""
        if self.group is not None:
            return (api_group, kind) in self.group
        return kind in self.names
