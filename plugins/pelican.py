"""Pelican adapter: ``PLUGINS = ["sitemapkit.plugins.pelican"]`` in pelicanconf.py.

The base URL is ``SITEURL``; every other option goes in one dict setting whose keys
are the core's option names, plus one key of this adapter's own::

    SITEMAPKIT = {
        "exclude": ["drafts-area/*"],
        # Which kinds of page are listed; these merge over the defaults below.
        "pelican_kinds": {"tags": False, "authors": False},
    }

What is listed: exactly the HTML files Pelican's writer wrote in this run, each under
the URL Pelican links it by (the ``*_URL`` settings, ``PAGINATION_PATTERNS`` for later
pages of a listing; where Pelican has no URL setting, the file's path with a
folder's ``index.html`` left off), never drafts, hidden content or ``status: skip``
content, never feeds or static files. Kinds (``pelican_kinds``) and their defaults:

- ``articles``, ``pages`` (both with their translations), ``index``, ``categories``, ``tags``, ``authors``, ``archives`` (the
  archives page and the year/month/day archives): on;
- ``template_pages`` (``TEMPLATE_PAGES``) and ``other`` (other ``DIRECT_TEMPLATES``
  such as ``search`` or ``404``, and pages other plugins write through Pelican's
  writer): off, since these are often error or search pages; when on, only their
  ``.html`` files are listed.

Metadata ``sitemap: false`` (or ``no``, ``off``, ``0``) leaves one article or page out.

Dates: an article's or page's ``modified``, else its ``date``, else its source file's
git or file time (the core's ``lastmod`` option); a listing page (index, category,
tag, author, archives, each page of a paginated one) takes the newest date of the
articles it shows; a template page, its template's. Never the build time.

The signals, in the order Pelican sends them in each run:

- ``get_generators`` (the first signal of every ``run()``): check ``SITEMAPKIT`` and
  ``SITEURL``. A bad value raises :class:`SitemapkitConfigError`, which Pelican prints
  as ``SitemapkitConfigError: SITEMAPKIT['max_bytes']: ...`` and exits non-zero. Not
  ``register()``: Pelican logs and swallows exceptions raised there. An empty or
  relative ``SITEURL`` (the usual development setting) is a warning, and no sitemap;
  ``pelican --fatal warnings`` turns it into a failure.
- ``content_written`` (each HTML file the writer wrote, with its template context):
  keep what the file is listed by (its article or page, or the listing's pager
  and taxonomy), and with images on the site URL an article's or page's content
  was rendered for in this file: its ``content`` as the file shows it is then
  Pelican's memoized rendering for that URL (no second rendering), its images are
  read from it, and the file only to its head's end (a listing is read whole);
  nothing more, as this runs once per file, in between renders.
- ``finalized``: turn what was written into :class:`sitemapkit.Page` values and
  hand them to :func:`sitemapkit.build_site`, which writes the sitemap files and
  merges the ``Sitemap:`` line into an existing robots.txt.

i18n_subsites (pelican-i18n-subsites): one sitemap for all languages. Each sub-site is
a Pelican run nested inside the main one, writing into a folder inside the main
output folder; a nested run whose ``SITEURL`` lies under the main ``SITEURL`` hands
its pages (with absolute URLs) to the main run instead of writing its own sitemap.
So the main site's sitemap lists every language, a translated article's versions
are hreflang alternates of one another across sub-sites, and the host-root
robots.txt names one sitemap. A sub-site on another host writes its own.

Warnings go to this module's logger: they count for ``--fatal warnings`` and can be
silenced with ``LOG_FILTER``, e.g. ``[(logging.WARNING, "sitemapkit [lastmod]: %s")]``
(one template per notice code).
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import os
import re
import string
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from pelican import signals

import sitemapkit
from sitemapkit import (
    PELICAN_SETTINGS,
    ConfigError,
    Options,
    Page,
    SitemapkitError,
    beside_config_file,
    development_base_url,
    encode_path,
    is_error_page,
    path_of_file,
    unknown_option,
)

# After the pelican import: pelican.log makes every logger created from then on one
# that honours --fatal and LOG_FILTER.
log = logging.getLogger(__name__)

SETTING = "SITEMAPKIT"
KINDS_KEY = "pelican_kinds"
DEFAULT_KINDS = {
    "articles": True,
    "pages": True,
    "index": True,
    "categories": True,
    "tags": True,
    "authors": True,
    "archives": True,
    "template_pages": False,
    "other": False,
}
# DIRECT_TEMPLATES names -> the kind they belong to; any other name is "other".
_DIRECT_TEMPLATE_KINDS = {
    "index": "index",
    "tags": "tags",
    "categories": "categories",
    "authors": "authors",
    "archives": "archives",
}
# How an article or page states its own date here, offered when git and file
# times cannot date it.
PAGE_DATES = "give the articles and pages a 'modified' or 'date' in their metadata"
# Metadata values of ``sitemap:`` (Pelican hands metadata over as text).
_FALSE = {"false", "no", "off", "0"}
_TRUE = {"true", "yes", "on", "1"}
# Checks SITEMAPKIT while SITEURL is still a development value, so a typo fails the
# first build rather than the first deployment. Never written anywhere.
_PLACEHOLDER_BASE = "https://example.invalid/"


class SitemapkitConfigError(ConfigError):
    """A bad ``SITEMAPKIT`` or ``SITEURL`` value; ``option`` is the setting as written.

    Pelican prints it as ``SitemapkitConfigError: SITEMAPKIT['max_bytes']: ...``.
    """


class _Run:
    """What one ``Pelican.run()`` has written, and how to list it."""

    def __init__(self, settings: dict[str, Any], options: Options | None, kinds: dict[str, bool]) -> None:
        self.settings = settings
        self.output_dir = _key(settings["OUTPUT_PATH"])
        self.site_url = str(settings.get("SITEURL") or "")
        #: None: no sitemap from this run (SITEURL is not absolute).
        self.options = options
        self.kinds = kinds
        #: What each content_written signal said, in order; see record_written.
        self.written: list[_Written] = []
        #: Pages handed over, ready-made, by i18n sub-sites nested in this run.
        self.handed_over: list[Page] = []
        # save_as of each direct template -> (kind, URL)
        self.direct_templates: dict[str, tuple[str, str]] = {}
        for name in settings.get("DIRECT_TEMPLATES", ()):
            save_as = settings.get(f"{name.upper()}_SAVE_AS", f"{name}.html")
            if save_as:
                # A *_URL setting is a URL; without one, the file's path is a name.
                url = settings.get(f"{name.upper()}_URL") or encode_path(path_of_file(save_as))
                self.direct_templates[save_as] = (_DIRECT_TEMPLATE_KINDS.get(name, "other"), url)
        # output file -> template source, for TEMPLATE_PAGES
        self.template_pages = {dest: source for source, dest in (settings.get("TEMPLATE_PAGES") or {}).items()}
        # Every PAGINATION_PATTERNS rule formats the URL as it formats the file name
        # (Pelican's default rules do): a later page's URL is then the file written,
        # as the same formatting of the same values cannot differ.
        self.pager_url_is_file = all(
            _same_formatting(rule[1], rule[2]) for rule in settings.get("PAGINATION_PATTERNS") or ()
        )
        # id(article) -> its URL. Pelican formats ``url`` anew on each access, and
        # listing pages name every article again: on a large site that repeated
        # formatting would cost more than the whole sitemap. The ids stay valid:
        # ``written`` holds every object they are ids of.
        self._urls: dict[int, str] = {}
        # (kind, in the default language) -> how the URL follows from the file
        # written; see content_url.
        self._url_rules: dict[tuple[str, bool], str | None] = {}

    def url_of(self, content) -> str:
        url = self._urls.get(id(content))
        if url is None:
            url = self._urls[id(content)] = content.url
        return url

    def urls_of(self, articles) -> tuple[str, ...]:
        """The URLs of a listing's articles; all known by then, as a rule (Pelican
        writes articles before the listings that show them)."""
        try:
            return tuple(map(self._urls.__getitem__, map(id, articles)))
        except KeyError:
            return tuple(map(self.url_of, articles))

    def content_url(self, content, kind: str, output_file: str) -> str:
        """``content.url``, read off the file just written where the URL setting is
        the save-as setting or that minus ``index.html`` (the usual two cases):
        the same formatting of the same template cannot differ, and it saves
        formatting every URL once more."""
        if not hasattr(content, "override_url") and not hasattr(content, "override_save_as"):
            rule_key = (kind, content.in_default_lang)
            rule = self._url_rules.get(rule_key, "unknown")
            if rule == "unknown":
                prefix = ("ARTICLE" if kind == "articles" else "PAGE") + ("_" if rule_key[1] else "_LANG_")
                url_setting, save_as_setting = self.settings.get(prefix + "URL"), self.settings.get(prefix + "SAVE_AS")
                if url_setting == save_as_setting:
                    rule = "file"
                elif isinstance(url_setting, str) and url_setting + "index.html" == save_as_setting:
                    rule = "folder"
                else:
                    rule = None
                self._url_rules[rule_key] = rule
            if rule == "file":
                self._urls[id(content)] = output_file
            elif rule == "folder":
                self._urls[id(content)] = output_file[: -len("index.html")]
        return self.url_of(content)


# Output folder -> the run writing into it. More than one at a time only while
# i18n_subsites runs a sub-site inside the main run.
_runs: dict[str, _Run] = {}


def register() -> None:
    # Pelican holds receivers by weak reference: module-level functions stay alive.
    signals.get_generators.connect(start_run)
    signals.content_written.connect(record_written)
    signals.finalized.connect(finish_run)
    # Pelican's main() logs a failed build's exception with its traceback; ours
    # already say which setting to fix.
    pelican_logger = logging.getLogger("pelican")
    if _drop_traceback not in pelican_logger.filters:
        pelican_logger.addFilter(_drop_traceback)


def start_run(pelican) -> None:
    """Check the settings before anything is built."""
    settings = pelican.settings
    key = _key(settings["OUTPUT_PATH"])
    # A run that crashed never reached finalized: forget it, and any sub-site of it.
    for stale in [k for k in _runs if k == key or k.startswith(key + os.sep)]:
        del _runs[stale]
    # Signals are process-wide: a later Pelican instance in the same process that
    # does not list this plugin must not get a sitemap from it.
    if __name__ not in settings.get("PLUGINS", ()):
        return
    options, kinds = read_options(settings)
    run = _Run(settings, options, kinds)
    if options is None and _containing_run(run) is None:
        log.warning("sitemapkit: %s", _why_no_sitemap(run.site_url))
    _runs[key] = run


def _why_no_sitemap(site_url: str) -> str | None:
    return development_base_url(
        site_url, setting="SITEURL", example="SITEURL = 'https://example.org' (as publishconf.py does)"
    )


def read_options(settings: dict[str, Any]) -> tuple[Options | None, dict[str, bool]]:
    """Options and kinds from ``SITEMAPKIT`` and ``SITEURL``; None when SITEURL is
    empty or relative. Raises :class:`SitemapkitConfigError` naming the setting."""
    user = settings.get(SETTING)
    if user is None:
        user = {}
    if not isinstance(user, Mapping):
        raise SitemapkitConfigError(SETTING, f"must be a dict of sitemapkit options, not {type(user).__name__}")
    user = dict(user)
    kinds = _read_kinds(user.pop(KINDS_KEY, None))
    known = {spec.name for spec in Options.specs()}
    for key in user:
        if key not in known:
            error = unknown_option(str(key), extra=[KINDS_KEY], base_url_from="SITEURL")
            raise SitemapkitConfigError(PELICAN_SETTINGS.spelled(key), error.problem)
    # A relative folder (stylesheet_template) is read from beside pelicanconf.py,
    # as Pelican reads its own PATH, OUTPUT_PATH and THEME.
    user = beside_config_file(user, _settings_folder(settings))
    site_url = str(settings.get("SITEURL") or "").strip()
    # Empty, "/blog" or "//example.org": the development settings, no sitemap.
    base_url = site_url if _why_no_sitemap(site_url) is None else None
    try:
        options = Options.from_mapping(user, base_url=base_url or _PLACEHOLDER_BASE)
    except ConfigError as error:
        raise _translate(error) from None
    return (options if base_url else None), kinds


def _settings_folder(settings: Mapping[str, Any]) -> str | None:
    """The folder of the settings file that set ``SITEMAPKIT``, or None.

    Pelican's settings do not say which file they were read from, but Pelican
    loads that file as a module (``pelicanconf``, or ``publishconf`` importing
    it) and keeps its ``SITEMAPKIT`` dict as it is: the module holding that very
    object is the file. Settings made in code (no such module, or modules in two
    folders) leave a relative folder relative to the current folder."""
    user = settings.get(SETTING)
    if not isinstance(user, Mapping) or not user:
        return None
    folders = {
        os.path.dirname(os.path.abspath(found))
        for module in list(sys.modules.values())
        # vars(), not getattr(): a module's __getattr__ may import things.
        if vars(module).get(SETTING) is user and isinstance(found := getattr(module, "__file__", None), str)
    }
    return folders.pop() if len(folders) == 1 else None


def _translate(error: ConfigError) -> SitemapkitConfigError:
    return SitemapkitConfigError(PELICAN_SETTINGS.name(error.option), error.problem)


def _read_kinds(value: Any) -> dict[str, bool]:
    kinds = dict(DEFAULT_KINDS)
    if value is None:
        return kinds
    setting = PELICAN_SETTINGS.spelled(KINDS_KEY)
    if not isinstance(value, Mapping):
        raise SitemapkitConfigError(
            setting, f"must be a dict of kind: true/false, such as {{'tags': False}}, not {value!r}"
        )
    for kind, listed in value.items():
        if kind not in DEFAULT_KINDS:
            raise SitemapkitConfigError(setting, f"{kind!r} is not a kind of page (known: {', '.join(DEFAULT_KINDS)})")
        if not isinstance(listed, bool):
            raise SitemapkitConfigError(setting, f"{kind!r}: {listed!r} must be True or False")
        kinds[kind] = listed
    return kinds


# What record_written keeps of one written file: its path, ``output_file``, and
# either its kind, article or page and (with images on, else None) the site URL
# its content was rendered for, or "", None and the listing's context entries.
_Written = tuple[str, str, str, Any, "str | tuple[Any, ...] | None"]
# The context entries a listing page is listed by (see _listing_page), in this order.
_LISTING_KEYS = ("articles_page", "dates_page", "tag", "category", "author", "period", "period_archives", "articles")


def record_written(path: str, context: dict[str, Any]) -> None:
    """One HTML file the writer wrote; ``context`` is the one its template saw.

    Only what the page is listed by is kept here (the context is a copy made for
    this one file); ``finish_run`` makes the pages. This runs between two page
    renders, with little of this module in the CPU's caches, where each step
    costs several times what it costs in one loop at the end
    (``tests/benchmarks/bench_pelican.py`` measures the difference).
    """
    run = _runs.get(_key(context.get("OUTPUT_PATH", "")))
    if run is None or run.options is None:
        return
    article = context.get("article")
    kind, content = ("articles", article) if article is not None else ("pages", context.get("page"))
    if content is not None and hasattr(content, "status"):
        # With images on, the site URL this very file's content was rendered
        # for (relative with RELATIVE_URLS: the next file sets another); the
        # content shown is Pelican's memoized rendering for it, taken at the end.
        shown_for = content.get_siteurl() if run.options.images else None
        run.written.append((path, context.get("output_file", ""), kind, content, shown_for))
    else:
        run.written.append((path, context.get("output_file", ""), "", None, tuple(map(context.get, _LISTING_KEYS))))


def _pages(run: _Run) -> list[Page]:
    """The pages of what this run wrote, in the order written. A file written
    twice is the page of its last write, the one served: a page saved as
    ``index.html`` replaces the article listing Pelican wrote there first."""
    last = {path: number for number, (path, *_) in enumerate(run.written)}
    pages = []
    for number, (path, output_file, kind, content, rest) in enumerate(run.written):
        if last[path] != number:
            continue
        if content is not None:
            page = _content_page(run, path, output_file, kind, content, rest)
        else:
            page = _listing_page(run, path, output_file, rest)
        if page is not None:
            pages.append(page)
    return pages


def _content_page(run: _Run, path: str, output_file: str, kind: str, content, shown_for: str | None) -> Page | None:
    """An article or page (or a translation of one); ``shown_for``: with images on,
    the site URL its file's content was rendered for (its images are read from
    that rendering)."""
    if not run.kinds[kind] or content.status != "published":
        # Written, never listed (drafts, hidden content, a kind switched off):
        # handed over so the report says why.
        reason = "pelican_kinds" if not run.kinds[kind] else content.status
        # content.url, not content_url(): drafts follow DRAFT_URL, not ARTICLE_URL.
        return Page(content.url, output=path, exclude_reason=reason)
    translation_key, hreflang = None, None
    translations = getattr(content, "translations", None)
    if translations:
        # Every version of a text carries the same set of source files, in this
        # run and in i18n sub-sites alike.
        translation_key = min([content.source_path, *(t.source_path for t in translations)])
        hreflang = content.lang
    return Page(
        run.content_url(content, kind, output_file),
        lastmod=getattr(content, "modified", None) or getattr(content, "date", None),
        # Strings: the core takes them as they are (no Path per page).
        source=content.source_path,
        output=path,
        hreflang=hreflang,
        translation_key=translation_key,
        # Unlisted pages still date the listings that show them.
        listed=_listed(content),
        # Memoized by Pelican for that site URL when the template showed it.
        content_html=None if shown_for is None else content.get_content(shown_for),
    )


def _listing_page(run: _Run, path: str, output_file: str, listing: tuple[Any, ...]) -> Page | None:
    """An index, category, tag, author, archives or template page; ``listing``
    holds the context entries named in _LISTING_KEYS."""
    articles_page, dates_page, tag, category, author, period, period_archives, articles = listing
    # Later pages of a paginated listing have the URL of their PAGINATION_PATTERNS
    # rule; the first is the listing's own (the one every theme links to) unless a
    # rule moved it to another file.
    pager = articles_page or dates_page
    base_save_as = pager.full_name if pager is not None else output_file
    # Pages after the first have the pager's URL; the listing's own is worked out
    # only for the first (Pelican formats each anew).
    paged = pager is not None and (pager.number > 1 or output_file != base_save_as)
    source = None
    url = ""
    for named, listing_kind in ((tag, "tags"), (category, "categories"), (author, "authors")):
        if named is not None:
            kind = listing_kind
            if not paged:
                url = named.url
            break
    else:
        if period is not None:
            kind = "archives"
            if not paged:
                url = _period_url(period_archives, base_save_as)
        elif base_save_as in run.direct_templates:
            kind, url = run.direct_templates[base_save_as]
        elif output_file in run.template_pages:
            kind, url = "template_pages", encode_path(path_of_file(output_file))
            source = Path(run.settings["PATH"], run.template_pages[output_file])
        else:
            kind, url = "other", encode_path(path_of_file(output_file))
    # These may be any file a template renders (robots.txt, a JSON search index).
    if kind in ("template_pages", "other") and not output_file.endswith((".html", ".htm")):
        return None
    if not run.kinds[kind]:
        reason = "error page" if is_error_page(output_file) else "pelican_kinds"
        return Page(url, output=path, exclude_reason=reason)
    if paged:
        url = output_file if run.pager_url_is_file else pager.url
    if kind in ("template_pages", "other"):
        members = ()
    else:
        members = run.urls_of(pager.object_list if pager is not None else articles or ())
    return Page(url, source=source, output=path, members=members)


def _listed(content) -> bool:
    """False for metadata ``sitemap: false``."""
    value = content.metadata.get("sitemap")
    if value is None or value is True:
        return True
    if value is False or str(value).strip().lower() in _FALSE:
        return False
    if str(value).strip().lower() not in _TRUE:
        log.warning(
            "sitemapkit: %s: metadata 'sitemap: %s' is neither true nor false; the page is listed",
            content.relative_source_path,
            value,
        )
    return True


def _period_url(period_archives: dict[str, Any] | None, save_as: str) -> str:
    for periods in (period_archives or {}).values():
        for period in periods:
            if period.get("save_as") == save_as:
                return period["url"]
    return encode_path(path_of_file(save_as))


def _same_formatting(url: Any, save_as: Any) -> bool:
    """Whether a pagination rule's URL and save-as templates always give the same
    text: the same string, naming neither of the two values that differ between
    them (``{url}``, ``{save_as}``)."""
    if not isinstance(url, str) or url != save_as:
        return False
    try:
        fields = {re.split(r"[.\[]", name, maxsplit=1)[0] for _, name, _, _ in string.Formatter().parse(url) if name}
    except ValueError:  # not a valid template: Pelican says so when it formats it
        return False
    return not fields & {"url", "save_as"}


def finish_run(pelican) -> None:
    """Write the sitemap for what this run wrote (or hand it to the main run)."""
    run = _runs.pop(_key(pelican.settings["OUTPUT_PATH"]), None)
    if run is None or run.options is None:
        return
    pages = run.handed_over + _pages(run)
    outer = _containing_run(run)
    if outer is not None and outer.options is not None and _is_below(run.site_url, outer.site_url):
        outer.handed_over.extend(_absolute(page, run.site_url) for page in pages)
        return
    try:
        report = sitemapkit.build_site(pages, run.options, Path(run.output_dir), date_advice=PAGE_DATES)
    except ConfigError as error:
        raise _translate(error) from None
    for notice, text in report.log_lines(verbose=run.options.verbose):
        if notice is None:
            _show_summary(text)
        else:
            log.warning("sitemapkit [" + notice.code + "]: %s", text)


def _show_summary(text: str) -> None:
    """Log the summary at INFO, shown at Pelican's default verbosity.

    Pelican shows INFO records only with --verbose, yet prints its own summary
    ("Done: Processed ...") by default; this line (which carries the robots.txt
    advice) is shown on the same terms. It stays INFO, so ``--fatal warnings``
    does not count it; the level is this logger's own, so ``--quiet`` (which
    raises the root logger past WARNING) still hides it.
    """
    shown = logging.getLogger().getEffectiveLevel()
    log.setLevel(min(shown, logging.INFO) if shown <= logging.WARNING else logging.NOTSET)
    log.info("%s", text)


def _containing_run(run: _Run) -> _Run | None:
    """The innermost other run whose output folder holds this run's (i18n_subsites)."""
    outer = [r for k, r in _runs.items() if run.output_dir.startswith(k + os.sep)]
    return max(outer, key=lambda r: len(r.output_dir), default=None)


def _is_below(url: str, base: str) -> bool:
    return url.rstrip("/").startswith(base.rstrip("/") + "/")


def _absolute(page: Page, site_url: str) -> Page:
    """A sub-site's page, addressed from the main site (its URLs made absolute)."""
    prefix = site_url.rstrip("/") + "/"

    def absolute(loc: str) -> str:
        return loc if urlsplit(loc).scheme else prefix + loc

    return dataclasses.replace(page, loc=absolute(page.loc), members=tuple(absolute(m) for m in page.members))


@functools.lru_cache(maxsize=64)
def _key(output_path: str) -> str:
    return os.path.abspath(output_path)


def _drop_traceback(record: logging.LogRecord) -> bool:
    if record.exc_info and isinstance(record.exc_info[1], SitemapkitError):
        record.exc_info = None
        record.exc_text = None
    return True
