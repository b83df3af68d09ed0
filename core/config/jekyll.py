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
from collections.abc import Iterable
from pathlib import Path
from typing import Any
from urllib.parse import quote

from ..protocol.errors import SitemapkitError
from ..protocol.hostsettings import JEKYLL_SETTINGS, project_options
from ..protocol.model import Options, Page
from ..protocol.patterns import deferred
from ..site.dataformats import load_yaml
from ..site.frontmatter import read_front_matter_document

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

    def setting(self, name: str) -> str:
        return f"{self.config_file.name}: {name}"

    @property
    def site_dir(self) -> Path:
        return self.destination


def is_jekyll_config(path: Path) -> bool:
    return path.name.lower() in CONFIG_NAMES


def read_project_config(path: Path | str) -> JekyllConfig:
    """The settings of ``path`` (``_config.yml``); one line naming the setting on error."""
    path = Path(path)
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except OSError as error:
        raise SitemapkitError(f"--config {str(path)!r}: {error.strerror or error}") from None
    except UnicodeDecodeError:
        raise SitemapkitError(f"{path.name}: is not UTF-8 text") from None
    settings = load_yaml(text, path.name) or {}
    if not isinstance(settings, dict):
        raise SitemapkitError(f"{path.name}: must be a mapping of settings")

    def named(name: str) -> str:
        return f"{path.name}: {name}"

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

    root = path.resolve().parent
    source = root / (text_of("source", ".") or ".")
    destination = root / (text_of("destination", "_site") or "_site")
    url = (text_of("url", "") or "").rstrip("/")
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
        config_file=path,
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
    return project_options(config.config_file.name, JEKYLL_SETTINGS, config.base_url, base_url, flags)


def sites(config: JekyllConfig) -> list[tuple[JekyllConfig, str]]:
    """The one site, at the destination's root."""
    return [(config, "")]


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
                # A static file, copied as it is: its source is itself.
                page = dataclasses.replace(page, source=copied)
            pages.append(page)
            continue
        meta = mapped.meta
        lastmod = _date(meta.get("last_modified_at"), config) or _date(meta.get("date"), config)
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


def _meta(config: JekyllConfig, path: Path, relative: str, kind: str) -> dict[str, Any]:
    """The front matter over the ``defaults`` that apply (later ones win, the file wins)."""
    values: dict[str, Any] = {}
    for scope_path, scope_type, defaults in config.defaults:
        scope_path = scope_path.strip("/")
        in_path = not scope_path or relative == scope_path or relative.startswith(scope_path + "/")
        if "*" in scope_path:
            in_path = fnmatch.fnmatchcase(relative, scope_path + "*")
        if in_path and (scope_type is None or scope_type == kind):
            values.update(defaults)
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
    when = _date(meta.get("date"), config) or _date(found.group("date"), config)
    meta.setdefault("date", when)
    categories = [c for c in folders if c]
    raw = meta.get("categories", meta.get("category"))
    if isinstance(raw, str):
        categories += raw.split()
    elif isinstance(raw, list):
        categories += [str(c) for c in raw]
    title = str(meta.get("slug") or found.group("title"))
    template = meta.get("permalink") if isinstance(meta.get("permalink"), str) else None
    template = template or PERMALINK_STYLES.get(config.permalink, config.permalink)
    if not isinstance(when, dt.date):
        raise SitemapkitError(f"{relative}: date: {meta.get('date')!r} is not a date (such as 2024-01-31 10:00:00)")
    moment = when if isinstance(when, dt.datetime) else dt.datetime.combine(when, dt.time())
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
            "slug": title,
            "name": title,
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
    title = str(meta.get("slug") or posixpath.basename(stem))
    url = _fill(
        template,
        {
            "collection": collection.name,
            "path": stem,
            "name": posixpath.basename(stem),
            "title": title,
            "slug": title,
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


def _date(value: Any, config: JekyllConfig) -> Any:
    """A front-matter or file-name date, in ``timezone`` when it has no offset."""
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
                return text  # the core's date rule reads it, or names it
    if isinstance(value, dt.datetime):
        if value.tzinfo is None and config.timezone is not None:
            value = value.replace(tzinfo=config.timezone)
        return value
    if isinstance(value, dt.date) and config.timezone is not None:
        # Jekyll's dates are moments: a day is its midnight in the site's zone.
        return dt.datetime.combine(value, dt.time(), tzinfo=config.timezone)
    return value
