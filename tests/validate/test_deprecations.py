"""deprecated-api: the table (meta-tests), real upstream manifests using old APIs, and targets.

Upstream files are read in place from ../shared/examples (never copied into the repository).
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest

from trainops.core.findings import Issue
from trainops.validate.checks.deprecated_api import (
    COMPONENT_LABELS,
    DEPRECATIONS,
    KUBERNETES,
    ApiDeprecation,
    api_version_issues,
    entries_for,
    parse_version,
    removed_in,
)
from trainops.yaml.load import load_file

EXAMPLES = Path(__file__).resolve().parents[2].parent / "shared" / "examples"
needs_examples = pytest.mark.skipif(not EXAMPLES.is_dir(), reason="../shared/examples is not beside the repo")

GUIDE = "https://kubernetes.io/docs/reference/using-api/deprecation-guide/"

#: The operators of a current cluster running every catalogued operator except Trainer v2.
CURRENT_OPERATORS = {
    "training-operator": "v1.9.4",
    "mpi-operator": "v0.8.0",
    "katib": "v0.19.0",
    "kueue": "v0.19.2",
    "kserve": "v0.20.0",
    "prometheus-operator": "v0.93.0",
    "argo-cd": "v3.5.1",
    "jobset": "v0.12.0",
}

SCHEMA_ROOT = Path(kubernetes_validate.__file__).parent / "kubernetes-json-schema"


def _entry_id(entry: ApiDeprecation) -> str:
    return f"{entry.component}:{entry.api_version}:{'+'.join(entry.kinds) or '*'}"


def _documents(rel: str) -> list[dict[str, Any]]:
    loaded = load_file(str(EXAMPLES / rel))
    assert loaded.error is None, loaded.error
    return [d.data for d in loaded.documents if isinstance(d.data, dict) and "apiVersion" in d.data]


def _issues_of(rel: str, minor: int, operators: dict[str, str] | None) -> list[Issue]:
    return [
        issue
        for doc in _documents(rel)
        for issue in api_version_issues(
            doc["apiVersion"], doc["kind"], kubernetes_minor=minor, operators=operators
        )
    ]


# --- the table ---------------------------------------------------------------------------------


@pytest.mark.parametrize("entry", DEPRECATIONS, ids=_entry_id)
def test_entry_is_well_formed(entry: ApiDeprecation) -> None:
    assert entry.source.startswith("https://"), "every entry names its upstream source"
    assert entry.component in COMPONENT_LABELS
    if entry.removed_in is not None:
        assert entry.deprecated_in <= entry.removed_in
    assert all(r.api_version != entry.api_version for r in entry.replacements), "replacement must differ"
    assert entry.replacements or entry.hint, "no replacement: say what to do instead"
    if entry.component == KUBERNETES:
        assert len(entry.deprecated_in) == 2 and entry.deprecated_in[0] == 1
        assert entry.applies == "always" and not entry.served_by
    else:
        assert entry.kinds, "operator API groups are shared (kubeflow.org): name the kinds"
        assert len(entry.deprecated_in) == 3


def test_no_entry_is_declared_twice() -> None:
    seen: set[tuple[str, str, str]] = set()
    for entry in DEPRECATIONS:
        for kind in entry.kinds or ("*",):
            key = (entry.component, entry.api_version, kind)
            assert key not in seen, key
            seen.add(key)


#: Kinds the OpenAPI lists under every group version.
_META_KINDS = {
    "DeleteOptions",
    "WatchEvent",
    "Status",
    "APIResourceList",
    "APIGroup",
    "APIGroupList",
    "APIVersions",
}


@cache
def _served(minor: int) -> frozenset[tuple[str, str]]:
    """(apiVersion, kind) pairs in the OpenAPI of Kubernetes 1.<minor> shipped by kubernetes-validate."""
    path = SCHEMA_ROOT / f"v1.{minor}.0-local-strict" / "_definitions.json"
    defs = json.loads(path.read_text(encoding="utf-8"))["$defs"]
    pairs = set()
    for definition in defs.values():
        for gvk in definition.get("x-kubernetes-group-version-kind", []):
            group, version, kind = gvk.get("group", ""), gvk["version"], gvk["kind"]
            if kind not in _META_KINDS and not kind.endswith("List"):
                pairs.add((f"{group}/{version}" if group else version, kind))
    return frozenset(pairs)


def _shipped_minors() -> list[int]:
    return sorted(
        int(p.name.split(".")[1]) for p in SCHEMA_ROOT.iterdir() if p.name.endswith("-local-strict")
    )


def _served_kinds(minor: int, entry: ApiDeprecation) -> set[str]:
    return {kind for av, kind in _served(minor) if entry.covers(av, kind)}


@pytest.mark.parametrize(
    "entry", [e for e in DEPRECATIONS if e.component == KUBERNETES and e.removed_in], ids=_entry_id
)
def test_removal_matches_shipped_openapi(entry: ApiDeprecation) -> None:
    """The removal minor agrees with the OpenAPI of each Kubernetes release kubernetes-validate ships."""
    assert entry.removed_in is not None
    removed = entry.removed_in[1]
    minors = _shipped_minors()
    for minor in (m for m in minors if m >= removed):
        assert not _served_kinds(minor, entry), f"still in the 1.{minor} OpenAPI"
    if removed - 1 >= minors[0]:
        served = _served_kinds(removed - 1, entry)
        assert served == set(entry.kinds), f"1.{removed - 1} serves {sorted(served)}"


@pytest.mark.parametrize(
    "entry", [e for e in DEPRECATIONS if e.component == KUBERNETES and e.replacements], ids=_entry_id
)
def test_replacements_are_served_from_their_minor(entry: ApiDeprecation) -> None:
    """Each replacement serves the entry's kinds from the minor it claims (or the oldest shipped)."""
    for replacement in entry.replacements:
        minor = max(replacement.since, _shipped_minors()[0])
        served = {kind for av, kind in _served(minor) if av == replacement.api_version}
        assert served and (not entry.kinds or set(entry.kinds) <= served), (replacement, minor)


# --- helpers -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("api_version", "kind", "expected"),
    [
        ("batch/v1beta1", "CronJob", 25),
        ("autoscaling/v2beta2", "HorizontalPodAutoscaler", 26),
        ("apps/v1beta2", "ControllerRevision", 16),
        ("flowcontrol.apiserver.k8s.io/v1beta3", "FlowSchema", 32),
        ("apps/v1", "Deployment", None),
        ("kubeflow.org/v1alpha1", "MPIJob", None),
    ],
)
def test_removed_in(api_version: str, kind: str, expected: int | None) -> None:
    assert removed_in(api_version, kind) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [("v0.8.0", (0, 8, 0)), ("1.9.4", (1, 9, 4)), ("v2.3.0-rc.1", (2, 3, 0)), ("v1", (1,)), ("main", None)],
)
def test_parse_version(text: str, expected: tuple[int, ...] | None) -> None:
    assert parse_version(text) == expected


def test_entries_for_is_kind_specific() -> None:
    # serving.kserve.io/v1alpha2 is removed for InferenceService only: LLMInferenceService is current.
    assert entries_for("serving.kserve.io/v1alpha2", "InferenceService")
    assert not entries_for("serving.kserve.io/v1alpha2", "LLMInferenceService")
    # kubeflow.org/v1beta1 is Katib's current version.
    assert not entries_for("kubeflow.org/v1beta1", "Experiment")


# --- Kubernetes targets --------------------------------------------------------------------------


def test_cron_job_message() -> None:
    issues = api_version_issues("batch/v1beta1", "CronJob", kubernetes_minor=34, operators=None)
    assert issues == [
        Issue(
            ("apiVersion",),
            f"batch/v1beta1 CronJob was removed in Kubernetes 1.25; use batch/v1 ({GUIDE}#cronjob-v125)",
            "deprecated-api",
        )
    ]


@pytest.mark.parametrize(("minor", "level"), [(20, None), (21, "warning"), (24, "warning"), (25, "error")])
def test_cron_job_by_target(minor: int, level: str | None) -> None:
    issues = api_version_issues("batch/v1beta1", "CronJob", kubernetes_minor=minor, operators=None)
    assert [i.level for i in issues] == ([level] if level else [])


@pytest.mark.parametrize(
    ("minor", "replacement"),
    [
        (26, "flowcontrol.apiserver.k8s.io/v1beta3"),
        (28, "flowcontrol.apiserver.k8s.io/v1beta3"),
        (29, "flowcontrol.apiserver.k8s.io/v1"),
        (34, "flowcontrol.apiserver.k8s.io/v1"),
    ],
)
def test_replacement_is_one_the_target_serves(minor: int, replacement: str) -> None:
    (issue,) = api_version_issues(
        "flowcontrol.apiserver.k8s.io/v1beta1", "FlowSchema", kubernetes_minor=minor, operators=None
    )
    assert f"; use {replacement} (" in issue.message


@pytest.mark.parametrize(
    ("api_version", "kind"),
    [
        ("apps/v1", "Deployment"),
        ("batch/v1", "CronJob"),
        ("autoscaling/v2", "HorizontalPodAutoscaler"),
        ("policy/v1", "PodDisruptionBudget"),
        ("networking.k8s.io/v1", "Ingress"),
        ("v1", "Service"),
        ("admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicy"),
        ("flowcontrol.apiserver.k8s.io/v1", "FlowSchema"),
    ],
)
def test_current_kubernetes_apis_have_no_issue(api_version: str, kind: str) -> None:
    assert api_version_issues(api_version, kind, kubernetes_minor=34, operators=CURRENT_OPERATORS) == []


def test_beta_deprecated_but_served_is_a_warning() -> None:
    (issue,) = api_version_issues(
        "networking.k8s.io/v1beta1", "ServiceCIDR", kubernetes_minor=34, operators=None
    )
    assert issue.level == "warning"
    assert issue.message.startswith(
        "networking.k8s.io/v1beta1 ServiceCIDR is deprecated since Kubernetes 1.34 and removed in 1.37; "
        "use networking.k8s.io/v1 ("
    )


# --- real upstream manifests ---------------------------------------------------------------------

HPA_WALKTHROUGH = (
    "k8s-website/content/en/docs/tasks/run-application/horizontal-pod-autoscale-walkthrough.md.block-01.yaml"
)


@needs_examples
@pytest.mark.parametrize(
    ("rel", "minor", "operators", "expected"),
    [
        (
            "k8s-website/content/en/examples/service/networking/example-ingress.yaml",
            34,
            None,
            [
                (
                    "error",
                    "networking.k8s.io/v1beta1 Ingress was removed in Kubernetes 1.22; "
                    f"use networking.k8s.io/v1 ({GUIDE}#ingress-v122)",
                )
            ],
        ),
        (
            "k8s-website/content/en/examples/policy/example-psp.yaml",
            34,
            None,
            [
                (
                    "error",
                    "policy/v1beta1 PodSecurityPolicy was removed in Kubernetes 1.25; migrate to Pod Security "
                    f"Admission or a third-party admission webhook ({GUIDE}#psp-v125)",
                )
            ],
        ),
        (
            HPA_WALKTHROUGH,
            25,
            None,
            [
                (
                    "warning",
                    "autoscaling/v2beta2 HorizontalPodAutoscaler is deprecated since Kubernetes 1.23 and removed "
                    f"in 1.26; use autoscaling/v2 ({GUIDE}#horizontalpodautoscaler-v126)",
                )
            ],
        ),
        (
            HPA_WALKTHROUGH,
            26,
            None,
            [
                (
                    "error",
                    "autoscaling/v2beta2 HorizontalPodAutoscaler was removed in Kubernetes 1.26; "
                    f"use autoscaling/v2 ({GUIDE}#horizontalpodautoscaler-v126)",
                )
            ],
        ),
        (
            "mpi-operator-legacy/examples/v1alpha1/tensorflow-benchmarks-imagenet.yaml",
            34,
            {"mpi-operator": "v0.8.0"},
            [
                (
                    "error",
                    "kubeflow.org/v1alpha1 MPIJob was removed in mpi-operator v0.4.0 (mpi-operator v0.8.0 on the "
                    "target); use kubeflow.org/v2beta1 (https://github.com/kubeflow/mpi-operator/pull/438)",
                )
            ],
        ),
        (
            "mpi-operator-legacy/examples/v1alpha2/tensorflow-benchmarks-imagenet.yaml",
            34,
            None,
            [
                (
                    "error",
                    "kubeflow.org/v1alpha2 MPIJob was removed in mpi-operator v0.4.0; use kubeflow.org/v2beta1 "
                    "(https://github.com/kubeflow/mpi-operator/pull/438)",
                )
            ],
        ),
        (
            "mpi-operator-legacy/examples/v1/tensorflow-benchmarks.yaml",
            34,
            {"mpi-operator": "v0.8.0"},
            [
                (
                    "error",
                    "kubeflow.org/v1 MPIJob was removed in mpi-operator v0.4.0 (mpi-operator v0.8.0 on the target); "
                    "use kubeflow.org/v2beta1 (https://github.com/kubeflow/mpi-operator/releases/tag/v0.4.0)",
                )
            ],
        ),
        (
            "kserve/docs/samples/gcp-iap/sklearn-iap-with-authz.yaml",
            34,
            {"kserve": "v0.20.0"},
            [
                (
                    "error",
                    "serving.kubeflow.org/v1beta1 InferenceService was removed in KServe v0.7.0 (kserve v0.20.0 on "
                    "the target); use serving.kserve.io/v1beta1 "
                    "(https://kserve.github.io/website/latest/admin/migration/)",
                )
            ],
        ),
        (
            "kserve/docs/samples/storage/pvc/mnist-pvc.yaml",
            34,
            None,
            [
                (
                    "error",
                    "serving.kserve.io/v1alpha2 InferenceService was removed in KServe v0.7.0; "
                    "use serving.kserve.io/v1beta1 (https://github.com/kserve/kserve/pull/1850)",
                )
            ],
        ),
    ],
    ids=lambda value: value.rsplit("/", 1)[-1] if isinstance(value, str) else None,
)
def test_upstream_file_messages(
    rel: str, minor: int, operators: dict[str, str] | None, expected: list[tuple[str, str]]
) -> None:
    issues = _issues_of(rel, minor, operators)
    assert [(i.level, i.message) for i in issues] == expected
    assert all(i.parts == ("apiVersion",) and i.rule == "deprecated-api" for i in issues)


@needs_examples
@pytest.mark.parametrize(
    ("rel", "count"),
    [
        # Five apiextensions.k8s.io/v1beta1 CRDs in one upstream Argo CD example.
        ("argo-cd/applicationset/examples/matrix/cluster-addons/argo-workflows/namespace-install.yaml", 5),
        ("mpi-operator-legacy/examples/mxnet/mxnet-mnist.yaml", 1),
        ("kserve/docs/samples/explanation/aif/germancredit/bias-v1alpha1.yaml", 1),
    ],
)
def test_upstream_file_errors(rel: str, count: int) -> None:
    issues = _issues_of(rel, 34, CURRENT_OPERATORS)
    assert len(issues) == count and {i.level for i in issues} == {"error"}


@needs_examples
@pytest.mark.parametrize(
    ("rel", "minor", "operators"),
    [
        ("k8s-website/content/en/examples/application/update_deployment.yaml", 34, None),
        (HPA_WALKTHROUGH, 22, None),  # before autoscaling/v2beta2 was deprecated
        ("training-operator/examples/pytorch/simple.yaml", 34, {"training-operator": "v1.9.4"}),
        ("mpi-operator/examples/v2beta1/pi/pi-mpich.yaml", 34, {"mpi-operator": "v0.8.0"}),
        ("mpi-operator-legacy/examples/v1/tensorflow-benchmarks.yaml", 34, {"training-operator": "v1.9.4"}),
        (
            "mpi-operator-legacy/examples/v1/tensorflow-benchmarks.yaml",
            34,
            {"training-operator": "v1.9.4", "mpi-operator": "v0.8.0"},
        ),
        ("kserve/docs/samples/llmisvc/e2e-gpt-oss/inference_default.yaml", 34, {"kserve": "v0.20.0"}),
        ("katib/examples/v1beta1/hp-tuning/random.yaml", 34, {"katib": "v0.19.0"}),
    ],
    ids=lambda value: value.rsplit("/", 1)[-1] if isinstance(value, str) else None,
)
def test_upstream_current_apis_have_no_issue(rel: str, minor: int, operators: dict[str, str] | None) -> None:
    assert _issues_of(rel, minor, operators) == []


#: Files of the whole example corpus with an old apiVersion for Kubernetes 1.34 and CURRENT_OPERATORS.
EXPECTED_OLD = {
    "argo-cd/applicationset/examples/matrix/cluster-addons/argo-workflows/namespace-install.yaml",
    HPA_WALKTHROUGH,
    "k8s-website/content/en/examples/policy/example-psp.yaml",
    "k8s-website/content/en/examples/service/networking/example-ingress.yaml",
    "kserve/docs/samples/explanation/aif/germancredit/bias-v1alpha1.yaml",
    "kserve/docs/samples/gcp-iap/sklearn-iap-with-authz.yaml",
    "kserve/docs/samples/storage/pvc/mnist-pvc.yaml",
    "mpi-operator-legacy/examples/mxnet/mxnet-mnist.yaml",
    "mpi-operator-legacy/examples/v1alpha1/tensorflow-benchmarks-imagenet.yaml",
    "mpi-operator-legacy/examples/v1alpha2/tensorflow-benchmarks-imagenet.yaml",
}


@needs_examples
def test_whole_corpus_flags_only_old_apis() -> None:
    flagged = set()
    for path in sorted(EXAMPLES.rglob("*")):
        if path.suffix not in (".yaml", ".yml") or not path.is_file():
            continue
        loaded = load_file(str(path))
        for doc in loaded.documents:
            data = doc.data
            if not isinstance(data, dict):
                continue
            api_version, kind = data.get("apiVersion"), data.get("kind")
            if (
                isinstance(api_version, str)
                and isinstance(kind, str)
                and api_version_issues(api_version, kind, kubernetes_minor=34, operators=CURRENT_OPERATORS)
            ):
                flagged.add(str(path.relative_to(EXAMPLES)))
    assert flagged == EXPECTED_OLD


# --- operator targets ----------------------------------------------------------------------------

TRAINER_DOCS = "https://www.kubeflow.org/docs/components/trainer/operator-guides/migration/"


@pytest.mark.parametrize(
    ("operators", "expected"),
    [
        ({"training-operator": "v1.9.4"}, []),
        (
            {"trainer": "v2.3.0"},
            [
                (
                    "warning",
                    "kubeflow.org/v1 PyTorchJob is not served by Kubeflow Trainer v2 (trainer v2.3.0 on the "
                    f"target); use trainer.kubeflow.org/v1alpha1 TrainJob ({TRAINER_DOCS})",
                )
            ],
        ),
        (
            None,
            [
                (
                    "info",
                    "kubeflow.org/v1 PyTorchJob is superseded by Kubeflow Trainer v2; "
                    f"consider trainer.kubeflow.org/v1alpha1 TrainJob ({TRAINER_DOCS})",
                )
            ],
        ),
        ({}, []),
    ],
)
def test_training_operator_v1_jobs(operators: dict[str, str] | None, expected: list[tuple[str, str]]) -> None:
    issues = api_version_issues("kubeflow.org/v1", "PyTorchJob", kubernetes_minor=34, operators=operators)
    assert [(i.level, i.message) for i in issues] == expected


@pytest.mark.parametrize(
    ("operators", "levels"),
    [
        ({"mpi-operator": "v0.8.0"}, ["error"]),
        ({"mpi-operator": "v0.3.0"}, ["warning"]),  # v0.3.0 still served kubeflow.org/v1
        ({"mpi-operator": "main"}, ["error"]),  # unknown tag: judged as the newest release
        ({"training-operator": "v1.9.4"}, []),
        ({"training-operator": "v1.9.4", "mpi-operator": "v0.8.0"}, []),
        ({"mpi-operator": "v0.8.0", "trainer": "v2.3.0"}, ["error", "warning"]),
        (None, ["info"]),  # only the Trainer v2 notice: Training Operator may serve it
    ],
)
def test_mpi_job_v1_depends_on_operators(operators: dict[str, str] | None, levels: list[str]) -> None:
    issues = api_version_issues("kubeflow.org/v1", "MPIJob", kubernetes_minor=34, operators=operators)
    assert [i.level for i in issues] == levels


def test_mpi_job_v2beta1_is_current() -> None:
    for operators in ({"mpi-operator": "v0.8.0"}, None, CURRENT_OPERATORS):
        assert (
            api_version_issues("kubeflow.org/v2beta1", "MPIJob", kubernetes_minor=34, operators=operators)
            == []
        )


@pytest.mark.parametrize(("tag", "level"), [("v0.6.1", None), ("v0.7.0", "error"), ("v0.20.0", "error")])
def test_kserve_v1alpha2_by_release(tag: str, level: str | None) -> None:
    issues = api_version_issues(
        "serving.kserve.io/v1alpha2", "InferenceService", kubernetes_minor=34, operators={"kserve": tag}
    )
    assert [i.level for i in issues] == ([level] if level else [])


def test_katib_v1alpha3_is_removed() -> None:
    (issue,) = api_version_issues("kubeflow.org/v1alpha3", "Experiment", kubernetes_minor=34, operators=None)
    assert issue.level == "error"
    assert issue.message.startswith(
        "kubeflow.org/v1alpha3 Experiment was removed in Katib v0.10.1; use kubeflow.org/v1beta1 ("
    )
