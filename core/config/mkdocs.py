"""``sitemapkit build --config mkdocs.yml`` (or ``zensical.toml``): a MkDocs-shaped
project's settings and sources, without MkDocs.

Zensical builds ``mkdocs.yml`` projects but runs no third-party plugin, and
ProperDocs or a plain ``mkdocs build`` may run without ours. After such a build,
this module reads the project's settings as MkDocs defines them and maps each
built page back to its Markdown source, so the command line gives the sitemap the
MkDocs adapter gives: the same pages, the git dates of their sources, their
front-matter dates and ``sitemap: false``, the same exclusions.

Read from ``mkdocs.yml`` as MkDocs reads it (PyYAML with MkDocs' tags and
``INHERIT``, :mod:`.mkdocsyaml`) or from the ``[project]`` table of
``zensical.toml`` (with :func:`~sitemapkit.site.dataformats.load_toml`): ``site_url`` (unset: Read the Docs'
``READTHEDOCS_CANONICAL_URL``, as the MkDocs adapter takes it), ``docs_dir``
(default ``docs``), ``site_dir`` (default ``site``), both relative to the
configuration file, ``use_directory_urls`` (default true), ``exclude_docs`` and
``draft_docs`` (gitignore patterns, matched with pathspec as MkDocs matches
them; MkDocs also always leaves out ``.*`` and ``/templates/``), ``not_in_nav``
(read and checked; such pages are built and listed, as MkDocs lists them), and
the sitemapkit plugin's own options (``plugins: [sitemapkit: {...}]``,
``[project.plugins.sitemapkit]``).

PyYAML and pathspec are the ``config`` extra's: without them reading a project
stops with one line saying what to install (:func:`~sitemapkit.site.extras.missing_config_library`).
"""

from __future__ import annotations

import dataclasses
import functools
import os
import posixpath
from collections.abc import Iterable
from pathlib import Path
from typing import Any
from urllib.parse import quote

from ..protocol.errors import ConfigError, SitemapkitError
from ..protocol.hostsettings import (
    MKDOCS_SETTINGS,
    READ_THE_DOCS_URL,
    base_url_not_set,
    base_url_setting,
    beside_config_file,
)
from ..site.frontmatter import front_matter_lastmod, front_matter_listed, read_front_matter
from ..protocol.model import Options, Page
from ..protocol.urls import INDEX_FILE, path_of_file

__all__ = ["ProjectConfig", "project_pages", "read_project_config"]

#: The Markdown file extensions MkDocs builds pages from (mkdocs.utils.markdown_extensions).
MARKDOWN_EXTENSIONS = (".md", ".markdown", ".mdown", ".mkdn", ".mkd")
# MkDocs' own exclusions, always applied before exclude_docs (mkdocs.structure.files).
_DEFAULT_EXCLUDE = ".*\n/templates/\n"
_WANTED = frozenset(
    {
        "site_url",
        "docs_dir",
        "site_dir",
        "use_directory_urls",
        "exclude_docs",
        "draft_docs",
        "not_in_nav",
        "plugins",
    }
)
PLUGIN_NAME = "sitemapkit"
#: The sitemap MkDocs' themes and Zensical write at the site root: replaced by ours,
#: or removed when ours has another name (``filename``, ``format: txt``).
GENERATOR_SITEMAPS = ("sitemap.xml", "sitemap.xml.gz")
#: Material's instant navigation and Zensical's read sitemap.xml in the browser:
#: a text sitemap leaves them an XML one beside it.
BROWSER_READS_SITEMAP_XML = True


@dataclasses.dataclass(frozen=True)
class ProjectConfig:
    """The settings of one MkDocs-shaped project that its sitemap depends on."""

    config_file: Path
    site_url: str | None
    docs_dir: Path
    site_dir: Path
    use_directory_urls: bool
    exclude_docs: str
    draft_docs: str
    not_in_nav: str
    #: The sitemapkit plugin's options as the configuration file sets them.
    plugin_options: dict[str, Any]
    #: What the file names that is not read, one line each (nothing, here).
    unread: tuple[str, ...] = ()

    def setting(self, name: str) -> str:
        """How the user names setting ``name`` in this file, for messages."""
        return f"{self.config_file.name}: {name}"

    def exclusion(self, source_uri: str) -> str | None:
        """Why MkDocs does not build the page of ``source_uri`` (its path below
        ``docs_dir``): ``"exclude_docs"``, ``"draft_docs"`` (``mkdocs serve``
        builds it), or None. Matched with pathspec's gitignore patterns, as
        MkDocs matches them (mkdocs.structure.files._set_exclusions)."""
        if _gitignore(_DEFAULT_EXCLUDE + self.exclude_docs, "exclude_docs", self).match_file(source_uri):
            return "exclude_docs"
        if self.draft_docs and _gitignore(self.draft_docs, "draft_docs", self).match_file(source_uri):
            return "draft_docs"
        return None


def _gitignore(patterns: str, name: str, config: ProjectConfig) -> Any:
    """``patterns`` as MkDocs reads them (``pathspec.gitignore.GitIgnoreSpec``), once per text."""
    return _compiled(patterns, config.setting(name))


@functools.lru_cache(maxsize=16)
def _compiled(patterns: str, setting: str) -> Any:
    try:
        import pathspec.gitignore
    except ImportError:
        from ..site.extras import missing_config_library

        raise missing_config_library("pathspec") from None
    try:
        return pathspec.gitignore.GitIgnoreSpec.from_lines(patterns.splitlines())
    except ValueError as error:
        # pathspec's own words, as MkDocs shows them.
        raise SitemapkitError(f"{setting}: {error}") from None


def read_project_config(path: Path | str) -> ProjectConfig:
    """The settings of ``path`` (``mkdocs.yml`` or ``zensical.toml``).

    Raises :class:`SitemapkitError` with one line naming the file and the setting.
    """
    path = Path(path)
    # Both formats need PyYAML (front matter) and pathspec (the patterns): without
    # them, one line saying what to install before anything is read.
    from ..site import yamlreader  # noqa: F401

    _compiled(_DEFAULT_EXCLUDE, "exclude_docs")
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise SitemapkitError(f"--config {str(path)!r}: {error.strerror or error}") from None
    if path.suffix.lower() == ".toml":
        settings = _read_toml(path, raw)
    else:
        from .mkdocsyaml import read_mkdocs_yml

        settings = read_mkdocs_yml(path, raw)

    def text(name: str, default: str | None) -> str | None:
        value = settings.get(name, default)
        if value is None:
            return default
        if not isinstance(value, str):
            raise SitemapkitError(f"{path.name}: {name}: {value!r} must be text")
        return value

    def patterns(name: str) -> str:
        value = settings.get(name)
        if value is None:
            return ""
        if not isinstance(value, str):
            raise SitemapkitError(f"{path.name}: {name}: must be a multi-line string of gitignore-style patterns")
        return value

    root = path.resolve().parent
    docs_dir = text("docs_dir", "docs") or "docs"
    site_dir = text("site_dir", "site") or "site"
    use_directory_urls = settings.get("use_directory_urls", True)
    if use_directory_urls is None:
        use_directory_urls = True
    if not isinstance(use_directory_urls, bool):
        raise SitemapkitError(f"{path.name}: use_directory_urls: {use_directory_urls!r} must be true or false")
    config = ProjectConfig(
        config_file=path,
        site_url=text("site_url", None) or None,
        docs_dir=root / docs_dir,
        site_dir=root / site_dir,
        use_directory_urls=use_directory_urls,
        exclude_docs=patterns("exclude_docs"),
        draft_docs=patterns("draft_docs"),
        not_in_nav=patterns("not_in_nav"),
        plugin_options=_plugin_options(settings.get("plugins"), path.name),
    )
    # Patterns pathspec refuses stop here, before anything is built or written.
    for name in ("exclude_docs", "draft_docs", "not_in_nav"):
        _gitignore(getattr(config, name), name, config)
    return config


def _read_toml(path: Path, raw: bytes) -> dict[str, Any]:
    from ..site.dataformats import load_toml

    try:
        document = load_toml(raw.decode("utf-8-sig"), path.name)
    except UnicodeDecodeError:
        raise SitemapkitError(f"{path.name}: is not UTF-8 text") from None
    # Zensical reads the [project] table, or the top level when there is none.
    project = document.get("project", document)
    if not isinstance(project, dict):
        raise SitemapkitError(f"{path.name}: project must be a table")
    return {key: value for key, value in project.items() if key in _WANTED}


def _plugin_options(plugins: Any, file_name: str) -> dict[str, Any]:
    """The sitemapkit entry of ``plugins`` (a list of names and one-key mappings, or a mapping)."""
    entries: Iterable[Any]
    if plugins is None:
        return {}
    if isinstance(plugins, dict):
        entries = [{name: value} for name, value in plugins.items()]
    elif isinstance(plugins, list):
        entries = plugins
    else:
        raise SitemapkitError(f"{file_name}: plugins: must be a list or a mapping")
    for entry in entries:
        if isinstance(entry, dict) and PLUGIN_NAME in entry:
            options = entry[PLUGIN_NAME] or {}
            if not isinstance(options, dict):
                raise SitemapkitError(f"{file_name}: plugins.{PLUGIN_NAME}: its options must be a mapping")
            from ..site.yamlreader import TaggedValue

            for name, value in options.items():
                # MkDocs checks each option's type and refuses these (!relative, !!python/name:).
                if any(isinstance(item, TaggedValue) for item in (value if isinstance(value, list) else [value])):
                    raise SitemapkitError(f"{file_name}: plugins.{PLUGIN_NAME}.{name}: {value!r} must be a plain value")
            return dict(options)
    return {}


def options_for(config: ProjectConfig, base_url: str | None, flags: dict[str, Any]) -> Options:
    """The options of a run: the plugin's options in the file, then the command's flags.

    ``base_url`` (``--base-url``) wins over ``site_url`` (unset: Read the Docs'
    URL, as in the MkDocs adapter). A bad value in the file is named as the file
    names it.
    """
    url = base_url or base_url_setting(config.site_url, os.environ)
    if not url:
        raise base_url_not_set(config.config_file.name, MKDOCS_SETTINGS)
    # A folder in the file is relative to the file, as in the MkDocs adapter.
    in_file = beside_config_file(config.plugin_options, config.config_file.resolve().parent)
    try:
        Options.from_mapping(in_file, base_url=url)
    except ConfigError as error:
        if error.option == "base_url" and base_url:
            raise  # --base-url's, named as the flag
        if error.option == "base_url" and not config.site_url:
            # The URL came from Read the Docs' variable, not from the file.
            raise SitemapkitError(error.for_setting(READ_THE_DOCS_URL)) from None
        raise SitemapkitError(f"{config.config_file.name}: {MKDOCS_SETTINGS.message(error)}") from None
    values = {**in_file, **flags}
    if isinstance(values.get("exclude"), list):
        values["exclude"] = tuple(values["exclude"])
    return Options(base_url=url, **values)


def sites(config: ProjectConfig) -> list[tuple[ProjectConfig, str]]:
    """The sites the project publishes, each with its folder below the output
    folder: the one site, at its root."""
    return [(config, "")]


def generator_sitemaps(config: ProjectConfig) -> tuple[str, ...]:
    """The files the generator writes its sitemap as, which ours replaces."""
    return GENERATOR_SITEMAPS


def generator_sitemap_folders(config: ProjectConfig) -> tuple[str, ...]:
    """The folders below the site besides its root where the generator writes
    :data:`GENERATOR_SITEMAPS`: none."""
    return ()


# ---- pages --------------------------------------------------------------------------


def project_pages(config: ProjectConfig, built: Iterable[Page], site_dir: Path) -> list[Page]:
    """Each built page of ``site_dir`` with its Markdown source, front-matter date and listing.

    ``built`` are the pages found in the folder (``output`` set). A page that comes
    from a Markdown file of ``docs_dir`` is dated by that file; a file MkDocs does
    not build (``exclude_docs``, ``draft_docs``: left from ``mkdocs serve`` or an
    older build) or only copies (an HTML file in ``docs_dir``) is left out, with
    its reason (handed over with ``exclude_reason``, so the report names it once);
    any other page (a theme's or a plugin's) keeps the other rules.
    """
    if not config.docs_dir.is_dir():
        raise SitemapkitError(f"{config.setting('docs_dir')}: {str(config.docs_dir)!r} is not a folder")
    pages: list[Page] = []
    for page in built:
        output = Path(page.output)  # type: ignore[arg-type]
        relative = output.relative_to(site_dir).as_posix()
        loc = _page_url(relative, config.use_directory_urls)
        source = _markdown_source(config.docs_dir, relative, config.use_directory_urls)
        if source is None:
            if (config.docs_dir / relative).is_file():
                pages.append(dataclasses.replace(page, loc=loc, exclude_reason="copied from docs_dir"))
            else:
                pages.append(dataclasses.replace(page, loc=loc))
            continue
        exclusion = config.exclusion(source.relative_to(config.docs_dir).as_posix())
        if exclusion is not None:
            pages.append(dataclasses.replace(page, loc=loc, exclude_reason=exclusion))
            continue
        meta = read_front_matter(source)
        pages.append(
            Page(
                loc,
                lastmod=front_matter_lastmod(meta),
                source=source,
                output=output,
                listed=front_matter_listed(meta),
                # A 404.md is MkDocs' error page: still never listed.
                exclude_reason=page.exclude_reason,
            )
        )
    return pages


def _page_url(relative: str, use_directory_urls: bool) -> str:
    """The URL MkDocs gives the page written at ``relative`` (mkdocs File.url)."""
    url = path_of_file(relative) if use_directory_urls else relative
    # Percent-encoded as MkDocs encodes it (urllib's quote, "/" kept), so canonical
    # links the theme writes compare equal.
    return quote(url)


def _markdown_source(docs_dir: Path, relative: str, use_directory_urls: bool) -> Path | None:
    """The Markdown file MkDocs builds into ``relative`` (mkdocs File.dest_uri, reversed)."""
    folder, name = posixpath.split(relative)
    stems: list[str] = []
    if name == INDEX_FILE:
        stems += [posixpath.join(folder, "index"), posixpath.join(folder, "README")]
        if use_directory_urls and folder:
            stems.append(folder)  # foo.md -> foo/index.html
    elif name.endswith(".html") and not use_directory_urls:
        stems.append(relative[: -len(".html")])
    for stem in stems:
        for extension in MARKDOWN_EXTENSIONS:
            candidate = docs_dir / (stem + extension)
            if candidate.is_file():
                return candidate
    return None
