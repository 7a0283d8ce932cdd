"""``VolumeClaim``: a PersistentVolumeClaim for datasets, checkpoints and models.

``DataVolume``, its name before trainops 0.2, stays one release as a deprecated alias: it collided with
the DataVolume custom resource of KubeVirt's Containerized Data Importer (cdi.kubevirt.io).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any

from trainops.cluster import Cluster
from trainops.constructs._core.argocd import PROTECT_OPTIONS, argocd_annotations
from trainops.constructs._core.base import Construct, ObjectConstruct, emit, require_name
from trainops.constructs._core.pod import ACCESS_MODES
from trainops.constructs._core.props import require_labels, require_quantity
from trainops.constructs._core.protocols import AccessMode

_KIND = "VolumeClaim"
#: The sync wave of a claim: the workloads' (a WaitForFirstConsumer claim binds only once its pod
#: exists; argo-cd issue 12840).
VOLUME_WAVE = 0


class VolumeClaim(ObjectConstruct):
    """A v1 PersistentVolumeClaim that Argo CD creates with the workloads and never deletes.

    The claim sits in sync wave ``0``, the workloads' wave (DESIGN.md decision 4, "workloads with
    their PVCs"): Argo CD waits for an earlier wave to be healthy before it applies the next, and a
    claim of a ``WaitForFirstConsumer`` StorageClass stays Pending until a pod uses it, so a claim
    in an earlier wave than its consumer would never let the sync finish (argo-cd issue 12840;
    Kubernetes "Volume Binding Mode"). Within one wave Argo CD applies claims before workloads
    (gitops-engine ``sync_tasks.go`` kind order). Unless
    ``protect=False``, with ``argocd.argoproj.io/sync-options: Prune=false,Delete=false`` so that
    neither pruning nor deleting the Application deletes the data.

    Mount it with ``PyTorchJob.mount(volume, path)`` or ``ModelServer(model_volume=volume)``, or
    reference it from another app by its ``claim_name``.

    Args:
        scope: the parent construct (a Chart; the Chart's namespace is the claim's namespace).
        id: construct id.
        cluster: the target cluster; supplies the StorageClass for ``storage_role``.
        name: claim name, a DNS-1123 label.
        size: requested capacity as a quantity string in bytes, e.g. ``"500Gi"``.
        access_mode: ``ReadWriteOnce`` | ``ReadWriteMany`` | ``ReadOnlyMany`` | ``ReadWriteOncePod``.
            Default: ``ReadWriteOnce``.
        storage_role: key into ``cluster.storage_classes``; ``"shared"`` is RWX file storage such as
            NAS. Default: ``"default"``.
        protect: add the Argo CD ``Prune=false,Delete=false`` sync options. Default: ``True``.
        labels: extra labels on the claim. Default: none.

    Raises:
        ValueError: a bad name, size, access mode or label; a ``storage_role`` the cluster lacks.

    Source: https://kubernetes.io/docs/concepts/storage/persistent-volumes/#persistentvolumeclaims,
    https://argo-cd.readthedocs.io/en/stable/user-guide/sync-options/#no-prune-resources
    """

    KIND = "PersistentVolumeClaim"
    API_VERSION = "v1"

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        cluster: Cluster,
        name: str,
        size: str,
        access_mode: AccessMode = "ReadWriteOnce",
        storage_role: str = "default",
        protect: bool = True,
        labels: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(scope, id)
        self._name = require_name(_KIND, "name", name)
        self._size = require_quantity(_KIND, "size", size, whole_bytes=True)
        if access_mode not in ACCESS_MODES:
            raise ValueError(f"{_KIND} access_mode={access_mode!r}: must be one of {', '.join(ACCESS_MODES)}")
        self._access_mode: AccessMode = access_mode
        try:
            self._storage_class = cluster.storage_class(storage_role)
        except ValueError as exc:
            raise ValueError(f"{_KIND} storage_role={storage_role!r}: {exc}") from None
        meta_labels = require_labels(_KIND, "labels", labels or {})
        metadata: dict[str, Any] = {
            "name": self._name,
            "annotations": argocd_annotations(
                wave=VOLUME_WAVE, options=[PROTECT_OPTIONS] if protect else None
            ),
        }
        if meta_labels:
            metadata["labels"] = meta_labels
        self._object: dict[str, Any] = {
            "apiVersion": self.api_version,
            "kind": self.kind,
            "metadata": metadata,
            "spec": {
                "accessModes": [self._access_mode],
                "storageClassName": self._storage_class,
                "resources": {"requests": {"storage": self._size.canonical()}},
            },
        }
        emit(self, self._object)

    @property
    def claim_name(self) -> str:
        """The claim name, for ``persistentVolumeClaim.claimName`` references."""
        return self._name

    @property
    def access_mode(self) -> AccessMode:
        """The claim's access mode."""
        return self._access_mode

    @property
    def size(self) -> str:
        """The requested capacity, canonical (e.g. ``500Gi``)."""
        return self._size.canonical()

    @property
    def storage_class(self) -> str:
        """The StorageClass name the cluster maps ``storage_role`` to."""
        return self._storage_class


class DataVolume(VolumeClaim):
    """Deprecated alias of :class:`VolumeClaim` (same props and output), removed in trainops 0.3.

    Renamed because KubeVirt's Containerized Data Importer defines a ``DataVolume`` custom resource
    (https://github.com/kubevirt/containerized-data-importer/blob/main/doc/datavolumes.md).
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        warnings.warn(
            "DataVolume is deprecated and will be removed in trainops 0.3: use VolumeClaim",
            DeprecationWarning,
            stacklevel=2,
        )
        super().__init__(*args, **kwargs)
