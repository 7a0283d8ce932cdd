"""A repository's own ``policies/`` on top of the default pack shipped in the package (issue 24
point 1): its config extends the packaged ``default.yaml``, its own rule modules join the default
rules (an ID of the default pack is refused), the config schema is the loaded pack's, and its own
ValidatingAdmissionPolicies are evaluated; outside any repository the default pack alone is used.

Each case runs ``trainops`` in a subprocess from a temporary repository: rule IDs are registered
per process, as they are for a user.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conftest import REPO
from tests.validate.test_validate_anywhere import installed  # noqa: F401  (fixture: trainops built as a wheel)
from trainops.policy.config import DEFAULT_CONFIG, config_schema_text
from trainops.policy.loader import DEFAULT_DIR, default_pack, find_policy_dir

TRAINOPS = str(Path(sys.executable).with_name("trainops"))

PRIVILEGED_POD = """\
apiVersion: v1
kind: Pod
metadata: {name: debug, namespace: ml}
spec:
  containers:
  - name: debug
    image: registry.example.com/debug:1.0
    securityContext: {privileged: true}
"""

CONFIGMAP = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: settings, namespace: ml, labels: {owner: vision}}
data: {mode: fast}
"""

#: A repository rule with an option of its own (``label``), in the default pack's module shape.
TEAM_LABEL = '''\
"""Objects carry the team label.

Why: cost reports group objects by team.

Options: ``label``: the label key.

Default: enabled, level error, ``label: team``.

Remediation: Add the label.

Source: https://kubernetes.io/docs/concepts/overview/working-with-objects/common-labels/
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from trainops.core.findings import Issue, Level
from trainops.policy.rule import Context, describe
from trainops.core.rules import register

ID = "{rule_id}"
LEVEL: Level = "error"
KINDS = None
CONF: dict[str, dict[str, Any]] = {{"label": {{"type": "string"}}}}
DEFAULT: dict[str, Any] = {{"label": "team"}}
RULE = register(describe(ID, LEVEL, __doc__))


def check(conf: Mapping[str, Any], obj: dict[str, Any], ctx: Context) -> Iterator[Issue]:
    """The label is missing."""
    if conf["label"] not in (obj.get("metadata", {{}}).get("labels") or {{}}):
        yield Issue(("metadata", "labels"), f"no label {{conf['label']}}", ID)
'''


def write_repository(root: Path, config: str, rules: dict[str, str] | None = None) -> Path:
    """A repository with ``policies/config.yaml`` (``config``) and the rule modules ``rules``
    (file stem → source), listed in ``policies/__init__.py``; returns ``root``."""
    policies = root / "policies"
    policies.mkdir(parents=True)
    (policies / "config.yaml").write_text(config)
    if rules is not None:
        for stem, source in rules.items():
            (policies / f"{stem}.py").write_text(source)
        imports = "".join(f"from policies import {stem}\n" for stem in rules)
        listed = "".join(f"{stem}, " for stem in rules)
        (policies / "__init__.py").write_text(f"{imports}\nRULES = ({listed})\n")
    return root


def trainops(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``trainops ARGS`` run from ``cwd``."""
    env = {k: v for k, v in os.environ.items() if k != "GITHUB_ACTIONS"}
    return subprocess.run(
        [TRAINOPS, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120, check=False
    )


@pytest.fixture
def objects(tmp_path: Path) -> Path:
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "configmap.yaml").write_text(CONFIGMAP)
    return tmp_path / "in" / "configmap.yaml"


def test_the_default_pack_ships_in_the_package() -> None:
    assert DEFAULT_DIR == REPO / "lib" / "trainops" / "policy" / "pack"
    assert DEFAULT_CONFIG.parent == DEFAULT_DIR and (DEFAULT_DIR / "README.md").is_file()
    pack = default_pack()
    modules = {p.stem.replace("_", "-") for p in DEFAULT_DIR.glob("*.py") if p.stem != "__init__"}
    assert pack.directory is None and set(pack.rules) == modules
    assert {r.module.rpartition(".")[0] for r in pack.rules.values()} == {"trainops.policy.pack"}


def test_outside_a_repository_the_default_pack_alone_is_used(tmp_path: Path) -> None:
    (tmp_path / "pod.yaml").write_text(PRIVILEGED_POD)
    assert find_policy_dir(tmp_path) is None
    run = trainops(tmp_path, "policy", "check", "-o", "json", "pod.yaml")
    assert run.returncode == 1, run.stderr
    rules = {f["rule"] for f in json.loads(run.stdout)["findings"]}
    assert "no-privileged" in rules
    listed = trainops(tmp_path, "policy", "list", "-o", "json")
    assert [r["id"] for r in json.loads(listed.stdout)] == sorted(default_pack().rules)


def test_a_repository_rule_joins_the_default_pack(tmp_path: Path, objects: Path) -> None:
    config = "extends: default\nrules:\n  team-label: {label: owner}\n  standard-labels: disable\n"
    root = write_repository(
        tmp_path / "repo", config, {"team_label": TEAM_LABEL.format(rule_id="team-label")}
    )
    (objects.parent / "other.yaml").write_text(CONFIGMAP.replace("owner: vision", "x: y"))
    run = trainops(root, "policy", "check", "-o", "json", str(objects.parent))
    assert run.returncode == 1, run.stderr
    found = [(f["rule"], Path(f["file"]).name, f["message"]) for f in json.loads(run.stdout)["findings"]]
    assert ("team-label", "other.yaml", "no label owner") in found
    assert not [f for f in found if f[0] == "team-label" and f[1] == "configmap.yaml"]
    listed = {r["id"]: r for r in json.loads(trainops(root, "policy", "list", "-o", "json").stdout)}
    assert (
        listed["team-label"]["options"] == {"label": "owner"} and listed["standard-labels"]["level"] == "off"
    )
    assert set(listed) == {*default_pack().rules, "team-label"}
    schema = json.loads(trainops(root, "policy", "schema").stdout)
    assert "team-label" in schema["properties"]["rules"]["properties"]


def test_a_repository_rule_is_off_until_its_config_names_it(tmp_path: Path, objects: Path) -> None:
    root = write_repository(
        tmp_path / "repo", "extends: default\n", {"team_label": TEAM_LABEL.format(rule_id="team-label")}
    )
    listed = {r["id"]: r["level"] for r in json.loads(trainops(root, "policy", "list", "-o", "json").stdout)}
    assert listed["team-label"] == "off"


def test_the_config_schema_is_the_loaded_packs(tmp_path: Path) -> None:
    root = write_repository(
        tmp_path / "repo",
        "extends: default\nrules:\n  team-label: {lable: owner}\n",
        {"team_label": TEAM_LABEL.format(rule_id="team-label")},
    )
    run = trainops(root, "policy", "list")
    assert run.returncode == 2
    assert (
        run.stderr
        == f'trainops: {root / "policies" / "config.yaml"}: unknown option "lable" for rule "team-label"\n'
    )


def test_a_rule_of_the_default_pack_cannot_be_redefined(tmp_path: Path, objects: Path) -> None:
    root = write_repository(
        tmp_path / "repo", "extends: default\n", {"no_privileged": TEAM_LABEL.format(rule_id="no-privileged")}
    )
    run = trainops(root, "policy", "check", str(objects))
    assert run.returncode == 2 and run.stdout == ""
    module = root / "policies" / "no_privileged.py"
    line = (
        TEAM_LABEL.format(rule_id="no-privileged")
        .splitlines()
        .index("RULE = register(describe(ID, LEVEL, __doc__))")
    )
    assert run.stderr == (
        f"trainops: {module}:{line + 1}: failed to load: rule no-privileged is a rule of the default pack "
        "(choose another ID)\n"
    )


def test_repository_validating_admission_policies_need_no_rule_modules(tmp_path: Path, objects: Path) -> None:
    root = write_repository(tmp_path / "repo", "extends: default\n")
    (root / "policies" / "owner.yaml").write_text(
        textwrap.dedent(
            """\
            apiVersion: admissionregistration.k8s.io/v1
            kind: ValidatingAdmissionPolicy
            metadata: {name: owner-is-known}
            spec:
              matchConstraints:
                resourceRules:
                - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}
              validations:
              - expression: object.metadata.labels.owner in ['nlp']
                message: unknown owner
            ---
            apiVersion: admissionregistration.k8s.io/v1
            kind: ValidatingAdmissionPolicyBinding
            metadata: {name: owner-is-known}
            spec: {policyName: owner-is-known, validationActions: [Deny]}
            """
        )
    )
    run = trainops(root, "policy", "check", "-o", "json", str(objects))
    assert run.returncode == 1, run.stderr
    found = [f["message"] for f in json.loads(run.stdout)["findings"] if f["rule"] == "admission-policy"]
    assert found == ["owner-is-known: unknown owner"]


def test_the_stored_config_schema_is_the_default_packs() -> None:
    stored = (REPO / "lib" / "trainops" / "schemas" / "local" / "policy-config.json").read_text(
        encoding="utf-8"
    )
    assert stored == config_schema_text(default_pack())


def test_nothing_under_lib_reads_the_source_tree() -> None:
    """No path computed from a module's location climbs out of the package (``parents[3]``)."""
    offenders = [
        f"{path.relative_to(REPO)}:{number}"
        for path in sorted((REPO / "lib" / "trainops").rglob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if "__file__" in line and ("parents[" in line or ".parent.parent" in line)
    ]
    assert offenders == []


def test_the_installed_wheel_carries_the_default_pack(installed: Path, tmp_path: Path) -> None:  # noqa: F811
    """The wheel ships the rule modules, ``default.yaml`` and the rule reference; from an empty
    directory the installed trainops checks with them and reads nothing of this source tree."""
    pack = installed / "trainops" / "policy" / "pack"
    assert (pack / "default.yaml").read_bytes() == DEFAULT_CONFIG.read_bytes()
    assert (pack / "README.md").read_bytes() == (DEFAULT_DIR / "README.md").read_bytes()
    (tmp_path / "pod.yaml").write_text(PRIVILEGED_POD)
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "PYTHONPATH": str(installed), "LANG": "C.UTF-8"}

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, str(installed / "bin" / "trainops"), *args]
        return subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)

    listed = run("policy", "list", "--format", "markdown")
    assert listed.returncode == 0 and listed.stdout == (DEFAULT_DIR / "README.md").read_text(encoding="utf-8")
    checked = run("policy", "check", "-o", "json", "pod.yaml")
    assert checked.returncode == 1, checked.stderr
    assert "no-privileged" in {f["rule"] for f in json.loads(checked.stdout)["findings"]}
