"""Compare two ``generated/`` trees by object identity (DESIGN.md decision 5).

An object's identity is ``(cluster, API group, kind, namespace, base name)``, where the base name
of a run-once object (``kinds.RUN_ONCE``, named ``<base>-<hash6>``) is its ``trainops.dev/run-of``
label, so a re-hashed training job is a *new run of <base>* with a field-level diff against the
previous run, not a deletion plus an addition. Objects absent on one side in one cluster and
present on the other side in another are *moved*; an object removed and another added with the
same group, kind and spec hash is *renamed*. A changed pod template of an Argo Rollouts ``Rollout``
(a new image or model of a server) is a *rollout*: the controller runs it as a blue-green or canary
release, not as a replacement of pods; so is a Deployment that becomes a Rollout of the same name.

What reviewers must notice is flagged as :data:`Attention`:

- ``new-run``: a new training run starts (a run-once object added or re-hashed);
- ``data-deleted``: a PersistentVolumeClaim, which holds data, is removed (or moved away);
- ``immutable``: a field the API server refuses to update changed in place
  (:data:`IMMUTABLE_FIELDS`); the sync fails until the object is replaced;
- ``protected``: any change to a cluster declared ``Cluster(protected=True)``;
- ``moved``: an object moves between clusters;
- ``platform-upgrade``: a platform Application (``trainops.core.platform``) moves its component to
  another release, listing the API versions the cluster's objects still use that the new release
  removes or deprecates (from the platform catalog's CRD versions);
- ``rollout``: a new version of a server rolls out through Argo Rollouts (how: its strategy), or a
  Deployment is replaced by a Rollout (its pods go when Argo CD prunes it, before the Rollout's are
  ready).

Files that differ between the sides but are not compared (binary, too large, symbolic links, not
YAML a parser reads) are listed in :attr:`TreeDiff.skipped`, so a diff never reads "no changes"
over a file it could not read. Field values holding a credential of either object (an env literal
named like a password, a token detect-secrets recognises, a Secret's data:
:func:`~trainops.core.credentials.document_secrets`) are shown as :data:`REDACTED` in every format.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import yaml

from trainops.core.credentials import document_secrets
from trainops.core.kinds import RUN_ONCE, group_of
from trainops.core.platform import CLUSTER_LABEL, COMPONENT_LABEL, VERSION_LABEL, upgrade_impact
from trainops.synth.normalise import RUN_OF_LABEL, SPEC_HASH_ANNOTATION, run_of

ChangeKind = Literal["added", "removed", "changed", "new-run", "moved", "renamed", "rollout"]
Attention = Literal[
    "new-run", "data-deleted", "immutable", "protected", "moved", "platform-upgrade", "rollout"
]
#: Argo Rollouts' Rollout, as (group, kind).
ROLLOUT = ("argoproj.io", "Rollout")

#: Fields the API server refuses to change on update, by (group, kind): path prefixes as tuples
#: (``"*"`` matches any key). Sources (kubernetes ``pkg/apis/*/validation``):
#: ``ValidateDeploymentUpdate``/``ValidateReplicaSetUpdate``/``ValidateDaemonSetUpdate``
#: (``spec.selector`` is immutable in apps/v1), ``ValidateStatefulSetUpdate`` (only replicas,
#: ordinals, template, updateStrategy, persistentVolumeClaimRetentionPolicy and minReadySeconds
#: may change), ``ValidateJobUpdate`` (``spec.selector``, ``spec.template`` of a started job),
#: ``ValidatePersistentVolumeClaimUpdate`` (the spec except ``resources.requests`` and
#: ``volumeAttributesClassName``), ``ValidateServiceUpdate`` (``spec.clusterIP``/``clusterIPs``).
IMMUTABLE_FIELDS: dict[tuple[str, str], tuple[tuple[str, ...], ...]] = {
    ("apps", "Deployment"): (("spec", "selector"),),
    ("apps", "ReplicaSet"): (("spec", "selector"),),
    ("apps", "DaemonSet"): (("spec", "selector"),),
    ("apps", "StatefulSet"): (
        ("spec", "selector"),
        ("spec", "serviceName"),
        ("spec", "volumeClaimTemplates"),
        ("spec", "podManagementPolicy"),
    ),
    ("batch", "Job"): (("spec", "selector"), ("spec", "template")),
    ("", "PersistentVolumeClaim"): (
        ("spec", "storageClassName"),
        ("spec", "accessModes"),
        ("spec", "volumeName"),
        ("spec", "volumeMode"),
        ("spec", "selector"),
        ("spec", "dataSource"),
        ("spec", "dataSourceRef"),
    ),
    ("", "Service"): (("spec", "clusterIP"), ("spec", "clusterIPs")),
}

#: Paths left out of field diffs: bookkeeping that changes with every content change.
_NOISE = {("metadata", "annotations", SPEC_HASH_ANNOTATION), ("metadata", "name")}
_MISSING = object()
#: libyaml's safe loader when PyYAML was built with it (synth output reads the same either way).
_Loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@dataclass(frozen=True)
class Identity:
    """Who an object is, across revisions: cluster, API group, kind, namespace and base name."""

    cluster: str
    group: str
    kind: str
    namespace: str
    base: str

    def label(self) -> str:
        """``Kind namespace/base`` (``Kind base`` when cluster-scoped)."""
        where = f"{self.namespace}/{self.base}" if self.namespace else self.base
        return f"{self.kind} {where}"


@dataclass(frozen=True)
class Snapshot:
    """One object in one tree.

    Args:
        path: repository-relative file, e.g. ``generated/gpu-prod/bert/pytorchjob_bert-3f2a1b.yaml``.
        cluster: the first directory under the generated root.
        app: the second directory (``""`` for files directly under the cluster).
        obj: the parsed object.
        text: the file's text.
    """

    path: str
    cluster: str
    app: str
    obj: dict[str, Any]
    text: str

    @property
    def name(self) -> str:
        """``metadata.name``."""
        return str(_dict(self.obj.get("metadata")).get("name", ""))

    @property
    def spec_hash(self) -> str:
        """The ``trainops.dev/spec-hash`` annotation (``""`` when absent)."""
        return str(_dict(_dict(self.obj.get("metadata")).get("annotations")).get(SPEC_HASH_ANNOTATION, ""))

    def identity(self, cluster: str | None = None) -> Identity:
        """This object's identity (in ``cluster`` instead of its own, when given)."""
        meta = _dict(self.obj.get("metadata"))
        base = _dict(meta.get("labels")).get(RUN_OF_LABEL) or run_of(self.obj) or self.name
        return Identity(
            cluster if cluster is not None else self.cluster,
            group_of(str(self.obj.get("apiVersion", ""))),
            str(self.obj.get("kind", "")),
            str(meta.get("namespace", "")),
            str(base),
        )


@dataclass(frozen=True)
class FieldChange:
    """One changed field: JSON-path-like ``path`` (list items keyed by ``name`` where they have
    one, e.g. ``$.spec.containers[name=main].image``), old and new value (``None`` when absent)."""

    path: str
    old: Any
    new: Any
    old_present: bool = True
    new_present: bool = True


@dataclass(frozen=True)
class Change:
    """One object that differs between the trees.

    Args:
        change: what happened.
        identity: the object's identity (its new cluster for ``moved``).
        app: the app directory on the new side (the old one for ``removed``).
        old: the object before (``None`` for ``added``).
        new: the object after (``None`` for ``removed``).
        fields: the field-level diff (changed, new-run, moved, renamed).
        attention: what reviewers must notice, each with a one-line reason.
    """

    change: ChangeKind
    identity: Identity
    app: str
    old: Snapshot | None
    new: Snapshot | None
    fields: tuple[FieldChange, ...] = ()
    attention: tuple[tuple[Attention, str], ...] = ()

    @property
    def run_once(self) -> bool:
        """Whether the object is a run-once kind (a training run)."""
        return (self.identity.group, self.identity.kind) in RUN_ONCE


@dataclass(frozen=True)
class Skipped:
    """A file that differs between the trees but was not compared: its path, the side(s) it is on
    (``base``, ``head`` or ``both``) and why (one line)."""

    path: str
    side: str
    reason: str


@dataclass(frozen=True)
class TreeDiff:
    """The comparison of two trees: changes sorted by cluster, app, kind and name, and the files
    that differ but were not compared, sorted by path."""

    base: str
    head: str
    changes: tuple[Change, ...] = field(default_factory=tuple)
    skipped: tuple[Skipped, ...] = field(default_factory=tuple)

    def count(self, change: ChangeKind) -> int:
        """How many changes are of kind ``change``."""
        return sum(1 for c in self.changes if c.change == change)

    def attention(self) -> list[tuple[Change, Attention, str]]:
        """Every flagged item, in change order."""
        return [(c, kind, why) for c in self.changes for kind, why in c.attention]


def parse_tree(
    texts: Mapping[str, str], prefix: str, unparsed: dict[str, str] | None = None
) -> dict[Identity, Snapshot]:
    """Parse a tree (path → YAML text, paths under ``prefix``) into objects by identity.

    Files that do not hold one Kubernetes object (empty, a list) are skipped: they are not synth
    output. A file holding several documents contributes each of them. A file that is not YAML
    is skipped too, and recorded in ``unparsed`` (path → one-line reason) when given.
    """
    out: dict[Identity, Snapshot] = {}
    strip = prefix.rstrip("/") + "/"
    for path in sorted(texts):
        rel = path[len(strip) :] if path.startswith(strip) else path
        parts = rel.split("/")
        cluster = parts[0] if len(parts) > 1 else ""
        app = parts[1] if len(parts) > 2 else ""
        try:
            documents = list(yaml.load_all(texts[path], Loader=_Loader))
        except (yaml.YAMLError, RecursionError) as exc:
            if unparsed is not None:
                mark = getattr(exc, "problem_mark", None)
                where = f" at line {mark.line + 1}" if mark is not None else ""
                unparsed[path] = f"not YAML trainops diff can read{where}; not compared"
            continue
        for doc in documents:
            if (
                isinstance(doc, dict)
                and isinstance(doc.get("kind"), str)
                and isinstance(doc.get("apiVersion"), str)
                and isinstance(doc.get("metadata", {}), dict)
            ):
                snapshot = Snapshot(path, cluster, app, doc, texts[path])
                out.setdefault(snapshot.identity(), snapshot)
    return out


def compare(
    old: Mapping[Identity, Snapshot],
    new: Mapping[Identity, Snapshot],
    *,
    base: str,
    head: str,
    protected: Iterable[str] = (),
) -> TreeDiff:
    """Compare two parsed trees by identity.

    Args:
        old: the tree at ``base`` (:func:`parse_tree`).
        new: the tree at ``head``.
        base: label of the old side, e.g. a short commit id.
        head: label of the new side, e.g. ``working tree``.
        protected: names of protected clusters (every change there is flagged).
    """
    protected = set(protected)
    changes: list[Change] = []
    removed = {k: v for k, v in old.items() if k not in new}
    added = {k: v for k, v in new.items() if k not in old}
    for identity in sorted(set(old) & set(new), key=_order):
        before, after = old[identity], new[identity]
        if before.obj == after.obj:
            continue
        fields = tuple(field_diff(before.obj, after.obj))
        kind: ChangeKind = "new-run" if before.name != after.name and _is_run_once(identity) else "changed"
        if (identity.group, identity.kind) == ROLLOUT and any(
            f.path.startswith("$.spec.template") for f in fields
        ):
            kind = "rollout"
        changes.append(Change(kind, identity, after.app, before, after, fields))
    # moved between clusters: same identity apart from the cluster
    by_rest: dict[tuple[str, str, str, str], list[Identity]] = {}
    for identity in removed:
        by_rest.setdefault(_rest(identity), []).append(identity)
    for identity in sorted(added, key=_order):
        candidates = by_rest.get(_rest(identity))
        if candidates:
            source = candidates.pop(0)
            before = removed.pop(source)
            after = added.pop(identity)
            changes.append(
                Change("moved", identity, after.app, before, after, tuple(field_diff(before.obj, after.obj)))
            )
    # renamed: removed and added with the same group, kind, namespace, cluster and spec hash
    for identity in sorted(list(added), key=_order):
        after = added[identity]
        match = next(
            (
                i
                for i, s in removed.items()
                if (i.cluster, i.group, i.kind, i.namespace)
                == (identity.cluster, identity.group, identity.kind, identity.namespace)
                and s.spec_hash
                and s.spec_hash == after.spec_hash
            ),
            None,
        )
        if match is not None:
            before = removed.pop(match)
            del added[identity]
            changes.append(
                Change(
                    "renamed", identity, after.app, before, after, tuple(field_diff(before.obj, after.obj))
                )
            )
    # a Deployment that becomes a Rollout of the same name (a server gains a rollout strategy)
    for identity in sorted(list(added), key=_order):
        if (identity.group, identity.kind) != ROLLOUT:
            continue
        source = Identity(identity.cluster, "apps", "Deployment", identity.namespace, identity.base)
        if source in removed:
            before, after = removed.pop(source), added.pop(identity)
            changes.append(
                Change(
                    "rollout", identity, after.app, before, after, tuple(field_diff(before.obj, after.obj))
                )
            )
    changes += [Change("added", i, s.app, None, s) for i, s in added.items()]
    changes += [Change("removed", i, s.app, s, None) for i, s in removed.items()]
    flagged = [_upgrade(_with_attention(_redacted(c), protected), new) for c in changes]
    flagged.sort(key=lambda c: (c.identity.cluster, c.app, *_order(c.identity)[1:]))
    return TreeDiff(base, head, tuple(flagged))


def field_diff(old: Any, new: Any, path: tuple[str | int, ...] = ()) -> list[FieldChange]:
    """The leaves that differ between ``old`` and ``new``, in document order (old keys first).

    Lists of mappings that all carry a distinct ``name`` are matched by name
    (``containers[name=main]``); other lists by index. Bookkeeping fields (``metadata.name``, the
    spec-hash annotation) are left out.
    """
    if tuple(str(p) for p in path) in _NOISE:
        return []
    if isinstance(old, dict) and isinstance(new, dict):
        out: list[FieldChange] = []
        for key in [*old, *(k for k in new if k not in old)]:
            out += _leaf_or_descend(old.get(key, _MISSING), new.get(key, _MISSING), (*path, key))
        return out
    if isinstance(old, list) and isinstance(new, list):
        old_named, new_named = _named(old), _named(new)
        if old_named is not None and new_named is not None:
            out = []
            for key in [*old_named, *(k for k in new_named if k not in old_named)]:
                out += _leaf_or_descend(
                    old_named.get(key, _MISSING), new_named.get(key, _MISSING), (*path, f"name={key}")
                )
            return out
        out = []
        for index in range(max(len(old), len(new))):
            out += _leaf_or_descend(
                old[index] if index < len(old) else _MISSING,
                new[index] if index < len(new) else _MISSING,
                (*path, index),
            )
        return out
    if old == new:
        return []
    return [FieldChange(render_path(path), old, new)]


def render_path(parts: Iterable[str | int]) -> str:
    """``$.spec.containers[name=main].image`` from path parts; odd keys are quoted."""
    out = "$"
    for part in parts:
        if isinstance(part, int) or (isinstance(part, str) and part.startswith("name=")):
            out += f"[{part}]"
        elif not isinstance(part, str):  # a YAML key that is not a string (null, a float...)
            out += f"[{part!r}]"
        elif _PLAIN_KEY.fullmatch(part):
            out += f".{part}"
        else:
            out += f"[{part!r}]"
    return out


_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")


def _leaf_or_descend(old: Any, new: Any, path: tuple[str | int, ...]) -> list[FieldChange]:
    if tuple(str(p) for p in path) in _NOISE:
        return []
    if old is _MISSING or new is _MISSING:
        if old is new:
            return []
        return [
            FieldChange(
                render_path(path),
                None if old is _MISSING else old,
                None if new is _MISSING else new,
                old_present=old is not _MISSING,
                new_present=new is not _MISSING,
            )
        ]
    return field_diff(old, new, path)


def _named(items: list[Any]) -> dict[str, Any] | None:
    if not items or not all(isinstance(i, dict) and isinstance(i.get("name"), str) for i in items):
        return None
    named = {i["name"]: i for i in items}
    return named if len(named) == len(items) else None


def _dict(value: Any) -> dict[Any, Any]:
    """``value`` when it is a mapping, else ``{}`` (a hand-written file may hold anything)."""
    return value if isinstance(value, dict) else {}


REDACTED = "(redacted)"
"""What a field value holding a credential shows instead."""


def _redacted(change: Change) -> Change:
    """``change`` with every field value that holds a credential of either object replaced."""
    if not change.fields:
        return change
    secrets = tuple(
        {
            *(document_secrets(change.old.obj) if change.old is not None else ()),
            *(document_secrets(change.new.obj) if change.new is not None else ()),
        }
    )
    if not secrets:
        return change
    fields = tuple(
        FieldChange(f.path, _hide(f.old, secrets), _hide(f.new, secrets), f.old_present, f.new_present)
        for f in change.fields
    )
    return Change(
        change.change, change.identity, change.app, change.old, change.new, fields, change.attention
    )


def _hide(value: Any, secrets: tuple[str, ...]) -> Any:
    """``value`` with each scalar that is or holds one of ``secrets`` replaced by :data:`REDACTED`."""
    if isinstance(value, dict):
        return {k: _hide(v, secrets) for k, v in value.items()}
    if isinstance(value, list):
        return [_hide(v, secrets) for v in value]
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        return value
    text = str(value)
    return REDACTED if any(secret in text for secret in secrets) else value


def rollout_reason(change: Change) -> str:
    """One line on how a ``rollout`` change reaches the cluster: the images that change and the
    Rollout's strategy (or the Deployment it replaces)."""
    assert change.new is not None
    ident, new = change.identity, change.new
    if change.old is not None and change.old.obj.get("kind") == "Deployment":
        return (
            f"Deployment {ident.base} becomes a Rollout: Argo CD prunes the Deployment's pods while the "
            "Rollout's start (keep both for one sync, or migrate with workloadRef)"
        )
    images = [
        f"{f.old} → {f.new}"
        for f in change.fields
        if f.path.startswith("$.spec.template") and f.path.endswith(".image")
    ]
    what = f"image {', '.join(images)}" if images else "new pod template"
    return f"new version of Rollout {new.name} ({what}) rolls out {_strategy_text(new.obj)}"


def _strategy_text(obj: dict[str, Any]) -> str:
    """``blue-green (preview resnet-preview, pre-promotion analysis, manual promotion)`` and the like."""
    strategy = _dict(_dict(obj.get("spec")).get("strategy"))
    blue_green, canary = _dict(strategy.get("blueGreen")), _dict(strategy.get("canary"))
    notes: list[str] = []
    if blue_green:
        notes.append(f"preview {blue_green.get('previewService', '?')}")
        if blue_green.get("prePromotionAnalysis"):
            notes.append("pre-promotion analysis")
        notes.append(
            "manual promotion" if blue_green.get("autoPromotionEnabled") is False else "automatic promotion"
        )
        return f"blue-green ({', '.join(notes)})"
    steps = [s for s in canary.get("steps") or () if isinstance(s, dict)]
    weights = [str(s["setWeight"]) for s in steps if "setWeight" in s]
    notes.append(f"weights {', '.join(weights)} %" if weights else "no steps")
    if any("analysis" in s for s in steps) or canary.get("analysis"):
        notes.append("analysis")
    if any(s.get("pause") == {} for s in steps):
        notes.append("manual promotion")
    return f"canary ({', '.join(notes)})"


def _is_run_once(identity: Identity) -> bool:
    return (identity.group, identity.kind) in RUN_ONCE


def _rest(identity: Identity) -> tuple[str, str, str, str]:
    return identity.group, identity.kind, identity.namespace, identity.base


def _order(identity: Identity) -> tuple[str, str, str, str, str]:
    return identity.cluster, identity.kind, identity.namespace, identity.base, identity.group


def _immutable_paths(change: Change) -> list[str]:
    prefixes = IMMUTABLE_FIELDS.get((change.identity.group, change.identity.kind), ())
    hits = []
    for item in change.fields:
        for prefix in prefixes:
            rendered = render_path(prefix)
            if item.path == rendered or item.path.startswith((rendered + ".", rendered + "[")):
                hits.append(item.path)
                break
    return hits


def _upgrade(change: Change, new: Mapping[Identity, Snapshot]) -> Change:
    """Flag a platform Application whose component release changes (``platform-upgrade``), with
    the API versions objects of its cluster in ``new`` use that the new release removes or
    deprecates (:func:`trainops.core.platform.upgrade_impact`)."""
    if change.change != "changed" or change.old is None or change.new is None:
        return change
    old_labels = _dict(_dict(change.old.obj.get("metadata")).get("labels"))
    labels = _dict(_dict(change.new.obj.get("metadata")).get("labels"))
    component = labels.get(COMPONENT_LABEL)
    before, after = old_labels.get(VERSION_LABEL), labels.get(VERSION_LABEL)
    if not component or component != old_labels.get(COMPONENT_LABEL) or before == after:
        return change
    cluster = str(labels.get(CLUSTER_LABEL, change.identity.cluster))
    used = {
        (str(s.obj.get("apiVersion", "")), str(s.obj.get("kind", "")))
        for i, s in new.items()
        if i.cluster == cluster and s.app != change.app
    }
    impact = upgrade_impact(str(component), str(before), str(after), used)
    why = f"platform upgrade on {cluster}: {component} {before} → {after}"
    if impact.removed:
        why += f"; it removes {', '.join(impact.removed)}, still used there"
    if impact.deprecated:
        why += f"; it deprecates {', '.join(impact.deprecated)}, still used there"
    if not impact.known:
        why += " (a release the platform catalog does not know: API changes unchecked)"
    flags = (*change.attention, ("platform-upgrade", why))
    return Change(change.change, change.identity, change.app, change.old, change.new, change.fields, flags)


def _with_attention(change: Change, protected: set[str]) -> Change:
    flags: list[tuple[Attention, str]] = []
    ident = change.identity
    if change.run_once and change.change in ("added", "new-run"):
        before = f" (replaces {change.old.name})" if change.old is not None else ""
        name = change.new.name if change.new is not None else ident.base
        flags.append(("new-run", f"new training run {ident.kind} {name}{before}"))
    if ident.kind == "PersistentVolumeClaim" and ident.group == "" and change.change in ("removed", "moved"):
        where = change.old.cluster if change.old is not None else ident.cluster
        flags.append(
            (
                "data-deleted",
                f"PersistentVolumeClaim {ident.base} is deleted from {where}: its data goes with it",
            )
        )
    if change.change == "changed":
        immutable = _immutable_paths(change)
        if immutable:
            flags.append(
                ("immutable", f"immutable field changed in place: {', '.join(immutable)} (the sync fails)")
            )
        elif change.run_once and any(f.path.startswith("$.spec") for f in change.fields):
            flags.append(("immutable", f"run-once {ident.kind} spec changed in place without a new name"))
    if change.change == "rollout" and change.new is not None:
        flags.append(("rollout", rollout_reason(change)))
    if change.change == "moved" and change.old is not None:
        flags.append(("moved", f"moves from cluster {change.old.cluster} to {ident.cluster}"))
    clusters = {ident.cluster, change.old.cluster if change.old is not None else ident.cluster}
    hit = sorted(clusters & protected)
    if hit:
        flags.append(("protected", f"changes protected cluster {', '.join(hit)}"))
    return Change(change.change, ident, change.app, change.old, change.new, change.fields, tuple(flags))
