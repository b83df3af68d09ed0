"""Format pages into sitemap files: streaming, sharded, deterministic. No I/O here.

:func:`generate` consumes pages in the order given (adapters sort them by URL) and
yields :class:`SitemapFile` values one at a time, so a million URLs never sit in
memory at once; :mod:`sitemapkit.writer` puts them on disk.
"""

from __future__ import annotations

import collections
import dataclasses
import datetime as dt
import hashlib
import itertools
import re
import zlib
from collections.abc import Iterable, Iterator
from typing import Callable

from .errors import UrlError
from .model import Excluded, Lastmod, Options, Page
from .urls import OutOfScope, Scope, encode_url, escape_xml

SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
XHTML_NS = "http://www.w3.org/1999/xhtml"
XSI_NS = "http://www.w3.org/2001/XMLSchema-instance"
STYLESHEET_NAME = "sitemap.xsl"

_XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>\n'
_STYLESHEET_PI = f'<?xml-stylesheet type="text/xsl" href="{STYLESHEET_NAME}"?>\n'
# sitemaps.org/protocol.html, "Validating your Sitemap": the header that names the
# schema for validators.
_SCHEMA_LOCATION = {
    "urlset": f' xmlns:xsi="{XSI_NS}" xsi:schemaLocation="{SITEMAP_NS} http://www.sitemaps.org/schemas/sitemap/0.9/sitemap.xsd"',
    "sitemapindex": f' xmlns:xsi="{XSI_NS}" xsi:schemaLocation="{SITEMAP_NS} http://www.sitemaps.org/schemas/sitemap/0.9/siteindex.xsd"',
}
# W3C Datetime as the protocol admits it: a date, or a full time with an offset.
W3C_DATETIME = re.compile(
    r"\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2}))?\Z"
)
_HREFLANG = re.compile(r"(?:[A-Za-z]{2,3}(?:-[A-Za-z0-9]{2,8})*|x-default)\Z")


@dataclasses.dataclass(frozen=True)
class SitemapFile:
    """One file to write: its name in the output folder and its uncompressed bytes."""

    name: str
    data: bytes
    #: ``urlset``, ``sitemapindex`` or ``text``.
    kind: str
    #: URLs (or, for an index, sitemaps) it lists.
    count: int
    #: The newest lastmod inside, as written; None when no entry has one.
    lastmod: str | None = None
    #: Compress on write (the name then ends in ``.gz``).
    gzip: bool = False


@dataclasses.dataclass
class GenerateResult:
    """Filled while :func:`generate` runs: what was listed and what was left out."""

    urls: int = 0
    excluded: list[Excluded] = dataclasses.field(default_factory=list)
    #: Entry points in write order: the file robots.txt and users submit.
    entry_points: list[str] = dataclasses.field(default_factory=list)


def format_lastmod(value: Lastmod) -> tuple[str, dt.datetime] | None:
    """W3C Datetime text for a lastmod, and the instant used to find the newest.

    Dates stay dates (``2024-05-01``); datetimes keep their offset to the second
    (``2024-05-01T10:00:00+02:00``); naive datetimes are taken as UTC.
    """
    if value is None:
        return None
    if isinstance(value, dt.datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=dt.timezone.utc)
        value = value.replace(microsecond=0)
        return value.isoformat(), value
    if isinstance(value, dt.date):
        return value.isoformat(), dt.datetime(value.year, value.month, value.day, tzinfo=dt.timezone.utc)
    if isinstance(value, str):
        text = value.strip()
        if not W3C_DATETIME.match(text):
            raise UrlError(f"lastmod {value!r} is not a W3C Datetime (YYYY-MM-DD or YYYY-MM-DDThh:mm:ss+00:00)")
        try:
            instant = dt.datetime.fromisoformat(text)
        except ValueError:
            raise UrlError(f"lastmod {value!r} is not a real date") from None
        if instant.tzinfo is None:
            instant = instant.replace(tzinfo=dt.timezone.utc)
        return text, instant
    raise UrlError(f"lastmod {value!r} must be a date, a datetime or a W3C Datetime string")


def _boundary_bits(max_entries: int) -> int:
    """Bits of a URL's hash that must be zero for it to open a new shard.

    Shards average a quarter of what one file may hold, so the hard limits are
    rarely what cuts a shard: boundaries then depend on the URLs alone, and adding
    or removing a page changes only the shard it falls in (two, if it is itself a
    boundary). A power of two keeps the rule stable while the site grows a little.
    """
    target = max(1, max_entries // 4)
    return target.bit_length() - 1


def _opens_shard(loc_bytes: bytes, bits: int) -> bool:
    # crc32 is cheap; the multiply spreads its bits so the top `bits` are uniform.
    return bits > 0 and ((zlib.crc32(loc_bytes) * 0x9E3779B1) & 0xFFFFFFFF) >> (32 - bits) == 0


def _shard_name(stem: str, first_loc: str, suffix: str, taken: set[str]) -> str:
    # Named by its first URL, not its position: a shard split elsewhere in the site
    # does not rename (and so re-send) every shard after it.
    digest = hashlib.blake2b(first_loc.encode("utf-8"), digest_size=5).hexdigest()
    name = f"{stem}-{digest}{suffix}"
    n = 2
    while name in taken:
        name = f"{stem}-{digest}-{n}{suffix}"
        n += 1
    taken.add(name)
    return name


class _Formatter:
    """Turns one page into its ``<url>`` element (or text line)."""

    def __init__(self, options: Options, scope: Scope, result: GenerateResult) -> None:
        self.options = options
        self.scope = scope
        self.result = result
        self.text = options.format == "txt"
        extra = ""
        if options.changefreq:
            extra += f"<changefreq>{options.changefreq}</changefreq>"
        if options.priority is not None:
            extra += f"<priority>{options.priority:.1f}</priority>"
        self.default_extra = extra

    def entry(self, page: Page) -> tuple[str, str, tuple[str, dt.datetime] | None, bool] | None:
        """``(loc, text, lastmod, has_alternates)`` or None when the page is dropped."""
        try:
            loc = self.scope.loc(page.loc)
        except OutOfScope as out:
            self.result.excluded.append(Excluded(page.loc, out.reason))
            return None
        if self.text:
            # The text form: "one URL per line ... must not contain anything else".
            return loc, loc + "\n", None, False
        lastmod = format_lastmod(page.lastmod)
        parts = ["<url><loc>", escape_xml(loc), "</loc>"]
        if lastmod is not None:
            parts += ["<lastmod>", lastmod[0], "</lastmod>"]
        if page.changefreq is not None or page.priority is not None:
            if page.changefreq is not None:
                parts += ["<changefreq>", page.changefreq, "</changefreq>"]
            if page.priority is not None:
                parts.append(f"<priority>{page.priority:.1f}</priority>")
        elif self.default_extra:
            parts.append(self.default_extra)
        for hreflang, href in page.alternates:
            if not _HREFLANG.match(hreflang):
                raise UrlError(f"hreflang {hreflang!r} of {page.loc!r} is not a language code")
            parts.append(
                f'<xhtml:link rel="alternate" hreflang="{hreflang}" href="{escape_xml(self._href(href))}"/>'
            )
        parts.append("</url>\n")
        return loc, "".join(parts), lastmod, bool(page.alternates)

    def _href(self, href: str) -> str:
        # Alternates may live on other hosts (one site per language), so they are
        # encoded but not held to this sitemap's scope.
        try:
            return self.scope.loc(href)
        except OutOfScope:
            return encode_url(href)


def _urlset_head(options: Options, alternates: bool) -> str:
    head = _XML_DECLARATION + (_STYLESHEET_PI if options.stylesheet else "")
    head += f'<urlset xmlns="{SITEMAP_NS}"'
    if alternates:
        head += f' xmlns:xhtml="{XHTML_NS}"'
    if options.schema_location:
        head += _SCHEMA_LOCATION["urlset"]
    return head + ">\n"


_URLSET_FOOT = "</urlset>\n"
_INDEX_FOOT = "</sitemapindex>\n"


def _index_head(options: Options) -> str:
    head = _XML_DECLARATION + (_STYLESHEET_PI if options.stylesheet else "")
    head += f'<sitemapindex xmlns="{SITEMAP_NS}"'
    if options.schema_location:
        head += _SCHEMA_LOCATION["sitemapindex"]
    return head + ">\n"


class _Shard:
    __slots__ = ("first", "texts", "size", "newest", "alternates")

    def __init__(self) -> None:
        self.first = ""
        self.texts: list[str] = []
        self.size = 0
        self.newest: tuple[str, dt.datetime] | None = None
        self.alternates = False

    def add(self, loc: str, text: str, lastmod: tuple[str, dt.datetime] | None, alternates: bool) -> None:
        if not self.texts:
            self.first = loc
        self.texts.append(text)
        self.size += len(text)
        if lastmod is not None and (self.newest is None or lastmod[1] > self.newest[1]):
            self.newest = lastmod
        self.alternates = self.alternates or alternates


def generate(
    pages: Iterable[Page],
    options: Options,
    result: GenerateResult | None = None,
) -> Iterator[SitemapFile]:
    """Yield the sitemap files for ``pages``, in the order given, shards first.

    Everything fits one file: one ``<urlset>`` (or text file) named
    ``options.filename``. Otherwise content-defined shards, then one or more
    ``<sitemapindex>`` files: the first named ``options.filename``, the others
    ``<stem>-index-<n>.xml``. Dropped URLs and counts go into ``result``.
    """
    result = result if result is not None else GenerateResult()
    scope = Scope(options.base_url)
    formatter = _Formatter(options, scope, result)
    text_format = options.format == "txt"
    stem, dot, ext = options.filename.rpartition(".")
    shard_suffix = "." + ext + (".gz" if options.gzip else "")
    if text_format:
        heads, foot_len = (0, 0), 0
    else:
        heads = (len(_urlset_head(options, False)), len(_urlset_head(options, True)))
        foot_len = len(_URLSET_FOOT)
    max_urls, max_bytes = options.max_urls, options.max_bytes

    def fits(count: int, size: int, alternates: bool, text: str, entry_alternates: bool) -> bool:
        # Exact: the file's bytes are head + entries + foot, and the head grows by
        # the xhtml namespace once any entry has alternates.
        head = heads[alternates or entry_alternates]
        return count < max_urls and head + size + len(text) + foot_len <= max_bytes

    def render(shard: _Shard) -> bytes:
        if text_format:
            return "".join(shard.texts).encode("ascii")
        return (_urlset_head(options, shard.alternates) + "".join(shard.texts) + _URLSET_FOOT).encode("ascii")

    entries = _entries(pages, formatter, result, lambda text, alt: fits(0, 0, False, text, alt))

    # One file while everything fits: most sites never need an index.
    buffered: collections.deque = collections.deque()
    size = 0
    any_alternates = False
    overflow = None
    for entry in entries:
        if fits(len(buffered), size, any_alternates, entry[1], entry[3]):
            buffered.append(entry)
            size += len(entry[1])
            any_alternates = any_alternates or entry[3]
            continue
        overflow = entry
        break
    if overflow is None:
        single = _Shard()
        for entry in buffered:
            single.add(*entry)
        result.urls = len(single.texts)
        result.entry_points.append(options.filename)
        yield SitemapFile(options.filename, render(single), "text" if text_format else "urlset",
                          len(single.texts), single.newest and single.newest[0])
        return

    # Shard boundaries come from the URLs themselves (see _boundary_bits). The
    # average entry size of the first file's worth fixes the rule for the run.
    average = max(1, size // max(1, len(buffered)))
    bits = _boundary_bits(min(max_urls, (max_bytes - heads[1] - foot_len) // average))
    taken: set[str] = set()
    shards: list[tuple[str, str | None]] = []

    def close(shard: _Shard) -> SitemapFile:
        name = _shard_name(stem, shard.first, shard_suffix, taken)
        newest = shard.newest and shard.newest[0]
        shards.append((name, newest))
        result.urls += len(shard.texts)
        return SitemapFile(name, render(shard), "text" if text_format else "urlset", len(shard.texts),
                           newest, gzip=options.gzip)

    shard = _Shard()
    for loc, text, lastmod, alternates in itertools.chain(_drain(buffered), [overflow], entries):
        if shard.texts and (
            _opens_shard(loc.encode("ascii"), bits)
            or not fits(len(shard.texts), shard.size, shard.alternates, text, alternates)
        ):
            yield close(shard)
            shard = _Shard()
        shard.add(loc, text, lastmod, alternates)
    if shard.texts:
        yield close(shard)

    yield from _indexes(shards, options, scope, stem, result)


def _drain(buffer: collections.deque):
    # Hand the first file's worth to the sharder while freeing it as it goes.
    while buffer:
        yield buffer.popleft()


def _entries(pages, formatter: _Formatter, result: GenerateResult, fits_alone):
    previous = None
    for page in pages:
        entry = formatter.entry(page)
        if entry is None:
            continue
        if entry[0] == previous:
            # Sorted input puts duplicates side by side; a URL is listed once.
            result.excluded.append(Excluded(page.loc, "duplicate"))
            continue
        if not fits_alone(entry[1], entry[3]):
            result.excluded.append(Excluded(page.loc, "too long"))
            continue
        previous = entry[0]
        yield entry


def _indexes(shards, options: Options, scope: Scope, stem: str, result: GenerateResult) -> Iterator[SitemapFile]:
    head, foot = _index_head(options), _INDEX_FOOT
    budget = options.max_bytes - len(head) - len(foot)
    groups: list[list[str]] = [[]]
    size = 0
    for name, lastmod_text in shards:
        item = f"<sitemap><loc>{escape_xml(scope.prefix + name)}</loc>"
        if lastmod_text is not None:
            item += f"<lastmod>{lastmod_text}</lastmod>"
        item += "</sitemap>\n"
        if groups[-1] and (len(groups[-1]) >= options.max_sitemaps or size + len(item) > budget):
            groups.append([])
            size = 0
        groups[-1].append(item)
        size += len(item)
    for number, items in enumerate(groups, start=1):
        # Indexes may not list indexes, so every extra one is its own entry point
        # (each gets a Sitemap: line in robots.txt).
        name = options.filename if number == 1 else f"{stem}-index-{number}.xml"
        if options.format == "txt":
            name = f"{stem}.xml" if number == 1 else name
        result.entry_points.append(name)
        yield SitemapFile(name, (head + "".join(items) + foot).encode("ascii"), "sitemapindex", len(items))
