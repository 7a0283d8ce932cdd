"""Images come from allowed registries (an option; empty allows every registry).

Why: an image from an unvetted registry runs unknown code next to the training data and credentials;
a pull-through mirror also keeps large GPU images cached close to the cluster.

Options: ``registries``: allowed prefixes of the normalised image name (``docker.io/library/python``
for ``python``), e.g. ``registry.example.com/`` or ``docker.io/tensorflow/``. Empty: not checked.

Default: enabled, level error, ``registries: []``.

PASS:

    apiVersion: v1
    kind: Pod
    metadata: {name: train}
    spec:
      containers: [{name: train, image: registry.example.com/ml/train:1.0}]

FAIL:

    apiVersion: v1
    kind: Pod
    metadata: {name: train}
    spec:
      containers: [{name: train, image: evil.example.org/train:1.0}]

Remediation: Pull the image from an allowed registry (mirror it there) or add its registry to the registries option.

Source: https://github.com/distribution/reference/blob/main/normalize.go (ParseNormalizedNamed, splitDockerDomain)
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from trainops.findings import Issue, Level
from trainops.policy.images import normalise
from trainops.policy.pods import POD_KINDS, all_containers
from trainops.policy.rule import Context, describe
from trainops.rules import register

ID = "allowed-registries"
LEVEL: Level = "error"
KINDS = POD_KINDS
CONF: dict[str, dict[str, Any]] = {"registries": {"type": "array", "items": {"type": "string"}}}
DEFAULT: dict[str, Any] = {"registries": []}
RULE = register(describe(ID, LEVEL, __doc__))


def check(conf: Mapping[str, Any], obj: dict[str, Any], ctx: Context) -> Iterator[Issue]:
    """Each container image whose normalised name starts with no allowed prefix."""
    registries: list[str] = list(conf["registries"])
    if not registries:
        return
    for container in all_containers(obj):
        image = container.get("image")
        if not isinstance(image, str) or "${" in image:
            continue
        name = normalise(image).name
        if not any(name.startswith(prefix) for prefix in registries):
            yield Issue(
                container.at("image"),
                f'container "{container.name}" image {image} is not from an allowed registry '
                f"({', '.join(registries)})",
                ID,
            )
