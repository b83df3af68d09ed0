"""Built-page checks: noindex, canonical elsewhere, meta-refresh redirect stubs.

A sitemap should list only the URLs a search engine is meant to index. Three
things in a built page's ``<head>`` say a URL is not one of them:

* a robots meta (``<meta name="robots">`` or ``name="googlebot"``) whose
  directives include ``noindex`` or ``none``;
* a ``<link rel="canonical">`` naming another URL, which makes this URL a
  duplicate of that one;
* a ``<meta http-equiv="refresh">`` sending the visitor to another URL, the
  redirect stubs generators write for moved pages.

Only the head is read, as a browser reads it (:mod:`sitemapkit.site.htmlscan`): it
ends at the first body content, never at a ``</head>`` or ``<body`` inside a
comment, a script, a style, a title, an attribute value or a ``<template>``; a tag
inside those, or inside a ``<noscript>`` (read with scripting on), is not the
head's. At most :data:`HEAD_READ_LIMIT` bytes are read, in UTF-8 or the charset a
``<meta>`` declares, or in UTF-16 when the page starts with its byte order mark. A
page whose head holds none of the words these checks look for (``robots``,
``googlebot``, ``canonical``, ``refresh``) is passed over once its end is found;
of the others only the ``<meta>``, ``<link>`` and ``<base>`` tags that hold one of
them reach the HTML parser (``tests/benchmarks/bench_htmlcheck.py`` measures the
cost next to building the pages).

How two URLs are compared (see :func:`sitemapkit.urls.comparable_url`): scheme and host are
case-insensitive, a default port (80, 443) equals none, percent-escapes are
compared in one spelling (RFC 3986 section 6.2.2), and a page's own URL and its
canonical or refresh target are compared by the file they name, their paths
decoded (:func:`sitemapkit.urls.same_file_key`: ``a%26b/`` is ``a&b/``), dot segments are
resolved, the fragment is ignored, and a path ending in ``/index.html``
equals the same path ending in ``/``, since static hosts serve one file for both
(Sphinx, for one, names ``.../index.html`` as canonical for a page published as
``.../``). ``http`` and ``https``, ``www.`` or not, and ``/page`` against
``/page/`` stay different: those are different URLs to a crawler, and a
canonical naming one of them is worth the user's attention.
"""

from __future__ import annotations

import codecs
import datetime as dt
import errno
import functools
import json
import os
import re
import stat
from collections.abc import Callable
from html.parser import HTMLParser
from pathlib import Path
from typing import NamedTuple

from ..protocol.dates import parse_lastmod
from ..protocol.patterns import deferred
from ..protocol.urls import SCHEME, encode_path, resolve_web_reference, same_file_key
from .htmlscan import COMPILED_SCANS, IMAGE_ELEMENTS, BodyImages, HeadReader, words_present

#: Bytes read from the start of each page at most. A head is a few KiB; a page
#: whose head runs past this (inline scripts and styles) is checked on what fits.
HEAD_READ_LIMIT = 65_536

# Reads grow through these sizes until the head has ended. Most heads end within
# the first (a Pelican or Sphinx head is 1-3 KiB); a longer one is read on from
# where the first read stopped, never from its start again.
_READ_SIZES = (4_096, 16_384, HEAD_READ_LIMIT)
#: Bytes asked for by a page's first read (a page shorter than this is read whole by it).
FIRST_READ = _READ_SIZES[0]
# Windows would translate line ends without O_BINARY. O_NONBLOCK: opening a FIFO
# handed over as a page returns at once instead of waiting for a writer forever
# (regular files ignore the flag).
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_BINARY", 0) | getattr(os, "O_NONBLOCK", 0)
# A byte order mark says how the page is encoded, before any <meta charset> (HTML
# standard, "encoding sniffing": UTF-8, UTF-16LE, UTF-16BE). UTF-8 needs nothing
# done; a UTF-16 head is turned into UTF-8 so that the byte patterns below apply.
_UTF16_BOMS = {codecs.BOM_UTF16_LE: "utf-16-le", codecs.BOM_UTF16_BE: "utf-16-be"}

# Attribute values the checks look for, searched in the lowercased head before
# paying for a parse. A page that has none of them is passed over unparsed.
_NOINDEX_MARKERS = (b"robots", b"googlebot")
_CANONICAL_MARKERS = (b"canonical",)
_REFRESH_MARKERS = (b"refresh",)
# The page's own dates (Open Graph, schema.org) and its hreflang alternates.
_DATE_MARKERS = (b"modified_time", b"updated_time", b"datemodified")
_HREFLANG_MARKERS = (b"hreflang",)
#: The head's image for the page, as social sites and crawlers read it (Open
#: Graph's og:image, Twitter's card image): listed with the body's images.
IMAGE_META_PROPERTIES = ("og:image", "twitter:image")
_IMAGE_MARKERS = (b"og:image", b"twitter:image")
#: Bytes of a page read at most when its images are wanted: a page is read once,
#: whole, for its head and its body; a longer one is read this far.
PAGE_READ_LIMIT = 16 * 1024 * 1024
#: Image references read from one page at most: past the most one entry may list
#: (1,000), reading on could only find images that are left out.
IMAGE_READ_LIMIT = 1_001
# The start of a tag BodyImages takes an image from (<img>, SVG's <image>,
# <source>), in lower case: the tokenizer names a tag by the bytes right after
# its "<", in any case, so these are looked for in any case (words_present,
# with the page's other words where it is read whole). A body whose bytes hold
# none of them (most pages of most sites) can show no image, so it is not
# tokenized at all: this says only where there is nothing to read, never what
# an image is (BodyImages does, in the page's one pass).
_IMAGE_TAG_WORDS = tuple(b"<" + name for name in IMAGE_ELEMENTS)
# A <base> anywhere has the head read, since the images resolve against it.
_BASE_WORD = b"<base"

#: Where a page's head states when it last changed, in the order crawlers trust
#: them: the Open Graph article's modified time, og:updated_time, then JSON-LD's
#: dateModified (Hugo, Jekyll's jekyll-seo-tag, WordPress and most blog themes
#: write one or more of these).
HEAD_DATE_PROPERTIES = ("article:modified_time", "og:updated_time")
#: How a page gives its own date in its head: what ``sitemapkit build`` offers
#: when git and file times cannot date the pages.
HEAD_DATE_ADVICE = (
    "declare each page's date in its head (<meta property> "
    + " or ".join(HEAD_DATE_PROPERTIES)
    + ", or JSON-LD dateModified)"
)

_ROBOTS_META_NAMES = frozenset({"robots", "googlebot"})
# "none" is short for "noindex, nofollow" (Google's and Bing's robots meta docs).
_NOINDEX_DIRECTIVES = frozenset({"noindex", "none"})
# Directives are comma-separated; splitting on whitespace too keeps the common
# mistake "noindex nofollow" meaning what its author meant, as crawlers read it.
_DIRECTIVE_SEPARATORS = deferred(r"[\s,]+")

# Where the head ends and which tags it holds are read by htmlscan's tokenizer, as a
# browser reads them. The <meta>, <link> and <base> tags that hold a marker then go
# to html.parser, which parses their attributes and character references; feeding
# it the whole head would cost several times as much.


# "[^<>]": a search from each "<meta" stops at the next "<", so a head full of
# unclosed "<meta" is scanned once, not once for every one of them.
_META_CHARSET = deferred(rb"""<meta[^<>]+?charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.IGNORECASE)

# "ASCII whitespace" of the HTML standard.
_HTML_WHITESPACE = "\t\n\f\r "
_C0_CONTROLS_AND_SPACE = "".join(map(chr, range(0x21)))


class HeadFacts(NamedTuple):
    """What a built page's head says about its sitemap entry. (A named tuple:
    one is made for every page that shows an image, and a tuple is made several
    times faster than a frozen dataclass, whose fields are each set by a call.)"""

    #: ``"noindex"``, ``"canonical"`` or ``"redirect"`` when the page must be left out.
    reason: str | None = None
    #: The absolute URL the page names as canonical when it points elsewhere.
    canonical_target: str | None = None
    #: The page's own last-change dates as written, most trusted first (see
    #: :data:`HEAD_DATE_PROPERTIES`); the caller takes the first that is a date.
    modified: tuple[str, ...] = ()
    #: ``<link rel="alternate" hreflang="..." href="...">``: (hreflang, absolute URL).
    alternates: tuple[tuple[str, str], ...] = ()
    #: The absolute URL a meta-refresh redirect stub sends the visitor to.
    redirect_target: str | None = None
    #: The images the page shows, absolute, in document order: its head's
    #: og:image and twitter:image, then those in its content element (see
    #: :class:`BodyImages`), or in its whole body when it has none.
    images: tuple[str, ...] = ()
    #: Those of :attr:`images` the page itself does not place in its content:
    #: the head's, and all of them on a page without a content element. The
    #: site's chrome is looked for among them (by how many pages show them).
    uncertain_images: tuple[str, ...] = ()
    #: The images the page shows outside its content element (its header,
    #: navigation, footer): not its images, but counted to find the site's chrome.
    outside_images: tuple[str, ...] = ()

    def declared_date(self) -> dt.date | dt.datetime | None:
        """The first of the head's dates (most trusted first) that is a date; one
        that is not is passed over, as crawlers pass over it."""
        for written in self.modified:
            try:
                return parse_lastmod(written)
            except ValueError:
                continue
        return None


_NO_FACTS = HeadFacts()


def check_built_page(
    path: Path,
    url: str,
    *,
    noindex: bool = True,
    canonical: bool = True,
    redirects: bool = True,
    same_page: Callable[[str], bool] | None = None,
) -> tuple[str | None, str | None]:
    """Read only the head of the built HTML file ``path`` published at ``url``.

    Returns ``(reason, canonical_target)``: ``reason`` is ``"noindex"``,
    ``"canonical"`` or ``"redirect"`` when the page must be left out, else None;
    ``canonical_target`` is the absolute URL the page names as canonical when it
    points elsewhere, else None.

    When several reasons apply, the page's most explicit statement wins:
    ``noindex``, then ``redirect``, then ``canonical`` (redirect stubs usually
    carry a canonical link to their target too). ``canonical_target`` is
    reported whenever ``canonical`` is on and the page names another URL, also
    when the reason is another one. A switch that is off is not looked at.

    A canonical link names the page itself when it names the same file in
    another spelling (:func:`sitemapkit.urls.same_file_key`), when it is the page's own file name
    written unencoded (Sphinx writes ``.../c#sharp.html`` for ``c%23sharp.html``),
    or when ``same_page`` (given the target as an absolute URL) says so.

    ``url`` is the page's absolute URL, percent-encoded or not. Raises
    :class:`OSError` when the file cannot be read.
    """
    facts = inspect_built_page(
        path, url, noindex=noindex, canonical=canonical, redirects=redirects, same_page=same_page
    )
    return facts.reason, facts.canonical_target


def inspect_built_page(
    path: Path | str,
    url: str,
    *,
    noindex: bool = True,
    canonical: bool = True,
    redirects: bool = True,
    dates: bool = False,
    alternates: bool = False,
    images: bool = False,
    same_page: Callable[[str], bool] | None = None,
    content: str | None = None,
    first: bytes | None = None,
) -> HeadFacts:
    """:func:`check_built_page`, and with ``dates`` and ``alternates`` also the
    page's own last-change dates and hreflang alternates, and with ``images`` the
    images it shows, from the same one read of the page (the whole page when its
    images are wanted, else its head). ``content``: the page's own content as its
    tool rendered it (:attr:`Page.content_html`); its images are then read from
    it, every one the page's, and the page only to the end of its head.
    ``first``: the file's first bytes, read already from the regular file
    ``path`` by one read of :data:`FIRST_READ` bytes (:func:`first_read`): the
    reading goes on from there."""
    if not (noindex or canonical or redirects or dates or alternates or images):
        return _NO_FACTS
    markers = head_markers(noindex, canonical, redirects, dates, alternates, images)
    whole = images and content is None
    data, reader = _read_head(path, whole=whole, first=first)
    head = data[: reader.end]
    lowered = head.lower()
    # One reading of the head for every marker (a marker is rare).
    hits = words_present(head, markers)
    body = None
    if images:
        if content is None:
            # The body, read on from the head's end.
            markup, start = data, reader.end or 0
        else:
            # The page's own content, from its start.
            markup, start = content.encode("utf-8", "surrogatepass"), 0
        if words_present(markup[start:] if start else markup, _IMAGE_TAG_WORDS):
            body = BodyImages(markup, start, IMAGE_READ_LIMIT)
        else:
            body = BodyImages(markup, len(markup), IMAGE_READ_LIMIT)  # nothing to read: the same empty result
    in_content = content is not None
    if not hits and not (body and (body.content or body.elsewhere)):
        return _NO_FACTS
    plain = not hits
    if hits == [b"canonical"] and lowered.count(b"canonical") == 1:
        # The common case, kept cheap: the one canonical link names the page itself,
        # written exactly as its URL (as MkDocs, Material and Sphinx write it). Were
        # it inside a comment or a script, the head would name no canonical at all.
        plain = _own_canonical_link(url) in head
    if plain:
        # The head says nothing the checks look for: only the body's images are left.
        if body is None or not (body.content or body.elsewhere):
            return _NO_FACTS
        base = url
        if _BASE_WORD in lowered:
            found = _HeadParser()
            found.feed(_decode(b"".join(tag for tag in reader.tags() if _marker_pattern(()).search(tag)), head))
            found.close()
            if found.base_href is not None:
                base = _resolve(url, found.base_href) or url
        return _images_only(body, base, head, in_content)

    found = _HeadParser()
    # A tag can hold only the markers its head holds: each tag searched for those.
    wanted = _marker_pattern(tuple(hits)).search
    found.feed(_decode(b"".join(tag for tag in reader.tags() if wanted(tag)), head))
    found.close()

    # Relative URLs in the page resolve against its <base href>, if it has one.
    base = url
    if found.base_href is not None:
        base = _resolve(url, found.base_href) or url
    page_key = same_file_key(url)

    modified: tuple[str, ...] = ()
    if dates:
        modified = tuple(found.dates[name] for name in HEAD_DATE_PROPERTIES if name in found.dates)
        if b"datemodified" in lowered:
            modified += json_ld_modified(reader.scripts())
    declared: tuple[tuple[str, str], ...] = ()
    if alternates and found.hreflang_links:
        pairs = ((code, _resolve(base, href)) for code, href in found.hreflang_links)
        declared = tuple((code, target) for code, target in pairs if target is not None)

    canonical_target = None
    if canonical and found.canonical_hrefs:
        targets, keys = set(), set()
        for href in found.canonical_hrefs:
            target = _resolve(base, href)
            if target is None:
                continue
            key = same_file_key(target)
            if key != page_key:
                named = _name_reading(base, href)
                if named is not None and (same_file_key(named) == page_key or (same_page and same_page(named))):
                    key = page_key
                elif same_page is not None and same_page(target):
                    key = page_key
            targets.add(target)
            keys.add(key)
        # Conflicting canonical links cancel out: Google ignores them all then,
        # so the page stays a candidate for indexing.
        if len(keys) == 1 and page_key not in keys:
            canonical_target = min(targets)

    reason = None
    redirect_target = None
    if redirects and found.refresh_target is not None:
        target = _resolve(base, found.refresh_target)
        # A refresh to the page itself is a timed reload, not a redirect.
        if target is not None and same_file_key(target) != page_key:
            redirect_target = target
    if noindex and found.noindex:
        reason = "noindex"
    elif redirect_target is not None:
        reason = "redirect"
    if reason is None and canonical_target is not None:
        reason = "canonical"
    shown, uncertain, outside = (
        _body_images(body, base, found.images, head, in_content) if body is not None else ((), (), ())
    )
    return HeadFacts(reason, canonical_target, modified, declared, redirect_target, shown, uncertain, outside)


def _images_only(body: BodyImages, base: str, head: bytes, in_content: bool = False) -> HeadFacts:
    """The facts of a page whose head says nothing: the images its body shows
    (see :func:`_body_images`)."""
    shown, uncertain, outside = _body_images(body, base, [], head, in_content)
    return HeadFacts(images=shown, uncertain_images=uncertain, outside_images=outside)


def _body_images(
    body: BodyImages, base: str, meta: list[str], head: bytes, in_content: bool = False
) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """The page's images resolved against ``base`` (the head's, ``meta``, then
    the content element's, or the whole body's when it has none), those of them
    it does not place in a content element, and those outside it (see
    :class:`HeadFacts`). ``in_content``: ``body`` read the page's own content,
    where every image is the page's."""

    # A page with a content element shows its content there; the rest is chrome.
    # One without (a plain page) may show content anywhere: the build tells its
    # chrome by how many pages show an image.
    head_images = _resolved(meta, base, head) if meta else ()
    if in_content:
        # Content elements inside the content (raw HTML in Markdown) hold its
        # images as much as the rest of it does.
        return head_images + _resolved(body.content + body.elsewhere, base, head), head_images, ()
    if body.has_content:
        return head_images + _resolved(body.content, base, head), head_images, _resolved(body.elsewhere, base, head)
    everywhere = head_images + _resolved(body.elsewhere, base, head)
    return everywhere, everywhere, ()


def _resolved(references: list[str] | list[bytes], base: str, head: bytes) -> tuple[str, ...]:
    """The http(s) URLs ``references`` (text, or attribute values) make against ``base``."""
    out = []
    for reference in references:
        text = reference if isinstance(reference, str) else _decode_value(reference, head)
        target = _resolve(base, text)
        if target is not None:
            out.append(target)
    return tuple(out)


def _decode_value(value: bytes, head: bytes) -> str:
    """An attribute value as text, its character references resolved."""
    text = _decode(value, head)
    if "&" not in text:
        return text  # no reference to resolve (most URLs)
    import html

    return html.unescape(text)


_LD_JSON = deferred(rb"application/ld\+json", re.IGNORECASE)


def json_ld_modified(scripts: list[tuple[bytes, bytes]]) -> tuple[str, ...]:
    """The ``dateModified`` values of the JSON-LD blocks among a head's
    ``scripts`` (start tag, text): of the top object first, then of the ``@graph``
    nodes (as Yoast and other SEO plugins write them), a web page or article node
    before the others."""
    found: list[str] = []
    for tag, text in scripts:
        if not _LD_JSON.search(tag):
            continue
        try:
            data = json.loads(text.decode("utf-8", errors="replace"))
        except ValueError:
            continue  # broken JSON: crawlers pass over it too
        for node in data if isinstance(data, list) else [data]:
            if not isinstance(node, dict):
                continue
            if isinstance(node.get("dateModified"), str):
                found.append(node["dateModified"])
            graph = node.get("@graph")
            if isinstance(graph, list):
                nodes = [n for n in graph if isinstance(n, dict) and isinstance(n.get("dateModified"), str)]
                nodes.sort(key=lambda n: not _is_page_node(n))
                found += [n["dateModified"] for n in nodes]
    return tuple(found)


def _is_page_node(node: dict) -> bool:
    kinds = node.get("@type")
    kinds = kinds if isinstance(kinds, list) else [kinds]
    return any(
        isinstance(k, str) and (k.endswith("Page") or k.endswith("Article") or k == "BlogPosting") for k in kinds
    )


def first_read(path: str) -> tuple[bytes, os.stat_result] | None:
    """The first FIRST_READ bytes of the regular file ``path`` and its status
    (one open file for both), or None when it cannot be read or is not a regular
    file (inspect_built_page, reading it itself, says why)."""
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except OSError:
        return None
    try:
        data = os.read(fd, FIRST_READ)
        status = os.fstat(fd)
    except OSError:
        return None
    finally:
        os.close(fd)
    return (data, status) if stat.S_ISREG(status.st_mode) else None


def _read_head(path: Path | str, whole: bool = False, first: bytes | None = None) -> tuple[bytes, HeadReader]:
    """The start of the file, read until its head has ended (at most
    HEAD_READ_LIMIT bytes), and the reader that found where (``reader.end``);
    ``whole``: the whole file (at most PAGE_READ_LIMIT bytes), for its body too;
    ``first``: the first read's bytes, read already (see inspect_built_page).

    os.open and os.read rather than open(): the file object's buffer and checks
    cost about as much as the reading itself (4 of 13 microseconds a page).
    """
    reader = HeadReader()
    fd: int | None = None
    # A first read shorter than asked for, handed over, held the whole file.
    ended = first is not None and len(first) < FIRST_READ

    def more(size: int) -> bytes:
        nonlocal fd
        if fd is None:
            if ended:
                return b""
            fd = os.open(path, _OPEN_FLAGS)
            os.lseek(fd, len(data), os.SEEK_SET)
        return os.read(fd, size)

    try:
        if first is None:
            fd = os.open(path, _OPEN_FLAGS)
            data = os.read(fd, FIRST_READ)
            if not data and not stat.S_ISREG(os.fstat(fd).st_mode):
                # A FIFO without a writer reads as empty: no page, and nothing checked.
                raise OSError(errno.EINVAL, "not a regular file", str(path))
        else:
            data = first
        if data[:2] in _UTF16_BOMS:
            data = _utf16_head(more, data)
            reader.read(data, final=True)
            return data, reader
        if not whole and reader.read(data, final=ended):
            # Most heads end within the first read: no second read only to
            # find the end of the file.
            return data, reader
        for size in _READ_SIZES:
            # A regular file returns less than asked for only at its end, but a
            # read may also stop short (a signal, some network file systems).
            while len(data) < size:
                chunk = more(size - len(data))
                if not chunk:
                    break
                data += chunk
            # The reader goes on from where it stopped in the last read.
            if reader.read(data, final=len(data) < size or size == HEAD_READ_LIMIT):
                break
        if whole:
            # On from where the head's reads stopped: each byte is read once.
            pieces = [data]
            total = len(data)
            while total < PAGE_READ_LIMIT:
                chunk = more(min(1 << 20, PAGE_READ_LIMIT - total))
                if not chunk:
                    break
                pieces.append(chunk)
                total += len(chunk)
            data = b"".join(pieces)
        return data, reader
    finally:
        if fd is not None:
            os.close(fd)


def _utf16_head(more: Callable[[int], bytes], start: bytes) -> bytes:
    """The first HEAD_READ_LIMIT bytes of a UTF-16 page whose first bytes
    ``start`` (BOM included) were read, the rest read by ``more``, as UTF-8."""
    data = start
    while len(data) < HEAD_READ_LIMIT:
        chunk = more(HEAD_READ_LIMIT - len(data))
        if not chunk:
            break
        data += chunk
    encoding = _UTF16_BOMS[data[:2]]
    body = data[2 : len(data) - (len(data) % 2)]
    # A character cut in two by the read limit becomes U+FFFD, as a browser shows it.
    return body.decode(encoding, errors="replace").encode("utf-8")


class _HeadParser(HTMLParser):
    """Collects what the checks need from a page head, nothing else."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.noindex = False
        self.canonical_hrefs: list[str] = []
        self.refresh_target: str | None = None
        self.base_href: str | None = None
        # The first of each HEAD_DATE_PROPERTIES, and the hreflang links in order.
        self.dates: dict[str, str] = {}
        self.hreflang_links: list[tuple[str, str]] = []
        # og:image and twitter:image, in order.
        self.images: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in ("meta", "link", "base"):
            return
        # The first of repeated attributes counts (HTML standard, tokenizer).
        values = dict(reversed(attrs))
        if tag == "meta":
            self._meta(values)
        elif tag == "link":
            rel, href = values.get("rel"), values.get("href")
            if rel and href is not None:
                rels = rel.lower().split()
                if "canonical" in rels:
                    self.canonical_hrefs.append(href)
                hreflang = values.get("hreflang")
                if "alternate" in rels and hreflang:
                    self.hreflang_links.append((hreflang.strip(_HTML_WHITESPACE), href))
        else:
            href = values.get("href")
            # Only the first <base href> counts (HTML standard, "frozen base URL").
            if href is not None and self.base_href is None:
                self.base_href = href

    def _meta(self, values: dict[str, str | None]) -> None:
        content = values.get("content")
        if content is None:
            return
        name = (values.get("name") or "").strip(_HTML_WHITESPACE).lower()
        # Open Graph is written with property=; some themes use name= for it.
        kind = (values.get("property") or "").strip(_HTML_WHITESPACE).lower() or name
        if kind in IMAGE_META_PROPERTIES:
            self.images.append(content.strip(_HTML_WHITESPACE))
        if kind in HEAD_DATE_PROPERTIES and kind not in self.dates:
            self.dates[kind] = content.strip(_HTML_WHITESPACE)
        if name in _ROBOTS_META_NAMES:
            directives = _DIRECTIVE_SEPARATORS.split(content.lower())
            if _NOINDEX_DIRECTIVES.intersection(directives):
                self.noindex = True
        http_equiv = (values.get("http-equiv") or "").strip(_HTML_WHITESPACE).lower()
        # Browsers act on the first valid refresh only.
        if http_equiv == "refresh" and self.refresh_target is None:
            self.refresh_target = refresh_url(content)


def refresh_url(content: str) -> str | None:
    """The URL string a ``<meta http-equiv="refresh">`` content sends the browser to.

    Follows the HTML standard's "shared declarative refresh steps": returns
    ``None`` when ``content`` is invalid or names no URL (a timed reload of the
    page itself), else the URL as written (not yet resolved).
    """
    text, position = content, 0
    end = len(text)

    def skip_whitespace(at: int) -> int:
        while at < end and text[at] in _HTML_WHITESPACE:
            at += 1
        return at

    position = skip_whitespace(position)
    digits_start = position
    while position < end and text[position].isascii() and text[position].isdigit():
        position += 1
    if position == digits_start and (position >= end or text[position] != "."):
        return None
    while position < end and (text[position] == "." or (text[position].isascii() and text[position].isdigit())):
        position += 1
    if position < end:
        if text[position] not in ";," + _HTML_WHITESPACE:
            return None
        position = skip_whitespace(position)
        if position < end and text[position] in ";,":
            position += 1
        position = skip_whitespace(position)
    if position >= end:
        return None
    url_string = text[position:]
    # An optional "url =" prefix, letter case ignored, then an optional quote.
    if text[position : position + 3].lower() == "url":
        after_url = skip_whitespace(position + 3)
        if after_url < end and text[after_url] == "=":
            position = skip_whitespace(after_url + 1)
            url_string = text[position:]
            if position < end and text[position] in "'\"":
                quote = text[position]
                url_string = text[position + 1 :].split(quote, 1)[0]
    elif text[position] in "'\"":
        quote = text[position]
        url_string = text[position + 1 :].split(quote, 1)[0]
    url_string = _strip_url(url_string)
    return url_string or None


def _resolve(base: str, href: str) -> str | None:
    """``href`` made absolute against ``base``; None unless it is an http(s) URL
    (a canonical or refresh URL that is not one is a mistake crawlers pass over)."""
    return resolve_web_reference(base, _strip_url(href))


_ORIGIN = deferred(SCHEME + "[^/?#]*")


def _name_reading(base: str, href: str) -> str | None:
    """``href`` read as a file name written unencoded, as some generators write
    their own links (``#``, ``?`` and ``%`` are then characters of the name), or
    None when that reading is the URL reading."""
    href = _strip_url(href)
    if "#" not in href and "?" not in href and "%" not in href:
        return None
    origin = _ORIGIN.match(href)
    if origin is not None:
        return origin.group() + encode_path(href[origin.end() :])
    return _resolve(base, encode_path(href))


def _strip_url(value: str) -> str:
    # The URL parser drops leading and trailing C0 controls and spaces and every
    # tab and newline (WHATWG URL standard, "basic URL parser").
    stripped = value.strip(_C0_CONTROLS_AND_SPACE)
    return stripped.replace("\t", "").replace("\n", "").replace("\r", "")


def relevant_tags(head: bytes, markers: tuple[bytes, ...]) -> bytes:
    """The ``<meta>``, ``<link>`` and ``<base>`` tags the page that starts with
    ``head`` holds in its head (as a browser builds it) that hold one of
    ``markers`` (any ``<base>``)."""
    reader = HeadReader()
    reader.read(head, final=True)
    wanted = _marker_pattern(markers).search
    return b"".join(tag for tag in reader.tags() if wanted(tag))


@functools.lru_cache(maxsize=None)
def _marker_pattern(markers: tuple[bytes, ...]) -> re.Pattern[bytes]:
    return re.compile(b"|".join(re.escape(marker) for marker in (b"<base", *markers)), re.IGNORECASE)


@functools.lru_cache(maxsize=64)
def head_markers(
    noindex: bool, canonical: bool, redirects: bool, dates: bool, alternates: bool, images: bool
) -> tuple[bytes, ...]:
    """The words (lowercase) a head holds when the checks switched on may find
    something in it: a head holding none of them says nothing to them."""
    return (
        (_NOINDEX_MARKERS if noindex else ())
        + (_CANONICAL_MARKERS if canonical else ())
        + (_REFRESH_MARKERS if redirects else ())
        + (_DATE_MARKERS if dates else ())
        + (_HREFLANG_MARKERS if alternates else ())
        + (_IMAGE_MARKERS if images else ())
    )


def _own_canonical_link(url: str) -> bytes:
    """A canonical link naming ``url`` written exactly as it is (as MkDocs,
    Material and Sphinx write it)."""
    return b'rel="canonical" href="' + url.encode("utf-8", "surrogatepass") + b'"'


def quiet_facts(page: bytes, url: str, markers: tuple[bytes, ...], images: bool) -> HeadFacts | None:
    """What :func:`inspect_built_page` finds in the page published at ``url``,
    all of whose bytes are ``page``, for the checks whose :func:`head_markers`
    are ``markers`` (and ``images``), when its words say nothing to those checks:
    no facts at all, or only the images it shows (read from the page's start,
    no tag of its head read). None when its head must be read as a browser reads it.

    Whatever the head's end, its bytes are among the page's: a page holding
    none of the words holds none in its head; one whose one ``canonical`` is a
    link naming ``url`` as written names the page itself where that link is in
    the head, and nothing where it is not (in the body, a comment, a script).
    A ``<base>`` anywhere has the head read (the images resolve against it).
    """
    if page[:2] in _UTF16_BOMS:
        return None  # the words are in UTF-16
    present = words_present(page, _quiet_words(markers, images))
    hits = [word for word in present if word not in _PAGE_WORDS]
    if hits and not (
        hits == [b"canonical"] and page.lower().count(b"canonical") == 1 and _own_canonical_link(url) in page
    ):
        return None
    if not any(word in _IMAGE_TAG_WORDS for word in present):
        return _NO_FACTS  # no image, or images off
    if _BASE_WORD in present:
        return None
    # Read from the page's start: an image in a head starts the body, so the head
    # holds none, and the body reader passes over its tokens as the head's reader
    # would (see htmlscan._head_pass).
    body = BodyImages(page, 0, IMAGE_READ_LIMIT)
    if not (body.content or body.elsewhere):
        return _NO_FACTS
    head = b""
    if not all(reference.isascii() for reference in body.content + body.elsewhere):
        # Only a value that is not UTF-8 is decoded by the head's charset.
        reader = HeadReader()
        reader.read(page, final=True)
        head = page[: reader.end or 0]
    return _images_only(body, url, head)


# Shorter words that each stand for two markers holding them, where the words are
# searched for one at a time (without the compiled scans): one search through
# the page instead of two (each search reads it all when the words are absent,
# as they mostly are). A page holding the shorter word only ("bottom") is read.
# The compiled scans read the page once for all the words, so they look for each.
_WORDS_FOR_TWO = (
    (b"bot", (b"robots", b"googlebot")),
    (b"modified", (b"modified_time", b"datemodified")),
    (b":image", (b"og:image", b"twitter:image")),
)


# The words quiet_facts looks for besides a head's markers (none of which starts with "<").
_PAGE_WORDS = frozenset((*_IMAGE_TAG_WORDS, _BASE_WORD))


@functools.lru_cache(maxsize=16)
def _quiet_words(markers: tuple[bytes, ...], images: bool) -> tuple[bytes, ...]:
    """What quiet_facts searches a page for: ``markers``, or shorter words
    standing for two of them, then with ``images`` the image tags' starts and <base>."""
    words = list(markers)
    for word, pair in () if COMPILED_SCANS else _WORDS_FOR_TWO:
        if all(marker in words for marker in pair):
            words = [marker for marker in words if marker not in pair] + [word]
    return (*words, *(sorted(_PAGE_WORDS) if images else ()))


def _decode(tags: bytes, head: bytes) -> str:
    try:
        return tags.decode("utf-8")
    except UnicodeDecodeError:
        pass
    # Not UTF-8: honour the charset the head declares, as the attribute values
    # may hold non-ASCII URLs.
    declared = _META_CHARSET.search(head)
    if declared:
        try:
            encoding = codecs.lookup(declared.group(1).decode("ascii")).name
            # A page whose bytes could be read this far is no UTF-16 page: the HTML
            # standard reads a <meta> naming UTF-16 as UTF-8.
            if encoding.startswith("utf-16"):
                encoding = "utf-8"
            return tags.decode(encoding, errors="replace")
        except LookupError:
            pass
    return tags.decode("utf-8", errors="replace")
