"""``marked`` is the cheap test in front of detect-secrets: every string one of the selected detectors
matches must pass it, or :func:`credential_in` and ``secret-literal`` would miss a credential."""

from __future__ import annotations

import os
import re
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from trainops.core import credentials
from trainops.core.credentials import _detectors, credential_in, marked

MANY = settings(max_examples=int(os.environ.get("HYPOTHESIS_EXAMPLES", "80")) * 3, deadline=None)

PATTERNS = [
    pytest.param(pattern, id=f"{type(detector).__name__}-{index}")
    for detector in _detectors()
    for index, pattern in enumerate(detector.denylist)
]


@pytest.mark.parametrize("pattern", PATTERNS)
@MANY
@given(data=st.data())
def test_every_match_of_every_detector_is_marked(pattern: re.Pattern[str], data: st.DataObject) -> None:
    prefix = data.draw(st.text(max_size=5), label="prefix")
    match = data.draw(st.from_regex(pattern, fullmatch=True), label="match")
    assert pattern.search(prefix + match)
    assert marked(prefix + match)


@pytest.mark.parametrize(
    ("value", "found"),
    [
        ("PuTTY-User-Key-File-2: ssh-rsa", "Private Key"),
        ("GR1348941" + "a" * 20, "GitLab Token"),
        ("A3TX" + "B" * 16, "AWS Access Key"),
        ("XOXB-1234-abcdef", "Slack Token"),
        ("https://user:hunter2@example.com", "Basic Auth Credentials"),
        ("https://example.com/a@b", None),
        ("ghcr.io/kubeflow/training-operator:v1", None),
        ("high throughput", None),
    ],
)
def test_credentials_the_old_markers_missed_and_common_strings(value: str, found: str | None) -> None:
    assert credential_in(value) == found


def _reference_secrets(data: Any) -> tuple[str, ...]:
    """document_secrets as first written: every scalar's key through secret_like, every string through
    credential_in (no screening)."""
    from trainops.core.credentials import _add_credentials, secret_like

    found: set[str] = set()

    def add(value: Any) -> None:
        if not isinstance(value, bool) and isinstance(value, str | int | float) and len(str(value)) >= 4:
            found.add(str(value))

    if isinstance(data, dict) and data.get("kind") == "Secret":
        for field_name in ("data", "stringData"):
            if isinstance(data.get(field_name), dict):
                for value in data[field_name].values():
                    add(value)
    stack: list[Any] = [data]
    while stack:
        item = stack.pop()
        children = (
            item.items() if isinstance(item, dict) else enumerate(item) if isinstance(item, list) else ()
        )
        if isinstance(item, dict):
            name = item.get("name")
            if isinstance(name, str) and "value" in item:
                value = item["value"]
                if isinstance(value, str | int | float) and secret_like(name, str(value)):
                    add(value)
        for key, child in children:
            if isinstance(child, dict | list):
                stack.append(child)
            elif isinstance(child, str | int | float) and not isinstance(child, bool):
                if (
                    isinstance(item, dict)
                    and isinstance(key, str)
                    and key != "name"
                    and secret_like(key, str(child))
                ):
                    add(child)
                if isinstance(child, str):
                    _add_credentials(child, add)
    return tuple(sorted(found, key=lambda s: (-len(s), s)))


SECRETISH = st.sampled_from(
    [
        "Secret",
        "hunter2-prod",
        "AKIA" + "B" * 16,
        "$(REF)",
        "ok",
        "https://u:pw@h.example",
        "ghp_" + "c" * 36,
        "x",
    ]
)
KEYS = st.sampled_from(["name", "value", "DB_PASSWORD", "api_key", "image", "token", "x"])
DOCS = st.recursive(
    SECRETISH | st.integers(0, 10**6) | st.booleans() | st.none(),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(KEYS, children, max_size=4),
    max_leaves=20,
)


@MANY
@given(data=st.dictionaries(st.sampled_from(["kind", "data", "spec", "env"]), DOCS, max_size=4))
def test_document_secrets_matches_the_unscreened_walk(data: dict[str, Any]) -> None:
    from trainops.core.credentials import document_secrets

    assert document_secrets(data) == _reference_secrets(data)


@MANY
@given(name=st.from_regex(credentials._SECRET_NAME, fullmatch=True))
def test_every_name_like_a_credential_holds_a_marker(name: str) -> None:
    assert credentials._names_may_look_secret(f"env:\n- name: x{name}\n")


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    children = value.values() if isinstance(value, dict) else value if isinstance(value, list) else []
    return [s for child in children for s in _strings(child)]


@MANY
@given(data=st.dictionaries(st.sampled_from(["kind", "data", "spec", "env"]), DOCS, max_size=4))
def test_document_secrets_from_strings_and_text_match_the_walk(data: dict[str, Any]) -> None:
    text = yaml.safe_dump(data)
    found = credentials.document_secrets(data, strings=_strings(data), text=text)
    assert found == _reference_secrets(data)


@MANY
@given(first=st.lists(SECRETISH, max_size=4), second=st.lists(SECRETISH, max_size=4))
def test_strings_marked_answers_each_list_as_marked_does(first: list[str], second: list[str]) -> None:
    for strings in (first, second, second, first):
        assert credentials.strings_marked(strings) == marked("\n".join(strings))
