"""One walk over every value of a document, for the checks that look at all of them.

Two checks need every value of every document, not just the fields a schema names: integers outside
int64 (:mod:`trainops.validate.integers`) and literal credentials
(:mod:`trainops.validate.checks.secret_literal`). :func:`scan` walks the document once for both;
each then looks further only where the scan says it may find something.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from trainops.validate.integers import INT64_MAX, INT64_MIN


class Scan(NamedTuple):
    """What one walk over a document found.

    Args:
        strings: every string value (mapping keys left out), in no defined order.
        envs: the value of every ``env`` key but null, whatever its type (container ``env`` lists
            among them).
        huge: some integer lies outside the signed 64-bit range.
    """

    strings: list[str]
    envs: list[Any]
    huge: bool


def scan(data: Any) -> Scan:
    """Walk ``data`` (a document as the loader builds it: plain dicts, lists, strings, numbers, bools
    and ``None``) once, breadth first, without recursion (depth is not a concern)."""
    strings: list[str] = []
    envs: list[Any] = []
    huge = False
    containers: list[Any] = [data] if type(data) is dict or type(data) is list else []
    for node in containers:  # grows while it is read: each collection is visited once
        if type(node) is dict:
            env = node.get("env")
            if env is not None:
                envs.append(env)
            node = node.values()
        for child in node:
            kind = type(child)
            if kind is str:
                strings.append(child)
            elif kind is dict or kind is list:
                containers.append(child)
            elif kind is int and not INT64_MIN <= child <= INT64_MAX:
                huge = True
    return Scan(strings, envs, huge)
