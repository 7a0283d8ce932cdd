"""Resource bounds of the YAML loader: what untrusted input may cost before it is a finding.

``trainops validate`` runs in CI on YAML from anyone who can open a pull request, so every input is
bounded before a parser or the validator spends memory or stack on it:

* :data:`MAX_DOCUMENT_BYTES` (3 MiB) per document: the API server's request body limit
  (``k8s.io/apiserver/pkg/server/config.go``: ``MaxRequestBodyBytes: 3 * 1024 * 1024``); a larger
  document could never be applied.
* :data:`MAX_DEPTH` (128) nested collections per document: go-yaml's scanner stops at 10000
  (``yaml.v3 scannerc.go``: ``max_flow_level``/``max_indents``, "exceeded max depth"), but the C
  parsers used here recurse on the native stack and the checks recurse in Python, so trainops
  stops earlier; the deepest upstream object in ``../shared`` (the Trainer TrainJob CRD) nests 47.
* alias expansion as go-yaml bounds it (:func:`allowed_alias_ratio`), so a 1 KB "billion laughs"
  document is a finding while ordinary anchors keep working.
* :data:`DEFAULT_MEMORY_LIMIT` (4 GiB of address space) for a whole ``validate`` run
  (:func:`apply_memory_limit`); running out is a finding for the document being read, not a crash.
"""

from __future__ import annotations

import os
import re
import resource
from functools import cache
from itertools import pairwise
from typing import TYPE_CHECKING

from trainops.core.errors import UsageError

if TYPE_CHECKING:
    import yaml

#: Largest document (UTF-8 bytes) that is parsed; the API server's ``MaxRequestBodyBytes``.
MAX_DOCUMENT_BYTES = 3 * 1024 * 1024
#: Deepest nesting of mappings and sequences in one document.
MAX_DEPTH = 128
#: Address-space ceiling (bytes) of ``trainops validate``; ``TRAINOPS_MEMORY_LIMIT`` overrides it
#: (a number of bytes, or with a ``K``/``M``/``G`` suffix; ``0`` disables it).
DEFAULT_MEMORY_LIMIT = 4 << 30
MEMORY_LIMIT_ENV = "TRAINOPS_MEMORY_LIMIT"

# gopkg.in/yaml.v3 decode.go (and sigs.k8s.io/yaml/goyaml.v2 decode.go): alias_ratio_range_low/high.
_ALIAS_RATIO_RANGE_LOW = 400_000
_ALIAS_RATIO_RANGE_HIGH = 4_000_000
_ALIAS_RATIO_RANGE = float(_ALIAS_RATIO_RANGE_HIGH - _ALIAS_RATIO_RANGE_LOW)


def allowed_alias_ratio(decode_count: int) -> float:
    """Share of decoded nodes that may come from alias expansion after ``decode_count`` nodes.

    Mirrors ``allowedAliasRatio`` in gopkg.in/yaml.v3 ``decode.go``: 99 % up to 400,000 decoded
    nodes, 10 % from 4,000,000, scaled linearly in between. go-yaml fails a document with
    "document contains excessive aliasing" when more than 100 aliased nodes and more than 1,000
    nodes in all were decoded and the aliased share exceeds this ratio
    (``(*decoder).unmarshal``); see :func:`excessive_aliasing`.
    """
    if decode_count <= _ALIAS_RATIO_RANGE_LOW:
        return 0.99
    if decode_count >= _ALIAS_RATIO_RANGE_HIGH:
        return 0.10
    return 0.99 - 0.89 * ((decode_count - _ALIAS_RATIO_RANGE_LOW) / _ALIAS_RATIO_RANGE)


def excessive_aliasing(decode_count: int, alias_count: int) -> bool:
    """go-yaml's test in ``(*decoder).unmarshal``: whether decoding must stop.

    Args:
        decode_count: nodes decoded so far in the document (aliased ones included).
        alias_count: nodes decoded while expanding an alias.
    """
    return (
        alias_count > 100
        and decode_count > 1000
        and alias_count / decode_count > allowed_alias_ratio(decode_count)
    )


# Leading indentation plus block indicators ("- ", "? ") of each line: the column where a block
# node can start. Block nesting adds at most two levels per column (a sequence as a mapping value
# shares its key's column), so 2 * (widest prefix + 1) plus every flow opener bounds the depth. A line
# starts after any line break YAML knows (LF, CR, NEL, LS, PS: go-yaml's ``is_break``).
_LINE_START = "(?:^|(?<=[\n\r\x85\u2028\u2029]))"
_BLOCK_PREFIX = _LINE_START + r"[ \t?-]*"


#: Line breaks (go-yaml's ``is_break``), and what may follow a document marker (``---``, ``...``).
_BREAKS = "\n\r\x85\u2028\u2029"
_AFTER_MARKER = " \t" + _BREAKS


def flow_openers(text: str) -> int:
    """The most flow collection openers (``[``, ``{``) in one document of ``text``: counted between
    document markers (``---`` or ``...`` at the start of a line), which no flow collection, quoted or
    block scalar spans (go-yaml and LibYAML end a scalar there, or fail inside a flow collection);
    a bound of each document's flow nesting, not of the whole stream's."""
    if "[" not in text and "{" not in text:
        return 0
    cuts = [0]
    for marker in ("---", "..."):
        at = text.find(marker)
        while at >= 0:
            end = at + 3
            if (at == 0 or text[at - 1] in _BREAKS) and (end == len(text) or text[end] in _AFTER_MARKER):
                cuts.append(at)
            at = text.find(marker, end)
    cuts.sort()
    cuts.append(len(text))
    return max(text.count("[", a, b) + text.count("{", a, b) for a, b in pairwise(cuts))


def depth_bound(text: str) -> int:
    """A cheap upper bound of the nesting depth of each document of ``text`` (no parsing; may
    overestimate a lot)."""
    flow = flow_openers(text)
    if flow > MAX_DEPTH:
        return flow
    widest = max(map(len, re.findall(_BLOCK_PREFIX, text)), default=0)
    return 2 * (widest + 1) + flow


def over_depth_bound(text: str, limit: int = MAX_DEPTH) -> bool:
    """``depth_bound(text) > limit`` (for ``limit <= MAX_DEPTH``), answered by looking for one line whose
    prefix is wide enough instead of measuring every line (a few microseconds per document)."""
    flow = flow_openers(text)
    if flow > limit:
        return True
    # 2 * (widest + 1) + flow > limit  <=>  widest >= wide
    wide = (limit - flow - 2) // 2 + 1
    if wide <= 0:
        return True
    return _wide_prefix_in(wide).search(text) is not None


@cache
def _wide_prefix_in(wide: int) -> re.Pattern[str]:
    """A search for a line of a text that starts with ``wide`` block-prefix characters, made once per
    width."""
    return re.compile(_LINE_START + "[ \t?-]{" + str(wide) + "}")


def too_deep(text: str, loader: type[yaml.SafeLoader], limit: int = MAX_DEPTH) -> tuple[int, int] | None:
    """Where ``text`` first nests deeper than ``limit``: a 0-based (line, column), else ``None``.

    Uses the libyaml event stream, which keeps its state on the heap (composing nodes recurses on
    the native stack and crashes the process on a deep enough document). Call it only when
    :func:`depth_bound` exceeds ``limit``. Syntax errors end the scan quietly (the parser that
    runs next reports them with their position).
    """
    import yaml  # only for documents that may nest too deep (start-up)

    depth = 0
    loader_instance = loader(text)
    try:
        while loader_instance.check_event():
            event = loader_instance.get_event()  # type: ignore[no-untyped-call]
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
                mark = event.start_mark
                if depth > limit and mark is not None:
                    return int(mark.line), int(mark.column)
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
    except yaml.YAMLError:
        return None
    finally:
        loader_instance.dispose()
    return None


def utf8_size(text: str) -> int:
    """Size of ``text`` in UTF-8 bytes (encoded only when it could matter for the limit)."""
    if len(text) * 4 <= MAX_DOCUMENT_BYTES:
        return len(text)
    return len(text.encode("utf-8", "surrogatepass"))


#: A ``---`` line that only separates documents: the marker, then blanks or a comment, to the line
#: break (go-yaml's ``is_break``; CR LF is one) or the end of the text.
_SEPARATOR_LINE = re.compile(r"---[ \t]*(?:#[^\n\r\x85\u2028\u2029]*)?(?:\r\n|[\n\r\x85\u2028\u2029]|\Z)")


def document_size(text: str) -> int:
    """Size in UTF-8 bytes of one document ``text`` (from the start of its first line) as kubectl
    sends it, compared with :data:`MAX_DOCUMENT_BYTES`: without the ``---`` line that starts it when
    that line only separates documents (blanks or a comment after the marker). kubectl's reader
    never puts such a line into a document (``YAMLReader.Read``, k8s.io/apimachinery v0.36
    ``pkg/util/yaml/decoder.go``: a line starting with ``---`` and only a comment or spaces after it
    ends the buffer and is not written to it), so a document of exactly 3 MiB after ``---`` passes.
    As :func:`utf8_size`, exact only when it could matter for the limit.
    """
    size = utf8_size(text)
    if text.startswith("---"):
        separator = _SEPARATOR_LINE.match(text)
        if separator is not None:
            size -= utf8_size(separator.group())
    return size


def parse_memory_limit(raw: str) -> int:
    """``TRAINOPS_MEMORY_LIMIT`` as bytes: ``"4G"``, ``"512M"``, ``"1048576"``; ``0`` means none.

    Raises:
        UsageError: not a non-negative number with an optional ``K``/``M``/``G`` suffix.
    """
    match = re.fullmatch(r"\s*(\d+)\s*([KMG]?)i?B?\s*", raw, re.IGNORECASE)
    if match is None:
        raise UsageError(f"{MEMORY_LIMIT_ENV}={raw!r}: expected bytes, e.g. 4G or 512M")
    shift = {"": 0, "K": 10, "M": 20, "G": 30}[match.group(2).upper()]
    return int(match.group(1)) << shift


def apply_memory_limit(limit: int | None = None) -> int:
    """Lower this process's address-space limit (``RLIMIT_AS``) to ``limit`` bytes.

    Default: ``TRAINOPS_MEMORY_LIMIT`` if set, else :data:`DEFAULT_MEMORY_LIMIT`. Never raises the
    limit above the current hard limit; ``0`` leaves it alone. Worker processes inherit it. An
    allocation beyond it raises ``MemoryError``, which the loader and engine turn into a finding.

    Returns:
        the limit in force afterwards (bytes), or 0 when none.

    Raises:
        UsageError: ``TRAINOPS_MEMORY_LIMIT`` does not parse.
    """
    if limit is None:
        raw = os.environ.get(MEMORY_LIMIT_ENV)
        limit = parse_memory_limit(raw) if raw else DEFAULT_MEMORY_LIMIT
    if limit <= 0:
        return 0
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    if soft == resource.RLIM_INFINITY or limit < soft:
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
        return limit
    return int(soft)
