"""The files of a new trainops repository (``trainops init``), rendered from the templates shipped
in the package (``trainops/templates/init/``).

A repository holds the ``apps`` package (``__init__.py`` with ``APPS``, ``clusters.py`` with the
target clusters, ``ml_platform.py``: the platform app creating the namespaces ``ml-training`` and
``ml-serving`` that Argo CD's Applications deploy into, ``__main__.py`` for ``cdk8s synth``), ``policies/config.yaml`` extending the
default rule pack, ``.gitignore``, a README, ``cdk8s.yaml``, the GitHub Actions workflow, the
pre-commit configuration and CODEOWNERS; optionally a first app written by the scaffold of
``trainops new``.
"""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass
from importlib import resources
from typing import Literal

from trainops import __version__
from trainops.scaffold.files import File
from trainops.scaffold.register import register
from trainops.scaffold.source import q
from trainops.scaffold.templates import TEMPLATES, Request, module_name

#: ``--example`` choices → the scaffold request of the first app.
Example = Literal["pytorchjob", "serving"]
EXAMPLES: dict[Example, Request] = {
    "pytorchjob": Request(
        kind="pytorchjob",
        name="example-train",
        image="registry.example.com/ml/train:1.0.0",
        command=("python", "train.py"),
        gpus=1,
        workers=2,
    ),
    "serving": Request(
        kind="serving",
        name="example-serve",
        image="registry.example.com/ml/serve:1.0.0",
        namespace="ml-serving",
    ),
}

#: Operators of the default cluster (their releases come from the shipped CRD catalog): the
#: Kubeflow Training Operator for jobs, the Prometheus Operator for monitors, Argo CD for delivery.
DEFAULT_OPERATORS: tuple[str, ...] = ("training-operator", "prometheus-operator", "argo-cd")
DEFAULT_CLUSTER = "dev"
DEFAULT_ARGOCD_SERVER = "https://kubernetes.default.svc"
#: ``Cluster.repo_url``'s placeholder, written when ``--repo-url`` is not given.
PLACEHOLDER_REPO_URL = "https://git.example.com/ml/platform.git"

#: Files whose content follows the trainops release (``--force`` may rewrite them after an upgrade).
WORKFLOW = ".github/workflows/trainops.yml"
PRE_COMMIT = ".pre-commit-config.yaml"
CODEOWNERS = ".github/CODEOWNERS"
APPS_INIT = "apps/__init__.py"


@dataclass(frozen=True)
class RepositorySpec:
    """What ``trainops init`` writes.

    Args:
        name: the repository's name, for the README title.
        cluster: the cluster's name (a DNS-1123 label).
        kubernetes_version: its Kubernetes minor, ``"1.N"``.
        operators: operator → release tag, in the order written.
        argocd_server: the destination cluster's API URL as Argo CD knows it.
        repo_url: the git repository Argo CD reads; ``None`` writes :data:`PLACEHOLDER_REPO_URL`
            with a note to replace it.
        install_spec: what ``pip install`` installs in CI. Default: ``trainops==<this version>``.
        example: a first app to add. Default: none.
        with_apps: write the ``apps`` package (``False`` when one exists: it is the user's).
        ci_shards: split ``trainops ci`` over this many GitHub Actions runners (a matrix of
            ``trainops ci --shard K/N`` jobs and a ``trainops ci --merge`` job); 1 writes the
            single-job workflow. Default: 1.
    """

    name: str
    cluster: str
    kubernetes_version: str
    operators: dict[str, str]
    argocd_server: str = DEFAULT_ARGOCD_SERVER
    repo_url: str | None = None
    install_spec: str = f"trainops=={__version__}"
    example: Example | None = None
    with_apps: bool = True
    ci_shards: int = 1


def template(name: str) -> str:
    """The text of the shipped template ``trainops/templates/init/<name>``."""
    return resources.files("trainops").joinpath("templates", "init", name).read_text(encoding="utf-8")


def _fill(text: str, values: dict[str, str]) -> str:
    """Replace each ``@KEY@`` of ``text`` by ``values[KEY]``; every placeholder must be known."""

    def one(match: re.Match[str]) -> str:
        return values[match.group(1)]

    return re.sub(r"@([A-Z_]+)@", one, text)


def clusters_module(spec: RepositorySpec) -> str:
    """The text of ``apps/clusters.py``: one :class:`~trainops.cluster.Cluster`."""
    operators = (
        "{\n" + "".join(f"            {q(k)}: {q(v)},\n" for k, v in spec.operators.items()) + "        }"
    )
    note = (
        "\n#: A placeholder: replace it with your repository's URL (`trainops init --repo-url URL`)."
        if spec.repo_url is None
        else ""
    )
    return _fill(
        template("clusters.py.tmpl"),
        {
            "REPO_URL": q(spec.repo_url or PLACEHOLDER_REPO_URL),
            "REPO_URL_NOTE": note,
            "CLUSTER": q(spec.cluster),
            "KUBERNETES_VERSION": q(spec.kubernetes_version),
            "OPERATORS": operators,
            "ARGOCD_SERVER": q(spec.argocd_server),
        },
    )


def workflow(spec: RepositorySpec, values: dict[str, str]) -> str:
    """The GitHub Actions workflow: one ``trainops ci`` job, or with ``spec.ci_shards`` > 1 a matrix
    of ``trainops ci --shard K/N`` jobs joined by ``trainops ci --merge``."""
    if spec.ci_shards <= 1:
        return _fill(template("trainops.yml"), values)
    shards = {"SHARDS": str(spec.ci_shards), "SHARD_LIST": json.dumps(list(range(1, spec.ci_shards + 1)))}
    return _fill(template("trainops-shards.yml"), {**values, **shards})


def repository_files(spec: RepositorySpec) -> list[File]:
    """Every file of the repository ``spec`` describes, in the order ``init`` reports them."""
    shell_spec = shlex.quote(spec.install_spec)
    values = {
        "VERSION": __version__,
        "INSTALL_SPEC": shell_spec,
        "INSTALL_SPEC_YAML": json.dumps(spec.install_spec),  # a YAML double-quoted scalar
        "NAME": spec.name,
    }
    files: list[File] = []
    if spec.with_apps:
        apps_init = template("apps-init.py.tmpl")
        example: File | None = None
        if spec.example is not None:
            request = EXAMPLES[spec.example]
            module = module_name(request.name)
            apps_init = register(apps_init, module)
            example = File(f"apps/{module}.py", TEMPLATES[request.kind](request))
        files += [
            File(APPS_INIT, apps_init),
            File("apps/clusters.py", clusters_module(spec)),
            File("apps/__main__.py", template("apps-main.py.tmpl")),
            File("apps/ml_platform.py", template("apps-platform.py.tmpl")),
        ]
        if example is not None:
            files.append(example)
    files += [
        File("policies/config.yaml", template("policies-config.yaml")),
        File(".gitignore", template("gitignore")),
        File("README.md", _fill(template("README.md"), values)),
        File("cdk8s.yaml", template("cdk8s.yaml")),
        File(WORKFLOW, workflow(spec, values), replaceable=True),
        File(PRE_COMMIT, _fill(template("pre-commit-config.yaml"), values), replaceable=True),
        File(CODEOWNERS, template("CODEOWNERS"), replaceable=True),
    ]
    return files
