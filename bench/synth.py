"""``make bench`` (synth part): ``trainops synth`` of 100 generated apps (7 objects each), measured
in the same run as ``cdk8s synth`` of the same App, plus ``trainops synth --changed`` after one app
changed (issue 15 point 8: targets at most 3 s for 100 apps, at most 1 s when one app changed).

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

REPO = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent

CLUSTERS = """
from trainops.cluster import Cluster

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


def main(argv: list[str] | None = None) -> int:
    """Run the synth benchmark; print a table with the targets."""
    parser = argparse.ArgumentParser(prog="python -m bench.synth")
    parser.add_argument("--apps", type=int, default=100)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--check", action="store_true", help="exit 1 when a target FAILs")
    args = parser.parse_args(argv)
    trainops = str(BIN / "trainops")
    cdk8s = BIN / "cdk8s"
    rows: list[tuple[str, tuple[float, float] | None, float | None]] = []
    # Bytecode, as an installed package has it (see bench/run.py).
    compileall.compile_dir(REPO / "lib", quiet=1)
    with tempfile.TemporaryDirectory(prefix="trainops-bench-synth-") as tmp:
        root = Path(tmp)
        write_project(root, args.apps, policies=True)
        try:
            subprocess.run([trainops, "synth"], cwd=root, check=True, capture_output=True, text=True)
            git(root, "init", "-q", "-b", "main")
            git(root, "add", "-A")
            git(root, "commit", "-q", "-m", "bench")
            rows.append(
                (
                    f"trainops synth, {args.apps} apps",
                    timed([trainops, "synth", "--force"], root, args.runs),
                    3.0,
                )
            )
            bare = timed([trainops, "synth", "--force", "--no-validate"], root, args.runs)
            rows.append((f"trainops synth --no-validate, {args.apps} apps", bare, None))
            if cdk8s.exists():
                rows.append(
                    (
                        f"cdk8s synth, {args.apps} apps (same App)",
                        timed([str(cdk8s), "synth"], root, args.runs),
                        None,
                    )
                )
            else:
                rows.append(("cdk8s synth: not installed (make install)", None, None))
            changed_app = root / "apps" / "app007.py"
            source = changed_app.read_text()

            def change(attempt: int) -> None:
                changed_app.write_text(source.replace("WORKERS = 2", f"WORKERS = {3 + attempt}"))

            one = timed([trainops, "synth", "--changed", "--force"], root, args.runs, change)
            rows.append(("trainops synth --changed, 1 app changed", one, 1.0))
        except (RuntimeError, subprocess.CalledProcessError) as exc:
            print(f"bench.synth: {exc}", file=sys.stderr)
            return 1
    failed = False
    load = os.getloadavg()[0]
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
    return 1 if failed and args.check else 0


if __name__ == "__main__":
    raise SystemExit(main())
