"""Go duration strings (trainops.core.durations): Go ``time.ParseDuration`` and kube-openapi's
``format: duration`` (Go's syntax plus days and weeks)."""

from __future__ import annotations

import pytest

from trainops.core.durations import GO_UNITS, STRFMT_UNITS, duration_seconds


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("1m", 60),
        ("1h30m", 5400),
        ("500ms", 0.5),
        ("1.5h", 5400),
        (".5s", 0.5),
        ("5.s", 5),
        ("0", 0),
        ("+0", 0),
        ("-5s", -5),
        ("+5s", 5),
        ("1µs", 1e-6),
        ("5", None),
        ("1d", None),
        ("", None),
        ("-", None),
        (".s", None),
        ("1 h", None),
        ("1h ", None),
        ("\u0661s", None),  # an Arabic-Indic one: Go reads ASCII digits only
    ],
)
def test_go_durations(text: str, seconds: float | None) -> None:
    assert duration_seconds(text) == seconds
    assert duration_seconds(text, GO_UNITS) == seconds


@pytest.mark.parametrize(
    ("text", "seconds"), [("1d", 86400), ("2w", 1209600), ("1w2d3h", 788400), ("1y", None)]
)
def test_strfmt_durations_take_days_and_weeks(text: str, seconds: float | None) -> None:
    assert duration_seconds(text, STRFMT_UNITS) == seconds
