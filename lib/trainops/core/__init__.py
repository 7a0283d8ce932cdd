"""The bottom layer of trainops: what every other package may import, importing nothing of them.

Modules: :mod:`~trainops.core.findings` (findings, issues, results), :mod:`~trainops.core.errors`
(the exit-code errors), :mod:`~trainops.core.rules` (the rule registry),
:mod:`~trainops.core.kinds` (the one kinds table), :mod:`~trainops.core.cluster` (cluster facts, also
public as :mod:`trainops.cluster`), :mod:`~trainops.core.naming` (Kubernetes names),
:mod:`~trainops.core.quantity` (resource quantities), :mod:`~trainops.core.hashing` (content hashes),
:mod:`~trainops.core.atomic` (atomic writes), :mod:`~trainops.core.credentials` (secret detection),
:mod:`~trainops.core.forking` (the process pool) and :mod:`~trainops.core.nodeenv` (Node.js for jsii).
"""

from __future__ import annotations
