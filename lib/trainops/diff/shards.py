"""The diff of a CI shard (``trainops ci --shard K/N``) and the joining of the shards' diffs
(``trainops ci --merge``).

Each shard compares the whole generated tree (git only, no synth) and keeps the changes of its own
apps (:func:`within`), written as JSON (:func:`trainops.diff.present.render_json`); the merge step
reads them back (:func:`read_json`) and joins them (:func:`merge_diffs`) into the diff one unsharded
run gives: the shards' apps are disjoint and the changes keep the order
:func:`trainops.diff.compare.compare` gives them.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Sequence
from typing import Any, cast

from trainops.core.errors import UsageError
from trainops.diff.compare import (
    Attention,
    Change,
    ChangeKind,
    FieldChange,
    Identity,
    Skipped,
    Snapshot,
    TreeDiff,
)

_CHANGE_KINDS = frozenset({"added", "removed", "changed", "new-run", "moved", "renamed"})


def within(diff: TreeDiff, holds: Callable[[str], bool], out: str) -> TreeDiff:
    """The changes and skipped files of ``diff`` that a shard owns.

    Args:
        diff: the whole tree's diff.
        holds: whether the shard owns a file, given as ``<cluster>/<app>/<file>`` relative to the
            generated root (:meth:`trainops.workflow.Shard.holds_path`).
        out: the generated root as the diff's paths start, e.g. ``generated``.
    """
    prefix = out.rstrip("/") + "/"
    return dataclasses.replace(
        diff,
        changes=tuple(c for c in diff.changes if holds(f"{c.identity.cluster}/{c.app}/-")),
        skipped=tuple(s for s in diff.skipped if holds(s.path.removeprefix(prefix))),
    )


def read_json(text: str, name: str) -> TreeDiff:
    """A diff written by :func:`trainops.diff.present.render_json`, read back: the snapshots carry
    their file, cluster, app and name (what the reports show), not the whole objects.

    Args:
        text: the JSON text. name: the file it came from, for errors.

    Raises:
        UsageError: ``text`` is not a diff trainops wrote.
    """
    try:
        payload = json.loads(text)
        return TreeDiff(
            str(payload["base"]),
            str(payload["head"]),
            tuple(_change(item) for item in payload["changes"]),
            tuple(Skipped(str(i["path"]), str(i["side"]), str(i["reason"])) for i in payload["skipped"]),
        )
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise UsageError(f"{name}: not a diff written by `trainops ci --diff-output` ({exc!r})") from None


def merge_diffs(diffs: Sequence[TreeDiff]) -> TreeDiff:
    """Join the shards' diffs into one, ordered as :func:`~trainops.diff.compare.compare` orders
    changes (cluster, app, kind, namespace, name, group; ties keep their shard's order), skipped
    files by path.

    Raises:
        UsageError: no diff, or the shards compared different revisions.
    """
    if not diffs:
        raise UsageError("--merge: no diff to join")
    sides = {(d.base, d.head) for d in diffs}
    if len(sides) > 1:
        raise UsageError(f"--merge: the shards compared different revisions: {sorted(sides)}")
    changes = sorted(
        (c for d in diffs for c in d.changes),
        key=lambda c: (
            c.identity.cluster,
            c.app,
            c.identity.kind,
            c.identity.namespace,
            c.identity.base,
            c.identity.group,
        ),
    )
    skipped = sorted((s for d in diffs for s in d.skipped), key=lambda s: s.path)
    return TreeDiff(diffs[0].base, diffs[0].head, tuple(changes), tuple(skipped))


def _change(item: dict[str, Any]) -> Change:
    if item["change"] not in _CHANGE_KINDS:
        raise ValueError(f"unknown change {item['change']!r}")
    identity = Identity(
        str(item["cluster"]), str(item["group"]), str(item["kind"]), str(item["namespace"]), str(item["base"])
    )
    return Change(
        cast(ChangeKind, item["change"]),
        identity,
        str(item["app"]),
        _snapshot(item["old"]),
        _snapshot(item["new"]),
        tuple(
            FieldChange(str(f["path"]), f.get("old"), f.get("new"), "old" in f, "new" in f)
            for f in item["fields"]
        ),
        tuple((cast(Attention, a["kind"]), str(a["message"])) for a in item["attention"]),
    )


def _snapshot(side: dict[str, Any] | None) -> Snapshot | None:
    if side is None:
        return None
    return Snapshot(
        str(side["file"]), str(side["cluster"]), str(side["app"]), {"metadata": {"name": side["name"]}}, ""
    )
