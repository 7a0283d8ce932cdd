"""Read YAML as the Kubernetes API server reads it, keeping positions for findings.

PyYAML's parser (its C LibYAML classes, a port of which go-yaml is) reads each file: it composes
each document into a node tree with line and column marks, and a small constructor here turns nodes
into plain JSON-like values:

* timestamps stay strings (``sigs.k8s.io/yaml`` decodes into ``interface{}``, where go-yaml keeps
  them as strings) and YAML 1.1 sexagesimal numbers (``1:20``) stay strings;
* mapping keys become strings, as JSON requires; merge keys (``<<``) are applied;
* duplicate keys are findings: the API server's strict decoding rejects them
  (``kubectl apply --validate=strict``; KEP-2885 server-side field validation).

Line breaks and characters are the parser's, which are go-yaml's (``yaml.v3 readerc.go``,
``scannerc.go``: LibYAML's rules): CR LF, CR, LF, NEL, LS and PS all end a line, so ``---`` after any
of them starts a document; C0 controls other than tab, LF and CR, DEL, C1 controls other than NEL,
surrogates and U+FFFE/U+FFFF are refused with their position.

Positions of JSON paths are found from the composed nodes' marks, only for documents with findings.

Untrusted input is bounded first (:mod:`trainops.yaml.limits`): a document over the size or depth
limit, one that expands aliases beyond go-yaml's ratio, or one that exhausts the memory ceiling is
a ``yaml`` finding for that document (``Document.rejected``), and the next document is still read.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from trainops import _accel as accel
from trainops.core.credentials import document_secrets, redact
from trainops.core.errors import UsageError
from trainops.core.findings import MESSAGE_LIMIT, Finding, Issue, json_path, one_line
from trainops.core.naming import KEY_LIMIT, shortened
from trainops.core.rules import RuleInfo, register
from trainops.yaml import limits

YAML = register(
    RuleInfo(
        id="yaml",
        level="error",
        summary="The file is YAML the API server reads as intended: it parses, has no duplicate keys, "
        "every document is a mapping, and YAML 1.1 surprises (yes/no/on/off, 0755 octals, 1:20 "
        "sexagesimals) are pointed out.",
        rationale="kubectl and Argo CD read YAML with go-yaml (YAML 1.1): a file that parses differently "
        "there, or not at all, deploys something other than what the reviewer read.",
        remediation="Fix the syntax at the reported line, or quote the scalar so every YAML reader sees a string.",
        source="https://github.com/kubernetes-sigs/yaml",
    )
)

YAML_SUFFIXES = (".yaml", ".yml")

_BaseLoader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

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


@dataclass
class Document:
    """One YAML document of a file.

    Args:
        file: the file path as given (or found under a given directory).
        index: 0-based index of the document in the file (empty documents count).
        data: the constructed value (usually a dict).
        node: the composed node tree, for positions (``None`` for a rejected document, or until
            needed when the document was given as ``text`` and its value, see
            :func:`trainops.workflow.rendered_inputs`).
        problems: issues found while constructing: duplicate keys (errors) and plain scalars whose
            meaning depends on the YAML version (warnings).
        line_offset: lines of the file before the parsed text.
        text: the document's own text, to compose ``node`` from on first use when ``node`` is ``None``.
        rejected: the finding that stopped this document from being read (over a resource limit);
            ``data`` is then ``None``.
        values: what the faster path (:mod:`trainops._accel`) collected while reading the document:
            its string values (mapping keys left out) and the value of each of its ``env`` keys but
            null, as :func:`trainops.validate.scan.scan` would find them (in another order); ``None``
            when PyYAML read it.
    """

    file: str
    index: int
    data: Any
    node: yaml.Node | None
    problems: list[Issue] = field(default_factory=list)
    line_offset: int = 0
    text: str | None = None
    rejected: Finding | None = None
    values: tuple[list[str], list[Any]] | None = None

    def _node(self) -> yaml.Node:
        """The composed node tree (composed from ``text`` on first use)."""
        if self.node is None:
            self.node = compose(self.text or "")
        return self.node

    @property
    def line(self) -> int:
        """1-based line where the document's content starts."""
        return int(self._node().start_mark.line) + 1 + self.line_offset

    def locate(self, parts: Sequence[str | int]) -> tuple[int, int]:
        """1-based (line, column) of the node at ``parts``, or of its deepest existing ancestor.

        For a mapping entry the position of its key is returned (where a reader looks for
        ``field:``); for a sequence item, the item's own position. The last of duplicate keys wins,
        as in the constructed value.
        """
        if self.node is None and self.text is not None:  # read by the faster path: located by it too
            position = accel.locate_block(self.text, tuple(parts))
            if position is not None:
                return position[0] + 1 + self.line_offset, position[1] + 1
        node: yaml.Node = self._node()
        mark = node.start_mark
        for part in parts:
            if isinstance(node, yaml.MappingNode):
                found = None
                for key, value in node.value:
                    if isinstance(key, yaml.ScalarNode) and key.value == str(part):
                        found = (key, value)
                if found is None:
                    break
                mark = found[0].start_mark
                node = found[1]
            elif (
                isinstance(node, yaml.SequenceNode) and isinstance(part, int) and 0 <= part < len(node.value)
            ):
                node = node.value[part]
                mark = node.start_mark
            else:
                break
        return int(mark.line) + 1 + self.line_offset, int(mark.column) + 1


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


def _secrets_of(document: Document, data: Any) -> tuple[str, ...]:
    """The document's literal credentials (:func:`~trainops.core.credentials.document_secrets`), which no
    message may quote; for a document the faster reader read, from the strings it collected and the
    document's text (the same result)."""
    if document.values is not None and document.text is not None and data is document.data:
        return document_secrets(data, strings=document.values[0], text=document.text)
    return document_secrets(data)


def locate_issues(
    document: Document,
    issues: Sequence[Issue],
    data: Any = None,
    remediation: Callable[[str], str | None] | None = None,
) -> list[Finding]:
    """Turn ``issues`` of one document into findings with file, line, column and object identity.

    The one place positions are added, for validation checks and policy rules alike. Identical
    issues (the same error reached through several schema branches) are reported once.

    Args:
        document: the document the issues were found in.
        issues: what the checks returned, in order.
        data: the document's value to take apiVersion/kind/metadata from; default ``document.data``.
        remediation: the remediation of a rule ID (policy findings), else ``None`` for every finding.
    """
    if not issues:
        return []
    data = document.data if data is None else data
    unique = list(dict.fromkeys(issues))
    metadata = data.get("metadata") if isinstance(data, dict) else None
    metadata = metadata if isinstance(metadata, dict) else {}
    api_version = data.get("apiVersion") if isinstance(data, dict) else None
    kind = data.get("kind") if isinstance(data, dict) else None
    name = metadata.get("name") or metadata.get("generateName")
    namespace = metadata.get("namespace")
    # The same for every finding of the document.
    file, index = document.file, document.index
    api_version = _identity(api_version)
    kind = _identity(kind)
    namespace = _identity(namespace)
    name = _identity(name)
    findings = []
    secrets = _secrets_of(document, data)
    for issue in unique:
        line, column = document.locate(issue.parts)
        findings.append(
            Finding(
                rule=issue.rule,
                level=issue.level,
                message=shortened(redact(one_line(issue.message), secrets), MESSAGE_LIMIT),
                file=file,
                line=line,
                column=column,
                document=index,
                api_version=api_version,
                kind=kind,
                namespace=namespace,
                name=name,
                path=one_line(json_path(issue.parts)),
                keyword=issue.keyword,
                remediation=None if remediation is None else remediation(issue.rule),
            )
        )
    return findings


def _identity(value: Any) -> str | None:
    """A string of the object's identity (apiVersion, kind, name, namespace) as findings carry it:
    one line, at most :data:`~trainops.core.naming.KEY_LIMIT` characters; else ``None``."""
    return shortened(one_line(value), KEY_LIMIT) if isinstance(value, str) else None


@dataclass
class LoadedFile:
    """All documents of one file plus the YAML error that stopped reading it, if any."""

    path: str
    documents: list[Document]
    error: Finding | None = None


def read_text(path: str) -> str:
    """Read a file as UTF-8 text.

    Raises:
        UsageError: the file cannot be read (permissions, not UTF-8).
    """
    try:
        return Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise UsageError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except OSError as exc:
        raise UsageError(f"{path}: {exc.strerror}") from None


def load_file(path: str) -> LoadedFile:
    """Read and parse one file, keeping every document (for small inputs; see :func:`stream_text`).

    Never raises for bad content: a YAML syntax error becomes ``LoadedFile.error`` (a ``yaml``
    finding with line and column); documents before it are kept.

    Raises:
        UsageError: the file cannot be read.
    """
    return load_text(read_text(path), path)


def load_text(text: str, path: str = "<string>") -> LoadedFile:
    """Parse YAML text into documents; see :func:`load_file`."""
    documents: list[Document] = []
    for item in stream_text(text, path):
        if isinstance(item, Finding):
            return LoadedFile(path, documents, item)
        documents.append(item)
    return LoadedFile(path, documents)


def stream_text(
    text: str, path: str, *, line_offset: int = 0, index_offset: int = 0
) -> Iterator[Document | Finding]:
    """Yield the documents of ``text`` one at a time, then a ``yaml`` finding if parsing stopped early.

    Streaming keeps memory flat on large inputs: a caller validates each document and drops it. A
    text larger than one document may be (:data:`~trainops.yaml.limits.MAX_DOCUMENT_BYTES`), or that
    may nest too deep, is first cut into its documents with the parser's events (kept on the heap),
    so that a document over a limit is a finding without being composed and the next one is read.

    Args:
        text: YAML text, possibly a chunk of a larger file that starts a document.
        path: file name for documents and findings.
        line_offset: number of lines of the file before ``text`` (positions are shifted by it).
        index_offset: number of documents of the file before ``text``.
    """
    pieces = accel.block_pieces(text)
    if pieces is None:
        yield from _plain_stream(text, path, line_offset, index_offset)
        return
    index = index_offset
    for piece, line in pieces:  # the faster path (trainops._accel): the same documents
        parsed = (
            accel.parse_block(piece) if limits.document_size(piece) <= limits.MAX_DOCUMENT_BYTES else None
        )
        if parsed is not None:
            yield Document(path, index, parsed[0], None, [], line_offset + line, piece, values=parsed[1:])
            index += 1
            continue
        for item in _plain_stream(piece, path, line_offset + line, index):
            yield item
            if isinstance(item, Finding):
                return
            index += 1


def _plain_stream(text: str, path: str, line_offset: int, index_offset: int) -> Iterator[Document | Finding]:
    """:func:`stream_text` with PyYAML alone."""
    if limits.utf8_size(text) <= limits.MAX_DOCUMENT_BYTES and not limits.over_depth_bound(text):
        yield from _stream(text, path, line_offset, index_offset)
        return
    index = index_offset
    spans, stop = _document_spans(text)
    for start, line, end in spans:
        piece = text[start:end]
        rejected = _over_limits(piece, path, line_offset + line, index)
        if rejected is not None:
            yield rejected
            index += 1
            continue
        for item in _stream(piece, path, line_offset + line, index):
            yield item
            if isinstance(item, Finding):
                return
            index += 1
    if stop is not None:  # the rest holds the error that stopped the parser: read it for its finding
        start, line, error = stop
        if limits.document_size(text[start:error]) > limits.MAX_DOCUMENT_BYTES:
            yield _limit_finding(
                path,
                index,
                line_offset + line,
                f"document is over the limit of {limits.MAX_DOCUMENT_BYTES} bytes "
                "(3 MiB, the API server's request size limit) and does not parse; file not read further",
            )
            return
        yield from _stream(text[start:], path, line_offset + line, index)


def _document_spans(
    text: str,
) -> tuple[list[tuple[int, int, int]], tuple[int, int, int] | None]:
    """The documents of ``text`` as the parser's events delimit them: ``(start, line, end)`` each, a
    character range from the start of the document's first line and its 0-based line; and, when the
    parser stopped at an error, ``(start, line, error)`` of the document it was in, ``error`` the
    index where it stopped (else ``None``)."""
    spans: list[tuple[int, int, int]] = []
    start: tuple[int, int] | None = None
    loader = Loader(text)
    try:
        while loader.check_event():
            event = loader.get_event()
            if isinstance(event, yaml.DocumentStartEvent):
                start = _line_start(event.start_mark)
            elif isinstance(event, yaml.DocumentEndEvent) and start is not None:
                spans.append((start[0], start[1], _index(event.end_mark)))
                start = None
    except yaml.YAMLError as exc:
        if start is None:  # between documents: the error is in the next one
            end = spans[-1][2] if spans else 0
            start = (end, _line_of(text, end))
        mark = exc.problem_mark if isinstance(exc, yaml.MarkedYAMLError) else None
        if isinstance(exc, yaml.reader.ReaderError):
            error = _refused_index(exc, text)
        else:
            error = int(mark.index) if mark is not None else len(text)
        return spans, (start[0], start[1], max(start[0], min(error, len(text))))
    finally:
        loader.dispose()
    return spans, None


def _line_start(mark: Any) -> tuple[int, int]:
    """The index of the start of a parser mark's line, and that 0-based line."""
    assert mark is not None, "the parser marks every event"
    return int(mark.index) - int(mark.column), int(mark.line)


def _index(mark: Any) -> int:
    """The character index of a parser mark."""
    assert mark is not None, "the parser marks every event"
    return int(mark.index)


#: A line break as YAML (and go-yaml's ``is_break``) reads one; CR LF is one break.
_BREAK = re.compile("\r\n|[\r\n\x85\u2028\u2029]")


def _line_of(text: str, index: int) -> int:
    """0-based line of character ``index`` of ``text``, counting line breaks as the parser does."""
    return len(_BREAK.findall(text, 0, index))


def _line_text(text: str, line: int) -> str:
    """The 0-based ``line`` of ``text`` (line breaks as the parser reads them), or ``""``."""
    lines = _BREAK.split(text, maxsplit=line + 1)
    return lines[line] if line < len(lines) else ""


def _rejected(path: str, index: int, line: int, message: str, column: int | None = None) -> Document:
    """A document not read because it is over a resource limit (``line`` is 0-based)."""
    return Document(path, index, None, None, [], 0, None, _limit_finding(path, index, line, message, column))


def _limit_finding(path: str, index: int, line: int, message: str, column: int | None = None) -> Finding:
    """A ``yaml`` finding (keyword ``limit``) at 0-based ``line``."""
    return Finding(
        rule=YAML.id,
        level="error",
        message=message,
        file=path,
        line=line + 1,
        column=column,
        document=index,
        keyword="limit",
    )


def _out_of_memory(rest: bool = False) -> str:
    """The message of a document that exhausted the memory ceiling (``rest``: reading stops there)."""
    what = "it and the rest of the file are not read" if rest else "not read"
    return (
        "document exhausted the memory ceiling of trainops validate "
        f"({limits.MEMORY_LIMIT_ENV}, default {limits.DEFAULT_MEMORY_LIMIT >> 30} GiB); {what}"
    )


def _over_limits(text: str, path: str, line_offset: int, index: int) -> Document | None:
    """A rejected document when ``text`` (one document) is over the size or depth limit."""
    size = limits.document_size(text)
    if size > limits.MAX_DOCUMENT_BYTES:
        return _rejected(
            path,
            index,
            line_offset,
            f"document is {size} bytes, over the limit of {limits.MAX_DOCUMENT_BYTES} bytes "
            "(3 MiB, the API server's request size limit); not read",
        )
    if limits.over_depth_bound(text):
        where = limits.too_deep(text, Loader)
        if where is not None:
            return _rejected(
                path,
                index,
                line_offset + where[0],
                f"document nests deeper than {limits.MAX_DEPTH} levels of mappings and sequences; not read",
                where[1] + 1,
            )
    return None


def _tab_at(text: str, line: int, column: int) -> bool:
    """Whether a syntax error at 0-based (line, column) is at a tab or in tab-containing indentation."""
    row = _line_text(text, line)
    indent = row[: len(row) - len(row.lstrip(" \t"))]
    return "\t" in indent or row[column : column + 1] == "\t"


class _ExcessiveAliasing(Exception):
    """Raised by :class:`_CountingBuilder` when alias expansion exceeds go-yaml's bound."""


class _ExcessiveExpansion(Exception):
    """Raised by :class:`_CountingBuilder` when the built value's keys and scalars alone exceed
    :data:`~trainops.yaml.limits.MAX_DOCUMENT_BYTES` (a document without aliases never does)."""


#: An alias (``*name``) may occur: only then does building count alias expansion.
_ALIAS = re.compile(r"(?:^|[\s\[{,:?-])\*[^\s]", re.MULTILINE)


def _stream(text: str, path: str, line_offset: int, index_offset: int) -> Iterator[Document | Finding]:
    """The documents of ``text`` as PyYAML composes them, with problems, limits and positions."""
    index = index_offset
    if limits.over_depth_bound(text):
        where = limits.too_deep(text, Loader)
        if where is not None:  # the parser would recurse too deep: stop the file here
            yield _limit_finding(
                path,
                index,
                line_offset + where[0],
                f"nesting deeper than {limits.MAX_DEPTH} levels of mappings and sequences; file not read",
                where[1] + 1,
            )
            return
    builder_class = _CountingBuilder if "*" in text and _ALIAS.search(text) else _Builder
    loader = Loader(text)
    try:
        while loader.check_node():
            node = loader.get_node()
            if node is None:  # pragma: no cover - check_node guarantees a node
                break
            start, end = int(node.start_mark.index), int(node.end_mark.index)
            if limits.utf8_size(text[start:end]) > limits.MAX_DOCUMENT_BYTES:
                yield _rejected(
                    path,
                    index,
                    line_offset + int(node.start_mark.line),
                    f"document is over the limit of {limits.MAX_DOCUMENT_BYTES} bytes "
                    "(3 MiB, the API server's request size limit); not read",
                )
                index += 1
                continue
            builder = builder_class()
            try:
                data = builder.build(node)
            except _ExcessiveExpansion:
                yield _rejected(
                    path,
                    index,
                    line_offset + int(node.start_mark.line),
                    "document expands through its aliases to more than "
                    f"{limits.MAX_DOCUMENT_BYTES} bytes (3 MiB, the API server's request size limit; "
                    "kubectl sends the expanded object); not read",
                    int(node.start_mark.column) + 1,
                )
                index += 1
                continue
            except _ExcessiveAliasing:
                yield _rejected(
                    path,
                    index,
                    line_offset + int(node.start_mark.line),
                    "document contains excessive aliasing: alias expansion beyond go-yaml's bound "
                    "(allowedAliasRatio), as in a billion-laughs attack; not read",
                    int(node.start_mark.column) + 1,
                )
                index += 1
                continue
            except RecursionError:
                yield _rejected(path, index, line_offset + int(node.start_mark.line), _out_of_memory())
                index += 1
                continue
            except MemoryError:  # reading on at the ceiling only thrashes the collector: stop the file
                yield _limit_finding(
                    path, index, int(node.start_mark.line) + line_offset, _out_of_memory(True)
                )
                return
            yield Document(path, index, data, node, builder.issues(node), line_offset)
            index += 1
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = int(mark.line) + 1 + line_offset if mark else None
        column = int(mark.column) + 1 if mark else None
        problem = exc.problem or exc.context or "invalid YAML"
        context = f" ({exc.context})" if exc.context and exc.problem else ""
        if mark is not None and _tab_at(text, int(mark.line), int(mark.column)):
            problem = f"a tab character where YAML allows only spaces for indentation: {problem}"
        yield Finding(
            rule=YAML.id,
            level="error",
            message=f"invalid YAML: {problem}{context}",
            file=path,
            line=line,
            column=column,
            document=index,
        )
    except yaml.reader.ReaderError as exc:  # a character YAML does not allow (control characters)
        yield from _refused_character(exc, text, path, line_offset, index_offset, index)
    except yaml.YAMLError as exc:
        message = " ".join(str(exc).split())
        yield Finding(
            rule=YAML.id, level="error", message=f"invalid YAML: {message}", file=path, document=index
        )
    except MemoryError:
        yield Finding(rule=YAML.id, level="error", message=_out_of_memory(True), file=path, document=index)
    finally:
        loader.dispose()


def _refused_character(
    exc: yaml.reader.ReaderError, text: str, path: str, line_offset: int, index_offset: int, index: int
) -> Iterator[Document | Finding]:
    """The documents before a character the reader refuses, then its finding.

    LibYAML (like go-yaml) checks characters as it reads them into its buffer, ahead of the parser,
    and reports the offset in the UTF-8 bytes of the text: the documents between the last one
    yielded (``index``) and the one holding the character are read again without it, as kubectl,
    which splits a file into documents before parsing each, reads them.
    """
    position = _refused_index(exc, text)
    character = exc.character if isinstance(exc.character, int) else ord(exc.character)
    starts = _document_starts(text[:position])
    holding = max(0, len(starts) - 1)  # the document holding the character, counted from ``text``
    done = index - index_offset
    if done < holding:
        start, line = starts[done]
        for item in _stream(text[start : starts[holding][0]], path, line_offset + line, index):
            yield item
            if isinstance(item, Finding):
                return
    line_start = max(text.rfind(c, 0, position) for c in "\r\n\x85\u2028\u2029") + 1
    yield Finding(
        rule=YAML.id,
        level="error",
        message=f"invalid YAML: unacceptable character #x{character:04x}: {exc.reason}",
        file=path,
        line=_line_of(text, position) + 1 + line_offset,
        column=position - line_start + 1,
        document=index_offset + holding,
    )


def _refused_index(exc: yaml.reader.ReaderError, text: str) -> int:
    """The index in ``text`` of the character the reader refused (LibYAML gives a UTF-8 byte offset)."""
    position = int(exc.position)
    if isinstance(exc.character, int) and _BaseLoader is not yaml.SafeLoader:
        position = len(text.encode("utf-8", "surrogatepass")[:position].decode("utf-8", "replace"))
    return position


def _document_starts(text: str) -> list[tuple[int, int]]:
    """Where the parser starts each document of ``text`` (up to where it stops): the index of the
    start of the document's first line, and that 0-based line."""
    starts = []
    loader = Loader(text)
    try:
        while loader.check_event():
            event = loader.get_event()
            if isinstance(event, yaml.DocumentStartEvent):
                starts.append(_line_start(event.start_mark))
    except yaml.YAMLError:
        pass
    finally:
        loader.dispose()
    return starts


def duplicate_message(key: str) -> str:
    """The message of a duplicate mapping key."""
    return f'duplicate key "{key}" (the API server rejects duplicate fields)'


# First characters of plain scalars that PyYAML's YAML 1.1 resolver may type as something other
# than a string (bool, int, float, null, timestamp, merge, value); every other plain scalar is a str.
_RESOLVABLE_FIRST = frozenset("-+.0123456789~nNyYtTfFoO<=")
_SEQ = "tag:yaml.org,2002:seq"
_MAP = "tag:yaml.org,2002:map"


class Loader(_BaseLoader):  # type: ignore[misc,valid-type]
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


class _Builder:
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


class _CountingBuilder(_Builder):
    """:class:`_Builder` that bounds alias expansion as go-yaml does (``(*decoder).unmarshal``).

    An alias in a composed PyYAML tree is the anchored node itself, met a second time: every node
    built while inside such a repeat counts as aliased. Building stops with
    :class:`_ExcessiveAliasing` once :func:`~trainops.yaml.limits.excessive_aliasing` holds, and with
    :class:`_ExcessiveExpansion` once the characters of the keys and scalars built (repeats included,
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
                raise _ExcessiveAliasing
        cls = node.__class__
        if cls is yaml.ScalarNode:
            self._chars += len(node.value)
        elif cls is yaml.MappingNode:
            self._chars += sum(len(k.value) for k, _ in node.value if k.__class__ is yaml.ScalarNode)
        if self._chars > limits.MAX_DOCUMENT_BYTES:
            raise _ExcessiveExpansion
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
    """Cheap pre-check before :meth:`_Builder._ambiguous` (it runs for every plain scalar)."""
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
