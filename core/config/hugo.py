"""``sitemapkit build --config hugo.toml``: a Hugo project's settings and sources.

Hugo's own sitemap dates each page by its ``.Lastmod``; this module reads the
project as Hugo does and hands the core each built page with the source Hugo
builds it from, so a page is dated as Hugo dates it (its ``[frontmatter]``
order: git, front matter, file time, file name), and every list page that Hugo
dates by what it lists is given those pages as its members.

Read from ``hugo.toml``, ``hugo.yaml``, ``hugo.json`` (or ``config.*``), and the
configuration folder beside it as Hugo reads it (``config/_default/``, then the
environment's ``config/production/``, each merged over what came before; in
each, ``X.toml`` sets the key ``X``): ``baseURL``, ``publishDir`` (default
``public``), ``contentDir`` (default ``content``; ``module.mounts`` into
``content`` replace it), ``languages`` (each with its own ``contentDir`` and
``baseURL``), ``defaultContentLanguage``, ``defaultContentLanguageInSubdir``,
``uglyURLs`` (true, or per section), ``disablePathToLower``, ``taxonomies``,
``pagination.path`` (``paginatePath``), ``enableGitInfo``, ``timeZone``, the
``[frontmatter]`` date orders, and ``[permalinks]`` of regular pages (a
section's pattern, ``/:year/:month/:title/``: see _permalink_path). Keys are
read case-insensitively, as Hugo reads them. From each source's front matter:
``lastmod``, ``date`` (and the other keys the date orders name), ``draft``,
``sitemap.disable``, ``build.list``, ``slug``, ``url``, ``translationKey`` and
the taxonomy keys; ``cascade`` (front matter and configuration) hands down
``sitemap``, ``build`` and ``draft``.

Which page a source becomes, as Hugo 0.1xx builds it:

* ``_index.md`` is its folder's list page (the home page at the top), ``index.md``
  a leaf bundle (its folder is one page; other files in it are resources), any
  other file a page named by its file (or ``slug``; ``url`` replaces the path);
* a file ``name.LANG.md`` is in language ``LANG``; any other file is in its
  content folder's language (the default language's for the shared one);
* a language other than the default (or every one, with
  ``defaultContentLanguageInSubdir``) is published below ``LANG/``;
* paths are lower-cased unless ``disablePathToLower``; with ``uglyURLs`` a page is
  ``name.html`` and a term ``tags/x.html`` (lists keep ``index.html``).

How list pages are dated, as Hugo dates them: a home or section page with its own
``_index.md`` by that file; a section without one by the newest of the pages and
sections it holds; a taxonomy (``tags/``) and a term (``tags/x/``) without one by
the newest page they list. Their pagination (``page/2/``, which Hugo's own sitemap
leaves out) is listed with its list's date. Error pages and alias stubs (and
``page/1/``, a redirect) are left out by the core's rules, as everywhere.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import os
import posixpath
import re
import unicodedata
import urllib.parse
from collections.abc import Container, Iterable, Mapping
from pathlib import Path
from typing import Any

from ..protocol.dates import parse_lastmod
from ..protocol.errors import ConfigError, SitemapkitError
from ..protocol.hostsettings import HUGO_SETTINGS, project_options
from ..protocol.model import Options, Page, is_error_page
from ..protocol.patterns import deferred
from ..site.dataformats import load_json, load_toml, load_yaml, merge_settings
from ..site.frontmatter import read_front_matter_document
from .layered import config_paths, layered_settings

__all__ = [
    "CONFIG_NAMES",
    "GENERATOR_SITEMAPS",
    "HugoConfig",
    "is_hugo_config",
    "options_for",
    "project_pages",
    "read_project_config",
]

#: The configuration files Hugo reads at a project's root, in its order.
CONFIG_NAMES = tuple(f"{stem}.{ext}" for stem in ("hugo", "config") for ext in ("toml", "yaml", "yml", "json"))
#: The configuration folder Hugo reads beside a project's file (its ``configDir``),
#: and in it the folder every environment reads before its own.
CONFIG_DIR = "config"
DEFAULT_FOLDER = "_default"
#: "hugo ... Default is production" (``hugo server``: development); the variables
#: Hugo reads it from, the first set winning.
DEFAULT_ENVIRONMENT = "production"
ENVIRONMENT_VARIABLES = ("HUGO_ENVIRONMENT", "HUGO_ENV")
#: The sitemap Hugo writes at the root (a sitemapindex, for several languages):
#: replaced by ours.
GENERATOR_SITEMAPS = ("sitemap.xml",)
#: No browser code of Hugo's reads the sitemap.
BROWSER_READS_SITEMAP_XML = False
#: The content file extensions Hugo builds pages from.
CONTENT_EXTENSIONS = (
    ".md",
    ".markdown",
    ".mdown",
    ".html",
    ".htm",
    ".org",
    ".adoc",
    ".asciidoc",
    ".pandoc",
    ".pdc",
    ".rst",
)
# Hugo's default date orders (hugo/resources/page/pagemeta: defaultFrontMatterConfig).
DEFAULT_DATE_ORDER = ("date", "publishdate", "pubdate", "published", "lastmod", "modified")
DEFAULT_LASTMOD_ORDER = (":git", "lastmod", "modified", "date", "publishdate", "pubdate", "published")
DEFAULT_TAXONOMIES = {"tag": "tags", "category": "categories"}
# A post's date in its file name (Hugo's :filename), as 2024-01-31-title.md.
_FILENAME_DATE = deferred(r"(\d{4}-\d{2}-\d{2})(?:[-_](.*))?\Z")


@dataclasses.dataclass(frozen=True)
class Language:
    code: str
    #: The folders its content is read from: its own contentDir, or the shared one.
    content_dirs: tuple[Path, ...]
    #: Its own baseURL (a multihost site), or None.
    base_url: str | None
    #: The path below the output folder its pages are published in ("" or "fr/").
    prefix: str
    #: Its own ``taxonomies`` (singular -> plural), when it sets them; else the site's.
    taxonomies: dict[str, str] | None = None
    #: The hreflang of its pages: its ``locale`` (``languageCode`` before Hugo
    #: 0.158), else its key, as Hugo's sitemap writes them.
    hreflang: str = ""


@dataclasses.dataclass(frozen=True)
class HugoConfig:
    """The settings of one Hugo project that its sitemap depends on."""

    config_file: Path
    root: Path
    base_url: str | None
    publish_dir: Path
    content_dir: Path
    default_language: str
    languages: tuple[Language, ...]
    ugly_urls: bool | dict[str, bool]
    disable_path_to_lower: bool
    taxonomies: dict[str, str]
    pagination_path: str
    enable_git_info: bool
    timezone: dt.tzinfo
    date_order: tuple[str, ...]
    lastmod_order: tuple[str, ...]
    #: Every language's code (a file named ``a.CODE.md`` is in language CODE).
    language_codes: tuple[str, ...] = ()
    #: One language of a multihost site (see :func:`sites`).
    multihost: bool = False
    #: What the configuration names that this module cannot read (a theme's or a
    #: module's own configuration), one line each, for the command to say.
    unread: tuple[str, ...] = ()
    #: The site configuration's own ``cascade`` entries (see _cascade_entries).
    cascade: tuple[dict[str, Any], ...] = ()
    #: The content folders every language reads (its files without a language
    #: in their name are the default language's): ``contentDir``, or the
    #: ``module.mounts`` into ``content`` without a ``lang``.
    shared_content_dirs: tuple[Path, ...] = ()
    #: The setting that names them, for a message.
    content_setting: str = "contentDir"
    #: ``[sitemap] filename``: the name Hugo writes its sitemap (and each
    #: language's) under, which ours takes unless ``--filename`` names another.
    sitemap_filename: str = "sitemap.xml"
    #: ``[permalinks]`` of regular pages: a section (``posts``, ``""`` for the
    #: pages at the top) -> its URL pattern (see _permalink_path).
    page_permalinks: dict[str, str] = dataclasses.field(default_factory=dict)
    #: Every file ``--config`` named, in order, and the file that set each
    #: top-level setting (lower-cased; the last to set it), for messages.
    config_files: tuple[Path, ...] = ()
    origins: dict[str, str] = dataclasses.field(default_factory=dict, compare=False)

    def setting(self, name: str) -> str:
        return f"{self.origins.get(name.split('.', 1)[0].lower(), self.config_file.name)}: {name}"

    @property
    def label(self) -> str:
        """The configuration as ``--config`` named it (``hugo.toml``, ``config/``, or ``hugo.toml,prod.toml``)."""
        return (
            ",".join(path.name for path in self.config_files) if len(self.config_files) > 1 else self.config_file.name
        )

    @property
    def shared_folders(self) -> tuple[Path, ...]:
        """The content folders every language reads (see shared_content_dirs)."""
        return self.shared_content_dirs or (self.content_dir,)

    @property
    def site_dir(self) -> Path:
        return self.publish_dir


def is_hugo_config(path: Path) -> bool:
    """Whether ``path`` (as ``--config`` names it) is a Hugo configuration."""
    return path.is_dir() or path.name.lower() in CONFIG_NAMES


def _lower_keys(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(key).lower(): _lower_keys(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_lower_keys(item) for item in value]
    return value


def _load(path: Path) -> dict[str, Any]:
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except OSError as error:
        raise SitemapkitError(f"--config {str(path)!r}: {error.strerror or error}") from None
    except UnicodeDecodeError:
        raise SitemapkitError(f"{path.name}: is not UTF-8 text") from None
    suffix = path.suffix.lower()
    if suffix == ".toml":
        data = load_toml(text, path.name)
    elif suffix == ".json":
        data = load_json(text, path.name)
    else:
        data = load_yaml(text, path.name)
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise SitemapkitError(f"{path.name}: must be a mapping of settings")
    return _lower_keys(data)


def _read_folder(folder: Path, written: str) -> tuple[dict[str, Any], dict[str, str]]:
    """One folder of the configuration folder (``_default/``, ``production/``):
    ``hugo.*``/``config.*`` at the top level, any other ``X.ext`` under the key
    ``X`` (``languages.toml``, ``params.yaml``); and for each top-level key the
    file that set it, as ``written`` (``config/_default``) and its name."""
    settings: dict[str, Any] = {}
    origins: dict[str, str] = {}
    files = sorted(
        p for p in folder.iterdir() if p.is_file() and p.suffix.lower() in (".toml", ".yaml", ".yml", ".json")
    )
    for path in files:
        stem = path.stem.lower()
        if "." in stem:
            continue  # menus.en.toml, params.fr.yaml: nothing a sitemap needs
        data = _load(path)
        if stem in ("hugo", "config"):
            settings.update(data)
            origins.update((key, f"{written}/{path.name}") for key in data)
        else:
            settings[stem] = data
            origins[stem] = f"{written}/{path.name}"
    return settings, origins


def _hugo_environment(environ: Mapping[str, str] = os.environ) -> str:
    """The environment ``hugo`` builds for, as it reads it: ``HUGO_ENVIRONMENT``,
    else ``HUGO_ENV``, else :data:`DEFAULT_ENVIRONMENT`."""
    for name in ENVIRONMENT_VARIABLES:
        if environ.get(name):
            return environ[name]
    return DEFAULT_ENVIRONMENT


def _environment_layers(config_dir: Path) -> list[tuple[dict[str, Any], dict[str, str]]]:
    """What Hugo reads from its configuration folder, in its order: ``_default/``,
    then the environment's folder (``production/``), each merged over what came
    before; files directly in the folder are not read (nor by Hugo)."""
    layers = []
    for name in (DEFAULT_FOLDER, _hugo_environment()):
        folder = config_dir / name
        if name and "/" not in name and name not in (".", "..") and folder.is_dir():
            layers.append(_read_folder(folder, f"{config_dir.name}/{name}"))
    return layers


def read_project_config(path: Path | str) -> HugoConfig:
    """The settings of ``path``: a Hugo configuration file or folder, or several
    files joined by commas (``hugo --config hugo.toml,production.toml``: each
    merged over the ones before, as Hugo merges them).

    Raises :class:`SitemapkitError` with one line naming the file and the setting.
    """
    paths = config_paths(path)
    if len(paths) == 1 and paths[0].is_dir():
        # The configuration folder (config/, or its config/_default/), in the
        # project's folder; Hugo reads the project's own file under it.
        config_dir = paths[0].parent if paths[0].name == DEFAULT_FOLDER else paths[0]
        root = config_dir.resolve().parent
        files = [root / name for name in CONFIG_NAMES if (root / name).is_file()][:1]
        config_file = paths[0]
    else:
        # One file, or several (hugo --config a.toml,b.toml): the later wins.
        root = paths[0].resolve().parent
        config_dir, files, config_file = root / CONFIG_DIR, paths, paths[0]
    settings, origins = layered_settings(files, _load)
    # The configuration folder beside them, read by Hugo whatever --config names:
    # merged over them, its environment's folder last.
    for layer, layer_origins in _environment_layers(config_dir) if config_dir.is_dir() else ():
        merge_settings(settings, layer)
        origins.update(layer_origins)

    def named(name: str) -> str:
        # The file that set its top-level key (languages of languages.fr.baseURL).
        return f"{origins.get(name.split('.', 1)[0].lower(), config_file.name)}: {name}"

    def text(name: str, default: str | None, table: dict[str, Any] = settings, label: str | None = None) -> str | None:
        value = table.get(name.lower(), default)
        if value is None or value == "":
            return default
        if not isinstance(value, str):
            raise SitemapkitError(f"{named(label or name)}: {value!r} must be text")
        return value

    def flag(name: str, default: bool) -> bool:
        value = settings.get(name.lower(), default)
        if not isinstance(value, bool):
            raise SitemapkitError(f"{named(name)}: {value!r} must be true or false")
        return value

    content_dir = root / (text("contentDir", "content") or "content")
    module = settings.get("module")
    if module is not None and not isinstance(module, dict):
        raise SitemapkitError(f"{named('module')}: {module!r} must be a table")
    mounts = (module or {}).get("mounts")
    if mounts is not None and not _is_list_of(mounts, dict):
        raise SitemapkitError(f"{named('module.mounts')}: must be a list of tables (source, target, lang)")
    # [[module.mounts]] with target "content" replace contentDir (hugoDocs
    # mounts content/en there). Hugo 0.153 removed their "lang" for the
    # sites matrix, which is not read.
    shared_mounts: list[Path] = []
    sub_mounts = []
    for mount in mounts or []:
        target = str(mount.get("target", "")).strip("/").lower()
        source = mount.get("source")
        if target.startswith("content/"):
            sub_mounts.append(target)
        if target == "content" and isinstance(source, str) and source:
            shared_mounts.append(root / source)
    if shared_mounts:
        content_dir = shared_mounts[0]
    shared_dirs = tuple(shared_mounts) or (content_dir,)
    publish_dir = root / (text("publishDir", "public") or "public")
    default_language = (text("defaultContentLanguage", "en") or "en").lower()
    in_subdir = flag("defaultContentLanguageInSubdir", False)
    raw_languages = settings.get("languages") or {}
    if not isinstance(raw_languages, dict):
        raise SitemapkitError(f"{named('languages')}: must be a table of languages")
    if raw_languages and default_language not in raw_languages:
        raise SitemapkitError(
            f"{named('defaultContentLanguage')}: {default_language!r} is not one of the languages "
            f"({', '.join(sorted(raw_languages))})"
        )
    codes = sorted(raw_languages or {default_language: {}}, key=lambda code: (_weight(raw_languages.get(code)), code))
    multihost = any(isinstance(raw_languages.get(code), dict) and raw_languages[code].get("baseurl") for code in codes)
    languages = []
    for code in codes:
        table = raw_languages.get(code) or {}
        if not isinstance(table, dict):
            raise SitemapkitError(f"{named(f'languages.{code}')}: must be a table")
        own_dir = text("contentDir", None, table, f"languages.{code}.contentDir")
        language_url = text("baseURL", None, table, f"languages.{code}.baseURL")
        if multihost:
            # Each host's site is published in its own folder, at its root.
            prefix = ""
        elif code != default_language or in_subdir:
            prefix = code + "/"
        else:
            prefix = ""
        own_taxonomies = table.get("taxonomies")
        # Hugo 0.158 renamed languageCode to locale; either names the hreflang.
        site_code = (text("locale", None) or text("languageCode", None)) if code == default_language else None
        language_code = (
            text("locale", None, table, f"languages.{code}.locale")
            or text("languageCode", None, table, f"languages.{code}.languageCode")
            or site_code
            or code
        )
        languages.append(
            Language(
                code=code,
                hreflang=language_code,
                content_dirs=(root / own_dir,) if own_dir and not shared_mounts else shared_dirs,
                base_url=language_url,
                prefix=prefix,
                taxonomies=None
                if own_taxonomies is None
                else _taxonomy_table(own_taxonomies, named(f"languages.{code}.taxonomies")),
            )
        )
    ugly = settings.get("uglyurls", False)
    if isinstance(ugly, dict):
        ugly = {str(section): bool(value) for section, value in ugly.items()}
    elif not isinstance(ugly, bool):
        raise SitemapkitError(f"{named('uglyURLs')}: {ugly!r} must be true, false or a table of sections")
    taxonomies = _taxonomy_table(settings.get("taxonomies", DEFAULT_TAXONOMIES), named("taxonomies"))
    pagination = settings.get("pagination") or {}
    pagination_path = (pagination.get("path") if isinstance(pagination, dict) else None) or settings.get(
        "paginatepath", "page"
    )
    frontmatter = settings.get("frontmatter") or {}
    if not isinstance(frontmatter, dict):
        raise SitemapkitError(f"{named('frontmatter')}: must be a table of date orders")
    zone_name = text("timeZone", None)
    timezone: dt.tzinfo = dt.timezone.utc
    if zone_name:
        import zoneinfo

        try:
            timezone = zoneinfo.ZoneInfo(zone_name)
        except (zoneinfo.ZoneInfoNotFoundError, ValueError):
            raise SitemapkitError(f"{named('timeZone')}: {zone_name!r} is not a time zone") from None
    sitemap = settings.get("sitemap") or {}
    if not isinstance(sitemap, dict):
        raise SitemapkitError(f"{named('sitemap')}: must be a table (filename, changefreq, priority)")
    unread = []
    theme = settings.get("theme")
    if theme is not None and not isinstance(theme, str) and not _is_list_of(theme, str):
        raise SitemapkitError(f"{named('theme')}: {theme!r} must be a theme's name or a list of names")
    imports = (module or {}).get("imports")
    if imports is not None and not _is_list_of(imports, (str, dict)):
        raise SitemapkitError(f"{named('module.imports')}: {imports!r} must be a list of module paths or tables")
    names = ([theme] if isinstance(theme, str) else list(theme or [])) + [
        entry.get("path") if isinstance(entry, dict) else entry for entry in (imports or [])
    ]
    if names:
        unread.append(
            f"{named('theme' if theme else 'module.imports')}: the configuration of {', '.join(map(str, names))} "
            "is not read (its content mounts, permalinks, taxonomies); pages it adds keep the folder's rules"
        )
    if sub_mounts:
        unread.append(
            f"{named('module.mounts')}: mounts into {', '.join(sorted(set(sub_mounts)))} are not read; "
            "their pages keep the folder's rules"
        )
    page_permalinks, unread_permalinks = _page_permalinks(settings.get("permalinks"), set(taxonomies), named)
    # A language's own permalinks replace the site's for its pages: not read.
    unread_permalinks += [
        f"languages.{code}.permalinks"
        for code, table in raw_languages.items()
        if isinstance(table, dict) and table.get("permalinks")
    ]
    if unread_permalinks:
        unread.append(
            f"{named('permalinks')}: {', '.join(unread_permalinks)} not read; "
            "the pages they move keep the folder's rules (dated by their heads)"
        )
    return HugoConfig(
        config_file=config_file,
        config_files=tuple(paths),
        origins=origins,
        root=root,
        base_url=text("baseURL", None),
        publish_dir=publish_dir,
        content_dir=content_dir,
        shared_content_dirs=shared_dirs,
        content_setting="module.mounts" if shared_mounts else "contentDir",
        default_language=default_language,
        languages=tuple(languages),
        language_codes=tuple(codes),
        ugly_urls=ugly,
        disable_path_to_lower=flag("disablePathToLower", False),
        taxonomies=taxonomies,
        page_permalinks=page_permalinks,
        pagination_path=str(pagination_path).strip("/") or "page",
        enable_git_info=flag("enableGitInfo", False),
        timezone=timezone,
        date_order=_order(frontmatter.get("date"), DEFAULT_DATE_ORDER, named("frontmatter.date")),
        lastmod_order=_order(frontmatter.get("lastmod"), DEFAULT_LASTMOD_ORDER, named("frontmatter.lastmod")),
        unread=tuple(unread),
        cascade=_cascade_entries(settings.get("cascade"), named("cascade")),
        sitemap_filename=text("filename", "sitemap.xml", sitemap, "sitemap.filename") or "sitemap.xml",
    )


#: The tokens of a permalink pattern that are expanded here (Hugo's, less its
#: ``:sections[...]`` slices, ``:sectionslug``/``:sectionslugs`` and Go date
#: layouts: a pattern with one of those is named in a warning line, not read).
PERMALINK_TOKENS = frozenset(
    ("year", "month", "monthname", "day", "weekday", "weekdayname", "yearday", "section", "sections")
    + ("title", "slug", "slugorfilename", "filename", "contentbasename", "slugorcontentbasename")
)
_PERMALINK_TOKEN = deferred(r":(\w+)(\[.+?\])?")
#: The kinds ``[permalinks.KIND]`` may name (Hugo's); only pages' patterns are read.
_PERMALINK_KINDS = ("page", "section", "taxonomy", "term")


def _page_permalinks(value: Any, plurals: set[str], named: Any) -> tuple[dict[str, str], list[str]]:
    """``[permalinks]``: regular pages' patterns by section (``posts = ...``, which
    Hugo applies to a section's pages and to a taxonomy's terms, and
    ``[permalinks.page]``), and what is not read (other kinds, terms, patterns
    with tokens not expanded here), as written, for a warning line."""
    if value is None:
        return {}, []
    if isinstance(value, list):
        return {}, ["the list of targets and patterns"]
    if not isinstance(value, dict):
        raise SitemapkitError(f"{named('permalinks')}: must be a table of sections and URL patterns")
    pages: dict[str, str] = {}
    unread: list[str] = []
    for key, pattern in value.items():
        if isinstance(pattern, dict):
            if key not in _PERMALINK_KINDS:
                raise SitemapkitError(f"{named(f'permalinks.{key}')}: is not one of {', '.join(_PERMALINK_KINDS)}")
            for section, kind_pattern in pattern.items():
                if not isinstance(kind_pattern, str):
                    raise SitemapkitError(f"{named(f'permalinks.{key}.{section}')}: {kind_pattern!r} must be text")
                if key != "page":
                    unread.append(f"{key}.{section}")
                elif _expandable(kind_pattern):
                    pages[section.strip(" /")] = kind_pattern
                else:
                    unread.append(f"page.{section} ({kind_pattern!r})")
        elif isinstance(pattern, str):
            if key.strip(" /") in plurals:
                unread.append(key)  # a taxonomy's terms
            elif _expandable(pattern):
                pages.setdefault(key.strip(" /"), pattern)
            else:
                unread.append(f"{key} ({pattern!r})")
        else:
            raise SitemapkitError(f"{named(f'permalinks.{key}')}: {pattern!r} must be text or a table")
    return pages, unread


def _expandable(pattern: str) -> bool:
    return all(
        match.group(1) in PERMALINK_TOKENS and not match.group(2)
        for match in _PERMALINK_TOKEN.finditer(pattern.replace("\\:", ""))
    )


def _permalink_pattern(config: HugoConfig, logical: str) -> str | None:
    """The pattern of the page at ``logical`` (``posts/deep/a``): its section's
    (``posts`` holds every page below it; the longest such section wins), or the
    top's (``/``) for a page at the top."""
    folder = _lower(config, posixpath.dirname(logical))
    if not folder:
        return config.page_permalinks.get("")
    keys = [
        key for key in config.page_permalinks if key and (folder == key.lower() or folder.startswith(key.lower() + "/"))
    ]
    return config.page_permalinks[max(keys, key=len)] if keys else None


def _permalink_urlize(config: HugoConfig, text: str) -> str:
    """A title, slug or file name as Hugo 0.168's permalinks write it (matched to
    what it builds): sanitized as its paths are (:func:`_sanitize`), then a ``+``,
    ``/`` or ``\\`` left in it read as a space and sanitized again (the token
    follows a ``/`` of the pattern), a ``%XX`` decoded; lower-cased unless
    ``disablePathToLower``."""
    once = _sanitize(text)
    twice = _sanitize(once.translate(_READ_AS_SPACE), after_text=True)
    return _lower(config, urllib.parse.unquote(twice) if "%" in twice else twice)


_READ_AS_SPACE = str.maketrans("+/\\", "   ")


def _sanitize(text: str, after_text: bool = False) -> str:
    """Hugo's path sanitizing: letters, digits, marks, ``. / \\ _ # + ~ - @`` and
    ``%XX`` kept, a run of whitespace between them one ``-`` (none next to a
    ``-``; none at the start unless ``after_text``), anything else left out."""
    out: list[str] = []
    pending = hyphen = False
    for index, char in enumerate(text):
        if _path_character(text, index, char):
            hyphen = char == "-"
            if pending and not hyphen:
                out.append("-")
            pending = False
            out.append(char)
        elif (out or after_text) and not hyphen and char.isspace():
            pending = True
    return "".join(out)


def _path_character(text: str, index: int, char: str) -> bool:
    """Whether Hugo keeps ``char`` (at ``index`` of ``text``) in a path: a
    letter, digit or mark, one of ``. / \\ _ # + ~ - @``, or the ``%`` of a
    ``%XX``."""
    return (
        char.isalpha()
        or unicodedata.category(char) in ("Nd", "Mn", "Mc", "Me")
        or char in "./\\_#+~-@"
        or (char == "%" and _HEX_PAIR.match(text, index + 1) is not None)
    )


_HEX_PAIR = deferred(r"[0-9A-Fa-f]{2}")


def _section_of(folder: str, sections: Container[str]) -> str:
    """The section a content folder (``posts/2024``) is in, as Hugo reckons it:
    the nearest of it and the folders above it that is a section. A top-level
    folder is always one; a folder below it only with an ``_index`` (``sections``
    holds those)."""
    while "/" in folder and folder not in sections:
        folder = posixpath.dirname(folder)
    return folder


def _permalink_path(config: HugoConfig, source: _Source, pattern: str, sections: set[str]) -> str | None:
    """``pattern`` expanded for the page of ``source`` (its path in the site,
    without the language's folder); None where its date cannot be known here
    (``:git`` in the date order). Each token's value is worked out only when
    the pattern has it (a title is sanitized character by character)."""
    folder = posixpath.dirname(source.logical)
    when: dt.date | None = None
    if any(token.group(1) in _DATE_TOKENS for token in _PERMALINK_TOKEN.finditer(pattern)):
        when = _hugo_date(config, source)
        if when is None:
            return None
    urlized: dict[str, str] = {}

    def named(key: str) -> str:
        # The page's title, slug or file name, as its permalink writes it.
        if key not in urlized:
            raw = posixpath.basename(source.logical) if key == "filename" else source.meta.get(key)
            given = isinstance(raw, str) and raw.strip() if key == "slug" else raw not in (None, "")
            urlized[key] = _permalink_urlize(config, str(raw)) if given else ""
        return urlized[key]

    def value(token: str) -> str:
        if token == "section":
            return _lower(config, folder.split("/", 1)[0])
        if token == "sections":
            return _lower(config, _section_of(folder, sections))
        if token == "title":
            return named("title")
        if token == "slug":
            return named("slug") or named("title")
        if token in ("filename", "contentbasename"):
            return named("filename")
        if token in ("slugorfilename", "slugorcontentbasename"):
            return named("slug") or named("filename")
        assert when is not None  # a date token: read above
        return {
            "year": str(when.year),
            "month": f"{when.month:02d}",
            "monthname": _MONTH_NAMES[when.month - 1],
            "day": f"{when.day:02d}",
            "weekday": str((when.weekday() + 1) % 7),
            "weekdayname": _WEEKDAY_NAMES[when.weekday()],
            "yearday": str(when.timetuple().tm_yday),
        }[token]

    expanded = _PERMALINK_TOKEN.sub(lambda token: value(token.group(1)), pattern.replace("\\:", "\0"))
    return expanded.replace("\0", ":")


#: Go's names, whatever the locale (its time.Month and time.Weekday).
_MONTH_NAMES = (
    *("January", "February", "March", "April", "May", "June"),
    *("July", "August", "September", "October", "November", "December"),
)
_WEEKDAY_NAMES = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_DATE_TOKENS = frozenset(("year", "month", "monthname", "day", "weekday", "weekdayname", "yearday"))
#: Hugo's date of a page its date order gives nothing: Go's zero time.
_ZERO_DATE = dt.date(1, 1, 1)


def _hugo_date(config: HugoConfig, source: _Source) -> dt.date | None:
    """The day of the page's ``.Date`` (its ``[frontmatter] date`` order), which
    its permalink is dated by: in the date's own offset, else ``timeZone``; Go's
    zero time where the order gives nothing; None where git gives it (not known
    here) or a front-matter date is text that is no date."""
    found = _date_by_order(config, source, config.date_order)
    if found is None:
        return _ZERO_DATE
    if found is _BY_GIT:
        return None
    try:
        moment = parse_lastmod(found)
    except ValueError:
        return None
    return moment.date() if isinstance(moment, dt.datetime) else moment


def _taxonomy_table(value: Any, setting: str) -> dict[str, str]:
    """``taxonomies`` (the site's or a language's): singular -> plural, the plural lower-cased."""
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise SitemapkitError(f"{setting}: must be a table of singular = plural names")
    return {str(k): v.lower() for k, v in value.items()}


def _language(config: HugoConfig, code: str) -> Language:
    return next(language for language in config.languages if language.code == code)


def _taxonomies(config: HugoConfig, language: Language) -> dict[str, str]:
    """The taxonomies of ``language``'s pages: its own, else the site's."""
    return config.taxonomies if language.taxonomies is None else language.taxonomies


def _weight(table: Any) -> int:
    weight = table.get("weight", 0) if isinstance(table, dict) else 0
    return weight if isinstance(weight, int) and weight > 0 else 1 << 30


def _order(value: Any, default: tuple[str, ...], setting: str) -> tuple[str, ...]:
    if value is None:
        return default
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise SitemapkitError(f"{setting}: must be a list of front-matter keys and :git, :fileModTime, :filename")
    order: list[str] = []
    for item in value:
        item = item.lower()
        order += default if item == ":default" else [item]
    return tuple(order)


def options_for(config: HugoConfig, base_url: str | None, flags: dict[str, Any]) -> Options:
    """The options of a run: ``baseURL`` (``--base-url`` wins), then the command's
    flags; the entry point under ``[sitemap] filename`` unless ``--filename`` is given.
    (``changefreq`` and ``priority`` are not written: crawlers ignore them.)"""
    if base_url and config.multihost:
        raise SitemapkitError(f"--base-url: the languages of {config.label} have a baseURL each; set those instead")
    # A bad baseURL is named in the file that set it; a missing one in them all.
    written_in = config.origins.get("baseurl", config.label)
    options = project_options(written_in, HUGO_SETTINGS, config.base_url, base_url, flags)
    if "filename" in flags or config.sitemap_filename == options.filename:
        return options
    try:
        return dataclasses.replace(options, filename=config.sitemap_filename)
    except ConfigError as error:
        raise SitemapkitError(f"{config.setting('sitemap.filename')}: {error.problem}") from None


def generator_sitemaps(config: HugoConfig) -> tuple[str, ...]:
    """The files Hugo writes its sitemaps as, which ours replaces."""
    return (config.sitemap_filename,)


def sites(config: HugoConfig) -> list[tuple[HugoConfig, str]]:
    """The sites the project publishes, each with its folder below ``publishDir``:
    one, or with languages of their own ``baseURL`` (Hugo's multihost) one a
    language, in ``publishDir/LANG``, each its own host's sitemap."""
    if not any(language.base_url for language in config.languages):
        return [(config, "")]
    return [
        (
            dataclasses.replace(
                config,
                languages=(language,),
                base_url=language.base_url,
                publish_dir=config.publish_dir / language.code,
                multihost=True,
            ),
            language.code,
        )
        for language in config.languages
    ]


def generator_sitemap_folders(config: HugoConfig) -> tuple[str, ...]:
    """The language folders where Hugo writes each language's sitemap.xml
    (listed by its root sitemapindex, which ours replaces)."""
    if len(config.languages) < 2 or config.multihost:
        return ()
    return tuple(language.code for language in config.languages)


# ---- pages --------------------------------------------------------------------------


@dataclasses.dataclass
class _Source:
    """One content file, and the page Hugo makes of it."""

    path: Path
    language: str
    #: The page's folder-relative path, lower-cased as Hugo writes it ("posts/a").
    path_in_site: str
    #: "page", or "list" (an _index: home, section, taxonomy or term).
    kind: str
    meta: dict[str, Any]
    translation_key: str
    #: Its place in the content tree, as in the content folder ("posts/a").
    logical: str = ""
    #: Whether Hugo's date orders give it a date of its own (else a list page
    #: takes its pages' newest).
    dated: bool = True
    #: The built file this source should be (relative to the output folder).
    outputs: tuple[str, ...] = ()


def _is_list_of(value: Any, kinds: type | tuple[type, ...]) -> bool:
    return isinstance(value, list) and all(isinstance(item, kinds) for item in value)


def project_pages(config: HugoConfig, built: Iterable[Page], site_dir: Path) -> list[Page]:
    """Each built page of ``site_dir`` with its source, date rule, members and listing."""
    for language in config.languages:
        for folder in language.content_dirs:
            if not folder.is_dir():
                raise SitemapkitError(
                    f"{config.setting(config.content_setting if folder in config.shared_folders else f'languages.{language.code}.contentDir')}: "
                    f"{str(folder)!r} is not a folder"
                )
    found = {Path(page.output).relative_to(site_dir).as_posix(): page for page in built}  # type: ignore[arg-type]
    sources = _content_sources(config)
    by_output: dict[str, _Source] = {}
    for source in sources:
        for output in source.outputs:
            if output in found:
                by_output.setdefault(output, source)
                break
    prefixes = sorted({language.prefix for language in config.languages if language.prefix}, key=len, reverse=True)
    pages: dict[str, Page] = {}
    for relative, page in found.items():
        mapped = by_output.get(relative)
        in_language = next((relative[len(p) :] for p in prefixes if relative.startswith(p)), relative)
        if _is_ugly(config, in_language.split("/", 1)[0] if "/" in in_language else "") and not (
            mapped is not None and mapped.meta.get("url")
        ):
            # With uglyURLs every page Hugo writes is served at its file's name,
            # lists too (posts/index.html): the URL its permalinks and sitemap give.
            page = dataclasses.replace(page, loc=Page.from_path(relative).loc)
        if mapped is not None:
            page = _sourced_page(config, page, mapped)
        elif len(config.languages) > 1:
            page = _unsourced_translation(config, page, relative)
        pages[relative] = page
    _date_lists(config, pages, found, by_output)
    return list(pages.values())


def _unsourced_translation(config: HugoConfig, page: Page, relative: str) -> Page:
    """A list page without an ``_index`` of its own (a section, a taxonomy, a
    term), in its language: Hugo makes the lists of one path in every language
    translations of each other, as a section's ``_index.md`` makes them
    (``list:PATH``, the key of a sourced list page)."""
    folder, _, name = relative.rpartition("/")
    if name != "index.html" or is_error_page(relative):
        return page
    language = next((lang for lang in config.languages if lang.prefix and relative.startswith(lang.prefix)), None)
    if language is None:
        language = next((lang for lang in config.languages if not lang.prefix), None)
    if language is None:
        return page  # outside every language's folder (the root's redirect to one)
    logical = folder[len(language.prefix) :] if language.prefix else folder
    last = logical.rsplit("/", 2)
    if len(last) >= 2 and last[-2] == config.pagination_path and last[-1].isdigit():
        return page  # a pagination page: Hugo lists none, nor its translations
    return dataclasses.replace(page, hreflang=language.hreflang, translation_key=f"list:{logical}")


def _content_sources(config: HugoConfig) -> list[_Source]:
    codes = set(config.language_codes)
    prefix_of = {language.code: language.prefix for language in config.languages}
    folders: dict[Path, str | None] = {}
    for each in config.languages:
        for folder in each.content_dirs:
            # The shared folder's files without a language in their name are the
            # default language's; a language's own folder's are its own.
            own = folder not in config.shared_folders
            folders.setdefault(folder, each.code if own else None)
    sources: list[_Source] = []
    for folder, folder_language in folders.items():
        files = sorted(p for p in folder.rglob("*") if p.is_file() and p.suffix.lower() in CONTENT_EXTENSIONS)
        named = []
        for path in files:
            relative = path.relative_to(folder).as_posix()
            directory, name = posixpath.split(relative)
            stem, language = _name_language(name.rsplit(".", 1)[0], folder_language or config.default_language, codes)
            named.append((path, directory, stem, language))
        leaf_bundles = {directory for _, directory, stem, _ in named if stem == "index"}
        # Each list page's cascade, by (language, its place): read before any
        # page below it is made, whatever the files' order.
        cascades: dict[tuple[str, str], tuple[dict[str, Any], ...]] = {}
        pending: list[tuple[Path, str, str, dict[str, Any], str]] = []
        for path, directory, stem, language in named:
            if any(directory == b or directory.startswith(b + "/") for b in leaf_bundles if b) and stem != "index":
                continue  # a resource of a leaf bundle, not a page
            if "" in leaf_bundles and stem != "index":
                continue
            if language not in prefix_of:
                continue  # another host's language (multihost): another site
            meta = _lower_keys(read_front_matter_document(path, _shown(config, path)))
            kind = "list" if stem == "_index" else "page"
            if stem in ("_index", "index"):
                logical = directory
            else:
                logical = posixpath.join(directory, stem)
            if kind == "list":
                cascades[(language, logical)] = _cascade_entries(
                    meta.get("cascade"), f"{_shown(config, path)}: cascade"
                )
            pending.append((path, language, kind, meta, logical))
        sections = {place for _, place in cascades}
        for path, language, kind, meta, logical in pending:
            _inherit(meta, logical, kind, language, cascades, config.cascade)
            key = meta.get("translationkey")
            source = _Source(
                path=path,
                language=language,
                path_in_site="",
                kind=kind,
                meta=meta,
                translation_key=str(key) if key else f"{kind}:{_lower(config, logical)}",
                logical=logical,
            )
            source.path_in_site, source.outputs = _outputs(config, source, logical, prefix_of[language], sections)
            sources.append(source)
    return sources


#: The front-matter keys a ``cascade`` hands down that decide what the sitemap
#: lists (other cascaded keys, layouts and params, do not change it).
CASCADED_KEYS = ("sitemap", "build", "draft")
_KINDS_OF_TARGET = ("home", "section", "page", "taxonomy", "term")


def _cascade_entries(value: Any, setting: str) -> tuple[dict[str, Any], ...]:
    """A ``cascade`` (one table or a list of them, keys lower-cased), each entry
    with its ``target`` (or ``_target``) kept apart under ``"_target"``."""
    if value is None:
        return ()
    tables = value if isinstance(value, list) else [value]
    if not all(isinstance(table, dict) for table in tables):
        raise SitemapkitError(f"{setting}: must be a table or a list of tables")
    entries = []
    for table in tables:
        target = table.get("target", table.get("_target")) or {}
        if not isinstance(target, dict):
            raise SitemapkitError(f"{setting}: target: {target!r} must be a table (path, kind, lang)")
        values = {key: table[key] for key in CASCADED_KEYS if key in table}
        if values:
            entries.append({"_target": target, **values})
    return tuple(entries)


def _targets(target: dict[str, Any], logical: str, kind: str, language: str) -> bool:
    """Whether a cascade's ``target`` takes the page at ``logical`` (Hugo's glob
    on its path, ``/posts/**``; its kind; its language)."""
    path = target.get("path")
    if isinstance(path, str) and path:
        pattern = re.escape(path.lower()).replace(r"\*\*", ".*").replace(r"\*", "[^/]*").replace(r"\?", "[^/]")
        if re.fullmatch(pattern, "/" + logical.lower()) is None:
            return False
    kinds = target.get("kind")
    if kinds:
        own = "page" if kind == "page" else "home" if not logical else "section"
        if own not in ([k.lower() for k in kinds] if isinstance(kinds, list) else [str(kinds).lower()]):
            return False
    lang = target.get("lang")
    return not lang or str(lang).lower() == language


def _inherit(
    meta: dict[str, Any],
    logical: str,
    kind: str,
    language: str,
    cascades: dict[tuple[str, str], tuple[dict[str, Any], ...]],
    site: tuple[dict[str, Any], ...],
) -> None:
    """Give ``meta`` the CASCADED_KEYS its own front matter does not set, from
    the cascades of the list pages above it, the nearest first (a list page's
    own cascade covers it too), then the site configuration's."""
    folders = logical.split("/") if logical else []
    # A list page (an _index) is its own nearest ancestor; a page's is its folder.
    depth = len(folders) if kind == "list" else len(folders) - 1
    chain = [cascades.get((language, "/".join(folders[:n])), ()) for n in range(depth, -1, -1)] + [site]
    for entries in chain:
        for entry in entries:
            if _targets(entry["_target"], logical, kind, language):
                for key in CASCADED_KEYS:
                    if key in entry:
                        meta.setdefault(key, entry[key])


def _name_language(stem: str, language: str, codes: set[str]) -> tuple[str, str]:
    """A content file's name without its language (``first.de`` -> ``first``, ``de``)."""
    name, _, code = stem.rpartition(".")
    if name and code.lower() in codes:
        return name, code.lower()
    return stem, language


def _shown(config: HugoConfig, path: Path) -> str:
    try:
        return path.relative_to(config.root).as_posix()
    except ValueError:
        return str(path)


def _lower(config: HugoConfig, path: str) -> str:
    return path if config.disable_path_to_lower else path.lower()


def _is_ugly(config: HugoConfig, section: str) -> bool:
    if isinstance(config.ugly_urls, dict):
        return config.ugly_urls.get(section, False)
    return config.ugly_urls


def _outputs(
    config: HugoConfig, source: _Source, logical: str, prefix: str, sections: set[str]
) -> tuple[str, tuple[str, ...]]:
    """The page's path in the site (with its language, without its file name) and
    the file names Hugo may write it as (``sections``: the folders with an
    ``_index``, for a permalink's ``:sections``)."""
    url = source.meta.get("url")
    if isinstance(url, str) and url.strip():
        # Hugo takes url as written, below the site (no language folder added).
        path = url.strip().lstrip("/")
        if path.endswith(".html"):
            return path, (path,)
        path = path.rstrip("/")
        return path, ((path + "/index.html") if path else "index.html",)
    if source.kind == "list":
        path = prefix + _lower(config, logical)
        path = path.rstrip("/")
        return path, ((path + "/index.html") if path else "index.html",)
    pattern = _permalink_pattern(config, logical)
    if pattern is not None:
        moved = _permalink_path(config, source, pattern, sections)
        if moved is not None:
            path = prefix + moved.strip("/")
            if not path.strip("/"):
                return "", ("index.html",)
            if posixpath.splitext(path)[1]:
                return path, (path, path + "/index.html")
            return path, (path + "/index.html", path + ".html")
    directory, name = posixpath.split(logical)
    slug = source.meta.get("slug")
    dated_name = _FILENAME_DATE.match(name)
    if isinstance(slug, str) and slug.strip():
        name = slug.strip()
    elif dated_name and dated_name.group(2) and ":filename" in config.date_order + config.lastmod_order:
        # Hugo's :filename takes the date off the name, and the rest is the slug.
        name = dated_name.group(2)
    path = prefix + _lower(config, posixpath.join(directory, name).replace(" ", "-"))
    section = logical.split("/", 1)[0] if "/" in logical else ""
    if _is_ugly(config, section):
        return path, (path + ".html", path + "/index.html")
    return path, (path + "/index.html", path + ".html")


def _sourced_page(config: HugoConfig, page: Page, source: _Source) -> Page:
    meta = source.meta
    sitemap = meta.get("sitemap")
    build = meta.get("build")
    # build.list "never" (false before Hugo 0.145) and "local" keep a page out of
    # the site's page collections, which Hugo's sitemap lists.
    unlisted = isinstance(build, dict) and str(build.get("list")).lower() in ("never", "local", "false")
    listed = not (isinstance(sitemap, dict) and sitemap.get("disable") is True) and not unlisted
    reason = page.exclude_reason
    if meta.get("draft") is True and reason is None:
        reason = "draft"  # built with --buildDrafts: never what Hugo's sitemap lists
    lastmod, use_source, source.dated = _hugo_lastmod(config, source)
    return dataclasses.replace(
        page,
        lastmod=lastmod,
        source=source.path if use_source else None,
        listed=listed,
        exclude_reason=reason,
        hreflang=_language(config, source.language).hreflang if len(config.languages) > 1 else page.hreflang,
        translation_key=source.translation_key if len(config.languages) > 1 else page.translation_key,
    )


def _hugo_lastmod(config: HugoConfig, source: _Source) -> tuple[Any, bool, bool]:
    """The page's lastmod by Hugo's ``[frontmatter] lastmod`` order, then its
    ``date`` order, as ``(value, whether the core dates the source, whether Hugo
    dates the page)``: a front-matter, file-name or file-time date is the value;
    where git dates it (``:git`` with ``enableGitInfo``) the core dates the
    source, with its file time where git cannot."""
    for order in (config.lastmod_order, config.date_order):
        found = _date_by_order(config, source, order)
        if found is _BY_GIT:
            return None, True, True
        if found is not None:
            return found, False, True
    # Hugo leaves it undated; the core's rule (git, then the file time) dates it,
    # and a list page by its pages too.
    return None, True, False


#: What _date_by_order gives for a page git dates.
_BY_GIT = object()


def _date_by_order(config: HugoConfig, source: _Source, order: tuple[str, ...]) -> Any:
    """The first date ``order`` (a ``[frontmatter]`` list) gives the page: a
    front-matter value (in ``timeZone`` where it has no offset), its file name's
    date, its file time; :data:`_BY_GIT` for ``:git`` with ``enableGitInfo``;
    None where the order gives nothing."""
    for key in order:
        if key == ":git":
            if config.enable_git_info:
                return _BY_GIT
        elif key == ":filemodtime":
            stamp = source.path.stat().st_mtime
            return dt.datetime.fromtimestamp(stamp, dt.timezone.utc)
        elif key == ":filename":
            found = _FILENAME_DATE.match(source.path.stem)
            if found:
                return dt.date.fromisoformat(found.group(1))
        else:
            value = source.meta.get(key)
            if value not in (None, ""):
                return _zoned(value, config.timezone)
    return None


def _zoned(value: Any, zone: dt.tzinfo) -> Any:
    """A front-matter date without an offset, in ``timeZone`` (UTC by default), as Hugo reads it."""
    if isinstance(value, dt.datetime) and value.tzinfo is None:
        return value.replace(tzinfo=zone)
    return value


def _date_lists(
    config: HugoConfig, pages: dict[str, Page], found: dict[str, Page], by_output: dict[str, _Source]
) -> None:
    """Give each list page Hugo dates by what it lists (no date of its own) those
    pages as members, and each pagination page what dates its list."""
    loc_of = {id(source): pages[relative].loc for relative, source in by_output.items()}
    lists: dict[str, set[str]] = {}  # relative output -> members' locs
    for language in config.languages:
        built = [s for s in by_output.values() if s.language == language.code]
        taxonomies = _taxonomies(config, language)
        lists.update(_section_members(config, language.prefix, built, loc_of, taxonomies))
        lists.update(_taxonomy_members(config, language.prefix, built, loc_of, taxonomies))
    for relative, members in lists.items():
        undated_by_hugo = relative not in by_output or not by_output[relative].dated
        if members and relative in found and undated_by_hugo:
            # A list's own _index.md (undated by Hugo) still counts, through its
            # source; one without is no file of its own (its built page is the build's).
            own = by_output[relative].path if relative in by_output else None
            pages[relative] = dataclasses.replace(pages[relative], members=tuple(sorted(members)), source=own)
    # Pagination: page/N/ of a list takes what dates the list.
    pager = re.compile(rf"(?:(?P<list>.*)/)?{re.escape(config.pagination_path)}/(?P<n>\d+)(?:/index)?\.html\Z")
    for relative, page in found.items():
        match = pager.match(relative)
        if not match or relative in by_output:
            continue
        owner = match.group("list")
        for candidate in [f"{owner}/index.html", f"{owner}.html"] if owner else ["index.html"]:
            if candidate in found:
                head = pages[candidate]
                pages[relative] = dataclasses.replace(
                    page, lastmod=head.lastmod, source=head.source, members=head.members
                )
                break


def _section_members(
    config: HugoConfig, prefix: str, built: list[_Source], loc_of: dict[int, str], taxonomies: dict[str, str]
) -> dict[str, set[str]]:
    """The home and section pages of one language (by their output) -> the locs
    whose newest date is theirs: a section's pages, and its subsections (a
    subsection Hugo dates by its own _index.md counts by it, any other by what it
    holds in turn)."""
    taxonomy_folders = set(taxonomies.values())
    lists_here = {s.logical: s for s in built if s.kind == "list" and s.logical.split("/")[0] not in taxonomy_folders}
    # Sections: the home (""), each top-level folder holding content, each
    # folder with an _index.md (see _section_of).
    nodes = {""} | set(lists_here)
    nodes |= {s.logical.split("/", 1)[0] for s in built if s.kind == "page" and "/" in s.logical}
    nodes |= {node.split("/", 1)[0] for node in lists_here}
    nodes = {node for node in nodes if node.split("/")[0] not in taxonomy_folders}
    pages_in: dict[str, set[str]] = {node: set() for node in nodes}
    subsections: dict[str, list[str]] = {node: [] for node in nodes}
    for source in built:
        if source.kind == "page":
            section = _section_of(posixpath.dirname(source.logical), nodes)
            # A page in a taxonomy's folder: the home's, as no section holds it.
            pages_in[section if section in pages_in else ""].add(loc_of[id(source)])
    for node in nodes:
        if node:
            subsections[_section_of(posixpath.dirname(node), nodes)].append(node)

    def dated_by(node: str) -> set[str]:
        own = lists_here.get(node)
        if own is not None and own.dated:
            return {loc_of[id(own)]}
        out = set(pages_in[node]) | ({loc_of[id(own)]} if own is not None else set())
        for child in subsections[node]:
            out |= dated_by(child)
        return out

    members: dict[str, set[str]] = {}
    for node in nodes:
        path = prefix + _lower(config, node) if node else prefix.rstrip("/")
        relative = (path + "/index.html") if path else "index.html"
        members[relative] = set(pages_in[node]).union(*(dated_by(child) for child in subsections[node]))
    return members


def _taxonomy_members(
    config: HugoConfig, prefix: str, built: list[_Source], loc_of: dict[int, str], taxonomies: dict[str, str]
) -> dict[str, set[str]]:
    """The taxonomy and term pages of one language (by their output) -> the
    locs of the pages they list (``taxonomies``: that language's)."""
    members: dict[str, set[str]] = {}
    for plural in taxonomies.values():
        every: set[str] = set()
        for source in built:
            values = source.meta.get(plural)
            for value in [values] if isinstance(values, str) else values if isinstance(values, list) else []:
                term = f"{prefix}{plural}/{_urlize(config, str(value))}"
                for relative in (term + "/index.html", term + ".html"):
                    members.setdefault(relative, set()).add(loc_of[id(source)])
                every.add(loc_of[id(source)])
        members[f"{prefix}{plural}/index.html"] = every
    return members


def _urlize(config: HugoConfig, term: str) -> str:
    """A term's folder, as Hugo 0.168 names it (matched to what it builds): each
    whitespace character a ``-``, the characters of a path kept
    (:func:`_path_character`), anything else left out, lower-cased (``Road
    Trip`` with two spaces: ``road--trip``; ``Q&A``: ``qa``); with
    ``disablePathToLower``, sanitized as a path (``Road-Trip``)."""
    if config.disable_path_to_lower:
        return _sanitize(term)
    kept = "".join(
        "-" if char.isspace() else char
        for index, char in enumerate(term)
        if char.isspace() or _path_character(term, index, char)
    )
    return _lower(config, kept)
