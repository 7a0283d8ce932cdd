"""Present a :class:`~trainops.diff.compare.TreeDiff`: ``text`` (terminal), ``markdown`` (a PR
comment, collapsible per app) and ``json``; presentation only, nothing is decided here."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from trainops.core.findings import one_line
from trainops.diff.compare import Change, FieldChange, Skipped, TreeDiff

#: How each change kind reads in a heading.
_VERB = {
    "added": "added",
    "removed": "removed",
    "changed": "changed",
    "new-run": "new run",
    "moved": "moved",
    "renamed": "renamed",
    "rollout": "rollout",
}
_SIGN = {
    "added": "+",
    "removed": "-",
    "changed": "~",
    "new-run": "»",
    "moved": ">",
    "renamed": "~",
    "rollout": "»",
}
#: Values longer than this are shortened in text and markdown (json has them whole).
_MAX_VALUE = 120


def summary(diff: TreeDiff) -> str:
    """One line: ``generated/ at BASE → HEAD: 1 new run, 2 changed, ...`` (or ``no changes``);
    files that differ but were not compared count as ``N files not compared``."""
    parts = [f"{diff.count(k)} {_VERB[k]}" for k in _VERB if diff.count(k)]  # type: ignore[arg-type]
    flags = diff.attention()
    if flags:
        parts.append(f"{len(flags)} to review")
    if diff.skipped:
        parts.append(f"{len(diff.skipped)} {'file' if len(diff.skipped) == 1 else 'files'} not compared")
    return f"generated/ {diff.base} → {diff.head}: {', '.join(parts) if parts else 'no changes'}"


def headline(change: Change) -> str:
    """``new run of bert-ft: PyTorchJob ml/bert-ft-3f2a1b → bert-ft-9c0d4e`` and the like."""
    ident = change.identity
    where = f"{ident.namespace}/" if ident.namespace else ""
    old = change.old.name if change.old is not None else ""
    new = change.new.name if change.new is not None else ""
    if change.change == "new-run":
        return f"new run of {ident.base}: {ident.kind} {where}{old} → {new}"
    if change.change == "rollout":
        if change.old is not None and change.old.obj.get("kind") != ident.kind:
            return f"rollout of {ident.base}: {change.old.obj.get('kind')} {where}{old} becomes {ident.kind}"
        return f"rollout of {ident.base}: {ident.kind} {where}{new}"
    if change.change == "renamed":
        return f"renamed: {ident.kind} {where}{old} → {new}"
    if change.change == "moved" and change.old is not None:
        return f"moved: {ident.kind} {where}{new} from cluster {change.old.cluster}"
    name = new or old
    return f"{_VERB[change.change]}: {ident.kind} {where}{name}"


def value_text(value: Any, present: bool = True) -> str:
    """A field value on one line: JSON, shortened; ``(absent)`` when the field is not there."""
    if not present:
        return "(absent)"
    text = json.dumps(_plain(value), sort_keys=True, ensure_ascii=False, default=str)
    return text if len(text) <= _MAX_VALUE else text[: _MAX_VALUE - 1] + "…"


def field_line(item: FieldChange) -> str:
    """``$.spec.x: 4 → 8``."""
    return f"{item.path}: {value_text(item.old, item.old_present)} → {value_text(item.new, item.new_present)}"


def skipped_line(item: Skipped) -> str:
    """``generated/lab/x/model.bin (head): binary content (NUL byte at byte 0); not compared``."""
    return f"{one_line(item.path)} ({item.side}): {item.reason}"


def render_text(diff: TreeDiff) -> str:
    """Text for a terminal: the summary, what to review, the files not compared, then each app's
    changes with field diffs."""
    lines = [summary(diff)]
    flags = diff.attention()
    if flags:
        lines.append("review:")
        lines += [f"  ! [{kind}] {c.identity.cluster}/{c.app}: {why}" for c, kind, why in flags]
    if diff.skipped:
        lines.append("not compared:")
        lines += [f"  ? {skipped_line(item)}" for item in diff.skipped]
    for (cluster, app), changes in _by_app(diff).items():
        lines.append(f"{cluster}/{app}:")
        for change in changes:
            lines.append(f"  {_SIGN[change.change]} {headline(change)}")
            lines += [f"      {field_line(f)}" for f in change.fields]
    return "\n".join(lines) + "\n"


def render_markdown(diff: TreeDiff) -> str:
    """Markdown for a pull-request comment: the summary, a "Review" list, then one collapsible
    ``<details>`` section per app with a table of field changes per object."""
    lines = ["### trainops diff", "", summary(diff).replace("→", "→"), ""]
    flags = diff.attention()
    if flags:
        lines += ["**Review:**", ""]
        lines += [
            f"- :warning: **{kind}** `{c.identity.cluster}/{c.app}`: {_md(why)}" for c, kind, why in flags
        ]
        lines.append("")
    if diff.skipped:
        lines += ["**Not compared:**", ""]
        lines += [
            f"- :question: `{_cell(one_line(i.path))}` ({i.side}): {_md(i.reason)}" for i in diff.skipped
        ]
        lines.append("")
    for (cluster, app), changes in _by_app(diff).items():
        counts = ", ".join(f"{n} {verb}" for verb, n in _counts(changes).items() if n)
        lines += [f"<details><summary><code>{cluster}/{app}</code>: {counts}</summary>", ""]
        for change in changes:
            lines.append(f"- {_md(headline(change))}")
            if change.fields:
                lines += ["", "  | field | before | after |", "  |---|---|---|"]
                lines += [
                    f"  | `{_cell(f.path)}` | {_code(value_text(f.old, f.old_present))} | "
                    f"{_code(value_text(f.new, f.new_present))} |"
                    for f in change.fields
                ]
                lines.append("")
        lines += ["", "</details>", ""]
    return "\n".join(lines).rstrip("\n") + "\n"


def render_json(diff: TreeDiff) -> str:
    """JSON: ``{base, head, summary, changes: [...]}`` with every field value whole."""

    def side(change: Change, which: str) -> dict[str, str] | None:
        snap = change.old if which == "old" else change.new
        return (
            None
            if snap is None
            else {"cluster": snap.cluster, "app": snap.app, "name": snap.name, "file": snap.path}
        )

    payload = {
        "base": diff.base,
        "head": diff.head,
        "summary": {k: diff.count(k) for k in _VERB},  # type: ignore[arg-type]
        "changes": [
            {
                "change": c.change,
                "cluster": c.identity.cluster,
                "app": c.app,
                "group": c.identity.group,
                "kind": c.identity.kind,
                "namespace": c.identity.namespace,
                "base": c.identity.base,
                "old": side(c, "old"),
                "new": side(c, "new"),
                "fields": [
                    {
                        "path": f.path,
                        **({"old": _plain(f.old)} if f.old_present else {}),
                        **({"new": _plain(f.new)} if f.new_present else {}),
                    }
                    for f in c.fields
                ],
                "attention": [{"kind": k, "message": m} for k, m in c.attention],
            }
            for c in diff.changes
        ],
        "skipped": [{"path": i.path, "side": i.side, "reason": i.reason} for i in diff.skipped],
    }
    return json.dumps(payload, indent=2, sort_keys=True, ensure_ascii=False, default=str) + "\n"


#: Format name → renderer.
DIFF_FORMATS: dict[str, Callable[[TreeDiff], str]] = {
    "text": render_text,
    "markdown": render_markdown,
    "json": render_json,
}


def _plain(value: Any) -> Any:
    """``value`` with every mapping key a string (YAML allows null, numbers and booleans as keys,
    which JSON with sorted keys cannot hold)."""
    if isinstance(value, dict):
        return {k if isinstance(k, str) else json.dumps(k, default=str): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _by_app(diff: TreeDiff) -> dict[tuple[str, str], list[Change]]:
    groups: dict[tuple[str, str], list[Change]] = {}
    for change in diff.changes:
        groups.setdefault((change.identity.cluster, change.app), []).append(change)
    return groups


def _counts(changes: list[Change]) -> dict[str, int]:
    return {verb: sum(1 for c in changes if c.change == kind) for kind, verb in _VERB.items()}


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;")


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("`", "'")


def _code(text: str) -> str:
    return f"`{_cell(text)}`"
