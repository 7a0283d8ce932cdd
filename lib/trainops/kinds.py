"""Kind groups and where pod templates nest, declared once for the validator, the policy rules and
the constructs (STYLE.md habit 5: kind groups declared once; kube-linter ``pkg/objectkinds``).

A kind is identified by its :data:`GroupKind` ``(API group, kind)``; the core group is ``""``.

- :data:`POD_TEMPLATE_SITES`: where PodTemplateSpecs (``{metadata, spec}``) sit in objects of each
  kind, with the restart policies the owning controller allows: what the API server validates.
- :data:`EMBEDDED_OBJECTS`: whole Kubernetes objects embedded in another (Katib ``trialSpec``).
- :data:`POD_SPEC_SITES`: pod specs the API server does not check as such (KServe components and
  serving runtimes, LLMInferenceService, TrainJob patches and ``spec.trainer``/``initializer``,
  LeaderWorkerSet, Ray, Argo Workflow templates, Notebook, v1alpha1 MPIJob...), each a
  :class:`SpecSite` with its extra container slots (KServe ``predictor.model``...), walked by
  :func:`pod_templates` for policy rules only; ``tests/test_pod_walker_crds.py`` checks the table
  against every CRD of ``../shared/crds``.
- :data:`WRAPPED_OBJECTS`: whole objects a wrapper creates (AppWrapper components).
- :func:`pod_templates`: every pod spec of an object wherever it nests, with its JSON path, so a
  pod-level rule is written once.

Sources: the Go types of each API (``k8s.io/api``; kubeflow/trainer ``pkg/apis/kubeflow.org/v1``
and ``pkg/apis/trainer/v1alpha1``; kubernetes-sigs/jobset ``api/jobset/v1alpha2``;
kubeflow/katib ``pkg/apis/controller/experiments/v1beta1``; kserve ``pkg/apis/serving/v1beta1``).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Final

from trainops.findings import json_path

#: ``(API group, kind)``; the core group is ``""``.
GroupKind = tuple[str, str]
#: A path inside a document: keys and list indices, e.g. ``("spec", "containers", 0)``.
Parts = tuple[str | int, ...]

#: In a :class:`TemplateSite` path: every value of a mapping.
EACH_VALUE: Final = "*"
#: In a :class:`TemplateSite` path: every item of a list.
EACH_ITEM: Final = "[]"
#: Container lists of a pod spec (``core/v1`` ``PodSpec``), in the order findings report them.
CONTAINER_FIELDS: Final = ("initContainers", "containers", "ephemeralContainers")


def group_of(api_version: str) -> str:
    """The API group of ``api_version``: ``apps/v1`` → ``apps``, ``v1`` → ``""``."""
    group, slash, _ = api_version.rpartition("/")
    return group if slash else ""


def group_kind(obj: Any) -> GroupKind | None:
    """``(group, kind)`` of a document, or ``None`` when apiVersion or kind is not a string."""
    if not isinstance(obj, dict):
        return None
    api_version, kind = obj.get("apiVersion"), obj.get("kind")
    if not isinstance(api_version, str) or not isinstance(kind, str):
        return None
    group, slash, _ = api_version.rpartition("/")  # group_of, inlined: called per rule and object
    return (group if slash else ""), kind


# --- kind groups ---------------------------------------------------------------------------------

#: Kubeflow Training Operator v1 jobs → the field holding their replica specs
#: (kubeflow/trainer v1.9 ``pkg/apis/kubeflow.org/v1/*_types.go``); MPIJob v2beta1 from mpi-operator
#: uses ``mpiReplicaSpecs`` too.
REPLICA_SPECS_FIELD: Final[dict[str, str]] = {
    "PyTorchJob": "pytorchReplicaSpecs",
    "TFJob": "tfReplicaSpecs",
    "MPIJob": "mpiReplicaSpecs",
    "XGBoostJob": "xgbReplicaSpecs",
    "PaddleJob": "paddleReplicaSpecs",
    "JAXJob": "jaxReplicaSpecs",
}

#: Kubeflow v1 jobs (``kubeflow.org``), each with replica specs.
KUBEFLOW_JOBS: Final[frozenset[GroupKind]] = frozenset(("kubeflow.org", k) for k in REPLICA_SPECS_FIELD)
#: Everything that runs a training: Kubeflow v1 jobs, Trainer v2 TrainJob, JobSet.
TRAINING_JOBS: Final[frozenset[GroupKind]] = KUBEFLOW_JOBS | {
    ("trainer.kubeflow.org", "TrainJob"),
    ("jobset.x-k8s.io", "JobSet"),
}
#: Run-once objects: a changed spec must be a new object (content-hash name), never a patch.
RUN_ONCE: Final[frozenset[GroupKind]] = TRAINING_JOBS | {
    ("batch", "Job"),
    ("kubeflow.org", "Experiment"),
}
#: Long-running workloads with a pod template and a selector (kube-linter ``DeploymentLike``).
WORKLOADS: Final[frozenset[GroupKind]] = frozenset(
    {
        ("apps", "Deployment"),
        ("apps", "ReplicaSet"),
        ("apps", "StatefulSet"),
        ("apps", "DaemonSet"),
        ("", "ReplicationController"),
    }
)
#: Workloads whose ``spec.selector`` must be non-empty and select ``spec.template.metadata.labels``.
SELECTOR_WORKLOADS: Final[frozenset[GroupKind]] = frozenset(
    {("apps", "Deployment"), ("apps", "ReplicaSet"), ("apps", "StatefulSet"), ("apps", "DaemonSet")}
)
#: Serving objects: model servers as Deployments and KServe/Seldon custom resources.
SERVING: Final[frozenset[GroupKind]] = frozenset(
    {
        ("apps", "Deployment"),
        ("serving.kserve.io", "InferenceService"),
        ("machinelearning.seldon.io", "SeldonDeployment"),
    }
)

#: Cluster-scoped kinds (used when a schema does not say): the API server clears
#: ``metadata.namespace`` of these (``rest.BeforeCreate``).
CLUSTER_SCOPED: Final[frozenset[GroupKind]] = frozenset(
    {
        ("", "Namespace"),
        ("", "Node"),
        ("", "PersistentVolume"),
        ("rbac.authorization.k8s.io", "ClusterRole"),
        ("rbac.authorization.k8s.io", "ClusterRoleBinding"),
        ("storage.k8s.io", "StorageClass"),
        ("storage.k8s.io", "CSIDriver"),
        ("scheduling.k8s.io", "PriorityClass"),
        ("apiextensions.k8s.io", "CustomResourceDefinition"),
        ("admissionregistration.k8s.io", "ValidatingWebhookConfiguration"),
        ("admissionregistration.k8s.io", "MutatingWebhookConfiguration"),
        ("admissionregistration.k8s.io", "ValidatingAdmissionPolicy"),
        ("admissionregistration.k8s.io", "ValidatingAdmissionPolicyBinding"),
        ("policy", "PodSecurityPolicy"),
        ("trainer.kubeflow.org", "ClusterTrainingRuntime"),
        ("serving.kserve.io", "ClusterServingRuntime"),
        ("serving.kserve.io", "ClusterStorageContainer"),
        ("kueue.x-k8s.io", "ClusterQueue"),
        ("kueue.x-k8s.io", "ResourceFlavor"),
        ("kueue.x-k8s.io", "Cohort"),
        ("kueue.x-k8s.io", "AdmissionCheck"),
        ("kueue.x-k8s.io", "MultiKueueCluster"),
        ("kueue.x-k8s.io", "MultiKueueConfig"),
        ("kueue.x-k8s.io", "ProvisioningRequestConfig"),
        ("kueue.x-k8s.io", "Topology"),
        ("kueue.x-k8s.io", "WorkloadPriorityClass"),
    }
)

# --- where pod templates nest --------------------------------------------------------------------

#: Restart policies a Job's pods may use (``validateJobSpec``); unset is defaulted to Always first.
JOB_RESTART: Final = frozenset({"OnFailure", "Never"})
#: JobSet defaults an unset restartPolicy of its Jobs' pods to OnFailure (its defaulting webhook).
JOBSET_RESTART: Final = frozenset({"", "OnFailure", "Never"})
#: Deployment, ReplicaSet, StatefulSet, DaemonSet: Always (unset is defaulted to Always).
ALWAYS_RESTART: Final = frozenset({"", "Always"})


@dataclass(frozen=True)
class TemplateSite:
    """Where pod templates sit in an object of one kind.

    Args:
        path: keys from the object root to a PodTemplateSpec (``{metadata, spec}``); ``"*"`` walks
            every value of a mapping, ``"[]"`` every item of a list. ``()`` is the object itself (Pod).
        restart: the allowed ``spec.restartPolicy`` values (``""`` = unset), or ``None`` (any).
        claim_names: paths (from the object root) of the names of volumes the controller adds to
            every pod: StatefulSet ``volumeClaimTemplates``, JobSet ``volumeClaimPolicies``.
    """

    path: tuple[str, ...]
    restart: frozenset[str] | None = None
    claim_names: tuple[tuple[str, ...], ...] = ()


def _replicas(field_name: str) -> tuple[TemplateSite, ...]:
    return (TemplateSite(("spec", field_name, EACH_VALUE, "template")),)


_JOBSET_JOBS = ("replicatedJobs", EACH_ITEM, "template", "spec", "template")
_JOBSET_CLAIMS = ("volumeClaimPolicies", EACH_ITEM, "templates", EACH_ITEM, "metadata", "name")
_STS_CLAIMS = ("spec", "volumeClaimTemplates", EACH_ITEM, "metadata", "name")
_RUNTIME_SPEC = ("spec", "template", "spec")
_RUNTIME_SITE = TemplateSite(
    (*_RUNTIME_SPEC, *_JOBSET_JOBS), JOBSET_RESTART, ((*_RUNTIME_SPEC, *_JOBSET_CLAIMS),)
)

#: (API group, kind) → pod template locations.
POD_TEMPLATE_SITES: Final[dict[GroupKind, tuple[TemplateSite, ...]]] = {
    ("", "Pod"): (TemplateSite(()),),
    ("", "PodTemplate"): (TemplateSite(("template",)),),
    ("", "ReplicationController"): (TemplateSite(("spec", "template"), ALWAYS_RESTART),),
    ("apps", "Deployment"): (TemplateSite(("spec", "template"), ALWAYS_RESTART),),
    ("apps", "ReplicaSet"): (TemplateSite(("spec", "template"), ALWAYS_RESTART),),
    ("apps", "StatefulSet"): (TemplateSite(("spec", "template"), ALWAYS_RESTART, (_STS_CLAIMS,)),),
    ("apps", "DaemonSet"): (TemplateSite(("spec", "template"), ALWAYS_RESTART),),
    ("batch", "Job"): (TemplateSite(("spec", "template"), JOB_RESTART),),
    ("batch", "CronJob"): (TemplateSite(("spec", "jobTemplate", "spec", "template"), JOB_RESTART),),
    # Training Operator v1 (kubeflow/trainer v1.9) and mpi-operator v2beta1: the operator sets the
    # pods' restartPolicy from the replica spec, so the template's is not checked.
    **{("kubeflow.org", kind): _replicas(field) for kind, field in REPLICA_SPECS_FIELD.items()},
    ("jobset.x-k8s.io", "JobSet"): (
        TemplateSite(("spec", *_JOBSET_JOBS), JOBSET_RESTART, (("spec", *_JOBSET_CLAIMS),)),
    ),
    ("trainer.kubeflow.org", "TrainingRuntime"): (_RUNTIME_SITE,),
    ("trainer.kubeflow.org", "ClusterTrainingRuntime"): (_RUNTIME_SITE,),
}

#: (API group, kind) → paths of embedded Kubernetes objects, checked as objects of their own kind
#: (their templates, selectors), with ``${…}`` placeholders skipped.
EMBEDDED_OBJECTS: Final[dict[GroupKind, tuple[tuple[str, ...], ...]]] = {
    ("kubeflow.org", "Experiment"): (("spec", "trialTemplate", "trialSpec"),),  # Katib
    ("kubeflow.org", "Trial"): (("spec", "runSpec"),),
}

#: (API group, kind) → paths of whole objects a wrapper creates as they are (no placeholders), walked
#: for policy rules only: AppWrapper ``spec.components[].template`` (project-codeflare/appwrapper
#: ``api/v1beta2/appwrapper_types.go``), e.g. a LeaderWorkerSet or a PyTorchJob queued by Kueue.
WRAPPED_OBJECTS: Final[dict[GroupKind, tuple[tuple[str, ...], ...]]] = {
    ("workload.codeflare.dev", "AppWrapper"): (("spec", "components", EACH_ITEM, "template"),),
}
#: Kinds whose objects are walked inside a Katib trial template (``trialSpec``, Trial ``runSpec``):
#: those Katib runs as trials (Job, Kubeflow and JobSet jobs, Trainer, Argo Workflows, Ray; katib
#: ``trialResources``). Serving kinds are left out: never trials, and their paths would multiply the
#: size of every exported Experiment policy.
TRIAL_KINDS: Final[frozenset[GroupKind]] = frozenset(POD_TEMPLATE_SITES) | {
    ("trainer.kubeflow.org", "TrainJob"),
    ("argoproj.io", "Workflow"),
    ("ray.io", "RayJob"),
}

#: Kinds whose objects are walked inside a wrapper: what AppWrapper wraps (Kubernetes workloads,
#: Kubeflow and JobSet jobs, Trainer runtimes, Ray, LeaderWorkerSet; appwrapper's user guide). Others
#: are left out: their paths nest too deep for the CEL parsers (a nesting bound of 32) inside a wrapper.
WRAPPABLE_KINDS: Final[frozenset[GroupKind]] = frozenset(POD_TEMPLATE_SITES) | {
    ("ray.io", "RayCluster"),
    ("ray.io", "RayJob"),
    ("leaderworkerset.x-k8s.io", "LeaderWorkerSet"),
}

#: KServe single-container fields of a predictor (``ModelSpec`` and the framework specs of
#: ``PredictorSpec``; kserve ``pkg/apis/serving/v1beta1/predictor.go``) and of an explainer
#: (``ExplainerSpec``, ``explainer.go``: ``art``; ``alibi`` up to v0.13), each a ``Container`` the
#: component's pod runs. A transformer and a worker spec have only their pod spec's containers.
_PREDICTOR_CONTAINERS = (
    "model",
    "sklearn",
    "xgboost",
    "tensorflow",
    "pytorch",
    "triton",
    "onnx",
    "huggingface",
    "pmml",
    "lightgbm",
    "paddle",
)
_EXPLAINER_CONTAINERS = ("art", "alibi")
_PATCHED_JOBS = ("trainingRuntimeSpec", "template", "spec", "replicatedJobs", EACH_ITEM, "template", "spec")


@dataclass(frozen=True)
class SpecSite:
    """A pod-spec-shaped field that is not a PodTemplateSpec the API server validates (policy rules only).

    Args:
        path: keys from the object root (``"*"``/``"[]"`` as in :class:`TemplateSite`) to the mapping
            holding the pod-level fields (``containers``, ``securityContext``, ``volumes``...), or to
            a PodTemplateSpec when ``template``.
        template: ``path`` is a PodTemplateSpec (``{metadata, spec}``): the pod spec is its ``spec``,
            the labels its ``metadata.labels``.
        labels: path of the pod labels below the pod-spec mapping (Argo templates: ``metadata.labels``).
        partial: the pod spec is a patch merged into one defined elsewhere (by a runtime, an operator
            or a template), so what it leaves out is not missing (:attr:`PodSite.partial`).
        slots: paths below the pod spec of further containers: a single ``Container`` mapping, or a
            list of them when the path ends in ``"[]"``; ``()`` is the pod-spec mapping itself (a
            bare container such as TrainJob ``spec.trainer``).
    """

    path: tuple[str, ...]
    template: bool = False
    labels: tuple[str, ...] = ()
    partial: bool = False
    slots: tuple[tuple[str, ...], ...] = ()

    @property
    def spec_path(self) -> tuple[str, ...]:
        """Path of the pod-spec mapping from the object root."""
        return (*self.path, "spec") if self.template else self.path


def _template(*path: str) -> SpecSite:
    return SpecSite(path, template=True)


_PREDICTOR_SLOTS = tuple((name,) for name in _PREDICTOR_CONTAINERS)
_LLM_SITES = (
    SpecSite(("spec", "template")),
    SpecSite(("spec", "worker")),
    SpecSite(("spec", "prefill", "template")),
    SpecSite(("spec", "prefill", "worker")),
    SpecSite(("spec", "router", "scheduler", "template")),
)
_SERVING_RUNTIME_SITES = (SpecSite(("spec",)), SpecSite(("spec", "workerSpec")))
#: Argo Workflows ``Template`` (argo-workflows ``pkg/apis/workflow/v1alpha1/workflow_types.go``):
#: pod-level fields inline, containers in ``container``, ``script``, ``initContainers``, ``sidecars``
#: and ``containerSet.containers``; the workflow's ``podSpecPatch`` and defaults complete the pod.
_ARGO_SLOTS = (
    ("container",),
    ("script",),
    ("sidecars", EACH_ITEM),
    ("containerSet", "containers", EACH_ITEM),
)


def _argo(*prefix: str) -> tuple[SpecSite, ...]:
    return (
        SpecSite(
            (*prefix, "templates", EACH_ITEM), labels=("metadata", "labels"), partial=True, slots=_ARGO_SLOTS
        ),
    )


def _ray(*prefix: str) -> tuple[SpecSite, ...]:
    return (
        _template(*prefix, "headGroupSpec", "template"),
        _template(*prefix, "workerGroupSpecs", EACH_ITEM, "template"),
    )


_MONITORING = "monitoring.coreos.com"

#: (API group, kind) → pod-spec-shaped fields that are not PodTemplateSpecs the API server checks,
#: for policy rules only; each entry cites the Go type it follows. ``tests/test_pod_walker_crds.py``
#: checks this table against every CRD of ``../shared/crds``: each schema node shaped like a PodSpec
#: or a Container must be reached.
POD_SPEC_SITES: Final[dict[GroupKind, tuple[SpecSite, ...]]] = {
    # KServe components inline a ``PodSpec`` plus one container field (kserve ``component.go``,
    # ``predictor.go``); ``workerSpec`` is the multi-node worker pod (``WorkerSpec``).
    ("serving.kserve.io", "InferenceService"): (
        SpecSite(("spec", "predictor"), slots=_PREDICTOR_SLOTS),
        SpecSite(("spec", "transformer")),
        SpecSite(("spec", "explainer"), slots=tuple((name,) for name in _EXPLAINER_CONTAINERS)),
        SpecSite(("spec", "predictor", "workerSpec")),
        SpecSite(("spec", "canary", EACH_ITEM, "predictor"), slots=_PREDICTOR_SLOTS),
        SpecSite(("spec", "canary", EACH_ITEM, "predictor", "workerSpec")),
    ),
    # ``ServingRuntimeSpec`` inlines a ``ServingRuntimePodSpec`` (kserve ``servingruntime_types.go``).
    ("serving.kserve.io", "ServingRuntime"): _SERVING_RUNTIME_SITES,
    ("serving.kserve.io", "ClusterServingRuntime"): _SERVING_RUNTIME_SITES,
    # ``LLMInferenceServiceSpec``: ``template``/``worker``/``prefill``/``router.scheduler.template``
    # are ``PodSpec`` s (kserve ``pkg/apis/serving/v1alpha1/llm_inference_service_types.go``).
    ("serving.kserve.io", "LLMInferenceService"): _LLM_SITES,
    ("serving.kserve.io", "LLMInferenceServiceConfig"): _LLM_SITES,
    # ``ClusterStorageContainer.spec.container``: the storage initializer (kserve ``storage_container_types.go``).
    ("serving.kserve.io", "ClusterStorageContainer"): (
        SpecSite(("spec", "container"), partial=True, slots=((),)),
    ),
    ("trainer.kubeflow.org", "TrainJob"): (
        SpecSite(("spec", "podTemplateOverrides", EACH_ITEM, "spec"), partial=True),  # Trainer v2.0-v2.2
        SpecSite(
            ("spec", "runtimePatches", EACH_ITEM, *_PATCHED_JOBS, "template", "spec"), partial=True
        ),  # v2.3
        # ``Trainer`` and ``DatasetInitializer``/``ModelInitializer`` override the runtime's
        # containers (trainer ``pkg/apis/trainer/v1alpha1/trainjob_types.go``).
        SpecSite(("spec", "trainer"), partial=True, slots=((),)),
        SpecSite(("spec", "initializer", "dataset"), partial=True, slots=((),)),
        SpecSite(("spec", "initializer", "model"), partial=True, slots=((),)),
    ),
    # mpi-operator v1alpha1 ``MPIJobSpec.Template`` (one template for launcher and workers).
    ("kubeflow.org", "MPIJob"): (_template("spec", "template"),),
    # Seldon Core v1 ``PredictorSpec.ComponentSpecs[].Spec`` and ``Explainer.ContainerSpec``
    # (seldon-core ``seldondeployment_types.go``).
    ("machinelearning.seldon.io", "SeldonDeployment"): (
        SpecSite(("spec", "predictors", EACH_ITEM, "componentSpecs", EACH_ITEM, "spec")),
        SpecSite(("spec", "predictors", EACH_ITEM, "explainer"), partial=True, slots=(("containerSpec",),)),
    ),
    # KubeRay ``HeadGroupSpec``/``WorkerGroupSpec`` templates (ray-project/kuberay ``raycluster_types.go``,
    # ``rayjob_types.go``, ``rayservice_types.go``).
    ("ray.io", "RayCluster"): _ray("spec"),
    ("ray.io", "RayJob"): _ray("spec", "rayClusterSpec"),
    ("ray.io", "RayService"): _ray("spec", "rayClusterConfig"),
    # LeaderWorkerSet ``LeaderWorkerTemplate`` (kubernetes-sigs/lws ``api/leaderworkerset/v1``).
    ("leaderworkerset.x-k8s.io", "LeaderWorkerSet"): (
        _template("spec", "leaderWorkerTemplate", "leaderTemplate"),
        _template("spec", "leaderWorkerTemplate", "workerTemplate"),
    ),
    # Kubeflow Notebook ``NotebookSpec.Template`` (kubeflow/kubeflow ``notebook_types.go``).
    ("kubeflow.org", "Notebook"): (_template("spec", "template"),),
    # Knative Serving ``Service.spec.template`` (a ``RevisionTemplateSpec``; knative/serving ``service_types.go``).
    ("serving.knative.dev", "Service"): (_template("spec", "template"),),
    # agent-sandbox ``SandboxSpec.PodTemplate`` (kubernetes-sigs/agent-sandbox ``sandbox_types.go``).
    ("agents.x-k8s.io", "Sandbox"): (_template("spec", "podTemplate"),),
    # Kueue ``Workload.spec.podSets[].template`` (kueue ``apis/kueue/v1beta1/workload_types.go``).
    ("kueue.x-k8s.io", "Workload"): (_template("spec", "podSets", EACH_ITEM, "template"),),
    ("argoproj.io", "Workflow"): _argo("spec"),
    ("argoproj.io", "WorkflowTemplate"): _argo("spec"),
    ("argoproj.io", "ClusterWorkflowTemplate"): _argo("spec"),
    ("argoproj.io", "CronWorkflow"): _argo("spec", "workflowSpec"),
    # prometheus-operator: ``containers``/``initContainers`` of Prometheus, Alertmanager, ThanosRuler
    # and PrometheusAgent are strategic-merge patches of the operator's pod (``CommonPrometheusFields``).
    **{
        (_MONITORING, kind): (SpecSite(("spec",), partial=True),)
        for kind in ("Prometheus", "PrometheusAgent", "Alertmanager", "ThanosRuler")
    },
}


def walk(node: Any, path: tuple[str, ...], parts: Parts = ()) -> Iterator[tuple[Any, Parts]]:
    """Every non-null value at ``path`` below ``node`` (``"*"``/``"[]"`` as in :class:`TemplateSite`),
    with its parts from the root (``parts`` prefixes them)."""
    if not path:
        if node is not None:
            yield node, parts
        return
    step, rest = path[0], path[1:]
    if step == EACH_VALUE:
        if isinstance(node, dict):
            for child_key, child in node.items():
                yield from walk(child, rest, (*parts, child_key))
    elif step == EACH_ITEM:
        if isinstance(node, list):
            for index, child in enumerate(node):
                yield from walk(child, rest, (*parts, index))
    elif isinstance(node, dict):
        yield from walk(node.get(step), rest, (*parts, step))


def slot_name(parts: Parts) -> str:
    """The name an unnamed slot container goes by: its field (``spec.trainer`` → ``trainer``), ``"?"``
    for an item of a list."""
    last = parts[-1] if parts else None
    return last if isinstance(last, str) else "?"


def walk_one(node: Any, path: tuple[str, ...]) -> Any:
    """The value at ``path`` (plain keys) below ``node``, ``None`` when a step is missing."""
    for step in path:
        node = node.get(step) if isinstance(node, dict) else None
    return node


@dataclass(frozen=True)
class PodSite:
    """One pod spec found in an object.

    Args:
        parts: path of the pod spec (the ``spec`` of a template, or the pod-spec-shaped field).
        spec: the pod spec mapping (containers, volumes, ...), as found (not copied).
        labels: the template's ``metadata.labels`` (or the Pod's), ``{}`` when none.
        owner: ``(group, kind)`` of the object (or embedded object) the template belongs to.
        templated: inside a Katib trial template, where ``${trialParameters.X}`` placeholders stand.
        partial: a patch merged into a pod spec defined elsewhere (TrainJob runtime patches: the
            runtime and ``spec.trainer`` supply resources, service account, image), so what it
            leaves out is not missing.
        extra: containers outside the pod spec's container lists (:attr:`SpecSite.slots`): each
            ``(parts below the pod spec, container mapping)``, in slot order.
    """

    parts: Parts
    spec: dict[str, Any]
    labels: dict[str, Any]
    owner: GroupKind
    templated: bool = False
    partial: bool = False
    extra: tuple[tuple[Parts, dict[str, Any]], ...] = ()

    @property
    def path(self) -> str:
        """JSON path of the pod spec, e.g. ``$.spec.pytorchReplicaSpecs.Worker.template.spec``."""
        return json_path(self.parts)


def pod_templates(obj: Any) -> list[PodSite]:
    """Every pod spec of ``obj`` wherever it nests, in document order per site.

    Covers :data:`POD_TEMPLATE_SITES` (workloads, Jobs, CronJobs, every Kubeflow v1 replica spec,
    JobSet, Trainer runtimes), Katib ``trialSpec``/Trial ``runSpec`` (recursively, marked
    ``templated``) and :data:`POD_SPEC_SITES` (KServe components, TrainJob overrides).

    Args:
        obj: a document (need not be schema-valid: values of unexpected types are skipped).

    Returns:
        One :class:`PodSite` per pod spec; empty for kinds without pods.
    """
    sites: list[PodSite] = []
    _collect(obj, (), sites, templated=False)
    return sites


def _collect(obj: Any, base: Parts, sites: list[PodSite], *, templated: bool) -> None:
    key = group_kind(obj)
    if key is None:
        return
    for site in POD_TEMPLATE_SITES.get(key, ()):
        for template, parts in walk(obj, site.path, base):
            if not isinstance(template, dict):
                continue
            spec = template.get("spec")
            if not isinstance(spec, dict):
                continue
            meta = template.get("metadata")
            labels = meta.get("labels") if isinstance(meta, dict) else None
            sites.append(
                PodSite((*parts, "spec"), spec, labels if isinstance(labels, dict) else {}, key, templated)
            )
    for spec_site in POD_SPEC_SITES.get(key, ()):
        for node, parts in walk(obj, spec_site.path, base):
            if not isinstance(node, dict):
                continue
            labels = node
            if spec_site.template:
                labels, node, parts = node.get("metadata"), node.get("spec"), (*parts, "spec")
                if not isinstance(node, dict):
                    continue
                labels = labels.get("labels") if isinstance(labels, dict) else None
            else:
                labels = walk_one(node, spec_site.labels) if spec_site.labels else None
            extra = tuple(
                (found[len(parts) :], item)
                for slot in spec_site.slots
                for item, found in walk(node, slot, parts)
                if isinstance(item, dict)
            )
            sites.append(
                PodSite(
                    parts,
                    node,
                    labels if isinstance(labels, dict) else {},
                    key,
                    templated,
                    partial=spec_site.partial,
                    extra=extra,
                )
            )
    for path in EMBEDDED_OBJECTS.get(key, ()):
        for nested, parts in walk(obj, path, base):
            if group_kind(nested) in TRIAL_KINDS:
                _collect(nested, parts, sites, templated=True)
    for path in WRAPPED_OBJECTS.get(key, ()):
        for nested, parts in walk(obj, path, base):
            if group_kind(nested) in WRAPPABLE_KINDS:
                _collect(nested, parts, sites, templated=templated)
