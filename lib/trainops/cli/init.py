"""``trainops init``: write the integration files a repository needs, shipped in the package
(``trainops/templates/init/``): a GitHub Actions workflow, a pre-commit configuration and a
CODEOWNERS suggestion for ``generated/``."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import click

from trainops import __version__

#: Template (in ``trainops/templates/init``) → where it goes, relative to the repository root.
FILES: dict[str, str] = {
    "trainops.yml": ".github/workflows/trainops.yml",
    "pre-commit-config.yaml": ".pre-commit-config.yaml",
    "CODEOWNERS": ".github/CODEOWNERS",
}


@dataclass(frozen=True)
class InitOptions:
    """Parsed options of ``trainops init``.

    Args:
        directory: the repository root. Default: the working directory.
        force: overwrite files that exist. Default: keep them (and say so).
    """

    directory: Path = Path(".")
    force: bool = False


def template(name: str) -> str:
    """The text of a shipped template with ``@VERSION@`` replaced by the trainops version."""
    text = resources.files("trainops").joinpath("templates", "init", name).read_text(encoding="utf-8")
    return text.replace("@VERSION@", __version__)


def run_init(opts: InitOptions) -> int:
    """Write each file of :data:`FILES` under ``directory``; existing files are kept unless
    ``force``. One line per file on stderr (written / kept)."""
    for name, rel in FILES.items():
        path = opts.directory / rel
        if path.exists() and not opts.force:
            print(f"init: kept {rel} (exists; --force overwrites it)", file=sys.stderr)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(template(name), encoding="utf-8")
        print(f"init: wrote {rel}", file=sys.stderr)
    return 0


@click.command("init")
@click.option(
    "--directory",
    "-C",
    default=".",
    show_default=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="Repository root.",
)
@click.option("--force", is_flag=True, help="Overwrite files that exist.")
def command(**kwargs: Any) -> None:
    """Write .github/workflows/trainops.yml, .pre-commit-config.yaml and .github/CODEOWNERS."""
    sys.exit(run_init(InitOptions(**kwargs)))
