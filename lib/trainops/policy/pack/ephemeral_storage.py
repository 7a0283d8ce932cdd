"""Model servers that download their model to node disk request and limit ``ephemeral-storage``.

Why: KServe's storage initializer copies a ``gs://``, ``s3://``, ``hf://`` or ``https://`` model
into an emptyDir on the node's disk before the server starts; an LLM is tens of gigabytes. Without
an ephemeral-storage request the scheduler places the pod on a node without the room, and without a
limit a model larger than expected fills the node's disk and the kubelet evicts every pod there
(the pod's emptyDirs count against the sum of its containers' limits).

Options: none.

Default: enabled, level warning. Checked: each KServe InferenceService container with a
``storageUri`` (model and framework specs) or a ``STORAGE_URI`` variable (custom containers), and
the ``main`` container of an LLMInferenceService whose ``spec.model.uri`` is downloaded; a
``pvc://`` model is mounted, not copied.

PASS:

    apiVersion: serving.kserve.io/v1beta1
    kind: InferenceService
    metadata: {name: bert}
    spec:
      predictor:
        model:
          modelFormat: {name: huggingface}
          storageUri: hf://google-bert/bert-base-uncased
          resources:
            requests: {cpu: "2", memory: 8Gi, ephemeral-storage: 10Gi}
            limits: {cpu: "2", memory: 8Gi, ephemeral-storage: 20Gi}

FAIL:

    apiVersion: serving.kserve.io/v1beta1
    kind: InferenceService
    metadata: {name: bert}
    spec:
      predictor:
        model:
          modelFormat: {name: huggingface}
          storageUri: hf://google-bert/bert-base-uncased
          resources:
            requests: {cpu: "2", memory: 8Gi}
            limits: {cpu: "2", memory: 8Gi}

Remediation: Set resources.requests and resources.limits ephemeral-storage on the model container to cover the model's size.

Source: kube-score container-ephemeral-storage-request-and-limit; https://kserve.github.io/website/latest/modelserving/storage/storagecontainers/; https://kubernetes.io/docs/concepts/configuration/manage-resources-containers/#local-ephemeral-storage
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Final

from trainops.findings import Issue, Level
from trainops.kinds import group_kind
from trainops.policy.pods import Container, all_containers, as_list, dig, templated
from trainops.policy.rule import Context, describe
from trainops.rules import register

ID = "ephemeral-storage"
LEVEL: Level = "warning"
ISVC: Final = ("serving.kserve.io", "InferenceService")
LLMISVC: Final = ("serving.kserve.io", "LLMInferenceService")
KINDS = frozenset({ISVC, LLMISVC})
CONF: dict[str, dict[str, Any]] = {}
DEFAULT: dict[str, Any] = {}
RULE = register(describe(ID, LEVEL, __doc__))

_RESOURCE: Final = "ephemeral-storage"


def _downloaded(uri: Any) -> bool:
    """Whether a model URI is copied to the node (every scheme but ``pvc://``)."""
    return isinstance(uri, str) and bool(uri) and not uri.startswith("pvc://") and not templated(uri)


def _storage_uri(container: Container) -> Any:
    if container.slot is not None:
        return container.spec.get("storageUri")
    for item in as_list(container.spec.get("env")):
        if isinstance(item, dict) and item.get("name") == "STORAGE_URI":
            return item.get("value")
    return None


def check(conf: Mapping[str, Any], obj: dict[str, Any], ctx: Context) -> Iterator[Issue]:
    """Each downloading model container missing an ephemeral-storage request or limit."""
    llm_uri = dig(obj, "spec", "model", "uri") if group_kind(obj) == LLMISVC else None
    for container in all_containers(obj, ephemeral=False):
        if container.field != "containers":
            continue
        uri = llm_uri if llm_uri is not None and container.name == "main" else _storage_uri(container)
        if not _downloaded(uri):
            continue
        missing = [s for s in ("requests", "limits") if container.get("resources", s, _RESOURCE) is None]
        if missing:
            yield Issue(
                container.at("resources", missing[0], _RESOURCE),
                f'container "{container.name}" downloads its model ({uri}) to node disk without an '
                f"ephemeral-storage {' or '.join(s.rstrip('s') for s in missing)}",
                ID,
            )
