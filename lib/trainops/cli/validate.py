"""``trainops validate PATHS...``: strict offline validation of YAML files or directories."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from trainops.cli import options
from trainops.errors import EXIT_FINDINGS, EXIT_OK
from trainops.pipeline import check, resolve_target
from trainops.report import render
from trainops.schemas.catalog import default_cache_dir
from trainops.validate.context import UnknownKinds, ValidateOptions
from trainops.yaml.limits import apply_memory_limit
from trainops.yaml.load import expand_paths


@dataclass(frozen=True)
class ValidateCommand:
    """Parsed options of ``trainops validate`` (see ``trainops validate --help``).

    Args:
        paths: files or directories (``*.yaml``/``*.yml``, hidden entries skipped).
        kubernetes_version: target minor; default from the cluster, else the newest shipped.
        cluster: a cluster of apps/clusters.py giving the minor and installed operators.
        unknown_kinds: what a kind with no schema is: ``error``, ``warning`` or ``skip``.
        fmt: report format (``auto`` picks ``github`` inside GitHub Actions).
        strict: warnings fail the run too.
        cache_dir: schema cache directory.
        workers: processes for large inputs; default: the number of CPUs.
    """

    paths: tuple[str, ...]
    kubernetes_version: str | None = None
    cluster: str | None = None
    unknown_kinds: UnknownKinds = "error"
    fmt: str = "auto"
    strict: bool = False
    cache_dir: Path | None = None
    workers: int | None = None


@contextmanager
def _progress() -> Iterator[Callable[[int, int], None] | None]:
    """A progress bar on stderr when stderr is a terminal, started on the first update (only large
    inputs validated in parallel report progress); otherwise no callback."""
    if not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import Progress

    bar = Progress(console=Console(file=sys.stderr), transient=True)
    task = bar.add_task("validating", total=None)
    started = False

    def update(done: int, total: int) -> None:
        nonlocal started
        if not started:
            bar.start()
            started = True
        bar.update(task, completed=done, total=total)

    try:
        yield update
    finally:
        if started:
            bar.stop()


def run_validate(opts: ValidateCommand) -> int:
    """Validate and print the report; return 0 (clean), 1 (findings) or raise for usage errors."""
    apply_memory_limit()  # untrusted input: running out of memory is a finding, not a crash
    files = expand_paths(opts.paths)
    target = resolve_target(opts.kubernetes_version, opts.cluster, opts.cache_dir or default_cache_dir())
    workers = opts.workers if opts.workers is not None else (os.cpu_count() or 1)
    with _progress() as progress:
        result = check(
            target,
            files,
            ValidateOptions(unknown_kinds=opts.unknown_kinds),
            workers=workers,
            progress=progress,
        )
    sys.stdout.write(render(result, opts.fmt))
    return EXIT_FINDINGS if result.failed(strict=opts.strict) else EXIT_OK


@click.command("validate")
@click.argument("paths", nargs=-1, required=True)
@options.target
@options.report
@click.option(
    "--workers",
    "-j",
    type=click.IntRange(min=1),
    help="Processes for large inputs (>= 4 MiB). Default: the number of CPUs.",
)
def command(**kwargs: Any) -> None:
    """Validate YAML files or directories against Kubernetes and CRD schemas, strictly.

    Exit 0 when clean, 1 when a document is invalid, 2 on usage errors.
    """
    sys.exit(run_validate(ValidateCommand(**kwargs)))
