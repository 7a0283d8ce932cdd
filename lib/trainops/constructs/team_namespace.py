"""``TeamNamespace``: a team's Namespace with Pod Security Admission labels (restricted by default)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from trainops.constructs._core.argocd import PROTECT_OPTIONS, argocd_annotations
from trainops.constructs._core.base import Construct, ObjectConstruct, chart_namespace, emit, require_name
from trainops.constructs._core.emission import remove_op
from trainops.constructs._core.props import require_labels
from trainops.core.cluster import Cluster

_KIND = "TeamNamespace"

#: Argo CD sync wave of the team-platform objects (Namespace, quotas, limits, network policies,
#: RBAC): before queues and runtimes (-1), workloads with their PVCs (0) and monitors/HPAs (1). Within a wave
#: Argo CD applies kinds in Helm install order, so the Namespace comes first.
#: Source: https://argo-cd.readthedocs.io/en/stable/user-guide/sync-waves/ (DESIGN.md decision 4).
PLATFORM_WAVE = -2

#: Pod Security Standards levels (``pod-security.kubernetes.io/<mode>`` label values).
PodSecurityLevel = Literal["privileged", "baseline", "restricted"]
_LEVELS: tuple[PodSecurityLevel, ...] = ("privileged", "baseline", "restricted")
#: Label prefix of Pod Security Admission.
PSA_PREFIX = "pod-security.kubernetes.io"
#: Namespace label that turns on Katib's metrics-collector injection (Katib's webhooks select it).
#: Source: kubeflow/katib v0.19.0 ``pkg/webhook/v1beta1/common/const.go`` ``KatibMetricsCollectorInjection``.
KATIB_INJECTION_LABEL = "katib.kubeflow.org/metrics-collector-injection"


class TeamNamespace(ObjectConstruct):
    """A v1 Namespace for one team, with Pod Security Admission enforcing a Pod Security Standard.

    The labels ``pod-security.kubernetes.io/{enforce,audit,warn}`` are set to ``pod_security`` and
    ``...-version`` to the cluster's minor (``v1.34``), so a cluster upgrade never tightens or loosens
    the policy unseen. Optional labels opt the namespace into Katib metrics-collector injection
    (``katib=True``) and Kueue management (``kueue=True``: the cluster's ``kueue_namespace_labels``).

    Argo CD syncs it in wave ``-2`` (before everything in it) and, unless ``protect=False``, never
    prunes or deletes it: deleting a Namespace deletes its PVCs and running jobs.

    Args:
        scope: the parent construct (a Chart).
        id: construct id.
        cluster: target cluster (its minor pins the Pod Security version; its operators gate
            ``katib``/``kueue``).
        name: namespace name, a DNS-1123 label. Default: the Chart's namespace. A platform app may
            create the namespaces of other apps (a Namespace is cluster-scoped), so it may differ.
        pod_security: ``restricted`` | ``baseline`` | ``privileged``. Default: ``restricted``.
        katib: label the namespace for Katib metrics-collector injection. Default: ``False``.
        kueue: label the namespace with the cluster's ``kueue_namespace_labels``. Default: ``False``.
        labels: extra labels. Default: none.
        protect: add the Argo CD ``Prune=false,Delete=false`` sync options. Default: ``True``.

    Raises:
        ValueError: no name and no Chart namespace; a bad level or label (incl. a label that overrides a Pod Security label); ``katib``/``kueue``
            on a cluster without that operator.

    Source: https://kubernetes.io/docs/concepts/security/pod-security-admission/,
    https://kubernetes.io/docs/tasks/configure-pod-container/enforce-standards-namespace-labels/,
    https://www.kubeflow.org/docs/components/katib/user-guides/metrics-collector/,
    https://kueue.sigs.k8s.io/docs/reference/kueue-config.v1beta1/ (``managedJobsNamespaceSelector``)
    """

    KIND = "Namespace"
    API_VERSION = "v1"

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        cluster: Cluster,
        name: str | None = None,
        pod_security: PodSecurityLevel = "restricted",
        katib: bool = False,
        kueue: bool = False,
        labels: Mapping[str, str] | None = None,
        protect: bool = True,
    ) -> None:
        super().__init__(scope, id)
        namespace = chart_namespace(self)
        if name is None and namespace is None:
            raise ValueError(f"{_KIND} name=None: the Chart has no namespace to default to")
        self._name = require_name(_KIND, "name", name if name is not None else str(namespace))
        if pod_security not in _LEVELS:
            raise ValueError(f"{_KIND} pod_security={pod_security!r}: must be one of {', '.join(_LEVELS)}")
        extra = require_labels(_KIND, "labels", labels or {})
        reserved = sorted(k for k in extra if k.startswith(f"{PSA_PREFIX}/"))
        if reserved:
            raise ValueError(f"{_KIND} labels: {reserved[0]!r} is set from pod_security")
        version = f"v{cluster.kubernetes_version}"
        ns_labels: dict[str, str] = dict(extra)
        for mode in ("enforce", "audit", "warn"):
            ns_labels[f"{PSA_PREFIX}/{mode}"] = pod_security
            ns_labels[f"{PSA_PREFIX}/{mode}-version"] = version
        if katib:
            if not cluster.has_operator("katib"):
                raise ValueError(
                    f"{_KIND} katib=True: cluster {cluster.name!r} does not list katib in operators"
                )
            ns_labels[KATIB_INJECTION_LABEL] = "enabled"
        if kueue:
            if not cluster.has_operator("kueue"):
                raise ValueError(
                    f"{_KIND} kueue=True: cluster {cluster.name!r} does not list kueue in operators"
                )
            ns_labels.update(
                require_labels(_KIND, "cluster.kueue_namespace_labels", cluster.kueue_namespace_labels)
            )
        self._pod_security: PodSecurityLevel = pod_security
        metadata: dict[str, Any] = {
            "name": self._name,
            "labels": ns_labels,
            "annotations": argocd_annotations(
                wave=PLATFORM_WAVE, options=[PROTECT_OPTIONS] if protect else None
            ),
        }
        api_object = emit(self, {"apiVersion": self.api_version, "kind": self.kind, "metadata": metadata})
        if namespace is not None:
            # cdk8s puts the Chart's namespace on every object; a Namespace is cluster-scoped.
            api_object.patch(remove_op("/metadata/namespace"))

    @property
    def pod_security(self) -> PodSecurityLevel:
        """The enforced Pod Security Standard."""
        return self._pod_security
