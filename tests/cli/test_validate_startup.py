"""A one-file ``trainops validate`` imports only what the file's documents need (issue 36 point 2):
a clean Deployment read by the block reader leaves PyYAML, the CEL runtime, the policy pack, synth,
Argo CD and the other commands' modules unimported. Checked on ``sys.modules`` of a real run in a
fresh interpreter (a behaviour test, not a timed one)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES

#: An upstream Deployment (kubernetes/website), block YAML the faster path reads whole.
DEPLOYMENT = EXAMPLES / "k8s-website/content/en/examples/application/deployment.yaml"

#: Modules a one-file validate of a Deployment must not import, each for what it would cost.
UNNEEDED = (
    "yaml",  # PyYAML: the block reader read the file and located its findings
    "trainops.yaml.nodes",
    "cel_expr_python",  # no CEL rule in a Deployment's schema
    "trainops.cel",
    "trainops.policy",  # no --policy
    "trainops.synth",
    "trainops.constructs",
    "trainops.argocd",
    "trainops.cli.synth",  # other commands' modules (lazy click group)
    "trainops.cli.argocd",
    "trainops.cli.policy",
    "trainops.cli.init",
    "trainops.cli.diff",
    "trainops.cli.ci",
    "trainops.cli.new",
    "trainops.cli.schemas",
    "trainops.schemas.index",  # a built-in kind needs no CRD index (nor hashlib for its catalog check)
    "trainops.schemas.sync",
    "trainops.validate.parallel",  # one small file: no worker processes
    "traceback",  # no user code ran
    "trainops.validate.checks.rollouts",  # operators' webhooks of other API groups (GROUP_FAMILIES)
    "trainops.validate.checks.lws_webhook",
    "trainops.validate.checks.jobset",
    "trainops.validate.checks.kueue_webhook",
    "trainops.core.kueue_tas",
)

_PROBE = """
import json, sys
sys.argv = ["trainops", "validate", *sys.argv[1:]]
from trainops.cli import main
code = main()
print(json.dumps({"code": code, "modules": sorted(sys.modules)}))
"""


def _imported(path: Path, cache: Path, *, accel: bool = True) -> tuple[int, set[str], str]:
    """Exit code, imported modules (and their packages' prefixes) and report of validating ``path``."""
    env = {**os.environ, "TRAINOPS_CACHE_DIR": str(cache), "TRAINOPS_ACCEL": "1" if accel else "0"}
    run = subprocess.run(
        [sys.executable, "-c", _PROBE, str(path)], capture_output=True, text=True, env=env, check=False
    )
    *report, last = run.stdout.splitlines()
    probe = json.loads(last)
    return probe["code"], set(probe["modules"]), "\n".join(report)


def _loaded(modules: set[str], name: str) -> bool:
    return any(m == name or m.startswith(name + ".") for m in modules)


@pytest.fixture(scope="module")
def clean_run(schema_cache: Path) -> tuple[int, set[str], str]:
    if not DEPLOYMENT.is_file():
        pytest.skip("../shared/examples is not beside the repo")
    return _imported(DEPLOYMENT, schema_cache)


@pytest.mark.parametrize("module", UNNEEDED)
def test_a_clean_deployment_does_not_import(clean_run: tuple[int, set[str], str], module: str) -> None:
    code, modules, report = clean_run
    assert code == 0, report
    assert "trainops.cli.validate" in modules  # the probe sees what the run imported
    assert not _loaded(modules, module)


def test_a_finding_is_located_without_pyyaml(schema_cache: Path, tmp_path: Path) -> None:
    """The block reader also places a finding of a document it read: PyYAML stays unimported."""
    if not DEPLOYMENT.is_file():
        pytest.skip("../shared/examples is not beside the repo")
    broken = tmp_path / "deployment.yaml"
    broken.write_text(DEPLOYMENT.read_text(encoding="utf-8").replace("replicas: 2", "replicas: -2"))
    code, modules, report = _imported(broken, schema_cache)
    assert code == 1
    assert f"{broken}:9: Deployment/nginx-deployment $.spec.replicas" in report
    assert not _loaded(modules, "yaml")


def test_pyyaml_reads_what_the_block_reader_does_not(schema_cache: Path) -> None:
    """With the faster path off, the same file is read by PyYAML, with the same report."""
    if not DEPLOYMENT.is_file():
        pytest.skip("../shared/examples is not beside the repo")
    fast = _imported(DEPLOYMENT, schema_cache)
    plain = _imported(DEPLOYMENT, schema_cache, accel=False)
    assert plain[0] == fast[0] == 0 and plain[2] == fast[2]
    assert _loaded(plain[1], "yaml") and _loaded(plain[1], "trainops.yaml.nodes")


_GC_PROBE = """
import gc, json, sys
if sys.argv[1] == "off":
    gc.disable()
from trainops.cli import main
before = gc.get_freeze_count()
code = main(["validate", "--help"])  # imports the command's modules, validates nothing
print(json.dumps({"code": code, "enabled": gc.isenabled(), "frozen": gc.get_freeze_count() - before}))
"""


@pytest.mark.parametrize("collector", ["on", "off"])
def test_the_command_import_leaves_the_collector_as_it_found_it(collector: str) -> None:
    """The command's modules are imported with the cyclic collector off and then frozen out of its
    reach (``trainops.cli.LazyGroup.get_command``); afterwards it runs again only if it ran before."""
    run = subprocess.run(
        [sys.executable, "-c", _GC_PROBE, collector], capture_output=True, text=True, check=False
    )
    probe = json.loads(run.stdout.splitlines()[-1])
    assert probe["code"] == 0, run.stderr
    assert probe["enabled"] is (collector == "on")
    assert probe["frozen"] > 10_000  # what the validate command's modules made
