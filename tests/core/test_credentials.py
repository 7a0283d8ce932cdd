"""``marked`` is the cheap test in front of detect-secrets: every string one of the selected detectors
matches must pass it, or :func:`credential_in` and ``secret-literal`` would miss a credential."""

from __future__ import annotations

import os
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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
