"""The annotations of topology-aware placement, shared by the constructs that write them and the
policy rules that check them.

Sources: kubernetes-sigs/kueue v0.19.2 ``apis/kueue/v1beta2/topology_types.go`` (pod-set annotations);
kubernetes-sigs/jobset v0.12.0 ``api/jobset/v1alpha2/jobset_types.go`` (``ExclusiveKey``).
"""

from __future__ import annotations

from typing import Final

#: All pods of a pod set in one domain of this level (``PodSetRequiredTopologyAnnotation``).
REQUIRED: Final = "kueue.x-k8s.io/podset-required-topology"
#: One domain of this level if possible (``PodSetPreferredTopologyAnnotation``).
PREFERRED: Final = "kueue.x-k8s.io/podset-preferred-topology"
#: Placed by Kueue without a constraint (``PodSetUnconstrainedTopologyAnnotation``).
UNCONSTRAINED: Final = "kueue.x-k8s.io/podset-unconstrained-topology"
#: Each slice of pods in one domain of this level (``PodSetSliceRequiredTopologyAnnotation``).
SLICE_REQUIRED: Final = "kueue.x-k8s.io/podset-slice-required-topology"
#: Pods per slice (``PodSetSliceSizeAnnotation``).
SLICE_SIZE: Final = "kueue.x-k8s.io/podset-slice-size"
#: Two pod sets placed in one domain (``PodSetGroupName``).
GROUP_NAME: Final = "kueue.x-k8s.io/podset-group-name"
#: Annotations that ask for a placement.
PLACEMENT: Final = (REQUIRED, PREFERRED, UNCONSTRAINED, SLICE_REQUIRED)
#: JobSet's exclusive placement: one Job per domain of this node label (``ExclusiveKey``).
EXCLUSIVE_TOPOLOGY: Final = "alpha.jobset.sigs.k8s.io/exclusive-topology"
