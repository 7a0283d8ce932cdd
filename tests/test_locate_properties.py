"""Property tests: positions from trainops.yaml.locate equal what PyYAML's composed tree gives, for
every path (and one missing key or index below every collection) of generated block-style YAML."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from trainops.yaml.load import Document
from trainops.yaml.locate import locate_in_text
from trainops.yaml.pyyaml_path import Loader

Parts = tuple[str | int, ...]

SETTINGS = settings(
    max_examples=int(os.environ.get("HYPOTHESIS_EXAMPLES", "80")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)


def _composed(text: str, parts: Parts) -> tuple[int, int]:
    """The composed tree's answer (0-based), as Document.locate gives it without fast text."""
    document = Document("x", 0, None, None, [], 0, None)
    document.node = yaml.compose(text, Loader=Loader)
    line, column = document.locate(parts)
    return line - 1, column - 1


def _paths(node: yaml.Node, prefix: Parts = ()) -> Iterator[Parts]:
    """Every path of a composed tree, a missing key or index below each collection, and paths that
    go on below scalars; also an ``int`` part below mappings (looked up as ``str``)."""
    yield prefix
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            if isinstance(key, yaml.ScalarNode):
                yield from _paths(value, (*prefix, key.value))
        yield (*prefix, "no-such-key")
        yield (*prefix, 0)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            yield from _paths(item, (*prefix, index))
        yield (*prefix, len(node.value))
        yield (*prefix, "0")
    else:
        yield (*prefix, "below", 0)


def _check(text: str) -> int:
    """Compare every answer with the composed tree's; return how many were answered."""
    node = yaml.compose(text, Loader=Loader)
    if node is None:
        assert locate_in_text(text, ()) is None
        return 0
    answered = 0
    for parts in _paths(node):
        fast = locate_in_text(text, parts)
        if fast is not None:
            assert fast == _composed(text, parts), (parts, text)
            answered += 1
    return answered


KEYS = st.one_of(
    st.sampled_from(["a", "b", "name", "spec", "x.y/z", "0", "1", "true", "k k", "a:b", "it's", "-k", "k#"]),
    st.text(alphabet="abc :#'\"-{}[]|>&*!?,%@`\\\n", min_size=1, max_size=5),
)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 12),
    st.text(alphabet="ab :#'\"-{}[]|>\n\\&*!?", max_size=12),
    st.sampled_from(["", "~", "yes", "a: b", "- a", "# c", "x\ny\n", "  lead", "trail  ", "a" * 90]),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(KEYS, inner, max_size=4)),
    max_leaves=25,
)


@SETTINGS
@given(
    value=st.dictionaries(KEYS, VALUES, min_size=1, max_size=5),
    indent=st.sampled_from([2, 4]),
    width=st.sampled_from([20, 80]),
    start=st.booleans(),
    style=st.sampled_from([None, '"', "'", "|"]),
)
def test_dumped_yaml(value: dict[str, Any], indent: int, width: int, start: bool, style: str | None) -> None:
    text = yaml.dump(
        value,
        default_flow_style=False,
        indent=indent,
        width=width,
        explicit_start=start,
        allow_unicode=True,
        default_style=style,
    )
    _check(text)


@st.composite
def _block_text(draw: st.DrawFn) -> str:
    """Block YAML written by hand: plain, quoted and duplicate keys, indentless or indented
    sequences, items whose content starts on the next line, block scalars, empty flow collections,
    comments and blank lines at any indentation."""
    lines: list[str] = []

    def comment() -> None:
        if draw(st.integers(0, 5)) == 0:
            lines.append(" " * draw(st.integers(0, 6)) + draw(st.sampled_from(["# c", "#", "", "   "])))

    def key() -> str:
        name = draw(st.sampled_from(["a", "b", "c", "0", "k k", "it's", "q"]))
        quoting = draw(st.sampled_from(["plain", "plain", "single", "double"]))
        if quoting == "single":
            return "'" + name.replace("'", "''") + "'"
        if quoting == "double":
            return '"' + name + '"'
        return name

    def scalar() -> str:
        return draw(
            st.sampled_from(["1", "x", "'q'", '"d: e"', "{}", "[]", "a b # c", "|", ">-", "", "# only"])
        )

    def block_scalar(column: int) -> None:
        for _ in range(draw(st.integers(1, 3))):
            lines.append(
                " " * (column + 2) + draw(st.sampled_from(["text", "k: v", "- x", "# not", "", "  more"]))
            )

    def node(column: int, depth: int, head: str) -> None:
        """Write a node whose first line starts with ``head`` (a key or dashes written before it)."""
        kind = draw(st.sampled_from(["map", "seq", "scalar"])) if depth < 3 else "scalar"
        if kind == "scalar":
            value = scalar()
            lines.append(head + value if head.strip() else " " * column + (value or "v"))
            if value in ("|", ">-"):
                block_scalar(column)
            return
        count = draw(st.integers(1, 3))
        for index in range(count):
            prefix = head if index == 0 else " " * column
            comment()
            if kind == "map":
                name = key()
                inline = draw(st.booleans())
                if inline:
                    value = scalar()
                    lines.append(prefix + name + ":" + (" " + value if value else ""))
                    if value in ("|", ">-"):
                        block_scalar(column)
                else:
                    lines.append(prefix + name + ":")
                    indentless = draw(st.booleans())
                    child = column if indentless else column + draw(st.sampled_from([1, 2, 4]))
                    if indentless:
                        node_seq(child, depth + 1)
                    else:
                        node(child, depth + 1, " " * child)
            else:
                content_next = draw(st.integers(0, 4)) == 0
                if content_next:
                    lines.append(prefix + "-")
                    child = column + 2
                    node(child, depth + 1, " " * child)
                else:
                    node(column + 2, depth + 1, prefix + "- ")

    def node_seq(column: int, depth: int) -> None:
        for _ in range(draw(st.integers(1, 3))):
            node(column + 2, depth + 1, " " * column + "- ")

    if draw(st.booleans()):
        lines.append("---")
    comment()
    node(0, 0, "")
    comment()
    return "\n".join(lines) + "\n"


@SETTINGS
@given(text=_block_text())
def test_written_yaml(text: str) -> None:
    try:
        yaml.compose(text, Loader=Loader)
    except yaml.YAMLError:
        return  # not YAML (e.g. a scalar followed by a deeper line): nothing to compare with
    _check(text)
