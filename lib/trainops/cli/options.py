"""Command-line options shared by several commands, each declared once.

Every command builds its frozen options dataclass straight from click's keyword arguments
(``Options(**kwargs)``): a click parameter's name is the dataclass field's name, so an option is
written in one place (here, or in its command module when only one command has it).
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, TypeVar

import click

from trainops.report import FORMATS

F = TypeVar("F", bound=Callable[..., Any])

cluster = click.option(
    "--cluster",
    help="Check files outside synth trees against this cluster of apps/clusters.py (a file under "
    "generated/<cluster>/ is always checked against its own). Default: the first cluster there, "
    "else all known operators on the newest Kubernetes.",
)
kubernetes_version = click.option(
    "--kubernetes-version", "-k", help="Target minor, e.g. 1.34. Default: the cluster's, else newest shipped."
)
unknown_kinds = click.option(
    "--unknown-kinds",
    type=click.Choice(["error", "warning", "skip"]),
    default="error",
    show_default=True,
    help="What a kind with no schema is.",
)
fmt = click.option(
    "--format",
    "-o",
    "fmt",
    type=click.Choice(FORMATS),
    default="auto",
    show_default=True,
    help="Report format.",
)
strict = click.option("--strict", is_flag=True, help="Warnings fail the run too.")
cache_dir = click.option(
    "--cache-dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="Schema cache (default: $TRAINOPS_CACHE_DIR, else the user cache directory, e.g. ~/.cache/trainops).",
)
crd_mirror = click.option(
    "--crd-mirror",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    envvar="TRAINOPS_CRD_MIRROR",
    help="Fetch CRD schemas missing from the cache from this mirror directory (as `schemas sync --from` "
    "reads it) instead of their URLs (env: TRAINOPS_CRD_MIRROR).",
)
offline = click.option(
    "--offline",
    is_flag=True,
    help="Fetch no CRD schema: one missing from the cache is an error naming the `trainops schemas sync` "
    "command to run.",
)
out = click.option(
    "--out",
    "out",
    default="generated",
    show_default=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="Root of the generated tree.",
)
only_cluster = click.option(
    "--cluster", help="Only this cluster (a name from apps/clusters.py). Default: all."
)
render_workers = click.option(
    "--workers",
    "-j",
    type=click.IntRange(min=1),
    help="Processes to render apps in (each with its own Node.js) and for the policy pack's "
    "per-document work. Default: the number of CPUs.",
)


def workers_or_cpus(workers: int | None) -> int:
    """``workers`` as given, else the number of CPUs (``os.cpu_count()``, 1 when unknown)."""
    import os

    return workers if workers is not None else (os.cpu_count() or 1)


def target(function: F) -> F:
    """The target options of ``validate`` (and later ``ci``, ``policy check``): cluster, Kubernetes
    version, unknown kinds, schema cache."""
    for option in (cache_dir, unknown_kinds, cluster, kubernetes_version):
        function = option(function)
    return function


def schema_source(function: F) -> F:
    """Where CRD schemas missing from the cache come from: ``--crd-mirror`` and ``--offline``
    (:class:`trainops.schemas.fetch.SchemaSource`); the command runs inside :func:`using_schema_source`."""
    return crd_mirror(offline(function))


def using_schema_source(kwargs: dict[str, Any]) -> AbstractContextManager[object]:
    """Pop ``crd_mirror`` and ``offline`` (:func:`schema_source`) from a command's keyword arguments
    and return the context in which its run fetches CRD schemas on first use from there
    (:func:`trainops.schemas.fetch.using`, with the validator's CEL census recorded in the index)."""
    from trainops.schemas.fetch import SchemaSource, using
    from trainops.validate.checks.cel import census

    return using(SchemaSource(mirror=kwargs.pop("crd_mirror"), offline=kwargs.pop("offline"), census=census))


def report(function: F) -> F:
    """The report options: ``--format`` and ``--strict``."""
    return fmt(strict(function))


def require_utf8(command: str, arguments: dict[str, object]) -> None:
    """Refuse an argument that is not valid UTF-8: the OS hands such bytes to Python as lone
    surrogates (PEP 383), which cannot be written to a UTF-8 file.

    Args:
        command: the command, for the message, e.g. ``"new"``.
        arguments: option name (``--image``) → value: a string, a sequence of strings or ``None``.

    Raises:
        UsageError: ``<command> <option> '<value with \\x escapes>': not valid UTF-8``.
    """
    from trainops.core.errors import UsageError

    for option, value in arguments.items():
        for item in value if isinstance(value, tuple | list) else (value,):
            if not isinstance(item, str):
                continue
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                shown = item.encode("utf-8", "surrogateescape").decode("ascii", "backslashreplace")
                raise UsageError(f"{command} {option} '{shown}': not valid UTF-8") from None
