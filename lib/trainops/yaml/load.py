"""Read YAML as the Kubernetes API server reads it, keeping positions for findings.

PyYAML's parser (its C LibYAML classes, a port of which go-yaml is) reads each file: it composes
each document into a node tree with line and column marks, and a small constructor
(:mod:`trainops.yaml.nodes`, imported only when PyYAML reads) turns nodes into plain JSON-like
values:

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
from typing import TYPE_CHECKING, Any, NamedTuple

from trainops import _accel as accel
from trainops.core.credentials import document_secrets, redact
from trainops.core.errors import UsageError
from trainops.core.findings import MESSAGE_LIMIT, Finding, Issue, json_path, one_line
from trainops.core.naming import KEY_LIMIT, shortened
from trainops.core.rules import RuleInfo, register
from trainops.yaml import limits

if TYPE_CHECKING:
    import yaml

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
            from trainops.yaml.nodes import compose

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
        import yaml  # here: a document the faster path read and located never needs PyYAML

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


class LoadedFile(NamedTuple):
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
    import yaml

    from trainops.yaml.nodes import Loader

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
        from trainops.yaml.nodes import Loader

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


def _stream(text: str, path: str, line_offset: int, index_offset: int) -> Iterator[Document | Finding]:
    """The documents of ``text`` as PyYAML composes them, with problems, limits and positions."""
    import yaml

    from trainops.yaml.nodes import (
        ALIAS,
        Builder,
        CountingBuilder,
        ExcessiveAliasing,
        ExcessiveExpansion,
        Loader,
    )

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
    builder_class = CountingBuilder if "*" in text and ALIAS.search(text) else Builder
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
            except ExcessiveExpansion:
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
            except ExcessiveAliasing:
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
    import yaml

    from trainops.yaml.nodes import BASE_LOADER

    position = int(exc.position)
    if isinstance(exc.character, int) and BASE_LOADER is not yaml.SafeLoader:
        position = len(text.encode("utf-8", "surrogatepass")[:position].decode("utf-8", "replace"))
    return position


def _document_starts(text: str) -> list[tuple[int, int]]:
    """Where the parser starts each document of ``text`` (up to where it stops): the index of the
    start of the document's first line, and that 0-based line."""
    import yaml

    from trainops.yaml.nodes import Loader

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
