"""The one walk over every value of a document agrees with the walks it replaces: every string with
its path (``walk_strings``), every ``env`` value, and integers outside int64 (``out_of_int64``)."""

from __future__ import annotations

import os
from collections import Counter
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from trainops.core.credentials import walk_strings
from trainops.validate.integers import out_of_int64
from trainops.validate.scan import scan

MANY = settings(max_examples=int(os.environ.get("HYPOTHESIS_EXAMPLES", "80")) * 5, deadline=None)

SCALARS = (
    st.text(max_size=4)
    | st.integers(-(2**70), 2**70)
    | st.sampled_from([2**63 - 1, 2**63, -(2**63), -(2**63) - 1])
    | st.booleans()
    | st.none()
    | st.floats(allow_nan=False)
)
VALUES = st.recursive(
    SCALARS,
    lambda children: (
        st.lists(children, max_size=3)
        | st.dictionaries(st.sampled_from(["a", "env", "name", "value"]), children, max_size=3)
    ),
    max_leaves=20,
)


def _envs(value: Any) -> list[Any]:
    found = []
    if isinstance(value, dict):
        if value.get("env") is not None:
            found.append(value["env"])
        for child in value.values():
            found += _envs(child)
    elif isinstance(value, list):
        for child in value:
            found += _envs(child)
    return found


@MANY
@given(data=st.dictionaries(st.sampled_from(["spec", "env", "x"]), VALUES, max_size=4))
def test_scan_finds_what_the_separate_walks_find(data: dict[str, Any]) -> None:
    scanned = scan(data)
    assert Counter(scanned.strings) == Counter(value for _, value in walk_strings(data))
    assert Counter(map(id, scanned.envs)) == Counter(map(id, _envs(data)))
    assert scanned.huge == bool(list(out_of_int64(data)))
