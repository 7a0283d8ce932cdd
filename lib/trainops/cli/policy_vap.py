"""``trainops policy export-vap``: the pack's CEL rules as ValidatingAdmissionPolicy manifests
(:mod:`trainops.policy.vap`)."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from trainops.errors import EXIT_OK, UsageError
from trainops.naming import DNS1123_LABEL
from trainops.policy.config import load_config
from trainops.policy.loader import load_pack
from trainops.policy.vap import DEFAULT_NAMESPACE, export_objects, render_stream, write_directory


@dataclass(frozen=True)
class ExportVapOptions:
    """Parsed options of ``trainops policy export-vap``.

    Args:
        output: ``-`` (stdout, one YAML stream) or a directory (one file per object).
        config: a policy config file (levels and options); default as for ``policy check``.
        namespace: the namespace of the parameter ConfigMaps (default ``trainops-system``).
    """

    output: str = "-"
    config: str | None = None
    namespace: str = DEFAULT_NAMESPACE


def run_export_vap(opts: ExportVapOptions) -> int:
    """Write the manifests; return 0.

    Raises:
        UsageError: a bad config, an invalid namespace, or an output path that is a file.
    """
    problem = DNS1123_LABEL.problem(opts.namespace)
    if problem is not None:
        raise UsageError(f"--namespace {opts.namespace!r} {problem}")
    pack = load_pack()
    objects = export_objects(pack, load_config(pack, opts.config), opts.namespace)
    if opts.output == "-":
        sys.stdout.write(render_stream(objects))
        return EXIT_OK
    directory = Path(opts.output)
    if directory.exists() and not directory.is_dir():
        raise UsageError(f"--output {opts.output}: not a directory")
    paths = write_directory(objects, directory)
    click.echo(f"wrote {len(paths)} objects to {directory}", err=True)
    return EXIT_OK


@click.command("export-vap")
@click.option(
    "--output", "-O", default="-", show_default=True, help="A directory (one file per object) or - (stdout)."
)
@click.option(
    "--config",
    "config",
    type=click.Path(dir_okay=False),
    help="Policy config (default: policies/config.yaml, else the default pack's default.yaml).",
)
@click.option(
    "--namespace", default=DEFAULT_NAMESPACE, show_default=True, help="Namespace of the parameter ConfigMaps."
)
def export_vap_command(**kwargs: Any) -> None:
    """Write ValidatingAdmissionPolicy + Binding manifests (and parameter ConfigMaps) for the CEL rules,
    so the cluster enforces what CI checked."""
    sys.exit(run_export_vap(ExportVapOptions(**kwargs)))
