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
    is_error_page,
    unknown_option,
)
from .protocol.hostsettings import (
    COMMAND_LINE_SETTINGS,
    MKDOCS_SETTINGS,
    PELICAN_SETTINGS,
    READ_THE_DOCS_URL,
    SPHINX_SETTINGS,
    SettingNames,
    base_url_setting,
    beside_config_file,
    development_base_url,
    is_local_address,
)

if TYPE_CHECKING:
    from .site.lastmod import LastmodResult, archive_lastmods, resolve_lastmods
    from .engine.companion import XML_COMPANION_NOTE, build_xml_companion
    from .engine.pages import build_site
    from .site.frontmatter import FRONT_MATTER_DATE_ADVICE, front_matter_lastmod, front_matter_listed

from .protocol.version import __version__

# Imported on first use: `sitemapkit generate` on a million URLs starts without
# the page machinery (HTML checks, git), and every build pays less start-up.
_LAZY = {
    "build_site": "engine.pages",
    "build_xml_companion": "engine.companion",
    "XML_COMPANION_NOTE": "engine.companion",
    "resolve_lastmods": "site.lastmod",
    "archive_lastmods": "site.lastmod",
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
    "COMMAND_LINE_SETTINGS",
    "DEFAULT_MAX_BYTES",
    "ERROR_PAGES",
    "MAX_BYTES_CEILING",
    "MAX_LOC_LENGTH",
    "MAX_SITEMAPS_PER_INDEX",
    "MAX_URLS_PER_SITEMAP",
    "MKDOCS_SETTINGS",
    "PELICAN_SETTINGS",
    "READ_THE_DOCS_URL",
    "SPHINX_SETTINGS",
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
    "SettingNames",
    "SitemapkitError",
    "UrlError",
    "XML_COMPANION_NOTE",
    "__version__",
    "archive_lastmods",
    "base_url_setting",
    "beside_config_file",
    "build_site",
    "build_xml_companion",
    "development_base_url",
    "encode_path",
    "front_matter_lastmod",
    "front_matter_listed",
    "is_error_page",
    "is_local_address",
    "language_tag",
    "path_of_file",
    "resolve_lastmods",
    "unknown_option",
]
