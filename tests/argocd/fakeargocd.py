"""JSON bodies for the fake Argo CD API, shaped as swagger.json describes them.

Bodies follow the swagger definitions v1alpha1Application, v1alpha1ApplicationList,
v1alpha1ApplicationTree (ResourceNode = ResourceRef + health) and runtimeError of Argo CD v3.5.1.
"""

from __future__ import annotations

from typing import Any

from trainops.argocd.commands import ConnectionOptions

TOKEN = "tok-SECRET-7f3a9c21e4b8"
"""A recognisable token that must never appear in output, logs or exceptions."""


def resource(
    kind: str,
    name: str,
    *,
    group: str = "kubeflow.org",
    version: str = "v1",
    namespace: str = "ml-team",
    sync: str = "Synced",
    requires_pruning: bool = False,
) -> dict[str, Any]:
    """An ``applicationv1alpha1ResourceStatus`` (no inline health: Argo CD v3 keeps it in the tree)."""
    body: dict[str, Any] = {
        "group": group,
        "version": version,
        "kind": kind,
        "namespace": namespace,
        "name": name,
    }
    body["status"] = sync
    if requires_pruning:
        body["requiresPruning"] = True
    if not group:
        del body["group"]
    return body


def application(
    name: str = "train",
    *,
    health: str = "Healthy",
    health_message: str = "",
    sync: str = "Synced",
    revision: str = "4b1c0d2e9f8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c",
    operation_phase: str | None = None,
    resources: list[dict[str, Any]] | None = None,
    project: str = "ml",
) -> dict[str, Any]:
    """A ``v1alpha1Application`` with metadata, spec, status.sync/health/operationState/resources."""
    status: dict[str, Any] = {
        "sync": {
            "status": sync,
            "revision": revision,
            "comparedTo": {"destination": {"namespace": "ml-team"}},
        },
        "health": {"status": health, "lastTransitionTime": "2026-05-04T09:12:03Z"},
        "resources": resources or [],
        "reconciledAt": "2026-05-04T09:12:03Z",
        "sourceType": "Directory",
    }
    if health_message:
        status["health"]["message"] = health_message
    if operation_phase is not None:
        status["operationState"] = {
            "phase": operation_phase,
            "message": "successfully synced (all tasks run)" if operation_phase == "Succeeded" else "",
            "startedAt": "2026-05-04T09:12:00Z",
            "operation": {"sync": {"revision": revision}},
        }
    return {
        "metadata": {"name": name, "namespace": "argocd", "uid": "0d6a5f7e-1c2b-4d3e-8f9a-0b1c2d3e4f5a"},
        "spec": {
            "project": project,
            "source": {"repoURL": "https://git.example.com/ml/gitops.git", "path": f"generated/prod/{name}"},
            "destination": {"server": "https://kubernetes.default.svc", "namespace": "ml-team"},
        },
        "status": status,
    }


def node(
    kind: str,
    name: str,
    health: str | None,
    message: str = "",
    *,
    group: str = "kubeflow.org",
    version: str = "v1",
    namespace: str = "ml-team",
) -> dict[str, Any]:
    """A ``v1alpha1ResourceNode`` (ResourceRef fields + health)."""
    body: dict[str, Any] = {
        "group": group,
        "version": version,
        "kind": kind,
        "namespace": namespace,
        "name": name,
        "uid": f"uid-{name}",
        "resourceVersion": "123456",
        "createdAt": "2026-05-04T09:12:03Z",
    }
    if health is not None:
        body["health"] = {"status": health}
        if message:
            body["health"]["message"] = message
    return body


def error_body(message: str, code: int) -> dict[str, Any]:
    """A ``runtimeError`` body as the gRPC gateway writes it."""
    return {"error": message, "code": code, "message": message, "details": []}


def connection_options(url: str) -> ConnectionOptions:
    """Connection options for a fake server at ``url``: tiny backoff and timeouts, the test token."""
    return ConnectionOptions(
        server=url.rstrip("/"), auth_token=TOKEN, request_timeout=2.0, retries=2, backoff=0.01, deadline=5.0
    )
