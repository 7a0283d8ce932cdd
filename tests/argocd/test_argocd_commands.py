"""``trainops argocd`` commands against a fake Argo CD API on 127.0.0.1 (pytest-httpserver)."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import fakeargocd as fake
import pytest
import yaml
from fakeargocd import TOKEN
from pytest_httpserver import HTTPServer
from werkzeug import Request

from trainops.argocd import commands
from trainops.argocd.commands import (
    AbortOptions,
    AppsOptions,
    ConnectionOptions,
    HealthChecksOptions,
    PromoteOptions,
    PruneFinishedOptions,
    RunsOptions,
    StatusOptions,
    SyncOptions,
    WaitOptions,
)
from trainops.argocd.health import HEALTH_CHECKS

APP = "/api/v1/applications/train"
TREE = "/api/v1/applications/train/resource-tree"
DELETE = "/api/v1/applications/train/resource"
NO_ENV: dict[str, str] = {}


@pytest.fixture
def connection(httpserver: HTTPServer) -> ConnectionOptions:
    """Connection options for the fake Argo CD on 127.0.0.1 (pytest-httpserver, plain HTTP)."""
    return fake.connection_options(httpserver.url_for("/"))


def _out(capsys: pytest.CaptureFixture[str]) -> tuple[str, str]:
    captured = capsys.readouterr()
    assert TOKEN not in captured.out + captured.err
    return captured.out, captured.err


def test_apps_lists_sync_and_health_sorted(
    httpserver: HTTPServer, connection: ConnectionOptions, capsys: pytest.CaptureFixture[str]
) -> None:
    items = [fake.application("serve", health="Progressing", sync="OutOfSync"), fake.application("train")]
    httpserver.expect_request(
        "/api/v1/applications",
        query_string="selector=team%3Dml",
        headers={"Authorization": f"Bearer {TOKEN}"},
    ).respond_with_json({"metadata": {"resourceVersion": "42"}, "items": items})
    code = commands.run_apps(AppsOptions(connection=connection, selector="team=ml"), NO_ENV)
    out, err = _out(capsys)
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split() == ["NAME", "PROJECT", "SYNC", "HEALTH", "REVISION"]
    assert lines[1].split()[:4] == ["serve", "ml", "OutOfSync", "Progressing"]
    assert lines[2].split()[:4] == ["train", "ml", "Synced", "Healthy"]
    assert err == "2 applications\n"


def test_status_shows_resources_with_tree_health(
    httpserver: HTTPServer, connection: ConnectionOptions, capsys: pytest.CaptureFixture[str]
) -> None:
    resources = [
        fake.resource("PyTorchJob", "bert-ft-3f2a9c"),
        fake.resource("Service", "bert-serve", group="", sync="OutOfSync"),
    ]
    httpserver.expect_request(APP).respond_with_json(
        fake.application(health="Progressing", resources=resources)
    )
    httpserver.expect_request(TREE).respond_with_json(
        {
            "nodes": [
                fake.node(
                    "PyTorchJob", "bert-ft-3f2a9c", "Progressing", "PyTorchJob bert-ft-3f2a9c is running."
                ),
                fake.node("Service", "bert-serve", "Healthy", group=""),
            ]
        }
    )
    code = commands.run_status(StatusOptions(app="train", connection=connection), NO_ENV)
    out, _ = _out(capsys)
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("train: sync Synced, health Progressing, revision 4b1c0d2e")
    assert lines[2].split() == ["Service", "ml-team", "bert-serve", "OutOfSync", "Healthy"]
    assert lines[3].split(None, 5) == [
        "kubeflow.org/PyTorchJob",
        "ml-team",
        "bert-ft-3f2a9c",
        "Synced",
        "Progressing",
        "PyTorchJob bert-ft-3f2a9c is running.",
    ]


def test_sync_sends_the_swagger_request(
    httpserver: HTTPServer, connection: ConnectionOptions, capsys: pytest.CaptureFixture[str]
) -> None:
    httpserver.expect_request(
        "/api/v1/applications/train/sync",
        method="POST",
        json={"name": "train", "revision": "v1.2.0", "prune": True, "dryRun": True},
    ).respond_with_json(fake.application(operation_phase="Running", sync="OutOfSync"))
    options = SyncOptions(app="train", connection=connection, prune=True, dry_run=True, revision="v1.2.0")
    code = commands.run_sync(options, NO_ENV)
    out, _ = _out(capsys)
    assert code == 0
    assert out.splitlines()[0] == "sync of train to v1.2.0 requested (prune, dry-run)"
    assert "operation Running" in out


def _wait(connection: ConnectionOptions, **kwargs: Any) -> WaitOptions:
    return WaitOptions(app="train", connection=connection, interval=0.01, timeout=5.0, **kwargs)


def test_wait_progressing_then_healthy(
    httpserver: HTTPServer, connection: ConnectionOptions, capsys: pytest.CaptureFixture[str]
) -> None:
    for body in (
        fake.application(health="Progressing", sync="OutOfSync", operation_phase="Running"),
        fake.application(health="Progressing", operation_phase="Running"),
        fake.application(health="Progressing", operation_phase="Succeeded"),
        fake.application(health="Healthy", operation_phase="Succeeded"),
    ):
        httpserver.expect_ordered_request(APP).respond_with_json(body)
    code = commands.run_wait(_wait(connection), NO_ENV)
    out, err = _out(capsys)
    assert code == 0
    assert len(httpserver.log) == 4
    assert out.startswith("train: sync Synced, health Healthy")
    assert err.count("\n") == 4  # each state change once on stderr


def test_wait_fails_at_once_on_degraded(
    httpserver: HTTPServer, connection: ConnectionOptions, capsys: pytest.CaptureFixture[str]
) -> None:
    httpserver.expect_ordered_request(APP).respond_with_json(fake.application(health="Progressing"))
    httpserver.expect_ordered_request(APP).respond_with_json(
        fake.application(health="Degraded", health_message="PyTorchJob bert-ft-3f2a9c is failed")
    )
    code = commands.run_wait(_wait(connection, health=True), NO_ENV)
    out, err = _out(capsys)
    assert code == 1
    assert len(httpserver.log) == 2
    assert "health Degraded (PyTorchJob bert-ft-3f2a9c is failed)" in out
    assert err.splitlines()[-1] == "argocd: train is Degraded"


def test_wait_fails_on_failed_sync_operation(
    httpserver: HTTPServer, connection: ConnectionOptions, capsys: pytest.CaptureFixture[str]
) -> None:
    httpserver.expect_request(APP).respond_with_json(
        fake.application(sync="OutOfSync", operation_phase="Failed")
    )
    assert commands.run_wait(_wait(connection, sync=True), NO_ENV) == 1
    assert _out(capsys)[1].splitlines()[-1] == "argocd: the sync of train ended Failed"


def test_wait_times_out(
    httpserver: HTTPServer, connection: ConnectionOptions, capsys: pytest.CaptureFixture[str]
) -> None:
    httpserver.expect_request(APP).respond_with_json(fake.application(health="Progressing"))
    now = [0.0]

    def sleep(seconds: float) -> None:
        now[0] += seconds

    options = WaitOptions(app="train", connection=connection, health=True, timeout=30.0, interval=10.0)
    code = commands.run_wait(options, NO_ENV, clock=lambda: now[0], sleep=sleep)
    assert code == 1
    assert len(httpserver.log) == 4  # t = 0, 10, 20, 30
    assert _out(capsys)[1].splitlines()[-1] == "argocd: train not Healthy after 30 s"


# A training app: current and superseded runs in every phase, plus objects that are not runs.
RUN_RESOURCES = [
    fake.resource("PyTorchJob", "bert-ft-aaaaaa"),  # current, running
    fake.resource("PyTorchJob", "bert-ft-eeeeee"),  # current, succeeded: never pruned
    fake.resource("PyTorchJob", "bert-ft-bbbbbb", requires_pruning=True),  # superseded, succeeded
    fake.resource("PyTorchJob", "bert-ft-cccccc", requires_pruning=True),  # superseded, failed
    fake.resource("PyTorchJob", "bert-ft-dddddd", requires_pruning=True),  # superseded, still running
    fake.resource("Job", "prep-data-123abc", group="batch", requires_pruning=True),  # superseded, failed
    fake.resource(
        "TrainJob",
        "llama-sft-b7c8d9",
        group="trainer.kubeflow.org",
        version="v1alpha1",
        requires_pruning=True,
    ),
    fake.resource(
        "PersistentVolumeClaim", "ckpt-abcdef", group="", version="v1", requires_pruning=True
    ),  # not a run
    fake.resource("ConfigMap", "bert-config", group="", version="v1"),
]
RUN_NODES = [
    fake.node("PyTorchJob", "bert-ft-aaaaaa", "Progressing", "PyTorchJob bert-ft-aaaaaa is running."),
    fake.node(
        "PyTorchJob", "bert-ft-eeeeee", "Healthy", "PyTorchJob bert-ft-eeeeee is successfully completed."
    ),
    fake.node(
        "PyTorchJob", "bert-ft-bbbbbb", "Healthy", "PyTorchJob bert-ft-bbbbbb is successfully completed."
    ),
    fake.node(
        "PyTorchJob",
        "bert-ft-cccccc",
        "Degraded",
        "PyTorchJob bert-ft-cccccc is failed because 1 Worker replica(s) failed.",
    ),
    fake.node("PyTorchJob", "bert-ft-dddddd", "Progressing", "PyTorchJob bert-ft-dddddd is running."),
    fake.node(
        "Job", "prep-data-123abc", "Degraded", "Job has reached the specified backoff limit", group="batch"
    ),
    fake.node(
        "TrainJob",
        "llama-sft-b7c8d9",
        "Suspended",
        "TrainJob is suspended",
        group="trainer.kubeflow.org",
        version="v1alpha1",
    ),
    fake.node("PersistentVolumeClaim", "ckpt-abcdef", "Healthy", group=""),
    fake.node("Pod", "bert-ft-aaaaaa-master-0", "Healthy", group=""),
]


@pytest.fixture
def training_app(httpserver: HTTPServer) -> HTTPServer:
    httpserver.expect_request(APP).respond_with_json(
        fake.application(health="Progressing", resources=RUN_RESOURCES)
    )
    httpserver.expect_request(TREE).respond_with_json({"nodes": RUN_NODES})
    return httpserver


def test_runs_lists_current_and_superseded_with_phase(
    training_app: HTTPServer, connection: ConnectionOptions, capsys: pytest.CaptureFixture[str]
) -> None:
    code = commands.run_runs(RunsOptions(app="train", connection=connection), NO_ENV)
    out, err = _out(capsys)
    assert code == 0
    rows = [line.split()[:6] for line in out.splitlines()[1:]]
    assert rows == [
        ["bert-ft", "kubeflow.org/PyTorchJob", "ml-team", "bert-ft-aaaaaa", "current", "Running"],
        ["bert-ft", "kubeflow.org/PyTorchJob", "ml-team", "bert-ft-bbbbbb", "superseded", "Succeeded"],
        ["bert-ft", "kubeflow.org/PyTorchJob", "ml-team", "bert-ft-cccccc", "superseded", "Failed"],
        ["bert-ft", "kubeflow.org/PyTorchJob", "ml-team", "bert-ft-dddddd", "superseded", "Running"],
        ["bert-ft", "kubeflow.org/PyTorchJob", "ml-team", "bert-ft-eeeeee", "current", "Succeeded"],
        [
            "llama-sft",
            "trainer.kubeflow.org/TrainJob",
            "ml-team",
            "llama-sft-b7c8d9",
            "superseded",
            "Suspended",
        ],
        ["prep-data", "batch/Job", "ml-team", "prep-data-123abc", "superseded", "Failed"],
    ]
    assert err == "7 runs, 5 superseded\n"


def _deleted(server: HTTPServer) -> list[dict[str, str]]:
    return [dict(req.args) for req, _ in server.log if req.method == "DELETE"]


def test_prune_finished_deletes_only_finished_superseded_runs(
    training_app: HTTPServer, connection: ConnectionOptions, capsys: pytest.CaptureFixture[str]
) -> None:
    training_app.expect_request(DELETE, method="DELETE").respond_with_json({})
    code = commands.run_prune_finished(PruneFinishedOptions(app="train", connection=connection), NO_ENV)
    out, err = _out(capsys)
    assert code == 0
    assert _deleted(training_app) == [
        {
            "namespace": "ml-team",
            "resourceName": "bert-ft-bbbbbb",
            "version": "v1",
            "group": "kubeflow.org",
            "kind": "PyTorchJob",
        },
        {
            "namespace": "ml-team",
            "resourceName": "bert-ft-cccccc",
            "version": "v1",
            "group": "kubeflow.org",
            "kind": "PyTorchJob",
        },
        {
            "namespace": "ml-team",
            "resourceName": "prep-data-123abc",
            "version": "v1",
            "group": "batch",
            "kind": "Job",
        },
    ]
    deleted_names = {args["resourceName"] for args in _deleted(training_app)}
    assert not deleted_names & {
        "bert-ft-aaaaaa",
        "bert-ft-dddddd",
        "bert-ft-eeeeee",
        "llama-sft-b7c8d9",
        "ckpt-abcdef",
    }
    assert "kept kubeflow.org/PyTorchJob ml-team/bert-ft-dddddd: superseded but Running" in out
    assert "deleted batch/Job ml-team/prep-data-123abc (Failed)" in out
    assert err == "deleted 3 finished superseded runs, kept 2 not finished\n"


def test_prune_finished_dry_run_deletes_nothing(
    training_app: HTTPServer, connection: ConnectionOptions, capsys: pytest.CaptureFixture[str]
) -> None:
    options = PruneFinishedOptions(app="train", connection=connection, dry_run=True)
    assert commands.run_prune_finished(options, NO_ENV) == 0
    out, _ = _out(capsys)
    assert _deleted(training_app) == []
    assert out.count("would delete ") == 3


def test_server_and_token_from_environment(
    httpserver: HTTPServer, capsys: pytest.CaptureFixture[str]
) -> None:
    httpserver.expect_request(
        "/api/v1/applications", headers={"Authorization": f"Bearer {TOKEN}"}
    ).respond_with_json({"items": []})
    env = {"ARGOCD_SERVER": httpserver.url_for("/"), "ARGOCD_AUTH_TOKEN": TOKEN}
    assert commands.run_apps(AppsOptions(), env) == 0
    _out(capsys)


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"ARGOCD_AUTH_TOKEN": TOKEN}, "argocd: no server; pass --server or set ARGOCD_SERVER"),
        (
            {"ARGOCD_SERVER": "argocd.example.com"},
            "argocd: no token; pass --auth-token or set ARGOCD_AUTH_TOKEN",
        ),
        (
            {"ARGOCD_SERVER": "ftp://argocd", "ARGOCD_AUTH_TOKEN": TOKEN},
            "argocd: server 'ftp://argocd' is not an http(s) URL or host[:port]",
        ),
    ],
)
def test_missing_configuration_is_a_usage_error(
    env: dict[str, str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert commands.run_apps(AppsOptions(), env) == 2
    assert _out(capsys) == ("", message + "\n")


def test_health_checks_prints_the_argocd_cm_patch(capsys: pytest.CaptureFixture[str]) -> None:
    assert commands.run_health_checks(HealthChecksOptions()) == 0
    out, _ = _out(capsys)
    doc = yaml.safe_load(out)
    assert (doc["apiVersion"], doc["kind"], doc["metadata"]["name"], doc["metadata"]["namespace"]) == (
        "v1",
        "ConfigMap",
        "argocd-cm",
        "argocd",
    )
    assert doc["data"] == {check.cm_key: check.lua() for check in HEALTH_CHECKS.values()}
    assert "resource.customizations.health.kubeflow.org_PyTorchJob: |" in out  # literal blocks, readable
    assert not any(key.startswith("resource.customizations.useOpenLibs") for key in doc["data"])


def test_health_checks_helm_values_and_determinism(capsys: pytest.CaptureFixture[str]) -> None:
    commands.run_health_checks(HealthChecksOptions(helm=True))
    first, _ = _out(capsys)
    commands.run_health_checks(HealthChecksOptions(helm=True))
    second, _ = _out(capsys)
    assert first == second
    values = yaml.safe_load(first)
    assert list(values) == ["configs"]
    assert set(values["configs"]["cm"]) == {
        f"resource.customizations.health.{key.replace('/', '_')}" for key in HEALTH_CHECKS
    }


OPTION_CLASSES = [
    commands.ConnectionOptions,
    AppsOptions,
    StatusOptions,
    SyncOptions,
    WaitOptions,
    RunsOptions,
    PruneFinishedOptions,
    PromoteOptions,
    AbortOptions,
    HealthChecksOptions,
]


@pytest.mark.parametrize("options", OPTION_CLASSES, ids=lambda c: c.__name__)
def test_every_option_is_documented(options: type) -> None:
    assert options.__dataclass_params__.frozen  # type: ignore[attr-defined]
    for fld in dataclasses.fields(options):
        text = commands.option_help(options, fld.name)
        assert text and text.endswith(".")


def test_token_is_not_in_repr() -> None:
    assert TOKEN not in repr(ConnectionOptions(server="x", auth_token=TOKEN))


def test_request_carries_bearer_token_only_in_header(
    training_app: HTTPServer, connection: ConnectionOptions
) -> None:
    commands.run_runs(RunsOptions(app="train", connection=connection), NO_ENV)
    request: Request = training_app.log[0][0]
    assert request.headers["Authorization"] == f"Bearer {TOKEN}"
    assert TOKEN not in request.url
    assert json.dumps(dict(request.args)).find(TOKEN) == -1


ACTION = "/api/v1/applications/serve/resource/actions/v2"


@pytest.fixture
def rollout_app(httpserver: HTTPServer) -> HTTPServer:
    """An app ``serve`` holding two Rollouts (one superseded, no longer in git), a Service and an
    AnalysisTemplate."""
    resources = [
        fake.resource("Rollout", "resnet", group="argoproj.io", version="v1alpha1", namespace="serving"),
        fake.resource(
            "Rollout",
            "old",
            group="argoproj.io",
            version="v1alpha1",
            namespace="serving",
            requires_pruning=True,
        ),
        fake.resource("Rollout", "bert", group="argoproj.io", version="v1alpha1", namespace="serving"),
        fake.resource("Service", "resnet", group="", namespace="serving"),
        fake.resource("AnalysisTemplate", "resnet-analysis", group="argoproj.io", version="v1alpha1"),
    ]
    httpserver.expect_request("/api/v1/applications/serve").respond_with_json(
        fake.application("serve", health="Suspended", resources=resources)
    )
    return httpserver


def _actions(server: HTTPServer) -> list[dict[str, Any]]:
    return [json.loads(req.get_data()) for req, _ in server.log if req.path == ACTION]


@pytest.mark.parametrize(("full", "action"), [(False, "resume"), (True, "promote-full")])
def test_promote_runs_the_rollout_action_on_every_rollout(
    rollout_app: HTTPServer,
    connection: ConnectionOptions,
    capsys: pytest.CaptureFixture[str],
    full: bool,
    action: str,
) -> None:
    rollout_app.expect_request(ACTION, method="POST").respond_with_json({})
    code = commands.run_promote(PromoteOptions(app="serve", connection=connection, full=full), NO_ENV)
    out, err = _out(capsys)
    assert code == 0
    assert _actions(rollout_app) == [
        {
            "name": "serve",
            "namespace": "serving",
            "resourceName": name,
            "version": "v1alpha1",
            "group": "argoproj.io",
            "kind": "Rollout",
            "action": action,
        }
        for name in ("bert", "resnet")
    ]
    assert out.splitlines() == [f"{action} argoproj.io/Rollout serving/{n}" for n in ("bert", "resnet")]
    assert err == f"ran {action} on 2 Rollout(s) of serve\n"


def test_abort_one_rollout(
    rollout_app: HTTPServer, connection: ConnectionOptions, capsys: pytest.CaptureFixture[str]
) -> None:
    rollout_app.expect_request(ACTION, method="POST").respond_with_json({})
    code = commands.run_abort(AbortOptions(app="serve", connection=connection, rollout="resnet"), NO_ENV)
    _out(capsys)
    assert code == 0
    assert [(a["resourceName"], a["action"]) for a in _actions(rollout_app)] == [("resnet", "abort")]


def test_promote_an_app_without_that_rollout_is_a_usage_error(
    rollout_app: HTTPServer, connection: ConnectionOptions, capsys: pytest.CaptureFixture[str]
) -> None:
    code = commands.run_promote(PromoteOptions(app="serve", connection=connection, rollout="old"), NO_ENV)
    _, err = _out(capsys)
    assert code == 2
    assert err == (
        "application 'serve' has no Rollout named 'old' (argoproj.io/Rollout among its resources)\n"
    )
    assert _actions(rollout_app) == []


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            {"name": "serve", "kind": "Rollout", "resourceName": "r", "version": "v1alpha1"},
            "action is required",
        ),
        (
            {
                "name": "serve",
                "action": "resume",
                "kind": "Rollout",
                "resourceName": "r",
                "version": "v1",
                "x": 1,
            },
            'unknown field "x"',
        ),
        (
            {"name": "other", "action": "resume", "kind": "Rollout", "resourceName": "r", "version": "v1"},
            "body name 'other' is not the application 'serve' of the path",
        ),
    ],
)
def test_fake_refuses_a_malformed_action_request(
    httpserver: HTTPServer, body: dict[str, Any], message: str
) -> None:
    import httpx

    response = httpx.post(httpserver.url_for(ACTION), json=body)
    assert (response.status_code, response.json()["message"]) == (400, message)
