"""The ``trainops`` command line: a thin click layer over plain functions returning exit codes.

One error boundary (:func:`main`) turns :class:`~trainops.errors.TrainopsError` into one stderr
line with its exit code, Ctrl-C into 130, and anything else into "unexpected error … re-run with
--traceback" (exit 3). Reports go to stdout, diagnostics to stderr.
"""

from __future__ import annotations

import sys
import traceback
from pathlib import Path

import click

from trainops import __version__
from trainops.errors import EXIT_INTERRUPTED, EXIT_UNEXPECTED, EXIT_USAGE, TrainopsError
from trainops.report import FORMATS

_FORMAT = click.Choice(FORMATS)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="trainops")
@click.option(
    "--traceback", "show_traceback", is_flag=True, help="Show the Python traceback of unexpected errors."
)
def cli(show_traceback: bool) -> None:
    """trainops: generate, validate and deliver ML training and serving manifests for Argo CD."""


@cli.command()
@click.option("--cluster", help="Only this cluster (a name from apps/clusters.py). Default: all.")
@click.option("--out", "out", default="generated", show_default=True, type=click.Path(file_okay=False))
def synth(cluster: str | None, out: str) -> None:
    """Synthesise every app into OUT/<cluster>/<app>/, atomically and deterministically."""
    from trainops.commands.synth_cmd import SynthOptions, run_synth

    sys.exit(run_synth(SynthOptions(cluster=cluster, out=Path(out))))


@cli.command()
@click.argument("paths", nargs=-1, required=True)
@click.option(
    "--kubernetes-version", "-k", help="Target minor, e.g. 1.34. Default: the cluster's, else newest shipped."
)
@click.option(
    "--cluster", help="Take the Kubernetes version and operators from this cluster in apps/clusters.py."
)
@click.option(
    "--unknown-kinds",
    type=click.Choice(["error", "warning", "skip"]),
    default="error",
    show_default=True,
    help="What a kind with no schema is.",
)
@click.option("--format", "-o", "fmt", type=_FORMAT, default="auto", show_default=True)
@click.option("--strict", is_flag=True, help="Warnings fail the run too.")
@click.option(
    "--cache-dir", type=click.Path(file_okay=False), help="Schema cache (default: .trainops-cache)."
)
@click.option(
    "--workers",
    "-j",
    type=click.IntRange(min=1),
    help="Processes for large inputs (>= 4 MiB). Default: the number of CPUs.",
)
def validate(
    paths: tuple[str, ...],
    kubernetes_version: str | None,
    cluster: str | None,
    unknown_kinds: str,
    fmt: str,
    strict: bool,
    cache_dir: str | None,
    workers: int | None,
) -> None:
    """Validate YAML files or directories against Kubernetes and CRD schemas, strictly.

    Exit 0 when clean, 1 when a document is invalid, 2 on usage errors.
    """
    from trainops.commands.validate_cmd import ValidateCommand, run_validate

    sys.exit(
        run_validate(
            ValidateCommand(
                paths=paths,
                kubernetes_version=kubernetes_version,
                cluster=cluster,
                unknown_kinds=unknown_kinds,  # type: ignore[arg-type]
                fmt=fmt,
                strict=strict,
                cache_dir=Path(cache_dir) if cache_dir else None,
                workers=workers,
            )
        )
    )


@cli.command()
@click.option("--cluster", help="Only this cluster. Default: all.")
@click.option("--out", "out", default="generated", show_default=True, type=click.Path(file_okay=False))
@click.option("--format", "-o", "fmt", type=_FORMAT, default="auto", show_default=True)
@click.option("--strict", is_flag=True, help="Warnings fail the run too.")
def ci(cluster: str | None, out: str, fmt: str, strict: bool) -> None:
    """Synth into a temporary directory, fail if OUT is stale, then validate OUT."""
    from trainops.commands.ci_cmd import CiOptions, run_ci

    sys.exit(run_ci(CiOptions(cluster=cluster, out=Path(out), fmt=fmt, strict=strict)))


@cli.group()
def schemas() -> None:
    """Manage the CRD schema catalog and cache."""


@schemas.command("sync")
@click.option(
    "--from",
    "mirror",
    type=click.Path(file_okay=False),
    envvar="TRAINOPS_CRD_MIRROR",
    help="Read CRD files from this mirror directory instead of their URLs (env: TRAINOPS_CRD_MIRROR).",
)
@click.option(
    "--catalog", type=click.Path(dir_okay=False), help="Catalog file (default: schemas/catalog.yaml)."
)
@click.option(
    "--cache-dir", type=click.Path(file_okay=False), help="Schema cache (default: .trainops-cache)."
)
@click.option("--force", is_flag=True, help="Re-convert even when the cache matches the catalog.")
def schemas_sync(mirror: str | None, catalog: str | None, cache_dir: str | None, force: bool) -> None:
    """Fetch catalog CRDs (checksums verified) and convert them into the schema cache."""
    from trainops.commands.schemas_cmd import SyncCommand, run_sync

    sys.exit(
        run_sync(
            SyncCommand(
                mirror=Path(mirror) if mirror else None,
                catalog=Path(catalog) if catalog else None,
                cache_dir=Path(cache_dir) if cache_dir else None,
                force=force,
            )
        )
    )


@schemas.command("list")
@click.option(
    "--cache-dir", type=click.Path(file_okay=False), help="Schema cache (default: .trainops-cache)."
)
def schemas_list(cache_dir: str | None) -> None:
    """List the cached CRD schemas: apiVersion, kind, operator, source."""
    from trainops.commands.schemas_cmd import run_list

    sys.exit(run_list(Path(cache_dir) if cache_dir else None))


def main(argv: list[str] | None = None) -> int:
    """Console-script entry point: run the CLI and return the process exit code (never raises)."""
    args = list(sys.argv[1:] if argv is None else argv)
    show_traceback = "--traceback" in args
    try:
        cli.main(args=args, prog_name="trainops", standalone_mode=False)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else EXIT_USAGE)
        return _exit(code)
    except click.exceptions.Abort:
        click.echo("trainops: interrupted", err=True)
        return _exit(EXIT_INTERRUPTED)
    except click.ClickException as exc:
        click.echo(f"trainops: {exc.format_message()}", err=True)
        return _exit(EXIT_USAGE)
    except TrainopsError as exc:
        click.echo(f"trainops: {exc.message}", err=True)
        return _exit(exc.exit_code)
    except KeyboardInterrupt:
        click.echo("trainops: interrupted", err=True)
        return _exit(EXIT_INTERRUPTED)
    except Exception as exc:
        if show_traceback:
            traceback.print_exc()
        else:
            click.echo(
                f"trainops: unexpected error: {type(exc).__name__}: {exc} (re-run with --traceback)", err=True
            )
        return _exit(EXIT_UNEXPECTED)
    return _exit(0)


def _exit(code: int) -> int:
    return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
