"""``trainops argocd ...``: the Argo CD REST client commands (``apps``, ``status``, ``sync``, ``wait``,
``runs``, ``prune-finished``, ``promote``, ``abort``, ``health-checks``, ``platform``).

Options are declared once, in the frozen options dataclasses of :mod:`trainops.argocd.commands`
(name, type, default and ``metadata["help"]``); :func:`dataclass_command` turns each field into a
click parameter, and the nested ``connection`` fields into the shared connection options.
"""

from __future__ import annotations

import dataclasses
import sys
import types
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from trainops.argocd import commands as argocd

_CONNECTION = "connection"


def _click_type(annotation: Any) -> tuple[Any, bool]:
    """(click type, multiple) for a field annotation."""
    origin = typing.get_origin(annotation)
    if origin is tuple:
        return str, True
    if origin in (typing.Union, types.UnionType):
        inner = [a for a in typing.get_args(annotation) if a is not type(None)]
        return _click_type(inner[0])
    if annotation is Path:
        return click.Path(path_type=Path), False
    return annotation, False


def _params(cls: type[Any], skip: frozenset[str] = frozenset()) -> list[click.Parameter]:
    hints = typing.get_type_hints(cls)
    params: list[click.Parameter] = []
    for fld in dataclasses.fields(cls):
        if fld.name in skip:
            continue
        if fld.name == _CONNECTION:
            params += _params(hints[fld.name])
            continue
        kind, multiple = _click_type(hints[fld.name])
        help_text = str(fld.metadata.get("help", ""))
        if fld.default is dataclasses.MISSING and fld.default_factory is dataclasses.MISSING:
            params.append(click.Argument([fld.name], type=kind))
        elif kind is bool:
            params.append(
                click.Option(["--" + fld.name.replace("_", "-"), fld.name], is_flag=True, help=help_text)
            )
        else:
            default = fld.default if fld.default is not dataclasses.MISSING else None
            params.append(
                click.Option(
                    ["--" + fld.name.replace("_", "-"), fld.name],
                    type=kind,
                    multiple=multiple,
                    default=default,
                    show_default=default not in (None, "", ()),
                    help=help_text,
                )
            )
    return params


def _build(cls: type[Any], kwargs: dict[str, Any]) -> Any:
    """The options dataclass from click's keyword arguments (connection fields nested)."""
    hints = typing.get_type_hints(cls)
    values: dict[str, Any] = {}
    for fld in dataclasses.fields(cls):
        if fld.name == _CONNECTION:
            values[fld.name] = _build(hints[fld.name], kwargs)
        elif fld.name in kwargs:
            value = kwargs[fld.name]
            values[fld.name] = tuple(value) if isinstance(value, list | tuple) else value
    return cls(**values)


def dataclass_command(name: str, cls: type[Any], run: Callable[[Any], int]) -> click.Command:
    """A click command whose parameters are the fields of ``cls`` and which exits with ``run(cls(...))``."""

    def callback(**kwargs: Any) -> None:
        sys.exit(run(_build(cls, kwargs)))

    return click.Command(
        name, callback=callback, params=_params(cls), help=(cls.__doc__ or "").split("\n")[0]
    )


@click.group("argocd")
def group() -> None:
    """Talk to the Argo CD API: application status, sync, wait, training runs, rollouts, health checks."""


for _name, _cls, _run in (
    ("apps", argocd.AppsOptions, argocd.run_apps),
    ("status", argocd.StatusOptions, argocd.run_status),
    ("sync", argocd.SyncOptions, argocd.run_sync),
    ("wait", argocd.WaitOptions, argocd.run_wait),
    ("runs", argocd.RunsOptions, argocd.run_runs),
    ("prune-finished", argocd.PruneFinishedOptions, argocd.run_prune_finished),
    ("promote", argocd.PromoteOptions, argocd.run_promote),
    ("abort", argocd.AbortOptions, argocd.run_abort),
    ("health-checks", argocd.HealthChecksOptions, argocd.run_health_checks),
):
    group.add_command(dataclass_command(_name, _cls, _run))


def _run_platform(options: argocd.PlatformOptions) -> int:
    """``argocd platform``: the declared components come from ``apps/clusters.py`` of the repository
    at or above the working directory."""
    from trainops.core.errors import UsageError
    from trainops.core.platform import platform_apps
    from trainops.project import find_root, load_clusters

    root = find_root()
    if root is None:
        raise UsageError("argocd platform: run it in a trainops repository (no apps/clusters.py found)")
    clusters = load_clusters(root)
    unknown = sorted(set(options.cluster) - {c.name for c in clusters})
    if unknown:
        raise UsageError(
            f"argocd platform --cluster {unknown[0]!r}: apps/clusters.py declares no such cluster"
        )
    declared = [app for cluster in clusters for app in platform_apps(cluster)]
    return argocd.run_platform(options, declared)


group.add_command(dataclass_command("platform", argocd.PlatformOptions, _run_platform))
