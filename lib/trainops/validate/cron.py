"""CronJob schedules as the API server parses them: ``cron.ParseStandard`` of github.com/robfig/cron/v3
(``parser.go``), which ``validateScheduleFormat`` (k8s.io/kubernetes ``pkg/apis/batch/validation``)
calls.

Accepted syntax: exactly five fields (minute 0-59, hour 0-23, day of month 1-31, month 1-12 or
``jan``-``dec``, day of week 0-6 or ``sun``-``sat``; names case-insensitive), each a comma list of
``*``, ``?``, ``N``, ``N-M``, with an optional ``/step`` (``N/step`` means ``N-max/step``); or a
descriptor ``@yearly``, ``@annually``, ``@monthly``, ``@weekly``, ``@daily``, ``@midnight``,
``@hourly``, ``@every <Go duration>``. A ``TZ=``/``CRON_TZ=`` prefix parses, but Kubernetes refuses
any schedule containing ``TZ`` (use ``spec.timeZone``), so :func:`schedule_problem` reports it.
Error texts are robfig/cron's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from trainops.core.durations import duration_seconds


@dataclass(frozen=True)
class _Bounds:
    low: int
    high: int
    names: dict[str, int]


_MONTHS: Final = {
    m: i + 1
    for i, m in enumerate(
        ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
    )
}
_DAYS: Final = {d: i for i, d in enumerate(["sun", "mon", "tue", "wed", "thu", "fri", "sat"])}
_FIELDS: Final = (
    _Bounds(0, 59, {}),
    _Bounds(0, 23, {}),
    _Bounds(1, 31, {}),
    _Bounds(1, 12, _MONTHS),
    _Bounds(0, 6, _DAYS),
)
_DESCRIPTORS: Final = frozenset(
    {"@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly"}
)
_ATOI: Final = re.compile(r"[-+]?\d+")


class CronError(ValueError):
    """A schedule robfig/cron rejects; the message is robfig/cron's."""


def schedule_problem(schedule: str) -> str | None:
    """Why the API server rejects ``schedule`` (``validateScheduleFormat`` on create), or ``None``.

    Args:
        schedule: ``spec.schedule`` of a CronJob.

    Returns:
        robfig/cron's parse error, or Kubernetes' "cannot use TZ or CRON_TZ in schedule, use
        timeZone field instead"; ``None`` when the schedule is valid.
    """
    try:
        parse_standard(schedule)
    except CronError as error:
        return str(error)
    if "TZ" in schedule:
        return "cannot use TZ or CRON_TZ in schedule, use timeZone field instead"
    return None


def parse_standard(spec: str) -> None:
    """``cron.ParseStandard``: raise :class:`CronError` when ``spec`` does not parse."""
    if not spec:
        raise CronError("empty spec string")
    if spec.startswith(("TZ=", "CRON_TZ=")):
        space = spec.find(" ")
        if space < 0:
            raise CronError("missing fields after the time zone")
        spec = spec[space:].strip()
    if spec.startswith("@"):
        _descriptor(spec)
        return
    fields = spec.split()
    if len(fields) != len(_FIELDS):
        raise CronError(f"expected exactly 5 fields, found {len(fields)}: [{' '.join(fields)}]")
    for text, bounds in zip(fields, _FIELDS, strict=True):
        for expr in text.split(","):
            if expr:  # strings.FieldsFunc drops empty items: "0,,5" is "0,5"
                _range(expr, bounds)


def _descriptor(spec: str) -> None:
    if spec in _DESCRIPTORS:
        return
    if spec.startswith("@every "):
        duration = spec[len("@every ") :]
        if duration_seconds(duration) is None:
            raise CronError(f'failed to parse duration {spec}: time: invalid duration "{duration}"')
        return
    raise CronError(f"unrecognized descriptor: {spec}")


def _range(expr: str, bounds: _Bounds) -> None:
    """robfig/cron ``getRange``."""
    range_and_step = expr.split("/")
    low_and_high = range_and_step[0].split("-")
    single = len(low_and_high) == 1
    if low_and_high[0] in ("*", "?"):
        start, end = bounds.low, bounds.high
    else:
        start = _int_or_name(low_and_high[0], bounds.names)
        if len(low_and_high) == 1:
            end = start
        elif len(low_and_high) == 2:
            end = _int_or_name(low_and_high[1], bounds.names)
        else:
            raise CronError(f"too many hyphens: {expr}")
    if len(range_and_step) == 1:
        step = 1
    elif len(range_and_step) == 2:
        step = _int(range_and_step[1])
        if single:
            end = bounds.high
    else:
        raise CronError(f"too many slashes: {expr}")
    if start < bounds.low:
        raise CronError(f"beginning of range ({start}) below minimum ({bounds.low}): {expr}")
    if end > bounds.high:
        raise CronError(f"end of range ({end}) above maximum ({bounds.high}): {expr}")
    if start > end:
        raise CronError(f"beginning of range ({start}) beyond end of range ({end}): {expr}")
    if step == 0:
        raise CronError(f"step of range should be a positive number: {expr}")


def _int_or_name(text: str, names: dict[str, int]) -> int:
    named = names.get(text.lower())
    return named if named is not None else _int(text)


def _int(text: str) -> int:
    """robfig/cron ``mustParseInt`` (``strconv.Atoi``, then no negatives)."""
    if _ATOI.fullmatch(text) is None:
        raise CronError(f'failed to parse int from {text}: strconv.Atoi: parsing "{text}": invalid syntax')
    number = int(text)
    if number < 0:
        raise CronError(f"negative number ({number}) not allowed: {text}")
    return number
