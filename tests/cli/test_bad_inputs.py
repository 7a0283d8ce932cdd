"""Hostile and broken input: every case is one finding line naming file and position, a documented
exit code (README "Limits and exit codes"), no traceback, bounded time and memory.

Small cases live in tests/bad_inputs/ (one file each); large ones (multi-megabyte, deeply nested,
over a limit) are generated here. Heavy cases run ``trainops validate`` in a subprocess with an
address-space limit (``RLIMIT_AS``) and a timeout, so a regression shows as a failure, not a hung or
swapping CI runner.
"""

from __future__ import annotations

import base64
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from conftest import SAMPLE
from trainops.yaml.load import Document, stream_text

CORPUS = Path(__file__).parents[1] / "bad_inputs"
TRAINOPS = str(Path(sys.executable).parent / "trainops")
#: Address space allowed to a subprocess: the alias bomb grew past 3 GB before the fix.
SUBPROCESS_MEMORY = 1 << 30
SUBPROCESS_SECONDS = 60

CM = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n"


@dataclass(frozen=True)
class Case:
    """One corpus file: expected exit code, and the finding line (line number, rule, message part)."""

    file: str
    code: int
    line: int | None
    rule: str | None
    text: str | None
    args: tuple[str, ...] = ()


CASES = [
    Case("malformed.yaml", 1, 7, "yaml", "invalid YAML: did not find expected ',' or ']'"),
    Case("tabs.yaml", 1, 4, "yaml", "a tab character where YAML allows only spaces"),
    Case("duplicate_keys.yaml", 1, 7, "yaml", 'duplicate key "key"'),
    Case(
        "yaml11_booleans.yaml", 1, 6, "yaml", "unquoted yes is the boolean true for the API server (YAML 1.1)"
    ),
    Case("yaml11_octal.yaml", 0, 13, "yaml", "unquoted 0644 is the octal number 420"),
    Case("yaml11_octal.yaml", 1, 13, "yaml", "unquoted 0644 is the octal number 420", ("--strict",)),
    Case("anchors_legit.yaml", 0, None, None, None),
    Case("alias_bomb.yaml", 1, 1, "yaml", "document contains excessive aliasing"),
    Case("empty.yaml", 0, None, None, None),
    Case("comments_only.yaml", 0, None, None, None),
    Case("empty_documents.yaml", 0, None, None, None),
    Case("list_document.yaml", 1, 1, "yaml", "document is not a mapping (got array)"),
    Case("scalar_document.yaml", 1, 1, "yaml", "document is not a mapping (got string)"),
    Case("missing_apiversion.yaml", 1, 1, "schema", "missing or empty apiVersion"),
    Case(
        "missing_kind_and_apiversion.yaml",
        1,
        1,
        "schema",
        "not a Kubernetes object: no apiVersion and no kind",
    ),
    Case("unknown_kind.yaml", 1, 2, "unknown-kind", "no schema for example.com/v1 Widget"),
    Case("name_not_dns.yaml", 1, 4, "api-server", '"Not_A_DNS_Name" is not a DNS-1123 subdomain'),
    Case("quantity_unparsable.yaml", 1, 11, "schema", '"two cores" is not valid'),
    Case("gbk.yaml", 1, 1, "yaml", "not UTF-8 text at byte 4 (0xc1: invalid start byte)"),
    Case("binary.yaml", 1, 1, "yaml", "binary file (NUL byte at byte 7)"),
    Case("utf16.yaml", 0, 1, "yaml", "UTF-16-LE file: kubectl decodes it"),
    Case("utf8_bom.yaml", 0, 1, "yaml", "UTF-8 byte order mark"),
    Case("secret_env_literal.yaml", 1, 11, "secret-literal", "env DB_PASSWORD holds a literal credential"),
    # issue 27: the value of a type error is a 14-digit DB_PASSWORD; a huge integer made the CEL rules
    # quote the whole object (tests/cli/test_secret_redaction.py: every format).
    Case("secret_number_type_error.yaml", 1, 12, "schema", "env[0].value: expected string, got integer ***"),
    Case("secrets_in_messages.yaml", 1, 16, "int64", "terminationGracePeriodSeconds: an integer of 77 bits"),
    # Found by the property tests (tests/yaml/test_properties.py): a multi-line message; a crash (exit 3).
    Case(
        "control_character.yaml",
        1,
        6,
        "yaml",
        "unacceptable character #x0001: control characters are not allowed",
    ),
    Case(
        "reserved_indicator.yaml", 1, 6, "yaml", "invalid YAML: found character that cannot start any token"
    ),
    Case("flow_indicator_scalar.yaml", 1, 6, "yaml", "invalid YAML: did not find expected node content"),
    # Found by `make fuzz`: a kind folded over two lines made a two-line finding.
    Case("fuzz_multiline_kind.yaml", 1, 2, "unknown-kind", "no schema for v1 ConfigMap\\nkezzz"),
    # Found by `make fuzz`: a lone carriage return is a line break for go-yaml.
    Case("fuzz_carriage_return_key.yaml", 1, 15, "yaml", "invalid YAML: could not find expected ':'"),
    # Found by `make fuzz`: a 3 KB kind became a cache file name ("File name too long", exit 3).
    Case("fuzz_utf16_long_kind.yaml", 1, 2, "unknown-kind", "no schema for v1 Config"),
    # Argo Rollouts has no webhook: the controller's own checks (issue 34).
    Case(
        "rollout_canary_weight.yaml",
        1,
        19,
        "rollouts-controller",
        "150: SetWeight needs to be between 0 and 100",
    ),
    Case(
        "rollout_same_services.yaml",
        1,
        18,
        "rollouts-controller",
        "'resnet': This rollout uses the same service for the active and preview services",
    ),
]

#: Rules whose finding line shows the keyword in brackets instead of the rule id (schema keywords).
_SCHEMA_KEYWORDS = {"schema": r"(?:required|oneOf|type|[a-zA-Z]+)"}


def _finding_pattern(path: str, case: Case) -> re.Pattern[str]:
    tag = _SCHEMA_KEYWORDS.get(case.rule or "", re.escape(case.rule or ""))
    return re.compile(
        rf"^{re.escape(path)}:{case.line}: .*{re.escape(case.text or '')}.* \[{tag}\]$", re.MULTILINE
    )


def _no_crash(out: str, err: str) -> None:
    assert "Traceback" not in out + err
    assert "unexpected error" not in err


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c.file}{'-' + '-'.join(c.args) if c.args else ''}")
def test_corpus_case(cli: Any, case: Case) -> None:
    path = str(CORPUS / case.file)
    run = cli("validate", "-o", "text", *case.args, path)
    _no_crash(run.out, run.err)
    assert run.code == case.code, run.out + run.err
    if case.text is None:
        assert path not in run.out, run.out
    else:
        assert _finding_pattern(path, case).search(run.out), run.out


def test_corpus_has_a_case_per_file() -> None:
    assert {c.file for c in CASES} == {p.name for p in CORPUS.iterdir()}


def test_directory_with_bad_files_reports_every_file(cli: Any, tmp_path: Path) -> None:
    """A bad file inside a directory is a finding; the rest of the directory is still checked."""
    shutil.copytree(CORPUS, tmp_path / "repo")
    (tmp_path / "repo" / "zz_good.yaml").write_text(CM.format(name="good") + "data:\n  k: v\n")
    (tmp_path / "repo" / "zz_bad.yaml").write_text(CM.format(name="Bad_Name"))
    run = cli("validate", "-o", "text", str(tmp_path / "repo"))
    _no_crash(run.out, run.err)
    assert run.code == 1
    for name in ("gbk.yaml", "binary.yaml", "alias_bomb.yaml", "malformed.yaml", "zz_bad.yaml"):
        assert f"{tmp_path / 'repo' / name}:" in run.out, name
    assert "zz_good.yaml" not in run.out
    files = len(list((tmp_path / "repo").iterdir()))
    assert run.out.rstrip().splitlines()[-1].startswith(f"{files} files, ")


@pytest.mark.parametrize("workers", ["1", "2"])
def test_symlink_loop_and_escape_are_findings(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, workers: str
) -> None:
    """A walk follows a link only inside the walked directory (issue 24 point 6); the others are
    findings naming that directory, and nothing behind them is read."""
    repo = tmp_path / "repo"
    (repo / "generated" / "app").mkdir(parents=True)
    outside = tmp_path / "outside.yaml"
    outside.write_text("password: hunter2\n")
    (repo / "generated" / "loop.yaml").symlink_to("loop.yaml")
    (repo / "generated" / "escape.yaml").symlink_to(outside)
    (repo / "generated" / "up.yaml").symlink_to("../../outside.yaml")
    (repo / "generated" / "beside.yaml").symlink_to("../real.yaml")
    (repo / "generated" / "inside.yaml").symlink_to("app/real.yaml")
    (repo / "real.yaml").write_text("password: hunter3\n")
    (repo / "generated" / "app" / "real.yaml").write_text(CM.format(name="real"))
    monkeypatch.chdir(repo)
    run = cli("validate", "-o", "text", "-j", workers, "generated")
    _no_crash(run.out, run.err)
    assert run.code == 1
    assert re.search(r"^generated/loop\.yaml: .*symlink loop.*\[yaml\]$", run.out, re.MULTILINE), run.out
    for name in ("escape", "up", "beside"):
        assert re.search(
            rf"^generated/{name}\.yaml: .*symlink to .* leaves the walked directory generated; not followed.*\[yaml\]$",
            run.out,
            re.M,
        ), run.out
    assert "inside.yaml" not in run.out
    assert "hunter" not in run.out
    assert (
        run.out.rstrip().splitlines()[-1].startswith("1 files, 1 documents: 4 errors")
    )  # inside.yaml is app/real.yaml


@pytest.mark.parametrize("command", ["validate", "policy check"])
def test_a_symlink_named_yaml_to_a_directory_is_a_finding(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    """Issue 32 point 4: such a link was skipped silently; like a broken link or a FIFO with a YAML
    name, it is a finding naming it (exit 1), and the walk does not follow it."""
    walked = tmp_path / "manifests"
    (walked / "app").mkdir(parents=True)
    (walked / ".hidden").mkdir()
    (walked / "app" / "real.yaml").write_text(CM.format(name="real"))
    (walked / ".hidden" / "other.yaml").write_text(CM.format(name="Not_Read"))
    (walked / "walked.yaml").symlink_to("app")  # a directory the walk reads anyway
    (walked / "hidden.yml").symlink_to(".hidden")  # one it reads through no other entry
    (walked / "itself.yaml").symlink_to(".")
    (walked / "app-link").symlink_to("app")  # not named like a YAML file: followed, adds nothing
    monkeypatch.chdir(tmp_path)
    run = cli(*command.split(), "-o", "text", "manifests")
    _no_crash(run.out, run.err)
    assert run.code == 1
    for name, target in (("walked.yaml", "app"), ("hidden.yml", ".hidden"), ("itself.yaml", "")):
        shown = str((walked / target).resolve())
        assert (
            f"manifests/{name}: $: symlink to the directory {shown}, not a YAML file; not read [yaml]"
            in run.out.splitlines()
        ), run.out
    assert "app-link" not in run.out and "Not_Read" not in run.out
    assert run.out.rstrip().splitlines()[-1].startswith("1 files, 1 documents: ")


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (SUBPROCESS_MEMORY, SUBPROCESS_MEMORY))


def _run_bounded(*args: str, env: dict[str, str] | None = None) -> tuple[int, str, str, float]:
    """``trainops validate`` in a subprocess under :data:`SUBPROCESS_MEMORY` and a timeout."""
    start = time.monotonic()
    proc = subprocess.run(
        [TRAINOPS, "validate", "-o", "text", *args],
        capture_output=True,
        text=True,
        timeout=SUBPROCESS_SECONDS,
        preexec_fn=_limit_memory,
        env={**os.environ, **(env or {})},
        cwd=SAMPLE,
        check=False,
    )
    return proc.returncode, proc.stdout, proc.stderr, time.monotonic() - start


def _deep_flow(depth: int) -> str:
    return CM.format(name="deep") + "data:\n  k: " + "[" * depth + "]" * depth + "\n"


def _deep_block(depth: int) -> str:
    lines = [CM.format(name="deep") + "data:"]
    lines += [" " * (i + 1) + "k:" for i in range(depth)]
    return "\n".join(lines) + " v\n"


def _slow(text: str) -> str:
    """The same document after a ``%YAML`` directive: positions shift by its two lines."""
    return "%YAML 1.1\n---\n" + text


def _big_configmap(size: int) -> str:
    line = "x" * 1000
    keys = size // 1010
    return CM.format(name="big") + "data:\n" + "".join(f"  k{i:05}: {line}\n" for i in range(keys))


def _anchored(text: str) -> str:
    """The same document with an anchor (alias expansion is counted)."""
    return text.replace("  name: big\n", "  name: big\n  labels: {a: &a b}\n", 1)


def _secret(size: int) -> str:
    payload = base64.b64encode(b"\x00" * size).decode()
    return "apiVersion: v1\nkind: Secret\nmetadata:\n  name: big\ndata:\n  blob: " + payload + "\n"


@dataclass(frozen=True)
class Heavy:
    """A generated case run in a bounded subprocess."""

    name: str
    make: Callable[[], str]
    code: int
    line: int
    rule: str
    text: str


HEAVY = [
    Heavy("deep-flow-20000", lambda: _deep_flow(20000), 1, 6, "yaml", "nests deeper than 128 levels"),
    Heavy(
        "deep-flow-20000-after-a-directive",
        lambda: _slow(_deep_flow(20000)),
        1,
        8,
        "yaml",
        "nests deeper than 128 levels",
    ),
    Heavy("deep-block-300", lambda: _deep_block(300), 1, 133, "yaml", "nests deeper than 128 levels"),
    Heavy(
        "deep-block-300-after-a-directive",
        lambda: _slow(_deep_block(300)),
        1,
        135,
        "yaml",
        "nests deeper than 128 levels",
    ),
    Heavy("deep-flow-120", lambda: _deep_flow(120), 1, 6, "type", "expected string, got array"),
    Heavy(
        "deep-flow-120-after-a-directive",
        lambda: _slow(_deep_flow(120)),
        1,
        8,
        "type",
        "expected string, got array",
    ),
    Heavy("deep-block-120", lambda: _deep_block(120), 1, 6, "type", "expected string, got object"),
    Heavy(
        "deep-block-120-after-a-directive",
        lambda: _slow(_deep_block(120)),
        1,
        8,
        "type",
        "expected string, got object",
    ),
    Heavy(
        "configmap-2.5MiB",
        lambda: _big_configmap(5 << 19),
        1,
        1,
        "api-server",
        "ConfigMap data is 2595000 bytes, more than the 1048576-byte (1 MiB) limit",
    ),
    Heavy(
        "configmap-2.5MiB-anchored",
        lambda: _anchored(_big_configmap(5 << 19)),
        1,
        1,
        "api-server",
        "ConfigMap data is 2595000 bytes",
    ),
    Heavy(
        "configmap-1.5MiB",
        lambda: _big_configmap(3 << 19),
        1,
        1,
        "api-server",
        "ConfigMap data is 1557000 bytes, more than the 1048576-byte (1 MiB) limit",
    ),
    Heavy("secret-1.5MiB", lambda: _secret(3 << 19), 1, 1, "api-server", "Secret data is 1572864 bytes"),
    Heavy(
        "document-over-3MiB",
        lambda: _big_configmap(4 << 20),
        1,
        1,
        "yaml",
        "over the limit of 3145728 bytes (3 MiB, the API server's request size limit)",
    ),
    Heavy(
        "document-over-3MiB-after-a-directive",
        lambda: _slow(_big_configmap(4 << 20)),
        1,
        1,  # the document starts at its directive
        "yaml",
        "over the limit of 3145728 bytes (3 MiB, the API server's request size limit)",
    ),
]


@pytest.mark.parametrize("case", HEAVY, ids=lambda c: c.name)
def test_heavy_case_is_bounded(tmp_path: Path, case: Heavy) -> None:
    path = tmp_path / "doc.yaml"
    path.write_text(case.make())
    code, out, err, seconds = _run_bounded(str(path))
    _no_crash(out, err)
    assert code == case.code, out + err
    pattern = rf"^{re.escape(str(path))}:{case.line}: .*{re.escape(case.text)}.* \[{re.escape(case.rule)}\]$"
    assert re.search(pattern, out, re.MULTILINE), out[:2000]
    assert seconds < SUBPROCESS_SECONDS


def test_alias_bomb_is_bounded_in_memory_and_time() -> None:
    """The issue's reproducer grew past 3 GB; under a 1 GiB address space it is a finding in seconds."""
    code, out, err, seconds = _run_bounded(str(CORPUS / "alias_bomb.yaml"))
    _no_crash(out, err)
    assert code == 1
    assert "document contains excessive aliasing" in out
    assert seconds < 20


def test_memory_ceiling_is_a_finding_and_the_run_goes_on(tmp_path: Path) -> None:
    """Under ``TRAINOPS_MEMORY_LIMIT`` a document too big to build is a finding; the next file is still checked."""
    heavy = tmp_path / "a_heavy.yaml"
    heavy.write_text(
        CM.format(name="mem") + "  labels: {a: &a b}\ndata:\n  k: [" + ",".join(["1"] * 1_000_000) + "]\n"
    )
    light = tmp_path / "b_light.yaml"
    light.write_text(CM.format(name="Light_Bad"))
    code, out, err, _ = _run_bounded(str(heavy), str(light), env={"TRAINOPS_MEMORY_LIMIT": "150M"})
    _no_crash(out, err)
    assert code == 1
    assert re.search(
        rf"^{re.escape(str(heavy))}:?\d*: .*exhausted the memory ceiling.*\[yaml\]$", out, re.M
    ), out
    assert f"{light}:4: ConfigMap/Light_Bad" in out


def test_bad_memory_limit_setting_is_a_usage_error(tmp_path: Path) -> None:
    code, _, err, _ = _run_bounded(str(CORPUS / "empty.yaml"), env={"TRAINOPS_MEMORY_LIMIT": "lots"})
    assert code == 2
    assert err.strip() == "trainops: TRAINOPS_MEMORY_LIMIT='lots': expected bytes, e.g. 4G or 512M"


def _fan_out(key_bytes: int, places: int) -> str:
    """A Pod whose containers all merge one anchored mapping holding one long key (issue 27)."""
    key = "k" * key_bytes
    lines = ["apiVersion: v1", "kind: Pod", "metadata:", "  name: fan", "spec:", "  containers:"]
    lines.append(f"  - name: c0\n    image: busybox:1.36\n    <<: &bad\n      ? {key}\n      : 1")
    lines += [f"  - name: c{i}\n    image: busybox:1.36\n    <<: *bad" for i in range(1, places)]
    return "\n".join(lines) + "\n"


def test_one_large_value_behind_many_aliases_is_one_finding(tmp_path: Path) -> None:
    """Issue 27: a 1 MB key reached through one anchor in 100 places gave a 100 MB report at 706 MB.
    kubectl sends the expanded object, 100 times over the API server's request size limit."""
    path = tmp_path / "fan.yaml"
    path.write_text(_fan_out(1 << 20, 100))
    code, out, err, seconds = _run_bounded(str(path), "--policy", "-o", "json")
    _no_crash(out, err)
    assert code == 1
    (finding,) = json.loads(out)["findings"]
    assert (finding["rule"], finding["line"], finding["keyword"]) == ("yaml", 1, "limit")
    assert finding["message"].startswith("document expands through its aliases to more than 3145728 bytes")
    assert len(out) < 2000 and seconds < SUBPROCESS_SECONDS


def test_a_few_aliases_of_a_large_value_are_read() -> None:
    """Under the request size limit the same shape is an ordinary document."""
    (document,) = list(stream_text(_fan_out(1000, 100), "fan.yaml"))
    assert isinstance(document, Document) and document.rejected is None
    assert len(document.data["spec"]["containers"]) == 100


EIGHT_MB = {
    "many-keys": lambda: CM.format(name="big") + "data:\n" + "".join(f"  k{i:08}: v{i:06}\n" for i in range(1 << 19)),
    "flow-sequence": lambda: CM.format(name="big") + "data:\n  k: [" + ",".join(["1"] * (1 << 22)) + "]\n",
    "unclosed-flow-mapping": lambda: CM.format(name="big") + "data:\n  k: {" + ", ".join(f"a{i}: 1" for i in range(1 << 20)) + "\n",
}  # fmt: skip


@pytest.mark.parametrize("shape", sorted(EIGHT_MB))
def test_an_8mb_file_is_a_finding_under_the_default_ceiling(tmp_path: Path, shape: str) -> None:
    """Issue 27: an 8 MB file reached 3.8 GB and exited 3 (MemoryError). Its one document is over the
    API server's request size limit: cut out with the parser's events, never composed."""
    path = tmp_path / "big.yaml"
    path.write_text(EIGHT_MB[shape]())
    assert path.stat().st_size > 8 << 20
    code, out, err, seconds = _run_bounded(str(path), env={"TRAINOPS_MEMORY_LIMIT": "300M"})
    _no_crash(out, err)
    assert code == 1
    assert re.search(
        rf"^{re.escape(str(path))}:1: .*over the limit of 3145728 bytes.*\[yaml\]$", out, re.M
    ), out
    assert seconds < SUBPROCESS_SECONDS


def test_300000_one_line_documents_as_json_under_300mb(tmp_path: Path) -> None:
    """Issue 27: 300,000 one-line documents with ``--format json`` exited 3 under a 300 MB ceiling;
    the JSON report is written one finding at a time."""
    path = tmp_path / "many.yaml"
    path.write_text("".join(f"--- a{i}\n" for i in range(300_000)))
    code, out, err, _ = _run_bounded(str(path), "-o", "json", env={"TRAINOPS_MEMORY_LIMIT": "300M"})
    _no_crash(out, err)
    assert code == 1
    report = json.loads(out)
    assert (report["documents"], report["errors"], len(report["findings"])) == (300_000, 300_000, 300_000)
    assert report["findings"][-1]["message"] == "document is not a mapping (got string)"


#: A 2 MB mapping key (issue 32 point 4) where validate or a policy reports it, and the commands
#: whose findings have it in their JSON path.
LONG_KEY = "k" * (2 << 20)
LONG_KEY_DOCUMENTS = {
    "label-key": (CM.format(name="x") + f"  labels:\n    {LONG_KEY}: v\n", {"validate"}),
    "unknown-container-field": (
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: x\nspec:\n  containers:\n"
        f"  - name: c\n    image: nginx\n    {LONG_KEY}: v\n",
        {"validate"},
    ),
    "unknown-top-level-field": (CM.format(name="x") + f"{LONG_KEY}: v\n", {"validate"}),
    "replica-type": (
        "apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata:\n  name: x\n  namespace: ml\nspec:\n"
        f"  pytorchReplicaSpecs:\n    {LONG_KEY}:\n      replicas: 1\n      template:\n        spec:\n"
        "          containers:\n          - name: pytorch\n            image: nginx\n",
        {"policy check"},
    ),
    # not a key: the object's identity, which every finding of the document carries
    "kind": (f"apiVersion: v1\nkind: {LONG_KEY}\nmetadata:\n  name: x\n", set()),
}


@pytest.mark.parametrize("command", ["validate", "policy check"])
@pytest.mark.parametrize("where", sorted(LONG_KEY_DOCUMENTS))
def test_a_2mb_key_is_shortened_in_paths_and_messages(
    cli: Any, tmp_path: Path, where: str, command: str
) -> None:
    text, in_path = LONG_KEY_DOCUMENTS[where]
    path = tmp_path / "doc.yaml"
    path.write_text(text)
    run = cli(*command.split(), "-o", "json", str(path))
    _no_crash(run.out, run.err)
    findings = json.loads(run.out)["findings"]
    assert len(run.out) < 2000 * len(findings) + 4000  # a report of findings, not of 2 MB keys
    # a key longer than any the API server accepts (317 characters), cut as messages cut values
    shortened = "k" * 316 + "…"
    paths = [f["path"] for f in findings if "kkkk" in f["path"]]
    assert bool(paths) is (command in in_path)
    assert all(p.endswith(f"['{shortened}']") or f"['{shortened}']." in p for p in paths), paths
    if where == "kind":  # validate: no schema for it; the policies: what the object lacks
        assert findings and all(f["kind"] == shortened for f in findings)
