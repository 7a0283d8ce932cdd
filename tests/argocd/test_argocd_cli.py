"""`trainops argocd ...` is wired to the command functions, with options taken from their dataclasses."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from trainops.argocd import commands


def test_group_lists_every_command(cli: Any) -> None:
    run = cli("argocd", "--help")
    assert run.code == 0
    for name in ("apps", "status", "sync", "wait", "runs", "prune-finished", "health-checks"):
        assert f"  {name} " in run.out


@pytest.mark.parametrize("field", ["timeout", "interval", "health", "sync"])
def test_wait_options_come_from_the_dataclass(cli: Any, field: str) -> None:
    run = cli("argocd", "wait", "--help")
    assert f"--{field}" in run.out
    assert commands.option_help(commands.WaitOptions, field).split(".")[0] in " ".join(run.out.split())


def test_health_checks_prints_the_argocd_cm_patch(cli: Any) -> None:
    run = cli("argocd", "health-checks")
    assert run.code == 0
    patch = yaml.safe_load(run.out)
    assert patch["metadata"]["name"] == "argocd-cm"
    assert "resource.customizations.health.kubeflow.org_PyTorchJob" in patch["data"]


def test_unreachable_server_is_a_one_line_usage_error(cli: Any) -> None:
    run = cli(
        "argocd", "apps", "--server", "https://127.0.0.1:1", "--auth-token", "s3cr3t-token", "--retries", "0"
    )
    assert run.code == 2
    assert len(run.err.strip().splitlines()) == 1
    assert "s3cr3t-token" not in run.err + run.out
