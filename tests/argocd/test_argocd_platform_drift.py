"""``trainops argocd platform``: the platform Applications Argo CD holds (fake server) against the
releases the sample repository's apps/clusters.py declares."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import fakeargocd as fake
import pytest
import yaml
from pytest_httpserver import HTTPServer

from conftest import SAMPLE
from trainops.argocd import commands
from trainops.argocd.commands import ConnectionOptions, PlatformOptions
from trainops.core.platform import platform_apps
from trainops.project import load_clusters

CLUSTERS = load_clusters(SAMPLE)
DECLARED = [app for cluster in CLUSTERS for app in platform_apps(cluster)]
NO_ENV: dict[str, str] = {}


def _generated() -> dict[str, dict[str, Any]]:
    """The platform Applications synth wrote for the sample, by name."""
    out = {}
    for path in sorted((SAMPLE / "generated").glob("*/argocd/application_*.yaml")):
        app = yaml.safe_load(path.read_text(encoding="utf-8"))
        if app["metadata"]["labels"].get("trainops.dev/app-class") == "platform":
            out[app["metadata"]["name"]] = app
    return out


def _serve(httpserver: HTTPServer, items: list[dict[str, Any]]) -> None:
    httpserver.expect_request(
        "/api/v1/applications", query_string="selector=trainops.dev%2Fplatform-component"
    ).respond_with_json({"metadata": {"resourceVersion": "7"}, "items": items})


@pytest.fixture
def connection(httpserver: HTTPServer) -> ConnectionOptions:
    return fake.connection_options(httpserver.url_for("/"))


def test_every_declared_component_is_generated() -> None:
    assert sorted(_generated()) == sorted(app.name for app in DECLARED)


def test_all_synced_at_the_declared_release(
    httpserver: HTTPServer, connection: ConnectionOptions, capsys: pytest.CaptureFixture[str]
) -> None:
    _serve(httpserver, [fake.synced_platform_application(app) for app in _generated().values()])
    code = commands.run_platform(PlatformOptions(connection=connection), DECLARED, NO_ENV)
    out, err = capsys.readouterr()
    assert code == 0
    rows = [line.split() for line in out.splitlines()[1:]]
    assert len(rows) == len(DECLARED)
    assert ["gpu-next", "kueue", "gpu-next-kueue", "0.19.2", "0.19.2", "ok"] in rows
    assert ["gpu-prod", "training-operator", "gpu-prod-training-operator", "v1.9.4", "v1.9.4", "ok"] in rows
    assert err == f"{len(DECLARED)} platform applications, 0 not at the declared release\n"


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        # the root has not synced the bumped Application yet: Argo CD still compares the old chart
        ("compared", "Argo CD compares it with 0.14.8, not 0.19.2"),
        # the Application is bumped but the sync failed: the cluster still runs the old chart
        ("outofsync", "sync OutOfSync: the cluster does not run 0.19.2 yet"),
        ("missing", "no such Application in Argo CD"),
    ],
)
def test_a_component_off_its_declared_release_fails(
    httpserver: HTTPServer,
    connection: ConnectionOptions,
    capsys: pytest.CaptureFixture[str],
    change: str,
    expected: str,
) -> None:
    apps = _generated()
    kueue = apps.pop("gpu-next-kueue")
    items = [fake.synced_platform_application(app) for app in apps.values()]
    if change == "compared":
        old = {**kueue["spec"], "source": {**kueue["spec"]["source"], "targetRevision": "0.14.8"}}
        items.append(fake.synced_platform_application({**kueue, "spec": old}))
    elif change == "outofsync":
        items.append(fake.synced_platform_application(kueue, revision="0.14.8", sync="OutOfSync"))
    _serve(httpserver, items)
    code = commands.run_platform(
        PlatformOptions(connection=connection, cluster=("gpu-next",)), DECLARED, NO_ENV
    )
    out, err = capsys.readouterr()
    assert code == 1
    (line,) = (line for line in out.splitlines() if "gpu-next-kueue" in line)
    assert expected in line
    assert "gpu-prod" not in out
    assert err.endswith(", 1 not at the declared release\n")


def test_a_git_source_is_compared_by_its_tag() -> None:
    (declared,) = (a for a in DECLARED if a.name == "gpu-prod-training-operator")
    live = fake.synced_platform_application(_generated()["gpu-prod-training-operator"])
    from trainops.argocd.models import Application, parse_model

    app = parse_model(Application, live, where="test")
    assert commands.platform_drift(declared, app) == ""
    assert "not v1.9.5" in commands.platform_drift(
        replace(declared, source=replace(declared.source, version="v1.9.5")), app
    )
