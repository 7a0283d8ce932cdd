"""Deprecated and removed apiVersions for the target Kubernetes minor and operator releases.

A manifest written against an API version the target no longer serves fails at apply time
(``no matches for kind ... in version ...``); one the target still serves but has deprecated
draws a ``Warning:`` from the API server and will fail after the next upgrade. This module
holds one table, :data:`DEPRECATIONS`, and turns a document's ``apiVersion``/``kind`` into
``deprecated-api`` issues for a target:

* removed for the target → ``error``;
* deprecated but still served → ``warning``;
* Training Operator v1 jobs (``kubeflow.org/v1`` PyTorchJob, TFJob, ...) → ``warning`` when the
  target runs Kubeflow Trainer v2 (``trainer`` in ``Cluster.operators``), ``info`` when the
  target's operators are unknown.

PASS (Kubernetes 1.34)::

    apiVersion: batch/v1
    kind: CronJob

FAIL (Kubernetes 1.34)::

    apiVersion: batch/v1beta1   # batch/v1beta1 CronJob was removed in Kubernetes 1.25; use batch/v1
    kind: CronJob

Remediation: change ``apiVersion`` to the replacement named in the message and apply the
notable changes listed in the linked migration guide.

Sources, per entry in the table (``ApiDeprecation.source``); the main ones:

* Kubernetes "Deprecated API Migration Guide":
  https://kubernetes.io/docs/reference/using-api/deprecation-guide/ (removals 1.16-1.32);
  deprecated-in minors from the ``+k8s:prerelease-lifecycle-gen`` tags of ``k8s.io/api`` types
  (the API server's ``deprecated in v1.X+, unavailable in v1.Y+`` warnings).
* Kubernetes deprecation policy (beta versions are deprecated 3 minors after introduction and
  served 3 minors after deprecation):
  https://kubernetes.io/docs/reference/using-api/deprecation-policy/ - for betas removed after
  the guide's last section; their removal minors are checked against the OpenAPI of every
  release kubernetes-validate ships (tests/validate/test_deprecations.py).
* Kubeflow Trainer v2 migration guide:
  https://www.kubeflow.org/docs/components/trainer/operator-guides/migration/
* mpi-operator v0.4.0 release ("Removed v1 operator"), kubeflow/mpi-operator#438 (v1alpha1 and
  v1alpha2 removed).
* Training Operator (formerly tf-operator): TFJob/PyTorchJob ``v1alpha1``, ``v1alpha2``, ``v1beta1``,
  ``v1beta2`` deleted before v1.0.0 (kubeflow/trainer#868, #933, #1075; kubeflow/katib#635).
* KServe migration from KFServing (``serving.kubeflow.org`` → ``serving.kserve.io`` in 0.7) and
  kserve/kserve#1850 (InferenceService ``v1alpha2`` dropped from the CRD for 0.7, release tracking
  issue kserve/kserve#1819).
* Katib CHANGELOG: v1beta1 added in v0.9.0, v1alpha3 removed in v0.10.1 (kubeflow/katib#1396);
  v1alpha1/v1alpha2 dropped from the Kubeflow manifests with v1alpha3 (kubeflow/manifests#442).

Alpha Kubernetes versions are not listed: the deprecation policy lets them go without notice,
they are off by default, and a kind the target's OpenAPI lacks is already an ``unknown-kind``
finding. CRD versions marked ``deprecated: true`` in a catalogued CRD (e.g. Kueue ``v1beta1``)
are reported by the engine from the CRD itself, so they are not repeated here.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Literal, NamedTuple

from trainops.core.findings import Issue, Level
from trainops.core.kinds import KIND_TABLE, KUBEFLOW_JOBS
from trainops.core.rules import RuleInfo, register
from trainops.validate.context import Check, DocumentContext

RULE = register(
    RuleInfo(
        id="deprecated-api",
        level="error",
        summary="No apiVersion removed in the target Kubernetes minor or operator version (error), "
        "none deprecated (warning), Kubeflow v1 jobs noted where Trainer v2 supersedes them (info).",
        rationale="A removed apiVersion fails on apply after an upgrade; a deprecated one will.",
        remediation="Move the object to the replacement apiVersion named in the message.",
        source="https://kubernetes.io/docs/reference/using-api/deprecation-guide/",
    )
)
KUBERNETES = "kubernetes"
#: The keyword of the "superseded by Kubeflow Trainer v2" notice (the pipeline shows it once per run).
SUPERSEDED = "superseded"

Version = tuple[int, ...]
"""A release as integers: ``(1, 25)`` for Kubernetes 1.25, ``(0, 4, 0)`` for v0.4.0."""

Applies = Literal["always", "installed", "superseded"]

GUIDE = "https://kubernetes.io/docs/reference/using-api/deprecation-guide/"
POLICY = "https://kubernetes.io/docs/reference/using-api/deprecation-policy/"
TRAINER_MIGRATION = "https://www.kubeflow.org/docs/components/trainer/operator-guides/migration/"
MPI_V040 = "https://github.com/kubeflow/mpi-operator/releases/tag/v0.4.0"
MPI_PR_438 = "https://github.com/kubeflow/mpi-operator/pull/438"
KSERVE_MIGRATION = "https://kserve.github.io/website/latest/admin/migration/"
KSERVE_PR_1850 = "https://github.com/kserve/kserve/pull/1850"
TRAINER_PR_868 = "https://github.com/kubeflow/trainer/pull/868"
TRAINER_PR_933 = "https://github.com/kubeflow/trainer/pull/933"
TRAINER_PR_1075 = "https://github.com/kubeflow/trainer/pull/1075"
KATIB_PR_635 = "https://github.com/kubeflow/katib/pull/635"
#: Pre-v1 TFJob/PyTorchJob versions and the upstream change that dropped them (tf-operator #868
#: v1alpha1, #933 v1alpha2, #1075 v1beta2; v1beta1 "is no more supported for job operators",
#: kubeflow/katib#635; pytorch-operator followed, e.g. kubeflow/pytorch-operator#212).
TRAINING_OPERATOR_REMOVALS: tuple[tuple[str, str], ...] = (
    ("v1alpha1", TRAINER_PR_868),
    ("v1alpha2", TRAINER_PR_933),
    ("v1beta1", KATIB_PR_635),
    ("v1beta2", TRAINER_PR_1075),
)
KATIB_V1ALPHA3 = "https://github.com/kubeflow/katib/pull/1396"
KATIB_V1ALPHA2 = "https://github.com/kubeflow/manifests/pull/442"

#: How a component is named in messages.
COMPONENT_LABELS: dict[str, str] = {
    KUBERNETES: "Kubernetes",
    "trainer": "Kubeflow Trainer",
    "training-operator": "Training Operator",
    "mpi-operator": "mpi-operator",
    "kserve": "KServe",
    "katib": "Katib",
}

_SEVERITY: dict[Level, int] = {"error": 0, "warning": 1, "info": 2}
_VERSION = r"^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?"


class Replacement(NamedTuple):
    """An apiVersion to migrate to.

    Args:
        api_version: e.g. ``batch/v1``.
        since: the Kubernetes minor from which it is served; ``0`` when always available
            for the targets trainops supports, or for operator APIs.
    """

    api_version: str
    since: int = 0


class ApiDeprecation(NamedTuple):
    """One deprecated or removed ``apiVersion`` (all its kinds, or the listed ones).

    Args:
        api_version: e.g. ``batch/v1beta1``.
        kinds: the kinds concerned; ``()`` means every kind of ``api_version``.
        deprecated_in: release that deprecated it, of ``component``: ``(1, 21)`` for Kubernetes
            1.21, ``(0, 3, 0)`` for an operator's v0.3.0.
        removed_in: release that stopped serving it, or ``None`` while it is still served.
        replacements: apiVersions to use instead, most preferred first; the first one the target
            serves is named. ``()`` when there is no drop-in replacement (see ``hint``).
        source: URL of the upstream statement.
        component: ``kubernetes`` or the ``Cluster.operators`` key of the operator serving it.
        applies: for operator entries: ``always`` (no release of the component serves it any more,
            whether installed or not), ``installed`` (only when the component is installed and none
            of ``served_by`` is) or ``superseded`` (a successor replaces it: ``warning`` when the
            successor ``component`` is installed, ``info`` when the target's operators are unknown).
        served_by: other components that still serve it (``installed`` entries only).
        replacement_kind: the kind to use with the replacement when it differs from the old kind.
        hint: what to do instead when there is no replacement apiVersion.
    """

    api_version: str
    kinds: tuple[str, ...]
    deprecated_in: Version
    removed_in: Version | None
    replacements: tuple[Replacement, ...]
    source: str
    component: str = KUBERNETES
    applies: Applies = "always"
    served_by: tuple[str, ...] = ()
    replacement_kind: str = ""
    hint: str = ""

    def covers(self, api_version: str, kind: str) -> bool:
        """Whether this entry is about ``api_version`` ``kind``."""
        return api_version == self.api_version and (not self.kinds or kind in self.kinds)


def _k8s(
    api_version: str,
    kinds: tuple[str, ...],
    deprecated: int,
    removed: int | None,
    replacement: str | tuple[Replacement, ...] | None,
    source: str,
    *,
    hint: str = "",
) -> ApiDeprecation:
    """A Kubernetes entry: minors as ints, one replacement (or several, most preferred first)."""
    if replacement is None:
        replacements: tuple[Replacement, ...] = ()
    elif isinstance(replacement, str):
        replacements = (Replacement(replacement),)
    else:
        replacements = replacement
    return ApiDeprecation(
        api_version=api_version,
        kinds=kinds,
        deprecated_in=(1, deprecated),
        removed_in=None if removed is None else (1, removed),
        replacements=replacements,
        source=source,
        hint=hint,
    )


#: Kubeflow v1 jobs the Training Operator serves at ``kubeflow.org/v1`` (from the kinds table).
_V1_JOBS = tuple(
    KIND_TABLE[key].kind
    for key in KUBEFLOW_JOBS
    if "v1" in KIND_TABLE[key].versions and "training-operator" in KIND_TABLE[key].operators
)


def _removed(version: str, operator: str) -> tuple[str, ...]:
    """The ``kubeflow.org`` kinds whose ``version`` ``operator`` stopped serving
    (:attr:`trainops.core.kinds.KindInfo.removed`)."""
    return tuple(
        info.kind
        for info in KIND_TABLE.values()
        if info.group == "kubeflow.org" and (version, operator) in info.removed
    )


_KATIB = ("Experiment", "Trial", "Suggestion")
_FLOWCONTROL = ("FlowSchema", "PriorityLevelConfiguration")
_FLOWCONTROL_V1 = Replacement("flowcontrol.apiserver.k8s.io/v1", 29)
_FLOWCONTROL_V1BETA3 = Replacement("flowcontrol.apiserver.k8s.io/v1beta3", 26)

#: Every deprecated or removed apiVersion trainops knows, declared once.
DEPRECATIONS: tuple[ApiDeprecation, ...] = (
    # --- Kubernetes 1.16 (guide #v1-16; lifecycle tags of k8s.io/api extensions and apps) ---
    _k8s(
        "extensions/v1beta1",
        ("Deployment", "DaemonSet", "ReplicaSet"),
        8,
        16,
        "apps/v1",
        GUIDE + "#deployment-v116",
    ),
    _k8s(
        "extensions/v1beta1", ("NetworkPolicy",), 9, 16, "networking.k8s.io/v1", GUIDE + "#networkpolicy-v116"
    ),
    _k8s(
        "extensions/v1beta1",
        ("PodSecurityPolicy",),
        11,
        16,
        None,
        "https://kubernetes.io/blog/2019/07/18/api-deprecations-in-1-16/",
        hint="migrate to Pod Security Admission (PodSecurityPolicy itself was removed in Kubernetes 1.25)",
    ),
    _k8s("apps/v1beta1", (), 8, 16, "apps/v1", GUIDE + "#deployment-v116"),
    _k8s("apps/v1beta2", (), 9, 16, "apps/v1", GUIDE + "#deployment-v116"),
    # --- Kubernetes 1.22 (guide #v1-22) ---
    _k8s(
        "admissionregistration.k8s.io/v1beta1",
        ("MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"),
        16,
        22,
        "admissionregistration.k8s.io/v1",
        GUIDE + "#webhook-resources-v122",
    ),
    _k8s(
        "apiextensions.k8s.io/v1beta1",
        ("CustomResourceDefinition",),
        16,
        22,
        "apiextensions.k8s.io/v1",
        GUIDE + "#customresourcedefinition-v122",
    ),
    _k8s(
        "apiregistration.k8s.io/v1beta1",
        ("APIService",),
        19,
        22,
        "apiregistration.k8s.io/v1",
        GUIDE + "#apiservice-v122",
    ),
    _k8s(
        "authentication.k8s.io/v1beta1",
        ("TokenReview",),
        19,
        22,
        "authentication.k8s.io/v1",
        GUIDE + "#tokenreview-v122",
    ),
    _k8s(
        "authorization.k8s.io/v1beta1",
        (
            "LocalSubjectAccessReview",
            "SelfSubjectAccessReview",
            "SubjectAccessReview",
            "SelfSubjectRulesReview",
        ),
        19,
        22,
        "authorization.k8s.io/v1",
        GUIDE + "#subjectaccessreview-resources-v122",
    ),
    _k8s(
        "certificates.k8s.io/v1beta1",
        ("CertificateSigningRequest",),
        19,
        22,
        "certificates.k8s.io/v1",
        GUIDE + "#certificatesigningrequest-v122",
    ),
    _k8s("coordination.k8s.io/v1beta1", ("Lease",), 19, 22, "coordination.k8s.io/v1", GUIDE + "#lease-v122"),
    _k8s("extensions/v1beta1", ("Ingress",), 14, 22, "networking.k8s.io/v1", GUIDE + "#ingress-v122"),
    _k8s("networking.k8s.io/v1beta1", ("Ingress",), 19, 22, "networking.k8s.io/v1", GUIDE + "#ingress-v122"),
    _k8s(
        "networking.k8s.io/v1beta1",
        ("IngressClass",),
        19,
        22,
        "networking.k8s.io/v1",
        GUIDE + "#ingressclass-v122",
    ),
    _k8s(
        "rbac.authorization.k8s.io/v1beta1",
        ("ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding"),
        17,
        22,
        "rbac.authorization.k8s.io/v1",
        GUIDE + "#rbac-resources-v122",
    ),
    _k8s(
        "scheduling.k8s.io/v1beta1",
        ("PriorityClass",),
        14,
        22,
        "scheduling.k8s.io/v1",
        GUIDE + "#priorityclass-v122",
    ),
    _k8s(
        "storage.k8s.io/v1beta1",
        ("CSIDriver", "StorageClass", "VolumeAttachment"),
        19,
        22,
        "storage.k8s.io/v1",
        GUIDE + "#storage-resources-v122",
    ),
    _k8s(
        "storage.k8s.io/v1beta1", ("CSINode",), 17, 22, "storage.k8s.io/v1", GUIDE + "#storage-resources-v122"
    ),
    # --- Kubernetes 1.25 (guide #v1-25) ---
    _k8s("batch/v1beta1", ("CronJob",), 21, 25, "batch/v1", GUIDE + "#cronjob-v125"),
    _k8s(
        "discovery.k8s.io/v1beta1",
        ("EndpointSlice",),
        21,
        25,
        "discovery.k8s.io/v1",
        GUIDE + "#endpointslice-v125",
    ),
    _k8s("events.k8s.io/v1beta1", ("Event",), 22, 25, "events.k8s.io/v1", GUIDE + "#event-v125"),
    _k8s(
        "autoscaling/v2beta1",
        ("HorizontalPodAutoscaler",),
        22,
        25,
        "autoscaling/v2",
        GUIDE + "#horizontalpodautoscaler-v125",
    ),
    _k8s(
        "policy/v1beta1", ("PodDisruptionBudget",), 21, 25, "policy/v1", GUIDE + "#poddisruptionbudget-v125"
    ),
    _k8s(
        "policy/v1beta1",
        ("PodSecurityPolicy",),
        21,
        25,
        None,
        GUIDE + "#psp-v125",
        hint="migrate to Pod Security Admission or a third-party admission webhook",
    ),
    _k8s("node.k8s.io/v1beta1", ("RuntimeClass",), 22, 25, "node.k8s.io/v1", GUIDE + "#runtimeclass-v125"),
    # --- Kubernetes 1.26 (guide #v1-26) ---
    _k8s(
        "flowcontrol.apiserver.k8s.io/v1beta1",
        _FLOWCONTROL,
        23,
        26,
        (_FLOWCONTROL_V1, _FLOWCONTROL_V1BETA3, Replacement("flowcontrol.apiserver.k8s.io/v1beta2", 23)),
        GUIDE + "#flowcontrol-resources-v126",
    ),
    _k8s(
        "autoscaling/v2beta2",
        ("HorizontalPodAutoscaler",),
        23,
        26,
        "autoscaling/v2",
        GUIDE + "#horizontalpodautoscaler-v126",
    ),
    # --- Kubernetes 1.27 (guide #v1-27) ---
    _k8s(
        "storage.k8s.io/v1beta1",
        ("CSIStorageCapacity",),
        24,
        27,
        "storage.k8s.io/v1",
        GUIDE + "#csistoragecapacity-v127",
    ),
    # --- Kubernetes 1.29 and 1.32 (guide #v1-29, #v1-32) ---
    _k8s(
        "flowcontrol.apiserver.k8s.io/v1beta2",
        _FLOWCONTROL,
        26,
        29,
        (_FLOWCONTROL_V1, _FLOWCONTROL_V1BETA3),
        GUIDE + "#flowcontrol-resources-v129",
    ),
    _k8s(
        "flowcontrol.apiserver.k8s.io/v1beta3",
        _FLOWCONTROL,
        29,
        32,
        (_FLOWCONTROL_V1,),
        GUIDE + "#flowcontrol-resources-v132",
    ),
    # --- Betas graduated after the guide's last section: default lifecycle of the deprecation
    # policy (deprecated 3 minors after introduction, removed 3 minors later); removal minors
    # checked against the shipped OpenAPI by tests/validate/test_deprecations.py ---
    _k8s(
        "authentication.k8s.io/v1beta1",
        ("SelfSubjectReview",),
        30,
        33,
        (Replacement("authentication.k8s.io/v1", 28),),
        POLICY,
    ),
    _k8s(
        "admissionregistration.k8s.io/v1beta1",
        ("ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding"),
        31,
        34,
        (Replacement("admissionregistration.k8s.io/v1", 30),),
        POLICY,
    ),
    _k8s(
        "networking.k8s.io/v1beta1",
        ("IPAddress", "ServiceCIDR"),
        34,
        37,
        (Replacement("networking.k8s.io/v1", 33),),
        POLICY,
    ),
    _k8s(
        "storage.k8s.io/v1beta1",
        ("VolumeAttributesClass",),
        34,
        37,
        (Replacement("storage.k8s.io/v1", 34),),
        POLICY,
    ),
    # --- Kubeflow Training Operator v1 jobs, superseded by Kubeflow Trainer v2 ---
    ApiDeprecation(
        api_version="kubeflow.org/v1",
        kinds=_V1_JOBS,
        deprecated_in=(2, 0, 0),
        removed_in=None,
        replacements=(Replacement("trainer.kubeflow.org/v1alpha1"),),
        source=TRAINER_MIGRATION,
        component="trainer",
        applies="superseded",
        replacement_kind="TrainJob",
    ),
    # --- Training Operator (ex tf-operator/pytorch-operator): v1.0.0 serves kubeflow.org/v1 only ---
    *(
        ApiDeprecation(
            api_version=f"kubeflow.org/{version}",
            kinds=_removed(version, "training-operator"),
            deprecated_in=(1, 0, 0),
            removed_in=(1, 0, 0),
            replacements=(Replacement("kubeflow.org/v1"),),
            source=source,
            component="training-operator",
        )
        for version, source in TRAINING_OPERATOR_REMOVALS
    ),
    # --- MPI Operator: v0.4.0 serves kubeflow.org/v2beta1 only ---
    ApiDeprecation(
        api_version="kubeflow.org/v1",
        kinds=("MPIJob",),
        deprecated_in=(0, 3, 0),
        removed_in=(0, 4, 0),
        replacements=(Replacement("kubeflow.org/v2beta1"),),
        source=MPI_V040,
        component="mpi-operator",
        applies="installed",
        served_by=("training-operator",),
    ),
    ApiDeprecation(
        api_version="kubeflow.org/v1alpha1",
        kinds=_removed("v1alpha1", "mpi-operator"),
        deprecated_in=(0, 2, 0),
        removed_in=(0, 4, 0),
        replacements=(Replacement("kubeflow.org/v2beta1"),),
        source=MPI_PR_438,
        component="mpi-operator",
    ),
    ApiDeprecation(
        api_version="kubeflow.org/v1alpha2",
        kinds=_removed("v1alpha2", "mpi-operator"),
        deprecated_in=(0, 3, 0),
        removed_in=(0, 4, 0),
        replacements=(Replacement("kubeflow.org/v2beta1"),),
        source=MPI_PR_438,
        component="mpi-operator",
    ),
    # --- KFServing → KServe 0.7 (API group renamed), InferenceService v1alpha2 dropped ---
    ApiDeprecation(
        api_version="serving.kubeflow.org/v1beta1",
        kinds=("InferenceService",),
        deprecated_in=(0, 7, 0),
        removed_in=(0, 7, 0),
        replacements=(Replacement("serving.kserve.io/v1beta1"),),
        source=KSERVE_MIGRATION,
        component="kserve",
    ),
    ApiDeprecation(
        api_version="serving.kubeflow.org/v1alpha2",
        kinds=("InferenceService",),
        deprecated_in=(0, 7, 0),
        removed_in=(0, 7, 0),
        replacements=(Replacement("serving.kserve.io/v1beta1"),),
        source=KSERVE_MIGRATION,
        component="kserve",
    ),
    ApiDeprecation(
        api_version="serving.kubeflow.org/v1alpha1",
        kinds=("TrainedModel",),
        deprecated_in=(0, 7, 0),
        removed_in=(0, 7, 0),
        replacements=(Replacement("serving.kserve.io/v1alpha1"),),
        source=KSERVE_MIGRATION,
        component="kserve",
    ),
    ApiDeprecation(
        api_version="serving.kserve.io/v1alpha2",
        kinds=("InferenceService",),
        deprecated_in=(0, 7, 0),
        removed_in=(0, 7, 0),
        replacements=(Replacement("serving.kserve.io/v1beta1"),),
        source=KSERVE_PR_1850,
        component="kserve",
    ),
    # --- Katib: v1beta1 since 0.9 ---
    ApiDeprecation(
        api_version="kubeflow.org/v1alpha3",
        kinds=_KATIB,
        deprecated_in=(0, 9, 0),
        removed_in=(0, 10, 1),
        replacements=(Replacement("kubeflow.org/v1beta1"),),
        source=KATIB_V1ALPHA3,
        component="katib",
    ),
    ApiDeprecation(
        api_version="kubeflow.org/v1alpha2",
        kinds=_KATIB,
        deprecated_in=(0, 7, 0),
        removed_in=(0, 7, 0),
        replacements=(Replacement("kubeflow.org/v1beta1"),),
        source=KATIB_V1ALPHA2,
        component="katib",
    ),
)


def parse_version(text: str) -> Version | None:
    """``"v0.8.0"`` → ``(0, 8, 0)``; ``None`` when ``text`` is not a release tag (e.g. ``main``)."""
    match = re.match(_VERSION, text.strip())
    if match is None:
        return None
    return tuple(int(part) for part in match.groups() if part is not None)


def entries_for(api_version: str, kind: str) -> tuple[ApiDeprecation, ...]:
    """The table entries about ``api_version`` ``kind`` (any component)."""
    return tuple(entry for entry in DEPRECATIONS if entry.covers(api_version, kind))


def removed_in(api_version: str, kind: str) -> int | None:
    """The Kubernetes minor that stopped serving ``api_version`` ``kind``, or ``None``.

    Only Kubernetes entries count; e.g. ``removed_in("batch/v1beta1", "CronJob") == 25``.
    """
    for entry in entries_for(api_version, kind):
        if entry.component == KUBERNETES and entry.removed_in is not None:
            return entry.removed_in[1]
    return None


def api_version_issues(
    api_version: str, kind: str, *, kubernetes_minor: int, operators: Mapping[str, str] | None
) -> list[Issue]:
    """``deprecated-api`` issues for one document's ``apiVersion`` and ``kind`` on a target.

    Args:
        api_version: the document's ``apiVersion``.
        kind: the document's ``kind``.
        kubernetes_minor: the target minor, e.g. ``34`` for Kubernetes 1.34.
        operators: the target's installed operators and release tags (``Cluster.operators``),
            or ``None`` when unknown (then operator APIs are judged against their newest releases).

    Returns:
        Issues at ``("apiVersion",)``, most severe first: ``error`` when removed, ``warning`` when deprecated (or,
        for Training Operator v1 jobs, when the target runs Kubeflow Trainer v2), ``info`` for
        a Trainer v2 notice when the operators are unknown. ``[]`` for current APIs.
    """
    issues: list[Issue] = []
    for entry in DEPRECATIONS:
        if not entry.covers(api_version, kind):
            continue
        if entry.component == KUBERNETES:
            issue = _kubernetes_issue(entry, kind, kubernetes_minor)
        else:
            issue = _operator_issue(entry, kind, kubernetes_minor, operators)
        if issue is not None:
            issues.append(issue)
    issues.sort(key=lambda issue: _SEVERITY[issue.level])
    return issues


def _kubernetes_issue(entry: ApiDeprecation, kind: str, minor: int) -> Issue | None:
    target = (1, minor)
    subject = f"{entry.api_version} {kind}"
    advice = _advice(entry, kind, minor)
    if entry.removed_in is not None and target >= entry.removed_in:
        message = f"{subject} was removed in Kubernetes {_show(entry.removed_in, KUBERNETES)}"
        return Issue(("apiVersion",), f"{message}; {advice} ({entry.source})", RULE.id)
    if target >= entry.deprecated_in:
        message = f"{subject} is deprecated since Kubernetes {_show(entry.deprecated_in, KUBERNETES)}"
        if entry.removed_in is not None:
            message += f" and removed in {_show(entry.removed_in, KUBERNETES)}"
        return Issue(("apiVersion",), f"{message}; {advice} ({entry.source})", RULE.id, None, "warning")
    return None


def _operator_issue(
    entry: ApiDeprecation, kind: str, minor: int, operators: Mapping[str, str] | None
) -> Issue | None:
    label = COMPONENT_LABELS.get(entry.component, entry.component)
    subject = f"{entry.api_version} {kind}"
    advice = _advice(entry, kind, minor)
    installed = operators is not None and entry.component in operators
    tag = operators[entry.component] if operators is not None and installed else None
    if entry.applies == "superseded":
        if installed:
            message = f"{subject} is not served by {label} v2 ({entry.component} {tag} on the target)"
            return _issue(f"{message}; {advice}", entry, "warning")
        if operators is None:
            message = f"{subject} is superseded by {label} v2; consider {advice.removeprefix('use ')}"
            return Issue(("apiVersion",), f"{message} ({entry.source})", RULE.id, SUPERSEDED, "info")
        return None
    if entry.applies == "installed" and (
        operators is None or not installed or any(other in operators for other in entry.served_by)
    ):
        return None
    version = parse_version(tag) if tag is not None else None
    on_target = f" ({entry.component} {tag} on the target)" if tag is not None else ""
    if entry.removed_in is not None and (version is None or version >= entry.removed_in):
        message = f"{subject} was removed in {label} {_show(entry.removed_in, entry.component)}{on_target}"
        return _issue(f"{message}; {advice}", entry, "error")
    if version is None or version >= entry.deprecated_in:
        message = f"{subject} is deprecated since {label} {_show(entry.deprecated_in, entry.component)}"
        return _issue(f"{message}{on_target}; {advice}", entry, "warning")
    return None


def _issue(text: str, entry: ApiDeprecation, level: Level) -> Issue:
    return Issue(("apiVersion",), f"{text} ({entry.source})", RULE.id, None, level)


def _advice(entry: ApiDeprecation, kind: str, minor: int) -> str:
    """``use <replacement>`` (the first the target serves), or the entry's hint."""
    if not entry.replacements:
        return entry.hint or "no replacement"
    chosen = next((r for r in entry.replacements if r.since <= minor), entry.replacements[-1])
    new_kind = entry.replacement_kind or kind
    return f"use {chosen.api_version}" + (f" {new_kind}" if new_kind != kind else "")


def _show(version: Version, component: str) -> str:
    text = ".".join(str(part) for part in version)
    return text if component == KUBERNETES else f"v{text}"


def check(context: DocumentContext) -> list[Issue]:
    """The CRD version's own ``deprecated: true`` flag, as a warning with its ``deprecationWarning``
    (the apiVersion table above is consulted before the schema lookup, see :func:`api_version_issues`)."""
    schema = context.schema
    if not schema.deprecated:
        return []
    warning = schema.deprecation_warning or f"{context.api_version} {context.kind} is deprecated"
    return [Issue(("apiVersion",), warning, RULE.id, None, "warning")]


CHECK = Check(RULE, check)
