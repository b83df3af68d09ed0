"""MkDocs adapter: ``plugins: [search, sitemapkit]`` in mkdocs.yml.

The hooks, in the order MkDocs calls them:

- ``on_config``: MkDocs has checked each option's type; the core checks the values
  (one set of rules for every adapter). MkDocs' own sitemap.xml and .gz are turned
  off here, before anything is written: they stamp the build date on every page.
- ``on_files``: keep MkDocs from copying its sitemap template as a plain file.
- ``on_env``: keep the build's final ``Files``; it holds every page MkDocs built.
- ``on_post_build`` (last): hand each written page to the core, which writes the
  sitemap files and the robots.txt ``Sitemap:`` line.

Translated sites (mkdocs-static-i18n): its ``on_post_build`` runs one more whole
build per other language, inside the first build and into sub-folders of the same
``site_dir`` (``site/fr/``). Each of those builds calls these hooks too. The first
build's settings stand for the whole run; each build adds its ``Files``; only the
first, once the plugin's own ``on_post_build`` has run all the others, writes the
one sitemap at the ``site_dir`` root, listing every language. Each page is given
its language and its untranslated source path, by which the core groups the
versions of one page into hreflang alternates. A page a language build copies
from the default language, because it has no translation, is listed but is no
translation, so it gets no alternates.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mkdocs.config import base
from mkdocs.config import config_options as c
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, event_priority, get_plugin_logger
from mkdocs.utils import is_error_template
from mkdocs.utils.meta import get_data

import sitemapkit
from sitemapkit import (
    MKDOCS_SETTINGS,
    ConfigError,
    Options,
    OptionSpec,
    Page,
    SitemapkitError,
    base_url_setting,
    beside_config_file,
    development_base_url,
    is_error_page,
    unknown_option,
)

# The build machinery (sitemapkit.build_site, the front matter readers) is
# looked up when the sitemap is written, not imported with the plugin: a build
# that writes none (`mkdocs serve`, no site_url) never loads it.

if TYPE_CHECKING:
    from jinja2 import Environment
    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.structure.files import File, Files

log = get_plugin_logger(__name__)

#: What ``mike deploy`` sets to the version it builds (mike.mkdocs_utils.docs_version_var).
MIKE_VERSION_VARIABLE = "MIKE_DOCS_VERSION"


def _config_option(spec: OptionSpec) -> c.BaseConfigOption:
    """One option in MkDocs' schema, of any value: unset (``None``) means the
    core's default, and the core checks types and values alike (see
    :meth:`SitemapkitPlugin.load_config`), so the defaults, the rules and their
    wording live in one place (``sitemapkit.Options``) for every adapter."""
    return c.Optional(c.Type(object))


# Where mkdocs.yml's options are checked, before site_url is known: a base URL
# no site has, never written anywhere.
_CHECK_BASE_URL = "https://example.invalid/"


# The core's options, under the core's names, made from their one declaration: a
# new option is a mkdocs.yml key at once.
SitemapkitConfig = type(
    "SitemapkitConfig",
    (base.Config,),
    {
        "__module__": __name__,
        "__doc__": "The plugin's options in mkdocs.yml: sitemapkit.Options' own, by name.",
        **{spec.name: _config_option(spec) for spec in Options.specs()},
    },
)


class SitemapkitPlugin(BasePlugin[SitemapkitConfig]):
    """Registered as ``sitemapkit`` under the ``mkdocs.plugins`` entry point."""

    def __init__(self) -> None:
        super().__init__()
        # None when no sitemap is to be written (site_url unset).
        self.options: Options | None = None
        # The final Files of each build in this run: one, or one per language.
        self.files: list[Files] = []
        # The settings as written, and what the adapter did under `mike deploy`.
        self.settings: dict[str, Any] = {}
        self.under_mike: str | None = None

    def load_config(self, options: dict[str, Any], config_file_path: str | None = None):
        """MkDocs only warns of a key its schema lacks (an error only under
        ``--strict``); a mistyped option is an error here, as in every tool, named
        and with the closest option, in MkDocs' own form: ``Config value 'plugins':
        Plugin 'sitemapkit' option 'max_byte': ... did you mean 'max_bytes'?``."""
        errors, warnings = super().load_config(options, config_file_path)
        known = {name for name, _ in self.config_scheme}
        unknown = [key for key in options if key not in known]
        for key in unknown:
            errors.append((key, base.ValidationError(unknown_option(str(key), base_url_from="site_url").problem)))
        warnings = [w for w in warnings if not (isinstance(w, tuple) and w[0] in unknown)]
        if not errors:
            # Every value checked by the core now, so that a wrong type, range or
            # choice is reported as a misspelled name is: in MkDocs' own form,
            # "Aborted with a configuration error!".
            settings = self._settings()
            if config_file_path:
                settings = beside_config_file(settings, os.path.dirname(config_file_path))
            try:
                Options.from_mapping(settings, base_url=_CHECK_BASE_URL)
            except ConfigError as error:
                errors.append((error.option, base.ValidationError(error.problem)))
        return errors, warnings

    def _settings(self) -> dict[str, Any]:
        """The options mkdocs.yml sets (unset ones take the core's defaults)."""
        return {name: self.config[name] for name, _ in self.config_scheme if self.config[name] is not None}

    def on_config(self, config: MkDocsConfig) -> MkDocsConfig:
        # MkDocs' sitemap.xml gives every page the build date as lastmod; ours replaces
        # it. Dropping the template also drops the .gz copy MkDocs makes of it.
        config.theme.static_templates.discard("sitemap.xml")
        if _is_i18n_language_build(config):
            return config
        self.options = None
        self.files = []
        # Checked before the core sees it, so the user reads a warning in MkDocs'
        # terms and the build goes on (it fails only under --strict).
        site_url = base_url_setting(config.site_url, os.environ)
        why = development_base_url(site_url, setting="site_url", example="site_url: https://example.org/docs/")
        if why is not None:
            log.warning(why)
            return config
        settings = self._settings()
        # A folder in mkdocs.yml is relative to mkdocs.yml, as MkDocs' own paths are.
        if config.config_file_path:
            settings = beside_config_file(settings, os.path.dirname(config.config_file_path))
        try:
            self.options = Options.from_mapping(settings, base_url=site_url)
        except ConfigError as error:
            raise PluginError(MKDOCS_SETTINGS.message(error)) from None
        self.settings = settings
        self.under_mike = None
        return config

    def on_files(self, files: Files, *, config: MkDocsConfig) -> Files:
        # Every plugin's on_config has run: mike's rewrite of site_url is done,
        # wherever mike stands in `plugins:`.
        if self.options is not None and not _is_i18n_language_build(config):
            self._serve_as_mike_version(config)
        # Once sitemap.xml is no static template, MkDocs would copy the raw Jinja file
        # from its templates folder into site_dir as a theme asset. With site_url the
        # core overwrites it; without it (or with another filename) it would be served.
        template = files.get_file_from_path("sitemap.xml")
        if template is not None and template.src_dir in config.theme.dirs:
            files.remove(template)
        return files

    def _serve_as_mike_version(self, config: MkDocsConfig) -> None:
        """Under ``mike deploy`` (MIKE_DOCS_VERSION set): list the pages at the
        URLs mike serves them at, ``site_url`` + the version's folder, whatever
        ``canonical_version`` made of ``site_url``. The version's pages whose
        canonical links name the same pages in the canonical version are its
        copies, kept in its own sitemap for Material's version selector. A
        version folder is never the host root: no robots.txt of its own."""
        version = os.environ.get(MIKE_VERSION_VARIABLE, "").strip()
        if not version or self.options is None:
            return
        mike = config.plugins.get("mike")
        canonical = getattr(mike, "config", {}).get("canonical_version") if mike is not None else None
        rewritten = (canonical or version) if mike is not None else ""
        site_url = str(config.site_url or self.options.base_url)
        # mike's on_config: site_url = urljoin(site_url, canonical_version or version).
        original = site_url[: -len(rewritten)] if rewritten and site_url.endswith(rewritten) else site_url
        original = original if original.endswith("/") else original + "/"
        settings = {**self.settings, "robots_txt": False}
        if canonical and canonical != version:
            settings["check_canonical"] = False
        try:
            self.options = Options.from_mapping(settings, base_url=original + version + "/")
        except ConfigError as error:
            raise PluginError(MKDOCS_SETTINGS.message(error)) from None
        said = f"mike deploy {version}: pages listed at {self.options.base_url}, where mike serves them"
        if canonical and canonical != version:
            said += (
                f"; their canonical links name {original}{canonical}/ (canonical_version), "
                "so they stay listed as this version's copies for the version selector"
            )
        self.under_mike = said + (
            "; no robots.txt in a version folder: run `sitemapkit versions` on the gh-pages checkout for the root sitemap"
        )

    def on_env(self, env: Environment, *, config: MkDocsConfig, files: Files) -> Environment:
        self.files.append(files)
        return env

    # Last: by then every page, robots.txt and other plugins' files (mkdocs-redirects
    # stubs) are in site_dir, so the core reads the finished site. After
    # mkdocs-static-i18n's (-100), which builds the other languages.
    @event_priority(-101)
    def on_post_build(self, *, config: MkDocsConfig) -> None:
        if self.options is None or _is_i18n_language_build(config):
            return
        # The default inclusion leaves out exclude_docs and drafts, which
        # `mkdocs serve` builds for preview only.
        shown = _blog_listings(config)
        pages = [
            page
            for files in self.files
            # Every page, drafts too: `mkdocs serve` writes those for preview, and
            # the report says why they are not listed.
            for file in files.documentation_pages(inclusion=_any_inclusion)
            if (page := _sitemap_page(file, shown)) is not None
        ]
        pages.sort(key=lambda page: page.loc)
        self.files = []
        try:
            report = sitemapkit.build_site(
                pages, self.options, Path(config.site_dir), date_advice=sitemapkit.FRONT_MATTER_DATE_ADVICE
            )
            if (
                _reads_sitemap_xml(config)
                and sitemapkit.build_xml_companion(pages, self.options, config.site_dir) is not None
            ):
                log.logger.info(sitemapkit.XML_COMPANION_NOTE)
        except ConfigError as error:
            raise PluginError(MKDOCS_SETTINGS.message(error)) from None
        except SitemapkitError as error:
            raise PluginError(f"sitemapkit: {error}") from None
        if self.under_mike is not None:
            # The robots.txt advice is the root's business (sitemapkit versions).
            report.advice[:] = [self.under_mike]
        for notice, text in report.log_lines(verbose=self.options.verbose):
            if notice is None:
                # The summary names sitemapkit itself: logged without the plugin logger's prefix.
                log.logger.info(text)
            else:
                log.warning(text)


def _reads_sitemap_xml(config: MkDocsConfig) -> bool:
    """Whether the theme reads sitemap.xml in the browser (Material: instant
    navigation, and the version selector mike's versions use)."""
    return config.theme.name == "material"


def _is_i18n_language_build(config: MkDocsConfig) -> bool:
    """Whether mkdocs-static-i18n runs this build, for one more language, inside the first."""
    return bool(getattr(config.plugins.get("i18n"), "building", False))


def _blog_listings(config: MkDocsConfig) -> dict[str, tuple[str, ...]]:
    """Material's blog plugin: the URLs of the posts each listing page shows (the
    blog index, archive and category views, and each of their paginated pages),
    by the listing's URL. A listing changed when the newest post it shows did.

    Read from the plugin's views by duck typing: Material is not a dependency.
    """
    shown: dict[str, tuple[str, ...]] = {}
    for plugin in config.plugins.values():
        blog = getattr(plugin, "blog", None)
        if blog is None or not hasattr(blog, "posts") or not hasattr(blog, "views"):
            continue
        todo = [blog]
        while todo:
            view = todo.pop()
            todo.extend(view.views)
            posts = list(view.posts)
            pages = list(view.pages) or [view]
            per_page = _blog_posts_per_page(plugin, view) if len(pages) > 1 else len(posts)
            for at, listing in enumerate(pages):
                if getattr(listing, "url", None) is not None:
                    shown[listing.url] = tuple(post.url for post in posts[at * per_page : (at + 1) * per_page])
    return shown


def _blog_posts_per_page(plugin: Any, view: Any) -> int:
    per_page = getattr(plugin, "_config_pagination_per_page", None)
    if callable(per_page):
        return int(per_page(view))
    return int(plugin.config.pagination_per_page)


def _sitemap_page(file: File, shown: dict[str, tuple[str, ...]] | None = None) -> Page | None:
    """The core's view of one MkDocs page, or None when the build wrote no page."""
    page = file.page
    # The stat catches pages whose output was empty: MkDocs skips writing those.
    # The paths go to the core as MkDocs gives them: it takes strings (no Path per page).
    if page is None or not os.path.isfile(file.abs_dest_path):
        return None
    if not file.inclusion.is_included():
        # exclude_docs or draft_docs, written by `mkdocs serve` only.
        reason = "draft_docs" if file.inclusion.is_in_serve() else "exclude_docs"
        return Page(page.url, output=file.abs_dest_path, exclude_reason=reason)
    if is_error_template(page.url) or is_error_page(file.dest_uri):
        # MkDocs' error templates (404.html, 500.html at the root), and a 404.html
        # in any folder (a language's, fr/404.html), as every tool leaves it out.
        # Handed over unlisted, so the report says why it is left out.
        return Page(page.url, output=file.abs_dest_path, exclude_reason="error page")
    # A --dirty build (also `mkdocs serve --dirty`) skips unchanged pages without
    # reading them, yet they stay in the site, so their front matter is read here.
    meta = page.meta if page.markdown is not None else _front_matter(file)
    # mkdocs-static-i18n marks each file with the language of its text (locale),
    # that of the build it is in (locale_alternate_of) and its source path without
    # the language (norm_src_uri). Other sites have none of these.
    language = getattr(file, "locale", None)
    translated = language is not None and language == getattr(file, "locale_alternate_of", None)
    return Page(
        # page.url is percent-encoded already; the core keeps valid %XX as they are.
        page.url,
        lastmod=sitemapkit.front_matter_lastmod(meta),
        source=_source(file),
        output=file.abs_dest_path,
        hreflang=language if translated else None,
        translation_key=file.norm_src_uri if translated else None,
        members=(shown or {}).get(page.url, ()),
        # `sitemap: false` pages are handed over unlisted: reported, and their
        # dates still count for the listings that show them.
        listed=sitemapkit.front_matter_listed(meta),
        # The Markdown's HTML after every plugin's on_page_content (None for a page
        # --dirty did not render): the page's images are read from it, not from
        # the themed page.
        content_html=page.content,
    )


def _any_inclusion(level: Any) -> bool:
    return True


def _source(file: File) -> str | None:
    """The page's source file, when it is one the user wrote. Plugins that make
    pages (Material's blog archives and categories) write theirs to a temporary
    folder at build time, whose time says nothing about the page; they mark the
    file ``generated_by`` (the convention git-revision-date-localized started,
    which MkDocs 1.6's File.generated follows)."""
    if not file.abs_src_path or getattr(file, "generated_by", None):
        return None
    return file.abs_src_path


def _front_matter(file: File) -> dict[str, Any]:
    try:
        return get_data(file.content_string)[1]
    except (OSError, UnicodeDecodeError):
        return {}
