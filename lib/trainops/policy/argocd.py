"""Helpers for rules on Argo CD objects: the Application spec (also inside an ApplicationSet
template), its sources, and the sync annotations every rendered object may carry.

Source: Argo CD ``pkg/apis/application/v1alpha1/types.go`` (ApplicationSpec, ApplicationSource,
``Sources``) and the sync-options/sync-wave annotations (``argocd.argoproj.io/sync-options``,
``argocd.argoproj.io/sync-wave``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Final

from trainops.core.kinds import GroupKind, Parts
from trainops.policy.pods import annotations_of, dig

APPLICATION_KINDS: Final[frozenset[GroupKind]] = frozenset(
    {("argoproj.io", "Application"), ("argoproj.io", "ApplicationSet")}
)
SYNC_OPTIONS: Final = "argocd.argoproj.io/sync-options"
SYNC_WAVE: Final = "argocd.argoproj.io/sync-wave"


def app_spec(obj: dict[str, Any]) -> tuple[Parts, dict[str, Any]] | None:
    """``(path, spec)`` of an Application, or of an ApplicationSet's ``spec.template.spec``."""
    parts: Parts = ("spec", "template", "spec") if obj.get("kind") == "ApplicationSet" else ("spec",)
    spec = dig(obj, *parts)
    return (parts, spec) if isinstance(spec, dict) else None


def sources(parts: Parts, spec: dict[str, Any]) -> Iterator[tuple[Parts, dict[str, Any]]]:
    """Each source of an Application spec: ``source`` and every item of ``sources``."""
    if isinstance(spec.get("source"), dict):
        yield (*parts, "source"), spec["source"]
    items = spec.get("sources")
    for index, item in enumerate(items if isinstance(items, list) else []):
        if isinstance(item, dict):
            yield (*parts, "sources", index), item


def sync_options(obj: dict[str, Any]) -> dict[str, str]:
    """The object's ``argocd.argoproj.io/sync-options`` as ``{"Prune": "false", ...}``."""
    raw = annotations_of(obj).get(SYNC_OPTIONS)
    options: dict[str, str] = {}
    for item in raw.split(",") if isinstance(raw, str) else []:
        key, _, value = item.strip().partition("=")
        if key:
            options[key] = value
    return options


def sync_wave(obj: dict[str, Any]) -> int | None:
    """The object's sync wave (``0`` when unset), or ``None`` when the annotation is not an integer."""
    raw = annotations_of(obj).get(SYNC_WAVE, "0")
    try:
        return int(str(raw).strip())
    except ValueError:
        return None
