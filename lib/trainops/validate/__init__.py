"""Offline validation of Kubernetes manifests: YAML loading, schema registry, strict checks."""
