"""Run a command as a subprocess and measure wall time, CPU time and memory of its process tree.

What is measured (Linux):

* **wall** — ``time.perf_counter()`` from spawn to exit.
* **CPU** — user + system seconds of the process plus every descendant it waited for
  (trainops's forked workers are reaped by their parent, so they count).
* **peak RSS (largest process)** — ``ru_maxrss``: the kernel's high-water mark of the *largest
  single process* of the tree (not a sum), read by ``/usr/bin/time -f %M`` when present, else by a
  small helper interpreter calling ``getrusage(RUSAGE_CHILDREN)`` after its one child exits.
  The command is never spawned straight from the benchmark process: on ``exec`` Linux carries
  the parent's RSS high-water mark into the child's ``maxrss``, so ``/bin/true`` spawned from a
  300 MB Python reports 300 MB; a small wrapper (``time``, or the helper) keeps that error to
  the wrapper's own few MB. ``RUSAGE_CHILDREN`` of the runner itself would also be a running
  maximum over every earlier run.
* **peak tree memory (PSS)** — the wrapper's descendants are sampled from ``/proc`` every
  ``interval`` seconds and their proportional set sizes (``smaps_rollup``) summed; PSS splits
  pages shared copy-on-write between forked workers, so the sum is the tree's real footprint.
  It is a sampled peak (a spike shorter than the interval can be missed). The summed RSS is kept
  too (it counts shared pages once per process, so it over-states forked trees).

* **other CPU** — CPU seconds the *rest of the machine* used during the run: busy time from
  ``/proc/stat`` before and after, minus the run's own CPU. On a shared machine this says how much
  the numbers were slowed down by others.

The sampler reads a few small ``/proc`` files per interval on one of the machine's cores; at the
default 50 ms this costs well under 1 % of a core.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Measurement:
    """The outcome of one measured run.

    Args:
        argv: the command.
        exit_code: its exit code (negative: killed by that signal).
        wall_s: wall-clock seconds.
        cpu_s: user + system CPU seconds of the process and its reaped descendants.
        max_rss_mb: peak RSS of the largest single process (MiB).
        tree_pss_mb: sampled peak of the summed PSS of the process tree (MiB).
        tree_rss_mb: sampled peak of the summed RSS of the process tree (MiB).
        max_processes: most processes seen at once in the tree (the wrapper not counted).
        stdout: file holding the command's standard output.
        stderr: file holding its standard error.
        method: how ``max_rss_mb`` and ``cpu_s`` were read (``/usr/bin/time`` or the helper).
        other_cpu_s: CPU seconds used by other processes of the machine during the run.
    """

    argv: tuple[str, ...]
    exit_code: int
    wall_s: float
    cpu_s: float
    max_rss_mb: float
    tree_pss_mb: float
    tree_rss_mb: float
    max_processes: int
    stdout: Path
    stderr: Path
    method: str
    other_cpu_s: float = 0.0


TIME = Path("/usr/bin/time")
#: Fallback wrapper: run the command, then report the children's rusage (``maxrss user system``).
_HELPER = (
    "import resource, subprocess, sys\n"
    "code = subprocess.call(sys.argv[2:])\n"
    "u = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
    "open(sys.argv[1], 'w').write(f'{u.ru_maxrss} {u.ru_utime} {u.ru_stime}\\n')\n"
    "sys.exit(code if code >= 0 else 128 - code)\n"
)


def wrap(argv: Sequence[str], usage_file: Path) -> tuple[list[str], str]:
    """``argv`` under a small wrapper that writes ``maxrss_kb user_s system_s`` to ``usage_file``."""
    if TIME.is_file() and os.access(TIME, os.X_OK):
        return [str(TIME), "-f", "%M %U %S", "-o", str(usage_file), *argv], "/usr/bin/time"
    return [sys.executable, "-S", "-c", _HELPER, str(usage_file), *argv], "getrusage(RUSAGE_CHILDREN) helper"


def read_usage(usage_file: Path) -> tuple[float, float]:
    """(max RSS MiB, CPU seconds) from the wrapper's file (its last line; GNU time may add a line)."""
    lines = usage_file.read_text(encoding="ascii").split("\n")
    maxrss, user, system = [line for line in lines if line.strip()][-1].split()
    return int(maxrss) / 1024, float(user) + float(system)


def busy_cpu_s() -> float:
    """CPU seconds the whole machine has spent busy since boot (``/proc/stat``; 0 when unreadable)."""
    try:
        with open("/proc/stat", encoding="ascii") as handle:
            fields = [int(v) for v in handle.readline().split()[1:]]
    except (OSError, ValueError):
        return 0.0
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
    busy = sum(fields[:8]) - idle  # user nice system idle iowait irq softirq steal (guest is in user)
    return busy / os.sysconf("SC_CLK_TCK")


def _children_map() -> dict[int, list[int]]:
    """ppid → pids, from ``/proc/*/stat``."""
    out: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as handle:
                stat = handle.read()
        except OSError:
            continue
        # the command name (field 2) may hold spaces and parentheses: split after the last ")"
        fields = stat[stat.rfind(b")") + 2 :].split()
        out.setdefault(int(fields[1]), []).append(int(entry.name))
    return out


def process_tree(root: int) -> list[int]:
    """``root`` and all its live descendants."""
    children = _children_map()
    tree = [root]
    index = 0
    while index < len(tree):
        tree.extend(children.get(tree[index], []))
        index += 1
    return tree


def _memory_kb(pid: int) -> tuple[int, int]:
    """(RSS, PSS) of one process in KiB; zeros when it is gone or unreadable."""
    rss = pss = 0
    try:
        with open(f"/proc/{pid}/smaps_rollup", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("Rss:"):
                    rss = int(line.split()[1])
                elif line.startswith("Pss:"):
                    pss = int(line.split()[1])
                    break
    except (OSError, ValueError, IndexError):
        pass
    return rss, pss


class _TreeSampler(threading.Thread):
    """Samples the summed RSS/PSS of a process tree until stopped."""

    def __init__(self, root: int, interval: float) -> None:
        super().__init__(daemon=True)
        self.root = root
        self.interval = interval
        self.stop = threading.Event()
        self.peak_rss_kb = 0
        self.peak_pss_kb = 0
        self.max_processes = 0

    def run(self) -> None:
        while not self.stop.is_set():
            tree = process_tree(self.root)[1:]  # the wrapper itself is not measured
            rss = pss = 0
            for pid in tree:
                one_rss, one_pss = _memory_kb(pid)
                rss += one_rss
                pss += one_pss
            self.peak_rss_kb = max(self.peak_rss_kb, rss)
            self.peak_pss_kb = max(self.peak_pss_kb, pss)
            self.max_processes = max(self.max_processes, len(tree))
            self.stop.wait(self.interval)


def warm_page_cache(inputs: Sequence[Path]) -> int:
    """Read every file of ``inputs`` (a directory stands for its ``*.yaml`` files, recursively);
    returns the bytes read."""
    total = 0
    for path in inputs:
        files = sorted(path.rglob("*.yaml")) if path.is_dir() else [path]
        for file in files:
            with file.open("rb") as handle:
                while chunk := handle.read(1 << 20):
                    total += len(chunk)
    return total


def run_measured(
    argv: Sequence[str],
    stdout: Path,
    *,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    interval: float | None = 0.05,
    inputs: Sequence[Path] = (),
) -> Measurement:
    """Run ``argv`` to completion under a wrapper (see :func:`wrap`); stdout/stderr go to files.

    Standard error goes to ``<stdout>.err``. ``inputs`` (files, or directories whose ``*.yaml`` files
    count) are read once before the clock starts, so every tool starts with its input in the page
    cache: this machine's cache is small (about 1 GB), the bench writes and reads hundreds of MB, and
    a tool whose input was evicted spent seconds waiting for the disk (seen as wall time far above
    CPU time) while the peer run right after it found the files cached.

    ``interval``: seconds between samples of the tree's memory; ``None`` samples nothing (tree PSS
    and RSS are then 0). Reading ``/proc/<pid>/smaps_rollup`` walks the process's page tables under
    its memory-map lock, which stalls a process that is mapping its modules: one-file start-up runs
    took 0.151 s (median of 11) sampled every 50 ms and 0.125 s unsampled.
    """
    warm_page_cache(inputs)
    stdout.parent.mkdir(parents=True, exist_ok=True)
    stderr = stdout.with_suffix(stdout.suffix + ".err")
    usage_file = stdout.with_suffix(stdout.suffix + ".rusage")
    usage_file.unlink(missing_ok=True)
    command, method = wrap(argv, usage_file)
    with stdout.open("wb") as out, stderr.open("wb") as err:
        busy_before = busy_cpu_s()
        start = time.perf_counter()
        proc = subprocess.Popen(command, stdout=out, stderr=err, stdin=subprocess.DEVNULL, cwd=cwd, env=env)
        sampler = _TreeSampler(proc.pid, interval if interval is not None else 0.0)
        if interval is not None:
            sampler.start()
        try:
            proc.wait()
        finally:
            wall = time.perf_counter() - start
            busy = busy_cpu_s() - busy_before
            if interval is not None:
                sampler.stop.set()
                sampler.join()
    max_rss_mb, cpu_s = read_usage(usage_file)
    return Measurement(
        argv=tuple(argv),
        exit_code=proc.returncode,
        wall_s=wall,
        cpu_s=cpu_s,
        max_rss_mb=max_rss_mb,
        tree_pss_mb=sampler.peak_pss_kb / 1024,
        tree_rss_mb=sampler.peak_rss_kb / 1024,
        max_processes=sampler.max_processes,
        stdout=stdout,
        stderr=stderr,
        method=method,
        other_cpu_s=max(0.0, busy - cpu_s),
    )
