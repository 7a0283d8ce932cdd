"""The shape of a policy rule module (yamllint ``yamllint/rules/*.py``; STYLE.md habit 1) and the
adapter the engine runs.

A rule is a module of the default pack (:mod:`trainops.policy.pack`) or of a repository's
``policies/`` package::

    \"\"\"Containers do not run privileged.            <- summary (first line)

    Why: ...                                           <- rationale
    Options: none.
    Default: enabled, level error.

    PASS:

        <indented YAML>

    FAIL:

        <indented YAML>

    Remediation: set ... (one sentence ending with a period).

    Source: https://...
    \"\"\"

    ID = "no-privileged"                 # kebab-case; the module name with "_" for "-"
    LEVEL: Level = "error"
    KINDS = POD_KINDS                    # kind group from trainops.kinds, or None for every kind
    CONF = {}                            # option name -> JSON Schema of its value
    DEFAULT = {}                         # option name -> default value
    RULE = register(describe(ID, LEVEL, __doc__))

    def check(conf, obj, ctx) -> Iterator[Issue]: ...          # one object at a time, or
    def check_all(conf, objects, ctx) -> Iterator[tuple[int, Issue]]: ...   # the whole set

``check_all`` yields ``(index into objects, issue)``: cross-object rules see every rendered object
of a cluster (or every file given) at once, plus the cluster's external objects in ``ctx.facts``.
"""

from __future__ import annotations

import inspect
import re
import textwrap
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING, Any, cast

from trainops.findings import LEVELS, Issue, Level
from trainops.kinds import GroupKind, group_kind
from trainops.policy.facts import Facts
from trainops.rules import RuleInfo

if TYPE_CHECKING:  # pragma: no cover - types only
    from trainops.policy.celrule import CelRule

#: Section headers of a rule docstring, in order.
SECTIONS: tuple[str, ...] = ("Why", "Options", "Default", "PASS", "FAIL", "Remediation", "Source")
_HEADER = re.compile(r"^(" + "|".join(SECTIONS) + r"):(.*)$")

CheckOne = Callable[[Mapping[str, Any], dict[str, Any], "Context"], Iterator[Issue]]
CheckAll = Callable[[Mapping[str, Any], Sequence[dict[str, Any]], "Context"], Iterator[tuple[int, Issue]]]


@dataclass(frozen=True)
class Context:
    """What a rule sees besides its options and objects.

    Args:
        facts: the target cluster's facts (GPU resource names, gang scheduler, queues, external objects).
    """

    facts: Facts


@dataclass(frozen=True)
class Doc:
    """A rule docstring split into its sections (see the module docstring).

    Args:
        summary: the first paragraph, on one line.
        sections: header (``Why``, ``PASS``...) → text, dedented; PASS/FAIL hold YAML.
    """

    summary: str
    sections: dict[str, str]

    def get(self, section: str) -> str:
        """The text of ``section``, ``""`` when absent."""
        return self.sections.get(section, "")


def parse_doc(doc: str | None) -> Doc:
    """Split a rule docstring into summary and sections.

    A section starts at a line ``Header: text`` (header one of :data:`SECTIONS`) and runs to the
    next header; PASS and FAIL keep their indented YAML (dedented), the others are joined to one line.
    """
    text = inspect.cleandoc(doc or "")
    lines = text.splitlines()
    summary_lines: list[str] = []
    index = 0
    while index < len(lines) and lines[index].strip():
        summary_lines.append(lines[index].strip())
        index += 1
    sections: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in lines[index:]:
        match = _HEADER.match(line)
        if match:
            current = sections.setdefault(match.group(1), [])
            if match.group(2).strip():
                current.append(match.group(2).strip())
        elif current is not None:
            current.append(line)
    out: dict[str, str] = {}
    for header, body in sections.items():
        if header in ("PASS", "FAIL"):
            out[header] = textwrap.dedent("\n".join(body)).strip("\n") + "\n"
        else:
            out[header] = " ".join(part.strip() for part in body if part.strip())
    return Doc(" ".join(summary_lines), out)


def describe(rule_id: str, level: Level, doc: str | None) -> RuleInfo:
    """The :class:`~trainops.rules.RuleInfo` of a policy rule, read from its docstring.

    Raises:
        ValueError: the docstring lacks a summary, ``Why:``, ``Remediation:`` or ``Source:``.
    """
    parsed = parse_doc(doc)
    missing = [s for s in ("Why", "Remediation", "Source") if not parsed.get(s)]
    if not parsed.summary or missing:
        raise ValueError(f"rule {rule_id}: docstring lacks {', '.join(missing) or 'a summary'}")
    return RuleInfo(
        id=rule_id,
        level=level,
        summary=parsed.summary,
        rationale=parsed.get("Why"),
        remediation=parsed.get("Remediation"),
        source=parsed.get("Source"),
        family="policy",
    )


@dataclass(frozen=True)
class Rule:
    """A loaded rule module, checked for the yamllint shape.

    Args:
        id: the rule ID.
        level: the default level.
        kinds: the kinds ``check`` runs on; ``None`` for every kind.
        conf: option name → JSON Schema of its value.
        default: option name → default value.
        info: the registered documentation.
        doc: the parsed docstring.
        check: the single-object check, or ``None``.
        check_all: the cross-object check, or ``None``.
        module: the module's name.
        cel: the rule's CEL (:class:`~trainops.policy.celrule.CelRule`) when it is written in CEL;
            ``check`` then evaluates it (:func:`~trainops.policy.celrule.make_check`).
    """

    id: str
    level: Level
    kinds: frozenset[GroupKind] | None
    conf: dict[str, dict[str, Any]]
    default: dict[str, Any]
    info: RuleInfo
    doc: Doc
    check: CheckOne | None
    check_all: CheckAll | None
    module: str
    cel: CelRule | None = None

    @classmethod
    def from_module(cls, module: ModuleType) -> Rule:
        """Adapt a rule module.

        Raises:
            ValueError: the module lacks a part of the shape, its ID differs from its file name,
                CONF and DEFAULT name different options, or it has both or neither check function.
        """
        name = module.__name__.rpartition(".")[2]
        rule_id = getattr(module, "ID", None)
        if rule_id != name.replace("_", "-"):
            raise ValueError(f"policy module {name}: ID {rule_id!r} must be {name.replace('_', '-')!r}")
        for attribute in ("LEVEL", "KINDS", "CONF", "DEFAULT", "RULE"):
            if not hasattr(module, attribute):
                raise ValueError(f"policy rule {rule_id}: module lacks {attribute}")
        if module.LEVEL not in LEVELS:
            raise ValueError(
                f"policy rule {rule_id}: LEVEL {module.LEVEL!r} is not one of {', '.join(LEVELS)}"
            )
        conf = cast(dict[str, dict[str, Any]], module.CONF)
        default = cast(dict[str, Any], module.DEFAULT)
        if set(conf) != set(default):
            raise ValueError(f"policy rule {rule_id}: CONF and DEFAULT name different options")
        one, every = getattr(module, "check", None), getattr(module, "check_all", None)
        cel_rule = getattr(module, "CEL", None)
        if cel_rule is not None:  # a CEL-written rule (trainops.policy.celrule): check() is derived
            from trainops.policy.celrule import CelRule, make_check

            if not isinstance(cel_rule, CelRule) or one is not None or every is not None:
                raise ValueError(
                    f"policy rule {rule_id}: CEL must be a CelRule, and then no check() is defined"
                )
            one = make_check(rule_id, cel_rule)
        if (one is None) == (every is None):
            raise ValueError(f"policy rule {rule_id}: define exactly one of check() and check_all()")
        info = cast(RuleInfo, module.RULE)
        if info.id != rule_id or info.family != "policy":
            raise ValueError(f"policy rule {rule_id}: RULE must be describe(ID, LEVEL, __doc__)")
        return cls(
            id=rule_id,
            level=cast(Level, module.LEVEL),
            kinds=cast("frozenset[GroupKind] | None", module.KINDS),
            conf=conf,
            default=default,
            info=info,
            doc=parse_doc(module.__doc__),
            check=one,
            check_all=every,
            module=module.__name__,
            cel=cel_rule,
        )

    def applies_to(self, obj: dict[str, Any]) -> bool:
        """Whether ``check`` runs on ``obj`` (its kind is in :attr:`kinds`; a rule for every kind skips
        tools' configuration files, see :func:`is_tool_config`)."""
        return (self.kinds is None and not is_tool_config(obj)) or group_kind(obj) in (self.kinds or ())


#: API groups of tools' own configuration files: they look like objects but never reach the API server
#: (kind's ``Cluster``, kubeadm's ``ClusterConfiguration``); component configs end in ``.config.k8s.io``
#: (``kubelet.config.k8s.io``, ``kubescheduler.config.k8s.io``, ``kustomize.config.k8s.io``).
TOOL_CONFIG_GROUPS = frozenset({"kind.x-k8s.io", "kubeadm.k8s.io"})


def is_tool_config(obj: dict[str, Any]) -> bool:
    """Whether ``obj`` is a tool's configuration file rather than a Kubernetes object."""
    key = group_kind(obj)
    return key is not None and (key[0] in TOOL_CONFIG_GROUPS or key[0].endswith(".config.k8s.io"))
