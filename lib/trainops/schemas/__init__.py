"""Schema sources: the CRD catalog, conversion to JSON Schema, the cache and the registry."""
