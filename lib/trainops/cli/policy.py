"""``trainops policy check|list|schema|explain|export-vap``: the repository's policy rules over YAML files."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any

import click

from trainops.cli import options
from trainops.cli.explain import run_explain
from trainops.cli.policy_vap import export_vap_command
from trainops.core.errors import EXIT_FINDINGS, EXIT_OK, UsageError
from trainops.pipeline import (
    policy_check,
    policy_run,
    print_targets,
    repository_note,
    resolve_targets,
    tree_notes,
)
from trainops.policy.config import config_schema_text, load_config
from trainops.policy.docs import LIST_FORMATS, ListFormat, render_list
from trainops.policy.loader import load_pack
from trainops.project import find_repository
from trainops.report import write_report
from trainops.schemas.catalog import default_cache_dir
from trainops.yaml.walk import walk_inputs

config_option = click.option(
    "--config",
    "config",
    type=click.Path(dir_okay=False),
    help="Policy config (default: policies/config.yaml, else the default pack's default.yaml).",
)


@dataclass(frozen=True)
class PolicyCheckOptions:
    """Parsed options of ``trainops policy check``.

    Args:
        paths: files or directories (see :mod:`trainops.yaml.walk`); cross-object rules see the
            documents of one target at once (each synth tree is a set of its own).
        config: a policy config file; default: ``policies/config.yaml``, else the default pack's
            ``default.yaml``.
        cluster: take the facts (GPU resources, queues, external objects) of files outside synth
            trees from this cluster (a file under ``generated/<cluster>/`` has its own cluster's).
        facts: take those facts from this YAML file instead (``schemas/local/policy-facts.json``).
        show_waived: list waived findings too (level ``info``).
        fmt: report format.
        strict: warnings fail the run too.
        workers: processes for large inputs; default: the number of CPUs.
        verbose: print the target of each file on stderr.
    """

    paths: tuple[str, ...]
    config: str | None = None
    cluster: str | None = None
    facts: str | None = None
    show_waived: bool = False
    fmt: str = "auto"
    strict: bool = False
    workers: int | None = None
    verbose: bool = False


def run_policy_check(opts: PolicyCheckOptions) -> int:
    """Run the policies and print the report; return 0 (clean) or 1 (findings that fail the run).

    Raises:
        UsageError: bad paths, config, cluster or facts file (exit 2).
    """
    if opts.cluster is not None and opts.facts is not None:
        raise UsageError("give --cluster or --facts, not both")
    walked = walk_inputs(opts.paths)
    repository = find_repository(walked.files)
    run = policy_run(config=opts.config, facts=opts.facts, show_waived=opts.show_waived, root=repository)
    targets = resolve_targets(
        walked.files,
        cache_dir=default_cache_dir(),
        cluster=opts.cluster,
        facts=run.facts if opts.facts is not None else None,
        root=repository,
    )
    for note in tree_notes(targets, opts.cluster):
        print(note, file=sys.stderr)
    if opts.verbose:
        print(repository_note(repository), file=sys.stderr)
        print(f"trainops: policy config: {run.config.source}", file=sys.stderr)
        print_targets(targets, file=sys.stderr)
    workers = options.workers_or_cpus(opts.workers)
    result = policy_check(walked.files, run, targets=targets, workers=workers)
    result.extend(walked.findings)
    write_report(result, opts.fmt, sys.stdout)
    return EXIT_FINDINGS if result.failed(strict=opts.strict) else EXIT_OK


def run_policy_list(fmt: ListFormat, config: str | None = None) -> int:
    """Print the rules of the pack with their effective levels; return 0."""
    pack = load_pack()
    sys.stdout.write(render_list(pack, load_config(pack, config), fmt))
    return EXIT_OK


@click.group("policy")
def group() -> None:
    """Policy rules: the default pack plus the repository's policies/."""


@group.command("check")
@click.argument("paths", nargs=-1, required=True)
@config_option
@options.cluster
@click.option("--facts", type=click.Path(dir_okay=False), help="Cluster facts file (instead of --cluster).")
@click.option("--show-waived", is_flag=True, help="Also list waived findings (level info).")
@options.report
@click.option(
    "--workers",
    "-j",
    type=click.IntRange(min=1),
    help="Processes for large inputs (>= 2,000 documents). Default: the number of CPUs.",
)
@click.option(
    "--verbose", "-v", is_flag=True, help="Print the target each file is checked against on stderr."
)
def check_command(**kwargs: Any) -> None:
    """Check YAML files or directories against the policy rules.

    A file under a synth tree (generated/<cluster>/, holding lock.json) has its own cluster's facts;
    any other file those of --cluster (or --facts), else of the first cluster of apps/clusters.py.
    The repository (apps/clusters.py, policies/) is the one holding the checked files, else the
    working directory's; -v names it and the policy config used.

    Exit 0 when clean, 1 on error findings (warnings too with --strict), 2 on usage errors.
    """
    sys.exit(run_policy_check(PolicyCheckOptions(**kwargs)))


@group.command("list")
@click.option("--format", "-o", "fmt", type=click.Choice(LIST_FORMATS), default="text", show_default=True)
@config_option
def list_command(fmt: ListFormat, config: str | None) -> None:
    """List the rules with their levels (markdown: the rule reference, README.md of the default pack)."""
    sys.exit(run_policy_list(fmt, config))


@group.command("schema")
def schema_command() -> None:
    """Print the JSON Schema of policy config files for the loaded pack (the default pack's is
    schemas/local/policy-config.json)."""
    sys.stdout.write(config_schema_text(load_pack()))
    sys.exit(EXIT_OK)


group.add_command(export_vap_command)


@group.command("explain")
@click.argument("rule_id", metavar="RULE-ID")
def explain_command(rule_id: str) -> None:
    """Explain a rule (same as `trainops explain`)."""
    sys.exit(run_explain(rule_id))
