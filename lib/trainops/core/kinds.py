"""The kinds table: everything trainops knows about each kind, declared once (issue 28; STYLE.md
habit 5: kind groups declared once; kube-linter ``pkg/objectkinds``).

A kind is identified by its :data:`GroupKind` ``(API group, kind)``; the core group is ``""``. Each
kind has one :class:`KindInfo` in :data:`KIND_TABLE` (a duplicate is an error): its versions, where its
pod templates and pod specs nest, its replica field and training container, run-once or long-lived,
its suspend field, its Argo CD health check, the operators serving it, the versions they removed,
the ``trainops new`` kind that scaffolds it. Validation, the policy pod walker (Python and CEL),
delivery (``-runs`` Applications, content-hash names, ignored fields), ``argocd runs`` and
``prune-finished``, the health checks, the deprecations and ``trainops new`` all read it through
the views below, which look the table up at each use:

- :data:`POD_TEMPLATE_SITES`: where PodTemplateSpecs (``{metadata, spec}``) sit in objects of each
  kind, with the restart policies the owning controller allows: what the API server validates.
- :data:`EMBEDDED_OBJECTS`: whole Kubernetes objects embedded in another (Katib ``trialSpec``).
- :data:`POD_SPEC_SITES`: pod specs the API server does not check as such (KServe components and
  serving runtimes, LLMInferenceService, TrainJob patches and ``spec.trainer``/``initializer``,
  LeaderWorkerSet, Ray, Argo Workflow templates, Notebook, v1alpha1 MPIJob...), each a
  :class:`SpecSite` with its extra container slots (KServe ``predictor.model``...), walked by
  :func:`pod_templates` for policy rules only; ``tests/policy/test_pod_walker_crds.py`` checks the table
  against every CRD of ``../shared/crds``.
- :data:`WRAPPED_OBJECTS`: whole objects a wrapper creates (AppWrapper components).
- kind groups (:class:`KindGroup`): :data:`RUN_ONCE`, :data:`TRAINING_JOBS`, :data:`KUBEFLOW_JOBS`,
  :data:`WORKLOADS`, :data:`CLUSTER_SCOPED`, :data:`POD_KINDS`...
- :func:`pod_templates`: every pod spec of an object wherever it nests, with its JSON path, so a
  pod-level rule is written once.

Sources: the Go types of each API (``k8s.io/api``; kubeflow/trainer ``pkg/apis/kubeflow.org/v1``
and ``pkg/apis/trainer/v1alpha1``; kubernetes-sigs/jobset ``api/jobset/v1alpha2``;
kubeflow/katib ``pkg/apis/controller/experiments/v1beta1``; kserve ``pkg/apis/serving/v1beta1``),
cited per entry.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from collections.abc import Set as AbstractSet
from typing import Any, Final, Literal, NamedTuple, TypeVar, cast

from trainops.core.findings import json_path

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


# --- where pod templates nest --------------------------------------------------------------------

#: Restart policies a Job's pods may use (``validateJobSpec``); unset is defaulted to Always first.
JOB_RESTART: Final = frozenset({"OnFailure", "Never"})
#: JobSet defaults an unset restartPolicy of its Jobs' pods to OnFailure (its defaulting webhook).
JOBSET_RESTART: Final = frozenset({"", "OnFailure", "Never"})
#: Deployment, ReplicaSet, StatefulSet, DaemonSet: Always (unset is defaulted to Always).
ALWAYS_RESTART: Final = frozenset({"", "Always"})


class TemplateSite(NamedTuple):
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


class SpecSite(NamedTuple):
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


class HealthScript(NamedTuple):
    """The Argo CD Lua health check trainops ships for a kind (:mod:`trainops.argocd.health`).

    Args:
        script: path of the Lua file under ``trainops/argocd/health/``, e.g.
            ``kubeflow.org/training-job.lua`` (several kinds may share one).
        source: the upstream API the script follows (repository and file of the condition types).
    """

    script: str
    source: str


#: What Argo CD does with a changed object of a kind (DESIGN.md decision 4): ``run-once`` objects
#: are named ``<base>-<hash6>`` from their spec, so a change is a new object (a new run) that is
#: never patched or pruned by a sync; ``long-lived`` objects are patched in place.
Lifecycle = Literal["run-once", "long-lived"]


class KindInfo(NamedTuple):
    """Everything trainops knows about one kind, declared once in :data:`KIND_TABLE`.

    Args:
        group: API group (``""`` for the core group). kind: e.g. ``PyTorchJob``.
        versions: the served versions trainops relies on, newest first (``()``: none needed).
        templates: where its PodTemplateSpecs sit (checked as the API server checks them).
        pod_specs: pod-spec-shaped fields the API server does not check as such (policy rules only).
        embedded: paths of whole Kubernetes objects embedded in it, checked as objects of their own
            kind with ``${…}`` placeholders (Katib ``trialSpec``).
        wrapped: paths of whole objects a wrapper creates as they are (AppWrapper components).
        replica_field: the ``spec`` field holding a Kubeflow v1 job's replica specs
            (``pytorchReplicaSpecs``); ``None`` for other kinds.
        container: the container the operator treats as the training container (Kubeflow v1
            ``<Kind>DefaultContainerName``); ``None`` when it takes the first.
        default_port: the operator adds its default port to :attr:`container` (Training Operator
            ``setDefaultPort``), so Argo CD must ignore the ports there.
        lifecycle: ``run-once`` or ``long-lived`` (:data:`Lifecycle`).
        training: it runs a training (Kubeflow v1 jobs, TrainJob, JobSet).
        suspend: JSON pointer of the field Kueue (or a person) flips to suspend a run-once object.
        health: the Lua health check trainops ships for it, ``None`` when Argo CD has its own or none.
        operators: the ``Cluster.operators`` keys that serve it, any one suffices (``()``: Kubernetes).
        removed: ``(version, operator)`` for each version a release of ``operator`` stopped serving.
        scaffold: the ``trainops new`` kind that scaffolds it (``pytorchjob``), ``None`` if none.
        cluster_scoped: the API server clears ``metadata.namespace`` (``rest.BeforeCreate``); used
            when a schema does not say.
        workload: a long-running workload with a pod template and a selector (kube-linter
            ``DeploymentLike``). selector: its ``spec.selector`` must be non-empty and select
            ``spec.template.metadata.labels``.
        trial: walked inside a Katib trial template although it has no :attr:`templates` (a kind
            Katib runs as a trial: katib ``trialResources``).
        trial_conditions: ``(success, failure)`` condition types Katib's defaulting webhook fills
            in for a trial of this kind (katib ``experiment_defaults.go`` ``setDefaultTrialTemplate``,
            ``DefaultJobSuccessCondition``, ``DefaultKubeflowJobSuccessCondition``,
            ``consts.KubeflowJobKinds``); ``None``: the Experiment must name them.
        wrappable: walked inside an AppWrapper although it has no :attr:`templates` (appwrapper's
            user guide lists it).
    """

    group: str
    kind: str
    versions: tuple[str, ...] = ()
    templates: tuple[TemplateSite, ...] = ()
    pod_specs: tuple[SpecSite, ...] = ()
    embedded: tuple[tuple[str, ...], ...] = ()
    wrapped: tuple[tuple[str, ...], ...] = ()
    replica_field: str | None = None
    container: str | None = None
    default_port: bool = False
    lifecycle: Lifecycle = "long-lived"
    training: bool = False
    suspend: str | None = None
    health: HealthScript | None = None
    operators: tuple[str, ...] = ()
    removed: tuple[tuple[str, str], ...] = ()
    scaffold: str | None = None
    cluster_scoped: bool = False
    workload: bool = False
    selector: bool = False
    trial: bool = False
    trial_conditions: tuple[str, str] | None = None
    wrappable: bool = False

    @property
    def key(self) -> GroupKind:
        """``(group, kind)``."""
        return self.group, self.kind

    @property
    def run_once(self) -> bool:
        """Whether :attr:`lifecycle` is ``run-once``."""
        return self.lifecycle == "run-once"


# --- the table -----------------------------------------------------------------------------------

_JOBSET_JOBS = ("replicatedJobs", EACH_ITEM, "template", "spec", "template")
_JOBSET_CLAIMS = ("volumeClaimPolicies", EACH_ITEM, "templates", EACH_ITEM, "metadata", "name")
_STS_CLAIMS = ("spec", "volumeClaimTemplates", EACH_ITEM, "metadata", "name")
_RUNTIME_SPEC = ("spec", "template", "spec")
_RUNTIME_SITE = TemplateSite(
    (*_RUNTIME_SPEC, *_JOBSET_JOBS), JOBSET_RESTART, ((*_RUNTIME_SPEC, *_JOBSET_CLAIMS),)
)
_TEMPLATE = (TemplateSite(("spec", "template"), ALWAYS_RESTART),)

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


def _lws_templates(*prefix: str) -> tuple[SpecSite, ...]:
    """The leader and worker pod templates of a ``LeaderWorkerSetSpec`` at ``prefix``."""
    return (
        _template(*prefix, "leaderWorkerTemplate", "leaderTemplate"),
        _template(*prefix, "leaderWorkerTemplate", "workerTemplate"),
    )


_LWS = "lws"
_ROLLOUTS = "argo-rollouts"
#: A Job metric's pod template in an analysis (argo-rollouts ``MetricProvider.Job.Spec``).
_ANALYSIS_JOBS = (_template("spec", "metrics", EACH_ITEM, "provider", "job", "spec", "template"),)


def _ray(*prefix: str) -> tuple[SpecSite, ...]:
    return (
        _template(*prefix, "headGroupSpec", "template"),
        _template(*prefix, "workerGroupSpecs", EACH_ITEM, "template"),
    )


_TRAINING_OPERATOR = "training-operator"
_KUBEFLOW_V1 = "kubeflow/training-operator v1.9.0 pkg/apis/kubeflow.org/v1/common_types.go JobConditionType"
_TRAINING_JOB_HEALTH = HealthScript("kubeflow.org/training-job.lua", _KUBEFLOW_V1)
#: Pre-v1 TFJob/PyTorchJob versions, dropped before Training Operator v1.0.0 (tf-operator #868,
#: #933, #1075; kubeflow/katib#635): :mod:`trainops.validate.checks.deprecated_api` cites each.
_PRE_V1 = tuple((v, _TRAINING_OPERATOR) for v in ("v1alpha1", "v1alpha2", "v1beta1", "v1beta2"))


def _kubeflow_job(
    kind: str,
    replica_field: str,
    container: str,
    *,
    versions: tuple[str, ...] = ("v1",),
    operators: tuple[str, ...] = (_TRAINING_OPERATOR,),
    default_port: bool = True,
    health: HealthScript = _TRAINING_JOB_HEALTH,
    removed: tuple[tuple[str, str], ...] = (),
    scaffold: str | None = None,
) -> KindInfo:
    """A Kubeflow v1 job (kubeflow/trainer v1.9 ``pkg/apis/kubeflow.org/v1/<kind>_types.go``): replica
    specs under ``spec.<replica_field>`` whose templates the operator turns into pods (it sets their
    restartPolicy from the replica spec, so the template's is not checked), suspended through
    ``RunPolicy.suspend``, health from the shared ``JobCondition`` check."""
    return KindInfo(
        "kubeflow.org",
        kind,
        versions=versions,
        templates=(TemplateSite(("spec", replica_field, EACH_VALUE, "template")),),
        replica_field=replica_field,
        container=container,
        default_port=default_port,
        lifecycle="run-once",
        training=True,
        suspend="/spec/runPolicy/suspend",
        health=health,
        operators=operators,
        removed=removed,
        scaffold=scaffold,
        trial_conditions=("Succeeded", "Failed"),
    )


def _cluster(group: str, kind: str) -> KindInfo:
    return KindInfo(group, kind, cluster_scoped=True)


_MONITORING = "monitoring.coreos.com"
_KSERVE = ("kserve",)
_KUEUE = "kueue.x-k8s.io"
_RESOURCE = "resource.k8s.io"

#: Every kind trainops knows something about, in the order its derived tables list them: the
#: Lua health checks are emitted in this order, and exported policies group kinds in it.
_TABLE: Final[tuple[KindInfo, ...]] = (
    # --- Kubernetes workloads (k8s.io/api core/v1, apps/v1, batch/v1) ---
    KindInfo("", "Pod", ("v1",), templates=(TemplateSite(()),)),
    KindInfo("", "PodTemplate", ("v1",), templates=(TemplateSite(("template",)),)),
    KindInfo("", "ReplicationController", ("v1",), templates=_TEMPLATE, workload=True),
    KindInfo(
        "apps", "Deployment", ("v1",), templates=_TEMPLATE, workload=True, selector=True, scaffold="serving"
    ),
    KindInfo("apps", "ReplicaSet", ("v1",), templates=_TEMPLATE, workload=True, selector=True),
    KindInfo(
        "apps",
        "StatefulSet",
        ("v1",),
        templates=(TemplateSite(("spec", "template"), ALWAYS_RESTART, (_STS_CLAIMS,)),),
        workload=True,
        selector=True,
    ),
    KindInfo("apps", "DaemonSet", ("v1",), templates=_TEMPLATE, workload=True, selector=True),
    KindInfo(
        "batch",
        "Job",
        ("v1",),
        templates=(TemplateSite(("spec", "template"), JOB_RESTART),),
        lifecycle="run-once",
        suspend="/spec/suspend",
        trial_conditions=("Complete", "Failed"),
    ),
    KindInfo(
        "batch",
        "CronJob",
        ("v1",),
        templates=(TemplateSite(("spec", "jobTemplate", "spec", "template"), JOB_RESTART),),
    ),
    # --- Training Operator v1 (kubeflow/trainer v1.9) and mpi-operator v2beta1 jobs ---
    _kubeflow_job("PyTorchJob", "pytorchReplicaSpecs", "pytorch", removed=_PRE_V1, scaffold="pytorchjob"),
    _kubeflow_job("TFJob", "tfReplicaSpecs", "tensorflow", removed=_PRE_V1, scaffold="tfjob"),
    _kubeflow_job("XGBoostJob", "xgbReplicaSpecs", "xgboost", scaffold="xgboostjob"),
    _kubeflow_job("PaddleJob", "paddleReplicaSpecs", "paddle"),
    _kubeflow_job("JAXJob", "jaxReplicaSpecs", "jax"),
    # mpi-operator v2beta1 uses ``mpiReplicaSpecs`` too and takes the first container (Training
    # Operator v1: ``mpi``); neither adds a default port. v1alpha1 has one ``spec.template`` for
    # launcher and workers (mpi-operator ``pkg/apis/kubeflow/v1alpha1/types.go``); v1alpha1 and
    # v1alpha2 were removed in mpi-operator v0.4.0 (kubeflow/mpi-operator#438).
    _kubeflow_job(
        "MPIJob",
        "mpiReplicaSpecs",
        "mpi",
        versions=("v2beta1", "v1"),
        operators=("mpi-operator", _TRAINING_OPERATOR),
        default_port=False,
        health=HealthScript(
            "kubeflow.org/training-job.lua",
            _KUBEFLOW_V1 + "; kubeflow/mpi-operator pkg/apis/kubeflow/v2beta1/types.go JobConditionType",
        ),
        removed=(("v1alpha1", "mpi-operator"), ("v1alpha2", "mpi-operator")),
        scaffold="mpijob",
    )._replace(pod_specs=(_template("spec", "template"),)),
    # --- JobSet (kubernetes-sigs/jobset api/jobset/v1alpha2) and Trainer v2 runtimes ---
    KindInfo(
        "jobset.x-k8s.io",
        "JobSet",
        ("v1alpha2",),
        templates=(TemplateSite(("spec", *_JOBSET_JOBS), JOBSET_RESTART, (("spec", *_JOBSET_CLAIMS),)),),
        lifecycle="run-once",
        training=True,
        suspend="/spec/suspend",
        operators=("jobset",),
    ),
    KindInfo(
        "trainer.kubeflow.org",
        "TrainingRuntime",
        ("v1alpha1",),
        templates=(_RUNTIME_SITE,),
        operators=("trainer",),
    ),
    KindInfo(
        "trainer.kubeflow.org",
        "ClusterTrainingRuntime",
        ("v1alpha1",),
        templates=(_RUNTIME_SITE,),
        operators=("trainer",),
        cluster_scoped=True,
    ),
    # --- Katib (kubeflow/katib pkg/apis/controller/experiments/v1beta1): trial templates ---
    KindInfo(
        "kubeflow.org",
        "Experiment",
        ("v1beta1",),
        embedded=(("spec", "trialTemplate", "trialSpec"),),
        lifecycle="run-once",
        health=HealthScript(
            "kubeflow.org/Experiment.lua",
            "kubeflow/katib pkg/apis/controller/experiments/v1beta1/experiment_types.go ExperimentConditionType",
        ),
        operators=("katib",),
        scaffold="katib",
    ),
    KindInfo("kubeflow.org", "Trial", ("v1beta1",), embedded=(("spec", "runSpec"),), operators=("katib",)),
    # --- pod specs the API server does not check as such (policy rules only) ---
    # KServe components inline a ``PodSpec`` plus one container field (kserve ``component.go``,
    # ``predictor.go``); ``workerSpec`` is the multi-node worker pod (``WorkerSpec``).
    KindInfo(
        "serving.kserve.io",
        "InferenceService",
        ("v1beta1",),
        pod_specs=(
            SpecSite(("spec", "predictor"), slots=_PREDICTOR_SLOTS),
            SpecSite(("spec", "transformer")),
            SpecSite(("spec", "explainer"), slots=tuple((name,) for name in _EXPLAINER_CONTAINERS)),
            SpecSite(("spec", "predictor", "workerSpec")),
            SpecSite(("spec", "canary", EACH_ITEM, "predictor"), slots=_PREDICTOR_SLOTS),
            SpecSite(("spec", "canary", EACH_ITEM, "predictor", "workerSpec")),
        ),
        operators=_KSERVE,
        scaffold="kserve",
    ),
    # ``ServingRuntimeSpec`` inlines a ``ServingRuntimePodSpec`` (kserve ``servingruntime_types.go``).
    KindInfo("serving.kserve.io", "ServingRuntime", pod_specs=_SERVING_RUNTIME_SITES, operators=_KSERVE),
    KindInfo(
        "serving.kserve.io",
        "ClusterServingRuntime",
        pod_specs=_SERVING_RUNTIME_SITES,
        operators=_KSERVE,
        cluster_scoped=True,
    ),
    # ``LLMInferenceServiceSpec``: ``template``/``worker``/``prefill``/``router.scheduler.template``
    # are ``PodSpec`` s (kserve ``pkg/apis/serving/v1alpha1/llm_inference_service_types.go``).
    KindInfo("serving.kserve.io", "LLMInferenceService", pod_specs=_LLM_SITES, operators=_KSERVE),
    KindInfo("serving.kserve.io", "LLMInferenceServiceConfig", pod_specs=_LLM_SITES, operators=_KSERVE),
    # ``ClusterStorageContainer.spec.container``: the storage initializer (kserve ``storage_container_types.go``).
    KindInfo(
        "serving.kserve.io",
        "ClusterStorageContainer",
        pod_specs=(SpecSite(("spec", "container"), partial=True, slots=((),)),),
        operators=_KSERVE,
        cluster_scoped=True,
    ),
    # Trainer v2 (kubeflow/trainer ``pkg/apis/trainer/v1alpha1/trainjob_types.go``): pods come from the
    # runtime; the TrainJob patches them and overrides the runtime's containers with ``Trainer`` and
    # ``DatasetInitializer``/``ModelInitializer``.
    KindInfo(
        "trainer.kubeflow.org",
        "TrainJob",
        ("v1alpha1",),
        pod_specs=(
            SpecSite(("spec", "podTemplateOverrides", EACH_ITEM, "spec"), partial=True),  # Trainer v2.0-v2.2
            SpecSite(
                ("spec", "runtimePatches", EACH_ITEM, *_PATCHED_JOBS, "template", "spec"), partial=True
            ),  # v2.3
            SpecSite(("spec", "trainer"), partial=True, slots=((),)),
            SpecSite(("spec", "initializer", "dataset"), partial=True, slots=((),)),
            SpecSite(("spec", "initializer", "model"), partial=True, slots=((),)),
        ),
        lifecycle="run-once",
        training=True,
        suspend="/spec/suspend",
        health=HealthScript(
            "trainer.kubeflow.org/TrainJob.lua",
            "kubeflow/trainer v2.3.0 pkg/apis/trainer/v1alpha1/trainjob_types.go TrainJob conditions",
        ),
        operators=("trainer",),
        trial=True,
        trial_conditions=("Complete", "Failed"),
    ),
    # Argo CD ``Application``: the check Argo CD removed in v1.8, restored so that the root
    # Application's sync waves wait for the platform Applications (:mod:`trainops.synth.delivery`).
    KindInfo(
        "argoproj.io",
        "Application",
        ("v1alpha1",),
        health=HealthScript(
            "argoproj.io/Application.lua",
            "argoproj/argo-cd v3.5.1 docs/operator-manual/health.md (Argocd App); trainops' root Application",
        ),
        operators=("argo-cd",),
    ),
    # Seldon Core v1 ``PredictorSpec.ComponentSpecs[].Spec`` and ``Explainer.ContainerSpec``
    # (seldon-core ``seldondeployment_types.go``).
    KindInfo(
        "machinelearning.seldon.io",
        "SeldonDeployment",
        pod_specs=(
            SpecSite(("spec", "predictors", EACH_ITEM, "componentSpecs", EACH_ITEM, "spec")),
            SpecSite(
                ("spec", "predictors", EACH_ITEM, "explainer"), partial=True, slots=(("containerSpec",),)
            ),
        ),
    ),
    # KubeRay ``HeadGroupSpec``/``WorkerGroupSpec`` templates (ray-project/kuberay ``raycluster_types.go``,
    # ``rayjob_types.go``, ``rayservice_types.go``).
    KindInfo("ray.io", "RayCluster", pod_specs=_ray("spec"), wrappable=True),
    KindInfo("ray.io", "RayJob", pod_specs=_ray("spec", "rayClusterSpec"), trial=True, wrappable=True),
    KindInfo("ray.io", "RayService", pod_specs=_ray("spec", "rayClusterConfig")),
    # LeaderWorkerSet ``LeaderWorkerTemplate`` (kubernetes-sigs/lws v0.10.0 ``api/leaderworkerset/v1``).
    KindInfo(
        "leaderworkerset.x-k8s.io",
        "LeaderWorkerSet",
        ("v1",),
        pod_specs=_lws_templates("spec"),
        operators=(_LWS,),
        wrappable=True,
        health=HealthScript(
            "leaderworkerset.x-k8s.io/LeaderWorkerSet.lua",
            "kubernetes-sigs/lws v0.10.0 api/leaderworkerset/v1/leaderworkerset_types.go LeaderWorkerSet conditions",
        ),
    ),
    # DisaggregatedSet: one LeaderWorkerSet spec per role (prefill, decode...), and the scaler of a
    # role (kubernetes-sigs/lws v0.10.0 ``api/disaggregatedset/v1``).
    KindInfo(
        "disaggregatedset.x-k8s.io",
        "DisaggregatedSet",
        ("v1",),
        pod_specs=_lws_templates("spec", "roles", EACH_ITEM, "spec"),
        operators=(_LWS,),
    ),
    KindInfo("disaggregatedset.x-k8s.io", "DisaggregatedSetRoleScaler", ("v1",), operators=(_LWS,)),
    # Argo Rollouts (argoproj/argo-rollouts v1.9.1 ``pkg/apis/rollouts/v1alpha1/types.go``,
    # ``analysis_types.go``, ``experiment_types.go``): the Rollout's ``template`` becomes its
    # ReplicaSets' pods, an Experiment's ``templates[].template`` those of its ReplicaSets, and a Job
    # metric (``MetricProvider.Job``) runs a ``batch/v1`` JobSpec. The controller, not the API server,
    # checks them (there is no admission webhook). Argo CD has built-in health checks for Rollout,
    # AnalysisRun and Experiment (``resource_customizations/argoproj.io``).
    KindInfo(
        "argoproj.io",
        "Rollout",
        ("v1alpha1",),
        pod_specs=(_template("spec", "template"),),
        operators=(_ROLLOUTS,),
    ),
    KindInfo(
        "argoproj.io",
        "Experiment",
        ("v1alpha1",),
        pod_specs=(_template("spec", "templates", EACH_ITEM, "template"),),
        operators=(_ROLLOUTS,),
    ),
    KindInfo(
        "argoproj.io", "AnalysisTemplate", ("v1alpha1",), pod_specs=_ANALYSIS_JOBS, operators=(_ROLLOUTS,)
    ),
    KindInfo(
        "argoproj.io",
        "ClusterAnalysisTemplate",
        ("v1alpha1",),
        pod_specs=_ANALYSIS_JOBS,
        operators=(_ROLLOUTS,),
        cluster_scoped=True,
    ),
    KindInfo("argoproj.io", "AnalysisRun", ("v1alpha1",), pod_specs=_ANALYSIS_JOBS, operators=(_ROLLOUTS,)),
    # Kubeflow Notebook ``NotebookSpec.Template`` (kubeflow/kubeflow ``notebook_types.go``).
    KindInfo("kubeflow.org", "Notebook", pod_specs=(_template("spec", "template"),)),
    # Knative Serving ``Service.spec.template`` (a ``RevisionTemplateSpec``; knative/serving ``service_types.go``).
    KindInfo("serving.knative.dev", "Service", pod_specs=(_template("spec", "template"),)),
    # agent-sandbox ``SandboxSpec.PodTemplate`` (kubernetes-sigs/agent-sandbox ``sandbox_types.go``).
    KindInfo("agents.x-k8s.io", "Sandbox", pod_specs=(_template("spec", "podTemplate"),)),
    # Kueue ``Workload.spec.podSets[].template`` (kueue ``apis/kueue/v1beta1/workload_types.go``).
    KindInfo(
        _KUEUE,
        "Workload",
        pod_specs=(_template("spec", "podSets", EACH_ITEM, "template"),),
        health=HealthScript(
            "kueue.x-k8s.io/Workload.lua",
            "kubernetes-sigs/kueue apis/kueue/v1beta2/workload_types.go Workload conditions",
        ),
        operators=("kueue",),
    ),
    # Gang-scheduler PodGroups (volcano-sh/volcano v1.15.1 ``scheduling.volcano.sh/v1beta1``,
    # kubernetes-sigs/scheduler-plugins v0.34.7 ``scheduling.x-k8s.io/v1alpha1``): one per run of a
    # gang-scheduled job, named as the run (:mod:`trainops.core.gang`).
    *(
        KindInfo(group, "PodGroup", (version,), lifecycle="run-once", operators=("podgroup",))
        for group, version in (("scheduling.volcano.sh", "v1beta1"), ("scheduling.x-k8s.io", "v1alpha1"))
    ),
    KindInfo("argoproj.io", "Workflow", pod_specs=_argo("spec"), trial=True),
    KindInfo("argoproj.io", "WorkflowTemplate", pod_specs=_argo("spec")),
    KindInfo("argoproj.io", "ClusterWorkflowTemplate", pod_specs=_argo("spec")),
    KindInfo("argoproj.io", "CronWorkflow", pod_specs=_argo("spec", "workflowSpec")),
    # prometheus-operator: ``containers``/``initContainers`` of Prometheus, Alertmanager, ThanosRuler
    # and PrometheusAgent are strategic-merge patches of the operator's pod (``CommonPrometheusFields``).
    *(
        KindInfo(
            _MONITORING,
            kind,
            pod_specs=(SpecSite(("spec",), partial=True),),
            operators=("prometheus-operator",),
        )
        for kind in ("Prometheus", "PrometheusAgent", "Alertmanager", "ThanosRuler")
    ),
    # AppWrapper ``spec.components[].template`` (project-codeflare/appwrapper
    # ``api/v1beta2/appwrapper_types.go``), e.g. a LeaderWorkerSet or a PyTorchJob queued by Kueue.
    KindInfo(
        "workload.codeflare.dev", "AppWrapper", wrapped=(("spec", "components", EACH_ITEM, "template"),)
    ),
    # --- other cluster-scoped kinds (used when a schema does not say) ---
    _cluster("", "Namespace"),
    _cluster("", "Node"),
    _cluster("", "PersistentVolume"),
    _cluster("rbac.authorization.k8s.io", "ClusterRole"),
    _cluster("rbac.authorization.k8s.io", "ClusterRoleBinding"),
    _cluster("storage.k8s.io", "StorageClass"),
    _cluster("storage.k8s.io", "CSIDriver"),
    _cluster("scheduling.k8s.io", "PriorityClass"),
    _cluster("apiextensions.k8s.io", "CustomResourceDefinition"),
    _cluster("admissionregistration.k8s.io", "ValidatingWebhookConfiguration"),
    _cluster("admissionregistration.k8s.io", "MutatingWebhookConfiguration"),
    _cluster("admissionregistration.k8s.io", "ValidatingAdmissionPolicy"),
    _cluster("admissionregistration.k8s.io", "ValidatingAdmissionPolicyBinding"),
    _cluster("policy", "PodSecurityPolicy"),
    # Dynamic Resource Allocation (k8s.io/api resource/v1, GA in 1.34): DeviceClass, ResourceSlice and
    # DeviceTaintRule are cluster-scoped; ResourceClaim and ResourceClaimTemplate are namespaced and
    # hold a claim spec, no pod template (``pkg/registry/resource/*/strategy.go`` ``NamespaceScoped``).
    *(_cluster(_RESOURCE, kind) for kind in ("DeviceClass", "ResourceSlice", "DeviceTaintRule")),
    KindInfo(_RESOURCE, "ResourceClaim", ("v1",)),
    KindInfo(_RESOURCE, "ResourceClaimTemplate", ("v1",)),
    *(
        _cluster(_KUEUE, kind)
        for kind in (
            "ClusterQueue",
            "ResourceFlavor",
            "Cohort",
            "AdmissionCheck",
            "MultiKueueCluster",
            "MultiKueueConfig",
            "ProvisioningRequestConfig",
            "Topology",
            "WorkloadPriorityClass",
        )
    ),
)


def registry(table: Iterable[KindInfo]) -> dict[GroupKind, KindInfo]:
    """``table`` keyed by ``(group, kind)``, in table order.

    Raises:
        ValueError: a kind is declared twice.
    """
    found: dict[GroupKind, KindInfo] = {}
    for info in table:
        if info.key in found:
            raise ValueError(f"kind {info.group}/{info.kind} is declared twice in the kinds table")
        found[info.key] = info
    return found


#: The kinds table: ``(group, kind)`` → :class:`KindInfo`. Everything below is a live view of it, so
#: a kind added here (or, in a test, with ``monkeypatch.setitem``) is validated, walked, delivered and
#: health-checked everywhere.
KIND_TABLE: Final[dict[GroupKind, KindInfo]] = registry(_TABLE)


def info_of(key: GroupKind | None) -> KindInfo | None:
    """The :class:`KindInfo` of ``key`` (e.g. :func:`group_kind` of a document), ``None`` when unknown."""
    return KIND_TABLE.get(key) if key is not None else None


# --- views of the table --------------------------------------------------------------------------


class KindGroup(AbstractSet[GroupKind]):
    """The kinds of :data:`KIND_TABLE` whose :class:`KindInfo` passes ``test``: a set looked up in the table
    at each use (``in``, iteration), so it never goes stale. ``|``/``-`` give plain frozensets.

    Args:
        test: the predicate on a :class:`KindInfo`.
    """

    __slots__ = ("_test",)

    def __init__(self, test: Callable[[KindInfo], bool]) -> None:
        self._test = test

    def __contains__(self, key: object) -> bool:
        info = KIND_TABLE.get(key) if isinstance(key, tuple) else None
        return info is not None and self._test(info)

    def __iter__(self) -> Iterator[GroupKind]:
        return iter([key for key, info in KIND_TABLE.items() if self._test(info)])

    def __len__(self) -> int:
        return sum(1 for info in KIND_TABLE.values() if self._test(info))

    @classmethod
    def _from_iterable(cls, it: Iterable[GroupKind]) -> frozenset[GroupKind]:  # type: ignore[override]
        return frozenset(it)

    def __repr__(self) -> str:
        return f"KindGroup({sorted(self)!r})"


_V = TypeVar("_V")


class KindTable(Mapping[GroupKind, tuple[_V, ...]]):
    """One field of the :class:`KindInfo` of the kinds where it is not empty, looked up in
    :data:`KIND_TABLE` at each use (``.get(key, ())``, iteration in table order).

    Args:
        field: the :class:`KindInfo` attribute, a tuple (e.g. ``templates``).
    """

    __slots__ = ("_field",)

    def __init__(self, field: str) -> None:
        self._field = field

    def get(self, key: object, default: Any = None) -> Any:
        info = KIND_TABLE.get(key) if isinstance(key, tuple) else None
        value = getattr(info, self._field) if info is not None else None
        return value if value else default

    def __getitem__(self, key: GroupKind) -> tuple[_V, ...]:
        value = self.get(key)
        if value is None:
            raise KeyError(key)
        return cast("tuple[_V, ...]", value)

    def __contains__(self, key: object) -> bool:
        return self.get(key) is not None

    def __iter__(self) -> Iterator[GroupKind]:
        return iter([key for key, info in KIND_TABLE.items() if getattr(info, self._field)])

    def __len__(self) -> int:
        return sum(1 for info in KIND_TABLE.values() if getattr(info, self._field))


class _KubeflowNames(Mapping[str, str]):
    """A :class:`KindInfo` field of the ``kubeflow.org`` kinds by kind name, where ``value`` gives one,
    looked up in :data:`KIND_TABLE` at each use."""

    __slots__ = ("_value",)

    def __init__(self, value: Callable[[KindInfo], str | None]) -> None:
        self._value = value

    def __getitem__(self, kind: str) -> str:
        info = KIND_TABLE.get(("kubeflow.org", kind))
        found = self._value(info) if info is not None else None
        if found is None:
            raise KeyError(kind)
        return found

    def __iter__(self) -> Iterator[str]:
        return iter(
            [i.kind for i in KIND_TABLE.values() if i.group == "kubeflow.org" and self._value(i) is not None]
        )

    def __len__(self) -> int:
        return len(list(iter(self)))


#: Kubeflow v1 jobs (``kubeflow.org``) → the field holding their replica specs
#: (kubeflow/trainer v1.9 ``pkg/apis/kubeflow.org/v1/*_types.go``; mpi-operator v2beta1 MPIJob).
REPLICA_SPECS_FIELD: Final[Mapping[str, str]] = _KubeflowNames(lambda info: info.replica_field)
#: Kubeflow v1 jobs → the container the operator treats as the training container
#: (``PyTorchJobDefaultContainerName`` and siblings; mpi-operator v2beta1 takes the first, v1 ``mpi``).
TRAINING_CONTAINER: Final[Mapping[str, str]] = _KubeflowNames(lambda info: info.container)
#: Kubeflow v1 jobs → the container the Training Operator adds its default port to (``setDefaultPort``;
#: MPIJob has no default port).
DEFAULT_PORT_CONTAINER: Final[Mapping[str, str]] = _KubeflowNames(
    lambda info: info.container if info.default_port else None
)
#: Kubeflow v1 jobs (``kubeflow.org``), each with replica specs.
KUBEFLOW_JOBS: Final = KindGroup(lambda info: info.replica_field is not None)
#: Everything that runs a training: Kubeflow v1 jobs, Trainer v2 TrainJob, JobSet.
TRAINING_JOBS: Final = KindGroup(lambda info: info.training)
#: Run-once objects: a changed spec must be a new object (content-hash name), never a patch.
RUN_ONCE: Final = KindGroup(lambda info: info.run_once)
#: Long-running workloads with a pod template and a selector (kube-linter ``DeploymentLike``).
WORKLOADS: Final = KindGroup(lambda info: info.workload)
#: Workloads whose ``spec.selector`` must be non-empty and select ``spec.template.metadata.labels``.
SELECTOR_WORKLOADS: Final = KindGroup(lambda info: info.selector)
#: Cluster-scoped kinds (used when a schema does not say).
CLUSTER_SCOPED: Final = KindGroup(lambda info: info.cluster_scoped)
#: Kinds trainops ships an Argo CD health check for.
HEALTH_CHECKED: Final = KindGroup(lambda info: info.health is not None)

#: (API group, kind) → pod template locations (:attr:`KindInfo.templates`).
POD_TEMPLATE_SITES: Final[KindTable[TemplateSite]] = KindTable("templates")
#: (API group, kind) → pod-spec-shaped fields for policy rules only (:attr:`KindInfo.pod_specs`);
#: ``tests/policy/test_pod_walker_crds.py`` checks them against every CRD of ``../shared/crds``: each schema
#: node shaped like a PodSpec or a Container must be reached.
POD_SPEC_SITES: Final[KindTable[SpecSite]] = KindTable("pod_specs")
#: (API group, kind) → paths of embedded Kubernetes objects (:attr:`KindInfo.embedded`), checked as
#: objects of their own kind (their templates, selectors), with ``${…}`` placeholders skipped.
EMBEDDED_OBJECTS: Final[KindTable[tuple[str, ...]]] = KindTable("embedded")
#: (API group, kind) → paths of whole objects a wrapper creates as they are (:attr:`KindInfo.wrapped`),
#: walked for policy rules only.
WRAPPED_OBJECTS: Final[KindTable[tuple[str, ...]]] = KindTable("wrapped")
#: Kinds whose objects are walked inside a Katib trial template (``trialSpec``, Trial ``runSpec``):
#: those Katib runs as trials (Job, Kubeflow and JobSet jobs, Trainer, Argo Workflows, Ray; katib
#: ``trialResources``). Serving kinds are left out: never trials, and their paths would multiply the
#: size of every exported Experiment policy.
TRIAL_KINDS: Final = KindGroup(lambda info: bool(info.templates) or info.trial)
#: Kinds whose objects are walked inside a wrapper: what AppWrapper wraps (Kubernetes workloads,
#: Kubeflow and JobSet jobs, Trainer runtimes, Ray, LeaderWorkerSet; appwrapper's user guide). Others
#: are left out: their paths nest too deep for the CEL parsers (a nesting bound of 32) inside a wrapper.
WRAPPABLE_KINDS: Final = KindGroup(lambda info: bool(info.templates) or info.wrappable)
#: Every kind with a pod spec somewhere (the ``KINDS`` of pod-level rules).
POD_KINDS: Final = KindGroup(
    lambda info: bool(info.templates or info.pod_specs or info.embedded or info.wrapped)
)


def walk(node: Any, path: tuple[str, ...], parts: Parts = ()) -> Iterator[tuple[Any, Parts]]:
    """Every non-null value at ``path`` below ``node`` (``"*"``/``"[]"`` as in :class:`TemplateSite`),
    with its parts from the root (``parts`` prefixes them). Plain keys are followed in a loop; only
    ``"*"``/``"[]"`` recurse (most paths have none)."""
    for depth, step in enumerate(path):
        if step == EACH_VALUE:
            if isinstance(node, dict):
                parts, rest = (*parts, *path[:depth]), path[depth + 1 :]
                for child_key, child in node.items():
                    yield from walk(child, rest, (*parts, child_key))
            return
        if step == EACH_ITEM:
            if isinstance(node, list):
                parts, rest = (*parts, *path[:depth]), path[depth + 1 :]
                for index, child in enumerate(node):
                    yield from walk(child, rest, (*parts, index))
            return
        if not isinstance(node, dict):
            return
        node = node.get(step)
    if node is not None:
        yield node, (*parts, *path)


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


class PodSite(NamedTuple):
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
    info = KIND_TABLE.get(key) if key is not None else None
    if key is None or info is None:
        return
    for site in info.templates:
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
    for spec_site in info.pod_specs:
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
    for path in info.embedded:
        for nested, parts in walk(obj, path, base):
            if group_kind(nested) in TRIAL_KINDS:
                _collect(nested, parts, sites, templated=True)
    for path in info.wrapped:
        for nested, parts in walk(obj, path, base):
            if group_kind(nested) in WRAPPABLE_KINDS:
                _collect(nested, parts, sites, templated=templated)
