"""How a host tool's own settings reach the core, and the core's errors reach the user.

Each tool names the core's options in its own way (mkdocs.yml's
``plugins.sitemapkit.max_bytes``, Pelican's ``SITEMAPKIT['max_bytes']``, conf.py's
``sitemapkit_max_bytes``, ``--max-bytes``) and takes the base URL from a setting of
its own (``site_url``, ``SITEURL``, ``html_baseurl``, ``--base-url``). These rules
are the same in every tool: where the base URL comes from when the setting is
unset, which base URLs are development values that get no sitemap, which address
this machine, and how an error names the setting as the user wrote it.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from .errors import ConfigError, SitemapkitError
from .model import Options

#: Read the Docs sets this for every build: the URL the build is served at
#: (https://docs.readthedocs.com/platform/stable/reference/environment-variables.html).
READ_THE_DOCS_URL = "READTHEDOCS_CANONICAL_URL"


def base_url_setting(value: object, environ: Mapping[str, str]) -> str:
    """The base URL a tool's setting gives: the setting, or when it is unset the
    URL Read the Docs serves the build at (its projects often leave the setting
    unset). Empty when neither is set."""
    text = value.strip() if isinstance(value, str) else ""
    return text or environ.get(READ_THE_DOCS_URL, "").strip()


def development_base_url(base: str, *, setting: str, example: str) -> str | None:
    """The warning for a base URL that is a development value, for which no
    sitemap is written, or None when the base URL is meant to be published (and
    :class:`~sitemapkit.Options` checks it, naming a bad one as an error).

    A development value is an unset one, or one that is relative, as tools'
    development settings are: Pelican's ``SITEURL = ""``, ``/blog``,
    ``//example.org``; Sphinx's ``html_baseurl = "/"`` or ``"./docs/"``. A sitemap
    lists absolute URLs, so none can be written; the build goes on, and strict
    modes fail on the warning. An absolute URL missing its scheme
    (``docs.example.org``) is no development value but a mistake: an error.

    ``setting`` names the tool's setting, ``example`` shows it set in the tool's
    own syntax (``site_url: https://example.org/``).
    """
    text = base.strip()
    if not text:
        reason = "is not set"
    elif text.startswith(("/", ".")):
        reason = f"{text!r} is a relative URL"
    else:
        return None
    return (
        f"no sitemap written: {setting} {reason}, and a sitemap lists absolute URLs; "
        f"set it to the address the site is published at, e.g. {example}"
    )


def is_local_address(base_url: str) -> bool:
    """Whether ``base_url`` addresses this machine: a preview (``mkdocs serve``'s
    ``http://127.0.0.1:8000/``, ``localhost``, ``0.0.0.0`` in a container). Its
    sitemap is still written, for the pages that read it in the browser
    (Material's instant navigation), but nothing is published from it, so the
    build gives no advice about publishing (the robots.txt line to add)."""
    try:
        host = urlsplit(base_url.strip()).hostname or ""
    except ValueError:
        return False
    if host == "localhost" or host.endswith(".localhost"):
        return True
    import ipaddress

    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_loopback or address.is_unspecified


#: The options that name a folder or file of the user's (Options' own field names).
FOLDER_OPTIONS = ("stylesheet_template",)


def beside_config_file(settings: Mapping[str, Any], config_dir: Path | str | None) -> dict[str, Any]:
    """``settings`` with each relative folder an option names (FOLDER_OPTIONS)
    read from ``config_dir``, the folder of the tool's configuration file
    (mkdocs.yml, conf.py), as the tool reads its own paths. Without one (the
    command line's flags), they stay relative to the current folder."""
    values = dict(settings)
    if config_dir is None:
        return values
    for name in FOLDER_OPTIONS:
        value = values.get(name)
        if isinstance(value, str) and value:
            values[name] = os.path.join(config_dir, value)
    return values


@dataclasses.dataclass(frozen=True)
class SettingNames:
    """How one tool names the core's options: the base URL's own setting, and
    every other option ``spelled`` from its name. Every error the core raises
    about an option reaches the user through :meth:`message`, naming the setting
    as the user wrote it."""

    #: The tool's setting the base URL comes from (``site_url``, ``--base-url``).
    base_url: str
    #: An option's setting from the option's name (``max_bytes`` -> ``sitemapkit_max_bytes``).
    spelled: Callable[[str], str]

    def name(self, option: str) -> str:
        """The setting of the core's option ``option`` in this tool."""
        return self.base_url if option == "base_url" else self.spelled(option)

    def message(self, error: ConfigError) -> str:
        """The error's one line, naming the setting as the user wrote it."""
        return error.for_setting(self.name(error.option))


def _flag(option: str) -> str:
    return "--" + option.replace("_", "-")


#: The command line's flags: ``--base-url``, ``--max-bytes``.
COMMAND_LINE_SETTINGS = SettingNames("--base-url", _flag)
#: mkdocs.yml, for the MkDocs adapter and ``sitemapkit build --config``.
MKDOCS_SETTINGS = SettingNames("site_url", lambda option: f"plugins.sitemapkit.{option}")
#: pelicanconf.py's ``SITEURL`` and the ``SITEMAPKIT`` dict's keys.
PELICAN_SETTINGS = SettingNames("SITEURL", lambda option: f"SITEMAPKIT[{option!r}]")
#: conf.py's ``html_baseurl`` and ``sitemapkit_*`` config values.
SPHINX_SETTINGS = SettingNames("html_baseurl", lambda option: f"sitemapkit_{option}")
#: Hugo's ``baseURL`` (``sitemapkit build --config hugo.toml``; the other options are flags).
HUGO_SETTINGS = SettingNames("baseURL", _flag)
#: Jekyll's ``url`` (``sitemapkit build --config _config.yml``; the other options are flags).
JEKYLL_SETTINGS = SettingNames("url", _flag)


def project_options(
    config_file: str, settings: SettingNames, in_file: str | None, flag: str | None, flags: Mapping[str, Any]
) -> Options:
    """The :class:`~sitemapkit.Options` of ``sitemapkit build --config`` for a
    project whose file sets only the base URL (``in_file``; Hugo's ``baseURL``,
    Jekyll's ``url``), the other options coming from ``flags``: ``--base-url``
    (``flag``) wins; a bad or missing URL in the file is named as the file names it,
    a flag's as the flag."""
    url = flag or in_file
    if not url:
        raise base_url_not_set(config_file, settings)
    try:
        return Options(base_url=url, **flags)
    except ConfigError as error:
        if error.option == "base_url" and not flag:
            raise SitemapkitError(f"{config_file}: {settings.message(error)}") from None
        raise  # a flag's, named as the flag


def base_url_not_set(config_file: str, settings: SettingNames) -> SitemapkitError:
    """The one line for a project whose configuration file sets no base URL, for
    ``sitemapkit build --config``: a sitemap lists absolute URLs."""
    setting = settings.base_url
    return SitemapkitError(
        f"{config_file}: {setting}: is not set, and a sitemap must list absolute URLs "
        f"(set {setting}, or pass --base-url)"
    )
