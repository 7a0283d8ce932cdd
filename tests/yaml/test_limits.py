"""Loader limits (trainops.yaml.limits), file decoding (trainops.yaml.source), credential detection
(trainops.core.credentials) and the 1 MiB ConfigMap/Secret limit, each against the upstream behaviour it mirrors."""

from __future__ import annotations

import codecs
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trainops.core.credentials import credential_in, literal_problem, secret_named
from trainops.core.findings import Finding
from trainops.yaml import limits
from trainops.yaml.load import Document, load_text, stream_text
from trainops.yaml.source import decode, read_source


@pytest.mark.parametrize(
    ("decoded", "ratio"),
    [(0, 0.99), (400_000, 0.99), (2_200_000, 0.545), (4_000_000, 0.10), (10_000_000, 0.10)],
)
def test_allowed_alias_ratio_mirrors_go_yaml(decoded: int, ratio: float) -> None:
    assert limits.allowed_alias_ratio(decoded) == pytest.approx(ratio)


@pytest.mark.parametrize(
    ("decoded", "aliased", "excessive"),
    [
        (1000, 995, False),  # go-yaml needs more than 1000 decodes in all
        (1001, 100, False),  # ... and more than 100 aliased ones
        (1001, 992, True),
        (1001, 990, False),  # 98.9 % <= 99 %
        (4_000_001, 400_001, True),
    ],
)
def test_excessive_aliasing_thresholds(decoded: int, aliased: int, excessive: bool) -> None:
    assert limits.excessive_aliasing(decoded, aliased) is excessive


def _bomb(levels: int, fanout: int) -> str:
    lines = ["a0: &a0 [" + ",".join(["x"] * fanout) + "]"]
    lines += [f"a{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * fanout) + "]" for i in range(1, levels)]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(
    ("levels", "fanout", "rejected"),
    [(2, 9, False), (3, 9, False), (4, 9, True), (9, 9, True), (20, 2, True)],
    ids=["81-nodes", "729-nodes", "6561-nodes", "billion-laughs", "deep-doubling"],
)
def test_alias_expansion_is_bounded_like_go_yaml(levels: int, fanout: int, rejected: bool) -> None:
    (item,) = list(stream_text(_bomb(levels, fanout), "bomb.yaml"))
    assert isinstance(item, Document)
    assert (item.rejected is not None) is rejected
    if item.rejected is not None:
        assert item.rejected.message.startswith("document contains excessive aliasing")
        assert (item.rejected.line, item.rejected.rule) == (1, "yaml")


def test_legitimate_anchors_and_merge_keys_still_work() -> None:
    text = "defaults: &defaults {image: busybox, imagePullPolicy: IfNotPresent}\ncontainers:\n" + "".join(
        f"- <<: *defaults\n  name: c{i}\n" for i in range(50)
    )
    (doc,) = load_text(text).documents
    assert doc.rejected is None
    assert doc.data["containers"][49] == {
        "image": "busybox",
        "imagePullPolicy": "IfNotPresent",
        "name": "c49",
    }


@pytest.mark.parametrize("depth", [limits.MAX_DEPTH, limits.MAX_DEPTH + 1])
@pytest.mark.parametrize("prefix", ["", "%YAML 1.1\n---\n"], ids=["fast-path", "slow-path"])
def test_depth_limit_is_exact(depth: int, prefix: str) -> None:
    text = prefix + "k: " + "[" * (depth - 1) + "]" * (depth - 1) + "\n"  # the root mapping is level 1
    items = list(stream_text(text, "deep.yaml"))
    rejected = [i for i in items if isinstance(i, Finding) or (isinstance(i, Document) and i.rejected)]
    assert bool(rejected) is (depth > limits.MAX_DEPTH)


def test_depth_bound_is_an_upper_bound() -> None:
    text = "a:\n  b:\n  - c:\n    - - - [ {x: [1]} ]\n"
    # map a > map b > seq > map c > seq > seq > seq > [ > {x > [1]: 10 levels
    assert limits.depth_bound(text) >= 10
    assert limits.too_deep(text, _loader(), limit=10) is None
    assert limits.too_deep(text, _loader(), limit=9) == (3, 16)


def _loader() -> Any:
    from trainops.yaml.nodes import Loader

    return Loader


def test_size_limit_counts_utf8_bytes() -> None:
    value = "é" * (limits.MAX_DOCUMENT_BYTES // 2)  # 2 bytes each: just over the limit with the key
    (doc,) = list(stream_text(f"k: {value}\n", "big.yaml"))
    assert isinstance(doc, Document) and doc.rejected is not None
    assert f"over the limit of {limits.MAX_DOCUMENT_BYTES} bytes" in doc.rejected.message


def _document_of(size: int, character: str) -> str:
    """A one-key document of exactly ``size`` UTF-8 bytes, its value made of ``character``."""
    width = len(character.encode())
    count = (size - len("k: \n")) // width
    return "k: " + character * count + "x" * (size - len("k: \n") - count * width) + "\n"


@pytest.mark.parametrize("over", [0, 1], ids=["exactly-3MiB", "one-byte-over"])
@pytest.mark.parametrize(
    "character", ["x", "é"], ids=["ascii", "two-byte"]
)  # the C reader's path, and PyYAML's alone
@pytest.mark.parametrize(
    "before",
    ["", "---\n", "--- # next\r\n", "a: 1\n---\n"],
    ids=["bare", "marker", "marker-comment", "second"],
)
def test_the_marker_line_is_not_counted_into_the_size_limit(before: str, character: str, over: int) -> None:
    # kubectl sends the lines between separators (apimachinery YAMLReader.Read): 3 MiB after --- is read
    size = limits.MAX_DOCUMENT_BYTES + over
    *_, last = stream_text(before + _document_of(size, character), "big.yaml")
    assert isinstance(last, Document)
    if over:
        assert last.rejected is not None
        assert last.rejected.message.startswith(f"document is {size} bytes, over the limit of")
    else:
        assert last.rejected is None and len(last.data["k"]) > 1 << 20


def test_a_rejected_document_does_not_stop_the_file() -> None:
    text = "a: " + "[" * 200 + "]" * 200 + "\n---\nb: 1\n"
    items = list(stream_text(text, "f.yaml"))
    assert [type(i).__name__ for i in items] == ["Document", "Document"]
    assert isinstance(items[0], Document) and items[0].rejected is not None
    assert isinstance(items[1], Document) and (items[1].index, items[1].data) == (1, {"b": 1})


@pytest.mark.parametrize(
    ("raw", "expected"),
    [("4G", 4 << 30), ("512M", 512 << 20), ("512MiB", 512 << 20), ("1048576", 1 << 20), ("0", 0)],
)
def test_parse_memory_limit(raw: str, expected: int) -> None:
    assert limits.parse_memory_limit(raw) == expected


@pytest.mark.parametrize(
    ("data", "text", "levels"),
    [
        (b"a: 1\n", "a: 1\n", []),
        (codecs.BOM_UTF8 + b"a: 1\n", "a: 1\n", ["warning"]),
        ("a: ü\n".encode("utf-16"), "a: ü\n", ["warning"]),
        (codecs.BOM_UTF16_BE + "a: 1\n".encode("utf-16-be"), "a: 1\n", ["warning"]),
        (b"a: caf\xe9\n", None, ["error"]),
        (b"a: 1\n\x00\x01", None, ["error"]),
        ("a: 1\n".encode("utf-16-le"), None, ["error"]),  # UTF-16 without a BOM: NUL bytes
    ],
    ids=["utf8", "utf8-bom", "utf16le-bom", "utf16be-bom", "latin1", "binary", "utf16-no-bom"],
)
def test_decode_as_kubectl_does(data: bytes, text: str | None, levels: list[str]) -> None:
    source = decode(data, "f.yaml")
    assert source.text == text
    assert [f.level for f in source.findings] == levels


def test_non_utf8_position_is_line_and_byte_column() -> None:
    source = decode("a: 1\nb: 中文\n".encode("gbk"), "gbk.yaml")
    (finding,) = source.findings
    assert (finding.line, finding.column) == (2, 4)
    assert finding.message.startswith("not UTF-8 text at byte 8 (0xd6d0: invalid continuation byte)")


def test_dangling_symlink_is_a_finding(tmp_path: Path) -> None:
    (tmp_path / "gone.yaml").symlink_to("missing.yaml")
    source = read_source(str(tmp_path / "gone.yaml"), root=tmp_path)
    assert source.text is None
    assert [f.message for f in source.findings] == ["cannot read: No such file or directory"]


@pytest.mark.parametrize(
    ("value", "kind"),
    [
        ("AKIAIOSFODNN7EXAMPLE", "AWS Access Key"),
        ("-----BEGIN RSA PRIVATE KEY-----\nMIIE...\n-----END RSA PRIVATE KEY-----", "Private Key"),
        ("ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8", "GitHub Token"),
        ("xoxb-123456789012-1234567890123-abcdefghijABCDEFGHIJklmn", "Slack Token"),
        ("postgres://admin:s3cr3t-pw@db.internal:5432/app", "Basic Auth Credentials"),
        ("image: pytorch/pytorch@sha256:" + "ab" * 32, None),
        ("gs://bucket/models/bert", None),
        ("https://github.com/kubeflow/trainer", None),
    ],
)
def test_credential_in_values(value: str, kind: str | None) -> None:
    assert credential_in(value) == kind


@pytest.mark.parametrize(
    ("name", "value", "secret"),
    [
        ("DB_PASSWORD", "hunter2-prod", True),
        ("HF_TOKEN", "hf_abcdefghijklmnop", True),
        ("api_key", "0123456789abcdef", True),
        ("DB_PASSWORD", "$(DB_PASSWORD_FROM_FILE)", False),
        ("ALLOW_EMPTY_PASSWORD", "yes", False),
        ("TOKENIZERS_PARALLELISM", "false", False),
        ("MODEL_NAME", "bert-base", False),
    ],
)
def test_secret_named(name: str, value: str, secret: bool) -> None:
    assert secret_named(name, value) is secret


def test_problem_messages_never_quote_the_value() -> None:
    problem = literal_problem("env DB_PASSWORD", "hunter2-prod")
    assert problem is not None and "hunter2" not in problem


def _data_size_findings(body: str) -> list[str]:
    from trainops.core.findings import Result
    from trainops.schemas.registry import SchemaRegistry
    from trainops.validate.engine import ValidateOptions, validate_text

    result = Result()
    validate_text(body, "cm.yaml", SchemaRegistry("1.34", None), ValidateOptions(), result)
    return [f.message for f in result.findings if f.message.endswith("(1 MiB) limit")]


MiB = 1 << 20
B64_3 = "AAAA"  # 3 decoded bytes


@pytest.mark.parametrize(
    ("body", "total"),
    [
        (f"kind: ConfigMap\ndata:\n  a: {'x' * MiB}\n", None),
        (f"kind: ConfigMap\ndata:\n  a: {'x' * (MiB - 1)}\nbinaryData:\n  b: AAA=\n", "1048577"),
        (f"kind: ConfigMap\ndata:\n  a: {'é' * (MiB // 2 + 1)}\n", "1048578"),  # UTF-8 bytes, not characters
        (f"kind: Secret\ndata:\n  a: {B64_3 * (MiB // 3)}\n  b: {B64_3}\n", "1048578"),
        (
            f"kind: Secret\ndata:\n  a: {B64_3 * (MiB // 3)}\n  b: {B64_3}\nstringData:\n  b: x\n",
            None,
        ),  # merged
    ],
    ids=[
        "configmap-1MiB",
        "configmap-binarydata",
        "configmap-utf8",
        "secret-decoded",
        "secret-stringdata-wins",
    ],
)
def test_data_size_limit_counts_bytes_as_the_api_server(body: str, total: str | None) -> None:
    """The 1 MiB limit of ValidateConfigMap/ValidateSecret (the api-server family) on the byte counts
    that matter for untrusted input: UTF-8 bytes, decoded binaryData, stringData merged into data."""
    text = "apiVersion: v1\nmetadata:\n  name: x\n" + body
    found = _data_size_findings(text)
    if total is None:
        assert found == []
    else:
        assert found == [f"{body.split()[1]} data is {total} bytes, more than the 1048576-byte (1 MiB) limit"]


@settings(max_examples=int(os.environ.get("HYPOTHESIS_EXAMPLES", "80")) * 5, deadline=None)
@given(
    st.lists(st.text(alphabet=" \t?-[{a", max_size=70), max_size=6),
    st.sampled_from(["\n", "\r\n", "\r", "\x85", "\u2028"]),
    st.integers(1, 128),
)
def test_over_depth_bound_is_depth_bound_over_the_limit(lines: list[str], newline: str, limit: int) -> None:
    text = newline.join(lines)
    assert limits.over_depth_bound(text, limit) == (limits.depth_bound(text) > limit)


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r", "\x85", "\u2028", "\u2029"])
def test_depth_is_bounded_whatever_the_line_breaks(newline: str) -> None:
    """Every line break starts a line for the depth bound, as for the parser: a deep block document
    with lone CR (or NEL, LS, PS) line ends is a finding, not a recursion in the parser."""
    depth = limits.MAX_DEPTH + 5
    text = newline.join(f"{'  ' * i}k{i}:" for i in range(depth)) + " 1" + newline
    assert limits.depth_bound(text) > limits.MAX_DEPTH
    (document,) = list(stream_text(text, "deep.yaml"))
    assert isinstance(document, Document) and document.rejected is not None
    assert document.rejected.keyword == "limit" and document.rejected.line == limits.MAX_DEPTH + 1
    assert f"deeper than {limits.MAX_DEPTH} levels" in document.rejected.message


@pytest.mark.parametrize("kind", ["../../../../etc/passwd", "Pod/../Pod", "K" * 5000, "Pod\x00", "Pod.json"])
def test_untrusted_kind_never_reaches_the_file_system(schema_cache: Path, kind: str) -> None:
    """Found by `make fuzz`: the kind named a cache file (a 3 KB kind was "File name too long", exit 3)."""
    from trainops.schemas.registry import SchemaRegistry

    registry = SchemaRegistry("1.34", schema_cache)
    assert registry.get("v1", kind) is None
    assert registry.get(kind, "Pod") is None
    assert not list(schema_cache.rglob("*passwd*"))
