"""Coverage-guided fuzzing (atheris) of the Argo CD client's response handling: ``make fuzz``.

Each input is one HTTP answer: its first byte picks the status (200, 201, 204, 302, 401, 403, 404,
415, 500) and the Content-Encoding (identity, gzip, deflate, an unknown one), the rest is the body
(compressed as the encoding says when the second byte is odd, else sent as it is). The client
reads it through an ``httpx.MockTransport`` for each endpoint it calls. The only acceptable
outcomes are a parsed model or an :class:`~trainops.argocd.errors.ArgoCDError` whose message is one
line without the token; anything else (a ``RecursionError``, a ``MemoryError``, a ``TypeError``)
is a crash.

Usage: ``python tests/fuzz/fuzz_argocd.py [SECONDS]``; corpus and crashes in ``fuzz-out/argocd/``.
"""

from __future__ import annotations

import gzip
import json
import sys
import zlib
from pathlib import Path

import atheris
import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
import harness

if sys.argv[1:2] == ["--summary"]:  # before instrumenting: the summary imports no trainops code
    sys.exit(harness.summary("argocd", Path(sys.argv[2]), sys.argv[3] if len(sys.argv) > 3 else "?"))

with atheris.instrument_imports(include=["trainops.argocd"]):
    from trainops.argocd.client import ArgoCDClient, ClientConfig
    from trainops.argocd.errors import ArgoCDError
    from trainops.argocd.models import SyncRequest

TOKEN = "tok-FUZZ-5e1f0c9a7b3d"
STATUSES = (200, 201, 204, 302, 401, 403, 404, 415, 500)
ENCODINGS = ("identity", "gzip", "deflate", "br")


def answer(data: bytes) -> httpx.Response:
    """The HTTP answer ``data`` describes (see the module docstring)."""
    head = data[:1][0] if data else 0
    flags = data[1:2][0] if len(data) > 1 else 0
    body = data[2:]
    status = STATUSES[head % len(STATUSES)]
    encoding = ENCODINGS[(head // len(STATUSES)) % len(ENCODINGS)]
    if flags % 2:
        body = (
            gzip.compress(body)
            if encoding == "gzip"
            else zlib.compress(body)
            if encoding == "deflate"
            else body
        )
    headers = {"Content-Type": "application/json", "Location": "https://elsewhere.example/"}
    if encoding != "identity":
        headers["Content-Encoding"] = encoding
    return httpx.Response(status, headers=headers, stream=httpx.ByteStream(body))


def test_one_input(data: bytes) -> None:
    """One fuzz input: a model or a one-line ArgoCDError without the token, for every endpoint."""
    transport = httpx.MockTransport(lambda request: answer(data))
    config = ClientConfig(
        server="http://127.0.0.1:1", token=TOKEN, attempts=1, deadline=10.0, max_response_bytes=1 << 20
    )
    with ArgoCDClient(config, transport=transport) as client:
        for call in (
            lambda: client.get_application("train"),
            lambda: client.resource_tree("train"),
            lambda: client.list_applications(),
            lambda: client.sync(SyncRequest(name="train")),
            lambda: client.delete_resource(
                "train", group="", version="v1", kind="Pod", namespace="a", name="b"
            ),
        ):
            try:
                call()
            except ArgoCDError as exc:
                if not exc.message.isprintable() or TOKEN in exc.message:
                    raise AssertionError(f"bad message: {exc.message!r}") from None


def seeds() -> list[bytes]:
    """Swagger-shaped bodies (tests/argocd/fakeargocd.py) and error bodies, under a few statuses."""
    sys.path.insert(0, str(harness.REPO / "tests" / "argocd"))
    import fakeargocd as fake

    bodies = [
        fake.application(),
        fake.application(health="Degraded", operation_phase="Failed"),
        {"items": [fake.application("a"), fake.application("b")]},
        {"nodes": [fake.node("Job", "j-abcdef", "Healthy", group="batch")]},
        fake.error_body(f"token {TOKEN} expired", 16),
    ]
    out = []
    for index, body in enumerate(bodies):
        text = json.dumps(body).encode()
        out += [bytes([0, 0]) + text, bytes([index % len(STATUSES), 1]) + text, bytes([9, 1]) + text]
    return out


if __name__ == "__main__":
    harness.main("argocd", test_one_input, seeds())
