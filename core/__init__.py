"""sitemapkit: correct, deterministic Sitemaps (sitemaps.org 0.9) for static sites.

The core is generator-free: adapters (``sitemapkit.plugins.mkdocs``, ``.pelican``,
``.sphinx``) and the command line translate their inputs into :class:`Options` and
:class:`Page` and call :func:`build_site`, which returns a :class:`Report`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .protocol.errors import ConfigError, LastmodError, OutputError, SitemapkitError, UrlError
from .protocol.languages import language_tag
from .protocol.urls import encode_path, path_of_file
from .protocol.limits import (
    DEFAULT_MAX_BYTES,
    MAX_BYTES_CEILING,
    MAX_LOC_LENGTH,
    MAX_SITEMAPS_PER_INDEX,
    MAX_URLS_PER_SITEMAP,
)
from .protocol.model import (
    CHANGEFREQ_VALUES,
    ERROR_PAGES,
    Excluded,
    Notice,
    Options,
    OptionSpec,
    Page,
    Report,
    unknown_option,
)

if TYPE_CHECKING:
    from .site.lastmod import LastmodResult, resolve_lastmods
    from .engine.pages import build_site
    from .site.frontmatter import FRONT_MATTER_DATE_ADVICE, front_matter_lastmod, front_matter_listed

from .protocol.version import __version__

# Imported on first use: `sitemapkit generate` on a million URLs starts without
# the page machinery (HTML checks, git), and every build pays less start-up.
_LAZY = {
    "build_site": "engine.pages",
    "resolve_lastmods": "site.lastmod",
    "LastmodResult": "site.lastmod",
    "front_matter_lastmod": "site.frontmatter",
    "front_matter_listed": "site.frontmatter",
    "FRONT_MATTER_DATE_ADVICE": "site.frontmatter",
}


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "CHANGEFREQ_VALUES",
    "DEFAULT_MAX_BYTES",
    "ERROR_PAGES",
    "MAX_BYTES_CEILING",
    "MAX_LOC_LENGTH",
    "MAX_SITEMAPS_PER_INDEX",
    "MAX_URLS_PER_SITEMAP",
    "ConfigError",
    "Excluded",
    "FRONT_MATTER_DATE_ADVICE",
    "LastmodError",
    "LastmodResult",
    "Notice",
    "OptionSpec",
    "Options",
    "OutputError",
    "Page",
    "Report",
    "SitemapkitError",
    "UrlError",
    "__version__",
    "build_site",
    "encode_path",
    "front_matter_lastmod",
    "front_matter_listed",
    "language_tag",
    "path_of_file",
    "resolve_lastmods",
    "unknown_option",
]
