"""``ClusterServingRuntime``: a cluster-wide KServe model server template."""

from __future__ import annotations

from trainops.constructs.serving_runtime import ServingRuntime


class ClusterServingRuntime(ServingRuntime):
    """A serving.kserve.io/v1alpha1 ClusterServingRuntime: a :class:`ServingRuntime` every namespace
    can use (an InferenceService names it in ``runtime`` like a namespaced one; a namespaced runtime
    of the same name wins). Same props and defaults as :class:`ServingRuntime`; cluster-scoped, so
    the Chart's namespace is dropped when trainops normalises the output.

    Source: https://kserve.github.io/website/latest/modelserving/servingruntimes/ (cluster-scoped
    runtimes ship with KServe, e.g. ``kserve-tensorflow-serving``, ``kserve-torchserve``,
    ``kserve-tritonserver``).
    """

    KIND = "ClusterServingRuntime"
