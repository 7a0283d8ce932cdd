"""Read YAML as the Kubernetes API server reads it, keeping positions for findings.

One pass per file: PyYAML's C parser composes each document into a node tree (with line and
column marks), and a small constructor here turns nodes into plain JSON-like values:

* timestamps stay strings (``sigs.k8s.io/yaml`` decodes into ``interface{}``, where go-yaml keeps
  them as strings) and YAML 1.1 sexagesimal numbers (``1:20``) stay strings;
* mapping keys become strings, as JSON requires; merge keys (``<<``) are applied;
* duplicate keys are findings: the API server's strict decoding rejects them
  (``kubectl apply --validate=strict``; KEP-2885 server-side field validation).

Positions of JSON paths are computed lazily from the kept nodes, only for documents with findings.

Untrusted input is bounded first (:mod:`trainops.yaml.limits`): a document over the size or depth
limit, one that expands aliases beyond go-yaml's ratio, or one that exhausts the memory ceiling is
a ``yaml`` finding for that document (``Document.rejected``), and the next document is still read.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trainops.credentials import document_secrets, json_may_hold_credential, redact, secret_like_anywhere
from trainops.errors import UsageError
from trainops.findings import Finding, Issue, json_path
from trainops.rules import RuleInfo, register
from trainops.yaml import fast as fast_path
from trainops.yaml import limits
from trainops.yaml.fast import fast_document_json, split_pieces

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
#: Use the rapidyaml fast path where it gives the same values (see :mod:`trainops.yaml.fast`).
FAST_PATH = True


@dataclass
class Document:
    """One YAML document of a file.

    Args:
        file: the file path as given (or found under a given directory).
        index: 0-based index of the document in the file (empty documents count).
        data: the constructed value (usually a dict).
        node: the composed node tree, for positions (``None`` until needed on the fast path).
        problems: issues found while constructing: duplicate keys (errors) and plain scalars whose
            meaning depends on the YAML version (warnings).
        line_offset: lines of the file before the parsed chunk (see :func:`stream_text`).
        text: the document's own text, kept by the fast path to compose ``node`` lazily.
        rejected: the finding that stopped this document from being read (over a resource limit);
            ``data`` is then ``None``.
        json: the JSON text ``data`` was decoded from on the fast path, else ``None`` (see
            :func:`~trainops.yaml.fast.fast_document_json`).
    """

    file: str
    index: int
    data: Any
    node: yaml.Node | None
    problems: list[Issue] = field(default_factory=list)
    line_offset: int = 0
    text: str | None = None
    rejected: Finding | None = None
    json: str | None = None

    def _node(self) -> yaml.Node:
        """The composed node tree; composed from ``text`` on first use for fast-path documents."""
        if self.node is None:
            assert self.text is not None, "a document has a node or its text"
            from trainops.yaml.pyyaml_path import compose

            self.node = compose(self.text)
        return self.node

    @property
    def line(self) -> int:
        """1-based line where the document's content starts."""
        return int(self._node().start_mark.line) + 1 + self.line_offset

    def locate(self, parts: Sequence[str | int]) -> tuple[int, int]:
        """1-based (line, column) of the node at ``parts``, or of its deepest existing ancestor.

        For a mapping entry the position of its key is returned (where a reader looks for
        ``field:``); for a sequence item, the item's own position. Fast-path documents are read
        line by line when they are in plain block style (:mod:`trainops.yaml.locate`, the same
        answer without composing a node tree); the rest are composed.
        """
        if self.node is None and self.text is not None:
            from trainops.yaml.locate import locate_in_text  # only once there is a finding (start-up)

            position = locate_in_text(self.text, parts)
            if position is not None:
                return position[0] + 1 + self.line_offset, position[1] + 1
        import yaml

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


def one_line(text: str) -> str:
    """Text quoting values from a document (messages, kinds, names, paths) as one printable line:
    line breaks (including U+2028/U+2029/U+0085) and other control characters are escaped, so a
    finding is one line in every report (found by ``make fuzz``)."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)


def _secrets_of(document: Document, data: Any) -> tuple[str, ...]:
    """The document's literal credentials (:func:`~trainops.credentials.document_secrets`), which no
    message may quote; the walk is skipped when the document's JSON text (on the fast path) shows
    none can be there."""
    text = document.json
    if (
        text is not None
        and '"Secret"' not in text
        and not json_may_hold_credential(text)
        and not secret_like_anywhere(text)
    ):
        return ()
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
    api_version = one_line(api_version) if isinstance(api_version, str) else None
    kind = one_line(kind) if isinstance(kind, str) else None
    namespace = one_line(namespace) if isinstance(namespace, str) else None
    name = one_line(name) if isinstance(name, str) else None
    findings = []
    secrets = _secrets_of(document, data)
    for issue in unique:
        line, column = document.locate(issue.parts)
        findings.append(
            Finding(
                rule=issue.rule,
                level=issue.level,
                message=redact(one_line(issue.message), secrets),
                file=file,
                line=line,
                column=column,
                document=index,
                api_version=api_version,
                kind=kind,
                namespace=namespace,
                name=name,
                path=_path_text(issue.parts),
                keyword=issue.keyword,
                remediation=None if remediation is None else remediation(issue.rule),
            )
        )
    return findings


#: JSON path text of path parts already rendered (findings of many documents share their paths).
_PATH_TEXTS: dict[tuple[str | int, ...], str] = {}


def _path_text(parts: tuple[str | int, ...]) -> str:
    """``one_line(json_path(parts))``, remembered for up to 65,536 paths."""
    try:
        return _PATH_TEXTS[parts]
    except KeyError:
        if len(_PATH_TEXTS) >= 65536:
            _PATH_TEXTS.clear()
        text = _PATH_TEXTS[parts] = one_line(json_path(parts))
        return text
    except TypeError:  # parts given as a list
        return one_line(json_path(parts))


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

    Streaming keeps memory flat on large inputs: a caller validates each document and drops it.

    Args:
        text: YAML text, possibly a chunk of a larger file.
        path: file name for documents and findings.
        line_offset: number of lines of the file before ``text`` (positions are shifted by it).
        index_offset: number of documents of the file before ``text``.
    """
    chunks = split_pieces(text) if FAST_PATH else None
    if chunks is None:
        from trainops.yaml.pyyaml_path import stream_pyyaml

        yield from stream_pyyaml(text, path, line_offset=line_offset, index_offset=index_offset)
        return
    index = index_offset
    block = fast_path.block_parse if fast_path.BLOCK_READER else None
    for chunk_text, chunk_line in chunks:
        offset = line_offset + chunk_line
        if block is not None and len(chunk_text) <= limits.MAX_DOCUMENT_BYTES:
            # ASCII text (the only kind it reads): its length is its size in bytes; it refuses nesting
            # deeper than 100 < MAX_DEPTH, so no limit applies to what it returns.
            try:
                parsed = block(chunk_text)
            except MemoryError:
                parsed = None
            if parsed is not None:
                yield Document(path, index, parsed[0], None, [], offset, chunk_text, json=parsed[1])
                index += 1
                continue
        rejected = _over_limits(chunk_text, path, offset, index)
        if rejected is not None:
            yield rejected
            index += 1
            continue
        try:
            fast, value, duplicates, json_text = fast_document_json(chunk_text, block_reader=block is None)
        except MemoryError:
            yield _rejected(path, index, offset, _out_of_memory())
            index += 1
            continue
        if fast:
            problems = [
                Issue((*parts, key), duplicate_message(key), YAML.id, "duplicate-key", "error")
                for parts, key in duplicates
            ]
            yield Document(path, index, value, None, problems, offset, chunk_text, json=json_text)
            index += 1
            continue
        from trainops.yaml.pyyaml_path import stream_pyyaml

        for item in stream_pyyaml(chunk_text, path, line_offset=offset, index_offset=index, bounded=True):
            yield item
            if isinstance(item, Finding):
                return
            index += 1


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


def _out_of_memory() -> str:
    return (
        "document exhausted the memory ceiling of trainops validate "
        f"({limits.MEMORY_LIMIT_ENV}, default {limits.DEFAULT_MEMORY_LIMIT >> 30} GiB); not read"
    )


def _over_limits(text: str, path: str, line_offset: int, index: int) -> Document | None:
    """A rejected document when ``text`` (one document) is over the size or depth limit."""
    size = limits.utf8_size(text)
    if size > limits.MAX_DOCUMENT_BYTES:
        return _rejected(
            path,
            index,
            line_offset,
            f"document is {size} bytes, over the limit of {limits.MAX_DOCUMENT_BYTES} bytes "
            "(3 MiB, the API server's request size limit); not read",
        )
    if limits.over_depth_bound(text):
        from trainops.yaml.pyyaml_path import Loader

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


def duplicate_message(key: str) -> str:
    """The message of a duplicate mapping key (both loading paths use it)."""
    return f'duplicate key "{key}" (the API server rejects duplicate fields)'
