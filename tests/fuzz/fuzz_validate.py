"""Coverage-guided fuzzing (atheris, libFuzzer) of the loader and the validator: ``make fuzz``.

Each input is a file's bytes: decoded as ``trainops validate`` decodes files, loaded, and validated
against the Kubernetes 1.34 schemas plus the cached CRDs. The only acceptable outcome
is findings: any exception, a finding whose rule is not registered, or a finding message spanning
several lines is a crash, saved by libFuzzer as ``fuzz-out/crash-*`` (add each one to
tests/bad_inputs/ with a case in tests/cli/test_bad_inputs.py). The whole default policy pack then
runs over the same documents (``pipeline.policy_check``): a rule that raises is a crash too.

Usage: ``python tests/fuzz/fuzz_validate.py [SECONDS]`` (default 90); the corpus grows in
``fuzz-out/corpus`` (git-ignored), seeded from tests/bad_inputs and the committed generated/ tree.
The last line printed is the summary the README quotes.
"""

from __future__ import annotations

import dataclasses
import os
import re
import shutil
import sys
from pathlib import Path

import atheris

REPO = Path(__file__).resolve().parents[2]
OUT = REPO / "fuzz-out"
#: The sample repository, whose generated/ tree seeds the corpus (run as a script: no conftest here).
SAMPLE = REPO / "examples" / "ml-platform"

with atheris.instrument_imports(include=["trainops"]):
    from trainops.core import rules
    from trainops.core.findings import Result
    from trainops.pipeline import Text, policy_check, policy_run
    from trainops.schemas.catalog import default_cache_dir
    from trainops.schemas.registry import SchemaRegistry
    from trainops.validate.engine import ValidateOptions, validate_text
    from trainops.yaml.source import decode

REGISTRY = SchemaRegistry("1.34", default_cache_dir())
OPTIONS = ValidateOptions()
POLICY = policy_run()


def test_one_input(data: bytes) -> None:
    """One fuzz input: must give findings only (see the module docstring)."""
    source = decode(data, "fuzz.yaml")
    result = Result(findings=list(source.findings))
    if source.text is not None:
        validate_text(source.text, "fuzz.yaml", REGISTRY, OPTIONS, result)
        result.extend(policy_check([Text("fuzz.yaml", source.text)], POLICY).findings)
    for finding in result.findings:
        if finding.rule not in rules.RULES:
            raise AssertionError(f"unregistered rule {finding.rule!r}")
        for field in dataclasses.fields(finding):
            value = getattr(finding, field.name)
            if isinstance(value, str) and not value.isprintable():
                raise AssertionError(f"unprintable {field.name}: {value!r}")


def _seed(corpus: Path) -> None:
    corpus.mkdir(parents=True, exist_ok=True)
    if any(corpus.iterdir()):
        return
    seeds = sorted((REPO / "tests" / "bad_inputs").iterdir())
    seeds += sorted((SAMPLE / "generated").rglob("*.yaml"))[:40]
    for index, path in enumerate(seeds):
        if path.is_file() and path.stat().st_size < 64 * 1024:
            shutil.copyfile(path, corpus / f"seed-{index:03}")


def summary(log: Path, seconds: str) -> int:
    """Print the one-line summary of a campaign's log; 1 when it found a crash."""
    text = log.read_text(encoding="utf-8", errors="replace")
    runs = re.findall(r"stat::number_of_executed_units:\s*(\d+)", text)
    crashes = sorted(p.name for p in OUT.glob("crash-*")) + sorted(p.name for p in OUT.glob("timeout-*"))
    crashes += sorted(p.name for p in OUT.glob("oom-*"))
    print(
        f"fuzz: {runs[-1] if runs else '?'} inputs in {seconds} s, "
        f"{len(crashes)} crashes{': ' + ', '.join(crashes) if crashes else ''}"
    )
    return 1 if crashes or not runs else 0


def main() -> None:
    if sys.argv[1:2] == ["--summary"]:
        sys.exit(summary(Path(sys.argv[2]), sys.argv[3] if len(sys.argv) > 3 else "?"))
    seconds = int(sys.argv[1]) if len(sys.argv) > 1 else 90
    corpus = OUT / "corpus"
    _seed(corpus)
    args = [
        sys.argv[0],
        str(corpus),
        f"-max_total_time={seconds}",
        "-timeout=20",
        "-rss_limit_mb=3072",
        "-max_len=8192",
        f"-artifact_prefix={OUT}{os.sep}",
        "-print_final_stats=1",
    ]
    atheris.Setup(args, test_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
