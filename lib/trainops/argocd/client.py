"""A small typed httpx client for the Argo CD REST API (``assets/swagger.json``, no gRPC-web).

Only the endpoints in :data:`ENDPOINTS` are used; a test checks each (method, path, query
parameters, body and response definitions) and every model field against the swagger of Argo CD
v3.5.1. Authentication is ``Authorization: Bearer <token>`` (Argo CD ``server/server.go``
``getToken`` reads it from that header). TLS verification is on unless ``insecure`` is set.

Failures become one-line :class:`~trainops.argocd.errors.ArgoCDError` subclasses. The token is
sent only in the Authorization header, never put in a URL, an exception, a log record or output,
and any echo of it in a server message is replaced by ``***``.

Retries (stamina): connection errors, timeouts and HTTP 5xx are retried with exponential backoff
for idempotent requests (GET, DELETE); a POST (sync) is retried only when the connection could
not be made, so a sync is never sent twice. TLS verification failures are never retried.
"""

from __future__ import annotations

import json
import ssl
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any, Literal, TypeVar
from urllib.parse import quote, urlsplit

import httpx
import stamina

from trainops.argocd.errors import (
    ArgoCDError,
    AuthError,
    ConfigError,
    InvalidResponseError,
    NotFoundError,
    TLSError,
    TransportError,
)
from trainops.argocd.models import (
    Application,
    ApplicationList,
    ApplicationTree,
    ErrorBody,
    SyncRequest,
    dump_model,
    parse_model,
)

M = TypeVar("M")


@dataclass(frozen=True)
class Endpoint:
    """One REST endpoint as swagger names it.

    Args:
        method: HTTP method. path: the swagger path template (``{name}`` placeholders).
        query: the query parameters trainops may send. body: swagger definition of the JSON body,
        or ``None``. response: swagger definition of the 200 response. idempotent: safe to retry
        after the request may have reached the server.
    """

    method: Literal["GET", "POST", "DELETE"]
    path: str
    query: tuple[str, ...] = ()
    body: str | None = None
    response: str = ""
    idempotent: bool = True


LIST_APPLICATIONS = Endpoint(
    "GET",
    "/api/v1/applications",
    query=("selector", "projects", "appNamespace"),
    response="v1alpha1ApplicationList",
)
GET_APPLICATION = Endpoint(
    "GET", "/api/v1/applications/{name}", query=("appNamespace",), response="v1alpha1Application"
)
RESOURCE_TREE = Endpoint(
    "GET",
    "/api/v1/applications/{applicationName}/resource-tree",
    query=("appNamespace",),
    response="v1alpha1ApplicationTree",
)
SYNC = Endpoint(
    "POST",
    "/api/v1/applications/{name}/sync",
    body="applicationApplicationSyncRequest",
    response="v1alpha1Application",
    idempotent=False,
)
DELETE_RESOURCE = Endpoint(
    "DELETE",
    "/api/v1/applications/{name}/resource",
    query=("namespace", "resourceName", "version", "group", "kind", "appNamespace"),
    response="applicationApplicationResponse",
)
ENDPOINTS: tuple[Endpoint, ...] = (LIST_APPLICATIONS, GET_APPLICATION, RESOURCE_TREE, SYNC, DELETE_RESOURCE)
"""Every endpoint the client calls (checked against swagger.json by a test)."""


@dataclass(frozen=True)
class ClientConfig:
    """Where and how to reach Argo CD.

    Args:
        server: base URL, e.g. ``https://argocd.example.com``; a bare host gets ``https://``.
        token: the bearer token (an Argo CD API key or session token); never printed (``repr``
            hides it).
        insecure: skip TLS certificate verification. Default: ``False``.
        ca_file: PEM file of CA certificates to trust instead of the system store. Default: none.
        timeout: seconds for each request (connect, read, write, pool). Default: 10.
        attempts: total attempts of one call, retries included (>= 1). Default: 4.
        backoff: seconds before the first retry; doubles after each, capped at 8 s. Default: 0.5.
        deadline: seconds one call may take with all its retries. Default: 60.
    """

    server: str
    token: str = field(repr=False)
    insecure: bool = False
    ca_file: Path | None = None
    timeout: float = 10.0
    attempts: int = 4
    backoff: float = 0.5
    deadline: float = 60.0


def normalise_server(server: str) -> str:
    """Return ``server`` as a base URL without trailing slash; ``https://`` is added to a bare host.

    Raises:
        ConfigError: empty, a scheme other than http/https, or no host.
    """
    value = server.strip().rstrip("/")
    if not value:
        raise ConfigError("argocd: the server is empty; pass --server or set ARGOCD_SERVER")
    if "://" not in value:
        value = "https://" + value
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(f"argocd: server {server!r} is not an http(s) URL or host[:port]")
    return value


class _Retryable(Exception):
    """A failure worth retrying; ``error`` is what to raise when the retries run out."""

    def __init__(self, error: ArgoCDError) -> None:
        super().__init__(error.message)
        self.error = error


class ArgoCDClient:
    """Typed access to the endpoints in :data:`ENDPOINTS`. Use as a context manager (closes the pool).

    Args:
        config: server, token, TLS and retry settings.
        transport: an httpx transport to use instead of the network (tests). Default: none.

    Raises:
        ConfigError: bad server URL, empty token, or an unreadable ``ca_file``.
    """

    def __init__(self, config: ClientConfig, *, transport: httpx.BaseTransport | None = None) -> None:
        self._base = normalise_server(config.server)
        if not config.token:
            raise ConfigError("argocd: no token; pass --auth-token or set ARGOCD_AUTH_TOKEN")
        if config.attempts < 1:
            raise ConfigError(f"argocd: attempts must be >= 1, got {config.attempts}")
        self._config = config
        self._token = config.token
        verify: ssl.SSLContext | bool = not config.insecure
        if config.ca_file is not None and not config.insecure:
            try:
                verify = ssl.create_default_context(cafile=str(config.ca_file))
            except (OSError, ssl.SSLError) as exc:
                raise ConfigError(f"argocd: --ca-file {config.ca_file}: {_reason(exc)}") from None
        self._http = httpx.Client(
            base_url=self._base,
            headers={"Authorization": f"Bearer {config.token}", "Accept": "application/json"},
            timeout=config.timeout,
            verify=verify,
            transport=transport,
            follow_redirects=False,
        )

    def __enter__(self) -> ArgoCDClient:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def close(self) -> None:
        """Close the connection pool."""
        self._http.close()

    # -- endpoints -------------------------------------------------------------------------

    def list_applications(
        self, *, selector: str = "", projects: tuple[str, ...] = (), app_namespace: str = ""
    ) -> tuple[Application, ...]:
        """``GET /api/v1/applications``, optionally filtered by label ``selector`` and ``projects``."""
        query: dict[str, str | list[str]] = {}
        if selector:
            query["selector"] = selector
        if projects:
            query["projects"] = list(projects)
        if app_namespace:
            query["appNamespace"] = app_namespace
        data = self._call(LIST_APPLICATIONS, {}, query=query)
        return parse_model(ApplicationList, data, where=_where(LIST_APPLICATIONS, {})).items

    def get_application(self, name: str, *, app_namespace: str = "") -> Application:
        """``GET /api/v1/applications/{name}``. Raises :class:`NotFoundError` for an unknown app."""
        params = {"name": name}
        data = self._call(GET_APPLICATION, params, query=_ns(app_namespace))
        return parse_model(Application, data, where=_where(GET_APPLICATION, params))

    def resource_tree(self, name: str, *, app_namespace: str = "") -> ApplicationTree:
        """``GET /api/v1/applications/{name}/resource-tree``: live resources with their health."""
        params = {"applicationName": name}
        data = self._call(RESOURCE_TREE, params, query=_ns(app_namespace))
        return parse_model(ApplicationTree, data, where=_where(RESOURCE_TREE, params))

    def sync(self, request: SyncRequest) -> Application:
        """``POST /api/v1/applications/{name}/sync``; returns the application with its new operation."""
        params = {"name": request.name}
        data = self._call(SYNC, params, body=dump_model(request))
        return parse_model(Application, data, where=_where(SYNC, params))

    def delete_resource(
        self,
        app: str,
        *,
        group: str,
        version: str,
        kind: str,
        namespace: str,
        name: str,
        app_namespace: str = "",
    ) -> None:
        """``DELETE /api/v1/applications/{app}/resource``: delete one live resource of the app.

        The query names it as swagger's ``ApplicationService_DeleteResource`` asks: ``namespace``,
        ``resourceName``, ``version``, ``group`` (``""`` for the core group), ``kind``.
        """
        query: dict[str, str | list[str]] = {
            "namespace": namespace,
            "resourceName": name,
            "version": version,
            "group": group,
            "kind": kind,
        }
        query.update(_ns(app_namespace))
        self._call(DELETE_RESOURCE, {"name": app}, query=query)

    # -- transport -------------------------------------------------------------------------

    def _call(
        self,
        endpoint: Endpoint,
        params: Mapping[str, str],
        *,
        query: Mapping[str, str | list[str]] | None = None,
        body: dict[str, Any] | None = None,
    ) -> Any:
        where = _where(endpoint, params)
        url = endpoint.path.format(**{key: quote(value, safe="") for key, value in params.items()})
        config = self._config
        try:
            for attempt in stamina.retry_context(
                on=_Retryable,
                attempts=config.attempts,
                timeout=config.deadline,
                wait_initial=config.backoff,
                wait_max=max(config.backoff, 8.0),
                wait_jitter=config.backoff / 2,
            ):
                with attempt:
                    return self._once(endpoint, where, url, query, body)
        except _Retryable as exc:
            raise exc.error from None
        raise TransportError(f"{where}: no attempt was made")  # pragma: no cover - attempts >= 1

    def _once(
        self,
        endpoint: Endpoint,
        where: str,
        url: str,
        query: Mapping[str, str | list[str]] | None,
        body: dict[str, Any] | None,
    ) -> Any:
        try:
            response = self._http.request(endpoint.method, url, params=query, json=body)
        except httpx.HTTPError as exc:
            raise self._transport_error(endpoint, where, exc) from None
        if response.status_code >= 400:
            error = self._http_error(where, response)
            if response.status_code >= 500 and endpoint.idempotent:
                raise _Retryable(error)
            raise error
        try:
            return response.json()
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise InvalidResponseError(
                self._redact(f"{where}: invalid JSON in the {response.status_code} response: {exc}")
            ) from None

    def _transport_error(
        self, endpoint: Endpoint, where: str, exc: httpx.HTTPError
    ) -> ArgoCDError | _Retryable:
        ssl_error = _ssl_cause(exc)
        if ssl_error is not None:
            return TLSError(
                self._redact(
                    f"{where}: TLS verification of {self._base} failed: {_reason(ssl_error)}; "
                    "pass --ca-file with the server's CA, or --insecure to skip verification"
                )
            )
        if isinstance(exc, httpx.TimeoutException):
            error = TransportError(
                f"{where}: timed out after {self._config.timeout:g} s ({type(exc).__name__}) at {self._base}"
            )
        else:
            error = TransportError(self._redact(f"{where}: cannot reach {self._base}: {_reason(exc)}"))
        not_sent = isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout)
        if endpoint.idempotent or not_sent:
            return _Retryable(error)
        return error

    def _http_error(self, where: str, response: httpx.Response) -> ArgoCDError:
        detail = _server_message(response)
        status = f"{response.status_code} {response.reason_phrase}".strip()
        suffix = f": {detail}" if detail else ""
        if response.status_code == 401:
            text = f"{where}: {status}{suffix}; the token is missing, expired or invalid (ARGOCD_AUTH_TOKEN)"
            return AuthError(self._redact(text))
        if response.status_code == 403:
            return AuthError(self._redact(f"{where}: {status}{suffix}; the token lacks the RBAC permission"))
        if response.status_code == 404:
            return NotFoundError(self._redact(f"{where}: {status}{suffix}"))
        return TransportError(self._redact(f"{where}: {status}{suffix}"))

    def _redact(self, text: str) -> str:
        return text.replace(self._token, "***") if self._token else text


def _ns(app_namespace: str) -> dict[str, str | list[str]]:
    return {"appNamespace": app_namespace} if app_namespace else {}


def _where(endpoint: Endpoint, params: Mapping[str, str]) -> str:
    return f"argocd: {endpoint.method} {endpoint.path.format(**params)}"


def _server_message(response: httpx.Response) -> str:
    try:
        body = response.json()
    except ValueError:
        return response.text.strip()[:200]
    try:
        error = parse_model(ErrorBody, body, where="error body")
    except ArgoCDError:
        return ""
    return error.message or error.error


def _ssl_cause(exc: BaseException) -> ssl.SSLError | None:
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, ssl.SSLError):
            return seen
        seen = seen.__cause__ or seen.__context__
    return None


def _reason(exc: BaseException) -> str:
    if isinstance(exc, ssl.SSLCertVerificationError) and exc.verify_message:
        return exc.verify_message
    if isinstance(exc, ssl.SSLError) and exc.reason:
        return str(exc.reason)
    text = str(exc) or type(exc).__name__
    return text
