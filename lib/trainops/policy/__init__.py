"""The policy engine: the default rule pack (:mod:`trainops.policy.pack`, yamllint shape) plus a
repository's own rules in ``policies/``, a strict config that extends the default pack's
``default.yaml``, waivers by annotation, cluster facts, and an engine that runs single-object rules
per document and cross-object rules once over the whole set.

Modules: :mod:`~trainops.policy.rule` (the rule shape), :mod:`~trainops.policy.pack` (the default
pack), :mod:`~trainops.policy.loader` (loading it and ``policies/``), :mod:`~trainops.policy.config`,
:mod:`~trainops.policy.facts`, :mod:`~trainops.policy.waivers`, :mod:`~trainops.policy.engine`,
:mod:`~trainops.policy.docs` (``policy list`` and the pack's ``README.md``),
:mod:`~trainops.policy.pods` (helpers for rules).
"""

from __future__ import annotations
