"""The release, as pyproject.toml gives it (a test keeps the two equal)."""

__version__ = "0.1.0"
