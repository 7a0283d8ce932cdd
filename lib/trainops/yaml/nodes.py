"""PyYAML's side of reading (:mod:`trainops.yaml.load`): the loader class, composing one document,
and building plain values from composed nodes with duplicate keys and YAML 1.1 traps recorded.

Imported only when PyYAML reads: a file the faster path (:mod:`trainops._accel`) reads whole, and
has no finding to locate, never imports PyYAML (start-up of a one-file ``trainops validate``).
"""

from __future__ import annotations

import re
from typing import Any

import yaml

from trainops.core.findings import Issue, json_path
from trainops.yaml import limits

#: The C loader when PyYAML was built with LibYAML, else the Python one.
BASE_LOADER: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

_INT = "tag:yaml.org,2002:int"
_FLOAT = "tag:yaml.org,2002:float"
_BOOL = "tag:yaml.org,2002:bool"
_NULL = "tag:yaml.org,2002:null"
_STR = "tag:yaml.org,2002:str"
_MERGE = "tag:yaml.org,2002:merge"
_TRUE = frozenset({"yes", "true", "on", "y"})
_SEXAGESIMAL = re.compile(r":")
# go-yaml v2 (sigs.k8s.io/yaml) reads these as booleans; PyYAML's YAML 1.1 resolver does not.
_YAML11_SHORT_BOOLS = frozenset({"y", "Y", "n", "N"})
_LEGACY_OCTAL = re.compile(r"^[-+]?0[0-7_]+$")


def compose(text: str) -> yaml.Node:
    """The node tree of one document's ``text`` (a null scalar at the start when it does not parse:
    positions then fall back to the document's start)."""
    node: yaml.Node | None
    try:
        node = yaml.compose(text, Loader=Loader)
    except yaml.YAMLError:
        node = None
    if node is None:
        start = yaml.error.Mark("<document>", 0, 0, 0, "", 0)
        node = yaml.ScalarNode(_NULL, "", start, start)
    return node


class ExcessiveAliasing(Exception):
    """Raised by :class:`CountingBuilder` when alias expansion exceeds go-yaml's bound."""


class ExcessiveExpansion(Exception):
    """Raised by :class:`CountingBuilder` when the built value's keys and scalars alone exceed
    :data:`~trainops.yaml.limits.MAX_DOCUMENT_BYTES` (a document without aliases never does)."""


#: An alias (``*name``) may occur: only then does building count alias expansion (:class:`CountingBuilder`).
ALIAS = re.compile(r"(?:^|[\s\[{,:?-])\*[^\s]", re.MULTILINE)


def duplicate_message(key: str) -> str:
    """The message of a duplicate mapping key."""
    return f'duplicate key "{key}" (the API server rejects duplicate fields)'


# First characters of plain scalars that PyYAML's YAML 1.1 resolver may type as something other
# than a string (bool, int, float, null, timestamp, merge, value); every other plain scalar is a str.
_RESOLVABLE_FIRST = frozenset("-+.0123456789~nNyYtTfFoO<=")
_SEQ = "tag:yaml.org,2002:seq"
_MAP = "tag:yaml.org,2002:map"


class Loader(BASE_LOADER):  # type: ignore[misc,valid-type]
    """The C parser with a fast path in tag resolution (it runs for every node; profiled hot).

    Plain scalars whose first character cannot start a non-string YAML 1.1 value are strings
    without trying the resolver's regular expressions; the rest go to PyYAML's resolver unchanged.
    Path resolvers are not used, so descending and ascending are no-ops.
    """

    def resolve(self, kind: type[yaml.Node], value: str, implicit: tuple[bool, bool]) -> str:
        if kind is yaml.ScalarNode:
            if implicit[0] and (not value or value[0] in _RESOLVABLE_FIRST):
                tag: str = super().resolve(kind, value, implicit)
                return tag
            return _STR
        return _SEQ if kind is yaml.SequenceNode else _MAP

    def descend_resolver(self, current_node: object, current_index: object) -> None:
        return None

    def ascend_resolver(self) -> None:
        return None


class Builder:
    """Construct plain values from composed nodes, recording duplicate keys and YAML 1.1 traps.

    Hot path: no path bookkeeping while building; the JSON path of a problem node is found
    afterwards (:meth:`issues`), which is rare.
    """

    __slots__ = ("_found",)

    def __init__(self) -> None:
        self._found: list[tuple[yaml.Node, str, str, str]] = []  # (node, message, keyword, level)

    def issues(self, root: yaml.Node) -> list[Issue]:
        """The recorded problems as issues with JSON paths (searched from ``root``)."""
        if not self._found:
            return []
        paths = _paths_to(root, {id(node) for node, *_ in self._found})
        return [
            Issue(paths.get(id(node), ()), message, "yaml", keyword, level)  # type: ignore[arg-type]
            for node, message, keyword, level in self._found
        ]

    def build(self, node: Any) -> Any:  # a yaml Node; class checked by identity (hot path)
        cls = node.__class__
        if cls is yaml.ScalarNode:
            tag = node.tag
            if tag == _STR:
                value = node.value
                if node.style or value not in _YAML11_SHORT_BOOLS:
                    return value
                return self._ambiguous(node, value)
            value = _scalar(node)
            if not node.style and _maybe_ambiguous(tag, node.value):
                return self._ambiguous(node, value)
            return value
        if cls is yaml.MappingNode:
            return self._mapping(node)
        if cls is yaml.SequenceNode:
            build = self.build
            return [build(item) for item in node.value]
        return None  # pragma: no cover - composer yields only the three node kinds

    def _ambiguous(self, node: yaml.ScalarNode, value: Any) -> Any:
        """Flag plain scalars that YAML 1.1 (the API server) and YAML 1.2 read differently."""

        text: str = node.value
        message = None
        if node.tag == _STR:
            if text in _YAML11_SHORT_BOOLS:
                value = text in ("y", "Y")
                message = f"unquoted {text} is the boolean {str(value).lower()} for the API server (YAML 1.1); quote it for a string"
        elif node.tag == _BOOL:
            if text.lower() not in ("true", "false"):
                message = (
                    f"unquoted {text} is the boolean {str(value).lower()} for the API server (YAML 1.1) "
                    f"but a string for YAML 1.2 tools; write {str(value).lower()} or quote it"
                )
        elif isinstance(value, str) and _SEXAGESIMAL.search(text):  # base-60 int/float kept as a string
            message = f"unquoted {text} is a base-60 number for YAML 1.1 tools but a string for the API server; quote it"
        elif _LEGACY_OCTAL.match(text):
            message = (
                f"unquoted {text} is the octal number {value} for the API server (YAML 1.1) "
                f"but {int(text.replace('_', ''), 10)} for YAML 1.2 tools; write {value} to be unambiguous"
            )
        if message is not None:
            self._found.append((node, message, "yaml-1.1", "warning"))
        return value

    def _mapping(self, node: yaml.MappingNode) -> dict[str, Any]:
        out: dict[str, Any] = {}
        merged: dict[str, Any] | None = None
        build = self.build
        for key_node, value_node in node.value:
            key_tag = key_node.tag
            if key_tag == _STR:
                key = key_node.value
            elif key_tag == _MERGE:
                merged = merged if merged is not None else {}
                for source in _merge_sources(value_node):
                    value = build(source)
                    if isinstance(value, dict):
                        for k, v in value.items():
                            merged.setdefault(k, v)
                continue
            else:
                key = _key(key_node)
            if key in out:
                message = duplicate_message(key)
                self._found.append((key_node, message, "duplicate-key", "error"))
            out[key] = build(value_node)
        if merged:
            for k, v in merged.items():
                out.setdefault(k, v)
        return out


class CountingBuilder(Builder):
    """:class:`Builder` that bounds alias expansion as go-yaml does (``(*decoder).unmarshal``).

    An alias in a composed PyYAML tree is the anchored node itself, met a second time: every node
    built while inside such a repeat counts as aliased. Building stops with
    :class:`ExcessiveAliasing` once :func:`~trainops.yaml.limits.excessive_aliasing` holds, and with
    :class:`ExcessiveExpansion` once the characters of the keys and scalars built (repeats included,
    a lower bound of the JSON kubectl sends) exceed the API server's request size limit: few aliases
    of one large value stay under go-yaml's ratio but make an object (and a report quoting it) a
    hundred times the file's size.
    """

    __slots__ = ("_aliased", "_chars", "_decoded", "_depth", "_seen")

    def __init__(self) -> None:
        super().__init__()
        self._chars = 0
        self._decoded = 0
        self._aliased = 0
        self._depth = 0
        self._seen: set[int] = set()

    def build(self, node: Any) -> Any:
        self._decoded += 1
        if self._depth:
            self._aliased += 1
            if limits.excessive_aliasing(self._decoded, self._aliased):
                raise ExcessiveAliasing
        cls = node.__class__
        if cls is yaml.ScalarNode:
            self._chars += len(node.value)
        elif cls is yaml.MappingNode:
            self._chars += sum(len(k.value) for k, _ in node.value if k.__class__ is yaml.ScalarNode)
        if self._chars > limits.MAX_DOCUMENT_BYTES:
            raise ExcessiveExpansion
        key = id(node)
        if key not in self._seen:
            self._seen.add(key)
            return super().build(node)
        self._depth += 1
        try:
            return super().build(node)
        finally:
            self._depth -= 1


def _paths_to(root: yaml.Node, targets: set[int]) -> dict[int, tuple[str | int, ...]]:
    """JSON paths of the nodes whose ids are in ``targets`` (a mapping key maps to its entry's path)."""
    found: dict[int, tuple[str | int, ...]] = {}
    stack: list[tuple[yaml.Node, tuple[str | int, ...]]] = [(root, ())]
    while stack and len(found) < len(targets):
        node, parts = stack.pop()
        if id(node) in targets:
            found.setdefault(id(node), parts)
        if isinstance(node, yaml.MappingNode):
            for key_node, value_node in node.value:
                key = _key(key_node)
                if id(key_node) in targets:
                    found.setdefault(id(key_node), (*parts, key))
                stack.append((value_node, (*parts, key)))
        elif isinstance(node, yaml.SequenceNode):
            stack.extend((item, (*parts, i)) for i, item in enumerate(node.value))
    return found


def _maybe_ambiguous(tag: str, text: str) -> bool:
    """Cheap pre-check before :meth:`Builder._ambiguous` (it runs for every plain scalar)."""
    if tag == _STR:
        return text in _YAML11_SHORT_BOOLS
    if tag == _BOOL:
        return True
    if tag in (_INT, _FLOAT):
        return ":" in text or text.lstrip("+-")[:1] == "0"
    return False


def _merge_sources(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return [node]


def _key(node: yaml.Node) -> str:
    if isinstance(node, yaml.ScalarNode):
        value = _scalar(node)
        if isinstance(value, bool):
            return "true" if value else "false"
        if value is None:
            return "null"
        return str(value) if not isinstance(value, str) else value
    return json_path(())  # complex keys cannot be JSON keys; "$" never matches a real field


#: The integers go-yaml resolves a hex or binary scalar to: int64, else uint64.
_INT64_MIN, _UINT64_MAX = -(2**63), 2**64 - 1


def _scalar(node: yaml.ScalarNode) -> Any:
    tag = node.tag
    value: str = node.value
    if tag == _STR or node.style:
        return value
    if tag == _INT:
        if _SEXAGESIMAL.search(value):
            return value
        text = value.replace("_", "")
        sign = -1 if text.startswith("-") else 1
        text = text.lstrip("+-")
        if text.startswith(("0x", "0b")):
            number = sign * int(text[2:], 16 if text[1] == "x" else 2)
            # go-yaml (resolve.go) tries int64, then uint64; a larger hex or binary number matches no
            # float either and stays the plain string
            return number if _INT64_MIN <= number <= _UINT64_MAX else value
        if len(text) > 1 and text.startswith("0"):
            return sign * int(text, 8)
        try:
            return sign * int(text)
        except ValueError:  # over Python's 4,300-digit limit: no number for go-yaml either, a string
            return value
    if tag == _FLOAT:
        if _SEXAGESIMAL.search(value):
            return value
        text = value.replace("_", "").lower()
        if text in (".nan",):
            return float("nan")
        if text.endswith(".inf"):
            return float("-inf") if text.startswith("-") else float("inf")
        return float(text)
    if tag == _BOOL:
        return value.lower() in _TRUE
    if tag == _NULL:
        return None
    return value
