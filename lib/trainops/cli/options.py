"""Command-line options shared by several commands, each declared once.

Every command builds its frozen options dataclass straight from click's keyword arguments
(``Options(**kwargs)``): a click parameter's name is the dataclass field's name, so an option is
written in one place (here, or in its command module when only one command has it).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from trainops.report import FORMATS

F = TypeVar("F", bound=Callable[..., Any])

cluster = click.option(
    "--cluster",
    help="Take the Kubernetes version and operators from this cluster in apps/clusters.py. "
    "Default: the first cluster there, else all known operators on the newest Kubernetes.",
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


def target(function: F) -> F:
    """The target options of ``validate`` (and later ``ci``, ``policy check``): cluster, Kubernetes
    version, unknown kinds, schema cache."""
    for option in (cache_dir, unknown_kinds, cluster, kubernetes_version):
        function = option(function)
    return function


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
    from trainops.errors import UsageError

    for option, value in arguments.items():
        for item in value if isinstance(value, tuple | list) else (value,):
            if not isinstance(item, str):
                continue
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                shown = item.encode("utf-8", "surrogateescape").decode("ascii", "backslashreplace")
                raise UsageError(f"{command} {option} '{shown}': not valid UTF-8") from None
