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


#: Last path components of model-server images (the repository name, tag aside): TensorFlow
#: Serving, Triton, TorchServe, vLLM, Text Generation Inference, SGLang, KServe's and Seldon's
#: framework servers, MLServer, OpenVINO Model Server, Ollama, BentoML/LocalAI-style servers.
MODEL_SERVER_IMAGES = frozenset(
    {
        "serving",  # tensorflow/serving
        "tritonserver",
        "torchserve",
        "vllm-openai",
        "vllm",
        "text-generation-inference",
        "sglang",
        "sklearnserver",
        "xgbserver",
        "lgbserver",
        "pmmlserver",
        "paddleserver",
        "huggingfaceserver",
        "mlserver",
        "model_server",  # openvino/model_server
        "ollama",
        "localai",
    }
)
#: Container arguments and variables that name the model a server loads.
MODEL_SERVER_FLAGS = ("--model", "--model_name", "--model_base_path", "--model-repository", "--model-store")
MODEL_SERVER_ENV = frozenset({"MODEL_NAME", "MODEL_BASE_PATH", "MODEL_ID", "MODEL_REPOSITORY"})


def is_model_server(container: dict[str, object]) -> bool:
    """Whether a container serves a model (so it loads weights before it is ready): its image is a
    known model server (:data:`MODEL_SERVER_IMAGES`), an argument names a model
    (:data:`MODEL_SERVER_FLAGS`, ``--flag`` or ``--flag=value``), or a variable does
    (:data:`MODEL_SERVER_ENV`)."""
    image = container.get("image")
    if isinstance(image, str) and image:
        repository = normalise(image).name.rsplit("/", 1)[-1]
        if repository in MODEL_SERVER_IMAGES:
            return True
    for field in ("command", "args"):
        items = container.get(field)
        for item in items if isinstance(items, list) else []:
            if isinstance(item, str) and item.split("=", 1)[0] in MODEL_SERVER_FLAGS:
                return True
    env = container.get("env")
    return any(
        isinstance(e, dict) and e.get("name") in MODEL_SERVER_ENV
        for e in (env if isinstance(env, list) else [])
    )
