"""trainops: Python GitOps manifest generator and validator for ML platforms on Kubernetes."""

from __future__ import annotations

__version__ = "0.1.0"
