"""CronJob schedules (trainops.validate.cron): robfig/cron ``ParseStandard`` as kube-apiserver v1.36.2
applies it (``validateScheduleFormat``). Every verdict and message below is the server's answer to a
CronJob with that schedule (server-side dry run, ../shared/oracle)."""

from __future__ import annotations

import pytest

from trainops.validate.cron import schedule_problem

ACCEPTED = [
    "* * * * *",
    "*/5 * * * *",
    "0 0 ? * MON-FRI",
    "0 0 1 JAN,feb *",
    "*/15 0-23/2 1,15 * sun-sat",
    "0 0 * * sun-mon/2",
    "+5 * * * *",
    "0,,5 * * * *",
    "@hourly",
    "@weekly",
    "@every 1h30m",
    "@every 0",
    "@every -1h",
]

REJECTED = [
    ("*/5 * * *", "expected exactly 5 fields, found 4: [*/5 * * *]"),
    ("* * * * * *", "expected exactly 5 fields, found 6: [* * * * * *]"),
    ("60 * * * *", "end of range (60) above maximum (59): 60"),
    ("0 24 * * *", "end of range (24) above maximum (23): 24"),
    ("0 0 0 * *", "beginning of range (0) below minimum (1): 0"),
    ("0 0 * 13 *", "end of range (13) above maximum (12): 13"),
    ("0 0 * * 7", "end of range (7) above maximum (6): 7"),
    ("*/0 * * * *", "step of range should be a positive number: */0"),
    ("5-2 * * * *", "beginning of range (5) beyond end of range (2): 5-2"),
    ("1-2-3 * * * *", "too many hyphens: 1-2-3"),
    ("1/2/3 * * * *", "too many slashes: 1/2/3"),
    ("a * * * *", 'failed to parse int from a: strconv.Atoi: parsing "a": invalid syntax'),
    ("@reboot", "unrecognized descriptor: @reboot"),
    # The server: 'failed to parse duration @every 1x: time: unknown unit "x" in duration "1x"'.
    ("@every 1x", 'failed to parse duration @every 1x: time: invalid duration "1x"'),
    ("TZ=UTC 0 * * * *", "cannot use TZ or CRON_TZ in schedule, use timeZone field instead"),
    ("CRON_TZ=UTC 0 * * * *", "cannot use TZ or CRON_TZ in schedule, use timeZone field instead"),
]


@pytest.mark.parametrize("schedule", ACCEPTED)
def test_accepted(schedule: str) -> None:
    assert schedule_problem(schedule) is None


@pytest.mark.parametrize(("schedule", "message"), REJECTED, ids=[r[0] for r in REJECTED])
def test_rejected(schedule: str, message: str) -> None:
    assert schedule_problem(schedule) == message
