"""``make bench``: trainops validate vs kubernetes-validate on the same corpus, measured in one run.

Steps: build the corpora if missing (:mod:`bench.corpus`, :mod:`bench.mlcorpus`); time one-file
start-up of each tool (median of ``startup_runs`` rounds after one unmeasured warm-up round, the
tools taking turns); run ``trainops validate --format json --kubernetes-version 1.34`` on the core
and the CRD documents of every corpus (default workers: all CPUs) and on the ML custom resources of
``../shared/examples`` (the whole corpus, then each kind alone), each run followed by the same run
with ``TRAINOPS_ACCEL=0`` and by kubeconform when it is there (the kinds alone: kubeconform only);
run ``kubernetes-validate --kubernetes-version 1.34 --strict`` on a fixed sample (the first core
files of the smallest corpus: it validates ~50 documents/s, so its rate is extrapolated from the
sample); compare every verdict with ``expected.jsonl``; print one table per aspect plus the targets
with PASS/FAIL; write ``bench/out/results.json``.

Exit code: 0 when every tool ran (targets may still FAIL: they are reported, not enforced), 1 when
a tool failed to run or its output could not be read, or with ``--check`` when a target FAILs.
"""

from __future__ import annotations

import argparse
import compileall
import importlib.util
import json
import os
import platform
import shutil
import statistics
import sys
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field, replace
from importlib.metadata import version as package_version
from pathlib import Path
from random import Random
from typing import Any

from rich.console import Console
from rich.table import Table

from bench import kubeconform, mlcorpus
from bench.corpus import CorpusSpec, Expected, ensure_corpus, read_expected
from bench.emit import emit
from bench.measure import Measurement, run_measured
from bench.objects import build_deployment, new_ctx
from bench.verdicts import Agreement, ToolOutput, compare, parse_kubernetes_validate, parse_trainops
from trainops.core.errors import TrainopsError
from trainops.schemas.catalog import default_cache_dir
from trainops.schemas.registry import SchemaRegistry

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "bench" / "out"
#: The sample repository: the measured commands run in it, as a user's would in theirs (its first
#: cluster gives the policy facts).
SAMPLE = REPO / "examples" / "ml-platform"
CWD = SAMPLE
KUBERNETES_VERSION = "1.34"

# Targets (from the issue). Speed lives here, never in timed unit tests.
TARGET_DOCS_PER_S = 10_000
TARGET_SPEEDUP = 100
TARGET_RSS_MB = 300
#: Issue 36 point 2: a one-file ``trainops validate`` at or under 0.1 s.
TARGET_STARTUP_S = 0.1
#: trainops docs/s over kubeconform's (same run, wall time) on the core kinds of the largest corpus:
#: issue 36's floor for the default path (issue 28's was 4).
TARGET_KUBECONFORM_CORE = 5
#: trainops docs/s over kubeconform's (same run, wall time) on the ML custom resources of
#: ../shared/examples (:mod:`bench.mlcorpus`): issue 28's floor for the default path.
TARGET_KUBECONFORM_ML = 2
#: The same on issue 36's corpus of seven ML kinds (:data:`ML7`), and for each of its kinds alone.
TARGET_KUBECONFORM_ML7 = 3
TARGET_KUBECONFORM_KIND = 1.5
#: A faster path of trainops._accel stays only at this speed-up over TRAINOPS_ACCEL=0 (issue 28 point 1).
TARGET_ACCEL = 1.5


#: Why kubernetes-validate cannot see a corpus category (printed for the categories it missed).
PEER_BLIND_SPOTS = {
    "duplicate-key": "PyYAML silently keeps the last value",
    "date-time": "`format` is not checked",
    "int32-range": "`format: int32` is not range-checked",
    "quantity": "its Quantity schema has no pattern",
    "api-server": "none of the API server's hand-written validation",
}


@dataclass(frozen=True)
class Options:
    """Options of one benchmark run.

    Args:
        sizes: corpus sizes (documents). Default: 10,000 and 100,000.
        peer_sample: documents of the smallest corpus given to kubernetes-validate (rounded up to
            whole files). Default: 1,000.
        startup_runs: measured start-up runs per tool (the median is reported). Default: 11.
        workers: ``--workers`` for trainops. Default: its own (all CPUs).
        check: exit 1 when a target fails.
        out: output directory. Default: ``bench/out``.
        kubeconform: the kubeconform binary, set by :func:`run` from ``$KUBECONFORM`` or ``PATH``
            (:func:`bench.kubeconform.locate`); None: not measured.
        kubeconform_schemas: the root of its converted schemas (:func:`bench.kubeconform.prepare`).
        policy: measure the policy pack and Checkov too (:mod:`bench.policy`). Default: True.
    """

    sizes: tuple[int, ...] = (10_000, 100_000)
    peer_sample: int = 1000
    startup_runs: int = 11
    workers: int | None = None
    check: bool = False
    out: Path = OUT
    kubeconform: Path | None = None
    kubeconform_schemas: Path | None = None
    policy: bool = True


@dataclass
class ToolRun:
    """One measured run of a tool on one input, with its verdicts compared to the expected ones.

    ``flagged`` and ``unknown`` are for inputs without expected verdicts (the ML custom resources):
    documents the tool found invalid, and documents it had no schema for.
    """

    tool: str
    label: str
    corpus: str
    group: str
    documents: int
    measurement: Measurement
    megabytes: float = 0.0
    agreement: Agreement | None = None
    output: ToolOutput | None = None
    error: str | None = None
    flagged: int | None = None
    unknown: int | None = None

    @property
    def docs_per_s(self) -> float:
        """Documents per wall-clock second (process start-up included)."""
        return self.documents / self.measurement.wall_s if self.measurement.wall_s else 0.0


@dataclass(frozen=True)
class Target:
    """One target with its measured value and verdict (``passed`` None: a figure shown beside the
    targets, with no target of its own)."""

    name: str
    measured: str
    passed: bool | None


@dataclass(frozen=True)
class MlKindRun:
    """The documents of one kind of the ML corpus, measured alone: trainops, then kubeconform."""

    kind: mlcorpus.KindCorpus
    trainops: ToolRun
    kubeconform: ToolRun | None


@dataclass
class Report:
    """Everything a run measured (written to results.json)."""

    machine: dict[str, Any]
    corpora: dict[str, Any] = field(default_factory=dict)
    startup: dict[str, dict[str, Any]] = field(default_factory=dict)
    runs: list[ToolRun] = field(default_factory=list)
    sample_agreement: dict[str, Agreement] = field(default_factory=dict)
    ml_corpus: dict[str, Any] = field(default_factory=dict)
    ml7_corpus: dict[str, Any] = field(default_factory=dict)
    ml_kinds: list[MlKindRun] = field(default_factory=list)
    targets: list[Target] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)


def _bin(name: str) -> str:
    """The console script ``name`` next to the running interpreter (the venv), else on PATH."""
    candidate = Path(sys.executable).parent / name
    if candidate.is_file():
        return str(candidate)
    found = shutil.which(name)
    if found is None:
        raise SystemExit(f"bench: {name} not found next to {sys.executable} or on PATH (run `make install`)")
    return found


def trainops_argv(paths: Sequence[Path], workers: int | None) -> list[str]:
    """The trainops command line for ``paths``."""
    argv = [_bin("trainops"), "validate", "--format", "json", "--kubernetes-version", KUBERNETES_VERSION]
    if workers is not None:
        argv += ["--workers", str(workers)]
    return argv + [_arg(p) for p in paths]


def peer_argv(paths: Sequence[Path]) -> list[str]:
    """The kubernetes-validate command line for ``paths``."""
    return [
        _bin("kubernetes-validate"),
        "--kubernetes-version",
        KUBERNETES_VERSION,
        "--strict",
        *(_arg(p) for p in paths),
    ]


def _arg(path: Path) -> str:
    """``path`` as a command-line argument of a measured command (relative to :data:`CWD`)."""
    return os.path.relpath(path.resolve(), CWD)


def _rel(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(REPO))
    except ValueError:
        return str(path)


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("GITHUB_ACTIONS", None)
    return env


def corpus_name(size: int) -> str:
    """``corpus-10k`` for 10,000 documents."""
    return f"corpus-{size // 1000}k" if size % 1000 == 0 else f"corpus-{size}"


def machine_info() -> dict[str, Any]:
    """CPU count, load, Python and tool versions (load matters: the machine may be shared)."""
    return {
        "cpus": os.cpu_count(),
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "python": platform.python_version(),
        "loadavg_start": os.getloadavg(),
        "trainops": package_version("trainops"),
        "kubernetes-validate": package_version("kubernetes-validate"),
        "PYTHONDONTWRITEBYTECODE": os.environ.get("PYTHONDONTWRITEBYTECODE"),
    }


# --- steps -------------------------------------------------------------------------------------------


def build_corpora(options: Options, report: Report, console: Console) -> dict[int, Path]:
    """Ensure each corpus exists (rebuilt when the generator or spec changed)."""
    dirs: dict[int, Path] = {}
    for size in options.sizes:
        directory = options.out / corpus_name(size)
        start = time.perf_counter()
        built = ensure_corpus(CorpusSpec(documents=size), directory)
        elapsed = time.perf_counter() - start
        info = json.loads((directory / "corpus.json").read_text(encoding="utf-8"))
        info["built_s"] = round(elapsed, 1) if built else None
        report.corpora[corpus_name(size)] = info
        console.print(
            f"corpus {corpus_name(size)}: {'built in ' + format(elapsed, '.1f') + ' s' if built else 'up to date'}"
        )
        dirs[size] = directory
    return dirs


#: The start-up row of the interpreter importing :data:`FLOOR_MODULES` and nothing of trainops.
IMPORT_FLOOR = "python + libraries only"
#: The libraries ``trainops validate`` cannot start without: the CLI (click), the schema engine
#: (jsonschema_rs) and the cache directory (platformdirs); their own imports (``dataclasses``,
#: ``inspect``, ``email.utils``...) come with them. PyYAML is not one: the block reader
#: (:mod:`trainops._accel`) reads the start-up file.
FLOOR_MODULES = ("click", "jsonschema_rs", "platformdirs", "json")


def startup_file(out: Path) -> Path:
    """A small file with one valid Deployment (deterministic)."""
    ctx = new_ctx(Random(7))
    ctx.size = 0
    text, _ = emit(build_deployment(ctx))
    path = out / "startup" / "deployment.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def measure_startup(options: Options, report: Report) -> None:
    """Median wall time of validating one small file, per tool: ``startup_runs`` rounds after one
    unmeasured warm-up round, the tools taking turns within each round (:func:`startup_order`)."""
    path = startup_file(options.out)
    commands = {
        "trainops": trainops_argv([path], options.workers),
        # what any Python validator built on these libraries pays before reading a file
        IMPORT_FLOOR: [sys.executable, "-c", f"import {', '.join(FLOOR_MODULES)}"],
        "kubernetes-validate": peer_argv([path]),
    }
    if options.kubeconform is not None and options.kubeconform_schemas is not None:
        commands["kubeconform"] = kubeconform.argv(
            options.kubeconform,
            [_arg(path)],
            options.kubeconform_schemas,
            KUBERNETES_VERSION,
            os.cpu_count() or 1,
        )
    walls: dict[str, list[float]] = {tool: [] for tool in commands}
    cpu: dict[str, list[float]] = {tool: [] for tool in commands}
    codes: dict[str, list[int]] = {tool: [] for tool in commands}
    last: dict[str, Measurement] = {}
    for run, tool in startup_order(list(commands), options.startup_runs):
        # no memory sampling: it stalls a starting process (see run_measured); peak RSS is ru_maxrss
        m = last[tool] = run_measured(
            commands[tool], options.out / "runs" / f"startup-{tool}.out", cwd=CWD, env=_env(), interval=None
        )
        if run:
            walls[tool].append(m.wall_s)
            cpu[tool].append(m.cpu_s)
        codes[tool].append(m.exit_code)
    for tool in commands:
        if any(codes[tool]):
            report.failures.append(f"{tool} start-up: exit codes {codes[tool]} (see {last[tool].stderr})")
        report.startup[tool] = {
            "median_s": statistics.median(walls[tool]),
            "runs_s": walls[tool],
            "cpu_median_s": statistics.median(cpu[tool]),
            "max_rss_mb": last[tool].max_rss_mb,
            "file": _rel(path),
            "megabytes": _megabytes([path]),
        }


def startup_order(tools: Sequence[str], runs: int) -> list[tuple[int, str]]:
    """(round, tool) in the order the start-up runs are made: round 0 is the warm-up, then ``runs``
    measured rounds, each running every tool once. This machine's speed drifts over seconds (11
    runs of one tool in a row went from 0.25 s to 0.17 s while the next tool's all took 0.10 s), so
    taking turns gives every tool the same moments, as the issue's interleaved pairs did."""
    return [(run, tool) for run in range(runs + 1) for tool in tools]


def _megabytes(paths: Iterable[Path]) -> float:
    return sum(p.stat().st_size for p in paths) / (1 << 20)


def _failed(run: ToolRun, report: Report) -> bool:
    code = run.measurement.exit_code
    if code in (0, 1):
        return False
    tail = run.measurement.stderr.read_text(encoding="utf-8", errors="replace").strip().splitlines()[-3:]
    run.error = f"exit {code}: {' / '.join(tail)}"
    report.failures.append(f"{run.tool} on {run.label}: {run.error}")
    return True


def run_trainops(options: Options, report: Report, corpus: Path, console: Console) -> None:
    """trainops on the core and the CRD documents of ``corpus`` (two runs)."""
    expected = read_expected(corpus)
    for group in ("core", "crd"):
        records = [r for r in expected if r.group == group]
        if not records:
            continue
        label = f"{corpus.name}/{group}"
        console.print(f"trainops validate {label} ({len(records):,} documents) ...")
        m = run_measured(
            trainops_argv([corpus / group], options.workers),
            options.out / "runs" / f"trainops-{corpus.name}-{group}.json",
            cwd=CWD,
            env=_env(),
            inputs=[corpus / group],
        )
        run = ToolRun(
            "trainops",
            label,
            corpus.name,
            group,
            len(records),
            m,
            _megabytes((corpus / group).glob("*.yaml")),
        )
        report.runs.append(run)
        if _failed(run, report):
            continue
        run.output = parse_trainops(m.stdout.read_text(encoding="utf-8"), corpus, CWD, records)
        run.agreement = compare(records, run.output)
        run_plain(options, report, corpus, group, len(records), m.stdout.read_bytes(), console)
        if options.kubeconform is not None and options.kubeconform_schemas is not None:
            run_kubeconform(options, report, corpus, group, records, console)


#: The tool name of trainops with its faster paths off (``TRAINOPS_ACCEL=0``, :mod:`trainops._accel`).
PLAIN = "trainops TRAINOPS_ACCEL=0"


def run_plain(
    options: Options,
    report: Report,
    corpus: Path,
    group: str,
    documents: int,
    report_bytes: bytes,
    console: Console,
) -> None:
    """trainops on the same input right after its default run, with ``TRAINOPS_ACCEL=0``: what the
    faster paths buy (they stay only at 1.5x or more); its report must be byte-identical."""
    label = f"{corpus.name}/{group}"
    console.print(f"trainops validate {label} with TRAINOPS_ACCEL=0 ...")
    m = run_measured(
        trainops_argv([corpus / group], options.workers),
        options.out / "runs" / f"trainops-plain-{corpus.name}-{group}.json",
        cwd=CWD,
        env={**_env(), "TRAINOPS_ACCEL": "0"},
        inputs=[corpus / group],
    )
    run = ToolRun(PLAIN, label, corpus.name, group, documents, m, _megabytes((corpus / group).glob("*.yaml")))
    report.runs.append(run)
    if not _failed(run, report) and m.stdout.read_bytes() != report_bytes:
        report.failures.append(f"{PLAIN} on {label}: the report differs from the default run's")


def run_kubeconform(
    options: Options, report: Report, corpus: Path, group: str, records: list[Expected], console: Console
) -> None:
    """kubeconform on the same documents, right after trainops (an adjacent pair: same machine load)."""
    assert options.kubeconform is not None and options.kubeconform_schemas is not None
    label = f"{corpus.name}/{group}"
    console.print(f"kubeconform {label} ({len(records):,} documents) ...")
    m = run_measured(
        kubeconform.argv(
            options.kubeconform,
            [_arg(corpus / group)],
            options.kubeconform_schemas,
            KUBERNETES_VERSION,
            os.cpu_count() or 1,
        ),
        options.out / "runs" / f"kubeconform-{corpus.name}-{group}.json",
        cwd=CWD,
        env=_env(),
        inputs=[corpus / group],
    )
    run = ToolRun(
        "kubeconform", label, corpus.name, group, len(records), m, _megabytes((corpus / group).glob("*.yaml"))
    )
    report.runs.append(run)
    if _failed(run, report):
        return
    run.output = kubeconform.parse_kubeconform(m.stdout.read_text(encoding="utf-8"), corpus, CWD, records)
    run.agreement = compare(records, run.output)


# --- the ML custom resources of ../shared/examples ---------------------------------------------------

#: The group of the runs on the ML corpus (:mod:`bench.mlcorpus`), and its folder under the output.
ML = "ml"
ML_CORPUS = "ml-examples"
#: How the targets and tables name it.
ML_LABEL = "ML custom resources of ../shared/examples"
#: Issue 36's corpus: about 20,000 documents of seven ML kinds, 10 % broken once
#: (:data:`bench.mlcorpus.SEVEN_KINDS`); its group, folder and label.
ML7 = "ml7"
ML7_CORPUS = "ml-seven-kinds"
ML7_LABEL = "seven ML kinds of ../shared/examples, 10 % broken"


@dataclass(frozen=True)
class MlSpec:
    """What one ML corpus is made of (:mod:`bench.mlcorpus`).

    Args:
        group: the group of its runs (:data:`ML`, :data:`ML7`).
        folder: its folder under the output.
        label: how tables and targets name it.
        groups: the API groups read from the examples.
        kinds: the kinds kept (None: every kind both tools accept).
        documents: about how many documents it holds.
        broken_every: every N-th document of a kind is broken once (0: none).
    """

    group: str
    folder: str
    label: str
    groups: frozenset[str] = mlcorpus.ML_GROUPS
    kinds: frozenset[str] | None = None
    documents: int = mlcorpus.DOCUMENTS
    broken_every: int = 0


ML_SPECS = (
    MlSpec(ML, ML_CORPUS, ML_LABEL),
    MlSpec(
        ML7,
        ML7_CORPUS,
        ML7_LABEL,
        mlcorpus.SEVEN_GROUPS,
        mlcorpus.SEVEN_KINDS,
        mlcorpus.SEVEN_DOCUMENTS,
        mlcorpus.SEVEN_BROKEN_EVERY,
    ),
)


def trainops_accepts(registry: SchemaRegistry) -> mlcorpus.Accepts:
    """``accepts(apiVersion, kind)``: whether ``trainops validate`` has a schema for the kind (the
    registry it validates with: core kinds, the synced CRDs, its own local schemas), as
    :func:`bench.mlcorpus.select` wants it; a schema that cannot be fetched counts as none."""

    def accepts(api_version: str, kind: str) -> bool:
        try:
            return registry.get(api_version, kind) is not None
        except TrainopsError:
            return False

    return accepts


def trainops_counts(text: str) -> tuple[int, int]:
    """(documents with an error finding, documents with an ``unknown-kind`` finding) of a
    ``trainops validate --format json`` report."""
    report = json.loads(text)
    flagged = {(f["file"], f.get("document")) for f in report["findings"] if f["level"] == "error"}
    unknown = {(f["file"], f.get("document")) for f in report["findings"] if f["rule"] == "unknown-kind"}
    return len(flagged), len(unknown)


def kubeconform_counts(text: str) -> tuple[int, int]:
    """(resources invalid or in error, resources skipped for want of a schema) of ``kubeconform
    -output json -verbose``."""
    statuses = [r.get("status") for r in json.loads(text).get("resources") or []]
    return (
        sum(s in ("statusInvalid", "statusError") for s in statuses),
        sum(s == "statusSkipped" for s in statuses),
    )


def build_ml_corpus(
    options: Options, report: Report, console: Console, spec: MlSpec = ML_SPECS[0]
) -> mlcorpus.MlCorpus | None:
    """The ML corpus ``spec`` under ``options.out/<spec.folder>`` (:mod:`bench.mlcorpus`), built or found
    up to date, its kinds recorded in ``report.ml_corpus`` (``report.ml7_corpus`` for :data:`ML7`);
    None (with a note) without ``../shared``."""
    if not mlcorpus.EXAMPLES.is_dir() or not kubeconform.CRDS.is_dir():
        report.notes.append(
            f"{spec.label} not measured: {mlcorpus.EXAMPLES} or {kubeconform.CRDS} is not beside the repository."
        )
        return None
    # kubeconform's schemas decide what is measured, whether or not its binary is there
    schemas = options.kubeconform_schemas or kubeconform.prepare(options.out, KUBERNETES_VERSION)
    start = time.perf_counter()
    documents, unreadable = mlcorpus.read_examples(groups=spec.groups)
    if spec.kinds is not None:
        documents = [d for d in documents if d.kind in spec.kinds]
        unreadable = [d for d in unreadable if d.kind in spec.kinds]
    selected, unaccepted = mlcorpus.select(
        documents,
        trainops_accepts(SchemaRegistry(KUBERNETES_VERSION, default_cache_dir())),
        lambda api_version, kind: kubeconform.has_crd_schema(schemas, api_version, kind),
    )
    corpus, built = mlcorpus.build(
        selected,
        [*unreadable, *unaccepted],
        options.out / spec.folder,
        documents=spec.documents,
        broken_every=spec.broken_every,
    )
    console.print(
        f"corpus {spec.folder}: {len(corpus.kinds)} kinds, {corpus.documents:,} documents"
        f" ({len(selected)} upstream × {corpus.copies}), "
        + (f"built in {time.perf_counter() - start:.1f} s" if built else "up to date")
    )
    manifest = json.loads((corpus.root / "corpus.json").read_text(encoding="utf-8"))
    if spec.group == ML7:
        report.ml7_corpus = manifest
    else:
        report.ml_corpus = manifest
    return corpus


def _measure_ml(
    options: Options,
    tool: str,
    label: str,
    corpus: mlcorpus.MlCorpus,
    folders: Sequence[str],
    documents: int,
    console: Console,
    group: str = ML,
) -> ToolRun:
    """One measured run of ``tool`` (``trainops``, :data:`PLAIN` or ``kubeconform``) on ``folders`` of
    ``corpus``, from the corpus's folder: outside any trainops repository, so trainops checks against
    every operator it knows, as kubeconform does (from the sample repository, it would check against
    that repository's first cluster, which runs neither KServe nor Kueue nor Trainer)."""
    console.print(f"{tool} {label} ({documents:,} documents) ...")
    slug = label.replace("/", "-").replace(" ", "")
    paths = [corpus.root / folder for folder in folders]
    if tool == "kubeconform":
        assert options.kubeconform is not None and options.kubeconform_schemas is not None
        argv = kubeconform.argv(
            options.kubeconform,
            list(folders),
            options.kubeconform_schemas.resolve(),
            KUBERNETES_VERSION,
            os.cpu_count() or 1,
        )
        env, out = _env(), f"kubeconform-{slug}.json"
    else:
        argv = [*trainops_argv([], options.workers), *folders]
        plain = tool == PLAIN
        env = {**_env(), "TRAINOPS_ACCEL": "0"} if plain else _env()
        out = f"trainops{'-plain' if plain else ''}-{slug}.json"
    m = run_measured(argv, options.out / "runs" / out, cwd=corpus.root, env=env, inputs=paths)
    megabytes = _megabytes(f for p in paths for f in p.glob("*.yaml"))
    return ToolRun(tool, label, corpus.root.name, group, documents, m, megabytes)


def _count_ml(run: ToolRun, report: Report) -> None:
    """Fill ``run.flagged`` and ``run.unknown``; a document the tool had no schema for is a failure
    (the corpus holds only kinds both tools accept)."""
    if _failed(run, report):
        return
    text = run.measurement.stdout.read_text(encoding="utf-8")
    try:
        run.flagged, run.unknown = (
            kubeconform_counts(text) if run.tool == "kubeconform" else trainops_counts(text)
        )
    except (ValueError, KeyError, TypeError) as exc:
        run.error = f"unreadable output: {exc}"
        report.failures.append(f"{run.tool} on {run.label}: {run.error}")
        return
    if run.unknown:
        report.failures.append(f"{run.tool} on {run.label}: no schema for {run.unknown:,} documents")


def run_ml(
    options: Options, report: Report, corpus: mlcorpus.MlCorpus, console: Console, group: str = ML
) -> None:
    """trainops, trainops with ``TRAINOPS_ACCEL=0`` (its report must be byte-identical) and
    kubeconform on the whole ML corpus, one after the other; then each kind's documents alone,
    trainops then kubeconform (``report.ml_kinds``). ``group``: :data:`ML` or :data:`ML7`."""
    peer = options.kubeconform is not None and options.kubeconform_schemas is not None
    folders = [k.folder for k in corpus.kinds]
    name = corpus.root.name
    label = f"{name} ({len(corpus.kinds)} kinds)"
    fast = _measure_ml(options, "trainops", label, corpus, folders, corpus.documents, console, group)
    report.runs.append(fast)
    _count_ml(fast, report)
    plain = _measure_ml(options, PLAIN, label, corpus, folders, corpus.documents, console, group)
    report.runs.append(plain)
    _count_ml(plain, report)
    failed = fast.error is not None or plain.error is not None
    if not failed and plain.measurement.stdout.read_bytes() != fast.measurement.stdout.read_bytes():
        report.failures.append(f"{PLAIN} on {label}: the report differs from the default run's")
    if peer:
        theirs = _measure_ml(options, "kubeconform", label, corpus, folders, corpus.documents, console, group)
        report.runs.append(theirs)
        _count_ml(theirs, report)
    for kind in corpus.kinds:
        one = f"{name}/{kind.folder}"
        ours = _measure_ml(options, "trainops", one, corpus, [kind.folder], kind.documents, console, group)
        _count_ml(ours, report)
        theirs_kind = None
        if peer:
            theirs_kind = _measure_ml(
                options, "kubeconform", one, corpus, [kind.folder], kind.documents, console, group
            )
            _count_ml(theirs_kind, report)
        report.ml_kinds.append(MlKindRun(kind, ours, theirs_kind))


def peer_sample(options: Options, corpus: Path) -> tuple[list[Path], list[Expected]]:
    """The first core files of ``corpus`` holding at least ``options.peer_sample`` documents."""
    records = [r for r in read_expected(corpus) if r.group == "core"]
    per_file: dict[str, int] = {}
    for record in records:
        per_file[record.file] = per_file.get(record.file, 0) + 1
    files: list[str] = []
    total = 0
    for file, count in per_file.items():
        if total >= options.peer_sample:
            break
        files.append(file)
        total += count
    chosen = [r for r in records if r.file in set(files)]
    return [corpus / f for f in files], chosen


def run_peer(options: Options, report: Report, corpus: Path, console: Console) -> None:
    """kubernetes-validate on the sample of ``corpus``; trainops's verdicts on the same sample too."""
    paths, records = peer_sample(options, corpus)
    label = f"{corpus.name}/core sample"
    console.print(f"kubernetes-validate {label} ({len(records):,} documents, ~50 documents/s) ...")
    m = run_measured(
        peer_argv(paths),
        options.out / "runs" / f"kubernetes-validate-{corpus.name}.out",
        cwd=CWD,
        env=_env(),
        inputs=paths,
    )
    run = ToolRun("kubernetes-validate", label, corpus.name, "core", len(records), m, _megabytes(paths))
    report.runs.append(run)
    if _failed(run, report):
        return
    run.output = parse_kubernetes_validate(m.stdout.read_text(encoding="utf-8"), corpus, CWD, records)
    run.agreement = compare(records, run.output)
    report.sample_agreement["kubernetes-validate"] = run.agreement
    versions = sorted(run.output.versions)
    if versions != [KUBERNETES_VERSION]:
        report.failures.append(f"kubernetes-validate validated against {versions}, not {KUBERNETES_VERSION}")
    trainops = next(
        (r for r in report.runs if r.tool == "trainops" and r.corpus == corpus.name and r.group == "core"),
        None,
    )
    if trainops is not None and trainops.output is not None:
        subset = ToolOutput(
            verdicts={k: v for k, v in trainops.output.verdicts.items() if k in run.output.verdicts},
            finding_lines=trainops.output.finding_lines,
        )
        report.sample_agreement["trainops"] = compare(records, subset)


def _trainops_runs(report: Report) -> list[ToolRun]:
    return [r for r in report.runs if r.tool == "trainops"]


def _headline(report: Report) -> ToolRun | None:
    core = [r for r in _trainops_runs(report) if r.group == "core"]
    return max(core, key=lambda r: r.documents) if core else None


def evaluate_targets(report: Report) -> None:
    """Check each target against the measurements."""
    headline = _headline(report)
    peer = next((r for r in report.runs if r.tool == "kubernetes-validate"), None)
    runs = [r for r in _trainops_runs(report) if r.agreement and r.output]
    if headline is not None:
        report.targets.append(
            Target(
                f"≥ {TARGET_DOCS_PER_S:,} docs/s, core kinds, {headline.corpus}",
                f"{headline.docs_per_s:,.0f} docs/s",
                headline.docs_per_s >= TARGET_DOCS_PER_S,
            )
        )
        if peer is not None and peer.docs_per_s:
            ratio = headline.docs_per_s / peer.docs_per_s
            report.targets.append(
                Target(f"≥ {TARGET_SPEEDUP}x kubernetes-validate", f"{ratio:,.0f}x", ratio >= TARGET_SPEEDUP)
            )
    # (group, what, kubeconform floor, TRAINOPS_ACCEL=0 floor): the floors of issue 28; the corpus's own
    # custom resources are shown only. The faster path is held to its floor where reading YAML is most
    # of the work (the headline); on the ML custom resources (many kinds, few documents of each),
    # building each kind's schema validator, CEL programs and list-map tables is, which it does not touch.
    comparisons: tuple[tuple[str, str, float | None, float | None], ...] = (
        ("core", "core kinds", TARGET_KUBECONFORM_CORE, TARGET_ACCEL),
        (ML, ML_LABEL, TARGET_KUBECONFORM_ML, None),
        (ML7, ML7_LABEL, TARGET_KUBECONFORM_ML7, None),
        ("crd", "custom resources of the corpus (PyTorchJob, ServiceMonitor)", None, None),
    )
    for group, what, floor, _ in comparisons:
        ours, theirs = _largest(report, "trainops", group), _largest(report, "kubeconform", group)
        if ours is not None and theirs is not None and ours.corpus == theirs.corpus and theirs.docs_per_s:
            report.targets.append(_ratio_target("kubeconform", what, floor, ours, theirs))
    for group, what, _, floor in comparisons:
        fast, plain = _largest(report, "trainops", group), _largest(report, PLAIN, group)
        if fast is not None and plain is not None and fast.corpus == plain.corpus and plain.docs_per_s:
            report.targets.append(
                _ratio_target("with TRAINOPS_ACCEL=0 (trainops._accel pays)", what, floor, fast, plain)
            )
    report.targets.extend(kind_targets(report))
    if runs:
        flagged = sum(r.agreement.flagged_invalid for r in runs if r.agreement)
        invalid = sum(r.agreement.expected_invalid for r in runs if r.agreement)
        report.targets.append(
            Target(
                "every expected-invalid document flagged", f"{flagged:,} / {invalid:,}", flagged == invalid
            )
        )
        with_line = sum(r.output.findings_with_line for r in runs if r.output)
        findings = sum(r.output.findings for r in runs if r.output)
        report.targets.append(
            Target(
                "a line number on every finding",
                f"{with_line:,} / {findings:,} ({_pct(with_line, findings)})",
                with_line == findings,
            )
        )
        agree = sum(r.agreement.agree for r in runs if r.agreement)
        documents = sum(r.agreement.documents for r in runs if r.agreement)
        false_positives = sum(r.agreement.false_positives for r in runs if r.agreement)
        report.targets.append(
            Target(
                "agreement with expected verdicts (no false positives)",
                f"{_pct(agree, documents)}, {false_positives} false positives",
                agree == documents,
            )
        )
        peak = max(max(r.measurement.max_rss_mb, r.measurement.tree_pss_mb) for r in _trainops_runs(report))
        report.targets.append(
            Target(
                f"peak memory < {TARGET_RSS_MB} MB (largest process and whole tree)",
                f"{peak:.0f} MB",
                peak < TARGET_RSS_MB,
            )
        )
    if "trainops" in report.startup:
        median = float(report.startup["trainops"]["median_s"])
        report.targets.append(
            Target(
                f"start-up ≤ {TARGET_STARTUP_S} s, one small file",
                f"{median:.3f} s",
                median <= TARGET_STARTUP_S,
            )
        )


def kind_targets(report: Report) -> list[Target]:
    """Each kind alone against kubeconform (wall time, same run): the slowest kind of :data:`ML7` is
    held to :data:`TARGET_KUBECONFORM_KIND` (issue 36: no kind below it); that of :data:`ML`, whose
    kinds are a few hundred documents each (start-up is most of their time), is shown only."""
    targets = []
    for group, label, floor in ((ML7, ML7_LABEL, TARGET_KUBECONFORM_KIND), (ML, ML_LABEL, None)):
        ratios = [
            (row.kubeconform.measurement.wall_s / row.trainops.measurement.wall_s, row.kind.kind)
            for row in report.ml_kinds
            if row.trainops.group == group
            and row.kubeconform is not None
            and row.trainops.error is None
            and row.kubeconform.error is None
            and row.trainops.measurement.wall_s
        ]
        if not ratios:
            continue
        lowest, kind = min(ratios)
        name = f"each kind of the {label} alone vs kubeconform: slowest kind"
        measured = f"{lowest:.2f}x ({kind}; {len(ratios)} kinds)"
        if floor is None:
            targets.append(Target(f"{name} (no target)", measured, None))
        else:
            targets.append(Target(f"≥ {floor:g}x {name} (same run)", measured, lowest >= floor))
    return targets


def _ratio_target(other: str, what: str, floor: float | None, ours: ToolRun, theirs: ToolRun) -> Target:
    """trainops's documents/s (wall) over ``theirs``'s on the same input, as a target when ``floor``
    is given, else as a figure with no target (``passed`` None); the CPU-time ratio is shown beside
    it. ``other`` names the compared run (``kubeconform``, ``with TRAINOPS_ACCEL=0 ...``)."""
    ratio = ours.docs_per_s / theirs.docs_per_s
    cpu = theirs.measurement.cpu_s / ours.measurement.cpu_s if ours.measurement.cpu_s else 0.0
    where = what if ours.group in (ML, ML7) else f"{what}, {ours.corpus}"
    measured = (
        f"{ratio:.2f}x ({ours.docs_per_s:,.0f} vs {theirs.docs_per_s:,.0f} docs/s, {ours.documents:,} documents;"
        f" {cpu:.2f}x in CPU time)"
    )
    if floor is None:
        return Target(f"{other}, {where} (no target)", measured, None)
    return Target(
        f"≥ {floor:g}x {other}, {where}" + (" (same run)" if other == "kubeconform" else ""),
        measured,
        ratio >= floor,
    )


def _largest(report: Report, tool: str, group: str) -> ToolRun | None:
    """The run of ``tool`` on ``group`` of the largest corpus, if any."""
    runs = [r for r in report.runs if r.tool == tool and r.group == group and r.error is None]
    return max(runs, key=lambda r: r.documents) if runs else None


def _pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:.2f} %" if whole else "n/a"


# --- presentation ------------------------------------------------------------------------------------


def render(report: Report, console: Console) -> None:
    """Print the tables and the legend."""
    perf = Table(
        title=f"Throughput and memory (Kubernetes {KUBERNETES_VERSION}, {report.machine['cpus']} CPUs)"
    )
    columns = (
        "tool",
        "input",
        "docs",
        "MB",
        "wall s",
        "docs/s",
        "CPU s",
        "docs/CPU-s",
        "other CPU",
        "procs",
        "peak RSS MB",
        "tree PSS MB",
    )
    for column in columns:
        perf.add_column(column, justify="left" if column in ("tool", "input") else "right")
    for run in report.runs:
        m = run.measurement
        rate = f"{run.docs_per_s:,.0f}" + (" *" if run.tool == "kubernetes-validate" else "")
        perf.add_row(
            run.tool,
            run.label + (f" ({run.error})" if run.error else ""),
            f"{run.documents:,}",
            f"{run.megabytes:.1f}",
            f"{m.wall_s:.2f}",
            rate,
            f"{m.cpu_s:.2f}",
            f"{run.documents / m.cpu_s:,.0f}" if m.cpu_s else "",
            f"{_other_share(m, report):.0f} %",
            str(m.max_processes),
            f"{m.max_rss_mb:.0f}",
            f"{m.tree_pss_mb:.0f}",
        )
    for tool, data in report.startup.items():
        perf.add_row(
            tool,
            (
                f"start-up, imports only (median of {len(data['runs_s'])})"
                if tool == IMPORT_FLOOR
                else f"start-up, 1 Deployment (median of {len(data['runs_s'])})"
            ),
            "" if tool == IMPORT_FLOOR else "1",
            "" if tool == IMPORT_FLOOR else f"{data['megabytes']:.3f}",
            f"{data['median_s']:.3f}",
            "",
            "",
            "",
            "",
            "",
            f"{data['max_rss_mb']:.0f}",
            "",
        )
    console.print(perf)

    accuracy = Table(title="Agreement with the expected verdicts (expected.jsonl)")
    for column in (
        "tool",
        "input",
        "agreement",
        "invalid flagged",
        "false positives",
        "unchecked",
        "findings with line",
        "finding on broken line",
    ):
        accuracy.add_column(column, justify="left" if column in ("tool", "input") else "right")
    for run in report.runs:
        a, o = run.agreement, run.output
        if run.group in (ML, ML7):
            continue  # no expected verdicts: see the table of its kinds
        if a is None or o is None:
            accuracy.add_row(run.tool, run.label, "n/a", "", "", "", "", "")
            continue
        trainops = run.tool == "trainops"  # the peers report no line numbers
        accuracy.add_row(
            run.tool,
            run.label,
            _pct(a.agree, a.documents),
            f"{a.flagged_invalid:,} / {a.expected_invalid:,}",
            f"{a.false_positives:,}",
            f"{a.documents - a.checked:,}",
            f"{o.findings_with_line:,} / {o.findings:,}" if trainops else "no lines",
            f"{a.at_expected_line:,} / {a.flagged_invalid:,}" if trainops else "n/a",
        )
    console.print(accuracy)

    categories = Table(title="Invalid documents flagged, per category (flagged / expected)")
    categories.add_column("category")
    totals = _category_totals(report)
    for column in totals:
        categories.add_column(column, justify="right")
    names = sorted({c for counts in totals.values() for c in counts})
    for name in names:
        categories.add_row(name, *(_ratio(counts.get(name)) for counts in totals.values()))
    console.print(categories)

    for group in (ML, ML7):
        if any(row.trainops.group == group for row in report.ml_kinds):
            console.print(ml_kinds_table(report, group))

    targets = Table(title="Targets (trainops)")
    for column in ("target", "measured", "result"):
        targets.add_column(column)
    for target in report.targets:
        result = "info" if target.passed is None else "[green]PASS[/]" if target.passed else "[red]FAIL[/]"
        targets.add_row(target.name, target.measured, result)
    console.print(targets)
    for note in report.notes:
        console.print(note, highlight=False)
    for failure in report.failures:
        console.print(f"[red]failed:[/] {failure}")


def ml_kinds_table(report: Report, group: str = ML) -> Table:
    """The kinds of the ML corpus of ``group`` (:data:`ML`, :data:`ML7`), each measured alone:
    trainops's and kubeconform's wall and CPU time, their ratios, the CPU per document above each
    tool's median start-up CPU (one small file), and the documents each found invalid."""
    table = Table(title=f"{ML7_LABEL if group == ML7 else ML_LABEL}, each kind alone (same run)")
    columns = (
        "kind",
        "apiVersions",
        "upstream",
        "docs",
        "trainops wall s / CPU s",
        "kubeconform wall s / CPU s",
        "x wall",
        "x CPU",
        "CPU-ms/doc above start-up: trainops / kubeconform",
        "invalid: trainops / kubeconform",
    )
    for column in columns:
        table.add_column(column, justify="left" if column in ("kind", "apiVersions") else "right")
    startup = {tool: float(data.get("cpu_median_s", 0.0)) for tool, data in report.startup.items()}
    for row in report.ml_kinds:
        ours, theirs = row.trainops, row.kubeconform
        if ours.group != group:
            continue

        def net(run: ToolRun) -> str:
            extra = max(0.0, run.measurement.cpu_s - startup.get(run.tool, 0.0))
            return f"{1000 * extra / run.documents:.2f}" if run.documents else ""

        def times(run: ToolRun | None) -> str:
            return f"{run.measurement.wall_s:.2f} / {run.measurement.cpu_s:.2f}" if run else "-"

        def flagged(run: ToolRun | None) -> str:
            return "-" if run is None or run.flagged is None else f"{run.flagged:,}"

        wall = (
            f"{theirs.measurement.wall_s / ours.measurement.wall_s:.2f}x"
            if theirs and ours.measurement.wall_s
            else "-"
        )
        # below 10 ms the kernel's CPU accounting (clock ticks) gives no ratio
        cpu = (
            f"{theirs.measurement.cpu_s / ours.measurement.cpu_s:.2f}x"
            if theirs and min(ours.measurement.cpu_s, theirs.measurement.cpu_s) >= 0.01
            else "-"
        )
        table.add_row(
            row.kind.kind,
            ", ".join(row.kind.versions),
            f"{row.kind.upstream:,}",
            f"{row.kind.documents:,}",
            times(ours),
            times(theirs),
            wall,
            cpu,
            f"{net(ours)} / {net(theirs) if theirs else '-'}",
            f"{flagged(ours)} / {flagged(theirs)}",
        )
    return table


def _other_share(m: Measurement, report: Report) -> float:
    """Percent of the machine's CPU capacity other processes used during ``m``."""
    capacity = m.wall_s * (report.machine.get("cpus") or 1)
    return 100 * m.other_cpu_s / capacity if capacity else 0.0


def _ratio(counts: tuple[int, int] | None) -> str:
    if counts is None:
        return "-"
    flagged, expected = counts
    return f"{flagged:,} / {expected:,}"


def _category_totals(report: Report) -> dict[str, dict[str, tuple[int, int]]]:
    """Column label → category → (flagged, expected)."""
    out: dict[str, dict[str, tuple[int, int]]] = {}
    for run in _trainops_runs(report):
        if run.agreement is None or run.corpus != (_headline(report) or run).corpus:
            continue
        column = out.setdefault(f"trainops {run.corpus} (core + CRD)", {})
        for name, (flagged, expected) in run.agreement.by_category.items():
            before = column.get(name, (0, 0))
            column[name] = (before[0] + flagged, before[1] + expected)
    for run in report.runs:
        if (
            run.tool != "kubeconform"
            or run.agreement is None
            or run.corpus != (_headline(report) or run).corpus
        ):
            continue
        column = out.setdefault(f"kubeconform {run.corpus} (core + CRD)", {})
        for name, (flagged, expected) in run.agreement.by_category.items():
            before = column.get(name, (0, 0))
            column[name] = (before[0] + flagged, before[1] + expected)
    for tool, agreement in sorted(report.sample_agreement.items(), reverse=True):
        out[f"{tool} (peer sample)"] = dict(agreement.by_category)
    return out


def legend(report: Report) -> list[str]:
    """Notes printed under the tables: what is measured and where the tools' semantics differ."""
    notes = [
        "docs/s: documents / wall time of one process run, start-up included; trainops splits large",
        "  inputs across forked workers (procs = most processes seen at once).",
        f"{IMPORT_FLOOR}: the interpreter importing {', '.join(FLOOR_MODULES)} and exiting (no trainops",
        "  code): the floor of any start-up built on these libraries on this machine.",
        "* kubernetes-validate runs on a fixed sample (the first core files of the smallest corpus) and its",
        "  docs/s is extrapolated from it; it has no CRD schemas (PyTorchJob/ServiceMonitor would be 'unchecked').",
        "peak RSS: kernel ru_maxrss of the largest single process of the tree (not a sum), read with "
        + (report.runs[0].measurement.method if report.runs else "/usr/bin/time")
        + ".",
        "tree PSS: sampled (50 ms) peak of the summed proportional set size of the whole process tree.",
        "other CPU: share of the machine's CPU capacity used by other processes during the run (/proc/stat).",
        "finding on broken line: invalid documents with a finding on the line the generator broke.",
    ]
    peer = report.sample_agreement.get("kubernetes-validate")
    if peer is not None:
        blind = [name for name, (flagged, expected) in peer.by_category.items() if expected and not flagged]
        if blind:
            notes.append(
                "kubernetes-validate --strict misses: "
                + "; ".join(f"{name} ({PEER_BLIND_SPOTS.get(name, 'not checked')})" for name in blind)
                + "."
            )
        notes.append(
            "kubernetes-validate reports only the first error of a document and no line numbers; it reads"
            " unquoted timestamps as datetime objects and rejects them as 'not of type string' (trainops keeps"
            " them as strings, like the API server; the corpus quotes them); int-or-string fields agree."
        )
    peers = [r for r in report.runs if r.tool == "kubeconform" and r.agreement is not None]
    if peers:
        notes.append(
            "kubeconform runs right after trainops on the same documents (-strict, -n CPUs, the same"
            " Kubernetes schemas and CRDs, converted by bench/peer_schemas.py); whole-process wall time."
        )
        missed: dict[str, list[int]] = {}
        for run in peers:
            for name, (flagged, expected) in (run.agreement.by_category if run.agreement else {}).items():
                counts = missed.setdefault(name, [0, 0])
                counts[0] += flagged
                counts[1] += expected
        blind = [f"{name} ({f:,}/{e:,})" for name, (f, e) in sorted(missed.items()) if f < e]
        if blind:
            notes.append("kubeconform flagged fewer than expected in: " + ", ".join(blind) + ".")
    notes.extend(ml_notes(report.ml_corpus))
    notes.extend(ml_notes(report.ml7_corpus, ML7_LABEL, ML7_CORPUS))
    headline = _headline(report)
    if headline is not None and headline.measurement.cpu_s:
        per_cpu = headline.documents / headline.measurement.cpu_s
        cpus = report.machine.get("cpus") or 1
        notes.append(
            f"trainops spends {1000 / per_cpu:.2f} CPU-ms per document on {headline.label}: with {cpus} CPUs"
            f" it cannot exceed ~{per_cpu * cpus:,.0f} docs/s even on an idle machine."
        )
        if _other_share(headline.measurement, report) > 10:
            notes.append(
                f"[yellow]the headline run shared the machine ({_other_share(headline.measurement, report):.0f} %"
                " of its CPU went to other processes): its docs/s is low; re-run on an idle machine.[/]"
            )
    load = report.machine.get("loadavg_end")
    if load is not None:
        notes.append(
            f"load average at start {report.machine['loadavg_start'][0]:.2f}, at end {load[0]:.2f}"
            " (a shared machine slows every number down)."
        )
    return notes


def ml_notes(corpus: dict[str, Any], label: str = ML_LABEL, folder: str = ML_CORPUS) -> list[str]:
    """What an ML corpus holds (its ``corpus.json``): kinds, copies, what was left out and why."""
    if not corpus:
        return []
    kinds = ", ".join(f"{k['kind']} {k['upstream']}" for k in corpus["kinds"])
    reasons: dict[str, list[str]] = {}
    for left in corpus["left_out"]:
        reasons.setdefault(left["reason"], []).append(f"{left['apiVersion']} {left['kind']}")
    notes = [
        f"{label} ({folder}, bench/mlcorpus.py): {len(corpus['sources'])} upstream documents of"
        f" {len(corpus['kinds'])} kinds ({kinds}), each repeated {corpus['copies']} times with a distinct"
        f" metadata.name: {corpus['documents']:,} documents, one folder per kind"
        + (
            f"; {corpus['broken']:,} of them broken once (an unknown field in spec, written back by PyYAML)."
            if corpus.get("broken")
            else "."
        ),
    ]
    for reason, which in sorted(reasons.items()):
        counts = ", ".join(f"{n} {w}" for w, n in sorted(Counter(which).items()))
        notes.append(f"  left out ({reason}): {counts}.")
    notes.append(
        "  each kind alone: CPU-ms/doc above start-up subtracts the tool's median start-up CPU (one small"
        " file); kinds of a few dozen documents are mostly start-up."
    )
    return notes


def write_results(report: Report, path: Path) -> None:
    """Write everything measured as JSON."""
    runs = []
    for run in report.runs:
        runs.append(
            {
                "tool": run.tool,
                "input": run.label,
                "documents": run.documents,
                "megabytes": run.megabytes,
                "docs_per_s": run.docs_per_s,
                "measurement": {
                    **asdict(run.measurement),
                    "stdout": _rel(run.measurement.stdout),
                    "stderr": _rel(run.measurement.stderr),
                },
                "agreement": None
                if run.agreement is None
                else {**asdict(run.agreement), "agreement": run.agreement.agreement},
                "findings": None if run.output is None else run.output.findings,
                "findings_with_line": None if run.output is None else run.output.findings_with_line,
                "unattributed_findings": None if run.output is None else run.output.unattributed,
                "error": run.error,
            }
        )
    payload = {
        "kubernetes_version": KUBERNETES_VERSION,
        "machine": report.machine,
        "corpora": report.corpora,
        "startup": report.startup,
        "runs": runs,
        "sample_agreement": {tool: asdict(a) for tool, a in report.sample_agreement.items()},
        "ml": {
            "corpus": report.ml_corpus,
            "seven_kinds_corpus": report.ml7_corpus,
            "runs": [
                {
                    "tool": r.tool,
                    "input": r.label,
                    "documents": r.documents,
                    "docs_per_s": r.docs_per_s,
                    "invalid": r.flagged,
                    "unknown_kind": r.unknown,
                }
                for r in report.runs
                if r.group in (ML, ML7)
            ],
            "kinds": [
                {
                    "corpus": row.trainops.corpus,
                    "folder": row.kind.folder,
                    "versions": list(row.kind.versions),
                    "upstream": row.kind.upstream,
                    "documents": row.kind.documents,
                    **{
                        run.tool: {
                            "wall_s": run.measurement.wall_s,
                            "cpu_s": run.measurement.cpu_s,
                            "max_rss_mb": run.measurement.max_rss_mb,
                            "invalid": run.flagged,
                            "error": run.error,
                        }
                        for run in (row.trainops, row.kubeconform)
                        if run is not None
                    },
                }
                for row in report.ml_kinds
            ],
        },
        "targets": [asdict(t) for t in report.targets],
        "notes": report.notes,
        "failures": report.failures,
    }
    path.write_text(json.dumps(payload, indent=2, default=str) + "\n", encoding="utf-8")


def run(options: Options) -> int:
    """Run the whole benchmark; see the module docstring for the exit code."""
    console = Console(width=None if sys.stdout.isatty() else 170)
    report = Report(machine=machine_info())
    if not (default_cache_dir() / "schemas" / "index.json").is_file():
        console.print(
            "[yellow]no CRD schema cache: run `make schemas` (CRD documents will be reported as unknown kinds)[/]"
        )
    corpora = build_corpora(options, report, console)
    # Bytecode, as an installed package has it (pip compiles on install; PYTHONDONTWRITEBYTECODE would
    # otherwise make every measured trainops process compile its modules from source), and as a
    # repository's rule pack and apps have it after their first run (64 modules: ~70 ms per policy run from
    # source).
    compileall.compile_dir(REPO / "lib", quiet=1)
    compileall.compile_dir(SAMPLE / "apps", quiet=1)
    if importlib.util.find_spec("trainops._accel._blockyaml") is None:
        note = (
            "trainops._accel's C reader is not built in this checkout (`python setup.py build_ext --inplace`):"
            " the trainops and TRAINOPS_ACCEL=0 rows both measure the plain path."
        )
        console.print(f"[yellow]{note}[/]")
        report.notes.append(note)
    binary = kubeconform.locate()
    missing = kubeconform.missing_note(binary)
    if binary is not None and missing is None:
        console.print("kubeconform schemas (converted once into bench/out/kubeconform) ...")
        options = replace(
            options,
            kubeconform=binary,
            kubeconform_schemas=kubeconform.prepare(options.out, KUBERNETES_VERSION),
        )
        found = kubeconform.version(binary)
        report.machine["kubeconform"] = f"{found} ({binary})"
        if found != kubeconform.VERSION:
            report.notes.append(
                f"kubeconform is {found}, not {kubeconform.VERSION}: figures are not comparable."
            )
    else:
        console.print(f"[yellow]{missing}[/]")
        report.notes.append(str(missing))
    ml = {spec.group: build_ml_corpus(options, report, console, spec) for spec in ML_SPECS}
    console.print("start-up ...")
    measure_startup(options, report)
    for size in sorted(corpora):
        run_trainops(options, report, corpora[size], console)
    for group, corpus in ml.items():
        if corpus is not None:
            run_ml(options, report, corpus, console, group)
    run_peer(options, report, corpora[min(corpora)], console)
    from bench import policy  # the policy pack vs Checkov (it imports this module)

    policies = policy.run(options, report, corpora[min(corpora)], console) if options.policy else None
    report.machine["loadavg_end"] = os.getloadavg()
    evaluate_targets(report)
    if policies is not None:
        policy.evaluate(policies, report)
    report.notes = [*legend(report), *(policy.notes(policies) if policies else []), *report.notes]
    render(report, console)
    if policies is not None:
        policy.render(policies, console)
    write_results(report, options.out / "results.json")
    if policies is not None:
        policy.write(policies, options.out / "results.json")
    console.print(f"results: {_rel(options.out / 'results.json')}")
    if report.failures:
        return 1
    if options.check and any(t.passed is False for t in report.targets):
        return 1
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m bench``."""
    parser = argparse.ArgumentParser(prog="python -m bench", description=(__doc__ or "").split("\n")[0])
    parser.add_argument(
        "--sizes", default="10000,100000", help="corpus sizes, comma-separated (default: %(default)s)"
    )
    parser.add_argument(
        "--peer-sample", type=int, default=Options.peer_sample, help="kubernetes-validate sample size"
    )
    parser.add_argument("--startup-runs", type=int, default=Options.startup_runs)
    parser.add_argument("--workers", type=int, default=None, help="trainops --workers (default: all CPUs)")
    parser.add_argument("--check", action="store_true", help="exit 1 when a target fails")
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument(
        "--no-policy", action="store_true", help="leave out the policy pack and Checkov (validation only)"
    )
    args = parser.parse_args(argv)
    sizes = tuple(int(s) for s in args.sizes.split(",") if s.strip())
    if not sizes or any(s <= 0 for s in sizes):
        parser.error("--sizes: positive integers, e.g. 10000,100000")
    if args.peer_sample <= 0 or args.startup_runs <= 0:
        parser.error("--peer-sample and --startup-runs must be positive")
    options = Options(sizes, args.peer_sample, args.startup_runs, args.workers, args.check, args.out)
    return run(replace(options, policy=not args.no_policy))


if __name__ == "__main__":
    raise SystemExit(main())
