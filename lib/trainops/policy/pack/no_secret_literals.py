"""Environment variables whose names say secret, token, password or key take their value from a
Secret (``valueFrom``), never a literal ``value``; nor does any variable hold a credential as its
literal value, whatever its name (a PEM private key, a cloud access key, an API token: the detectors
of detect-secrets, as the validator's ``secret-literal`` runs them).

Why: a literal lands in Git, in the rendered manifest, in Argo CD's UI and in every ``kubectl get
-o yaml``; rotating it means a commit. A secretKeyRef keeps the value in the cluster. Findings never
quote the value.

Options: ``words``: name words (split on ``_``, ``-``, ``.``; case-insensitive) that mark a secret.
``ignore-words``: name words that mark a setting about a secret rather than the secret itself
(``PASSWORD_FILE`` is a path, ``ALLOW_EMPTY_PASSWORD`` a flag).

Default: enabled, level error, ``words: [SECRET, TOKEN, PASSWORD, PASSWD, KEY, APIKEY, CREDENTIAL, CREDENTIALS]``,
``ignore-words: [FILE, PATH, DIR, ALLOW, EMPTY, ENABLE, ENABLED, DISABLE, DISABLED]``.

PASS:

    apiVersion: v1
    kind: Pod
    metadata: {name: train}
    spec:
      containers:
      - name: train
        image: registry.example.com/train:1.0
        env:
        - name: WANDB_API_KEY
          valueFrom: {secretKeyRef: {name: wandb, key: api-key}}

FAIL:

    apiVersion: v1
    kind: Pod
    metadata: {name: train}
    spec:
      containers:
      - name: train
        image: registry.example.com/train:1.0
        env:
        - {name: HF_TOKEN, value: hf_abc123}

Remediation: Store the value in a Secret and reference it with env[].valueFrom.secretKeyRef.

Source: https://docs.kubelinter.io/#/generated/checks?id=env-var-secret
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from trainops.core.credentials import credential_in
from trainops.core.findings import Issue, Level
from trainops.core.rules import register
from trainops.policy.pods import POD_KINDS, all_containers
from trainops.policy.rule import Context, describe

ID = "no-secret-literals"
LEVEL: Level = "error"
KINDS = POD_KINDS
CONF: dict[str, dict[str, Any]] = {
    "words": {"type": "array", "items": {"type": "string"}},
    "ignore-words": {"type": "array", "items": {"type": "string"}},
}
DEFAULT: dict[str, Any] = {
    "words": ["SECRET", "TOKEN", "PASSWORD", "PASSWD", "KEY", "APIKEY", "CREDENTIAL", "CREDENTIALS"],
    "ignore-words": ["FILE", "PATH", "DIR", "ALLOW", "EMPTY", "ENABLE", "ENABLED", "DISABLE", "DISABLED"],
}
RULE = register(describe(ID, LEVEL, __doc__))

_SPLIT = re.compile(r"[^A-Za-z0-9]+")


def check(conf: Mapping[str, Any], obj: dict[str, Any], ctx: Context) -> Iterator[Issue]:
    """Each env entry with a non-empty literal value and a secret-like name, or whatever its name a
    value holding a credential (:func:`trainops.core.credentials.credential_in`: detect-secrets'
    detectors, a PEM private key, a cloud access key, a token...); the value is never shown."""
    words = {str(w).upper() for w in conf["words"]}
    ignored = {str(w).upper() for w in conf["ignore-words"]}
    for container in all_containers(obj):
        env = container.get("env")
        for index, item in enumerate(env if isinstance(env, list) else []):
            if not isinstance(item, dict):
                continue
            name, value = item.get("name"), item.get("value")
            if not isinstance(name, str) or not isinstance(value, str) or not value or "${" in value:
                continue
            tokens = set(_SPLIT.split(name.upper()))
            if tokens & words and not tokens & ignored:
                yield Issue(
                    container.at("env", index, "value"),
                    f'container "{container.name}" sets {name} as a literal value (use valueFrom.secretKeyRef)',
                    ID,
                )
                continue
            found = credential_in(value)
            if found is not None:
                yield Issue(
                    container.at("env", index, "value"),
                    f'container "{container.name}" sets {name} to a literal {found} (use valueFrom.secretKeyRef)',
                    ID,
                )
