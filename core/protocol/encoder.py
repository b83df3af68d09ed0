"""Format pages into sitemap files: streaming, sharded, deterministic. No I/O here.

:func:`encode_pages` consumes pages in the order given (adapters sort them by URL) and
yields :class:`SitemapFile` values one at a time, so a million URLs never sit in
memory at once; :mod:`sitemapkit.publish` puts them on disk.
"""

from __future__ import annotations

import bisect
import dataclasses
import enum
import fnmatch
import itertools
import operator
import re
from collections.abc import Iterable, Iterator, Mapping
from typing import NamedTuple

from .deflate import crc32
from .dates import LastmodWriter, newest_written
from .errors import LastmodError, UrlError
from .filenames import index_name, shard_name
from .languages import hreflang_value
from .limits import MAX_IMAGES_PER_URL, MAX_LOC_LENGTH
from .model import Excluded, Lastmod, Notice, Options, Page
from .patterns import deferred
from .urls import (
    SCHEME_NAME,
    WEB_SCHEMES,
    WEB_URL_STARTS,
    OutOfScope,
    Scope,
    encode_url,
    escape_xml,
    is_web_url,
    resolve_web_reference,
)

SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
XHTML_NS = "http://www.w3.org/1999/xhtml"
# developers.google.com/search/docs/crawling-indexing/sitemaps/image-sitemaps: the
# one image tag Google still reads, <image:image> holding <image:loc>.
IMAGE_NS = "http://www.google.com/schemas/sitemap-image/1.1"
IMAGE_OPEN = "<image:image><image:loc>"
IMAGE_CLOSE = "</image:loc></image:image>"
XSI_NS = "http://www.w3.org/2001/XMLSchema-instance"
STYLESHEET_NAME = "sitemap.xsl"
FALLBACK_CSS_NAME = "sitemap.css"

_XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>\n'
# The XSL view first; the CSS one is what browsers that dropped XSLT (Chromium is
# removing it) still apply, so the sitemap stays readable there.
_STYLESHEET_PI = (
    f'<?xml-stylesheet type="text/xsl" href="{STYLESHEET_NAME}"?>\n'
    f'<?xml-stylesheet type="text/css" href="{FALLBACK_CSS_NAME}"?>\n'
)
# sitemaps.org/protocol.html, "Validating your Sitemap": the header that names the
# schema for validators.
_SCHEMA_LOCATION = {
    "urlset": f' xmlns:xsi="{XSI_NS}" xsi:schemaLocation="{SITEMAP_NS} http://www.sitemaps.org/schemas/sitemap/0.9/sitemap.xsd"',
    "sitemapindex": f' xmlns:xsi="{XSI_NS}" xsi:schemaLocation="{SITEMAP_NS} http://www.sitemaps.org/schemas/sitemap/0.9/siteindex.xsd"',
}
# The pieces of a <url> entry, in the order sitemap.xsd wants its children. The
# block path of `sitemapkit generate` builds its entries from the same pieces (see
# EntryParts), so the two paths cannot write an entry differently.
URL_OPEN = "<url><loc>"
LOC_CLOSE = "</loc>"
LASTMOD_OPEN = "<lastmod>"
LASTMOD_CLOSE = "</lastmod>"
URL_CLOSE = "</url>"
# RFC 3986 section 3.1: a URL's scheme, up to its colon.
_URI_SCHEME = deferred(r"\s*(" + SCHEME_NAME + "):")


def _options_extra(options: Options) -> str:
    """The <changefreq> and <priority> every entry gets from the options."""
    extra = ""
    if options.changefreq:
        extra += f"<changefreq>{options.changefreq}</changefreq>"
    if options.priority is not None:
        extra += f"<priority>{options.priority:.1f}</priority>"
    return extra


class EntryParts(NamedTuple):
    """An entry's fixed bytes for given options, for whole-block formatting: an
    undated entry is ``opening + loc + undated_closing``, a dated one ``opening +
    loc + lastmod_opening + date + dated_closing``; in the text form an entry is
    the loc alone."""

    text: bool
    opening: bytes
    undated_closing: bytes
    lastmod_opening: bytes
    dated_closing: bytes

    @classmethod
    def of(cls, options: Options) -> EntryParts:
        extra = _options_extra(options) + URL_CLOSE
        return cls(
            options.format == "txt",
            URL_OPEN.encode("ascii"),
            (LOC_CLOSE + extra).encode("ascii"),
            (LOC_CLOSE + LASTMOD_OPEN).encode("ascii"),
            (LASTMOD_CLOSE + extra).encode("ascii"),
        )


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
    #: crc32 of ``data`` when the name was made from it (a shard's): gzip reuses it.
    crc: int | None = None
    #: ``<image:image>`` entries it holds.
    images: int = 0


@dataclasses.dataclass
class EncodeResult:
    """Filled while :func:`encode_pages` runs: what was listed and what was left out."""

    urls: int = 0
    excluded: list[Excluded] = dataclasses.field(default_factory=list)
    #: Entry points in write order: the file robots.txt and users submit.
    entry_points: list[str] = dataclasses.field(default_factory=list)
    #: Warnings for the user (alternates left out).
    notices: list[Notice] = dataclasses.field(default_factory=list)
    #: ``<image:image>`` entries written (counted in the files, whoever formatted them).
    images: int = 0
    #: Images listed by host, by the writer that formatted their entries.
    image_hosts: dict[str, int] = dataclasses.field(default_factory=dict)
    #: Pages that show more images than one entry lists.
    images_cut: list[str] = dataclasses.field(default_factory=list)
    #: Images of pages written in the text form, which has no images.
    images_unwritten: int = 0

    def too_long(self, given: str, entry: bytes) -> None:
        """The page given as ``given`` left out: its ``entry`` is too long for a
        file of its own, and the images it holds are not listed."""
        self.excluded.append(Excluded(given, "too long"))
        for element in image_elements(entry):
            host = image_host(element)
            if self.image_hosts.get(host, 0) > 1:
                self.image_hosts[host] -= 1
            else:
                self.image_hosts.pop(host, None)


def loc_hash(loc: bytes) -> int:
    """What shard boundaries hash for an entry (see ShardPlanner.boundaries): the
    crc32 of its loc, encoded, as ASCII."""
    return crc32(loc)


def loc_hashes_below(prefix: bytes, rests: Iterable[bytes]) -> list[int]:
    """:func:`loc_hash` of each loc ``prefix + rest``, for locs kept without the
    prefix they all share: a crc32 goes on from the crc32 of what came before,
    so the prefix is hashed once."""
    return list(map(crc32, rests, itertools.repeat(crc32(prefix))))


class _PageLastmod(enum.Enum):
    """The page's own ``lastmod`` (:meth:`EntryWriter.entry`'s default)."""

    PAGE_LASTMOD = "the page's own lastmod"


#: Date the entry by the page's own ``lastmod`` (no date is resolved for it).
PAGE_LASTMOD = _PageLastmod.PAGE_LASTMOD


class EntryWriter:
    """Turns one page into its ``<url>`` element (or text line), as ASCII bytes
    without the line break."""

    def __init__(
        self, options: Options, scope: Scope, result: EncodeResult, *, max_images: int = MAX_IMAGES_PER_URL
    ) -> None:
        self.options = options
        self.images = options.images
        self.max_images = max_images
        self.scope = scope
        self.result = result
        self.text = options.format == "txt"
        self.default_extra = _options_extra(options)
        # Problems with alternates already reported (one notice each).
        self.reported: set[str] = set()
        self.previous: str | None = None
        self.lastmod_text = LastmodWriter().text
        # Absolute image references seen, as _image wrote them.
        self._absolute_images: dict[str, tuple[str, str, str] | None] = {}

    def loc_hash(self) -> int:
        """crc32 of the loc of the entry just made: what shard boundaries hash
        (see ShardPlanner.boundaries)."""
        assert self.previous is not None, "loc_hash() follows an entry"
        return loc_hash(self.previous.encode("ascii"))

    def entry(self, page: Page, lastmod: Lastmod | _PageLastmod = PAGE_LASTMOD) -> bytes | None:
        """The entry for ``page`` (dated ``lastmod`` when given, else by its
        own), or None when it is left out (and reported)."""
        try:
            loc = self.scope.loc(page.loc)
        except OutOfScope as out:
            self.result.excluded.append(Excluded(page.loc, out.reason))
            return None
        if loc == self.previous:
            # Sorted input puts duplicates side by side; a URL is listed once.
            self.result.excluded.append(Excluded(page.loc, "duplicate"))
            return None
        self.previous = loc
        if self.text:
            # The text form: "one URL per line ... must not contain anything else".
            if page.images and self.images:
                self.result.images_unwritten += len(page.images)
            return loc.encode("ascii")
        try:
            written = self.lastmod_text(page.lastmod if lastmod is PAGE_LASTMOD else lastmod)
        except LastmodError as error:
            raise LastmodError(f"{page.loc}: {error}") from None
        parts = [URL_OPEN, escape_xml(loc), LOC_CLOSE]
        if written is not None:
            parts += [LASTMOD_OPEN, written, LASTMOD_CLOSE]
        if page.changefreq is not None or page.priority is not None:
            if page.changefreq is not None:
                parts += ["<changefreq>", page.changefreq, "</changefreq>"]
            if page.priority is not None:
                parts.append(f"<priority>{page.priority:.1f}</priority>")
        elif self.default_extra:
            parts.append(self.default_extra)
        if page.alternates:
            parts += self._links(page)
        if page.images and self.images:
            parts += self._images(page.images, loc)
        parts.append(URL_CLOSE)
        return "".join(parts).encode("ascii")

    def _links(self, page: Page) -> list[str]:
        """The page's hreflang links; none when one of them cannot be written (the
        group is dropped, with one notice per problem: every version names the
        same alternates, so the whole group goes, and the build goes on)."""
        links = []
        for hreflang, href in page.alternates:
            tag = hreflang_value(hreflang)
            if tag is None:
                return self._drop(f"hreflang {hreflang!r}, which is not a language tag")
            try:
                url = self._href(href)
            except UrlError:
                url = ""
            if not is_web_url(url):
                return self._drop(f"alternate {href!r}, which is not an http(s) URL")
            links.append(f'<xhtml:link rel="alternate" hreflang="{tag}" href="{escape_xml(url)}"/>')
        return links

    def with_images(self, entry: bytes, loc: str, images: tuple[str, ...]) -> bytes:
        """``entry``, made without images for the page whose encoded loc is
        ``loc``, with the ``images`` it shows (as :meth:`entry` writes a page's
        images: last, before ``</url>``; the text form has none)."""
        if self.text:
            self.result.images_unwritten += len(images)
            return entry
        written = self._images(images, loc)
        if not written:
            return entry
        return entry[: -len(_URL_CLOSE)] + "".join(written).encode("ascii") + _URL_CLOSE

    def _images(self, images: tuple[str, ...], loc: str) -> list[str]:
        """The ``<image:image>`` entries of a page's ``images``: each image once,
        in the page's order, the first ``max_images`` of them (the page is
        reported when there were more). An image that is no http(s) URL (``data:``,
        ``blob:``, one that cannot be encoded), is too long for a loc, or is on a
        host ``image_hosts`` does not match is passed over, as crawlers pass over it."""
        seen: set[str] = set()
        written: list[str] = []
        hosts = self.result.image_hosts
        known = self._absolute_images
        for reference in images:
            if reference in known:
                image = known[reference]
            else:
                image = self._image(loc, reference)
                if reference.startswith(WEB_URL_STARTS):
                    # The same from every page (an image many pages show, a
                    # theme's, is looked at once); the memo starts over when
                    # full, so a build's memory does not grow with its images.
                    if len(known) == _IMAGE_MEMO_SIZE:
                        known.clear()
                    known[reference] = image
            if image is None or image[0] in seen:
                continue
            url, host, element = image
            if len(written) == self.max_images:
                self.result.images_cut.append(loc)
                break
            seen.add(url)
            hosts[host] = hosts.get(host, 0) + 1
            written.append(element)
        return written

    def _image(self, loc: str, reference: str) -> tuple[str, str, str] | None:
        """The URL of an image a page at ``loc`` shows, its host and its
        ``<image:image>`` element; None when it is not written (see :meth:`_images`)."""
        url = self.image_url(loc, reference)
        if url is None:
            return None
        host = url.split("/", 3)[2]
        if self.options.image_hosts and not any(
            fnmatch.fnmatchcase(host, pattern.lower()) for pattern in self.options.image_hosts
        ):
            return None
        return url, host, _image_element(url)

    def image_element(self, image: str) -> bytes | None:
        """The ``<image:image>`` element an absolute image URL is written as, or
        None when it is not written (see :meth:`image_url`)."""
        url = self.image_url(image, image)
        return None if url is None else _image_element(url).encode("ascii")

    def image_url(self, page_loc: str, reference: str) -> str | None:
        """An image reference (absolute, or relative to ``page_loc``) as the
        encoded absolute URL an ``<image:loc>`` holds, by the rules of ``<loc>``
        (images may be on other hosts, so out of scope is no reason to leave one
        out); None when it names no http(s) URL."""
        if not reference.startswith(WEB_URL_STARTS):
            scheme = _URI_SCHEME.match(reference)
            if scheme is not None and scheme.group(1).lower() not in WEB_SCHEMES:
                return None  # data:, blob:, javascript:
        target = resolve_web_reference(page_loc, reference.strip())
        if target is None:
            return None
        try:
            url = self._encoded(target)  # an http(s) URL
        except UrlError:
            return None
        return url if is_web_url(url) and len(url) <= MAX_LOC_LENGTH else None

    def _drop(self, problem: str) -> list[str]:
        if problem not in self.reported:
            self.reported.add(problem)
            self.result.notices.append(Notice("hreflang", f"left out the alternates of pages that name {problem}"))
        return []

    def _href(self, href: str) -> str:
        # Alternates may live on other hosts (one site per language), so they are
        # encoded but not held to this sitemap's scope. An alternate is a URL, so
        # "javascript:x" names a scheme here, never a file below the base.
        scheme = _URI_SCHEME.match(href)
        if scheme is not None and scheme.group(1).lower() not in WEB_SCHEMES:
            return ""
        return self._encoded(href)

    def _encoded(self, url: str) -> str:
        """A URL, encoded: as a loc where the sitemap's scope holds it."""
        try:
            return self.scope.loc(url)
        except OutOfScope:
            return encode_url(url)


_URL_CLOSE = URL_CLOSE.encode("ascii")
# Absolute image references an EntryWriter remembers at most.
_IMAGE_MEMO_SIZE = 4096


def _image_element(url: str) -> str:
    return IMAGE_OPEN + escape_xml(url) + IMAGE_CLOSE


_ALTERNATE_MARK = b"<xhtml:link"
_IMAGE_MARK = IMAGE_OPEN[:12].encode("ascii")  # b"<image:image"
# What an entry or a body holds that its file's head must declare: bit 1 the
# xhtml namespace (alternates), bit 2 the image namespace. Heads are indexed by it.
ALTERNATES, IMAGES = 1, 2


def extensions_in(data: bytes) -> int:
    """The namespaces ``data`` (entries) needs its ``<urlset>`` to declare, as bits."""
    return (ALTERNATES if _ALTERNATE_MARK in data else 0) | (IMAGES if _IMAGE_MARK in data else 0)


_IMAGE_ELEMENT = deferred(re.escape(IMAGE_OPEN.encode("ascii")) + rb"([^<]*)" + re.escape(IMAGE_CLOSE.encode("ascii")))


def image_elements(entry: bytes) -> list[bytes]:
    """The ``<image:image>`` elements of a formatted entry, in order."""
    return [match.group() for match in _IMAGE_ELEMENT.finditer(entry)] if _IMAGE_MARK in entry else []


def image_host(element: bytes) -> str:
    """The host of the image an ``<image:image>`` element names."""
    return element[len(IMAGE_OPEN) :].split(b"/", 3)[2].decode("ascii")


def _has_images(entries: list[bytes]) -> bool:
    """Whether one of ``entries`` has images (a scan in C, without joining them)."""
    return any(map(operator.contains, entries, itertools.repeat(_IMAGE_MARK)))


def held_marks(entries: list[bytes], alternates: bool | int = False) -> int:
    """The extensions a single file of ``entries`` declares in its head (see
    :class:`Sequencer`): the alternates its caller knows of, and images."""
    return int(alternates) | (IMAGES if _has_images(entries) else 0)


def entry_sizes(entries: Iterable[bytes]) -> Iterator[int]:
    """Each entry's bytes in a file: its own and its line break."""
    return map(operator.add, map(len, entries), itertools.repeat(1))


_LASTMOD_TEXT = deferred(LASTMOD_OPEN.encode("ascii") + b"([^<]+)" + LASTMOD_CLOSE.encode("ascii"))


def newest_lastmod_in(body: bytes) -> str | None:
    """The newest ``<lastmod>`` in a shard's entries, as written."""
    return newest_written(_LASTMOD_TEXT.findall(body))


# Shards hold about this fraction of a full file (see ShardPlanner.choose_boundaries).
SHARD_FRACTION = 16


class ShardPlanner:
    """Decides where shards start and end, and renders them. Pure: bytes in, bytes out.

    Entries are ASCII bytes without their line break. A shard always starts at a
    *boundary* entry, chosen by the entry's own content, so the cut points of one
    part of the site do not depend on any other part; inside a run from one
    boundary to the next, the hard limits (count, bytes) cut greedily.
    """

    def __init__(self, options: Options) -> None:
        self.options = options
        self.text_format = options.format == "txt"
        # Indexed by the extensions a file's entries use (ALTERNATES | IMAGES).
        self.heads: tuple[bytes, ...]
        if self.text_format:
            self.heads, self.foot = (b"",) * 4, b""
        else:
            self.heads = tuple(
                _urlset_head(options, bool(marks & ALTERNATES), bool(marks & IMAGES)).encode("ascii")
                for marks in range(4)
            )
            self.foot = _URLSET_FOOT.encode("ascii")
        self.max_urls = options.max_urls
        self.max_bytes = options.max_bytes
        # Set by choose_boundaries once the average entry size is known.
        self.threshold = 0

    def fits_one_file(self, count: int, size: int, alternates: bool | int) -> bool:
        """``size`` counts each entry's bytes plus its line break; ``alternates``:
        the extensions the entries use (True: alternates), as bits."""
        return count <= self.max_urls and len(self.heads[alternates]) + size + len(self.foot) <= self.max_bytes

    def fits_alone(self, entry: bytes) -> bool:
        return self.fits_one_file(1, len(entry) + 1, extensions_in(entry))

    def average_to_overflow(self, sizes: Iterable[int]) -> int:
        """The average size (bytes with break) of the entries up to the first
        that does not fit one file, from the sizes of the entries held when they
        stopped fitting: the same however they were batched."""
        cumulative = list(itertools.accumulate(sizes))
        room = self.max_bytes - len(self.heads[1]) - len(self.foot)
        upto = min(bisect.bisect_right(cumulative, room) + 1, self.max_urls + 1, len(cumulative))
        return cumulative[upto - 1] // upto

    def choose_boundaries(self, average_entry: int) -> None:
        """Fix the boundary rule from the average entry size (bytes with break).

        Shards average a sixteenth to a thirty-second of what one file may hold,
        so the hard limits practically never cut: boundaries then depend on the
        entries alone, and adding or removing a page changes only the shard it
        falls in (two, if it is itself a boundary). Small shards also let every
        core work on its own part of a very large list. A power of two keeps the
        rule stable as a site grows.
        """
        self.threshold = self.boundary_threshold(average_entry)

    def boundary_threshold(self, average_entry: int) -> int:
        """The rule :meth:`choose_boundaries` fixes, without fixing it: an entry
        opens a shard when its loc's crc32 is below the value returned."""
        room = (self.max_bytes - len(self.heads[1]) - len(self.foot)) // max(1, average_entry)
        target = max(1, min(self.max_urls, room) // SHARD_FRACTION)
        bits = target.bit_length() - 1
        # An entry opens a shard when the top `bits` bits of its crc32 are zero.
        return 1 << (32 - bits) if bits > 0 else 0

    def boundaries(self, hashes: list[int]) -> list[int]:
        """Indexes of the entries that open a shard, from the crc32 of each one's
        loc (cheap, in C, and independent of its lastmod)."""
        return list(itertools.compress(itertools.count(), map(self.threshold.__gt__, hashes)))

    def cut(self, entries: list[bytes], alternates: bool | int = False) -> list[tuple[int, int]]:
        """Split one run (from a boundary to the next) greedily by the hard limits.

        ``alternates``: some entries may have hreflang links, which lengthen the
        head; those runs, and runs with images (whose namespace lengthens it too),
        are cut entry by entry, the others by bisection."""
        n = len(entries)
        ranges = []
        if not self.text_format and (alternates or _has_images(entries)):
            start = count = size = 0
            marks = 0
            for i, entry in enumerate(entries):
                entry_alternates = extensions_in(entry)
                if count and not self.fits_one_file(count + 1, size + len(entry) + 1, marks | entry_alternates):
                    ranges.append((start, i))
                    start, count, size, marks = i, 0, 0, 0
                count += 1
                size += len(entry) + 1
                marks = marks | entry_alternates
            ranges.append((start, n))
            return ranges
        # cumulative[k]: bytes of the first k entries, each with its line break.
        cumulative = list(itertools.accumulate(map(operator.add, map(len, entries), itertools.repeat(1)), initial=0))
        budget = self.max_bytes - len(self.heads[0]) - len(self.foot)
        i = 0
        while i < n:
            last = min(n, i + self.max_urls)
            j = bisect.bisect_right(cumulative, cumulative[i] + budget, i, last + 1) - 1
            # Every entry fits alone (checked on the way in), so j > i.
            ranges.append((i, j))
            i = j
        return ranges

    def render(self, entries: list[bytes], name: str | None = None) -> SitemapFile:
        """One sitemap file of ``entries``; shards are named after their first URL."""
        body = b"\n".join(entries) + b"\n"
        newest = None if self.text_format else newest_lastmod_in(body)
        return self._file(body, len(entries), newest, name)

    def _file(
        self, body: bytes, count: int, newest: str | None, name: str | None = None, marks: int | None = None
    ) -> SitemapFile:
        if marks is None:
            marks = 0 if self.text_format else extensions_in(body)
        data = self.heads[marks] + body + self.foot
        crc = None
        if name is None:
            first = body[: body.index(b"\n")] if self.text_format else body[len(URL_OPEN) : body.index(b"</loc>")]
            # Named by its first URL and its content (see filenames.py).
            crc = crc32(data)
            name = shard_name(self.options.filename, first, crc, gzip=self.options.gzip)
        kind = "text" if self.text_format else "urlset"
        images = body.count(_IMAGE_MARK) if marks & IMAGES else 0
        return SitemapFile(
            name,
            data,
            kind,
            count,
            newest,
            gzip=self.options.gzip and name != self.options.filename,
            crc=crc,
            images=images,
        )

    def shards(self, run: list[bytes], alternates: bool | int = False) -> list[SitemapFile]:
        return [self.render(run[a:b]) for a, b in self.cut(run, alternates)]

    def shards_of_body(
        self, body: bytes, count: int, newest: str | None, marks: int | None = None
    ) -> list[SitemapFile]:
        """The shards of one run given as its ``count`` ``<url>`` entries without
        hreflang links, each followed by a line break, and their newest lastmod:
        the same files :meth:`shards` makes of the entries, without splitting
        them apart when the run fits one file, as runs almost always do.
        ``marks``: the extensions the entries use, when the caller knows them
        (see :func:`extensions_in`)."""
        if marks is None:
            marks = extensions_in(body)
        if self.fits_one_file(count, len(body), marks):
            return [self._file(body, count, newest, marks=marks)]
        return self.shards(body[:-1].split(b"\n"))


class Sequencer:
    """Feeds batches of entries, in order, through the planner; returns finished files.

    While everything still fits one file, entries are held back (at most one
    file's worth): most sites need no index. Past that, runs between boundaries
    become shards as soon as their closing boundary arrives.
    """

    def __init__(self, planner: ShardPlanner) -> None:
        self.planner = planner
        self.single = True
        self.held: list[bytes] = []
        self.held_hashes: list[int] = []
        self.held_size = 0
        self.held_alternates: bool | int = False
        self.run: list[bytes] = []
        self.shards: list[SitemapFile] = []
        # Once any entry had hreflang links, runs are cut exactly entry by entry.
        self.alternates: bool | int = False

    def feed(self, entries: list[bytes], hashes: list[int], alternates: bool = False) -> list[SitemapFile]:
        """``hashes``: crc32 of each entry's loc (see ShardPlanner.boundaries)."""
        files = [
            f for run in self.feed_runs(entries, hashes, alternates) for f in self.planner.shards(run, self.alternates)
        ]
        self._remember(files)
        return files

    def feed_runs(self, entries: list[bytes], hashes: list[int], alternates: bool = False) -> list[list[bytes]]:
        """Like :meth:`feed`, but the runs completed (each from one boundary to the
        next) are returned as entries, for the caller to cut into shards."""
        if self.single:
            self.held.extend(entries)
            self.held_hashes.extend(hashes)
            self.held_size += sum(map(len, entries)) + len(entries)
            # The single file's head declares what its entries use: images too.
            self.held_alternates = self.held_alternates | held_marks(entries, alternates)
            self.alternates = self.held_alternates
            if self.planner.fits_one_file(len(self.held), self.held_size, self.held_alternates):
                return []
            self.single = False
            entries, self.held = self.held, []
            hashes, self.held_hashes = self.held_hashes, []
            self.planner.choose_boundaries(self.planner.average_to_overflow(entry_sizes(entries)))
        self.alternates = self.alternates | alternates
        bounds = self.planner.boundaries(hashes)
        if not bounds:
            self.run.extend(entries)
            return []
        self.run.extend(entries[: bounds[0]])
        runs = [self.run] if self.run else []
        runs += [entries[a:b] for a, b in zip(bounds, bounds[1:])]
        self.run = entries[bounds[-1] :]
        return runs

    def _remember(self, files: list[SitemapFile]) -> None:
        # The index needs names, counts and dates only; keeping the bytes would
        # hold the whole site in memory.
        self.shards.extend(dataclasses.replace(f, data=b"") for f in files)

    def last_files(self) -> list[SitemapFile]:
        """The files still held: the single file, or the last shard."""
        if self.single:
            if not self.held:
                # An empty <urlset> is invalid (the schema wants one <url>): no file.
                return []
            file = self.planner.render(self.held, name=self.planner.options.filename)
            self.held = []
            return [file]
        files = self.planner.shards(self.run, self.alternates) if self.run else []
        self.run = []
        self._remember(files)
        return files


def _urlset_head(options: Options, alternates: bool, images: bool = False) -> str:
    head = _XML_DECLARATION + (_STYLESHEET_PI if options.stylesheet else "")
    head += f'<urlset xmlns="{SITEMAP_NS}"'
    if alternates:
        head += f' xmlns:xhtml="{XHTML_NS}"'
    if images:
        head += f' xmlns:image="{IMAGE_NS}"'
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


def written_by_sitemapkit(start: bytes) -> bool:
    """Whether ``start``, the first bytes of a sitemap file, are in the one form
    this encoder writes: its declaration, its stylesheet lines when there are
    any, the root element and the first entry on the next line. Other
    generators' sitemaps (MkDocs' own indents its entries) are told apart by it:
    ``sitemapkit versions`` finds version folders by the sitemaps sitemapkit wrote."""
    text = start.decode("utf-8", "replace")
    if not text.startswith(_XML_DECLARATION):
        return False
    text = text[len(_XML_DECLARATION) :].removeprefix(_STYLESHEET_PI)
    for root, first in (("urlset", URL_OPEN), ("sitemapindex", "<sitemap><loc>")):
        if text.startswith(f'<{root} xmlns="{SITEMAP_NS}"'):
            _, _, rest = text.partition(">\n")
            return rest.startswith(first) or rest.startswith(f"</{root}>")
    return False


# How many pages are formatted before the sequencer sees them: large enough that
# per-batch work vanishes, small enough to stream.
_BATCH = 4096


def encode_pages(
    pages: Iterable[Page],
    options: Options,
    result: EncodeResult | None = None,
    lastmods: Mapping[str, Lastmod] | None = None,
    *,
    max_images: int = MAX_IMAGES_PER_URL,
) -> Iterator[SitemapFile]:
    """Yield the sitemap files for ``pages``, in the order given, shards first.

    Everything fits one file: one ``<urlset>`` (or text file) named
    ``options.filename``. Otherwise content-defined shards, then one or more
    ``<sitemapindex>`` files: the first named ``options.filename``, the others
    ``<stem>-index-<n>.xml``. Dropped URLs and counts go into ``result``.
    ``lastmods`` holds the dates resolved for pages (by their ``loc``) in place
    of their own ``lastmod``. ``max_images``: the most images one entry lists.
    """
    result = result if result is not None else EncodeResult()
    formatter = EntryWriter(options, Scope(options.base_url), result, max_images=max_images)
    resolved = lastmods or {}

    def entries() -> Iterator[tuple[bytes, str, int, bool]]:
        for page in pages:
            entry = formatter.entry(page, resolved.get(page.loc, page.lastmod))
            if entry is not None:
                yield entry, page.loc, formatter.loc_hash(), bool(page.alternates)

    yield from encode_entries(entries(), options, result)


def encode_entries(
    entries: Iterable[tuple[bytes, str, int, bool]], options: Options, result: EncodeResult | None = None
) -> Iterator[SitemapFile]:
    """:func:`encode_pages` for entries formatted already (by ``EntryWriter.entry``),
    in order: each as ``(entry, loc to report it by, its loc's hash (loc_hash),
    whether its page has alternates)``."""
    result = result if result is not None else EncodeResult()
    planner = ShardPlanner(options)

    def batches() -> Iterator[tuple[list[bytes], list[int], bool]]:
        batch: list[bytes] = []
        hashes: list[int] = []
        alternates = False
        for entry, given, hash_, has_alternates in entries:
            if not planner.fits_alone(entry):
                result.too_long(given, entry)
                continue
            batch.append(entry)
            hashes.append(hash_)
            alternates = alternates or has_alternates
            if len(batch) >= _BATCH:
                yield batch, hashes, alternates
                batch, hashes, alternates = [], [], False
        if batch:
            yield batch, hashes, alternates

    return encode_entry_batches(batches(), options, result)


def encode_entry_batches(
    batches: Iterable[tuple[list[bytes], list[int], bool]], options: Options, result: EncodeResult | None = None
) -> Iterator[SitemapFile]:
    """:func:`encode_entries` for entries in batches, each known to fit a file on
    its own: ``(entries, their locs' hashes, whether one has alternates)``."""
    result = result if result is not None else EncodeResult()
    sequencer = Sequencer(ShardPlanner(options))
    for entries, hashes, alternates in batches:
        yield from sequencer.feed(entries, hashes, alternates)
    yield from closing_files(sequencer, options, Scope(options.base_url), result)


def closing_files(sequencer: Sequencer, options: Options, scope: Scope, result: EncodeResult) -> Iterator[SitemapFile]:
    """The last shard and the index files (or the single file)."""
    last = sequencer.last_files()
    if sequencer.single:
        if last:
            result.urls = last[0].count
            result.images = last[0].images
            result.entry_points.append(options.filename)
        yield from last
        return
    yield from last
    result.urls = sum(f.count for f in sequencer.shards)
    result.images = sum(f.images for f in sequencer.shards)
    yield from _indexes([(f.name, f.lastmod) for f in sequencer.shards], options, scope, result)


def _indexes(shards, options: Options, scope: Scope, result: EncodeResult) -> Iterator[SitemapFile]:
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
        name = index_name(options.filename, number)
        result.entry_points.append(name)
        yield SitemapFile(name, (head + "".join(items) + foot).encode("ascii"), "sitemapindex", len(items))


def encode_index(
    sitemaps: Iterable[tuple[str, str | None]], options: Options, result: EncodeResult
) -> Iterator[SitemapFile]:
    """The index files listing ``sitemaps`` (each the path of a sitemap below the
    base URL and its newest lastmod as written, or None), the first named
    ``options.filename``: an index over sitemaps another run wrote (the version
    folders' own, for ``sitemapkit versions --all-versions``)."""
    listed = list(sitemaps)
    result.urls = len(listed)
    yield from _indexes(listed, options, Scope(options.base_url), result)
