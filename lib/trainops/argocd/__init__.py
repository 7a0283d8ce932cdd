"""Argo CD integration: Lua health checks for training kinds, a typed REST client and the ``argocd`` commands."""
