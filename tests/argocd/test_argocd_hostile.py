"""The Argo CD client against hostile or misbehaving servers (issue 25 points 1, 5, 6; issue 27):
slow and silent servers end by the deadline, bodies are capped raw and decoded, redirects are
errors, deep JSON is an error, and no token or password is printed. Every server listens on
127.0.0.1 only and every test is bounded to a few seconds."""

from __future__ import annotations

import contextlib
import functools
import gzip
import json
import socket
import threading
import time
import tracemalloc
import zlib
from collections.abc import Callable, Iterator

import fakeargocd as fake
import httpx
import pytest
from fakeargocd import TOKEN
from pytest_httpserver import HTTPServer
from werkzeug import Response

from trainops.argocd import commands
from trainops.argocd.client import ArgoCDClient, ClientConfig
from trainops.argocd.commands import (
    ConnectionOptions,
    PruneFinishedOptions,
    RunsOptions,
    StatusOptions,
    SyncOptions,
    WaitOptions,
)
from trainops.argocd.errors import ArgoCDError, ConfigError, InvalidResponseError, TransportError
from trainops.argocd.models import SyncRequest

APP = "/api/v1/applications/train"
TREE = "/api/v1/applications/train/resource-tree"
NO_ENV: dict[str, str] = {}


@pytest.fixture
def connection(httpserver: HTTPServer) -> ConnectionOptions:
    return fake.connection_options(httpserver.url_for("/"))


def _streams(capsys: pytest.CaptureFixture[str]) -> tuple[str, str]:
    captured = capsys.readouterr()
    assert TOKEN not in captured.out + captured.err
    assert TOKEN[:10] not in captured.out + captured.err
    return captured.out, captured.err


# -- a raw TCP server for answers no HTTP framework sends ------------------------------------


@pytest.fixture
def raw_server() -> Iterator[Callable[[Callable[[socket.socket], None]], str]]:
    """Start a server on 127.0.0.1 whose ``handler(conn)`` writes whatever bytes it likes; returns
    its URL. Connections are closed and the threads stop when the test ends."""
    stop = threading.Event()
    sockets: list[socket.socket] = []

    def start(handler: Callable[[socket.socket], None]) -> str:
        listener = socket.socket()
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        listener.settimeout(0.1)
        sockets.append(listener)

        def serve() -> None:
            while not stop.is_set():
                try:
                    conn, _ = listener.accept()
                except OSError:
                    continue
                sockets.append(conn)
                conn.settimeout(5)
                _read_request(conn)
                threading.Thread(target=_guarded, args=(handler, conn), daemon=True).start()

        threading.Thread(target=serve, daemon=True).start()
        return f"http://127.0.0.1:{listener.getsockname()[1]}"

    yield start
    stop.set()
    for sock in sockets:
        sock.close()


def _read_request(conn: socket.socket) -> None:
    data = b""
    while b"\r\n\r\n" not in data:
        try:
            chunk = conn.recv(65536)
        except OSError:
            return
        if not chunk:
            return
        data += chunk


def _guarded(handler: Callable[[socket.socket], None], conn: socket.socket) -> None:
    with contextlib.suppress(OSError):  # the client hung up: what these tests want
        handler(conn)


def _options(url: str, **kwargs: object) -> ConnectionOptions:
    values: dict[str, object] = {
        "server": url,
        "auth_token": TOKEN,
        "request_timeout": 5.0,
        "retries": 2,
        "backoff": 0.01,
        "deadline": 1.0,
    }
    values.update(kwargs)
    return ConnectionOptions(**values)  # type: ignore[arg-type]


def _trickle(conn: socket.socket) -> None:
    """One byte every 0.2 s, the status line and headers included."""
    answer = (
        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 5000\r\n\r\n" + b" " * 5000
    )
    for byte in answer:
        conn.sendall(bytes([byte]))
        time.sleep(0.2)


def _silent(conn: socket.socket) -> None:
    time.sleep(8)


def test_status_deadline_covers_a_trickling_server(
    raw_server: Callable[[Callable[[socket.socket], None]], str], capsys: pytest.CaptureFixture[str]
) -> None:
    """issue 27: `status --deadline 10` against one byte every 2 s ran past 70 s (scaled down here)."""
    url = raw_server(_trickle)
    started = time.monotonic()
    code = commands.run_status(StatusOptions(app="train", connection=_options(url, deadline=1.0)), NO_ENV)
    elapsed = time.monotonic() - started
    _, err = _streams(capsys)
    assert code == 2
    assert elapsed < 3.0  # deadline 1 s; loose for a loaded machine
    assert err.startswith("argocd: GET /api/v1/applications/train: no complete answer from http://127.0.0.1:")
    assert err.endswith(" before the deadline (--deadline 1 s)\n")


def test_wait_timeout_covers_a_silent_server(
    raw_server: Callable[[Callable[[socket.socket], None]], str], capsys: pytest.CaptureFixture[str]
) -> None:
    """issue 27: `wait --timeout 5` against a silent server returned after 44 s (scaled down here)."""
    url = raw_server(_silent)
    options = WaitOptions(
        app="train", connection=_options(url, deadline=60.0, request_timeout=10.0), timeout=1.0
    )
    started = time.monotonic()
    code = commands.run_wait(options, NO_ENV)
    elapsed = time.monotonic() - started
    _, err = _streams(capsys)
    assert code == 2
    assert elapsed < 3.0  # deadline 1 s; loose for a loaded machine
    assert err.endswith(" before the deadline (--timeout 1 s)\n")


@functools.cache
def _bomb() -> bytes:
    """64 MiB of JSON as about 64 KiB of gzip, compressed a megabyte at a time."""
    packer = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS | 16)
    parts = [packer.compress(b'{"metadata": {"name": "')]
    block = b"a" * (1 << 20)
    parts += [packer.compress(block) for _ in range(64)]
    parts += [packer.compress(b'"}}'), packer.flush()]
    return b"".join(parts)


def _gzip_bomb(conn: socket.socket) -> None:
    body = _bomb()
    head = (
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    )
    conn.sendall(head.encode() + body)


def _endless_chunks(conn: socket.socket) -> None:
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
    chunk = b"[" * 65536
    while True:
        conn.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))


@pytest.mark.parametrize("handler", [_gzip_bomb, _endless_chunks], ids=["gzip-bomb", "endless-chunked"])
def test_body_is_capped_while_it_streams(
    raw_server: Callable[[Callable[[socket.socket], None]], str], handler: Callable[[socket.socket], None]
) -> None:
    """issue 27: a 1 MB gzip body inflated to 3.1 GB; an endless chunked body ran into MemoryError."""
    _bomb()  # made before memory is traced
    url = raw_server(handler)
    config = ClientConfig(server=url, token=TOKEN, attempts=1, deadline=5.0, max_response_bytes=1 << 20)
    tracemalloc.start()
    try:
        with ArgoCDClient(config) as client, pytest.raises(InvalidResponseError) as info:
            client.get_application("train")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert str(info.value) == (
        "argocd: GET /api/v1/applications/train: the 200 response is larger than 1048576 bytes; refused"
    )
    assert peak < 16 << 20


def test_gzip_body_within_the_cap_is_decoded(httpserver: HTTPServer, connection: ConnectionOptions) -> None:
    body = gzip.compress(json.dumps(fake.application()).encode())
    httpserver.expect_request(APP).respond_with_data(
        body, headers={"Content-Encoding": "gzip"}, content_type="application/json"
    )
    with ArgoCDClient(commands.client_config(connection, NO_ENV)) as client:
        assert client.get_application("train").health.status == "Healthy"


def test_unknown_content_encoding_is_an_error(httpserver: HTTPServer, connection: ConnectionOptions) -> None:
    httpserver.expect_request(APP).respond_with_data(
        b"\x00\x01", headers={"Content-Encoding": "br"}, content_type="application/json"
    )
    with (
        ArgoCDClient(commands.client_config(connection, NO_ENV)) as client,
        pytest.raises(InvalidResponseError, match="Content-Encoding 'br', which trainops does not decode"),
    ):
        client.get_application("train")


def test_deeply_nested_json_is_a_one_line_error(
    httpserver: HTTPServer, connection: ConnectionOptions
) -> None:
    """issue 27: a 200,000-deep JSON body exited 3 with RecursionError."""
    httpserver.expect_request(APP).respond_with_data(
        "[" * 200_000 + "]" * 200_000, content_type="application/json"
    )
    with (
        ArgoCDClient(commands.client_config(connection, NO_ENV)) as client,
        pytest.raises(InvalidResponseError) as info,
    ):
        client.get_application("train")
    assert str(info.value) == (
        "argocd: GET /api/v1/applications/train: the 200 response nests JSON arrays or objects too deeply to read"
    )


# -- redirects, content type, 403 --------------------------------------------------------------


@pytest.mark.parametrize("status", [301, 302, 307, 308])
def test_redirect_to_sync_is_not_success(
    httpserver: HTTPServer, connection: ConnectionOptions, capsys: pytest.CaptureFixture[str], status: int
) -> None:
    """issue 27: a 302 answer to `sync` was reported as "sync of demo requested" with exit 0."""
    httpserver.expect_request(f"{APP}/sync", method="POST").respond_with_response(
        Response("", status=status, headers={"Location": "https://argocd.example.com/login"})
    )
    code = commands.run_sync(SyncOptions(app="train", connection=connection), NO_ENV)
    out, err = _streams(capsys)
    assert code == 2
    assert out == ""
    assert err.startswith(f"argocd: POST /api/v1/applications/train/sync: {status} ")
    assert "redirects to 'https://argocd.example.com/login', which trainops does not follow" in err
    assert len(httpserver.log) == 1  # not followed, not retried


def test_every_non_get_request_is_json(
    httpserver: HTTPServer, connection: ConnectionOptions, capsys: pytest.CaptureFixture[str]
) -> None:
    """issue 25.1: argocd-server answered prune-finished's DELETE with 415; the fake now does too."""
    httpserver.expect_request(APP).respond_with_json(
        fake.application(
            resources=[fake.resource("Job", "prep-data-123abc", group="batch", requires_pruning=True)]
        )
    )
    httpserver.expect_request(TREE).respond_with_json(
        {"nodes": [fake.node("Job", "prep-data-123abc", "Healthy", group="batch")]}
    )
    httpserver.expect_request(f"{APP}/resource", method="DELETE").respond_with_json({})
    httpserver.expect_request(f"{APP}/sync", method="POST").respond_with_json(fake.application())
    assert commands.run_prune_finished(PruneFinishedOptions(app="train", connection=connection), NO_ENV) == 0
    assert commands.run_sync(SyncOptions(app="train", connection=connection), NO_ENV) == 0
    out, _ = _streams(capsys)
    assert "deleted batch/Job ml-team/prep-data-123abc (Succeeded)" in out
    sent = [(req.method, req.headers.get("Content-Type"), resp.status_code) for req, resp in httpserver.log]
    assert sent == [
        ("GET", None, 200),
        ("GET", None, 200),
        ("DELETE", "application/json", 200),
        ("POST", "application/json", 200),
    ]


@pytest.mark.parametrize("content_type", [None, "text/plain", "application/x-www-form-urlencoded"])
def test_fake_refuses_non_json_writes_as_argocd_server_does(
    httpserver: HTTPServer, content_type: str | None
) -> None:
    httpserver.expect_request(f"{APP}/resource", method="DELETE").respond_with_json({})
    headers = {"Content-Type": content_type} if content_type else {}
    answer = httpx.delete(httpserver.url_for(f"{APP}/resource"), headers=headers, timeout=2)
    assert (answer.status_code, answer.text) == (415, "Invalid content type\n")


def test_missing_application_is_not_found_or_not_permitted(
    httpserver: HTTPServer, connection: ConnectionOptions, capsys: pytest.CaptureFixture[str]
) -> None:
    """issue 25.5: Argo CD answers 403 for an application that does not exist."""
    code = commands.run_status(StatusOptions(app="nope", connection=connection), NO_ENV)
    _, err = _streams(capsys)
    assert code == 2
    assert err == (
        "argocd: GET /api/v1/applications/nope: 403 FORBIDDEN: permission denied; "
        "not found, or not permitted (Argo CD answers 403 for both)\n"
    )


# -- no token, no password ---------------------------------------------------------------------


def test_token_ending_in_a_newline_is_stripped(httpserver: HTTPServer) -> None:
    """issue 27: a token ending in a newline was printed in "Illegal header value b'Bearer ...'"."""
    httpserver.expect_request(APP, headers={"Authorization": f"Bearer {TOKEN}"}).respond_with_json(
        fake.application()
    )
    env = {"ARGOCD_SERVER": httpserver.url_for("/"), "ARGOCD_AUTH_TOKEN": TOKEN + "\n"}
    with ArgoCDClient(commands.client_config(ConnectionOptions(), env)) as client:
        assert client.get_application("train").name == "train"


@pytest.mark.parametrize(
    "token", [f"{TOKEN[:8]}\n{TOKEN[8:]}", f"{TOKEN} extra", f"{TOKEN}\x7f", f"{TOKEN}é"]
)
def test_unsendable_token_is_refused_without_echo(token: str) -> None:
    with pytest.raises(ConfigError) as info:
        ArgoCDClient(ClientConfig(server="http://127.0.0.1:1", token=token))
    message = str(info.value)
    assert message.startswith("argocd: the token has a character an HTTP header cannot carry (position ")
    assert TOKEN[:8] not in message and TOKEN[8:] not in message


def test_401_body_is_redacted_before_it_is_cut(
    httpserver: HTTPServer, connection: ConnectionOptions, capsys: pytest.CaptureFixture[str]
) -> None:
    """issue 27: a 401 body was cut to 200 characters before the token was replaced."""
    httpserver.expect_request(APP).respond_with_data("x" * 190 + f" token {TOKEN} rejected", status=401)
    assert commands.run_status(StatusOptions(app="train", connection=connection), NO_ENV) == 2
    _, err = _streams(capsys)
    assert err.startswith(
        "argocd: GET /api/v1/applications/train: 401 UNAUTHORIZED: " + "x" * 190 + " token ***"
    )
    assert TOKEN[:4] not in err


def test_token_echoed_in_health_and_operation_messages_is_redacted(
    httpserver: HTTPServer, connection: ConnectionOptions, capsys: pytest.CaptureFixture[str]
) -> None:
    app = fake.application(
        health="Degraded", health_message=f"auth {TOKEN} refused", operation_phase="Failed"
    )
    app["status"]["operationState"]["message"] = f"sync with Bearer {TOKEN} failed"
    httpserver.expect_request(APP).respond_with_json(app)
    httpserver.expect_request(TREE).respond_with_json(
        {"nodes": [fake.node("Job", "prep-data-123abc", "Degraded", f"pull with {TOKEN}", group="batch")]}
    )
    httpserver.expect_request(f"{APP}/sync", method="POST").respond_with_json(app)
    assert commands.run_status(StatusOptions(app="train", connection=connection), NO_ENV) == 0
    assert commands.run_sync(SyncOptions(app="train", connection=connection), NO_ENV) == 0
    assert commands.run_wait(WaitOptions(app="train", connection=connection, timeout=1), NO_ENV) == 1
    out, err = _streams(capsys)
    assert "health Degraded (auth *** refused)" in out
    assert "operation Failed: sync with Bearer *** failed" in out + err


@pytest.mark.parametrize(
    "server",
    [
        "http://admin:hunter2-Pa55@127.0.0.1:1",
        "https://admin:hunter2-Pa55@argocd.example.com",
        "admin:hunter2-Pa55@argocd.example.com:8443",
        "ftp://admin:hunter2-Pa55@argocd.example.com",
    ],
)
def test_password_in_the_server_url_is_never_printed(server: str, capsys: pytest.CaptureFixture[str]) -> None:
    """issue 27: a password given in the server URL was printed."""
    options = _options(server)
    assert commands.run_status(StatusOptions(app="train", connection=options), NO_ENV) == 2
    _, err = _streams(capsys)
    assert "hunter2-Pa55" not in err
    assert err.count("\n") == 1
    assert "***@" in err


# -- retries on one line, deleting runs --------------------------------------------------------


def test_retry_is_one_line_of_our_own(
    httpserver: HTTPServer, connection: ConnectionOptions, capsys: pytest.CaptureFixture[str]
) -> None:
    """issue 25.6: stamina's `retry_scheduled` log record leaked to stderr."""
    httpserver.expect_ordered_request(APP).respond_with_json(
        fake.error_body("etcd leader changed", 14), status=503
    )
    httpserver.expect_ordered_request(APP).respond_with_json(fake.application())
    httpserver.expect_ordered_request(TREE).respond_with_json({"nodes": []})
    assert commands.run_status(StatusOptions(app="train", connection=connection), NO_ENV) == 0
    _, err = _streams(capsys)
    lines = err.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(
        "argocd: GET /api/v1/applications/train: 503 SERVICE UNAVAILABLE: etcd leader changed; retry 1 in "
    )
    assert "stamina" not in err and "retry_scheduled" not in err


def test_run_being_deleted_shows_as_deleting(
    httpserver: HTTPServer, connection: ConnectionOptions, capsys: pytest.CaptureFixture[str]
) -> None:
    """issue 25.6: Argo CD reports an object with a deletionTimestamp as Progressing "Pending
    deletion" (reference/argocd/README.md); trainops said Running."""
    httpserver.expect_request(APP).respond_with_json(
        fake.application(
            resources=[fake.resource("PyTorchJob", "bert-ft-bbbbbb", requires_pruning=True)],
        )
    )
    httpserver.expect_request(TREE).respond_with_json(
        {"nodes": [fake.node("PyTorchJob", "bert-ft-bbbbbb", "Progressing", "Pending deletion")]}
    )
    assert commands.run_runs(RunsOptions(app="train", connection=connection), NO_ENV) == 0
    assert commands.run_prune_finished(PruneFinishedOptions(app="train", connection=connection), NO_ENV) == 0
    out, _ = _streams(capsys)
    assert out.splitlines()[1].split()[:6] == [
        "bert-ft",
        "kubeflow.org/PyTorchJob",
        "ml-team",
        "bert-ft-bbbbbb",
        "superseded",
        "Deleting",
    ]
    assert "skipped kubeflow.org/PyTorchJob ml-team/bert-ft-bbbbbb: already being deleted" in out
    assert not [req for req, _ in httpserver.log if req.method == "DELETE"]


def test_every_failure_is_an_argocd_error(httpserver: HTTPServer, connection: ConnectionOptions) -> None:
    """A 415 (a proxy stripping the header) names the Content-Type."""
    httpserver.expect_request(f"{APP}/sync", method="POST").respond_with_data(
        "Invalid content type", status=415
    )
    config = commands.client_config(connection, NO_ENV)
    with ArgoCDClient(config) as client, pytest.raises(ArgoCDError) as info:
        client.sync(SyncRequest(name="train"))
    assert type(info.value) is TransportError
    assert str(info.value).endswith("; the server refused the request's Content-Type")


def test_server_text_is_printed_on_one_line(
    httpserver: HTTPServer, connection: ConnectionOptions, capsys: pytest.CaptureFixture[str]
) -> None:
    """A health message with a line break or a terminal escape stays one escaped line."""
    app = fake.application(health="Degraded", health_message="line one\nline two \x1b[2J")
    httpserver.expect_request(APP).respond_with_json(app)
    httpserver.expect_request(TREE).respond_with_json(
        {"nodes": [fake.node("Job", "prep-data-123abc", "Degraded", "a\rb", group="batch")]}
    )
    assert commands.run_status(StatusOptions(app="train", connection=connection), NO_ENV) == 0
    out, _ = _streams(capsys)
    assert "\x1b" not in out and "\r" not in out
    assert out.splitlines()[0] == (
        "train: sync Synced, health Degraded (line one\\nline two \\x1b[2J), "
        "revision 4b1c0d2e9f8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c"
    )


@pytest.fixture
def https_only(httpserver: HTTPServer) -> Iterator[HTTPServer]:
    """The fake as the plain-HTTP port of an argocd-server with TLS: 307 to https:// for everything."""
    httpserver.redirect_https = True  # type: ignore[attr-defined]
    yield httpserver
    httpserver.redirect_https = False  # type: ignore[attr-defined]


def test_http_port_of_a_tls_server_is_a_clear_error(
    https_only: HTTPServer, connection: ConnectionOptions, capsys: pytest.CaptureFixture[str]
) -> None:
    assert commands.run_sync(SyncOptions(app="train", connection=connection), NO_ENV) == 2
    out, err = _streams(capsys)
    assert out == ""
    assert err == (
        "argocd: POST /api/v1/applications/train/sync: 307 TEMPORARY REDIRECT: the server redirects to "
        f"'https://127.0.0.1:{https_only.port}/api/v1/applications/train/sync', which trainops does not follow; "
        "pass the URL Argo CD serves its API at as --server (https:// rather than http://?)\n"
    )
    assert [req.method for req, _ in https_only.log] == ["POST"]


def test_wait_timeout_during_a_slow_poll_is_a_timeout(
    raw_server: Callable[[Callable[[socket.socket], None]], str], capsys: pytest.CaptureFixture[str]
) -> None:
    """A poll still unanswered when --timeout passes ends the wait as a timeout (exit 1), not as a
    transport error: the application was seen, and it was not Healthy in time."""
    answered: list[int] = []

    def progressing_then_silent(conn: socket.socket) -> None:
        if answered:
            time.sleep(8)
            return
        answered.append(1)
        body = json.dumps(fake.application(health="Progressing")).encode()
        conn.sendall(
            b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s"
            % (len(body), body)
        )

    url = raw_server(progressing_then_silent)
    options = WaitOptions(app="train", connection=_options(url, deadline=60.0), timeout=1.0, interval=0.2)
    started = time.monotonic()
    assert commands.run_wait(options, NO_ENV) == 1
    assert time.monotonic() - started < 3.0  # timeout 1 s; loose for a loaded machine
    out, err = _streams(capsys)
    assert out.startswith("train: sync Synced, health Progressing")
    assert err.splitlines()[-1] == "argocd: train not Healthy and Synced after 1 s"
