"""Fast path for YAML loading: rapidyaml parses, emits JSON, and the C json module builds values.

PyYAML builds a Python node for every scalar and resolves its tag in Python; on ML-platform
manifests that is most of the validator's time. rapidyaml (a C++ parser) turns a document into
JSON about three times faster. Its typing is YAML 1.2, while the API server reads YAML 1.1
(go-yaml v2), so a document takes the fast path only when nothing in it could be read differently:

* no scalar that YAML 1.1 types otherwise (``y``/``n``/``yes``/``no``/``on``/``off``, ``~``,
  ``True``/``NULL`` spellings, legacy octal ``0755``, hex, binary, base-60, ``+1``, ``1_000``,
  ``.inf``/``.nan``, exponents without a dot), looked for in rapidyaml's JSON output;
* no anchors, aliases, merge keys or tags (``&``, ``*``, ``<<``, ``!``);
* no duplicate keys (checked while JSON objects are built), except where :func:`fast_document`
  can name the path of every duplicate (then the last value wins, as in the PyYAML path);
* a final line break (a block scalar at the very end of a file is chomped differently).

Anything else, and anything rapidyaml or the JSON step rejects, returns ``None`` and the caller
uses the PyYAML path, which also yields the exact problems and positions. The check is textual and
deliberately over-cautious: a false alarm only costs speed, never correctness.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache
from typing import Any, cast

from trainops.textsearch import searcher
from trainops.yaml.native import native


@cache
def _rapidyaml() -> Any:
    """The ``ryml`` module (rapidyaml), imported when a document first needs it (the block reader
    reads most documents, and the import is ~10 ms of start-up); ``None`` where it is not installed
    (the PyYAML path works without it)."""
    try:  # pragma: no cover - the dependency is pinned
        import ryml
    except ImportError:  # pragma: no cover
        return None
    return ryml


#: The C block reader (``trainops.yaml._blockyaml.parse``), or ``None`` where it was not built (then
#: rapidyaml reads every document).
block_parse: Callable[[str], tuple[Any, str] | None] | None = native("trainops.yaml._blockyaml", "parse")

#: Read documents in the block subset with :func:`block_parse` first (tests switch it off to compare).
BLOCK_READER = True

# The regular expressions below serve the paths most documents never take (the splitter in Python, for
# texts the C splitter declines; the rapidyaml reader, for documents the block reader declines), so
# they are compiled when first used (:func:`_pattern`): compiling them at import cost a one-file
# ``trainops validate`` about 2 % of its instructions (callgrind).

#: A line that starts a YAML document (``---`` at column 0 always does; see engine.plan_units).
_DOC_START = (r"^---(?:[ \t]|$)", re.MULTILINE)
#: Stream-level syntax the splitter does not model: directives and document-end markers.
_STREAM_SYNTAX = (r"^(?:%|\.\.\.(?:[ \t]|$))", re.MULTILINE)
#: ``_DOC_START`` after the first line: searched from its literal ``\n---`` (``^`` would be tried at
#: every position); the match starts one character before the document.
_NEXT_DOC_START = (r"\n---(?=[ \t\n]|\Z)", 0)
#: A line with content: YAML's white space is only space and tab (a no-break space, which Python's
#: ``\s`` matches, starts a plain scalar: ``\xa0: 1`` is a mapping for go-yaml and PyYAML).
_CONTENT = (r"^[ \t]*[^ \t\r\n#]", re.MULTILINE)

#: A JSON string holding a scalar YAML 1.1 types otherwise (bool, null, octal, hex, base-60, ...).
#: Matched on rapidyaml's JSON output, where keys and values both appear as JSON strings; a quoted
#: YAML string that happens to match only costs a fallback.
_AMBIGUOUS_JSON = (
    r'"(?=[yYnNoOtTfF~.+\-0-9])(?:y(?:es)?|Y(?:es|ES)?|n(?:o)?|N(?:o|O|ull|ULL)?|o(?:n|ff)|O(?:n|N|ff|FF)|~|'
    r"T(?:rue|RUE)|F(?:alse|ALSE)|"
    r"[-+]?(?:\.(?:inf|Inf|INF|nan|NaN|NAN)|"
    r"0[0-7_]+|0x[0-9a-fA-F_]+|0b[01_]+|"
    r"[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?|"
    r"[0-9]+_[0-9_]*(?:\.[0-9_]*)?)|"
    r'\+[0-9][0-9._]*)"',
    0,
)
#: A JSON string (in rapidyaml's output) starting with an indicator that cannot start a plain scalar
#: in YAML 1.1 (``k: ]x``, ``[?x]``, ``{a: %x}``): rapidyaml accepts some of these, go-yaml and PyYAML
#: do not. Also an empty key (``?`` or ``:`` alone, which rapidyaml reads as ``""``). Quoted YAML
#: strings like ``"*"`` or ``""`` match too and only cost a fallback.
#: Written quote first (each alternative checks what precedes the quote afterwards), so the search only
#: stops at quotes: ``(?:^|(?<=[\[{,:\s]))"[\]}%?:&*@`]|(?<=[{,\s])"":`` matches the same texts.
_RESERVED_JSON = (r'"(?:[\]}%?:&*@`](?<![^\[{,:\s]"[\]}%?:&*@`])|"(?<=[{,\s]"")(?=:))', 0)
#: :data:`_AMBIGUOUS_JSON` or :data:`_RESERVED_JSON` in one pass: both start at a quote, so one search
#: that tries both alternatives at each quote matches where either does (half the cost of two searches).
_SCREEN_JSON = ('"(?:' + _AMBIGUOUS_JSON[0][1:] + "|" + _RESERVED_JSON[0][1:] + ")", 0)
_LONE_CR = (r"\r(?!\n)", 0)
#: Anchors, aliases and tags, and a lone ``&`` or ``*`` ending a line (an error for go-yaml and
#: PyYAML, a null for rapidyaml): only looked for (with a regex) when one of the characters occurs.
#: Reserved indicators (``@``, backquote) starting a scalar are caught on the JSON (:data:`_RESERVED_JSON`).
_NODE_PROPERTY = (r"(?:^|[\s\[{,:?-])(?:[&*!][^\s]|[&*][ \t]*$)", re.MULTILINE)


@cache
def _pattern(source: tuple[str, int]) -> re.Pattern[str]:
    """The compiled form of one of the (pattern, flags) pairs above, compiled on first use."""
    return re.compile(*source)


@dataclass(frozen=True)
class Chunk:
    """The text of one YAML document and where it starts.

    Args:
        text: the document's text (including its ``---`` line, if any).
        line_offset: number of lines of the file before ``text``.
    """

    text: str
    line_offset: int


def split_documents(text: str) -> list[Chunk] | None:
    """Split a YAML stream into per-document chunks at ``---`` lines.

    Returns ``None`` when the stream uses syntax this splitter does not model (directives,
    ``...`` end markers): the caller then parses the whole text with PyYAML. Text before the first
    ``---`` is a document only when it has content other than comments, as in YAML.
    """
    markers = "\n%" in text or "\n..." in text or text.startswith(("%", "..."))
    if markers and _pattern(_STREAM_SYNTAX).search(text):
        return None
    starts = [m.start() + 1 for m in _pattern(_NEXT_DOC_START).finditer(text)]
    if _pattern(_DOC_START).match(text):
        starts.insert(0, 0)
    chunks: list[Chunk] = []
    bounds = [0, *starts, len(text)]
    line = 0
    for index in range(len(bounds) - 1):
        begin, end = bounds[index], bounds[index + 1]
        piece = text[begin:end]
        if index > 0 or (begin < end and _pattern(_CONTENT).search(piece)):
            chunks.append(Chunk(piece, line))
        line += piece.count("\n")
    return chunks


#: ``trainops.yaml._blockyaml.split`` (C), or ``None`` where it was not built.
_SPLIT: Callable[[str], Any] | None = native("trainops.yaml._blockyaml", "split")


def split_pieces(text: str) -> list[tuple[str, int]] | None:
    """:func:`split_documents` as ``(text, line_offset)`` pairs, split in C where the text's characters
    are all below U+0100 (``trainops.yaml._blockyaml.split``, property-tested against it)."""
    if _SPLIT is not None:
        pieces = _SPLIT(text)
        if pieces is not NotImplemented:
            return cast("list[tuple[str, int]] | None", pieces)
    chunks = split_documents(text)
    return None if chunks is None else [(chunk.text, chunk.line_offset) for chunk in chunks]


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) != len(pairs):
        raise _Duplicate
    return result


#: Mappings with duplicate keys met while :func:`fast_document` builds one document: (mapping, keys
#: repeated, once per later occurrence).
_DUPLICATES: list[tuple[dict[str, Any], list[str]]] = []


def _object_recording(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) != len(pairs):
        seen: set[str] = set()
        repeated = []
        for key, _ in pairs:
            if key in seen:
                repeated.append(key)
            seen.add(key)
        _DUPLICATES.append((result, repeated))
    return result


def _float(text: str) -> float:
    if "e" in text or "E" in text:  # PyYAML's YAML 1.1 reads 1e3 (no dot) as a string
        raise ValueError(text)
    return float(text)


#: ``json.loads(text, object_pairs_hook=_object_recording, parse_float=_float)``, its decoder made once
#: (``json.loads`` with keyword arguments builds a new ``JSONDecoder`` per call).
_DECODER = json.JSONDecoder(object_pairs_hook=_object_recording, parse_float=_float)

#: A JSON number token with a fraction or an exponent: after ``:``, ``[``, ``,``, white space or the
#: start, before ``,``, ``]``, ``}``, white space or the end (where JSON puts every number token).
#: Also found in some strings (``"--lr 0.5 --x"``), which only costs the slower decoder.
_FLOAT_TOKEN = (
    r"(?:^|[:\[, \t\n\r])-?[0-9]+(?:\.[0-9]+(?:[eE][-+]?[0-9]+)?|[eE][-+]?[0-9]+)(?:[,\]} \t\n\r]|$)"
)


@cache
def _float_token_in() -> Callable[[str], bool]:
    """A search for :data:`_FLOAT_TOKEN` (:func:`trainops.textsearch.searcher`, Rust's regex crate),
    made on first use."""
    return searcher(_FLOAT_TOKEN)


@cache
def _jiter_from_json() -> Callable[..., Any] | None:
    """``jiter.from_json``, imported on first use (start-up), or ``None`` without jiter."""
    try:
        import jiter
    except ImportError:  # pragma: no cover - the dependency is pinned; the json module gives the same values
        return None
    return jiter.from_json


def _decode(text: str) -> Any:
    """``_DECODER.decode(text)``: the value of rapidyaml's JSON ``text``, with every mapping that has
    duplicate keys recorded in :data:`_DUPLICATES` (the last value wins).

    jiter (pydantic's JSON parser, in Rust) builds the same value without a Python call per object when
    it can answer exactly: it raises ``ValueError`` on a duplicate key (``catch_duplicate_keys``,
    comparing decoded keys) and on everything the json module rejects (control characters in strings,
    invalid numbers, integers over Python's 4,300-digit limit), and its strings, integers, ``NaN`` and
    ``Infinity`` are the json module's. A text that may hold a float (:data:`_FLOAT_TOKEN`), where
    :func:`_float` must see the token, and anything jiter rejects (also escaped lone surrogates, which
    the json module keeps) go to the json module, which records the duplicates.
    """
    from_json = _jiter_from_json()
    if from_json is not None and not _float_token_in()(text):
        try:
            return from_json(text.encode("utf-8"), catch_duplicate_keys=True, cache_mode="keys")
        except ValueError:
            pass
    return _DECODER.decode(text)


class _Duplicate(ValueError):
    """A mapping with a duplicate key: the PyYAML path reports it with its position."""


_DEVNULL: int | None = None
#: Set in worker processes whose stderr is already /dev/null (see :func:`silence_stderr`).
_SILENCED = False


def silence_stderr() -> None:
    """Point this process's fd 2 at /dev/null for good (validation workers report via the pool)."""
    global _SILENCED
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 2)
    os.close(devnull)
    _SILENCED = True


def fast_value(chunk: str) -> tuple[bool, Any]:
    """Parse one document's text on the fast path.

    Returns:
        ``(True, value)`` when the fast path applies (``value`` is ``None`` for an empty
        document), or ``(False, None)`` when the caller must use the PyYAML path (also for
        duplicate keys: see :func:`fast_document`).
    """
    fast, value, duplicates = fast_document(chunk)
    return (True, value) if fast and not duplicates else (False, None)


#: A duplicate key: (JSON path of the mapping holding it, the key), once per later occurrence.
Duplicate = tuple[tuple[str | int, ...], str]


def fast_document(chunk: str) -> tuple[bool, Any, list[Duplicate]]:
    """:func:`fast_value`, also for documents with duplicate keys: ``(True, value, duplicates)``
    where the last value of a repeated key wins (as the PyYAML path builds it) and ``duplicates``
    names each repeated key with the path of its mapping; ``(False, None, [])`` when the caller
    must use the PyYAML path (also when a duplicate sits inside a value that a later duplicate
    replaced: its path is not in the result)."""
    fast, value, duplicates, _ = fast_document_json(chunk)
    return fast, value, duplicates


def fast_document_json(
    chunk: str, *, block_reader: bool = True
) -> tuple[bool, Any, list[Duplicate], str | None]:
    """:func:`fast_document` plus the JSON text rapidyaml emitted for the document (``None`` for an
    empty document or when the PyYAML path must be used).

    A document in the block subset of :mod:`trainops.yaml._blockyaml` (most manifests) is read by that C
    module in one pass, which builds the same value and a JSON text with the same strings; the others
    by rapidyaml as described in the module docstring. ``block_reader=False`` skips the C reader (for a
    caller that has just tried it on ``chunk``).

    ``value`` is ``json.loads`` of that text, so every string of ``value`` (key or value) appears in it
    as a JSON string literal (``"`` and ``\\`` escaped, line breaks as ``\\n``; other characters as
    they are): checks may search the text instead of walking ``value`` (e.g. :mod:`trainops.validate.
    checks.secret_literal`, :mod:`trainops.validate.nulls`). With duplicate keys the text also holds
    the values the last duplicate replaced.
    """
    if block_reader and BLOCK_READER and block_parse is not None:
        parsed = block_parse(chunk)
        if parsed is not None:
            return True, parsed[0], [], parsed[1]
    # rapidyaml and PyYAML disagree on a block scalar ending the file without a final line break.
    ryml = _rapidyaml()
    if ryml is None or "<<" in chunk or not chunk.endswith("\n"):
        return False, None, [], None
    if "\x85" in chunk or "\u2028" in chunk or "\u2029" in chunk:  # line breaks in YAML 1.1, not in 1.2
        return False, None, [], None
    # a lone carriage return is a line break for PyYAML and go-yaml, content for rapidyaml
    if "\r" in chunk and _pattern(_LONE_CR).search(chunk):
        return False, None, [], None
    if ("&" in chunk or "*" in chunk or "!" in chunk) and _pattern(_NODE_PROPERTY).search(chunk):
        return False, None, [], None
    try:
        tree = _quiet_parse(chunk.encode("utf-8"))
    except Exception:  # rapidyaml rejects it: PyYAML reports the error with its position
        return False, None, [], None
    root = tree.root_id()
    doc = tree.first_child(root) if tree.is_stream(root) else root
    if doc == ryml.NONE:
        return True, None, [], None
    if not tree.is_map(doc) and not tree.is_seq(doc) and not tree.has_val(doc):
        return True, None, [], None
    try:
        text = _emit_json(tree, doc)
    except Exception:  # rapidyaml cannot emit it (e.g. nesting past its limit): use the PyYAML path
        return False, None, [], None
    if _pattern(_SCREEN_JSON).search(text):
        return False, None, [], None
    _DUPLICATES.clear()
    try:
        value = _decode(text)
    except ValueError:  # exponent floats, or a scalar JSON cannot hold (e.g. 1.)
        return False, None, [], None
    if not _DUPLICATES:
        return True, value, [], text
    duplicates = _duplicate_paths(value)
    _DUPLICATES.clear()
    if duplicates is None:
        return False, None, [], None
    return True, value, duplicates, text


def _duplicate_paths(value: Any) -> list[Duplicate] | None:
    """Paths of the mappings recorded in :data:`_DUPLICATES`, or ``None`` if one is not in ``value``."""
    wanted = {id(mapping): keys for mapping, keys in _DUPLICATES}
    found: list[Duplicate] = []
    stack: list[tuple[Any, tuple[str | int, ...]]] = [(value, ())]
    while stack:
        node, path = stack.pop()
        if isinstance(node, dict):
            for key in wanted.pop(id(node), []):
                found.append((path, key))
            stack.extend((item, (*path, key)) for key, item in node.items())
        elif isinstance(node, list):
            stack.extend((item, (*path, index)) for index, item in enumerate(node))
    return None if wanted else sorted(found, key=lambda d: (len(d[0]), str(d)))


_BUFFER = bytearray(1 << 16)


def _emit_json(tree: Any, node: int) -> str:
    """The JSON of ``node``, emitted into a reused buffer (``emit_json_malloc`` leaks its result)."""
    global _BUFFER
    ryml = _rapidyaml()
    failed, size = ryml.emit_json_to_substr(tree, node, _BUFFER)
    if failed:
        _BUFFER = bytearray(max(size, 2 * len(_BUFFER)))
        failed, size = ryml.emit_json_to_substr(tree, node, _BUFFER)
    return _BUFFER[:size].decode("utf-8")


def _quiet_parse(data: bytes) -> Any:
    """``ryml.parse_in_arena`` with stderr silenced (rapidyaml prints parse errors on fd 2)."""
    global _DEVNULL
    ryml = _rapidyaml()
    if _SILENCED:
        return ryml.parse_in_arena(data)
    if _DEVNULL is None:
        _DEVNULL = os.open(os.devnull, os.O_WRONLY)
    saved = os.dup(2)
    try:
        os.dup2(_DEVNULL, 2)
        return ryml.parse_in_arena(data)
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def iter_fast(text: str) -> Iterator[tuple[Chunk, bool, Any, list[Duplicate]]] | None:
    """``(chunk, fast, value, duplicates)`` for each document of ``text`` (see :func:`fast_document`),
    or ``None`` if it cannot be split."""
    chunks = split_documents(text)
    if chunks is None:
        return None
    return ((chunk, *fast_document(chunk.text)) for chunk in chunks)
