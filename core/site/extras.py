"""The optional libraries that reading a project's configuration needs (the
``config`` extra: PyYAML, pathspec, and tomli on Python 3.10), and the one line
said when one is missing. Nothing here imports them."""

from __future__ import annotations

from ..protocol.errors import SitemapkitError

#: What installs the ``config`` extra (pyproject.toml).
CONFIG_EXTRA_INSTALL = 'pip install "sitemapkit[config]"'


def missing_config_library(library: str) -> SitemapkitError:
    """The one line for a library of the ``config`` extra that is not installed."""
    return SitemapkitError(
        f"--config reads the project with PyYAML and pathspec, and {library} is not installed: {CONFIG_EXTRA_INSTALL}"
    )
