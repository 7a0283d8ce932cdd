"""YAML as the API server reads it: loading (PyYAML, LibYAML) and dumping."""
