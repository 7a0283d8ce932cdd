"""The ``httpserver`` fixture of the Argo CD tests is :class:`fakeargocd.FakeArgoCD`: a
pytest-httpserver that handles requests as argocd-server does (415 for a non-JSON POST or DELETE,
403 for an application that does not exist)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fakeargocd import FakeArgoCD
from pytest_httpserver import HTTPServer


@pytest.fixture(scope="session")
def make_httpserver() -> Iterator[HTTPServer]:
    """One :class:`FakeArgoCD` on 127.0.0.1 for the session (pytest-httpserver's own fixture, overridden)."""
    server = FakeArgoCD(host="127.0.0.1", port=0)
    server.start()
    yield server
    server.clear()
    if server.is_running():
        server.stop()
