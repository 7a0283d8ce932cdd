"""Every upstream example under ../shared/examples is classified (issue: real input).

A file not listed here must validate with no error at Kubernetes 1.34 with every catalogued
operator assumed. A listed file must fail, and the output must contain the listed finding
(``$.path: message``); the category says why upstream input is not valid as-is.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import EXAMPLES, needs_shared
from trainops.schemas.registry import SchemaRegistry
from trainops.validate.engine import ValidateOptions, validate_files

pytestmark = needs_shared

#: A Markdown code block showing part of an object (``...``, no metadata, only the changed fields).
SNIPPET = "documentation snippet, not a complete object"
#: Uses an apiVersion the target (Kubernetes 1.34, current operators) no longer serves.
REMOVED_API = "removed apiVersion"
#: A kind whose CRD is not in schemas/catalog.yaml (Knative, Ray, Tekton, kind configs, ...).
CRD_NOT_CATALOGUED = "kind outside the catalog"
#: A ``{placeholder}``-style value (``{username}``, ``<name>``) that breaks the YAML or its types.
PLACEHOLDER = "placeholder left for the reader"
#: Not a Kubernetes object (a Prometheus rules file, a generator's elements file).
NOT_AN_OBJECT = "not a Kubernetes object"
#: A strategic-merge patch for kustomize, not a complete object.
PATCH = "kustomize patch, not a complete object"
#: A real mistake the API server would reject (float CPU in a CRD, int in Secret stringData, ...).
UPSTREAM_MISTAKE = "upstream mistake the API server rejects"
#: A credential written into the manifest (a demo password or key), which a GitOps repository must not hold.
LITERAL_CREDENTIAL = "literal credential in a committed manifest"

EXPECTED: dict[str, tuple[str, str]] = {
    "k8s-website/content/en/examples/application/job/rabbitmq/job.yaml": (
        LITERAL_CREDENTIAL,
        "$.spec.template.spec.containers[0].env[0].value: env BROKER_URL holds a literal Basic Auth Credentials",
    ),
    "k8s-website/content/en/examples/application/mysql/mysql-deployment.yaml": (
        LITERAL_CREDENTIAL,
        "$.spec.template.spec.containers[0].env[0].value: env MYSQL_ROOT_PASSWORD holds a literal credential",
    ),
    "kserve/docs/samples/kafka/minio.yaml": (
        LITERAL_CREDENTIAL,
        "$.spec.template.spec.containers[0].env[1].value: env MINIO_SECRET_KEY holds a literal credential",
    ),
    "kserve/docs/samples/kafka/s3_secret.yaml": (
        LITERAL_CREDENTIAL,
        "$.data.AWS_SECRET_ACCESS_KEY: Secret key AWS_SECRET_ACCESS_KEY holds a literal credential",
    ),
    "kserve/docs/samples/multimodelserving/triton/s3_secret.yaml": (
        LITERAL_CREDENTIAL,
        "$.data.AWS_SECRET_ACCESS_KEY: Secret key AWS_SECRET_ACCESS_KEY holds a literal credential",
    ),
    "kserve/docs/samples/storage/s3/s3_secret.yaml": (
        LITERAL_CREDENTIAL,
        "$.data.AWS_SECRET_ACCESS_KEY: Secret key AWS_SECRET_ACCESS_KEY holds a literal credential",
    ),
    "argo-cd-docs-snippets/docs/operator-manual/app-any-namespace.md.block-04.yaml": (
        SNIPPET,
        '$.spec: missing required field "destination"',
    ),
    "argo-cd-docs-snippets/docs/operator-manual/app-sync-using-impersonation.md.block-04.yaml": (
        SNIPPET,
        "$.spec.destinations[0]: expected object, got string '*'",
    ),
    "argo-cd-docs-snippets/docs/operator-manual/applicationset/Appset-Any-Namespace.md.block-08.yaml": (
        SNIPPET,
        "$.spec.generators: expected array, got object {'list': [{'name': 'infra', 'project': 'infra-project'}, {'…",
    ),
    "argo-cd-docs-snippets/docs/operator-manual/applicationset/Controlling-Resource-Modification.md.block-02.yaml": (
        SNIPPET,
        '$: missing required field "metadata"',
    ),
    "argo-cd-docs-snippets/docs/operator-manual/applicationset/Controlling-Resource-Modification.md.block-04.yaml": (
        SNIPPET,
        '$: missing required field "spec"',
    ),
    "argo-cd-docs-snippets/docs/operator-manual/applicationset/Controlling-Resource-Modification.md.block-06.yaml": (
        SNIPPET,
        '$: missing required field "metadata"',
    ),
    "argo-cd-docs-snippets/docs/operator-manual/applicationset/Controlling-Resource-Modification.md.block-09.yaml": (
        SNIPPET,
        '$: missing required field "metadata"',
    ),
    "argo-cd-docs-snippets/docs/operator-manual/applicationset/Controlling-Resource-Modification.md.block-10.yaml": (
        SNIPPET,
        '$: missing required field "metadata"',
    ),
    "argo-cd-docs-snippets/docs/operator-manual/applicationset/Generators-Cluster.md.block-03.yaml": (
        SNIPPET,
        '$.spec: missing required field "template"',
    ),
    "argo-cd-docs-snippets/docs/operator-manual/applicationset/Generators-Cluster.md.block-10.yaml": (
        SNIPPET,
        '$.spec: missing required field "destination"',
    ),
    "argo-cd-docs-snippets/docs/operator-manual/applicationset/Generators-Plugin.md.block-05.yaml": (
        SNIPPET,
        "$.spec.generators[0].matrix.generators[0].pullRequest.github: expected object, got string '...'",
    ),
    "argo-cd-docs-snippets/docs/operator-manual/applicationset/Generators-Pull-Request.md.block-01.yaml": (
        SNIPPET,
        '$.spec: missing required field "template"',
    ),
    "argo-cd-docs-snippets/docs/operator-manual/applicationset/Generators-Pull-Request.md.block-03.yaml": (
        SNIPPET,
        '$.spec: missing required field "template"',
    ),
    "argo-cd-docs-snippets/docs/operator-manual/applicationset/Generators-Pull-Request.md.block-05.yaml": (
        SNIPPET,
        '$.spec: missing required field "template"',
    ),
    "argo-cd-docs-snippets/docs/operator-manual/applicationset/Generators-Pull-Request.md.block-07.yaml": (
        SNIPPET,
        '$.spec: missing required field "template"',
    ),
    "argo-cd-docs-snippets/docs/operator-manual/applicationset/Generators-SCM-Provider.md.block-02.yaml": (
        SNIPPET,
        '$.spec: missing required field "template"',
    ),
    "argo-cd-docs-snippets/docs/operator-manual/applicationset/Generators-SCM-Provider.md.block-04.yaml": (
        SNIPPET,
        '$.spec: missing required field "template"',
    ),
    "argo-cd-docs-snippets/docs/operator-manual/applicationset/Generators-SCM-Provider.md.block-06.yaml": (
        SNIPPET,
        '$.spec: missing required field "template"',
    ),
    "argo-cd-docs-snippets/docs/operator-manual/applicationset/Generators-SCM-Provider.md.block-08.yaml": (
        SNIPPET,
        '$.spec: missing required field "template"',
    ),
    "argo-cd-docs-snippets/docs/operator-manual/cluster-bootstrapping.md.block-05.yaml": (
        SNIPPET,
        "$.spec: expected object, got string '...'",
    ),
    "argo-cd-docs-snippets/docs/operator-manual/config-management-plugins.md.block-10.yaml": (
        SNIPPET,
        '$.spec: missing required field "destination"',
    ),
    "argo-cd-docs-snippets/docs/operator-manual/high_availability.md.block-06.yaml": (
        SNIPPET,
        '$.spec: missing required field "destination"',
    ),
    "argo-cd-docs-snippets/docs/operator-manual/high_availability.md.block-08.yaml": (
        SNIPPET,
        '$.spec: missing required field "destination"',
    ),
    "argo-cd-docs-snippets/docs/operator-manual/notifications/index.md.block-05.yaml": (
        SNIPPET,
        '$: missing required field "spec"',
    ),
    "argo-cd-docs-snippets/docs/operator-manual/notifications/services/googlechat.md.block-03.yaml": (
        SNIPPET,
        '$: missing required field "spec"',
    ),
    "argo-cd-docs-snippets/docs/operator-manual/notifications/services/mattermost.md.block-03.yaml": (
        SNIPPET,
        '$: missing required field "spec"',
    ),
    "argo-cd-docs-snippets/docs/operator-manual/notifications/services/opsgenie.md.block-02.yaml": (
        SNIPPET,
        '$: missing required field "spec"',
    ),
    "argo-cd-docs-snippets/docs/operator-manual/notifications/services/pushover.md.block-03.yaml": (
        SNIPPET,
        '$: missing required field "spec"',
    ),
    "argo-cd-docs-snippets/docs/operator-manual/notifications/services/teams-workflows.md.block-03.yaml": (
        SNIPPET,
        '$: missing required field "spec"',
    ),
    "argo-cd-docs-snippets/docs/operator-manual/notifications/services/telegram.md.block-02.yaml": (
        SNIPPET,
        '$: missing required field "spec"',
    ),
    "argo-cd-docs-snippets/docs/operator-manual/notifications/services/telegram.md.block-04.yaml": (
        SNIPPET,
        '$: missing required field "spec"',
    ),
    "argo-cd-docs-snippets/docs/operator-manual/notifications/services/webhook.md.block-03.yaml": (
        SNIPPET,
        '$: missing required field "spec"',
    ),
    "argo-cd-docs-snippets/docs/operator-manual/notifications/triggers.md.block-04.yaml": (
        SNIPPET,
        '$: missing required field "spec"',
    ),
    "argo-cd-docs-snippets/docs/operator-manual/upgrading/2.14-3.0.md.block-06.yaml": (
        SNIPPET,
        '$: missing required field "metadata"',
    ),
    "argo-cd-docs-snippets/docs/operator-manual/upgrading/2.4-2.5.md.block-01.yaml": (
        SNIPPET,
        '$.spec: missing required field "template"',
    ),
    "argo-cd-docs-snippets/docs/operator-manual/upgrading/2.5-2.6.md.block-01.yaml": (
        SNIPPET,
        '$.spec: missing required field "template"',
    ),
    "argo-cd-docs-snippets/docs/operator-manual/webhook.md.block-03.yaml": (
        SNIPPET,
        '$.spec: missing required field "project"',
    ),
    "argo-cd-docs-snippets/docs/user-guide/diff-strategies.md.block-02.yaml": (
        SNIPPET,
        '$: missing required field "spec"',
    ),
    "argo-cd-docs-snippets/docs/user-guide/diff-strategies.md.block-04.yaml": (
        SNIPPET,
        '$: missing required field "spec"',
    ),
    "argo-cd-docs-snippets/docs/user-guide/directory.md.block-03.yaml": (
        SNIPPET,
        '$: missing required field "metadata"',
    ),
    "argo-cd-docs-snippets/docs/user-guide/kustomize.md.block-06.yaml": (
        PLACEHOLDER,
        "$: invalid YAML: mapping values are not allowed in this context",
    ),
    "argo-cd-docs-snippets/docs/user-guide/multiple_sources.md.block-02.yaml": (
        SNIPPET,
        '$: missing required field "metadata"',
    ),
    "argo-cd-docs-snippets/docs/user-guide/projects.md.block-06.yaml": (
        SNIPPET,
        '$: missing required field "metadata"',
    ),
    "argo-cd-docs-snippets/docs/user-guide/source-hydrator.md.block-03.yaml": (
        SNIPPET,
        '$.spec: missing required field "destination"',
    ),
    "argo-cd-docs-snippets/docs/user-guide/source-hydrator.md.block-05.yaml": (
        SNIPPET,
        '$.spec: missing required field "destination"',
    ),
    "argo-cd-docs-snippets/docs/user-guide/source-hydrator.md.block-07.yaml": (
        SNIPPET,
        '$.spec: missing required field "destination"',
    ),
    "argo-cd-docs-snippets/docs/user-guide/source-integrity-git-gpg.md.block-03.yaml": (
        SNIPPET,
        '$: missing required field "metadata"',
    ),
    "argo-cd-docs-snippets/docs/user-guide/sync-options.md.block-02.yaml": (
        SNIPPET,
        '$: missing required field "metadata"',
    ),
    "argo-cd-docs-snippets/docs/user-guide/sync-options.md.block-07.yaml": (
        SNIPPET,
        '$: missing required field "metadata"',
    ),
    "argo-cd-docs-snippets/docs/user-guide/sync-options.md.block-11.yaml": (
        SNIPPET,
        '$: missing required field "metadata"',
    ),
    "argo-cd-docs-snippets/docs/user-guide/sync-options.md.block-13.yaml": (
        SNIPPET,
        '$: missing required field "metadata"',
    ),
    "argo-cd-docs-snippets/docs/user-guide/sync-options.md.block-16.yaml": (
        SNIPPET,
        '$: missing required field "metadata"',
    ),
    "argo-cd-docs-snippets/docs/user-guide/sync-options.md.block-23.yaml": (
        SNIPPET,
        '$: missing required field "metadata"',
    ),
    "argo-cd-docs-snippets/docs/user-guide/sync-options.md.block-25.yaml": (
        SNIPPET,
        '$: missing required field "spec"',
    ),
    "argo-cd-docs-snippets/docs/user-guide/sync-options.md.block-27.yaml": (
        SNIPPET,
        '$: missing required field "metadata"',
    ),
    "argo-cd-docs-snippets/docs/user-guide/sync-options.md.block-29.yaml": (
        SNIPPET,
        "$.metadata: metadata.name is required (or metadata.generateName)",
    ),
    "argo-cd-docs-snippets/docs/user-guide/tool_detection.md.block-01.yaml": (
        PLACEHOLDER,
        "$: invalid YAML: mapping values are not allowed in this context",
    ),
    "argo-cd/applicationset/examples/clusterDecisionResource/placementdecision.yaml": (
        CRD_NOT_CATALOGUED,
        "$.kind: no schema for apps.open-cluster-management.io/v1 PlacementRule on Kubernetes 1.34",
    ),
    "argo-cd/applicationset/examples/design-doc/applicationset-fasttemplate.yaml": (
        UPSTREAM_MISTAKE,
        '$.spec.template.spec: missing required field "project"',
    ),
    "argo-cd/applicationset/examples/design-doc/git-directory-discovery.yaml": (
        UPSTREAM_MISTAKE,
        '$.spec.generators[0].git: missing required field "revision"',
    ),
    "argo-cd/applicationset/examples/design-doc/git-files-discovery.yaml": (
        UPSTREAM_MISTAKE,
        '$.spec.generators[0].git: missing required field "revision"',
    ),
    "argo-cd/applicationset/examples/design-doc/git-files-literal.yaml": (
        UPSTREAM_MISTAKE,
        '$.spec.generators[0].git: missing required field "revision"',
    ),
    "argo-cd/applicationset/examples/list-generator/list-elementsYaml-example.yaml": (
        NOT_AN_OBJECT,
        "$: not a Kubernetes object: no apiVersion and no kind",
    ),
    "argo-cd/applicationset/examples/matrix/cluster-addons/argo-workflows/namespace-install.yaml": (
        REMOVED_API,
        "$.apiVersion: apiextensions.k8s.io/v1beta1 CustomResourceDefinition was removed in Kubernetes 1.22; use apiext",
    ),
    "argo-cd/applicationset/examples/matrix/matrix-and-union-in-matrix-fasttemplate.yaml": (
        UPSTREAM_MISTAKE,
        '$.spec.generators[0].matrix.generators[0].union: unknown field "union"',
    ),
    "argo-cd/docs/operator-manual/argocd-secret.yaml": (
        UPSTREAM_MISTAKE,
        '$.data[\'webhook.github.secret\']: "***" is not a "byte"',  # a Secret's data is never quoted
    ),
    "argo-cd/docs/operator-manual/argocd-repo-creds.yaml": (
        UPSTREAM_MISTAKE,
        "$.stringData.githubAppID: expected string, got integer 1",
    ),
    "argo-cd/examples/known-hosts/argocd-known-hosts-mounts.yaml": (
        PATCH,
        '$.spec: missing required field "selector"',
    ),
    "k8s-website/content/en/docs/tasks/run-application/horizontal-pod-autoscale-walkthrough.md.block-01.yaml": (
        REMOVED_API,
        "$.apiVersion: autoscaling/v2beta2 HorizontalPodAutoscaler was removed in Kubernetes 1.26; use autoscaling/v2 (",
    ),
    "k8s-website/content/en/examples/policy/example-psp.yaml": (
        REMOVED_API,
        "$.apiVersion: policy/v1beta1 PodSecurityPolicy was removed in Kubernetes 1.25; migrate to Pod Security Admissi",
    ),
    "k8s-website/content/en/examples/service/networking/example-ingress.yaml": (
        REMOVED_API,
        "$.apiVersion: networking.k8s.io/v1beta1 Ingress was removed in Kubernetes 1.22; use networking.k8s.io/v1 (http",
    ),
    "kserve/docs/samples/explanation/aif/germancredit/bias-v1alpha1.yaml": (
        REMOVED_API,
        "$.apiVersion: serving.kserve.io/v1alpha2 InferenceService was removed in KServe v0.7.0; use serving.kserve.io/",
    ),
    "kserve/docs/samples/explanation/aif/germancredit/message-dumper.yaml": (
        CRD_NOT_CATALOGUED,
        "$.kind: no schema for serving.knative.dev/v1 Service on Kubernetes 1.34",
    ),
    "kserve/docs/samples/explanation/alibi/cifar10/cifar10.yaml": (
        UPSTREAM_MISTAKE,
        "$.spec.predictor.tensorflow.resources.requests.cpu: expected integer or string, got number 0.1",
    ),
    "kserve/docs/samples/explanation/alibi/moviesentiment/moviesentiment.yaml": (
        UPSTREAM_MISTAKE,
        "$.spec.predictor.sklearn.resources.requests.cpu: expected integer or string, got number 0.1",
    ),
    "kserve/docs/samples/fluid/alluxio.yaml": (
        CRD_NOT_CATALOGUED,
        "$.kind: no schema for data.fluid.io/v1alpha1 Dataset on Kubernetes 1.34",
    ),
    "kserve/docs/samples/gcp-iap/sklearn-iap-with-authz.yaml": (
        REMOVED_API,
        "$.apiVersion: serving.kubeflow.org/v1beta1 InferenceService was removed in KServe v0.7.0; use serving.kserve.i",
    ),
    "kserve/docs/samples/llmisvc/dp-ep/deepseek-r1-gpu-rdma-roce/network-roce.yaml": (
        CRD_NOT_CATALOGUED,
        "$.kind: no schema for sriovnetwork.openshift.io/v1 SriovNetworkNodePolicy on Kubernetes 1.34",
    ),
    "kserve/docs/samples/llmisvc/e2e-gpt-oss/ai-gateway-route.yaml": (
        CRD_NOT_CATALOGUED,
        "$.kind: no schema for aigateway.envoyproxy.io/v1beta1 AIGatewayRoute on Kubernetes 1.34",
    ),
    "kserve/docs/samples/llmisvc/e2e-gpt-oss/llmisvc_config_default.yaml": (
        UPSTREAM_MISTAKE,
        '$.spec.router.scheduler.pool.spec: missing required field "selector"',
    ),
    "kserve/docs/samples/llmisvc/e2e-gpt-oss/llmisvc_config_prefix_cache.yaml": (
        UPSTREAM_MISTAKE,
        '$.spec.router.scheduler.pool.spec: missing required field "selector"',
    ),
    "kserve/docs/samples/llmisvc/latency-predictor/llm-inference-service-latency-predictor.yaml": (
        UPSTREAM_MISTAKE,
        "$.spec.router.scheduler.config.inline: expected object, got string 'apiVersion: llm-d.ai/v1alpha1\\nkind: Endpo",
    ),
    "kserve/docs/samples/logger/knative-eventing/broker.yaml": (
        CRD_NOT_CATALOGUED,
        "$.kind: no schema for eventing.knative.dev/v1 broker on Kubernetes 1.34",
    ),
    "kserve/docs/samples/logger/knative-eventing/trigger.yaml": (
        CRD_NOT_CATALOGUED,
        "$.kind: no schema for eventing.knative.dev/v1 Trigger on Kubernetes 1.34",
    ),
    "kserve/docs/samples/outlier-detection/alibi-detect/cifar10/cifar10od.yaml": (
        CRD_NOT_CATALOGUED,
        "$.kind: no schema for serving.knative.dev/v1 Service on Kubernetes 1.34",
    ),
    "kserve/docs/samples/storage/pvc/mnist-pvc.yaml": (
        REMOVED_API,
        "$.apiVersion: serving.kserve.io/v1alpha2 InferenceService was removed in KServe v0.7.0; use serving.kserve.io/",
    ),
    "kserve/docs/samples/v1beta1/custom/torchserve/bert-sample/bert.yaml": (
        PLACEHOLDER,
        "$: invalid YAML: did not find expected key (while parsing a block mapping)",
    ),
    "kserve/docs/samples/v1beta1/custom/torchserve/gpu.yaml": (
        PLACEHOLDER,
        "$: invalid YAML: did not find expected key (while parsing a block mapping)",
    ),
    "kserve/docs/samples/v1beta1/custom/torchserve/metrics.yaml": (
        PLACEHOLDER,
        "$: invalid YAML: did not find expected key (while parsing a block mapping)",
    ),
    "kserve/docs/samples/v1beta1/custom/torchserve/pv.yaml": (
        PLACEHOLDER,
        "$.spec.awsElasticBlockStore.volumeID: expected string, got object {'volume-id': None}",
    ),
    "kserve/docs/samples/v1beta1/custom/torchserve/torchserve-custom.yaml": (
        PLACEHOLDER,
        "$: invalid YAML: did not find expected key (while parsing a block mapping)",
    ),
    "kserve/docs/samples/v1beta1/torchserve/model-archiver/pv.yaml": (
        PLACEHOLDER,
        "$.spec.awsElasticBlockStore.volumeID: expected string, got object {'volume-id': None}",
    ),
    "kserve/docs/samples/v1beta1/torchserve/v1/bloom/bloom-560m.yaml": (
        UPSTREAM_MISTAKE,
        '$.spec.nodeName: unknown field "nodeName"',
    ),
    "kueue/site/static/examples/appwrapper/leaderworkerset-sample.yaml": (
        CRD_NOT_CATALOGUED,
        "$.kind: no schema for workload.codeflare.dev/v1beta2 AppWrapper on Kubernetes 1.34",
    ),
    "kueue/site/static/examples/jobs/ray-cluster-sample.yaml": (
        CRD_NOT_CATALOGUED,
        "$.kind: no schema for ray.io/v1 RayCluster on Kubernetes 1.34",
    ),
    "kueue/site/static/examples/jobs/ray-job-autoscaling-sample.yaml": (
        CRD_NOT_CATALOGUED,
        "$.kind: no schema for ray.io/v1 RayJob on Kubernetes 1.34",
    ),
    "kueue/site/static/examples/jobs/sample-xgboostjob.yaml": (
        UPSTREAM_MISTAKE,
        "$.spec.xgbReplicaSpecs.Master.template.spec.containers[0].resources.requests.cpu: expected integer or string, ",
    ),
    "kueue/site/static/examples/multikueue/dev/manager-kind-config.yaml": (
        CRD_NOT_CATALOGUED,
        "$.kind: no schema for kind.x-k8s.io/v1alpha4 Cluster on Kubernetes 1.34",
    ),
    "kueue/site/static/examples/multikueue/dev/worker-kind-config.yaml": (
        CRD_NOT_CATALOGUED,
        "$.kind: no schema for kind.x-k8s.io/v1alpha4 Cluster on Kubernetes 1.34",
    ),
    "kueue/site/static/examples/pod-based-workloads/sample-sandbox.yaml": (
        CRD_NOT_CATALOGUED,
        "$.kind: no schema for agents.x-k8s.io/v1alpha1 Sandbox on Kubernetes 1.34",
    ),
    "kueue/site/static/examples/pod-based-workloads/tekton-hello-task.yaml": (
        CRD_NOT_CATALOGUED,
        "$.kind: no schema for tekton.dev/v1 Task on Kubernetes 1.34",
    ),
    "kueue/site/static/examples/pod-based-workloads/tekton-pipeline-run.yaml": (
        CRD_NOT_CATALOGUED,
        "$.kind: no schema for tekton.dev/v1 PipelineRun on Kubernetes 1.34",
    ),
    "kueue/site/static/examples/pod-based-workloads/workflow-queue-per-template.yaml": (
        CRD_NOT_CATALOGUED,
        "$.kind: no schema for argoproj.io/v1alpha1 Workflow on Kubernetes 1.34",
    ),
    "mpi-operator-legacy/examples/mxnet/mxnet-mnist.yaml": (
        REMOVED_API,
        "$.apiVersion: kubeflow.org/v1alpha1 MPIJob was removed in mpi-operator v0.4.0; use kubeflow.org/v2beta1 (https",
    ),
    "mpi-operator-legacy/examples/v1alpha1/tensorflow-benchmarks-imagenet.yaml": (
        REMOVED_API,
        "$.apiVersion: kubeflow.org/v1alpha1 MPIJob was removed in mpi-operator v0.4.0; use kubeflow.org/v2beta1 (https",
    ),
    "mpi-operator-legacy/examples/v1alpha2/tensorflow-benchmarks-imagenet.yaml": (
        REMOVED_API,
        "$.apiVersion: kubeflow.org/v1alpha2 MPIJob was removed in mpi-operator v0.4.0; use kubeflow.org/v2beta1 (https",
    ),
    "prometheus-operator-docs-snippets/Documentation/user-guides/running-exporters.md.block-09.yaml": (
        SNIPPET,
        '$.spec.endpoints: unknown field "endpoints"',
    ),
    "prometheus-operator/example/mixin/alerts.yaml": (
        NOT_AN_OBJECT,
        "$: not a Kubernetes object: no apiVersion and no kind",
    ),
    "trainer-docs-snippets/docs/legacy-v1/user-guides/mpi.md.block-01.yaml": (
        SNIPPET,
        '$.spec: missing required field "mpiReplicaSpecs"',
    ),
    "trainer-docs-snippets/docs/legacy-v1/user-guides/multi-cluster.md.block-01.yaml": (
        SNIPPET,
        "$.spec.tfReplicaSpecs: expected object, got string '...'",
    ),
    "trainer-docs-snippets/docs/legacy-v1/user-guides/pytorch.md.block-01.yaml": (
        SNIPPET,
        '$.metadata.clusterName: unknown field "clusterName"',
    ),
    # kube-apiserver v1.36 (dryRun, fieldValidation=Strict): 'strict decoding error: unknown field
    # "spec.tfReplicaSpecs.PS.template.metadata.creationTimestamp"': the CRD's template metadata has
    # no properties, and unknown fields are reported before nulls are pruned.
    "trainer-docs-snippets/docs/legacy-v1/user-guides/tensorflow.md.block-03.yaml": (
        UPSTREAM_MISTAKE,
        '$.spec.tfReplicaSpecs.PS.template.metadata.creationTimestamp: unknown field "creationTimestamp"',
    ),
    "trainer-docs-snippets/docs/operator-guides/job-scheduling/kai.md.block-01.yaml": (
        SNIPPET,
        '$.spec.mlPolicy.torch.numNodes: unknown field "numNodes"',
    ),
    "trainer-docs-snippets/docs/operator-guides/runtime.md.block-01.yaml": (
        SNIPPET,
        '$.spec.mlPolicy.torch.numProcPerNode: unknown field "numProcPerNode"',
    ),
    "trainer-docs-snippets/docs/user-guides/local-execution/overview.md.block-01.yaml": (
        SNIPPET,
        '$.spec.mlPolicy.torch.numProcPerNode: unknown field "numProcPerNode"',
    ),
    "trainer-docs-snippets/docs/user-guides/pytorch-rocm.md.block-01.yaml": (
        SNIPPET,
        '$.spec.mlPolicy.torch.numProcPerNode: unknown field "numProcPerNode"',
    ),
    # kube-apiserver v1.36: 'spec.storageClassName: Invalid value: "Your storageClassName": a lowercase
    # RFC 1123 subdomain must consist of ...'.
    "training-operator/examples/tensorflow/distribution_strategy/pvc.yaml": (
        PLACEHOLDER,
        '$.spec.storageClassName: storageClassName "Your storageClassName" is not a DNS-1123 subdomain',
    ),
    "argo-rollouts-docs-snippets/docs/analysis/kayenta.md.block-01.yaml": (
        SNIPPET,
        '$.spec.strategy.canary.steps[0].experiment.analyses[0]: missing required field "name"',
    ),
    "argo-rollouts-docs-snippets/docs/analysis/kayenta.md.block-03.yaml": (
        SNIPPET,
        "$.metadata: metadata.name is required (or metadata.generateName)",
    ),
    "argo-rollouts-docs-snippets/docs/analysis/kayenta.md.block-04.yaml": (
        SNIPPET,
        '$.spec.metrics[0].provider.kayenta: missing required field "configurationAccountName"',
    ),
    "argo-rollouts-docs-snippets/docs/features/analysis.md.block-03.yaml": (
        SNIPPET,
        '$: missing required field "spec"',
    ),
    "argo-rollouts-docs-snippets/docs/features/analysis.md.block-07.yaml": (
        UPSTREAM_MISTAKE,
        "$.spec.args[1].value: expected string, got integer 9090",
    ),
    "argo-rollouts-docs-snippets/docs/features/analysis.md.block-08.yaml": (
        SNIPPET,
        '$: missing required field "spec"',
    ),
    "argo-rollouts-docs-snippets/docs/features/analysis.md.block-16.yaml": (
        SNIPPET,
        "$: invalid YAML: could not find expected ':' (while scanning a simple key)",
    ),
    "argo-rollouts-docs-snippets/docs/features/analysis.md.block-18.yaml": (
        SNIPPET,
        "$: invalid YAML: could not find expected ':' (while scanning a simple key)",
    ),
    "argo-rollouts-docs-snippets/docs/features/analysis.md.block-20.yaml": (
        SNIPPET,
        '$: missing required field "spec"',
    ),
    "argo-rollouts-docs-snippets/docs/features/analysis.md.block-31.yaml": (
        SNIPPET,
        "$.apiVersion: missing or empty apiVersion",
    ),
    "argo-rollouts-docs-snippets/docs/features/analysis.md.block-33.yaml": (
        SNIPPET,
        "$.apiVersion: missing or empty apiVersion",
    ),
    "argo-rollouts-docs-snippets/docs/features/analysis.md.block-39.yaml": (
        SNIPPET,
        "$.metadata: metadata.name is required (or metadata.generateName)",
    ),
    "argo-rollouts-docs-snippets/docs/features/experiment.md.block-03.yaml": (
        SNIPPET,
        '$: missing required field "spec"',
    ),
    "argo-rollouts-docs-snippets/docs/features/hpa-support.md.block-01.yaml": (
        PLACEHOLDER,
        '$.spec.selector.app: unknown field "app"',
    ),
    "argo-rollouts-docs-snippets/docs/features/notifications.md.block-03.yaml": (
        SNIPPET,
        '$: missing required field "spec"',
    ),
    "argo-rollouts-docs-snippets/docs/features/traffic-management/alb.md.block-01.yaml": (
        SNIPPET,
        "$.metadata: metadata.name is required (or metadata.generateName)",
    ),
    "argo-rollouts-docs-snippets/docs/features/traffic-management/alb.md.block-05.yaml": (
        SNIPPET,
        "$.metadata: metadata.name is required (or metadata.generateName)",
    ),
    "argo-rollouts-docs-snippets/docs/features/traffic-management/alb.md.block-08.yaml": (
        SNIPPET,
        "$.metadata: metadata.name is required (or metadata.generateName)",
    ),
    "argo-rollouts-docs-snippets/docs/features/traffic-management/index.md.block-02.yaml": (
        SNIPPET,
        "$.metadata: metadata.name is required (or metadata.generateName)",
    ),
    "argo-rollouts-docs-snippets/docs/features/traffic-management/index.md.block-04.yaml": (
        SNIPPET,
        "$.metadata: metadata.name is required (or metadata.generateName)",
    ),
    "argo-rollouts-docs-snippets/docs/features/traffic-management/istio.md.block-04.yaml": (
        SNIPPET,
        "$: invalid YAML: mapping values are not allowed in this context",
    ),
    "argo-rollouts-docs-snippets/docs/features/traffic-management/smi.md.block-01.yaml": (
        SNIPPET,
        "$: invalid YAML: mapping values are not allowed in this context",
    ),
    "argo-rollouts-docs-snippets/docs/generated/notification-services/pagerduty_v2.md.block-04.yaml": (
        SNIPPET,
        '$: missing required field "spec"',
    ),
    "argo-rollouts-docs-snippets/docs/getting-started/appmesh/index.md.block-01.yaml": (
        SNIPPET,
        "$: invalid YAML: could not find expected ':' (while scanning a simple key)",
    ),
    # Rollouts whose snippet leaves out the selector: the API server stores them, the Rollouts
    # controller marks them InvalidSpec (trainops' rollouts-controller rule).
    "argo-rollouts-docs-snippets/docs/features/analysis.md.block-38.yaml": (
        SNIPPET,
        "$.spec.selector: Rollout has missing field '.spec.selector'",
    ),
    "argo-rollouts-docs-snippets/docs/features/traffic-management/mixed.md.block-01.yaml": (
        SNIPPET,
        "$.spec.selector: Rollout has missing field '.spec.selector'",
    ),
    "argo-rollouts-docs-snippets/docs/getting-started/mixed/index.md.block-01.yaml": (
        SNIPPET,
        "$.spec.selector: Rollout has missing field '.spec.selector'",
    ),
    "argo-rollouts-docs-snippets/docs/getting-started/mixed/index.md.block-03.yaml": (
        SNIPPET,
        "$.spec.selector: Rollout has missing field '.spec.selector'",
    ),
    "argo-rollouts-docs-snippets/docs/getting-started/smi/index.md.block-01.yaml": (
        SNIPPET,
        "$.spec.selector: Rollout has missing field '.spec.selector'",
    ),
    "argo-rollouts/examples/ambassador/echo-mapping.yaml": (
        CRD_NOT_CATALOGUED,
        "$.kind: no schema for getambassador.io/v2 Mapping on Kubernetes 1.34",
    ),
    "argo-rollouts/examples/istio/istio-mirror.yaml": (
        CRD_NOT_CATALOGUED,
        "$.kind: no schema for networking.istio.io/v1alpha3 Gateway on Kubernetes 1.34",
    ),
    "argo-rollouts/examples/rollout-secret.yaml": (
        LITERAL_CREDENTIAL,
        "$.data.secretUrl: Secret key secretUrl holds a literal credential (a password, token or key by its name); reference a Secret instead",
    ),
    "lws/docs/examples/sglang/lws.yaml": (
        LITERAL_CREDENTIAL,
        "$.spec.leaderWorkerTemplate.leaderTemplate.spec.containers[0].env[0].value: env HF_TOKEN holds a literal credential (a password, token or key by its name); reference a Secret instead",
    ),
    "lws/docs/examples/vllm/GPU/lws.yaml": (
        LITERAL_CREDENTIAL,
        "$.spec.leaderWorkerTemplate.leaderTemplate.spec.containers[0].env[0].value: env HF_TOKEN holds a literal credential (a password, token or key by its name); reference a Secret instead",
    ),
}


def _all_files() -> list[str]:
    if not EXAMPLES.is_dir():
        return []
    return sorted(
        str(p.relative_to(EXAMPLES))
        for p in EXAMPLES.rglob("*")
        if p.is_file() and p.suffix in (".yaml", ".yml")
    )


@pytest.fixture(scope="module")
def registry(schema_cache: Path) -> SchemaRegistry:
    return SchemaRegistry("1.34", schema_cache)


def _render(registry: SchemaRegistry, rel: str) -> tuple[int, list[str]]:
    result = validate_files([str(EXAMPLES / rel)], registry, ValidateOptions())
    errors = [f"{f.path}: {f.message}" for f in result.sorted() if f.level == "error"]
    return result.documents, errors


@pytest.mark.parametrize("rel", _all_files())
def test_every_example_is_classified(registry: SchemaRegistry, rel: str) -> None:
    documents, errors = _render(registry, rel)
    if rel in EXPECTED:
        _, expected = EXPECTED[rel]
        assert any(e.startswith(expected) for e in errors), errors
    else:
        assert errors == []
        assert documents >= 1


def test_expected_list_is_current_and_explained() -> None:
    files = set(_all_files())
    assert set(EXPECTED) <= files
    categories = {
        SNIPPET,
        REMOVED_API,
        CRD_NOT_CATALOGUED,
        PLACEHOLDER,
        NOT_AN_OBJECT,
        PATCH,
        UPSTREAM_MISTAKE,
        LITERAL_CREDENTIAL,
    }
    assert {category for category, _ in EXPECTED.values()} <= categories
    # Most upstream input is valid: the exceptions stay a minority, and each category is used.
    assert len(EXPECTED) < len(files) / 3


def test_go_templates_raise_no_false_alarms(registry: SchemaRegistry) -> None:
    """Files with ``{{ }}`` Go templates in strings (ApplicationSets, alert annotations) are not flagged for them."""
    templated = [rel for rel in _all_files() if "{{" in (EXAMPLES / rel).read_text(encoding="utf-8")]
    assert len(templated) > 50
    flagged = [rel for rel in templated if rel not in EXPECTED and _render(registry, rel)[1]]
    assert flagged == []
