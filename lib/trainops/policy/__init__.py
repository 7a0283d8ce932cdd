"""The policy engine: rule modules in the repository's ``policies/`` (yamllint shape), a strict
config that extends ``policies/default.yaml``, waivers by annotation, cluster facts, and an engine
that runs single-object rules per document and cross-object rules once over the whole set.

Modules: :mod:`~trainops.policy.rule` (the rule shape), :mod:`~trainops.policy.pack` (loading
``policies/``), :mod:`~trainops.policy.config`, :mod:`~trainops.policy.facts`,
:mod:`~trainops.policy.waivers`, :mod:`~trainops.policy.engine`, :mod:`~trainops.policy.docs`
(``policy list`` and ``policies/README.md``), :mod:`~trainops.policy.pods` (helpers for rules).
"""

from __future__ import annotations
