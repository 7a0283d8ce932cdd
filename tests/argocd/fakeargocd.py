"""The fake Argo CD API: JSON bodies shaped as swagger.json describes them, and a server that
handles requests as argocd-server v3.5.1 does.

Bodies follow the swagger definitions v1alpha1Application, v1alpha1ApplicationList,
v1alpha1ApplicationTree (ResourceNode = ResourceRef + health) and runtimeError of Argo CD v3.5.1.

:class:`FakeArgoCD` (the ``httpserver`` fixture of the tests, see tests/conftest.py) answers, before
any expectation a test sets:

- 415 ``Invalid content type`` to a non-GET request without ``Content-Type: application/json``
  (argocd-server's CSRF protection, ``util/http`` ``CSRFMiddleware`` via ``server/server.go``);
- with ``redirect_https`` set, 307 to ``https://<Host><path>?<query>`` for every request, as the
  plain-HTTP listener of an argocd-server with TLS does (``server/server.go``, ``newRedirectServer``);
- 403 ``permission denied`` (gRPC code 7) to a request for an application no expectation serves:
  Argo CD answers 403, not 404, for an application that does not exist, so as not to reveal it
  (``server/application/application.go``, ``getAppEnforceRBAC``).
"""

from __future__ import annotations

import json
import re
from typing import Any

from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

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


INVALID_CONTENT_TYPE = "Invalid content type"
"""argocd-server's 415 body (text/plain) for a non-GET request that is not ``application/json``."""

_APPLICATION_PATH = re.compile(r"^/api/v1/applications/[^/]+(/.*)?$")


class FakeArgoCD(HTTPServer):
    """pytest-httpserver with argocd-server's request handling (see the module docstring)."""

    redirect_https = False
    """Answer every request with argocd-server's redirect to HTTPS (reset it after the test)."""

    def dispatch(self, request: Request) -> Response:
        """A redirect to HTTPS when asked, 415 for a non-JSON non-GET request, then the test's
        expectations, then 403 for an unserved application path."""
        if self.redirect_https:
            query = f"?{request.query_string.decode()}" if request.query_string else ""
            return Response(
                "", status=307, headers={"Location": f"https://{request.host}{request.path}{query}"}
            )
        if request.method not in ("GET", "HEAD", "OPTIONS") and request.mimetype != "application/json":
            return Response(INVALID_CONTENT_TYPE + "\n", status=415, content_type="text/plain; charset=utf-8")
        return super().dispatch(request)

    def respond_nohandler(self, request: Request, extra_message: str = "") -> Response:
        """403 ``permission denied`` for an application nobody serves; pytest-httpserver's 500 else."""
        if _APPLICATION_PATH.match(request.path):
            return Response(
                json.dumps(error_body("permission denied", 7)), status=403, content_type="application/json"
            )
        return super().respond_nohandler(request, extra_message)
