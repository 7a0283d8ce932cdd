"""Integers the API server cannot read: outside the signed 64-bit range.

The API server decodes JSON numbers into ``int64`` (built-in kinds' fields, and custom resources
through ``unstructured``: k8s.io/apimachinery ``pkg/util/json``, ``convertNumber``: an integer that
does not fit ``int64`` is not an integer for it), so a document holding one is rejected whatever its
schema says, as kubectl's YAML reader (go-yaml ``resolve``: ``strconv.ParseInt(s, 0, 64)``) cannot
read it as an integer either. jsonschema-rs, given such a Python ``int``, may report it as valid
(a ``maximum`` of a 16,000-bit integer passes), so these are found before the schema is checked.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Final

from trainops.core.findings import Issue
from trainops.core.kinds import Parts

INT64_MIN: Final = -(2**63)
INT64_MAX: Final = 2**63 - 1


def out_of_int64(data: Any) -> Iterator[Issue]:
    """A ``schema``/``int64`` error for each integer of ``data`` outside ``int64``, at its path.

    The message gives the integer's size in bits, never its digits (a huge integer has no short
    decimal form, and Python refuses to print more than 4,300 digits).

    Args:
        data: a constructed YAML document (dicts, lists, scalars). Validation calls this only when
            :func:`trainops.validate.scan.scan` found such an integer.
    """
    stack: list[tuple[Any, Parts]] = [(data, ())]
    while stack:
        node, parts = stack.pop()
        if type(node) is dict:
            stack.extend(((value, (*parts, key)) for key, value in reversed(node.items())))
        elif type(node) is list:
            stack.extend(((value, (*parts, index)) for index, value in reversed(list(enumerate(node)))))
        elif type(node) is int and not INT64_MIN <= node <= INT64_MAX:
            side = "below" if node < 0 else "above"
            yield Issue(
                parts,
                f"an integer of {node.bit_length()} bits, {side} the 64-bit range: the API server "
                "reads integers as int64 and rejects it",
                "schema",
                "int64",
            )
