"""``make bench`` (synth part): ``trainops synth`` of 100 generated apps (7 objects each), measured
in the same run as ``cdk8s synth`` of the same App, plus ``trainops synth --changed`` after one app
changed (issue 15 point 8: targets at most 3 s for 100 apps, at most 1 s when one app changed); then
``trainops synth`` of N apps cycling through the sample repository's builders (issue 36 point 3,
:func:`write_sample_project`) at 100, 1,000 and 2,000 apps, one measured run each with wall, CPU,
peak RSS and tree PSS (:mod:`bench.measure`), renders and objects: targets 1,000 apps in at most
10 s, time linear (2,000 apps at most 2.1x the 1,000-app time, CPU) and memory flat (tree PSS at
2,000 apps at most 1.1x that at 1,000 apps).

The project is written to a temporary git repository: ``apps/clusters.py`` (one cluster),
``apps/appNNN.py`` (a dataset and an output claim, a PyTorchJob mounting both, a model server with
its Service, autoscaler and ServiceMonitor), ``apps/__init__.py`` registering them, ``apps/__main__.py``
(the cdk8s entry point of the sample repository), ``cdk8s.yaml`` and ``policies/config.yaml``
extending the default pack (so a full synth validates and runs the policy pack, as ``trainops synth``
does by default). Each command runs as a subprocess, ``runs`` times after one warm-up; the median wall and
CPU times are reported. Before every ``--changed`` run (the warm-up too) ``app007`` gets a new
worker count, so each run renders, validates and writes a real change.

Python runs as it does for a user: ``lib/`` is compiled first (an installed package has bytecode) and
``PYTHONDONTWRITEBYTECODE`` is dropped from the commands' environment, so the bench apps' bytecode
is cached by the warm-up run as it is in any checkout (the changed app is compiled again each run).

Exit code: 0 when every command ran (targets are reported PASS/FAIL, not enforced), 1 when a command
failed, or with ``--check`` when a target FAILs.
"""

from __future__ import annotations

import argparse
import compileall
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

from bench.measure import Measurement, run_measured

REPO = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent

CLUSTERS = """
from trainops.core.cluster import Cluster

CLUSTERS = (
    Cluster(
        name="bench",
        kubernetes_version="1.34",
        operators={"training-operator": "v1.9.4", "prometheus-operator": "v0.93.0"},
        storage_classes={"default": "standard-rwo", "shared": "nfs"},
    ),
)
"""

APP = '''
"""Generated bench app {index}."""

from __future__ import annotations

from trainops.app import AppDef
from trainops.constructs import Autoscaler, VolumeClaim, ModelServer, PyTorchJob, ServiceMonitor

WORKERS = {workers}


def build(chart, cluster):
    data = VolumeClaim(chart, "Data", cluster=cluster, name="data-{index}", size="100Gi",
                      access_mode="ReadWriteMany", storage_role="shared")
    out = VolumeClaim(chart, "Out", cluster=cluster, name="out-{index}", size="50Gi",
                     access_mode="ReadWriteMany", storage_role="shared")
    job = PyTorchJob(chart, "Job", cluster=cluster, name="train-{index}",
                     image="registry.example.com/train:1.{index}", command=["python", "train.py"],
                     master=False, workers=WORKERS, gpus_per_node=1, cpu="4", memory="16Gi")
    job.mount(data, "/data", read_only=True)
    job.mount(out, "/output")
    server = ModelServer(chart, "Server", cluster=cluster, name="serve-{index}",
                         image="registry.example.com/serve:1.{index}", port=8080)
    service = server.expose()
    Autoscaler(chart, "Autoscaler", target=server, min_replicas=2, max_replicas=6)
    ServiceMonitor(chart, "Monitor", service=service, port="http", path="/metrics")


APP = AppDef(name="app{index:03d}", build=build, namespace="bench-{index}", team="bench")
'''

CDK8S_YAML = "language: python\napp: {python} -m apps\noutput: dist\n"


def write_project(root: Path, apps: int, *, policies: bool = False) -> None:
    """Write the bench project under ``root`` (with a ``policies/config.yaml`` extending the default
    pack when ``policies``)."""
    pkg = root / "apps"
    pkg.mkdir(parents=True)
    (pkg / "clusters.py").write_text(textwrap.dedent(CLUSTERS))
    for index in range(apps):
        (pkg / f"app{index:03d}.py").write_text(textwrap.dedent(APP.format(index=index, workers=2)))
    modules = [f"app{i:03d}" for i in range(apps)]
    init = ["from apps import " + m for m in modules]
    init += [
        "from apps.clusters import CLUSTERS",
        "",
        "APPS = (" + ", ".join(f"{m}.APP" for m in modules) + ",)",
    ]
    (pkg / "__init__.py").write_text("\n".join(init) + "\n")
    shutil.copy(REPO / "examples" / "ml-platform" / "apps" / "__main__.py", pkg / "__main__.py")
    (root / "cdk8s.yaml").write_text(CDK8S_YAML.format(python=sys.executable))
    if policies:
        (root / "policies").mkdir()
        (root / "policies" / "config.yaml").write_text("extends: default\n")


SAMPLE = REPO / "examples" / "ml-platform"

#: The bench's ``apps/__init__.py``: app ``i`` is the sample's app ``i mod 21`` (declaration order of
#: the sample's ``APPS``) under the name ``<sample app>-<i>``, on the clusters that app targets.
SAMPLE_INIT = '''"""Bench apps: {apps} apps cycling through the sample repository's builders."""

from __future__ import annotations

from dataclasses import replace

from apps import {modules}
from apps.clusters import CLUSTERS
from trainops.app import AppDef

_SAMPLE: tuple[AppDef, ...] = ({sample})
APPS: tuple[AppDef, ...] = tuple(
    replace(_SAMPLE[i % len(_SAMPLE)], name=f"{{_SAMPLE[i % len(_SAMPLE)].name}}-{{i:04d}}")
    for i in range({apps})
)
'''

#: The bench's policy config: the sample's builders write fixed object names, so the copies of one
#: builder define the same objects in the same namespaces; ``unique-objects`` would reject that.
SAMPLE_POLICIES = "extends: default\nrules:\n  unique-objects: disable\n"


def write_sample_project(root: Path, apps: int) -> None:
    """Write a project of ``apps`` apps cycling through the sample repository's builders under
    ``root``: the sample's ``apps/`` package (its builders and ``clusters.py``) with an
    ``apps/__init__.py`` registering app ``i`` as the sample's app ``i mod 21`` named
    ``<sample app>-<i>`` (:data:`SAMPLE_INIT`), its ``cdk8s.yaml`` and a ``policies/config.yaml``
    extending the default pack (:data:`SAMPLE_POLICIES`).

    Raises:
        ValueError: the sample's ``apps/__init__.py`` no longer has the shape read here.
    """
    shutil.copytree(SAMPLE / "apps", root / "apps", ignore=shutil.ignore_patterns("__pycache__"))
    source = (SAMPLE / "apps" / "__init__.py").read_text()
    modules = re.search(r"from apps import \((.*?)\)", source, re.S)
    registry = re.search(r"APPS: tuple\[AppDef, \.\.\.\] = \((.*?)\)\n", source, re.S)
    if modules is None or registry is None:
        raise ValueError(f"{SAMPLE / 'apps' / '__init__.py'}: no 'from apps import (...)' or 'APPS = (...)'")
    names = ", ".join(m.strip() for m in modules.group(1).split(",") if m.strip())
    sample = " ".join(registry.group(1).split())
    (root / "apps" / "__init__.py").write_text(SAMPLE_INIT.format(apps=apps, modules=names, sample=sample))
    (root / "cdk8s.yaml").write_text(CDK8S_YAML.format(python=sys.executable))
    (root / "policies").mkdir()
    (root / "policies" / "config.yaml").write_text(SAMPLE_POLICIES)


#: Seconds between the memory samples of a sample-apps synth. The sampler reads ``smaps_rollup`` of
#: every process of the tree (the parent, its render workers and their Node.js processes); every
#: 50 ms that took about 7 CPU-s of a 30 s run of 1,000 apps from a tree that uses both cores.
SAMPLE_INTERVAL = 0.25

#: ``synth: 14012 objects from 2900 apps written to generated/`` (renders: (cluster, app) pairs).
_COUNTS = re.compile(r"synth: (\d+) objects from (\d+) apps")


def sample_run(trainops: str, apps: int, scratch: Path) -> tuple[Measurement, int, int]:
    """``trainops synth`` of :func:`write_sample_project`'s project of ``apps`` apps, its ``apps/``
    compiled to bytecode first, in one measured run writing ``generated/`` afresh.

    Returns:
        The measurement, the renders ((cluster, app) pairs, Argo CD directories included) and the
        objects written, as synth's count line says.

    Raises:
        RuntimeError: a run failed (its stderr is quoted).
    """
    root = scratch / f"sample-{apps}"
    write_sample_project(root, apps)
    compileall.compile_dir(root / "apps", quiet=1)  # bytecode, as after any earlier run
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    measured = run_measured(
        [trainops, "synth"], scratch / f"sample-{apps}.out", cwd=root, env=env, interval=SAMPLE_INTERVAL
    )
    stderr = measured.stderr.read_text()
    counts = _COUNTS.search(stderr)
    if measured.exit_code != 0 or counts is None:
        raise RuntimeError(
            f"trainops synth of {apps} sample apps: exit {measured.exit_code}: {stderr.strip()[-500:]}"
        )
    shutil.rmtree(root)
    return measured, int(counts.group(2)), int(counts.group(1))


def sample_table(trainops: str, sizes: list[int], scratch: Path) -> tuple[list[str], bool]:
    """Measure :func:`sample_run` at each of ``sizes`` (ascending) and check the targets: 1,000 apps
    in at most 10 s wall; the largest size at most 1.05x per app of the CPU time of 1,000 apps (2,000
    apps: at most 2.1x); its tree PSS at most 1.1x that of 1,000 apps (flat memory).

    Returns:
        The table's lines and whether a target failed.
    """
    lines = [
        f"{'sample apps':<12} {'renders':>8} {'objects':>8} {'wall s':>7} {'CPU s':>7} {'other CPU s':>11} "
        f"{'peak RSS MB':>11} {'tree PSS MB':>11}"
    ]
    runs: dict[int, Measurement] = {}
    for apps in sizes:
        m, renders, objects = sample_run(trainops, apps, scratch)
        runs[apps] = m
        lines.append(
            f"{apps:<12} {renders:>8} {objects:>8} {m.wall_s:7.2f} {m.cpu_s:7.2f} {m.other_cpu_s:11.2f} "
            f"{m.max_rss_mb:11.0f} {m.tree_pss_mb:11.0f}"
        )
    failed = False
    if 1000 in runs:
        ok = runs[1000].wall_s <= 10.0
        failed |= not ok
        lines.append(f"target: 1,000 apps <= 10 s wall: {runs[1000].wall_s:.2f} s {'PASS' if ok else 'FAIL'}")
        largest = max(runs)
        if largest > 1000:
            ratio = runs[largest].cpu_s / runs[1000].cpu_s
            bound = 1.05 * largest / 1000
            ok = ratio <= bound
            failed |= not ok
            lines.append(
                f"target: linear, CPU of {largest} apps <= {bound:.2f}x of 1,000: {ratio:.2f}x {'PASS' if ok else 'FAIL'}"
            )
            memory = runs[largest].tree_pss_mb / runs[1000].tree_pss_mb
            ok = memory <= 1.1
            failed |= not ok
            lines.append(
                f"target: flat memory, tree PSS of {largest} apps <= 1.10x of 1,000: {memory:.2f}x {'PASS' if ok else 'FAIL'}"
            )
    return lines, failed


def git(root: Path, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@x", "GIT_COMMITTER_NAME": "b",
           "GIT_COMMITTER_EMAIL": "b@x"}  # fmt: skip
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, env=env)


def timed(
    argv: list[str], cwd: Path, runs: int, prepare: Callable[[int], None] | None = None
) -> tuple[float, float]:
    """Median wall time and median CPU time (user + system of the command and its children, e.g.
    the jsii Node.js process) in seconds of ``argv`` over ``runs`` runs after one warm-up. On a
    shared machine the wall time grows with the load; the CPU time does not. ``prepare(attempt)``
    runs before each run (0 is the warm-up), outside the measurement.

    Raises:
        RuntimeError: the command failed (its stderr is quoted).
    """
    walls, cpus = [], []
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    for attempt in range(runs + 1):
        if prepare is not None:
            prepare(attempt)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, check=False, env=env)
        elapsed = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(argv)}: exit {done.returncode}: {done.stderr.strip()[-500:]}")
        if attempt:
            walls.append(elapsed)
            cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return statistics.median(walls), statistics.median(cpus)


def template_rows(
    trainops: str, apps: int, runs: int
) -> list[tuple[str, tuple[float, float] | None, float | None]]:
    """The rows of the generated-template project of ``apps`` apps: full synth (target 3 s CPU),
    ``--no-validate``, ``cdk8s synth`` of the same App, ``--changed`` with one app changed (1 s).

    Raises:
        RuntimeError, subprocess.CalledProcessError: a command failed.
    """
    cdk8s = BIN / "cdk8s"
    rows: list[tuple[str, tuple[float, float] | None, float | None]] = []
    with tempfile.TemporaryDirectory(prefix="trainops-bench-synth-") as tmp:
        root = Path(tmp)
        write_project(root, apps, policies=True)
        subprocess.run([trainops, "synth"], cwd=root, check=True, capture_output=True, text=True)
        git(root, "init", "-q", "-b", "main")
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", "bench")
        rows.append((f"trainops synth, {apps} apps", timed([trainops, "synth", "--force"], root, runs), 3.0))
        bare = timed([trainops, "synth", "--force", "--no-validate"], root, runs)
        rows.append((f"trainops synth --no-validate, {apps} apps", bare, None))
        if cdk8s.exists():
            same = timed([str(cdk8s), "synth"], root, runs)
            rows.append((f"cdk8s synth, {apps} apps (same App)", same, None))
        else:
            rows.append(("cdk8s synth: not installed (make install)", None, None))
        changed_app = root / "apps" / "app007.py"
        source = changed_app.read_text()

        def change(attempt: int) -> None:
            changed_app.write_text(source.replace("WORKERS = 2", f"WORKERS = {3 + attempt}"))

        one = timed([trainops, "synth", "--changed", "--force"], root, runs, change)
        rows.append(("trainops synth --changed, 1 app changed", one, 1.0))
    return rows


def main(argv: list[str] | None = None) -> int:
    """Run the synth benchmark; print the tables with the targets."""
    parser = argparse.ArgumentParser(prog="python -m bench.synth")
    parser.add_argument("--apps", type=int, default=100, help="apps of the template project (0: skip it)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--check", action="store_true", help="exit 1 when a target FAILs")
    parser.add_argument(
        "--sample-apps",
        default="100,1000,2000",
        help="comma-separated sizes of the sample-builder project (empty: skip it)",
    )
    args = parser.parse_args(argv)
    trainops = str(BIN / "trainops")
    sizes = sorted(int(size) for size in args.sample_apps.split(",") if size.strip())
    # Bytecode, as an installed package has it (see bench/run.py).
    compileall.compile_dir(REPO / "lib", quiet=1)
    try:
        rows = template_rows(trainops, args.apps, args.runs) if args.apps > 0 else []
        with tempfile.TemporaryDirectory(prefix="trainops-bench-sample-") as tmp:
            sample, failed = sample_table(trainops, sizes, Path(tmp)) if sizes else ([], False)
    except (RuntimeError, ValueError, subprocess.CalledProcessError) as exc:
        print(f"bench.synth: {exc}", file=sys.stderr)
        return 1
    load = os.getloadavg()[0]
    if rows:
        print(f"synth bench: median of {args.runs} runs; {os.cpu_count()} CPUs, load average {load:.1f}")
        print(f"{'command':<46} {'wall s':>7} {'CPU s':>7}  target (CPU)")
    for label, measured, target in rows:
        if measured is None:
            print(f"{label:<46} {'-':>7} {'-':>7}")
            continue
        wall, cpu = measured
        verdict = ""
        if target is not None:
            ok = cpu <= target
            failed |= not ok
            verdict = f"<= {target:.0f} s {'PASS' if ok else 'FAIL'}"
        print(f"{label:<46} {wall:7.2f} {cpu:7.2f}  {verdict}")
    if sample:
        print(f"synth of the sample's builders, one run each; load average {load:.1f}")
        print("\n".join(sample))
    return 1 if failed and args.check else 0


if __name__ == "__main__":
    raise SystemExit(main())
