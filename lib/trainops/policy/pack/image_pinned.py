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

from typing import Any

from trainops.findings import Level
from trainops.policy.admission import Variable, violations
from trainops.policy.celrule import CelRule
from trainops.policy.pods import POD_KINDS
from trainops.policy.rule import describe
from trainops.rules import register

ID = "image-pinned"
LEVEL: Level = "error"
KINDS = POD_KINDS
CONF: dict[str, dict[str, Any]] = {"require-digest": {"type": "boolean"}}
DEFAULT: dict[str, Any] = {"require-digest": False}
RULE = register(describe(ID, LEVEL, __doc__))

#: Each container image (Katib ``${...}`` placeholders aside) split as
#: :func:`trainops.policy.images.normalise` does: ``[registry/]path[:tag][@digest]``.
_IMAGES = (
    "variables.containers.filter(c, has(c.value.image) && type(c.value.image) == string "
    "&& !c.value.image.contains('${'))"
    ".map(c, {'path': dyn(c.path + '.image'), 'name': dyn(c.name), 'image': dyn(c.value.image), "
    "'digest': dyn(c.value.image.indexOf('@') >= 0 && c.value.image.substring(c.value.image.indexOf('@') + 1) != ''), "
    "'rest': dyn(c.value.image.split('@')[0])})"
    ".map(i, {'path': i.path, 'name': i.name, 'image': i.image, 'digest': i.digest, "
    "'tag': dyn(i.rest.lastIndexOf(':') > i.rest.lastIndexOf('/') ? i.rest.substring(i.rest.lastIndexOf(':') + 1) : '')})"
)

#: Each image without a tag or digest, tagged latest or a variant of it (``latest-gpu``, ``gpu-latest``:
#: Docker Hub's moving tags), or lacking a digest when ``require-digest``.
CEL = CelRule(
    pods=True,
    variables=(
        Variable("images", _IMAGES),
        Variable(
            "unpinned",
            "variables.images.map(i, "
            "params.data['require-digest'] == 'true' && !i.digest ? "
            "[{'path': string(i.path), 'message': 'container \"' + string(i.name) + '\" image ' + string(i.image) + "
            "' has no digest (require-digest)'}] : "
            "!i.digest && (i.tag == '' || i.tag == 'latest' || i.tag.startsWith('latest-') || i.tag.endsWith('-latest')) ? "
            "[{'path': string(i.path), 'message': 'container \"' + string(i.name) + '\" image ' + string(i.image) + "
            "' ' + (i.tag != '' ? 'is tagged ' + string(i.tag) : 'has no tag (means latest)')}] : []).flatten()",
        ),
    ),
    validations=(violations("variables.unpinned", message="a container image is not pinned"),),
)
