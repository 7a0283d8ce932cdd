"""Images are pinned: a tag other than ``latest`` or a digest; a digest when ``require-digest`` is set.

Why: ``latest`` (or no tag) makes the same manifest run different code on every pull, so a rerun of
a training job is not a rerun, and Argo CD sees no diff when the image changes.

Options: ``require-digest``: require ``@sha256:...`` on every image.

Default: enabled, level error, ``require-digest: false``.

PASS:

    apiVersion: v1
    kind: Pod
    metadata: {name: train}
    spec:
      containers: [{name: train, image: registry.example.com/ml/train:2.2.0}]

FAIL:

    apiVersion: v1
    kind: Pod
    metadata: {name: train}
    spec:
      containers: [{name: train, image: registry.example.com/ml/train}]

Remediation: Use an explicit version tag (or a sha256 digest) instead of latest.

Source: https://kubernetes.io/docs/concepts/containers/images/#image-names
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from trainops.findings import Issue, Level
from trainops.policy.images import normalise
from trainops.policy.pods import POD_KINDS, all_containers
from trainops.policy.rule import Context, describe
from trainops.rules import register

ID = "image-pinned"
LEVEL: Level = "error"
KINDS = POD_KINDS
CONF: dict[str, dict[str, Any]] = {"require-digest": {"type": "boolean"}}
DEFAULT: dict[str, Any] = {"require-digest": False}
RULE = register(describe(ID, LEVEL, __doc__))


def check(conf: Mapping[str, Any], obj: dict[str, Any], ctx: Context) -> Iterator[Issue]:
    """Each container image without a tag or digest, tagged latest, or lacking a required digest."""
    for container in all_containers(obj):
        image = container.get("image")
        if not isinstance(image, str) or "${" in image:
            continue
        ref = normalise(image)
        where = container.at("image")
        if conf["require-digest"] and not ref.digest:
            yield Issue(
                where, f'container "{container.name}" image {image} has no digest (require-digest)', ID
            )
        elif not ref.digest and (ref.tag is None or _moving(ref.tag)):
            shown = f"is tagged {ref.tag}" if ref.tag else "has no tag (means latest)"
            yield Issue(where, f'container "{container.name}" image {image} {shown}', ID)


def _moving(tag: str) -> bool:
    """``latest`` or a variant of it (``latest-gpu``, ``gpu-latest``: Docker Hub's moving tags)."""
    return tag == "latest" or tag.startswith("latest-") or tag.endswith("-latest")
