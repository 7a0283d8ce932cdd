"""YAML as the API server reads it: loading (PyYAML + a rapidyaml fast path) and dumping."""
