"""``trainops validate PATHS...``: strict offline validation of YAML files, directories or stdin."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path, PurePath
from typing import Any

import click

from trainops.cli import options
from trainops.core.errors import EXIT_FINDINGS, EXIT_OK, UsageError
from trainops.core.findings import Finding, Result
from trainops.pipeline import (
    Text,
    check,
    policy_run,
    print_targets,
    repository_note,
    resolve_targets,
    tree_notes,
)
from trainops.project import find_repository
from trainops.report import write_report
from trainops.schemas.catalog import default_cache_dir
from trainops.validate.context import UnknownKinds, ValidateOptions
from trainops.yaml.limits import DEFAULT_MEMORY_LIMIT, MEMORY_LIMIT_ENV, apply_memory_limit
from trainops.yaml.load import YAML
from trainops.yaml.walk import walk_inputs


@dataclass(frozen=True)
class ValidateCommand:
    """Parsed options of ``trainops validate`` (see ``trainops validate --help``).

    Args:
        paths: files or directories (``*.yaml``/``*.yml``, hidden entries skipped; see
            :mod:`trainops.yaml.walk`); ``-`` is stdin.
        kubernetes_version: target minor; default from the cluster, else the newest shipped.
        cluster: a cluster of apps/clusters.py giving the minor and installed operators of files
            outside synth trees (a file under ``generated/<cluster>/`` is always checked against
            its own cluster); default: the first declared cluster, else all known operators (see
            :func:`trainops.project.resolve_clusters`).
        unknown_kinds: what a kind with no schema is: ``error``, ``warning`` or ``skip``.
        fmt: report format (``auto`` picks ``github`` inside GitHub Actions).
        strict: warnings fail the run too.
        cache_dir: schema cache directory.
        workers: processes for large inputs; default: the number of CPUs.
        filename: the name findings in stdin (``-``) carry; default ``<stdin>``.
        exclude: globs of files to leave out (see :func:`excluded`).
        summary: print one summary line on stderr.
        verbose: print the target of each file on stderr.
        policy: also run the policy rules (``policies/``; facts of the target cluster) in the same run.
    """

    paths: tuple[str, ...]
    kubernetes_version: str | None = None
    cluster: str | None = None
    unknown_kinds: UnknownKinds = "error"
    fmt: str = "auto"
    strict: bool = False
    cache_dir: Path | None = None
    workers: int | None = None
    filename: str | None = None
    exclude: tuple[str, ...] = ()
    summary: bool = False
    verbose: bool = False
    policy: bool = False


#: The path that means standard input.
STDIN = "-"


def excluded(path: str, globs: Sequence[str]) -> bool:
    """Whether ``path`` matches one of ``globs``: a glob matches the whole path or any trailing part
    of it (``fnmatch``: ``*`` also matches ``/``), so ``kustomization.yaml``, ``charts/*`` and
    ``*.tmpl.yaml`` work wherever the file is found."""
    parts = PurePath(path).parts
    tails = [PurePath(path).as_posix(), *("/".join(parts[i:]) for i in range(1, len(parts)))]
    return any(fnmatchcase(tail, glob) for glob in globs for tail in tails)


def read_stdin() -> str:
    """Standard input as UTF-8 text.

    Raises:
        UsageError: stdin is not UTF-8.
    """
    data = sys.stdin.buffer.read()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UsageError(f"stdin: not UTF-8 text ({exc.reason} at byte {exc.start})") from None


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


def out_of_memory(files: int, path: str) -> Result:
    """The report of a run that exhausted the memory ceiling (``TRAINOPS_MEMORY_LIMIT``) with the
    findings of all its documents: one ``yaml`` finding saying so, at ``path`` (the first input)."""
    message = (
        f"the run exhausted the memory ceiling of trainops validate ({MEMORY_LIMIT_ENV}, default "
        f"{DEFAULT_MEMORY_LIMIT >> 30} GiB) holding its findings; validate fewer files at once or raise the ceiling"
    )
    return Result(
        files=files,
        findings=[Finding(rule=YAML.id, level="error", message=message, file=path, keyword="limit")],
    )


def run_validate(opts: ValidateCommand) -> int:
    """Validate and print the report; return 0 (clean), 1 (findings) or raise for usage errors.

    Raises:
        UsageError: a path does not exist; ``--filename`` without ``-``; stdin is not UTF-8.
    """
    apply_memory_limit()  # untrusted input: running out of memory is a finding, not a crash
    from_stdin = STDIN in opts.paths
    if opts.filename is not None and not from_stdin:
        raise UsageError("--filename names standard input: pass - as a path too")
    walked = walk_inputs([p for p in opts.paths if p != STDIN]) if len(opts.paths) > int(from_stdin) else None
    found = walked.files if walked is not None else []
    files = [f for f in found if not excluded(f, opts.exclude)]
    stdin_name = opts.filename or "<stdin>"
    names = [*files, stdin_name] if from_stdin else files
    repository = find_repository(names)
    targets = resolve_targets(
        names,
        cache_dir=opts.cache_dir or default_cache_dir(),
        cluster=opts.cluster,
        kubernetes_version=opts.kubernetes_version,
        root=repository,
    )
    for note in tree_notes(targets, opts.cluster):
        print(note, file=sys.stderr)
    if opts.verbose:
        print(repository_note(repository), file=sys.stderr)
        print_targets(targets, file=sys.stderr)
    inputs: list[str | Text] = list(files)
    if from_stdin:
        inputs.append(Text(stdin_name, read_stdin()))
    workers = options.workers_or_cpus(opts.workers)
    try:
        with _progress() as progress:
            result = check(
                targets,
                inputs,
                ValidateOptions(unknown_kinds=opts.unknown_kinds),
                workers=workers,
                progress=progress,
                policy=policy_run(root=repository) if opts.policy else None,
            )
    except MemoryError:  # each document is bounded; the findings of many together may not be
        first = next((item for item in inputs if isinstance(item, str)), opts.filename or "<stdin>")
        result = out_of_memory(len(inputs), first)
    if walked is not None:
        result.extend(f for f in walked.findings if not excluded(f.file, opts.exclude))
    write_report(result, opts.fmt, sys.stdout)
    if opts.summary:
        skipped = f" ({len(found) - len(files)} excluded)" if opts.exclude else ""
        print(
            f"trainops: summary: {result.files} files{skipped}, {result.documents} documents: "
            f"{result.count('error')} errors, {result.count('warning')} warnings, {result.count('info')} notices",
            file=sys.stderr,
        )
    return EXIT_FINDINGS if result.failed(strict=opts.strict) else EXIT_OK


@click.command("validate")
@click.argument("paths", nargs=-1, required=True)
@options.target
@options.schema_source
@options.report
@click.option(
    "--workers",
    "-j",
    type=click.IntRange(min=1),
    help="Processes for large inputs (>= 4 MiB). Default: the number of CPUs.",
)
@click.option("--filename", help="Name findings in stdin (-) carry. Default: <stdin>.")
@click.option(
    "--exclude",
    multiple=True,
    metavar="GLOB",
    help="Leave out files whose path, or any trailing part of it, matches GLOB (repeatable), "
    "e.g. --exclude 'charts/*' --exclude kustomization.yaml.",
)
@click.option("--summary", is_flag=True, help="Print a summary line (files, documents, findings) on stderr.")
@click.option(
    "--verbose", "-v", is_flag=True, help="Print the target each file is checked against on stderr."
)
@click.option(
    "--policy",
    is_flag=True,
    help="Also run the policy rules of policies/ (as `policy check`) in the same run.",
)
def command(**kwargs: Any) -> None:
    """Validate YAML files, directories or stdin (-) against Kubernetes and CRD schemas, strictly.

    A file under a synth tree (generated/<cluster>/, holding lock.json) is checked against that
    cluster; any other file against --cluster, else the first cluster of apps/clusters.py, else all
    known operators on the newest Kubernetes (outside a trainops repository). -v prints the target
    of each file. Render Helm charts first:
    helm template CHART | trainops validate -

    CRD schemas missing from the cache are fetched on first use (catalog URLs, or --crd-mirror);
    --offline fetches nothing.

    Exit 0 when clean, 1 when a document is invalid, 2 on usage errors.
    """
    with options.using_schema_source(kwargs):
        sys.exit(run_validate(ValidateCommand(**kwargs)))
