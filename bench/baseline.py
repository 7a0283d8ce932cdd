"""``make bench-baseline REV=<git revision>``: trainops now vs trainops at REV, same corpus, one run.

For a change that must not cost speed (e.g. a refactor), this checks out REV into a git worktree
under ``bench/out/baseline-<rev>`` (created once, with its own ``.venv`` and schema cache from the
same CRD mirror), then validates the same corpus files with both builds in interleaved pairs
(baseline, current, baseline, current, ...), so machine load drifts hit both alike. It prints, per
corpus part, the median wall time, documents/s and CPU seconds of each build and their ratio.

Exit code: 0 when both ran, 1 when a build failed to run.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from bench.corpus import CorpusSpec, ensure_corpus
from bench.run import KUBERNETES_VERSION, OUT, REPO

SHARED = REPO.parent / "shared"


@dataclass(frozen=True)
class Timing:
    """One measured run: wall seconds and CPU seconds (user + system of the process tree)."""

    wall_s: float
    cpu_s: float


def prepare(rev: str, out: Path) -> Path:
    """The baseline checkout of ``rev`` with its venv and schema cache, created when missing.

    Raises:
        subprocess.CalledProcessError: git, make install or schemas sync failed.
    """
    sha = subprocess.run(
        ["git", "rev-parse", rev], cwd=REPO, check=True, capture_output=True, text=True
    ).stdout
    tree = out / f"baseline-{sha.strip()[:12]}"
    if not tree.is_dir():
        subprocess.run(["git", "worktree", "add", "--detach", str(tree), sha.strip()], cwd=REPO, check=True)
    env = (
        {**os.environ, "CRD_MIRROR": str(SHARED / "crds")} if (SHARED / "crds").is_dir() else dict(os.environ)
    )
    subprocess.run(
        ["make", "-s", "install", "schemas"], cwd=tree, check=True, env=env, stdout=subprocess.DEVNULL
    )
    return tree


def timed(argv: Sequence[str], cwd: Path) -> Timing:
    """Run ``argv`` in ``cwd`` (output discarded); exit codes 0 and 1 (findings) count as success.

    Raises:
        SystemExit: the command failed (exit code 2 or more).
    """
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode > 1:
        raise SystemExit(f"bench-baseline: {argv[0]} exited {done.returncode}: {done.stderr.decode()[-500:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return Timing(wall, cpu)


def compare(baseline: Path, corpus: Path, pairs: int) -> dict[str, dict[str, float]]:
    """Interleaved pairs on the core and the CRD files of ``corpus``; medians per build and part."""
    documents = json.loads((corpus / "corpus.json").read_text(encoding="utf-8"))["counts"]
    results: dict[str, dict[str, float]] = {}
    for part in ("core", "crd"):
        files = sorted(str(p) for p in (corpus / part).glob("*.yaml"))
        runs: dict[str, list[Timing]] = {"baseline": [], "current": []}
        for _ in range(pairs):
            for name, root in (("baseline", baseline), ("current", REPO)):
                argv = [str(root / ".venv/bin/trainops"), "validate", "--format", "json"]
                argv += ["--kubernetes-version", KUBERNETES_VERSION, *files]
                runs[name].append(timed(argv, root))
        count = int(documents[f"{part}/valid"]) + int(documents[f"{part}/invalid"])
        row: dict[str, float] = {"documents": count}
        for name, timings in runs.items():
            wall = statistics.median(t.wall_s for t in timings)
            row[f"{name}_docs_per_s"] = count / wall
            row[f"{name}_cpu_s"] = statistics.median(t.cpu_s for t in timings)
        row["ratio"] = row["current_docs_per_s"] / row["baseline_docs_per_s"]
        results[part] = row
    return results


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: ``python -m bench.baseline --rev REV [--size N] [--pairs N]``."""
    parser = argparse.ArgumentParser(
        prog="python -m bench.baseline", description=(__doc__ or "").split("\n")[0]
    )
    parser.add_argument(
        "--rev", required=True, help="git revision to compare with, e.g. origin/main or a SHA"
    )
    parser.add_argument("--size", type=int, default=100_000, help="corpus documents (default: 100000)")
    parser.add_argument("--pairs", type=int, default=5, help="interleaved pairs per part (default: 5)")
    args = parser.parse_args(argv)
    corpus = OUT / f"corpus-{args.size // 1000}k"
    ensure_corpus(CorpusSpec(documents=args.size), corpus)
    baseline = prepare(args.rev, OUT)
    load = os.getloadavg()
    results = compare(baseline, corpus, args.pairs)
    print(f"trainops now vs {args.rev} ({baseline.name}), {args.pairs} interleaved pairs, median of each;")
    print(f"load average before: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    print(
        f"{'part':<6} {'documents':>9} {'baseline docs/s':>16} {'current docs/s':>15} {'ratio':>6} {'cpu s base/cur':>16}"
    )
    for part, row in results.items():
        print(
            f"{part:<6} {int(row['documents']):>9} {row['baseline_docs_per_s']:>16,.0f} "
            f"{row['current_docs_per_s']:>15,.0f} {row['ratio']:>6.3f} "
            f"{row['baseline_cpu_s']:>7.2f}/{row['current_cpu_s']:<7.2f}"
        )
    (OUT / "baseline.json").write_text(json.dumps({"rev": args.rev, "results": results}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
