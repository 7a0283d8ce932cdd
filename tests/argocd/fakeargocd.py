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
- 400 (gRPC code 3, InvalidArgument) to a ``RunResourceActionV2`` request
  (``POST /api/v1/applications/{name}/resource/actions/v2``) whose JSON body is not an
  ``applicationResourceActionRunRequestV2`` (unknown fields are refused by the gateway's protojson
  decoding), that names another application than the path, or lacks the action or the resource
  (``kind``, ``resourceName``, ``version``; the server looks the live object up by them);
- 403 ``permission denied`` (gRPC code 7) to a request for an application no expectation serves:
  Argo CD answers 403, not 404, for an application that does not exist, so as not to reveal it
  (``server/application/application.go``, ``getAppEnforceRBAC``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
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
_ACTION_V2_PATH = re.compile(r"^/api/v1/applications/([^/]+)/resource/actions/v2$")
#: The properties of swagger's ``applicationResourceActionRunRequestV2`` (Argo CD v3.5.1).
ACTION_V2_FIELDS = frozenset(
    {
        "action",
        "appNamespace",
        "group",
        "kind",
        "name",
        "namespace",
        "project",
        "resourceActionParameters",
        "resourceName",
        "version",
    }
)


def action_v2_problem(app: str, raw: bytes) -> str | None:
    """Why a ``RunResourceActionV2`` body for application ``app`` is refused, or ``None``."""
    try:
        body = json.loads(raw or b"null")
    except ValueError:
        return "invalid JSON body"
    if not isinstance(body, dict):
        return "body is not a ResourceActionRunRequestV2 object"
    unknown = sorted(set(body) - ACTION_V2_FIELDS)
    if unknown:
        return f'unknown field "{unknown[0]}"'
    if body.get("name", app) != app:
        return f"body name {body.get('name')!r} is not the application {app!r} of the path"
    for key in ("action", "kind", "resourceName", "version"):
        if not isinstance(body.get(key), str) or not body[key]:
            return f"{key} is required"
    return None


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
        action = _ACTION_V2_PATH.match(request.path)
        if action is not None and request.method == "POST":
            problem = action_v2_problem(action.group(1), request.get_data())
            if problem is not None:
                return Response(
                    json.dumps(error_body(problem, 3)), status=400, content_type="application/json"
                )
        return super().dispatch(request)

    def respond_nohandler(self, request: Request, extra_message: str = "") -> Response:
        """403 ``permission denied`` for an application nobody serves; pytest-httpserver's 500 else."""
        if _APPLICATION_PATH.match(request.path):
            return Response(
                json.dumps(error_body("permission denied", 7)), status=403, content_type="application/json"
            )
        return super().respond_nohandler(request, extra_message)


# --- the ApplicationSet controller, the repo-server's directory source and an app-of-apps sync -----
# (what Argo CD v3.5.1 does with generated/<cluster>/argocd/; kept apart from the REST bodies above)


def expand_braces(pattern: str) -> list[str]:
    """``{a,b}c`` -> ``["ac", "bc"]`` (one level of alternatives, as trainops' globs use)."""
    start = pattern.find("{")
    if start < 0:
        return [pattern]
    end = pattern.index("}", start)
    head, tail = pattern[:start], pattern[end + 1 :]
    return [
        expanded
        for option in pattern[start + 1 : end].split(",")
        for expanded in expand_braces(head + option + tail)
    ]


def glob_match(pattern: str, name: str) -> bool:
    """gobwas/glob ``Match`` as Argo CD's ``util/glob`` compiles it (no separators: ``*`` matches any text)."""
    import fnmatch

    return any(fnmatch.fnmatchcase(name, p) for p in expand_braces(pattern))


def source_files(repo: Path, source: dict[str, Any]) -> list[str]:
    """The manifest files a directory source syncs: ``*.yaml``/``*.yml``/``*.json`` directly under
    ``source.path`` (``recurse`` is off), minus ``directory.exclude``, only ``directory.include``
    (repo-server ``findManifests`` matches both globs against the path relative to the source path).

    Raises:
        FileNotFoundError: the path is not a directory of the repository.
    """
    root = repo / source["path"]
    if not root.is_dir():
        raise FileNotFoundError(f"app path does not exist: {source['path']}")
    directory = source.get("directory") or {}
    out = []
    for path in sorted(root.iterdir()):
        if not path.is_file() or path.suffix not in (".yaml", ".yml", ".json"):
            continue
        if directory.get("exclude") and glob_match(directory["exclude"], path.name):
            continue
        if directory.get("include") and not glob_match(directory["include"], path.name):
            continue
        out.append(path.name)
    return out


def _expand(value: Any, params: dict[str, str]) -> Any:
    """Render the Go template expressions trainops' ApplicationSets use (``missingkey=error``)."""
    if isinstance(value, dict):
        return {k: _expand(v, params) for k, v in value.items()}
    if isinstance(value, list):
        return [_expand(v, params) for v in value]
    if isinstance(value, str):
        for expression, replacement in params.items():
            value = value.replace(expression, replacement)
        if "{{" in value:
            raise KeyError(f"map has no entry for a template parameter in {value!r}")
    return value


def _selected(selector: dict[str, Any], labels: dict[str, str]) -> bool:
    if any(labels.get(k) != v for k, v in selector.get("matchLabels", {}).items()):
        return False
    return all(labels.get(e["key"]) in e["values"] for e in selector.get("matchExpressions", []))


@dataclass(frozen=True)
class RegisteredCluster:
    """A cluster Secret in Argo CD: its name, server URL and labels."""

    name: str
    server: str
    labels: dict[str, str]


@dataclass(frozen=True)
class Generated:
    """What the ApplicationSet controller made of one set: Applications, or an error condition."""

    applications: list[dict[str, Any]]
    error: str | None = None


def generate(
    app_set: dict[str, Any], projects: set[str], clusters: list[RegisteredCluster], repo: Path
) -> Generated:
    """Run the matrix (cluster generator x git directory generator) of ``app_set`` over ``repo``.

    As the real controller: a set whose template names an AppProject that does not exist generates
    nothing and reports the ``ErrorOccurred`` condition (``application references project ... which
    does not exist``; applicationset ``ValidateApplications``), retried on its requeue, not at once.
    """
    project = app_set["spec"]["template"]["spec"]["project"]
    if project not in projects:
        return Generated([], f"application references project {project} which does not exist")
    (matrix,) = app_set["spec"]["generators"]
    clusters_gen, git_gen = matrix["matrix"]["generators"]
    apps = []
    for cluster in clusters:
        if not _selected(clusters_gen["clusters"]["selector"], cluster.labels):
            continue
        label = '{{ index .metadata.labels "trainops.dev/cluster" }}'
        first = {label: cluster.labels.get("trainops.dev/cluster", ""), "{{ .server }}": cluster.server}
        dirs = _expand(git_gen["git"]["directories"], first)
        excluded = {d["path"] for d in dirs if d.get("exclude")}
        for entry in dirs:
            path = entry["path"]
            if entry.get("exclude") or path in excluded or not (repo / path).is_dir():
                continue
            params = {**first, "{{ .path.path }}": path, "{{ .path.basename }}": Path(path).name}
            app = {
                "apiVersion": "argoproj.io/v1alpha1",
                "kind": "Application",
                **_expand(app_set["spec"]["template"], params),
            }
            app["metadata"]["namespace"] = app_set["metadata"]["namespace"]
            apps.append(app)
    return Generated(apps)


def sync_waves(objects: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """The objects an app-of-apps syncs, grouped by ``argocd.argoproj.io/sync-wave`` in wave order
    (gitops-engine ``sync_tasks.go``: phase, then wave, then kind order, then name)."""
    waves: dict[int, list[dict[str, Any]]] = {}
    for obj in objects:
        wave = int((obj["metadata"].get("annotations") or {}).get("argocd.argoproj.io/sync-wave", "0"))
        waves.setdefault(wave, []).append(obj)
    return [sorted(waves[w], key=lambda o: (o["kind"], o["metadata"]["name"])) for w in sorted(waves)]


def synced_platform_application(
    app: dict[str, Any], *, revision: str | None = None, sync: str = "Synced"
) -> dict[str, Any]:
    """A ``v1alpha1Application`` as Argo CD serves a platform Application (a generated one, ``app``)
    after syncing it: ``status.sync.comparedTo.source`` is its source and ``status.sync.revision``
    the chart version of a Helm or OCI source (the commit SHA of the tag for a git source), unless
    ``revision`` says otherwise."""
    source = app["spec"]["source"]
    chart = "chart" in source or str(source["repoURL"]).startswith("oci://")
    synced = revision or (source["targetRevision"] if chart else "4b1c0d2e9f8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c")
    return {
        "metadata": {**app["metadata"], "uid": "0d6a5f7e-1c2b-4d3e-8f9a-0b1c2d3e4f5a"},
        "spec": app["spec"],
        "status": {
            "sync": {
                "status": sync,
                "revision": synced,
                "comparedTo": {"source": source, "destination": app["spec"]["destination"]},
            },
            "health": {"status": "Healthy", "lastTransitionTime": "2026-05-04T09:12:03Z"},
            "sourceType": "Helm" if chart else "Kustomize",
        },
    }
