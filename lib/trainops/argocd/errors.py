"""Errors of the Argo CD client and commands: one line each, never containing the token.

All are :class:`~trainops.errors.TrainopsError` with exit code 2 (usage, configuration or
authentication: trainops could not get a trustworthy answer from Argo CD). Exit code 1 is kept for
"Argo CD answered, and the application is not healthy / not synced in time".
"""

from __future__ import annotations

from trainops.errors import EXIT_USAGE, TrainopsError
from trainops.yaml.load import one_line


class ArgoCDError(TrainopsError):
    """Any failure to talk to Argo CD (exit 2); the message is one line and carries no token."""

    exit_code = EXIT_USAGE

    def __init__(self, message: str) -> None:
        super().__init__(one_line(" ".join(message.split())))  # server text: no control characters


class ConfigError(ArgoCDError):
    """No server or token, a malformed server URL, or an unreadable --ca-file."""


class AuthError(ArgoCDError):
    """HTTP 401 (token missing, expired or wrong) or 403 (token lacks the RBAC permission)."""


class NotFoundError(ArgoCDError):
    """HTTP 404: the application or resource does not exist, or the token may not see it."""


class TLSError(ArgoCDError):
    """The server's certificate failed verification (untrusted CA, wrong host name, expired)."""


class TransportError(ArgoCDError):
    """Connection refused or reset, a timeout, or HTTP 5xx after the retries ran out."""


class InvalidResponseError(ArgoCDError):
    """The server answered with something that is not the JSON the swagger promises."""


class DeadlineError(TransportError):
    """The call's deadline (``--deadline``, or the command's own limit such as ``wait --timeout``)
    passed before a complete answer arrived."""
