"""What the fuzz targets of ``make fuzz`` share (tests/fuzz/fuzz_diff.py, fuzz_argocd.py): run one
atheris campaign with a seeded corpus under ``fuzz-out/<name>/``, and summarise its log in one line.

A crash (an exception the target does not accept, a timeout, running out of memory) is saved by
libFuzzer as ``fuzz-out/<name>/crash-*``; add each one as a regression test beside the command.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from collections.abc import Callable, Iterable
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def out_dir(name: str) -> Path:
    """``fuzz-out/<name>``: the target's corpus, log and crashes (git-ignored)."""
    return REPO / "fuzz-out" / name


def summary(name: str, log: Path, seconds: str) -> int:
    """Print ``fuzz <name>: N inputs in S s, K crashes``; 1 when it found a crash (or did not run)."""
    text = log.read_text(encoding="utf-8", errors="replace")
    runs = re.findall(r"stat::number_of_executed_units:\s*(\d+)", text)
    out = out_dir(name)
    crashes = sorted(p.name for pattern in ("crash-*", "timeout-*", "oom-*") for p in out.glob(pattern))
    print(
        f"fuzz {name}: {runs[-1] if runs else '?'} inputs in {seconds} s, "
        f"{len(crashes)} crashes{': ' + ', '.join(crashes) if crashes else ''}"
    )
    return 1 if crashes or not runs else 0


def main(name: str, test_one_input: Callable[[bytes], None], seeds: Iterable[bytes]) -> None:
    """``python tests/fuzz/fuzz_<name>.py [SECONDS]`` (default 60), or ``--summary LOG SECONDS``."""
    import atheris

    if sys.argv[1:2] == ["--summary"]:
        sys.exit(summary(name, Path(sys.argv[2]), sys.argv[3] if len(sys.argv) > 3 else "?"))
    seconds = int(sys.argv[1]) if len(sys.argv) > 1 else 60
    out = out_dir(name)
    corpus = out / "corpus"
    corpus.mkdir(parents=True, exist_ok=True)
    if not any(corpus.iterdir()):
        for index, seed in enumerate(seeds):
            (corpus / f"seed-{index:03}").write_bytes(seed)
    args = [
        sys.argv[0],
        str(corpus),
        f"-max_total_time={seconds}",
        "-timeout=20",
        "-rss_limit_mb=2048",
        "-max_len=16384",
        f"-artifact_prefix={out}{os.sep}",
        "-print_final_stats=1",
    ]
    atheris.Setup(args, test_one_input)
    atheris.Fuzz()


def clean(name: str) -> None:
    """Remove a target's corpus and crashes (a fresh campaign)."""
    shutil.rmtree(out_dir(name), ignore_errors=True)
