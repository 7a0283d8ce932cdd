"""``DataPrepJob``: a run-once batch/v1 Job that fills a dataset volume from object storage."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from trainops.constructs._core.argocd import run_once_annotations
from trainops.constructs._core.base import Construct, ObjectConstruct, require_name, run_once_name
from trainops.constructs._core.kueue import multikueue_managed_by, queue_labels
from trainops.constructs._core.pod import (
    container_security_context,
    env_entries,
    guaranteed_resources,
    pod_security_context,
    resolve_mount,
    scratch_volumes,
)
from trainops.constructs._core.props import (
    require_env,
    require_image,
    require_quantity,
    require_strings,
    require_whole,
)
from trainops.constructs._core.protocols import ClaimSource
from trainops.core.cluster import Cluster

_KIND = "DataPrepJob"
#: The container's name.
CONTAINER_NAME = "prepare"
#: Environment variables the container gets: the source URI and the target directory.
SOURCE_ENV, TARGET_ENV = "SOURCE_URI", "TARGET_DIR"
#: Job names become the value of the pods' ``batch.kubernetes.io/job-name`` label (≤ 63 characters);
#: the run-once suffix takes 7.
MAX_BASE_NAME = 56
_URI = re.compile(r"^(s3|gs|gcs|az|abfs|oss|hdfs|https?)://[^\s]+$")


class DataPrepJob(ObjectConstruct):
    """A batch/v1 Job that copies a dataset from object storage into a PersistentVolumeClaim.

    The container runs ``command`` with ``SOURCE_URI`` (the object-storage URI) and ``TARGET_DIR``
    (where the volume is mounted) in its environment; credentials come only from a Secret named by
    ``credentials_secret`` (``envFrom``), never from values in the manifest. Like every run-once
    object it is named ``<name>-<hash6>`` from its spec (a changed source or command is a new Job;
    a Job's pod template is immutable), has no ``ttlSecondsAfterFinished`` (Argo CD would re-create
    a deleted Job), ``restartPolicy: OnFailure`` with a ``backoffLimit``, and the secure pod defaults
    (non-root, read-only root filesystem with ``/tmp`` on an emptyDir, no privilege escalation).

    Args:
        scope: the parent construct (a Chart with a namespace).
        id: construct id.
        cluster: target cluster.
        name: base name, a DNS-1123 label of at most 56 characters.
        image: copy tool image with a tag or digest (e.g. rclone or the cloud CLI).
        command: the copy command (reads ``$SOURCE_URI``, writes ``$TARGET_DIR``).
        source: object-storage URI, e.g. ``s3://bucket/imagenet/`` (s3, gs, gcs, az, abfs, oss,
            hdfs, http(s)).
        volume: the dataset ``VolumeClaim`` (or claim name) to fill.
        path: where the volume is mounted. Default: ``/data``.
        credentials_secret: name of a Secret whose keys become environment variables (e.g.
            ``AWS_ACCESS_KEY_ID``), or ``None`` for public or workload-identity access. Default: ``None``.
        env: more environment variables (never credentials). Default: none.
        cpu: cpu cores (quantity string). Default: ``"1"``.
        memory: memory bytes (quantity string). Default: ``"2Gi"``.
        backoff_limit: retries before the Job fails. Default: 3.
        active_deadline_seconds: wall-clock limit in seconds, or ``None``. Default: ``None``.
        queue: Kueue LocalQueue name (Kueue manages batch/v1 Jobs too), or ``None``. Default: ``None``.
            On a MultiKueue manager a queued job gets ``spec.managedBy: kueue.x-k8s.io/multikueue``.

    Raises:
        ValueError: a bad prop (quoting prop and value), e.g. a source that is not a URI.

    Source: https://kubernetes.io/docs/concepts/workloads/controllers/job/
    """

    KIND = "Job"
    API_VERSION = "batch/v1"

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        cluster: Cluster,
        name: str,
        image: str,
        command: Sequence[str],
        source: str,
        volume: ClaimSource | str,
        path: str = "/data",
        credentials_secret: str | None = None,
        env: Mapping[str, str] | None = None,
        cpu: str = "1",
        memory: str = "2Gi",
        backoff_limit: int = 3,
        active_deadline_seconds: int | None = None,
        queue: str | None = None,
    ) -> None:
        super().__init__(scope, id)
        base = require_name(_KIND, "name", name, max_length=MAX_BASE_NAME)
        if not isinstance(source, str) or not _URI.match(source):
            raise ValueError(
                f"{_KIND} source={source!r}: must be an object-storage URI such as s3://bucket/prefix/"
            )
        commands = require_strings(_KIND, "command", command)
        if not commands:
            raise ValueError(f"{_KIND} command={command!r}: must not be empty")
        extra = require_env(_KIND, "env", env or {})
        clash = sorted({SOURCE_ENV, TARGET_ENV} & set(extra))
        if clash:
            raise ValueError(f"{_KIND} env: {', '.join(clash)} is set by the construct from source and path")
        mount = resolve_mount(_KIND, "volume", volume, path, read_only=False, pods=1)
        self._source = source
        self._claim = mount.claim_name
        volumes, mounts = scratch_volumes(shm_size=None, tmp=True)
        container: dict[str, Any] = {
            "name": CONTAINER_NAME,
            "image": require_image(_KIND, "image", image),
            "command": list(commands),
            "env": env_entries({SOURCE_ENV: source, TARGET_ENV: path, **extra}),
            "resources": guaranteed_resources(
                require_quantity(_KIND, "cpu", cpu),
                require_quantity(_KIND, "memory", memory, whole_bytes=True),
                {},
            ),
            "securityContext": container_security_context(),
            "volumeMounts": [*mounts, mount.volume_mount()],
        }
        if credentials_secret is not None:
            container["envFrom"] = [
                {"secretRef": {"name": require_name(_KIND, "credentials_secret", credentials_secret)}}
            ]
        spec: dict[str, Any] = {
            "backoffLimit": require_whole(_KIND, "backoff_limit", backoff_limit, minimum=0),
            "template": {
                "spec": {
                    "restartPolicy": "OnFailure",
                    "automountServiceAccountToken": False,
                    "securityContext": pod_security_context(),
                    "containers": [container],
                    "volumes": [*volumes, mount.volume()],
                }
            },
        }
        if active_deadline_seconds is not None:
            spec["activeDeadlineSeconds"] = require_whole(
                _KIND, "active_deadline_seconds", active_deadline_seconds, minimum=1
            )
        labels = queue_labels(_KIND, cluster, queue, None)
        managed_by = multikueue_managed_by(cluster, labels)
        if managed_by is not None:
            spec["managedBy"] = managed_by
        self._name = run_once_name(base, spec)
        self.emit_object(
            {"spec": spec},
            labels=labels,
            annotations=run_once_annotations(),
        )

    @property
    def source(self) -> str:
        """The object-storage URI copied."""
        return self._source

    @property
    def claim_name(self) -> str:
        """The claim the Job fills."""
        return self._claim
