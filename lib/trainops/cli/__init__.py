"""The ``trainops`` command line: a thin click layer over plain functions returning exit codes.

One error boundary (:func:`main`) turns :class:`~trainops.core.errors.TrainopsError` into one stderr
line with its exit code, Ctrl-C into 130, and anything else into "unexpected error … re-run with
--traceback" (exit 3). Reports go to stdout, diagnostics to stderr. Each command lives in its own
module, named in :data:`COMMANDS` and imported only when it runs.
"""

from __future__ import annotations

import gc
import importlib
import sys

import click

from trainops import __version__
from trainops.core.errors import EXIT_INTERRUPTED, EXIT_UNEXPECTED, EXIT_USAGE, TrainopsError

#: Every command: name → ``module:attribute`` of its click command. Modules are imported only when
#: their command runs (or help lists it), so ``trainops validate`` never imports cdk8s (start-up).
COMMANDS: dict[str, str] = {
    "synth": "trainops.cli.synth:command",
    "validate": "trainops.cli.validate:command",
    "ci": "trainops.cli.ci:command",
    "diff": "trainops.cli.diff:command",
    "new": "trainops.cli.new:command",
    "init": "trainops.cli.init:command",
    "schemas": "trainops.cli.schemas:group",
    "explain": "trainops.cli.explain:command",
    "argocd": "trainops.cli.argocd:group",
    "policy": "trainops.cli.policy:group",
}


class LazyGroup(click.Group):
    """A click group whose subcommands are imported on first use (click docs, "Lazily Loading
    Subcommands"), from :data:`COMMANDS`."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        """Command names, sorted."""
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        """Import and return the command ``cmd_name``, or ``None`` when there is no such command."""
        target = COMMANDS.get(cmd_name)
        if target is None:
            return None
        module_name, attribute = target.split(":")
        collecting = gc.isenabled()
        gc.disable()  # start-up: imports create long-lived objects, which no collection frees
        try:
            module = importlib.import_module(module_name)
        finally:
            gc.freeze()  # ... nor should one walk them later (Python docs, gc.freeze)
            if collecting:
                gc.enable()
        command = getattr(module, attribute)
        assert isinstance(command, click.Command)
        return command


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="trainops")
@click.option(
    "--traceback", "show_traceback", is_flag=True, help="Show the Python traceback of unexpected errors."
)
def cli(show_traceback: bool) -> None:
    """trainops: generate, validate and deliver ML training and serving manifests for Argo CD."""


def main(argv: list[str] | None = None) -> int:
    """Console-script entry point: run the CLI and return the process exit code (never raises)."""
    args = list(sys.argv[1:] if argv is None else argv)
    show_traceback = "--traceback" in args
    try:
        cli.main(args=args, prog_name="trainops", standalone_mode=False)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else EXIT_USAGE)
    except click.exceptions.Abort:
        click.echo("trainops: interrupted", err=True)
        return EXIT_INTERRUPTED
    except click.ClickException as exc:
        click.echo(f"trainops: {exc.format_message()}", err=True)
        return EXIT_USAGE
    except TrainopsError as exc:
        if show_traceback and exc.__cause__ is not None:  # e.g. the user's exception in apps/
            import traceback

            traceback.print_exception(exc.__cause__)
        click.echo(f"trainops: {exc.message}", err=True)
        return exc.exit_code
    except KeyboardInterrupt:
        click.echo("trainops: interrupted", err=True)
        return EXIT_INTERRUPTED
    except Exception as exc:
        if show_traceback:
            import traceback

            traceback.print_exc()
        else:
            click.echo(
                f"trainops: unexpected error: {type(exc).__name__}: {exc} (re-run with --traceback)", err=True
            )
        return EXIT_UNEXPECTED
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
