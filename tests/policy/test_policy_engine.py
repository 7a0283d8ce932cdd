"""The policy engine: config (extends, strict messages), waivers, facts, the rule shape, the CLI and
the bundled apps (zero findings under the default config)."""

from __future__ import annotations

import json
import types
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from conftest import SAMPLE
from trainops.core.cluster import Cluster, ExternalObject
from trainops.core.errors import UsageError
from trainops.policy.config import DEFAULT_CONFIG, PolicyConfig, RuleConfig, load_config
from trainops.policy.engine import PolicyRun, run_policies
from trainops.policy.facts import Facts, load_facts
from trainops.policy.images import normalise
from trainops.policy.loader import DEFAULT_DIR, default_pack, load_pack
from trainops.policy.rule import Rule, parse_doc
from trainops.policy.schema import ConfigError
from trainops.policy.waivers import waive
from trainops.project import load_project
from trainops.synth import render_project
from trainops.yaml.load import Document, stream_text

REPO = Path(__file__).resolve().parents[2]
PACK = default_pack()

PRIVILEGED_POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: debug
  namespace: ml
  annotations: {annotations}
spec:
  automountServiceAccountToken: false
  securityContext: {{runAsNonRoot: true, runAsUser: 1000, seccompProfile: {{type: RuntimeDefault}}}}
  containers:
  - name: main
    image: registry.example.com/app:1.0
    securityContext:
      privileged: true
      readOnlyRootFilesystem: true
      capabilities: {{drop: [ALL]}}
    resources: {{limits: {{cpu: "1", memory: 1Gi}}}}
"""


def _config(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def _documents(text: str, path: str = "pod.yaml") -> list[Document]:
    return [d for d in stream_text(text, path) if isinstance(d, Document)]


#: Only no-privileged, so that a test pod shows one rule's findings (and waivers of it).
ONLY_PRIVILEGED = PolicyConfig({"no-privileged": RuleConfig("error", {})})


def _run(text: str, *, show_waived: bool = False, facts: Facts | None = None) -> list[tuple[Any, ...]]:
    run = PolicyRun(PACK, ONLY_PRIVILEGED, facts or Facts(), show_waived)
    return [(f.rule, f.level, f.line, f.path, f.message) for f in run_policies(_documents(text), run)]


# --- config ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("rules: {no-privilege: enable}\n", 'unknown rule "no-privilege"'),
        (
            "rules: {no-host-path: {allowed-path: []}}\n",
            'unknown option "allowed-path" for rule "no-host-path"',
        ),
        (
            "rules: {no-host-path: {allowed-paths: /dev}}\n",
            'invalid value for option "allowed-paths" of rule "no-host-path": expected a list of a string, got "/dev"',
        ),
        (
            "rules: {image-pinned: {require-digest: 'yes'}}\n",
            'invalid value for option "require-digest" of rule "image-pinned": expected a boolean, got "yes"',
        ),
        (
            "rules: {no-privileged: {level: fatal}}\n",
            'invalid value for option "level" of rule "no-privileged": expected one of error, warning, info, got "fatal"',
        ),
        (
            "rules: {no-privileged: on}\n",
            'invalid value for rule "no-privileged": expected enable, disable or a mapping of options, got true',
        ),
        ("rule: {}\n", 'unknown key "rule"'),
        ("extends: [default]\n", 'invalid value for "extends": expected a string, got ["default"]'),
    ],
)
def test_config_errors_name_the_rule_and_option(tmp_path: Path, text: str, message: str) -> None:
    path = _config(tmp_path, text)
    with pytest.raises(ConfigError) as raised:
        load_config(PACK, path)
    assert str(raised.value) == f"{path}: {message}"


def test_config_extends_default_and_overrides(tmp_path: Path) -> None:
    path = _config(
        tmp_path,
        "extends: default\nrules:\n  seccomp-profile: disable\n"
        "  image-pinned: {level: warning, require-digest: true}\n",
    )
    config = load_config(PACK, path)
    assert "seccomp-profile" not in config.rules
    assert config.rules["image-pinned"].level == "warning"
    assert dict(config.rules["image-pinned"].options) == {"require-digest": True}
    assert dict(config.rules["no-host-path"].options) == {"allowed-paths": []}
    assert set(config.rules) == set(PACK.rules) - {"seccomp-profile"}


def test_config_without_extends_enables_only_what_it_names(tmp_path: Path) -> None:
    config = load_config(PACK, _config(tmp_path, "rules:\n  no-host-path: enable\n"))
    assert list(config.rules) == ["no-host-path"]
    assert config.rules["no-host-path"].level == "error"


def test_config_extends_a_relative_file(tmp_path: Path) -> None:
    (tmp_path / "team.yaml").write_text("extends: default\nrules: {read-only-root-fs: disable}\n")
    config = load_config(PACK, _config(tmp_path, "extends: team.yaml\nrules: {read-only-root-fs: enable}\n"))
    assert config.rules["read-only-root-fs"].level == "warning"


def test_config_extends_missing_file(tmp_path: Path) -> None:
    path = _config(tmp_path, "extends: nowhere.yaml\n")
    with pytest.raises(UsageError, match=r"extends 'nowhere.yaml': no such file"):
        load_config(PACK, path)


def test_config_extends_loop(tmp_path: Path) -> None:
    path = _config(tmp_path, "extends: config.yaml\n")
    with pytest.raises(UsageError, match="nested more than 8 deep"):
        load_config(PACK, path)


# --- engine and waivers ----------------------------------------------------------------------------


def test_finding_carries_file_line_object_and_remediation() -> None:
    run = PolicyRun(PACK, ONLY_PRIVILEGED, Facts())
    [finding] = run_policies(_documents(PRIVILEGED_POD.format(annotations="{}")), run)
    assert (finding.file, finding.line, finding.kind, finding.name, finding.namespace) == (
        "pod.yaml",
        14,
        "Pod",
        "debug",
        "ml",
    )
    assert finding.path == "$.spec.containers[0].securityContext.privileged"
    assert finding.remediation == PACK.rules["no-privileged"].info.remediation


@pytest.mark.parametrize(
    ("annotations", "show_waived", "expected"),
    [
        (
            '{trainops.dev/waive-no-privileged: "NCCL debugging image, removed after incident 42"}',
            False,
            [],
        ),
        (
            '{trainops.dev/waive-no-privileged: "NCCL debugging"}',
            True,
            [
                (
                    "no-privileged",
                    "info",
                    14,
                    "$.spec.containers[0].securityContext.privileged",
                    'waived (NCCL debugging): container "main" runs privileged',
                )
            ],
        ),
        (
            '{trainops.dev/waive-no-privileged: " "}',
            False,
            [
                (
                    "waiver",
                    "error",
                    6,
                    "$.metadata.annotations['trainops.dev/waive-no-privileged']",
                    'waiver of "no-privileged" has an empty reason',
                ),
                (
                    "no-privileged",
                    "error",
                    14,
                    "$.spec.containers[0].securityContext.privileged",
                    'container "main" runs privileged',
                ),
            ],
        ),
        (
            '{trainops.dev/waive-no-priviledged: "typo"}',
            False,
            [
                (
                    "waiver",
                    "error",
                    6,
                    "$.metadata.annotations['trainops.dev/waive-no-priviledged']",
                    'waiver names unknown policy rule "no-priviledged"',
                ),
                (
                    "no-privileged",
                    "error",
                    14,
                    "$.spec.containers[0].securityContext.privileged",
                    'container "main" runs privileged',
                ),
            ],
        ),
    ],
    ids=["waived", "show-waived", "empty-reason", "unknown-rule"],
)
def test_waivers(annotations: str, show_waived: bool, expected: list[tuple[Any, ...]]) -> None:
    found = _run(PRIVILEGED_POD.format(annotations=annotations), show_waived=show_waived)
    assert sorted(found, key=lambda f: f[2]) == expected


def test_waive_builds_the_annotation() -> None:
    assert waive("no-host-path", "GPU driver mount") == {
        "trainops.dev/waive-no-host-path": "GPU driver mount"
    }
    with pytest.raises(ValueError, match="a waiver needs a reason"):
        waive("no-host-path", " ")


def test_documents_that_are_not_mappings_are_skipped() -> None:
    assert _run("- a\n- b\n") == []


# --- facts -----------------------------------------------------------------------------------------


def test_facts_of_a_cluster() -> None:
    cluster = Cluster(
        name="lab",
        kubernetes_version="1.34",
        storage_classes={"default": "ssd", "shared": "nfs"},
        gpu_resource="amd.com/gpu",
        rdma_resource=None,
        kueue_namespaces=("ml",),
        external=(ExternalObject("Secret", "hf", "ml"),),
    )
    facts = Facts.of_cluster(cluster)
    assert (facts.cluster, facts.gpu_resources, facts.rdma_resources, facts.storage_classes) == (
        "lab",
        ("amd.com/gpu",),
        (),
        ("nfs", "ssd"),
    )
    assert facts.has_external("Secret", "hf", "ml") and not facts.has_external("Secret", "hf", "other")


def test_facts_file_is_checked_strictly(tmp_path: Path) -> None:
    path = tmp_path / "facts.yaml"
    path.write_text("gpuResource: [nvidia.com/gpu]\n")
    with pytest.raises(ConfigError) as raised:
        load_facts(str(path))
    assert str(raised.value) == f'{path}: unknown key "gpuResource"'


def test_facts_file_is_read() -> None:
    facts = load_facts(str(REPO / "tests" / "policies" / "facts.yaml"))
    assert facts.gang_scheduler == "volcano" and facts.protected
    assert facts.has_external("PersistentVolumeClaim", "datasets", "ml")


# --- rule shape ------------------------------------------------------------------------------------


def _module(name: str, **attributes: Any) -> types.ModuleType:
    module = types.ModuleType(f"policies.{name}")
    module.__dict__.update(attributes)
    return module


@pytest.mark.parametrize(
    ("name", "attributes", "message"),
    [
        ("no_thing", {"ID": "no-things"}, "ID 'no-things' must be 'no-thing'"),
        ("no_thing", {"ID": "no-thing"}, "module lacks LEVEL"),
        (
            "no_thing",
            {"ID": "no-thing", "LEVEL": "fatal", "KINDS": None, "CONF": {}, "DEFAULT": {}, "RULE": None},
            "LEVEL 'fatal' is not one of error, warning, info",
        ),
        (
            "no_thing",
            {
                "ID": "no-thing",
                "LEVEL": "error",
                "KINDS": None,
                "CONF": {"a": {}},
                "DEFAULT": {},
                "RULE": None,
            },
            "CONF and DEFAULT name different options",
        ),
        (
            "no_thing",
            {"ID": "no-thing", "LEVEL": "error", "KINDS": None, "CONF": {}, "DEFAULT": {}, "RULE": None},
            "define exactly one of check() and check_all()",
        ),
    ],
)
def test_rule_shape_is_checked(name: str, attributes: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        Rule.from_module(_module(name, **attributes))


def test_parse_doc_sections() -> None:
    doc = parse_doc(
        "Summary line\n    continues.\n\n    Why: because\n    of this.\n\n    PASS:\n\n        a: 1\n        b: [2]\n"
    )
    assert doc.summary == "Summary line continues."
    assert doc.get("Why") == "because of this."
    assert doc.get("PASS") == "a: 1\nb: [2]\n"


@pytest.mark.parametrize(
    ("image", "name", "tag", "digest"),
    [
        ("python", "docker.io/library/python", None, None),
        ("python:3.11", "docker.io/library/python", "3.11", None),
        ("tensorflow/serving:2.14.1", "docker.io/tensorflow/serving", "2.14.1", None),
        ("index.docker.io/tensorflow/serving", "docker.io/tensorflow/serving", None, None),
        ("localhost:5000/train", "localhost:5000/train", None, None),
        ("localhost/train:1", "localhost/train", "1", None),
        ("ghcr.io/org/img@sha256:abc", "ghcr.io/org/img", None, "sha256:abc"),
        ("nvcr.io/nvidia/pytorch:24.01-py3@sha256:abc", "nvcr.io/nvidia/pytorch", "24.01-py3", "sha256:abc"),
    ],
)
def test_image_references_are_normalised(image: str, name: str, tag: str | None, digest: str | None) -> None:
    ref = normalise(image)
    assert (ref.name, ref.tag, ref.digest) == (name, tag, digest)


# --- commands --------------------------------------------------------------------------------------


def _only_privileged(tmp_path: Path) -> str:
    return str(_config(tmp_path, "rules: {no-privileged: enable}\n"))


def _pod_file(tmp_path: Path, annotations: str = "{}") -> Path:
    path = tmp_path / "pod.yaml"
    path.write_text(PRIVILEGED_POD.format(annotations=annotations), encoding="utf-8")
    return path


def test_policy_check_reports_and_fails(cli: Any, tmp_path: Path) -> None:
    path = _pod_file(tmp_path)
    run = cli("policy", "check", str(path), "--format", "text", "--config", _only_privileged(tmp_path))
    assert run.code == 1
    assert run.out.splitlines() == [
        f'{path}:14: Pod/debug $.spec.containers[0].securityContext.privileged: container "main" runs privileged [no-privileged]',
        "1 files, 1 documents: 1 errors, 0 warnings",
    ]


def test_policy_check_json_and_show_waived(cli: Any, tmp_path: Path) -> None:
    path = _pod_file(tmp_path, '{trainops.dev/waive-no-privileged: "debug image"}')
    run = cli(
        "policy",
        "check",
        str(path),
        "--format",
        "json",
        "--show-waived",
        "--config",
        _only_privileged(tmp_path),
    )
    assert run.code == 0
    [finding] = json.loads(run.out)["findings"]
    assert (finding["rule"], finding["level"], finding["line"]) == ("no-privileged", "info", 14)


def test_policy_check_config_error_is_exit_2(cli: Any, tmp_path: Path) -> None:
    config = _config(tmp_path, "rules: {no-privilege: enable}\n")
    run = cli("policy", "check", str(_pod_file(tmp_path)), "--config", str(config))
    assert run.code == 2
    assert run.err == f'trainops: {config}: unknown rule "no-privilege"\n'


def test_policy_check_cluster_and_facts_conflict(cli: Any, tmp_path: Path) -> None:
    facts = REPO / "tests" / "policies" / "facts.yaml"
    run = cli("policy", "check", str(_pod_file(tmp_path)), "--cluster", "gpu-prod", "--facts", str(facts))
    assert (run.code, run.err) == (2, "trainops: give --cluster or --facts, not both\n")


def test_policy_check_unknown_cluster(cli: Any, tmp_path: Path) -> None:
    run = cli("policy", "check", str(_pod_file(tmp_path)), "--cluster", "nope")
    assert run.code == 2 and "unknown cluster 'nope'" in run.err


def test_policy_list_json_lists_every_rule(cli: Any) -> None:
    run = cli("policy", "list", "--format", "json")
    assert run.code == 0
    rules = json.loads(run.out)
    assert [r["id"] for r in rules] == sorted(PACK.rules)
    assert next(r for r in rules if r["id"] == "no-host-path")["options"] == {"allowed-paths": []}


def test_policy_list_markdown_is_the_readme(cli: Any) -> None:
    run = cli("policy", "list", "--format", "markdown")
    assert run.out == (DEFAULT_DIR / "README.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("command", [("explain",), ("policy", "explain")])
def test_explain_finds_policy_rules(cli: Any, command: tuple[str, ...]) -> None:
    run = cli(*command, "no-host-path")
    assert run.code == 0
    assert run.out.startswith("no-host-path (policy, error)\n")
    assert PACK.rules["no-host-path"].info.remediation in run.out
    assert "\nOptions: ``allowed-paths``" in run.out
    assert "\nFAIL:\n\n    apiVersion: v1\n" in run.out


def test_policy_schema_prints_the_stored_schema(cli: Any) -> None:
    run = cli("policy", "schema")
    assert run.out == (REPO / "lib" / "trainops" / "schemas" / "local" / "policy-config.json").read_text(
        encoding="utf-8"
    )


# --- the bundled apps ------------------------------------------------------------------------------


#: Findings on the bundled apps that are real gaps of the constructs, not false alarms of the rules;
#: each is removed when the construct is fixed (then this test fails until the entry goes).
KNOWN_GAPS: dict[str, str] = {}


def test_bundled_apps_have_zero_findings_under_the_default_config() -> None:
    project = load_project(SAMPLE)
    config = load_config(PACK, DEFAULT_CONFIG)
    found: list[str] = []
    for cluster in project.clusters:
        results = render_project(project, cluster=cluster.name)
        documents = [
            d
            for r in results
            for name, text in r.files.items()
            for d in _documents(text, f"generated/{r.cluster}/{r.app}/{name}")
        ]
        assert documents
        findings = run_policies(documents, PolicyRun(PACK, config, Facts.of_cluster(cluster)))
        found += [f"{f.file} {f.path} [{f.rule}]" for f in findings]
    assert sorted(found) == sorted(KNOWN_GAPS)


def test_pipeline_check_runs_policies_after_validation(schema_cache: Path) -> None:
    from trainops.pipeline import Target, Text, check

    text = PRIVILEGED_POD.format(annotations="{}")
    run = PolicyRun(PACK, ONLY_PRIVILEGED, Facts())
    result = check(Target("1.34", None, schema_cache), [Text("pod.yaml", text)], policy=run)
    assert [(f.rule, f.file, f.line) for f in result.findings] == [("no-privileged", "pod.yaml", 14)]
    assert check(Target("1.34", None, schema_cache), [Text("pod.yaml", text)]).findings == []


def test_ci_runs_the_policies_over_each_cluster(cli: Any) -> None:
    """The bundled apps are policy-clean, so ci passes even with --strict; a waiver the MPIJob
    construct declares is honoured (its read-only-root-fs finding is waived, listed with --show-waived)."""
    run = cli("ci", "--format", "json")
    assert run.code == 0, run.err
    assert json.loads(run.out)["findings"] == []
    assert cli("ci", "--format", "json", "--strict").code == 0


def test_policy_check_with_a_facts_file(cli: Any, tmp_path: Path) -> None:
    config = _config(tmp_path, "rules: {kueue-queue: enable}\n")
    fixture = REPO / "tests" / "policies" / "kueue-queue"
    facts = REPO / "tests" / "policies" / "facts.yaml"
    assert (
        cli(
            "policy", "check", str(fixture / "pass.yaml"), "--config", str(config), "--facts", str(facts)
        ).code
        == 0
    )
    # Without the facts, the external queue "gpu-queue" is unknown.
    run = cli("policy", "check", str(fixture / "pass.yaml"), "--config", str(config), "-o", "json")
    assert [(f["rule"], f["name"]) for f in json.loads(run.out)["findings"]] == [
        ("kueue-queue", "external-queue")
    ]


@pytest.mark.parametrize(("flags", "code"), [((), 0), (("--strict",), 1)])
def test_policy_check_warnings_fail_only_with_strict(
    cli: Any, tmp_path: Path, flags: tuple[str, ...], code: int
) -> None:
    config = _config(tmp_path, "rules: {seccomp-profile: enable}\n")
    fixture = REPO / "tests" / "policies" / "seccomp-profile" / "fail.yaml"
    assert cli("policy", "check", str(fixture), "--config", str(config), *flags).code == code


def test_a_second_pack_of_rule_modules_is_refused(tmp_path: Path) -> None:
    """Rule IDs are registered per process: one repository's rule modules at a time; repositories
    with a config alone (the sample's) load beside them."""
    for name in ("a", "b"):
        (tmp_path / name / "policies").mkdir(parents=True)
        (tmp_path / name / "policies" / "__init__.py").write_text("RULES = ()\n")
    first = load_pack(tmp_path / "a" / "policies")
    assert first.rules == default_pack().rules
    with pytest.raises(UsageError, match=r"another rule pack .* is already loaded"):
        load_pack(tmp_path / "b" / "policies")
    assert load_pack(SAMPLE / "policies").directory == SAMPLE / "policies"


CONFIGMAP = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings, namespace: ml}\n"


@pytest.mark.parametrize(
    ("layout", "expected"),
    [
        pytest.param(
            {"a/app/cm.yaml": CONFIGMAP, "b/app/cm.yaml": CONFIGMAP}, [], id="one-set-per-cluster-tree"
        ),
        pytest.param(
            {"a/app/cm.yaml": CONFIGMAP, "a/other/cm.yaml": CONFIGMAP},
            [("unique-objects", "a/other/cm.yaml")],
            id="same-cluster-tree",
        ),
    ],
)
def test_cross_object_rules_see_one_cluster_tree_at_a_time(
    tmp_path: Path, layout: dict[str, str], expected: list[tuple[str, str]]
) -> None:
    from trainops.pipeline import policy_check

    for cluster in ("a", "b"):
        (tmp_path / cluster).mkdir()
        (tmp_path / cluster / "lock.json").write_text("{}")
    files = []
    for name, text in layout.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
        files.append(str(tmp_path / name))
    run = PolicyRun(PACK, PolicyConfig({"unique-objects": RuleConfig("error", {})}), Facts())
    found = policy_check(files, run).findings
    assert [(f.rule, str(Path(f.file).relative_to(tmp_path))) for f in found] == expected


def test_a_rule_yielding_another_rules_issue_is_a_rule_failure() -> None:
    from trainops.core.findings import Issue
    from trainops.policy.engine import RuleFailure

    rule = PACK.rules["no-privileged"]

    def check(conf: Any, obj: Any, ctx: Any) -> Any:
        yield Issue((), "wrong owner", "no-host-path")

    pack = type(PACK)(PACK.directory, {**PACK.rules, "no-privileged": replace(rule, check=check)})
    run = PolicyRun(pack, ONLY_PRIVILEGED, Facts())
    with pytest.raises(
        RuleFailure, match="policy rule no-privileged yielded an issue of rule 'no-host-path'"
    ):
        run_policies(_documents(PRIVILEGED_POD.format(annotations="{}")), run)


@pytest.mark.parametrize("count", [0, 1, 63, 64, 65, 2000, 2049])
@pytest.mark.parametrize("parts", [1, 2, 3])
def test_shares_partition_the_documents_in_blocks(count: int, parts: int) -> None:
    from trainops.policy.engine import SHARE_BLOCK, _share

    shares = [_share(count, part, parts) for part in range(parts)]
    assert sorted(i for share in shares for i in share) == list(range(count))
    for part, share in enumerate(shares):
        assert share == sorted(share)
        assert all((i // SHARE_BLOCK) % parts == part for i in share)
