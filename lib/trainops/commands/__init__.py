"""One module per command: parse options into a frozen dataclass, run, return an exit code."""
