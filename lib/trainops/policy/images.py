"""Container image references as the container runtime reads them.

Mirrors ``github.com/distribution/reference`` ``normalize.go`` (``ParseNormalizedNamed``,
``splitDockerDomain``): the first path component is a registry when it contains ``.`` or ``:`` or is
``localhost``; otherwise the registry is ``docker.io`` and one-component names get ``library/``.
"""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_DOMAIN = "docker.io"
LEGACY_DEFAULT_DOMAIN = "index.docker.io"
OFFICIAL_REPO_PREFIX = "library/"


@dataclass(frozen=True)
class ImageRef:
    """A parsed image reference.

    Args:
        name: the normalised repository, e.g. ``docker.io/library/python``.
        tag: the tag, or ``None`` (no tag means ``latest`` to the runtime).
        digest: the digest (``sha256:...``), or ``None``.
    """

    name: str
    tag: str | None
    digest: str | None


def normalise(image: str) -> ImageRef:
    """Parse ``image`` (``[registry/]path[:tag][@digest]``) into its normalised parts."""
    rest, _, digest = image.partition("@")
    slash = rest.rfind("/")
    colon = rest.rfind(":")
    tag = None
    if colon > slash:
        rest, tag = rest[:colon], rest[colon + 1 :]
    domain, _, remainder = rest.partition("/")
    if not remainder or ("." not in domain and ":" not in domain and domain != "localhost"):
        domain, remainder = DEFAULT_DOMAIN, rest
    if domain == LEGACY_DEFAULT_DOMAIN:
        domain = DEFAULT_DOMAIN
    if domain == DEFAULT_DOMAIN and "/" not in remainder:
        remainder = OFFICIAL_REPO_PREFIX + remainder
    return ImageRef(f"{domain}/{remainder}", tag or None, digest or None)
