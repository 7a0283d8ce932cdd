"""The benchmark corpus is deterministic and correctly labelled; the runner reads each tool right.

Speed is never asserted here: targets live in ``make bench``. What is asserted is what makes the
benchmark's numbers trustworthy — same spec, same bytes; every expected verdict, path and line
agrees with what trainops reports on a small corpus (so every category is really detected); and
the output parsers map each tool's lines to the right documents.
"""

from __future__ import annotations

import json
import os
import random
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from bench.corpus import CorpusSpec, Expected, read_expected, write_corpus
from bench.emit import Pairs, emit
from bench.measure import run_measured
from bench.mutate import CATEGORIES
from bench.objects import CORE_KINDS, CRD_KINDS, new_ctx
from bench.verdicts import ToolOutput, compare, parse_kubernetes_validate, parse_trainops
from conftest import CliRun

Cli = Callable[..., CliRun]
_Loader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

#: Half the documents broken and a fifth CRDs, so 300 documents cover every category.
SMALL = CorpusSpec(documents=300, seed=11, invalid_share=0.5, crd_share=0.2, docs_per_file=100)


@pytest.fixture(scope="module")
def small_corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 300-document corpus in three core files and one CRD file."""
    out = tmp_path_factory.mktemp("corpus")
    write_corpus(SMALL, out)
    return out


_REPORTS: dict[Path, dict[str, Any]] = {}


def _trainops_report(cli: Cli, corpus: Path) -> dict[str, Any]:
    """``trainops validate --format json`` on ``corpus`` (once per corpus)."""
    if corpus not in _REPORTS:
        run = cli("validate", "--format", "json", "--kubernetes-version", "1.34", str(corpus))
        assert run.code == 1, run.err
        _REPORTS[corpus] = json.loads(run.out)
    return _REPORTS[corpus]


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


# --- generator ----------------------------------------------------------------------------------------


def test_same_spec_writes_identical_bytes(tmp_path: Path) -> None:
    spec = CorpusSpec(documents=200, docs_per_file=70)
    write_corpus(spec, tmp_path / "a")
    write_corpus(spec, tmp_path / "b")
    first, second = _files(tmp_path / "a"), _files(tmp_path / "b")
    assert first == second
    assert {"expected.jsonl", "corpus.json", "core/part-0000.yaml", "crd/part-0000.yaml"} <= set(first)


def test_another_seed_writes_another_corpus(tmp_path: Path) -> None:
    write_corpus(CorpusSpec(documents=200), tmp_path / "a")
    write_corpus(CorpusSpec(documents=200, seed=7), tmp_path / "b")
    assert (tmp_path / "a" / "core" / "part-0000.yaml").read_bytes() != (
        tmp_path / "b" / "core" / "part-0000.yaml"
    ).read_bytes()


def test_rewriting_replaces_the_old_corpus(tmp_path: Path) -> None:
    write_corpus(CorpusSpec(documents=300, docs_per_file=100), tmp_path)
    write_corpus(CorpusSpec(documents=100, docs_per_file=100), tmp_path)
    assert sorted(p.name for p in (tmp_path / "core").iterdir()) == ["part-0000.yaml"]
    assert len(read_expected(tmp_path)) == 100


def test_invalid_share_is_exact_per_group(small_corpus: Path) -> None:
    records = read_expected(small_corpus)
    for group, size in SMALL.group_sizes().items():
        mine = [r for r in records if r.group == group]
        assert len(mine) == size
        assert sum(r.verdict == "invalid" for r in mine) == round(size * SMALL.invalid_share)
    assert {r.category for r in records if r.group == "core"} == {None, *CATEGORIES}


def test_expected_records_match_the_documents(small_corpus: Path) -> None:
    records = read_expected(small_corpus)
    by_file: dict[str, list[Expected]] = {}
    for record in records:
        by_file.setdefault(record.file, []).append(record)
    assert len(by_file) == 4
    for file, expected in by_file.items():
        text = (small_corpus / file).read_text(encoding="utf-8")
        lines = text.split("\n")
        documents = list(yaml.load_all(text, Loader=_Loader))
        assert [r.document for r in expected] == list(range(len(documents)))
        for record, document in zip(expected, documents, strict=True):
            assert (document["apiVersion"], document["kind"]) == (record.api_version, record.kind)
            assert document["metadata"]["name"] == record.name
            assert record.line == 1 or lines[record.line - 2] == "---"
            end = lines.index("---", record.line - 1) if "---" in lines[record.line - 1 :] else len(lines)
            assert yaml.load("\n".join(lines[record.line - 1 : end]) + "\n", Loader=_Loader) == document
            assert (record.verdict == "invalid") == (record.category is not None)
            assert (record.path is None) == (record.error_line is None) == (record.category is None)


def test_error_line_shows_the_broken_key(small_corpus: Path) -> None:
    for record in read_expected(small_corpus):
        if record.category in ("date-time", "int32-range", "quantity", "duplicate-key", "unknown-field"):
            assert record.path is not None and record.error_line is not None
            line = (small_corpus / record.file).read_text(encoding="utf-8").split("\n")[record.error_line - 1]
            key = record.path.rsplit(".", 1)[-1].rsplit("['", 1)[-1].rstrip("']")
            assert f"{key}:" in line, (record, line)


@pytest.mark.parametrize("kind", [*CORE_KINDS, *CRD_KINDS])
def test_emitted_yaml_reads_back_as_the_object(kind: str) -> None:
    builder = {**CORE_KINDS, **CRD_KINDS}[kind][0]
    for seed in range(25):
        obj = builder(new_ctx(random.Random(seed)))
        text, _ = emit(obj)
        assert yaml.load(text, Loader=_Loader) == obj


def test_emit_reports_the_line_of_a_path() -> None:
    doc = {"a": {"b": [{"c": 1, "d": [1, 2]}, {"e": "x"}]}, "f": "multi\nline\n"}
    text, line = emit(doc, ("a", "b", 1))
    assert text.split("\n")[line - 1 if line else 0] == "  - e: x"
    _, line = emit(doc, ("a", "b", 0, "d", 1))
    assert line == 6
    assert emit(doc, ())[1] == 1
    assert emit(doc, ("missing",))[1] is None
    assert "f: |\n  multi\n  line\n" in text


def test_emit_writes_duplicate_keys_and_points_at_the_last() -> None:
    text, line = emit(
        {"metadata": Pairs([("name", "a"), ("labels", {"x": "1"}), ("name", "b")])}, ("metadata", "name")
    )
    assert text == "metadata:\n  name: a\n  labels:\n    x: '1'\n  name: b\n"
    assert line == 5


@pytest.mark.parametrize(
    ("value", "written"),
    [
        ("64Gi", "64Gi"),
        ("8080", "'8080'"),
        ("true", "'true'"),
        ("1e5", "'1e5'"),
        ("2 cores", "2 cores"),
        ("a: b", "'a: b'"),
    ],
)
def test_scalars_read_back_as_strings(value: str, written: str) -> None:
    text, _ = emit({"k": value})
    assert text == f"k: {written}\n"
    assert yaml.load(text, Loader=_Loader) == {"k": value}


# --- trainops on the corpus: the labels are right and every category is detected ---------------------


def test_trainops_flags_exactly_the_expected_invalid_documents(cli: Cli, small_corpus: Path) -> None:
    report = _trainops_report(cli, small_corpus)
    records = read_expected(small_corpus)
    output = parse_trainops(json.dumps(report), small_corpus, Path.cwd(), records)
    flagged = {key for key, verdict in output.verdicts.items() if verdict == "invalid"}
    assert flagged == {(r.file, r.document) for r in records if r.verdict == "invalid"}
    assert report["documents"] == len(records)
    assert output.unattributed == 0
    assert output.findings_with_line == output.findings > 0


@pytest.mark.parametrize("category", CATEGORIES)
def test_each_category_is_reported_at_its_path_and_line(cli: Cli, small_corpus: Path, category: str) -> None:
    report = _trainops_report(cli, small_corpus)
    found = {
        (Path(f["file"]).relative_to(small_corpus).as_posix(), f["document"], f["path"], f["line"])
        for f in report["findings"]
    }
    broken = [r for r in read_expected(small_corpus) if r.category == category]
    assert broken
    for record in broken:
        assert (record.file, record.document, record.path, record.error_line) in found, record


# --- runner: output parsers and the comparison ----------------------------------------------------------


def _records(file: str, verdicts: list[str]) -> list[Expected]:
    return [
        Expected(
            file=file,
            document=i,
            line=1 + 10 * i,
            group="core",
            api_version="v1",
            kind="ConfigMap",
            name=f"c{i}",
            verdict="valid" if v == "valid" else "invalid",
            category=None if v == "valid" else "wrong-type",
            path=None if v == "valid" else "$.data.k",
            error_line=None if v == "valid" else 5 + 10 * i,
        )
        for i, v in enumerate(verdicts)
    ]


def test_kubernetes_validate_lines_map_to_documents_in_order(tmp_path: Path) -> None:
    records = _records("core/part-0000.yaml", ["valid", "invalid", "invalid", "valid", "valid"])
    path = tmp_path / "core" / "part-0000.yaml"
    text = "\n".join(
        [
            f"INFO {path} passed for resource configmap/c0 against version 1.34",
            f"ERROR {path} did not validate for resource configmap/c1 against version 1.34: data.k: 1 is not of type 'string'",
            "  a continuation line",
            f"INFO {path} passed for resource configmap/c2 against version 1.34",
            f"WARN {path} Couldn't find schema for kind X with api version v1 for kubernetes version 1.34",
        ]
    )
    output = parse_kubernetes_validate(text, tmp_path, tmp_path, records)
    assert [output.verdicts[(r.file, r.document)] for r in records] == [
        "valid",
        "invalid",
        "valid",
        "unchecked",
        "unchecked",
    ]
    assert dict(output.versions) == {"1.34": 3}
    agreement = compare(records, output)
    assert (agreement.documents, agreement.checked, agreement.agree) == (5, 3, 2)
    assert (agreement.flagged_invalid, agreement.expected_invalid, agreement.false_positives) == (1, 2, 0)
    assert agreement.by_category == {"wrong-type": (1, 2)}


def test_trainops_json_gives_verdicts_and_lines(tmp_path: Path) -> None:
    records = _records("core/part-0000.yaml", ["valid", "invalid", "valid"])
    finding = {"file": str(tmp_path / "core" / "part-0000.yaml"), "level": "error", "line": 15, "document": 1}
    warning = {**finding, "level": "warning", "document": 2, "line": None}
    stray = {**finding, "document": None}
    output = parse_trainops(json.dumps({"findings": [finding, warning, stray]}), tmp_path, tmp_path, records)
    assert [output.verdicts[(r.file, r.document)] for r in records] == ["valid", "invalid", "valid"]
    assert (output.findings, output.findings_with_line, output.unattributed) == (3, 2, 1)
    agreement = compare(records, output)
    assert (agreement.agreement, agreement.at_expected_line) == (1.0, 1)
    assert compare(records, ToolOutput()).documents == 0


def test_run_measured_reads_exit_code_output_and_memory(tmp_path: Path) -> None:
    code = "import sys; x = bytearray(64 << 20); x[::4096] = b'1' * len(x[::4096]); print('hi'); sys.exit(3)"
    m = run_measured([sys.executable, "-c", code], tmp_path / "out.txt")
    assert m.exit_code == 3
    assert m.stdout.read_text(encoding="utf-8") == "hi\n"
    assert 64 <= m.max_rss_mb < 1024
    assert m.wall_s > 0 and m.cpu_s >= 0


def test_run_measured_without_memory_sampling(tmp_path: Path) -> None:
    """Start-up runs sample no tree memory (it stalls a starting process); ru_maxrss still comes."""
    code = "import time; x = bytearray(32 << 20); x[::4096] = b'1' * len(x[::4096]); time.sleep(0.2)"
    sampled = run_measured([sys.executable, "-c", code], tmp_path / "a.txt")
    unsampled = run_measured([sys.executable, "-c", code], tmp_path / "b.txt", interval=None)
    assert sampled.tree_pss_mb >= 32 and sampled.max_processes >= 1
    assert unsampled.tree_pss_mb == 0 and unsampled.max_processes == 0
    assert 32 <= unsampled.max_rss_mb < 1024 and unsampled.exit_code == 0


def test_run_measured_reads_its_inputs_before_the_clock(tmp_path: Path) -> None:
    """Each tool starts with its input in the page cache (a directory stands for its YAML files)."""
    from bench.measure import warm_page_cache

    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.yaml").write_bytes(b"a: 1\n" * 1000)
    (tmp_path / "in" / "skip.txt").write_bytes(b"x" * 10)
    single = tmp_path / "b.yaml"
    single.write_bytes(b"b: 2\n")
    assert warm_page_cache([tmp_path / "in", single]) == 5005
    m = run_measured([sys.executable, "-c", "print(1)"], tmp_path / "out.txt", inputs=[tmp_path / "in"])
    assert m.exit_code == 0


def test_import_floor_is_part_of_what_validate_imports(tmp_path: Path) -> None:
    """The start-up table's floor row imports only libraries that ``trainops validate`` itself loads
    on one small file, so it is a floor: trainops code is what the two rows differ by."""
    from bench.run import FLOOR_MODULES, startup_file

    path = startup_file(tmp_path)
    code = (
        "import sys\n"
        f"sys.argv = ['trainops', 'validate', '--kubernetes-version', '1.34', {str(path)!r}]\n"
        "from trainops.cli import main\n"
        "try:\n    code = main()\nexcept SystemExit as exit:\n    code = exit.code\n"
        f"missing = [m for m in {FLOOR_MODULES!r} if m not in sys.modules]\n"
        "print(code, missing)\n"
    )
    # as a user runs it: the schema cache in its default place (TRAINOPS_CACHE_DIR spares platformdirs)
    env = {k: v for k, v in os.environ.items() if k != "TRAINOPS_CACHE_DIR"}
    run = run_measured([sys.executable, "-c", code], tmp_path / "out.txt", env=env, interval=None)
    assert run.stdout.read_text(encoding="utf-8").splitlines()[-1] == "0 []"


def test_startup_rows_name_the_floor(tmp_path: Path) -> None:
    """One start-up round records trainops, the import floor and kubernetes-validate, each exiting 0."""
    from bench.run import IMPORT_FLOOR, Options, Report, measure_startup

    report = Report(machine={"cpus": 1})
    measure_startup(Options(sizes=(), startup_runs=1, out=tmp_path), report)
    assert not report.failures
    assert {"trainops", IMPORT_FLOOR, "kubernetes-validate"} <= set(report.startup)
    assert all(len(data["runs_s"]) == 1 for data in report.startup.values())


def test_startup_runs_take_turns_after_a_warm_up_round() -> None:
    from bench.run import startup_order

    assert startup_order(["trainops", "floor"], 2) == [
        (0, "trainops"),
        (0, "floor"),
        (1, "trainops"),
        (1, "floor"),
        (2, "trainops"),
        (2, "floor"),
    ]
