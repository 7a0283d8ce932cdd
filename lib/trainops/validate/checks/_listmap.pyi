"""Types of the C module ``trainops.validate.checks._listmap`` (``_listmap.c``)."""

from typing import Any

def all_distinct(plan: tuple[Any, ...], value: Any, /) -> bool: ...
