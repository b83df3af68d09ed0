"""``sitemapkit build --config _config.yml``: a Jekyll project's settings and sources.

jekyll-sitemap dates a post by its date (its file name's, or its front matter's),
any other document by the build's clock, and a page not at all. This module reads
the project as Jekyll 4 does and hands the core each built page with the source
it comes from, so a page is dated by its own metadata first (``last_modified_at``,
then its ``date``, a post's file-name date included), then by git, as every other
page sitemapkit lists.

Read from ``_config.yml`` (PyYAML): ``url`` and ``baseurl`` (the base URL),
``source`` (default the file's folder) and ``destination`` (default
``_site``), ``timezone`` (dates without an offset), ``permalink`` (the posts'
style: ``date``, ``pretty``, ``ordinal``, ``none`` or a template),
``collections`` (with ``output`` and ``permalink``), ``defaults`` (their
``scope`` ``path`` and ``type``, and the values ``permalink``, ``sitemap``,
``last_modified_at`` and ``date``), ``exclude`` and ``include``. From each
source's front matter: ``permalink``, ``date``, ``last_modified_at``,
``sitemap: false``, ``slug``, ``categories`` (``category``) and ``published``.

Which file Jekyll writes for a source: a page (a file with front matter outside
the ``_`` folders) at its ``permalink``, else at its path (``a.md`` as
``a.html``, ``a/index.md`` as ``a/``; ``a/`` for every page with a ``pretty``
or slash-ended ``permalink`` style); a post (``_posts/YYYY-MM-DD-title.md``, in
any folder's ``_posts``, whose folders above are its categories) at the posts'
permalink; a collection's document, when the collection has ``output: true``, at
its permalink (default ``/:collection/:path:output_ext``). A static HTML file
(no front matter) is copied as it is: dated by itself. Error pages keep the
core's rule (left out), as jekyll-sitemap leaves out ``/404.html``.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import fnmatch
import posixpath
import re
import unicodedata
from collections.abc import Iterable
from pathlib import Path
from typing import Any
from urllib.parse import quote

from ..protocol.errors import ConfigError, SitemapkitError
from ..protocol.hostsettings import JEKYLL_SETTINGS, project_options
from ..protocol.model import Options, Page
from ..protocol.patterns import deferred
from ..protocol.urls import check_base_url
from ..site.dataformats import load_yaml
from ..site.frontmatter import read_front_matter_document
from .layered import config_paths, layered_settings

__all__ = [
    "GENERATOR_SITEMAPS",
    "JekyllConfig",
    "is_jekyll_config",
    "options_for",
    "project_pages",
    "read_project_config",
]

CONFIG_NAMES = ("_config.yml", "_config.yaml")
#: jekyll-sitemap's file, which ours replaces.
GENERATOR_SITEMAPS = ("sitemap.xml",)
BROWSER_READS_SITEMAP_XML = False
#: What Jekyll converts to HTML; any other file with front matter keeps its extension.
MARKDOWN_EXTENSIONS = (".md", ".markdown", ".mkdown", ".mkdn", ".mkd")
# Jekyll's permalink styles (Jekyll::Utils#PERMALINK_STYLES... in jekyll/document.rb).
PERMALINK_STYLES = {
    "date": "/:categories/:year/:month/:day/:title:output_ext",
    "pretty": "/:categories/:year/:month/:day/:title/",
    "ordinal": "/:categories/:year/:y_day/:title:output_ext",
    "weekdate": "/:categories/:year/W:week/:short_day/:title:output_ext",
    "none": "/:categories/:title:output_ext",
}
COLLECTION_PERMALINK = "/:collection/:path:output_ext"
# Jekyll's own exclusions (Jekyll::Configuration::DEFAULTS "exclude").
DEFAULT_EXCLUDE = (
    ".sass-cache",
    ".jekyll-cache",
    "gemfiles",
    "Gemfile",
    "Gemfile.lock",
    "node_modules",
    "vendor/bundle/",
    "vendor/cache/",
    "vendor/gems/",
    "vendor/ruby/",
)
_POST_NAME = deferred(r"(?P<date>\d{2,4}-\d{1,2}-\d{1,2})-(?P<title>.*)\Z")


@dataclasses.dataclass(frozen=True)
class Collection:
    name: str
    output: bool
    permalink: str | None


@dataclasses.dataclass(frozen=True)
class JekyllConfig:
    """The settings of one Jekyll project that its sitemap depends on."""

    #: The first configuration file (the project's folder is its folder).
    config_file: Path
    base_url: str | None
    source: Path
    destination: Path
    timezone: dt.tzinfo | None
    permalink: str
    collections: tuple[Collection, ...]
    defaults: tuple[tuple[str, str | None, dict[str, Any]], ...]
    exclude: tuple[str, ...]
    include: tuple[str, ...]
    unread: tuple[str, ...] = ()
    #: Every file ``--config`` named, in order, and the file that set each
    #: top-level setting (the last to set it), for messages.
    config_files: tuple[Path, ...] = ()
    origins: dict[str, str] = dataclasses.field(default_factory=dict, compare=False)
    #: What reading the sources found and went past (a date only Ruby reads), one
    #: line each, for the command to print as warnings.
    warnings: list[str] = dataclasses.field(default_factory=list, compare=False)

    def setting(self, name: str) -> str:
        return f"{self.origins.get(name, self.config_file.name)}: {name}"

    @property
    def label(self) -> str:
        """The configuration as ``--config`` named it (``_config.yml``, or ``_config.yml,_config.dev.yml``)."""
        return ",".join(path.name for path in self.config_files or (self.config_file,))

    @property
    def posts_permalink(self) -> str:
        """The posts' permalink template: ``collections.posts.permalink`` when set
        (Jekyll's Configuration#add_default_collections sets it from
        ``permalink`` only when it is not), else the ``permalink`` style's."""
        for collection in self.collections:
            if collection.name == "posts" and collection.permalink:
                return PERMALINK_STYLES.get(collection.permalink, collection.permalink)
        return PERMALINK_STYLES.get(self.permalink, self.permalink)

    @property
    def site_dir(self) -> Path:
        return self.destination


def is_jekyll_config(path: Path) -> bool:
    return path.name.lower() in CONFIG_NAMES


def _load(path: Path) -> dict[str, Any]:
    """One configuration file's settings."""
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except OSError as error:
        raise SitemapkitError(f"--config {str(path)!r}: {error.strerror or error}") from None
    except UnicodeDecodeError:
        raise SitemapkitError(f"{path.name}: is not UTF-8 text") from None
    settings = load_yaml(text, path.name) or {}
    if not isinstance(settings, dict):
        raise SitemapkitError(f"{path.name}: must be a mapping of settings")
    return settings


def read_project_config(path: Path | str) -> JekyllConfig:
    """The settings of ``path`` (``_config.yml``, or several files joined by
    commas, merged as Jekyll merges them); one line naming the setting, in the
    file that set it, on error."""
    paths = config_paths(path)
    settings, origins = layered_settings(paths, _load)
    first = paths[0]

    def named(name: str) -> str:
        # The file that set its top-level key (collections of collections.posts.output).
        return f"{origins.get(re.split(r'[.[]', name, maxsplit=1)[0], first.name)}: {name}"

    def text_of(name: str, default: str | None) -> str | None:
        value = settings.get(name, default)
        if value is None:
            return default
        if not isinstance(value, str):
            raise SitemapkitError(f"{named(name)}: {value!r} must be text")
        return value

    def names(name: str) -> tuple[str, ...]:
        value = settings.get(name) or []
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            raise SitemapkitError(f"{named(name)}: must be a list of paths")
        return tuple(value)

    root = first.resolve().parent
    source = root / (text_of("source", ".") or ".")
    destination = root / (text_of("destination", "_site") or "_site")
    written_url = text_of("url", "") or ""
    if written_url.strip():
        # Checked as written: "/" or "http://" would otherwise read as unset, or
        # come back joined with baseurl, as a URL the user never wrote.
        try:
            check_base_url(written_url)
        except ConfigError as error:
            raise SitemapkitError(f"{origins['url']}: {error.for_setting('url')}") from None
    url = written_url.strip().rstrip("/")
    baseurl = (text_of("baseurl", "") or "").strip("/")
    base_url = (url + "/" + (baseurl + "/" if baseurl else "")) if url else None
    zone: dt.tzinfo | None = None
    zone_name = text_of("timezone", None)
    if zone_name:
        import zoneinfo

        try:
            zone = zoneinfo.ZoneInfo(zone_name)
        except (zoneinfo.ZoneInfoNotFoundError, ValueError):
            raise SitemapkitError(f"{named('timezone')}: {zone_name!r} is not a time zone") from None
    permalink = text_of("permalink", "date") or "date"
    raw = settings.get("collections") or {}
    if isinstance(raw, list):
        raw = {str(name): {} for name in raw}
    if not isinstance(raw, dict):
        raise SitemapkitError(f"{named('collections')}: must be a mapping (or a list) of collections")
    collections = []
    for name, table in raw.items():
        table = table or {}
        if not isinstance(table, dict):
            raise SitemapkitError(f"{named(f'collections.{name}')}: must be a mapping")
        output = table.get("output", False)
        if not isinstance(output, bool):
            raise SitemapkitError(f"{named(f'collections.{name}.output')}: {output!r} must be true or false")
        link = table.get("permalink")
        if link is not None and not isinstance(link, str):
            raise SitemapkitError(f"{named(f'collections.{name}.permalink')}: {link!r} must be text")
        collections.append(Collection(str(name), output, link))
    defaults = []
    for number, entry in enumerate(settings.get("defaults") or []):
        if not isinstance(entry, dict) or not isinstance(entry.get("values", {}), dict):
            raise SitemapkitError(f"{named(f'defaults[{number}]')}: must be a mapping with scope and values")
        scope = entry.get("scope") or {}
        if not isinstance(scope, dict):
            raise SitemapkitError(f"{named(f'defaults[{number}].scope')}: must be a mapping")
        defaults.append((str(scope.get("path") or ""), scope.get("type"), dict(entry.get("values") or {})))
    unread = []
    if settings.get("theme") or settings.get("remote_theme"):
        theme = settings.get("theme") or settings.get("remote_theme")
        unread.append(
            f"{named('theme')}: {theme}'s pages and defaults are not read; pages it adds keep the folder's rules"
        )
    if settings.get("collections_dir"):
        unread.append(f"{named('collections_dir')}: is not read; collections are looked for in the source folder")
    return JekyllConfig(
        config_file=first,
        config_files=tuple(paths),
        origins=origins,
        base_url=base_url,
        source=source,
        destination=destination,
        timezone=zone,
        permalink=permalink,
        collections=tuple(collections),
        defaults=tuple(defaults),
        exclude=DEFAULT_EXCLUDE + names("exclude"),
        include=names("include"),
        unread=tuple(unread),
    )


def options_for(config: JekyllConfig, base_url: str | None, flags: dict[str, Any]) -> Options:
    """The options of a run: ``url`` + ``baseurl`` (``--base-url`` wins), then the flags."""
    return project_options(config.label, JEKYLL_SETTINGS, config.base_url, base_url, flags)


def sites(config: JekyllConfig) -> list[tuple[JekyllConfig, str]]:
    """The one site, at the destination's root."""
    return [(config, "")]


def generator_sitemaps(config: JekyllConfig) -> tuple[str, ...]:
    """The files the generator writes its sitemap as, which ours replaces."""
    return GENERATOR_SITEMAPS


def generator_sitemap_folders(config: JekyllConfig) -> tuple[str, ...]:
    return ()


# ---- pages --------------------------------------------------------------------------


@dataclasses.dataclass
class _Document:
    path: Path
    #: "pages", "posts" or a collection's name (the ``type`` of ``defaults``).
    kind: str
    meta: dict[str, Any]
    url: str


def project_pages(config: JekyllConfig, built: Iterable[Page], site_dir: Path) -> list[Page]:
    """Each built page of ``site_dir`` with its source, its date and its listing."""
    if not config.source.is_dir():
        raise SitemapkitError(f"{config.setting('source')}: {str(config.source)!r} is not a folder")
    by_output: dict[str, _Document] = {}
    for document in _documents(config):
        for output in _output_files(document.url):
            by_output.setdefault(output, document)
    pages = []
    for page in built:
        relative = Path(page.output).relative_to(site_dir).as_posix()  # type: ignore[arg-type]
        mapped = by_output.get(relative)
        if mapped is None:
            copied = config.source / relative
            if copied.is_file() and not _front_matter_opens(copied):
                # A static file, copied as it is: its source is itself; a
                # default's sitemap: false leaves it out (jekyll-sitemap reads it).
                listed = _defaults(config, relative, None).get("sitemap") is not False
                page = dataclasses.replace(page, source=copied, listed=listed)
            pages.append(page)
            continue
        meta = mapped.meta
        lastmod = _meta_date(mapped, "last_modified_at", config) or _meta_date(mapped, "date", config)
        pages.append(
            dataclasses.replace(
                page,
                loc=quote(mapped.url.lstrip("/")),
                lastmod=lastmod,
                source=mapped.path,
                listed=meta.get("sitemap") is not False,
            )
        )
    return pages


def _front_matter_opens(path: Path) -> bool:
    with open(path, "rb") as handle:
        return handle.read(4).rstrip(b"\r\n") == b"---"


def _output_files(url: str) -> tuple[str, ...]:
    """The files Jekyll may write for ``url`` (relative to the destination)."""
    from urllib.parse import unquote

    path = unquote(url).lstrip("/")
    if not path or path.endswith("/"):
        return (path + "index.html",)
    if posixpath.splitext(path)[1]:
        return (path,)
    return (path + ".html", path + "/index.html")


def _excluded(config: JekyllConfig, relative: str) -> bool:
    """Whether Jekyll leaves ``relative`` (a path below the source) out: ``exclude``
    (a path, a folder or a glob) unless ``include`` names it, and names starting
    with ``_``, ``.``, ``#`` or ending in ``~``."""
    parts = relative.split("/")

    def matches(patterns: tuple[str, ...]) -> bool:
        for pattern in patterns:
            pattern = pattern.strip("/")
            for depth in range(1, len(parts) + 1):
                if fnmatch.fnmatchcase("/".join(parts[:depth]), pattern):
                    return True
        return False

    if matches(config.include):
        return False
    if any(part.startswith(("_", ".", "#")) or part.endswith("~") for part in parts):
        return True
    return matches(config.exclude)


def _documents(config: JekyllConfig) -> list[_Document]:
    documents = []
    source = config.source
    destination = config.destination.resolve()
    collections = {f"_{c.name}": c for c in config.collections if c.name != "posts"}
    for path in sorted(p for p in source.rglob("*") if p.is_file()):
        if destination in path.resolve().parents:
            continue
        relative = path.relative_to(source).as_posix()
        parts = relative.split("/")
        if "_posts" in parts[:-1]:
            index = parts.index("_posts")
            if _excluded(config, "/".join(parts[:index])) if index else False:
                continue
            document = _post(config, path, parts[:index], "/".join(parts[index + 1 :]))
        elif parts[0] in collections:
            collection = collections[parts[0]]
            if not collection.output or not _front_matter_opens(path):
                continue
            document = _collection_document(config, path, collection, "/".join(parts[1:]))
        elif _excluded(config, relative) or not _front_matter_opens(path):
            continue
        else:
            document = _page(config, path, relative)
        if document is not None and document.meta.get("published") is not False:
            documents.append(document)
    return documents


def _defaults(config: JekyllConfig, relative: str, kind: str | None) -> dict[str, Any]:
    """The ``defaults`` values that apply to ``relative`` (later ones win). A
    static file has no ``kind``: only defaults without a ``type`` reach it, as
    Jekyll's StaticFile#data reads them."""
    values: dict[str, Any] = {}
    for scope_path, scope_type, defaults in config.defaults:
        scope_path = scope_path.strip("/")
        in_path = not scope_path or relative == scope_path or relative.startswith(scope_path + "/")
        if "*" in scope_path:
            in_path = fnmatch.fnmatchcase(relative, scope_path + "*")
        if in_path and (scope_type is None or scope_type == kind):
            values.update(defaults)
    return values


def _meta(config: JekyllConfig, path: Path, relative: str, kind: str) -> dict[str, Any]:
    """The front matter over the ``defaults`` that apply (the file wins)."""
    values = _defaults(config, relative, kind)
    shown = path.relative_to(config.config_file.resolve().parent).as_posix() if path.is_absolute() else str(path)
    values.update(read_front_matter_document(path, shown))
    return values


def _output_ext(path: Path) -> str:
    return ".html" if path.suffix.lower() in MARKDOWN_EXTENSIONS else path.suffix


def _page(config: JekyllConfig, path: Path, relative: str) -> _Document | None:
    meta = _meta(config, path, relative, "pages")
    extension = _output_ext(path)
    if extension not in (".html", ".htm"):
        return None  # feed.xml, robots.txt: no page
    permalink = meta.get("permalink")
    directory, name = posixpath.split(relative)
    basename = posixpath.splitext(name)[0]
    if isinstance(permalink, str) and permalink:
        url = _fill(permalink, {"path": directory, "basename": basename, "output_ext": extension})
    elif basename == "index":
        url = "/" + (directory + "/" if directory else "")
    elif config.permalink == "pretty" or config.permalink.endswith("/"):
        url = "/" + posixpath.join(directory, basename) + "/"
    else:
        url = "/" + posixpath.join(directory, basename) + extension
    return _Document(path, "pages", meta, url)


def _post(config: JekyllConfig, path: Path, folders: list[str], name: str) -> _Document | None:
    stem = posixpath.splitext(name)[0]
    found = _POST_NAME.match(posixpath.basename(stem))
    if found is None:
        return None  # Jekyll skips a post without a date in its name
    relative = path.relative_to(config.source).as_posix()
    meta = _meta(config, path, relative, "posts")
    when = _meta_date(_Document(path, "posts", meta, ""), "date", config) or _date(found.group("date"), config)
    meta["date"] = when
    categories = [c for c in folders if c]
    raw = meta.get("categories", meta.get("category"))
    if isinstance(raw, str):
        categories += raw.split()
    elif isinstance(raw, list):
        categories += [str(c) for c in raw]
    slug = meta.get("slug")
    title = slugify(str(slug or found.group("title")), pretty=True)
    template = meta.get("permalink") if isinstance(meta.get("permalink"), str) else None
    template = template or config.posts_permalink
    if not isinstance(when, dt.date):
        raise SitemapkitError(f"{relative}: date: {meta.get('date')!r} is not a date (such as 2024-01-31 10:00:00)")
    moment = when if isinstance(when, dt.datetime) else dt.datetime.combine(when, dt.time())
    if moment.tzinfo is not None and config.timezone is not None:
        # Jekyll fills the URL's date in the site's zone (it sets TZ to it).
        moment = moment.astimezone(config.timezone)
    url = _fill(
        template,
        {
            "categories": "/".join(dict.fromkeys(c.lower() for c in categories)),
            "year": f"{moment.year:04d}",
            "month": f"{moment.month:02d}",
            "day": f"{moment.day:02d}",
            "i_month": str(moment.month),
            "i_day": str(moment.day),
            "short_year": f"{moment.year % 100:02d}",
            "y_day": f"{moment.timetuple().tm_yday:03d}",
            "hour": f"{moment.hour:02d}",
            "minute": f"{moment.minute:02d}",
            "second": f"{moment.second:02d}",
            "title": title,
            "slug": slugify(str(slug or found.group("title"))),
            "name": slugify(found.group("title")),
            "path": stem,
            "collection": "posts",
            "output_ext": _output_ext(path),
        },
    )
    return _Document(path, "posts", meta, url)


def _collection_document(config: JekyllConfig, path: Path, collection: Collection, name: str) -> _Document:
    relative = path.relative_to(config.source).as_posix()
    meta = _meta(config, path, relative, collection.name)
    stem = posixpath.splitext(name)[0]
    template = meta.get("permalink") if isinstance(meta.get("permalink"), str) else None
    template = template or collection.permalink or COLLECTION_PERMALINK
    basename = posixpath.basename(stem)
    slug = meta.get("slug")
    url = _fill(
        template,
        {
            "collection": collection.name,
            "path": stem,
            "name": slugify(basename),
            "title": slugify(str(slug or basename), pretty=True),
            "slug": slugify(str(slug or basename)),
            "output_ext": _output_ext(path),
        },
    )
    return _Document(path, collection.name, meta, url)


_PLACEHOLDER = deferred(r":([a-z_]+)")


def _fill(template: str, values: dict[str, str]) -> str:
    """A permalink template with its ``:placeholders`` replaced, "//" collapsed."""
    url = _PLACEHOLDER.sub(lambda m: values.get(m.group(1), m.group(0)), template)
    url = re.sub(r"/{2,}", "/", "/" + url)
    return url


# Jekyll::Utils.slugify's character classes: "default" keeps letters, marks and
# decimal digits; "pretty" also these (each other run becomes one hyphen).
_PRETTY_KEPT = frozenset("._~!$&'()+,;=@")


def slugify(text: str, pretty: bool = False) -> str:
    """Jekyll's ``Utils.slugify`` as its URL placeholders use it: ``:title``
    in "pretty" mode, cased; ``:slug`` and ``:name`` in "default" mode, lowered."""
    pieces: list[str] = []
    run = False
    for char in text:
        category = unicodedata.category(char)
        if category[0] in "LM" or category == "Nd" or (pretty and char in _PRETTY_KEPT):
            pieces.append(char)
            run = False
        elif not run:
            pieces.append("-")
            run = True
    slug = "".join(pieces).strip("-")
    return slug if pretty else slug.lower()


_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_MONTH = r"(?P<{0}>(?:" + "|".join(_MONTHS) + r")[a-z]*\.?)"
# The shapes of date Ruby's Time.parse (Jekyll's reading of a front-matter date)
# takes that ISO 8601 does not: 2024/05/05, May 5, 2024, 5 May 2024, a time
# with or without seconds and am/pm, and a zone right after it (UTC, GMT, Z,
# +0200, -08:00, the North American abbreviations). Words before the time (a
# weekday) are passed over, as Ruby passes them over.
_RUBY_DAY = deferred(
    r"(?P<y>\d{4})[-/.](?P<m>\d{1,2})[-/.](?P<d>\d{1,2})"
    + r"|"
    + _MONTH.format("mon")
    + r"\s+(?P<d2>\d{1,2})(?:st|nd|rd|th)?,?\s+(?P<y2>\d{4})"
    + r"|(?P<d3>\d{1,2})(?:st|nd|rd|th)?\s+"
    + _MONTH.format("mon3")
    + r",?\s+(?P<y3>\d{4})",
    re.IGNORECASE,
)
_RUBY_TIME = deferred(
    r"(?<![\d:])(?P<h>\d{1,2}):(?P<mi>\d{2})(?::(?P<s>\d{2})(?:[.,]\d+)?)?(?:\s*(?P<ampm>[ap])\.?m\.?)?",
    re.IGNORECASE,
)
_RUBY_ZONE = deferred(
    r"(?<![A-Za-z])(?:(?P<utc>z|utc|gmt)|(?P<name>[ecmp][sd]t)|(?P<sign>[+-])(?P<zh>\d{2}):?(?P<zm>\d{2}))\b",
    re.IGNORECASE,
)
_ZONE_HOURS = {"est": -5, "edt": -4, "cst": -6, "cdt": -5, "mst": -7, "mdt": -6, "pst": -8, "pdt": -7}


def ruby_time(text: str) -> dt.date | dt.datetime | None:
    """A date in one of the shapes Jekyll reads and ISO 8601 does not (see
    _RUBY_DAY), without a zone when it names none; None for any other text."""
    day = _RUBY_DAY.search(text)
    if day is None:
        return None
    try:
        if day.group("y"):
            year, month, number = int(day.group("y")), int(day.group("m")), int(day.group("d"))
        else:
            name = (day.group("mon") or day.group("mon3"))[:3].lower()
            year, month = int(day.group("y2") or day.group("y3")), _MONTHS.index(name) + 1
            number = int(day.group("d2") or day.group("d3"))
        date = dt.date(year, month, number)
    except ValueError:
        return None
    rest = text[day.end() :]
    clock = _RUBY_TIME.search(rest)
    if clock is None:
        return date
    hour, minute, second = int(clock.group("h")), int(clock.group("mi")), int(clock.group("s") or 0)
    if clock.group("ampm"):
        hour = hour % 12 + (12 if clock.group("ampm").lower() == "p" else 0)
    zone = None
    # Only a zone right after the time counts: Ruby reads "18:30:22 2023 -0800"
    # (jekyllrb.com's release posts) in the local zone, the -0800 passed over.
    named = _RUBY_ZONE.match(rest[clock.end() :].lstrip())
    if named is not None:
        if named.group("utc"):
            zone = dt.timezone.utc
        elif named.group("name"):
            zone = dt.timezone(dt.timedelta(hours=_ZONE_HOURS[named.group("name").lower()]))
        else:
            offset = dt.timedelta(hours=int(named.group("zh")), minutes=int(named.group("zm")))
            zone = dt.timezone(-offset if named.group("sign") == "-" else offset)
    try:
        return dt.datetime(date.year, date.month, date.day, hour, minute, second, tzinfo=zone)
    except ValueError:
        return None


def _meta_date(document: _Document, key: str, config: JekyllConfig) -> Any:
    """The front-matter date ``key`` of ``document``; None, with a warning, for
    text neither ISO 8601 nor a shape Ruby reads (Jekyll may still have built
    the page: the date is then left to git and the file's other dates)."""
    value = document.meta.get(key)
    found = _date(value, config)
    if isinstance(found, str):
        shown = document.path.relative_to(config.config_file.resolve().parent).as_posix()
        config.warnings.append(
            f"{shown}: {key}: {value!r} is not a date sitemapkit reads (such as 2024-01-31 10:00:00 +0100); not used"
        )
        return None
    return found


def _date(value: Any, config: JekyllConfig) -> Any:
    """A front-matter or file-name date, in ``timezone`` when it has no offset;
    the text itself when it is no date sitemapkit reads."""
    if value is None or value == "":
        return None
    if isinstance(value, str):
        text = value.strip()
        try:
            value = dt.datetime.fromisoformat(text.replace(" +", "+").replace(" -", "-").replace(" ", "T", 1))
        except ValueError:
            try:
                value = dt.date.fromisoformat(text)
            except ValueError:
                value = ruby_time(text)
                if value is None:
                    return text
    if isinstance(value, dt.datetime):
        if value.tzinfo is None and config.timezone is not None:
            value = value.replace(tzinfo=config.timezone)
        return value
    if isinstance(value, dt.date) and config.timezone is not None:
        # Jekyll's dates are moments: a day is its midnight in the site's zone.
        return dt.datetime.combine(value, dt.time(), tzinfo=config.timezone)
    return value
