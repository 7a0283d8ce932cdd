"""A small typed httpx client for the Argo CD REST API (``assets/swagger.json``, no gRPC-web).

Only the endpoints in :data:`ENDPOINTS` are used; a test checks each (method, path, query
parameters, body and response definitions) and every model field against the swagger of Argo CD
v3.5.1. Authentication is ``Authorization: Bearer <token>`` (Argo CD ``server/server.go``
``getToken`` reads it from that header). TLS verification is on unless ``insecure`` is set.

Failures become one-line :class:`~trainops.argocd.errors.ArgoCDError` subclasses. The token is
sent only in the Authorization header, never put in a URL, an exception, a log record or output;
any echo of it (or of a password in the server URL) in a server message, an error body or a
health or operation message is replaced by ``***`` before anything is cut short.

Every non-GET request carries ``Content-Type: application/json``: argocd-server's CSRF protection
answers any other POST or DELETE with 415 "Invalid content type" (``server/server.go``,
``newCSRFHandler``/``util/http.CSRFMiddleware`` at v3.5.1).

Bounds: one call (its retries, the headers and the body included) ends by its deadline, enforced
by a watchdog that shuts the socket down when it passes, so a server sending a byte every few
seconds cannot stretch it; a client can also be given a total for all its calls. A body is
decoded (identity, gzip or deflate) by trainops while it streams in, and refused once its raw or
decoded size passes ``max_response_bytes``, so neither an endless chunked body nor a
decompression bomb can exhaust memory. Only a 2xx answer is a success: a redirect is reported
with its target, never followed (``follow_redirects=False``). JSON nested too deeply for Python's
parser is an :class:`~trainops.argocd.errors.InvalidResponseError`, not a ``RecursionError``.

Retries (stamina): connection errors, timeouts and HTTP 5xx are retried with exponential backoff
for idempotent requests (GET, DELETE); a POST (sync) is retried only when the connection could
not be made, so a sync is never sent twice. TLS verification failures are never retried. Each
scheduled retry is reported as one line through the client's ``on_retry`` callback, instead of
stamina's default log record.
"""

from __future__ import annotations

import contextlib
import json
import re
import socket
import ssl
import threading
import time
import zlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any, Literal, TypeVar
from urllib.parse import quote, unquote, urlsplit

import httpx
import stamina
import stamina.instrumentation

from trainops.argocd.errors import (
    ArgoCDError,
    AuthError,
    ConfigError,
    DeadlineError,
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
    ResourceActionRequest,
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
RUN_RESOURCE_ACTION = Endpoint(
    "POST",
    "/api/v1/applications/{name}/resource/actions/v2",
    body="applicationResourceActionRunRequestV2",
    response="applicationApplicationResponse",
    idempotent=False,
)
ENDPOINTS: tuple[Endpoint, ...] = (
    LIST_APPLICATIONS,
    GET_APPLICATION,
    RESOURCE_TREE,
    SYNC,
    DELETE_RESOURCE,
    RUN_RESOURCE_ACTION,
)
"""Every endpoint the client calls (checked against swagger.json by a test)."""


MAX_RESPONSE_BYTES = 64 * 1024 * 1024
"""Default cap on a response body, raw and decoded (64 MiB: an ApplicationList of a few thousand apps)."""

_ERROR_BODY_BYTES = 1024 * 1024
"""Cap on an error body (only its message is shown)."""

_DETAIL_CHARS = 200
"""A server's error message is cut to this many characters (after redaction)."""


@dataclass(frozen=True)
class ClientConfig:
    """Where and how to reach Argo CD.

    Args:
        server: base URL, e.g. ``https://argocd.example.com``; a bare host gets ``https://``. A user
            name or password in it is refused (never printed).
        token: the bearer token (an Argo CD API key or session token); surrounding whitespace (a
            trailing newline from a file) is stripped; never printed (``repr`` hides it).
        insecure: skip TLS certificate verification. Default: ``False``.
        ca_file: PEM file of CA certificates to trust instead of the system store. Default: none.
        timeout: seconds for each network operation (connect, each read, write, pool). Default: 10.
        attempts: total attempts of one call, retries included (>= 1). Default: 4.
        backoff: seconds before the first retry; doubles after each, capped at 8 s. Default: 0.5.
        deadline: seconds one call may take with all its retries, headers and body. Default: 60.
        max_response_bytes: largest body accepted, raw and decoded, in bytes. Default:
            :data:`MAX_RESPONSE_BYTES`.
    """

    server: str
    token: str = field(repr=False)
    insecure: bool = False
    ca_file: Path | None = None
    timeout: float = 10.0
    attempts: int = 4
    backoff: float = 0.5
    deadline: float = 60.0
    max_response_bytes: int = MAX_RESPONSE_BYTES


_USERINFO = re.compile(r"(?<=://)[^/?#]*@")


def display_server(server: str) -> str:
    """``server`` with any ``user:password@`` replaced by ``***@``: safe to print."""
    return _USERINFO.sub("***@", server)


def normalise_server(server: str) -> str:
    """Return ``server`` as a base URL without trailing slash; ``https://`` is added to a bare host.

    Raises:
        ConfigError: empty, a scheme other than http/https, no host, or a user name or password in
            the URL (Argo CD takes a bearer token; the password is not printed).
    """
    value = server.strip().rstrip("/")
    if not value:
        raise ConfigError("argocd: the server is empty; pass --server or set ARGOCD_SERVER")
    if "://" not in value:
        value = "https://" + value
    shown = display_server(value)
    try:
        parts = urlsplit(value)
        hostname = parts.hostname
    except ValueError:
        raise ConfigError(f"argocd: server {shown!r} is not an http(s) URL or host[:port]") from None
    if "@" in parts.netloc:
        raise ConfigError(
            f"argocd: server {shown!r} holds a user name or password (not printed); Argo CD takes a "
            "bearer token: pass it with --auth-token or ARGOCD_AUTH_TOKEN"
        )
    if parts.scheme not in ("http", "https") or not hostname:
        raise ConfigError(f"argocd: server {shown!r} is not an http(s) URL or host[:port]")
    return value


def clean_token(token: str) -> str:
    """``token`` without surrounding whitespace (a trailing newline read from a file).

    Raises:
        ConfigError: empty, or a character an HTTP header cannot carry (a control character, a
            space or non-ASCII) inside it; the message gives its position, never the token.
    """
    value = token.strip()
    if not value:
        raise ConfigError("argocd: no token; pass --auth-token or set ARGOCD_AUTH_TOKEN")
    for index, char in enumerate(value):
        if not "\x21" <= char <= "\x7e":
            raise ConfigError(
                f"argocd: the token has a character an HTTP header cannot carry (position {index + 1} "
                f"of {len(value)}); check --auth-token or ARGOCD_AUTH_TOKEN (the token is not printed)"
            )
    return value


class _Retryable(Exception):
    """A failure worth retrying; ``error`` is what to raise when the retries run out, ``report`` the
    client's ``on_retry`` callback."""

    def __init__(self, error: ArgoCDError, report: Callable[[str], None] | None = None) -> None:
        super().__init__(error.message)
        self.error = error
        self.report = report


class _RetryReporter:
    """The stamina on-retry hook: a retry of this client is one line through its ``on_retry``
    (stamina's own log record, which Python prints on stderr when logging is not configured, is not
    emitted); retries of anything else go to the hooks that were set before."""

    def __init__(self, others: tuple[Any, ...]) -> None:
        self.others = others

    def __call__(self, details: stamina.instrumentation.RetryDetails) -> None:
        cause = details.caused_by
        if isinstance(cause, _Retryable):
            if cause.report is not None:
                cause.report(f"{cause.error.message}; retry {details.retry_num} in {details.wait_for:.1f} s")
            return
        for hook in self.others:
            hook(details)


def _install_retry_reporter() -> None:
    hooks = stamina.instrumentation.get_on_retry_hooks()
    if not any(isinstance(hook, _RetryReporter) for hook in hooks):
        stamina.instrumentation.set_on_retry_hooks([_RetryReporter(hooks)])


class _DeadlinePassed(Exception):
    """The watchdog shut the connection down: the call's deadline passed."""


class _Watchdog:
    """Shut the request's socket down when ``seconds`` pass (a ``threading.Timer``), so no read can
    outlive the deadline; the socket is taken from httpcore's ``connection.connect_tcp`` trace event
    (connections are not kept alive, so each request makes one)."""

    def __init__(self, seconds: float) -> None:
        self._timer = threading.Timer(max(seconds, 0.0), self._fire)
        self._timer.daemon = True
        self._lock = threading.Lock()
        self._sock: socket.socket | None = None
        self.fired = False

    def trace(self, name: str, info: Mapping[str, Any]) -> None:
        """httpcore trace extension: remember the socket of a new connection."""
        if name != "connection.connect_tcp.complete":
            return
        stream = info.get("return_value")
        sock = stream.get_extra_info("socket") if stream is not None else None
        with self._lock:
            self._sock = sock if isinstance(sock, socket.socket) else None
            if self.fired:
                self._shutdown()

    def _fire(self) -> None:
        with self._lock:
            self.fired = True
            self._shutdown()

    def _shutdown(self) -> None:
        if self._sock is not None:
            with contextlib.suppress(OSError):
                self._sock.shutdown(socket.SHUT_RDWR)

    def __enter__(self) -> _Watchdog:
        self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._timer.cancel()


class _TooLarge(Exception):
    """The body passed the size cap."""


class ArgoCDClient:
    """Typed access to the endpoints in :data:`ENDPOINTS`. Use as a context manager (closes the pool).

    Args:
        config: server, token, TLS, retry and size settings.
        transport: an httpx transport to use instead of the network (tests). Default: none.
        on_retry: called with one line (the failure and the wait) each time a retry is scheduled.
            Default: none (retries are silent).
        total: seconds all calls of this client may take together (each still bounded by
            ``config.deadline``). Default: ``None`` (no bound beyond each call's).
        total_label: how a deadline error names ``total``, e.g. ``"--timeout 5 s"``. Default:
            ``"<total> s for the whole command"``.
        clock: monotonic time source in seconds. Default: ``time.monotonic``.

    Raises:
        ConfigError: bad server URL, empty or unsendable token, or an unreadable ``ca_file``.
    """

    def __init__(
        self,
        config: ClientConfig,
        *,
        transport: httpx.BaseTransport | None = None,
        on_retry: Callable[[str], None] | None = None,
        total: float | None = None,
        total_label: str = "",
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        secrets = {config.token, config.token.strip(), *_url_secrets(config.server)}
        self._secrets = tuple(sorted((s for s in secrets if s), key=lambda s: (-len(s), s)))
        self._base = normalise_server(config.server)
        token = clean_token(config.token)
        if config.attempts < 1:
            raise ConfigError(f"argocd: attempts must be >= 1, got {config.attempts}")
        if config.max_response_bytes < 1:
            raise ConfigError(f"argocd: max_response_bytes must be >= 1, got {config.max_response_bytes}")
        self._config = config
        self._on_retry = on_retry
        self._clock = clock
        self._end = None if total is None else clock() + total
        self._total_label = total_label or (f"{total:g} s for the whole command" if total is not None else "")
        verify: ssl.SSLContext | bool = not config.insecure
        if config.ca_file is not None and not config.insecure:
            try:
                verify = ssl.create_default_context(cafile=str(config.ca_file))
            except (OSError, ssl.SSLError) as exc:
                raise ConfigError(f"argocd: --ca-file {config.ca_file}: {_reason(exc)}") from None
        _install_retry_reporter()
        self._http = httpx.Client(
            base_url=self._base,
            headers={
                "Authorization": f"Bearer {token}",
                "Accept": "application/json",
                "Accept-Encoding": "gzip",
            },
            timeout=config.timeout,
            verify=verify,
            transport=transport,
            follow_redirects=False,
            limits=httpx.Limits(max_keepalive_connections=0),
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
        """``GET /api/v1/applications/{name}``. Raises :class:`AuthError` for an app that does not
        exist or the token may not see (Argo CD answers 403 for both)."""
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

    def run_resource_action(self, request: ResourceActionRequest) -> None:
        """``POST /api/v1/applications/{name}/resource/actions/v2`` (``RunResourceActionV2``, the
        endpoint swagger documents; the v1 ``resource/actions`` is deprecated): run a resource action,
        e.g. ``resume`` on a Rollout. Not retried on a 5xx answer (the action may have run)."""
        params = {"name": request.name}
        self._call(RUN_RESOURCE_ACTION, params, body=dump_model(request))

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
        start = self._clock()
        end = start + config.deadline
        limit = f"--deadline {config.deadline:g} s"
        if self._end is not None and self._end < end:
            end, limit = self._end, self._total_label
        budget = end - start
        last: list[ArgoCDError] = []  # the failures retried so far
        try:
            for attempt in stamina.retry_context(
                on=_Retryable,
                attempts=config.attempts,
                timeout=max(budget, 0.0),
                wait_initial=config.backoff,
                wait_max=max(config.backoff, 8.0),
                wait_jitter=config.backoff / 2,
            ):
                with attempt:
                    if last and self._clock() >= end:  # the wait before this retry used the time up
                        raise last[-1]
                    try:
                        return self._once(endpoint, where, url, query, body, end, limit)
                    except _Retryable as exc:
                        last.append(exc.error)
                        raise
        except _Retryable as exc:
            raise exc.error from None
        raise TransportError(f"{where}: no attempt was made")  # pragma: no cover - attempts >= 1

    def _deadline_error(self, where: str, limit: str) -> DeadlineError:
        return DeadlineError(
            f"{where}: no complete answer from {display_server(self._base)} before the deadline ({limit})"
        )

    def _once(
        self,
        endpoint: Endpoint,
        where: str,
        url: str,
        query: Mapping[str, str | list[str]] | None,
        body: dict[str, Any] | None,
        end: float,
        limit: str,
    ) -> Any:
        remaining = end - self._clock()
        if remaining <= 0:
            raise self._deadline_error(where, limit)
        per_operation = min(self._config.timeout, remaining) if self._config.timeout > 0 else remaining
        headers = {"Content-Type": "application/json"} if endpoint.method != "GET" else {}
        content = json.dumps(body).encode() if body is not None else None
        watchdog = _Watchdog(remaining)
        request = self._http.build_request(
            endpoint.method,
            url,
            params=query,
            content=content,
            headers=headers,
            timeout=per_operation,
            extensions={"trace": watchdog.trace},
        )
        try:
            with watchdog:
                response = self._http.send(request, stream=True)
                try:
                    status = response.status_code
                    if 200 <= status < 300:
                        raw = self._read(where, response, self._config.max_response_bytes, end, watchdog)
                    elif 300 <= status < 400:
                        raise self._redirect_error(where, response)
                    else:
                        try:
                            raw = self._read(where, response, _ERROR_BODY_BYTES, end, watchdog)
                        except (_TooLarge, InvalidResponseError):
                            raw = b""
                finally:
                    response.close()
        except httpx.HTTPError as exc:
            if watchdog.fired or self._clock() >= end:
                raise self._deadline_error(where, limit) from None
            raise self._transport_error(endpoint, where, exc) from None
        except _DeadlinePassed:
            raise self._deadline_error(where, limit) from None
        except _TooLarge:
            raise InvalidResponseError(
                f"{where}: the {status} response is larger than {self._config.max_response_bytes} bytes; "
                "refused"
            ) from None
        if not 200 <= status < 300:  # only a 2xx answer is a success
            error = self._http_error(where, response, raw)
            if status >= 500 and endpoint.idempotent:
                raise _Retryable(error, self._on_retry)
            raise error
        if not raw.strip() and endpoint.method == "DELETE":
            return {}
        return self._decode(where, status, raw)

    def _read(
        self, where: str, response: httpx.Response, limit: int, end: float, watchdog: _Watchdog
    ) -> bytes:
        """The body, decoded (identity, gzip or deflate) while it streams, at most ``limit`` bytes
        raw and decoded; raises :class:`_TooLarge` past it, :class:`_DeadlinePassed` past ``end``."""
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > limit:
            raise _TooLarge
        encoding = response.headers.get("content-encoding", "identity").strip().lower()
        if encoding in ("", "identity"):
            decoder = None
        elif encoding in ("gzip", "x-gzip", "deflate"):
            decoder = zlib.decompressobj(wbits=zlib.MAX_WBITS | 32)  # gzip or zlib header
        else:
            raise InvalidResponseError(
                f"{where}: the response has Content-Encoding {encoding[:40]!r}, which trainops does not decode"
            )
        out = bytearray()
        received = 0
        if response.is_stream_consumed:  # an in-memory transport read it already (and decoded it)
            decoder, chunks = None, iter([response.content])
        else:
            chunks = response.iter_raw()
        try:
            for chunk in chunks:
                if watchdog.fired or self._clock() >= end:
                    raise _DeadlinePassed
                received += len(chunk)
                if received > limit:
                    raise _TooLarge
                if decoder is None:
                    out += chunk
                else:
                    pending = chunk
                    while pending and not decoder.eof:
                        out += decoder.decompress(pending, limit + 1 - len(out))
                        if len(out) > limit:
                            raise _TooLarge
                        pending = decoder.unconsumed_tail
                if len(out) > limit:
                    raise _TooLarge
        except zlib.error as exc:
            raise InvalidResponseError(f"{where}: the {encoding} response body is corrupt: {exc}") from None
        return bytes(out)

    def _decode(self, where: str, status: int, raw: bytes) -> Any:
        try:
            text = raw.decode("utf-8")
            data = json.loads(text)
        except RecursionError:
            raise InvalidResponseError(
                f"{where}: the {status} response nests JSON arrays or objects too deeply to read"
            ) from None
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise InvalidResponseError(
                self._redact(f"{where}: invalid JSON in the {status} response: {exc}")
            ) from None
        if any(secret in text for secret in self._secrets):
            data = _scrub(data, self._redact)
        return data

    def _redirect_error(self, where: str, response: httpx.Response) -> ArgoCDError:
        location = self._redact(response.headers.get("location", ""))[:_DETAIL_CHARS]
        target = f" to {display_server(location)!r}" if location else ""
        status = f"{response.status_code} {response.reason_phrase}".strip()
        return TransportError(
            f"{where}: {status}: the server redirects{target}, which trainops does not follow; "
            "pass the URL Argo CD serves its API at as --server (https:// rather than http://?)"
        )

    def _transport_error(
        self, endpoint: Endpoint, where: str, exc: httpx.HTTPError
    ) -> ArgoCDError | _Retryable:
        base = display_server(self._base)
        ssl_error = _ssl_cause(exc)
        if ssl_error is not None:
            return TLSError(
                self._redact(
                    f"{where}: TLS verification of {base} failed: {_reason(ssl_error)}; "
                    "pass --ca-file with the server's CA, or --insecure to skip verification"
                )
            )
        if isinstance(exc, httpx.TimeoutException):
            error = TransportError(
                f"{where}: timed out after {self._config.timeout:g} s ({type(exc).__name__}) at {base}"
            )
        else:
            error = TransportError(self._redact(f"{where}: cannot reach {base}: {_reason(exc)}"))
        not_sent = isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout)
        if endpoint.idempotent or not_sent:
            return _Retryable(error, self._on_retry)
        return error

    def _http_error(self, where: str, response: httpx.Response, raw: bytes) -> ArgoCDError:
        detail = self._redact(_server_message(raw))[:_DETAIL_CHARS]
        status = f"{response.status_code} {response.reason_phrase}".strip()
        suffix = f": {detail}" if detail else ""
        if response.status_code == 401:
            text = f"{where}: {status}{suffix}; the token is missing, expired or invalid (ARGOCD_AUTH_TOKEN)"
            return AuthError(self._redact(text))
        if response.status_code == 403:
            return AuthError(
                self._redact(
                    f"{where}: {status}{suffix}; not found, or not permitted (Argo CD answers 403 for both)"
                )
            )
        if response.status_code == 404:
            return NotFoundError(self._redact(f"{where}: {status}{suffix}"))
        if response.status_code == 415:
            return TransportError(
                self._redact(f"{where}: {status}{suffix}; the server refused the request's Content-Type")
            )
        return TransportError(self._redact(f"{where}: {status}{suffix}"))

    def _redact(self, text: str) -> str:
        for secret in self._secrets:
            text = text.replace(secret, "***")
        return text


def _url_secrets(server: str) -> tuple[str, ...]:
    """The user name and password in ``server`` (and their %-decoded forms), to redact."""
    match = _USERINFO.search(server if "://" in server else "https://" + server)
    if match is None:
        return ()

    userinfo = match.group(0)[:-1]
    parts = [userinfo, *userinfo.split(":", 1)]
    return tuple(p for part in parts for p in {part, unquote(part)} if len(p) >= 3)


def _scrub(data: Any, redact: Callable[[str], str]) -> Any:
    """``data`` with ``redact`` applied to every string value (iterative: any depth)."""
    root: list[Any] = [data]
    stack: list[tuple[Any, Any]] = [(root, 0)]
    while stack:
        holder, key = stack.pop()
        value = holder[key]
        if isinstance(value, str):
            holder[key] = redact(value)
        elif isinstance(value, dict):
            stack.extend((value, k) for k in value)
        elif isinstance(value, list):
            stack.extend((value, i) for i in range(len(value)))
    return root[0]


def _ns(app_namespace: str) -> dict[str, str | list[str]]:
    return {"appNamespace": app_namespace} if app_namespace else {}


def _where(endpoint: Endpoint, params: Mapping[str, str]) -> str:
    return f"argocd: {endpoint.method} {endpoint.path.format(**params)}"


def _server_message(raw: bytes) -> str:
    """The message of an error body (``runtimeError``), or its text; ``""`` when there is none."""
    text = raw.decode("utf-8", "replace")
    try:
        body = json.loads(text)
    except (ValueError, RecursionError):
        return " ".join(text.split())
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
