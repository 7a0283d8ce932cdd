"""Go duration strings (``"1h30m"``, ``"500ms"``), as the API server and the operators parse them.

One parser serves both grammars trainops meets: Go's ``time.ParseDuration`` (Argo Rollouts' pause and
analysis durations, read by the controller with it) and kube-openapi's ``format: duration``
(``strfmt.ParseDuration``, which CRD validation and CEL's ``duration()`` apply), which also takes
days and weeks.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cache
from typing import Final

#: Seconds per unit of Go ``time.ParseDuration`` (go/src/time/format.go ``unitMap``).
GO_UNITS: Final[Mapping[str, float]] = {
    "ns": 1e-9,
    "us": 1e-6,
    "µs": 1e-6,
    "μs": 1e-6,
    "ms": 1e-3,
    "s": 1,
    "m": 60,
    "h": 3600,
}
#: Go's units plus days and weeks (kube-openapi ``pkg/validation/strfmt/duration.go`` ``timeUnits``).
STRFMT_UNITS: Final[Mapping[str, float]] = {**GO_UNITS, "d": 86400, "w": 604800}


def duration_seconds(text: str, units: Mapping[str, float] = GO_UNITS) -> float | None:
    """``text`` as a signed sequence of ``<number><unit>`` pairs, in seconds (``"1h30m"`` → 5400.0,
    ``"-5s"`` → -5.0, ``"0"`` → 0.0), or ``None`` when it does not parse: no unit, a unit not in
    ``units``, spaces, a bare ``.``, digits other than ASCII.

    Args:
        text: the duration string.
        units: seconds per unit; default :data:`GO_UNITS` (Go ``time.ParseDuration``),
            :data:`STRFMT_UNITS` for ``format: duration``.
    """
    sign, body = (-1, text[1:]) if text[:1] == "-" else (1, text.removeprefix("+"))
    if body == "0":
        return 0.0
    pair = _pair(tuple(units))
    seconds, pos = 0.0, 0
    while pos < len(body):
        match = pair.match(body, pos)
        if match is None:
            return None
        seconds += float(match.group(1)) * units[match.group(2)]
        pos = match.end()
    return sign * seconds if body else None


@cache
def _pair(units: tuple[str, ...]) -> re.Pattern[str]:
    """One ``<number><unit>`` pair; longer units first (``ms`` before ``m``)."""
    names = "|".join(re.escape(u) for u in sorted(units, key=len, reverse=True))
    return re.compile(rf"([0-9]+(?:\.[0-9]*)?|\.[0-9]+)({names})")
