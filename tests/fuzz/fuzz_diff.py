"""Coverage-guided fuzzing (atheris) of ``trainops diff``'s reading and comparing: ``make fuzz``.

Each input is two files (split at the first ``\\x00\\x00``): the same path at the base revision and
in the working tree. Both go through the content screen (:func:`~trainops.diff.snapshot.content_problem`),
the YAML parse (:func:`~trainops.diff.compare.parse_tree`), the comparison and all three renderers.
The only acceptable outcome is a diff: any exception is a crash; so is a summary or JSON report that
is not one line / not JSON.

Usage: ``python tests/fuzz/fuzz_diff.py [SECONDS]``; corpus and crashes in ``fuzz-out/diff/``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import atheris

sys.path.insert(0, str(Path(__file__).resolve().parent))
import harness

if sys.argv[1:2] == ["--summary"]:  # before instrumenting: the summary imports no trainops code
    sys.exit(harness.summary("diff", Path(sys.argv[2]), sys.argv[3] if len(sys.argv) > 3 else "?"))

with atheris.instrument_imports(include=["trainops.diff"]):
    from trainops.diff import compare, parse_tree, summary
    from trainops.diff.present import DIFF_FORMATS
    from trainops.diff.snapshot import content_problem

PATH = "generated/lab/web/deployment_web.yaml"


def side(data: bytes) -> dict[str, str]:
    """One side's tree: the file's text, or nothing when the content screen refuses it."""
    if content_problem(PATH, data, len(data)) is not None:
        return {}
    return {PATH: data.decode("utf-8")}


def test_one_input(data: bytes) -> None:
    """One fuzz input: must give a diff (see the module docstring)."""
    old_bytes, _, new_bytes = data.partition(b"\x00\x00")
    unparsed: dict[str, str] = {}
    old = parse_tree(side(old_bytes), "generated", unparsed)
    new = parse_tree(side(new_bytes), "generated", unparsed)
    diff = compare(old, new, base="base", head="head", protected=("lab",))
    if "\n" in summary(diff):
        raise AssertionError("the summary spans several lines")
    json.loads(DIFF_FORMATS["json"](diff))
    DIFF_FORMATS["text"](diff)
    DIFF_FORMATS["markdown"](diff)


def seeds() -> list[bytes]:
    """Pairs of the sample repository's generated/ files (each against itself and its neighbour)."""
    files = sorted((harness.REPO / "examples" / "ml-platform" / "generated").rglob("*.yaml"))[:30]
    texts = [f.read_bytes() for f in files if f.stat().st_size < 8192]
    pairs = [a + b"\x00\x00" + b for a, b in zip(texts, texts[1:] + texts[:1], strict=True)]
    return pairs + [t + b"\x00\x00" + t for t in texts[:5]]


if __name__ == "__main__":
    harness.main("diff", test_one_input, seeds())
