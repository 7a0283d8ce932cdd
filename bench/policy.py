"""The policy part of ``make bench``: trainops's whole rule pack against Checkov on the same corpus.

Measured in the same run as the validation benchmark (:mod:`bench.run`), on the 10,000-document
corpus (core and CRD documents together, as one checked set):

* ``trainops policy check --config <default pack>/default.yaml`` (every rule of the pack enabled);
* ``trainops validate`` without ``--policy`` (validation alone, the same command otherwise): what
  validation leaves to the pack of the validate + policy target's CPU time (:func:`pack_budget`);
* ``trainops validate --policy`` (validation and the whole pack in one command, one report);
* Checkov (:mod:`bench.checkov`, ``--framework kubernetes``) on a fixed sample of the same files
  (the first core files holding at least :data:`CHECKOV_SAMPLE` documents plus the first CRD file):
  it scans ~100 documents/s, so its rate is extrapolated from the sample.

Findings are counted per category (:data:`CATEGORIES`): every trainops rule and every Checkov
Kubernetes check is mapped to one (:data:`TRAINOPS_CATEGORY`, :func:`checkov_category`), and the
table shows each tool's findings per category on Checkov's sample, plus trainops's on the whole corpus.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from bench import checkov
from bench.corpus import read_expected
from bench.measure import run_measured
from bench.run import (
    CWD,
    KUBERNETES_VERSION,
    Options,
    Report,
    Target,
    ToolRun,
    _arg,
    _bin,
    _env,
    _failed,
    _megabytes,
)
from trainops.policy.config import DEFAULT_CONFIG

#: Documents of the core group Checkov scans at least (whole files; the first CRD file is added).
#: Checkov's cost per document grows with the number of resources it scans at once (its graph of
#: resources, CKV2 checks), so a sample gives it a higher rate than the whole corpus would.
CHECKOV_SAMPLE = 1000
#: Target: trainops's whole pack over Checkov, documents/s (issue 12 point 11).
TARGET_CHECKOV = 10
#: Target: validation and the whole pack in one command, documents/s on 2 CPUs.
TARGET_VALIDATE_POLICY = 5000
#: The run of the same ``validate`` command without ``--policy`` on the same corpus: what validation
#: alone costs, so that the table shows how much of the target's CPU time it leaves to the pack.
VALIDATE_ALONE = "trainops validate (no policy)"

CATEGORIES: tuple[str, ...] = (
    "security",
    "images",
    "resources",
    "networking",
    "reliability",
    "scheduling",
    "storage",
    "gitops/config",
)

#: Every rule of the default pack → its category (a meta-test checks the pack and this table agree).
TRAINOPS_CATEGORY: dict[str, str] = {
    **dict.fromkeys(
        (
            "no-privileged",
            "no-host-namespaces",
            "no-host-path",
            "no-privilege-escalation",
            "run-as-non-root",
            "drop-capabilities",
            "seccomp-profile",
            "no-secret-literals",
            "service-account",
            "read-only-root-fs",
            "app-project",
            "unsafe-sysctls",
            "proc-mount",
            "selinux-apparmor",
            "host-process",
            "probe-host",
            "volume-types",
            "rbac-cluster-admin",
            "rbac-wildcard",
            "rbac-exec",
            "rbac-secrets",
            "rbac-escalate",
        ),
        "security",
    ),
    **dict.fromkeys(("allowed-registries", "image-pinned", "same-image"), "images"),
    **dict.fromkeys(
        (
            "resource-requests",
            "memory-limits",
            "valid-quantities",
            "resource-caps",
            "gpu-limits",
            "shm-size",
            "nproc-per-node",
            "ephemeral-storage",
            "llm-parallelism",
        ),
        "resources",
    ),
    **dict.fromkeys(
        (
            "exposed-service",
            "named-ports",
            "service-selects-pods",
            "service-target-port",
            "servicemonitor-target",
            "network-policy",
        ),
        "networking",
    ),
    **dict.fromkeys(
        (
            "probes",
            "high-availability",
            "graceful-rollout",
            "hpa-bounds",
            "hpa-target",
            "pdb-selects",
            "pdb-required",
            "probe-sanity",
            "llm-startup-probe",
            "replica-restart-policy",
            "run-policy",
            "elastic-bounds",
            "replica-topology",
            "selector-matches",
            "rollout-services",
            "rollout-analysis",
        ),
        "reliability",
    ),
    **dict.fromkeys(
        (
            "gpu-scheduling",
            "gang-scheduling",
            "kueue-queue",
            "multikueue-managed-by",
            "topology-placement",
            "topology-unplaced",
            "priority-class",
            "operator-admission",
            "katib-experiment",
            "katib-trial-template",
        ),
        "scheduling",
    ),
    **dict.fromkeys(
        ("pvc-storage", "checkpoint-volume", "protect-data", "pvc-exists", "pvc-access-mode"), "storage"
    ),
    **dict.fromkeys(
        (
            "pinned-revision",
            "app-destination",
            "destination-namespace",
            "sync-policy",
            "app-finalizer",
            "namespace-set",
            "standard-labels",
            "no-generate-name",
            "run-once-names",
            "no-ttl-under-gitops",
            "sync-waves",
            "server-side-apply",
            "unique-objects",
            "servicemonitor-release-label",
            "refs-exist",
            "waiver",
        ),
        "gitops/config",
    ),
}

#: Checkov Kubernetes checks outside ``security`` (the rest: privileges, capabilities, RBAC, secrets,
#: service-account tokens, seccomp, control-plane flags), from ``checkov --list --framework kubernetes``.
CHECKOV_CATEGORY: dict[str, str] = {
    **dict.fromkeys(("CKV_K8S_14", "CKV_K8S_15", "CKV_K8S_43"), "images"),
    **dict.fromkeys(("CKV_K8S_10", "CKV_K8S_11", "CKV_K8S_12", "CKV_K8S_13"), "resources"),
    **dict.fromkeys(("CKV_K8S_8", "CKV_K8S_9"), "reliability"),
    **dict.fromkeys(("CKV2_K8S_6", "CKV_K8S_26", "CKV_K8S_152", "CKV_K8S_153", "CKV_K8S_154"), "networking"),
    "CKV_K8S_21": "gitops/config",  # the default namespace should not be used
}


def checkov_category(check_id: str) -> str:
    """The category of a Checkov check ID (``security`` unless :data:`CHECKOV_CATEGORY` says otherwise)."""
    return CHECKOV_CATEGORY.get(check_id, "security")


def trainops_category(rule: str) -> str:
    """The category of a trainops rule ID; ``other`` for validation rules (``yaml``, ``schema``...)."""
    return TRAINOPS_CATEGORY.get(rule, "other")


@dataclass
class Findings:
    """Findings of one tool run: per rule (or check ID), per category, and per file."""

    per_rule: Counter[str] = field(default_factory=Counter)
    per_category: Counter[str] = field(default_factory=Counter)
    per_file: Counter[str] = field(default_factory=Counter)
    total: int = 0


def trainops_findings(text: str, corpus: Path, cwd: Path, files: Iterable[str] | None = None) -> Findings:
    """Findings of a ``--format json`` report of ``trainops policy check`` or ``validate --policy``,
    limited to ``files`` (paths relative to ``corpus``) when given.

    Raises:
        ValueError: the text is not a trainops JSON report.
    """
    try:
        report: Any = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"trainops output is not JSON: {exc}") from None
    if not isinstance(report, dict) or not isinstance(report.get("findings"), list):
        raise ValueError("trainops output: no findings list")
    wanted = set(files) if files is not None else None
    out = Findings()
    for finding in report["findings"]:
        file = _corpus_relative(str(finding["file"]), corpus, cwd)
        if wanted is not None and file not in wanted:
            continue
        rule = str(finding["rule"])
        out.per_rule[rule] += 1
        out.per_category[trainops_category(rule)] += 1
        out.per_file[file] += 1
        out.total += 1
    return out


def checkov_findings(output: checkov.CheckovOutput, corpus_files: Sequence[str]) -> Findings:
    """Checkov's failed checks as :class:`Findings`; its file paths (``/core/part-0000.yaml``, relative to
    where it ran, with a leading slash) are mapped to the corpus files they end with."""
    out = Findings()
    for check_id, count in output.failed.items():
        out.per_rule[check_id] += count
        out.per_category[checkov_category(check_id)] += count
        out.total += count
    for path, count in output.files.items():
        match = next((f for f in corpus_files if path.endswith("/" + f) or path == f), path)
        out.per_file[match] += count
    return out


def _corpus_relative(file: str, corpus: Path, cwd: Path) -> str:
    path = Path(file)
    path = path if path.is_absolute() else cwd / path
    try:
        return path.resolve().relative_to(corpus.resolve()).as_posix()
    except ValueError:
        return file


def checkov_sample(corpus: Path, documents: int = CHECKOV_SAMPLE) -> tuple[list[str], int]:
    """The sample Checkov scans: the first core files holding at least ``documents`` documents, plus
    the first CRD file; returns (files relative to ``corpus``, documents in them)."""
    counts: Counter[str] = Counter(r.file for r in read_expected(corpus))
    core = sorted(f for f in counts if f.startswith("core/"))
    crd = sorted(f for f in counts if f.startswith("crd/"))
    chosen: list[str] = []
    total = 0
    for file in core:
        if total >= documents:
            break
        chosen.append(file)
        total += counts[file]
    chosen.extend(crd[:1])
    return chosen, sum(counts[f] for f in chosen)


@dataclass
class PolicyBench:
    """What the policy part measured (written to ``results.json`` under ``policy``)."""

    corpus: str = ""
    sample: list[str] = field(default_factory=list)
    sample_documents: int = 0
    checkov: str = ""
    findings: dict[str, Findings] = field(default_factory=dict)
    runs: dict[str, ToolRun] = field(default_factory=dict)


def _measure(
    tool: str, label: str, argv: list[str], out: Path, corpus: Path, documents: int, paths: Iterable[Path]
) -> ToolRun:
    paths = list(paths)
    m = run_measured(argv, out, cwd=CWD, env=_env(), inputs=paths)
    return ToolRun(tool, label, corpus.name, "policy", documents, m, _megabytes(paths))


def run(options: Options, report: Report, corpus: Path, console: Console) -> PolicyBench:
    """Measure the four runs on ``corpus`` and add them to ``report.runs``."""
    bench = PolicyBench(corpus=corpus.name)
    documents = len(read_expected(corpus))
    everything = sorted((corpus / "core").glob("*.yaml")) + sorted((corpus / "crd").glob("*.yaml"))
    dirs = [_arg(corpus / "core"), _arg(corpus / "crd")]
    runs_dir = options.out / "runs"
    bench.sample, bench.sample_documents = checkov_sample(corpus)

    console.print(f"trainops policy check {corpus.name} ({documents:,} documents, whole pack) ...")
    config = _arg(DEFAULT_CONFIG)
    policy = _measure(
        "trainops policy",
        f"{corpus.name}/core+crd, whole pack",
        [_bin("trainops"), "policy", "check", "--config", config, "--format", "json", *dirs],
        runs_dir / f"trainops-policy-{corpus.name}.json",
        corpus,
        documents,
        everything,
    )
    _record(bench, report, "trainops policy", policy, corpus)

    workers = ["--workers", str(options.workers)] if options.workers is not None else []
    validate = [_bin("trainops"), "validate", "--format", "json", "--kubernetes-version", KUBERNETES_VERSION]
    console.print(f"trainops validate {corpus.name} ({documents:,} documents, no policy) ...")
    alone = _measure(
        VALIDATE_ALONE,
        f"{corpus.name}/core+crd, no policy",
        [*validate, *workers, *dirs],
        runs_dir / f"trainops-validate-{corpus.name}.json",
        corpus,
        documents,
        everything,
    )
    _record(bench, report, VALIDATE_ALONE, alone, corpus)
    console.print(f"trainops validate --policy {corpus.name} ({documents:,} documents) ...")
    both = _measure(
        "trainops validate+policy",
        f"{corpus.name}/core+crd, one command",
        [*validate, "--policy", *workers, *dirs],
        runs_dir / f"trainops-validate-policy-{corpus.name}.json",
        corpus,
        documents,
        everything,
    )
    _record(bench, report, "trainops validate+policy", both, corpus)

    install = checkov.ensure(options.out)
    bench.checkov = install.note
    if install.executable is None:
        report.notes.append(f"Checkov not measured: {install.note}.")
        return bench
    sample = [_arg(corpus / f) for f in bench.sample]
    console.print(
        f"checkov {corpus.name} sample ({bench.sample_documents:,} documents, ~100 documents/s) ..."
    )
    peer = _measure(
        "checkov",
        f"{corpus.name} sample (core+crd) *",
        checkov.argv(install.executable, sample),
        runs_dir / f"checkov-{corpus.name}.json",
        corpus,
        bench.sample_documents,
        [corpus / f for f in bench.sample],
    )
    report.runs.append(peer)
    bench.runs["checkov"] = peer
    if not _failed(peer, report):
        try:
            output = checkov.parse_checkov(peer.measurement.stdout.read_text(encoding="utf-8"))
        except ValueError as exc:
            report.failures.append(f"checkov: {exc}")
        else:
            bench.findings["checkov sample"] = checkov_findings(output, bench.sample)
    if policy.error is None and "trainops policy" in bench.findings:
        text = policy.measurement.stdout.read_text(encoding="utf-8")
        bench.findings["trainops policy sample"] = trainops_findings(text, corpus, CWD, bench.sample)
    return bench


def _record(bench: PolicyBench, report: Report, name: str, run: ToolRun, corpus: Path) -> None:
    report.runs.append(run)
    bench.runs[name] = run
    if _failed(run, report):
        return
    try:
        bench.findings[name] = trainops_findings(
            run.measurement.stdout.read_text(encoding="utf-8"), corpus, CWD
        )
    except ValueError as exc:
        report.failures.append(f"{name}: {exc}")


def evaluate(bench: PolicyBench, report: Report) -> None:
    """The two policy targets, appended to ``report.targets``."""
    policy = bench.runs.get("trainops policy")
    peer = bench.runs.get("checkov")
    if (
        policy is not None
        and policy.error is None
        and peer is not None
        and peer.error is None
        and peer.docs_per_s
    ):
        ratio = policy.docs_per_s / peer.docs_per_s
        per_cpu = _per_cpu_s(policy) / _per_cpu_s(peer) if _per_cpu_s(peer) else 0.0
        report.targets.append(
            Target(
                f"≥ {TARGET_CHECKOV}x Checkov, whole policy pack, {bench.corpus} (same run)",
                f"{ratio:.1f}x ({policy.docs_per_s:,.0f} vs {peer.docs_per_s:,.0f} docs/s;"
                f" per CPU-s {per_cpu:.1f}x)",
                ratio >= TARGET_CHECKOV,
            )
        )
    both = bench.runs.get("trainops validate+policy")
    if both is not None and both.error is None:
        measured = f"{both.docs_per_s:,.0f} docs/s"
        alone = bench.runs.get(VALIDATE_ALONE)
        if alone is not None and alone.error is None:
            budget = pack_budget(
                both.documents, int(report.machine["cpus"]), alone.measurement.cpu_s, both.measurement.cpu_s
            )
            measured += (
                f"; validation alone {alone.docs_per_s:,.0f} docs/s, {budget.validation_cpu_s:.2f} CPU-s,"
                f" leaves the pack {budget.left_cpu_s:.2f} of {budget.total_cpu_s:.2f} CPU-s; it used"
                f" {budget.pack_cpu_s:.2f}"
            )
        report.targets.append(
            Target(
                f"validate + policy ≥ {TARGET_VALIDATE_POLICY:,} docs/s, {bench.corpus}, {report.machine['cpus']} CPUs",
                measured,
                both.docs_per_s >= TARGET_VALIDATE_POLICY,
            )
        )


@dataclass(frozen=True)
class PackBudget:
    """CPU seconds of the validate + policy target, split (see :func:`pack_budget`).

    Args:
        total_cpu_s: what the machine's CPUs offer in the time the target allows.
        validation_cpu_s: what validation alone took (the same command without ``--policy``).
        left_cpu_s: what that leaves for the pack (may be negative).
        pack_cpu_s: what the pack took: validate + policy's CPU less validation's.
    """

    total_cpu_s: float
    validation_cpu_s: float
    left_cpu_s: float
    pack_cpu_s: float


def pack_budget(documents: int, cpus: int, validation_cpu_s: float, both_cpu_s: float) -> PackBudget:
    """The CPU seconds :data:`TARGET_VALIDATE_POLICY` allows for ``documents`` on ``cpus`` CPUs (all of
    them busy the whole time: an upper bound), less validation's own, against what the pack took.

    Example: 10,000 documents on 2 CPUs may take 2 s, 4 CPU-s; if validation alone took 2.7 CPU-s and
    validate + policy 14 CPU-s, the pack had 1.3 CPU-s and used 11.3."""
    total = cpus * documents / TARGET_VALIDATE_POLICY
    return PackBudget(total, validation_cpu_s, total - validation_cpu_s, both_cpu_s - validation_cpu_s)


def _per_cpu_s(run: ToolRun) -> float:
    return run.documents / run.measurement.cpu_s if run.measurement.cpu_s else 0.0


def notes(bench: PolicyBench) -> list[str]:
    """Notes printed under the tables."""
    out = [
        f"* checkov ({bench.checkov}) runs on a fixed sample of {bench.corpus}: {', '.join(bench.sample)}"
        f" ({bench.sample_documents:,} documents); its docs/s is extrapolated from it. It runs its"
        " Kubernetes framework offline (--skip-download); it has no checks for custom resources (PyTorchJob,"
        " ServiceMonitor) and no cross-object checks but CKV2_K8S_*. Its CPU per document grows with the"
        " number of resources scanned at once (its resource graph), so the sample flatters its rate on"
        " the whole corpus.",
        "trainops policy: `policy check --config <default pack>/default.yaml` (every rule enabled, facts of the first"
        " cluster of the sample repository's apps/clusters.py) on all documents at once; validate+policy: `validate --policy`, one report;"
        " validate (no policy): the same command without --policy, so the validate + policy target shows the"
        " CPU time validation leaves to the pack.",
    ]
    return out


def render(bench: PolicyBench, console: Console) -> None:
    """The findings-per-category table."""
    columns = [
        (name, found)
        for name, found in (
            ("trainops (sample)", bench.findings.get("trainops policy sample")),
            ("Checkov (sample)", bench.findings.get("checkov sample")),
            (f"trainops (all {bench.corpus})", bench.findings.get("trainops policy")),
        )
        if found is not None
    ]
    if not columns:
        return
    table = Table(title="Policy findings per category (whole trainops pack vs Checkov's Kubernetes checks)")
    table.add_column("category")
    for name, _ in columns:
        table.add_column(name, justify="right")
    names = [*CATEGORIES, *sorted({c for _, f in columns for c in f.per_category} - set(CATEGORIES))]
    for name in names:
        table.add_row(name, *(f"{f.per_category.get(name, 0):,}" for _, f in columns))
    table.add_row("total", *(f"{f.total:,}" for _, f in columns))
    console.print(table)


def results(bench: PolicyBench) -> dict[str, Any]:
    """The ``policy`` entry of ``results.json``."""
    return {
        "corpus": bench.corpus,
        "checkov": bench.checkov,
        "checkov_version": checkov.VERSION,
        "checkov_sample": {"files": bench.sample, "documents": bench.sample_documents},
        "runs": {
            name: {
                "input": run.label,
                "documents": run.documents,
                "docs_per_s": run.docs_per_s,
                "wall_s": run.measurement.wall_s,
                "cpu_s": run.measurement.cpu_s,
                "max_rss_mb": run.measurement.max_rss_mb,
                "tree_pss_mb": run.measurement.tree_pss_mb,
                "error": run.error,
            }
            for name, run in bench.runs.items()
        },
        "findings": {
            name: {
                "total": f.total,
                "per_category": dict(sorted(f.per_category.items())),
                "per_rule": dict(sorted(f.per_rule.items())),
            }
            for name, f in bench.findings.items()
        },
        "categories": {
            "trainops": TRAINOPS_CATEGORY,
            "checkov": CHECKOV_CATEGORY,
            "checkov_default": "security",
        },
    }


def write(bench: PolicyBench, path: Path) -> None:
    """Add :func:`results` to ``results.json`` (written by :func:`bench.run.write_results`)."""
    payload = json.loads(path.read_text(encoding="utf-8"))
    payload["policy"] = results(bench)
    path.write_text(json.dumps(payload, indent=2, default=str) + "\n", encoding="utf-8")
