"""The Argo CD client's errors, retries, timeouts and TLS against local fake servers; the token never leaks."""

from __future__ import annotations

import logging
import socket
import ssl
import time
from collections.abc import Iterator
from pathlib import Path

import fakeargocd as fake
import pytest
import trustme
from fakeargocd import TOKEN
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from trainops.argocd import commands
from trainops.argocd.client import ArgoCDClient, ClientConfig
from trainops.argocd.commands import ConnectionOptions, StatusOptions, SyncOptions
from trainops.argocd.errors import (
    ArgoCDError,
    AuthError,
    ConfigError,
    InvalidResponseError,
    NotFoundError,
    TLSError,
    TransportError,
)
from trainops.argocd.models import SyncRequest

APP = "/api/v1/applications/train"


@pytest.fixture
def connection(httpserver: HTTPServer) -> ConnectionOptions:
    """Connection options for the fake Argo CD on 127.0.0.1 (pytest-httpserver, plain HTTP)."""
    return fake.connection_options(httpserver.url_for("/"))


def _config(connection: ConnectionOptions) -> ClientConfig:
    return commands.client_config(connection, {})


def _fail(config: ClientConfig, call: str = "get") -> ArgoCDError:
    with ArgoCDClient(config) as client, pytest.raises(ArgoCDError) as info:
        if call == "get":
            client.get_application("train")
        else:
            client.sync(SyncRequest(name="train"))
    error = info.value
    text = f"{error}|{error!r}|{error.args}|{error.__cause__!r}|{error.__context__!r}"
    assert TOKEN not in text
    assert "\n" not in str(error)
    assert error.exit_code == 2
    return error


@pytest.fixture(autouse=True)
def _no_token_in_logs(caplog: pytest.LogCaptureFixture) -> Iterator[None]:
    caplog.set_level(logging.DEBUG)
    yield
    assert TOKEN not in caplog.text
    assert all(TOKEN not in repr(record.__dict__) for record in caplog.records)


@pytest.mark.parametrize(
    ("status", "body", "error_type", "message"),
    [
        (
            401,
            fake.error_body(f"invalid session: token {TOKEN} has expired", 16),
            AuthError,
            "argocd: GET /api/v1/applications/train: 401 UNAUTHORIZED: invalid session: token *** has expired; "
            "the token is missing, expired or invalid (ARGOCD_AUTH_TOKEN)",
        ),
        (
            403,
            fake.error_body("permission denied: applications, get, ml/train, sub: ci", 7),
            AuthError,
            "argocd: GET /api/v1/applications/train: 403 FORBIDDEN: permission denied: applications, get, ml/train, "
            "sub: ci; not found, or not permitted (Argo CD answers 403 for both)",
        ),
        (
            404,
            fake.error_body('applications.argoproj.io "train" not found', 5),
            NotFoundError,
            'argocd: GET /api/v1/applications/train: 404 NOT FOUND: applications.argoproj.io "train" not found',
        ),
    ],
)
def test_http_errors_are_one_line(
    httpserver: HTTPServer,
    connection: ConnectionOptions,
    status: int,
    body: dict[str, object],
    error_type: type[ArgoCDError],
    message: str,
) -> None:
    httpserver.expect_request(APP).respond_with_json(body, status=status)
    error = _fail(_config(connection))
    assert type(error) is error_type
    assert str(error) == message
    assert len(httpserver.log) == 1  # 4xx is not retried


def test_command_prints_one_line_and_exits_2_on_401(
    httpserver: HTTPServer, connection: ConnectionOptions, capsys: pytest.CaptureFixture[str]
) -> None:
    httpserver.expect_request(APP).respond_with_json(fake.error_body(f"bad token {TOKEN}", 16), status=401)
    assert commands.run_status(StatusOptions(app="train", connection=connection), {}) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1
    assert captured.err.startswith("argocd: GET /api/v1/applications/train: 401")
    assert TOKEN not in captured.err


def test_5xx_is_retried_then_succeeds(httpserver: HTTPServer, connection: ConnectionOptions) -> None:
    httpserver.expect_ordered_request(APP).respond_with_json(
        fake.error_body("etcd leader changed", 14), status=503
    )
    httpserver.expect_ordered_request(APP).respond_with_data("upstream connect error", status=502)
    httpserver.expect_ordered_request(APP).respond_with_json(fake.application())
    with ArgoCDClient(_config(connection)) as client:
        app = client.get_application("train")
    assert (app.name, app.health.status, app.sync.status) == ("train", "Healthy", "Synced")
    assert len(httpserver.log) == 3


def test_5xx_retries_are_bounded(httpserver: HTTPServer, connection: ConnectionOptions) -> None:
    httpserver.expect_request(APP).respond_with_json(fake.error_body("internal error", 13), status=500)
    error = _fail(_config(connection))
    assert type(error) is TransportError
    assert str(error) == "argocd: GET /api/v1/applications/train: 500 INTERNAL SERVER ERROR: internal error"
    assert len(httpserver.log) == 3  # 1 attempt + 2 retries


def test_sync_post_is_not_retried_after_a_5xx(httpserver: HTTPServer, connection: ConnectionOptions) -> None:
    httpserver.expect_request(f"{APP}/sync", method="POST").respond_with_json(
        fake.error_body("boom", 13), status=500
    )
    error = _fail(_config(connection), call="sync")
    assert type(error) is TransportError
    assert len(httpserver.log) == 1


def test_sync_command_exits_2_on_server_error(
    httpserver: HTTPServer, connection: ConnectionOptions, capsys: pytest.CaptureFixture[str]
) -> None:
    httpserver.expect_request(f"{APP}/sync", method="POST").respond_with_json(
        fake.error_body("another operation is already in progress", 9), status=400
    )
    assert commands.run_sync(SyncOptions(app="train", connection=connection), {}) == 2
    assert capsys.readouterr().err == (
        "argocd: POST /api/v1/applications/train/sync: 400 BAD REQUEST: another operation is already in progress\n"
    )


def test_slow_server_times_out(httpserver: HTTPServer, connection: ConnectionOptions) -> None:
    def slow(request: Request) -> Response:
        time.sleep(0.4)
        return Response("{}", content_type="application/json")

    httpserver.expect_request(APP).respond_with_handler(slow)
    config = commands.client_config(
        ConnectionOptions(
            server=connection.server, auth_token=TOKEN, request_timeout=0.1, retries=1, backoff=0.01
        ),
        {},
    )
    started = time.monotonic()
    error = _fail(config)
    assert type(error) is TransportError
    assert str(error).startswith(
        "argocd: GET /api/v1/applications/train: timed out after 0.1 s (ReadTimeout)"
    )
    assert len(httpserver.log) <= 2
    assert time.monotonic() - started < 2.0


def test_total_deadline_bounds_retries(httpserver: HTTPServer, connection: ConnectionOptions) -> None:
    httpserver.expect_request(APP).respond_with_json(fake.error_body("unavailable", 14), status=503)
    options = ConnectionOptions(
        server=connection.server, auth_token=TOKEN, retries=50, backoff=0.05, deadline=0.3
    )
    started = time.monotonic()
    error = _fail(commands.client_config(options, {}))
    assert type(error) is TransportError
    assert str(error) == "argocd: GET /api/v1/applications/train: 503 SERVICE UNAVAILABLE: unavailable"
    assert time.monotonic() - started < 1.5
    assert len(httpserver.log) < 50


@pytest.mark.parametrize(
    ("body", "content_type", "message"),
    [
        ("<html>login</html>", "text/html", "invalid JSON in the 200 response"),
        ('{"metadata": ', "application/json", "invalid JSON in the 200 response"),
        ("[1, 2]", "application/json", "expected a JSON object, got an array"),
        (
            '{"status": {"resources": {"a": 1}}}',
            "application/json",
            "status.resources is an object, expected an array",
        ),
    ],
)
def test_invalid_json_is_a_one_line_error(
    httpserver: HTTPServer, connection: ConnectionOptions, body: str, content_type: str, message: str
) -> None:
    httpserver.expect_request(APP).respond_with_data(body, content_type=content_type)
    error = _fail(_config(connection))
    assert type(error) is InvalidResponseError
    assert message in str(error)


def test_connection_refused_is_retried_then_reported(connection: ConnectionOptions) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    options = ConnectionOptions(server=f"http://127.0.0.1:{port}", auth_token=TOKEN, retries=1, backoff=0.01)
    error = _fail(commands.client_config(options, {}))
    assert type(error) is TransportError
    assert str(error).startswith(
        f"argocd: GET /api/v1/applications/train: cannot reach http://127.0.0.1:{port}:"
    )


@pytest.fixture(scope="module")
def ca() -> trustme.CA:
    return trustme.CA()


@pytest.fixture
def https_server(ca: trustme.CA) -> Iterator[HTTPServer]:
    """A fake Argo CD over HTTPS on 127.0.0.1 with a certificate from a throw-away CA."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ca.issue_cert("127.0.0.1").configure_cert(context)
    server = HTTPServer(host="127.0.0.1", port=0, ssl_context=context)
    server.expect_request(APP).respond_with_json(fake.application())
    server.start()
    try:
        yield server
    finally:
        server.clear()
        if server.is_running():
            server.stop()


def _https(server: HTTPServer, **kwargs: object) -> ConnectionOptions:
    return ConnectionOptions(
        server=f"https://127.0.0.1:{server.port}", auth_token=TOKEN, retries=2, backoff=0.01, **kwargs
    )  # type: ignore[arg-type]


def test_tls_verification_failure_is_not_retried(https_server: HTTPServer) -> None:
    error = _fail(commands.client_config(_https(https_server), {}))
    assert type(error) is TLSError
    assert str(error) == (
        f"argocd: GET /api/v1/applications/train: TLS verification of https://127.0.0.1:{https_server.port} failed: "
        "unable to get local issuer certificate; pass --ca-file with the server's CA, or --insecure to skip verification"
    )
    assert len(https_server.log) == 0


def test_tls_with_ca_file_succeeds(https_server: HTTPServer, ca: trustme.CA, tmp_path: Path) -> None:
    ca_file = tmp_path / "ca.pem"
    ca.cert_pem.write_to_path(str(ca_file))
    with ArgoCDClient(commands.client_config(_https(https_server, ca_file=ca_file), {})) as client:
        assert client.get_application("train").name == "train"


def test_tls_insecure_skips_verification(https_server: HTTPServer) -> None:
    with ArgoCDClient(commands.client_config(_https(https_server, insecure=True), {})) as client:
        assert client.get_application("train").health.status == "Healthy"


def test_tls_failure_through_the_command(
    https_server: HTTPServer, capsys: pytest.CaptureFixture[str]
) -> None:
    assert commands.run_status(StatusOptions(app="train", connection=_https(https_server)), {}) == 2
    captured = capsys.readouterr()
    assert "TLS verification" in captured.err
    assert TOKEN not in captured.out + captured.err


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (
            ConnectionOptions(server="x", auth_token=TOKEN, ca_file=Path("/nonexistent/ca.pem")),
            "argocd: --ca-file /nonexistent/ca.pem: no such file",
        ),
        (
            ConnectionOptions(server="x", auth_token=TOKEN, retries=-1),
            "argocd: --retries must be >= 0, got -1",
        ),
        (
            ConnectionOptions(server="x", auth_token=TOKEN, request_timeout=-1),
            "argocd: --request-timeout must be >= 0, got -1",
        ),
    ],
)
def test_bad_connection_options(options: ConnectionOptions, message: str) -> None:
    with pytest.raises(ConfigError) as info:
        commands.client_config(options, {})
    assert str(info.value) == message


def test_unreadable_ca_file_is_a_config_error(tmp_path: Path) -> None:
    bad = tmp_path / "ca.pem"
    bad.write_text("not a certificate\n")
    with pytest.raises(ConfigError, match=r"^argocd: --ca-file .*ca\.pem: "):
        ArgoCDClient(ClientConfig(server="https://127.0.0.1:1", token=TOKEN, ca_file=bad))
