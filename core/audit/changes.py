"""What changed at a deploy: the sitemap set a site folder holds now against the
one published before, URL by URL.

Both sets are read as ``check`` reads sitemaps (its byte and gzip limits, its
parser); the old one may be a folder or a live site, fetched with
:mod:`.fetch` (robots.txt and sitemap files only, on the host named). A shard
whose name and bytes are the same on both sides holds the same URLs with the
same dates, so it is not parsed on either side; a shard sitemapkit named by its
content (``sitemap-<hash><crc32>.xml``) and the new set still names is not even
fetched from the live site.

A URL is ``added`` (only in the new set), ``removed`` (only in the old one) or
``updated`` (in both, with lastmods that name different moments). A URL
without lastmod on either side is not ``updated``: nothing says it changed, and
IndexNow asks for changed URLs only.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
import xml.parsers.expat
import zlib
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

from ..protocol.dates import lastmod_instant
from ..protocol.encoder import SITEMAP_NS
from ..protocol.errors import SitemapkitError
from ..protocol.limits import MAX_BYTES_CEILING
from ..protocol.robots import decode_robots_txt
from ..protocol.urls import Scope
from ..protocol.filenames import content_named_pattern
from .check import LimitError, SiteFolder, parse_sitemap, read_limited, robots_sitemap_lines, text_sitemap_lines
from .fetch import DEFAULT_TIMEOUT, FetchError, request, sitemap_path

KINDS = ("added", "updated", "removed")
# Answers that mean "nothing is published here".
_NOT_THERE = frozenset({404, 410})


@dataclasses.dataclass(frozen=True)
class Change:
    url: str
    kind: str
    #: The new lastmod (added, updated) or the old one (removed), as written.
    lastmod: str | None = None


@dataclasses.dataclass
class ChangeList:
    """Every URL added, updated or removed between two sitemap sets."""

    #: The scheme and host of the new set's URLs (``https://example.org/``).
    site: str
    #: The old set, as the user named it.
    since: str
    published_before: bool
    changes: list[Change] = dataclasses.field(default_factory=list)
    #: Sitemap files the same on both sides, left unparsed.
    unchanged_files: int = 0
    compared_files: int = 0

    def counts(self) -> dict[str, int]:
        return {kind: sum(1 for c in self.changes if c.kind == kind) for kind in KINDS}

    def summary(self) -> str:
        if not self.published_before:
            listed = (
                f"every URL of the new set ({len(self.changes):,}) listed as added (--all)"
                if self.changes
                else "nothing listed (--all lists every URL as added)"
            )
            return f"sitemapkit changes: no sitemap was published before at {self.since}; {listed}"
        counts = self.counts()
        total = len(self.changes)
        return (
            f"sitemapkit changes: {total:,} URL{'s' if total != 1 else ''} changed since {self.since}: "
            + ", ".join(f"{counts[kind]:,} {kind}" for kind in KINDS)
            + f" ({self.unchanged_files} of {self.compared_files} sitemap files unchanged, not parsed)"
        )

    def to_json(self) -> str:
        data = {
            "site": self.site,
            "since": self.since,
            "published_before": self.published_before,
            "counts": self.counts(),
            "changes": [dataclasses.asdict(change) for change in self.changes],
        }
        return json.dumps(data, indent=1, ensure_ascii=False) + "\n"

    @classmethod
    def from_json(cls, text: str, name: str) -> ChangeList:
        """A change list ``sitemapkit changes --output`` wrote; ``name``: the file,
        for the one line a broken one gets."""
        try:
            data = json.loads(text)
            changes = [Change(str(item["url"]), str(item["kind"]), item.get("lastmod")) for item in data["changes"]]
            site = str(data["site"])
        except (ValueError, KeyError, TypeError):
            raise SitemapkitError(f"{name} is not a change list written by sitemapkit changes --output") from None
        return cls(site, str(data.get("since", "")), bool(data.get("published_before", True)), changes)


class _Place:
    """Where a sitemap set is read from: a folder or a live site."""

    where: str

    def entries(self) -> list[str] | None:
        """The URLs (or, in a folder, the names) of the set's entry points; None
        when nothing is published there."""
        raise NotImplementedError

    def read(self, url: str, named_by: str) -> bytes | None:
        """The bytes of the sitemap file ``url``, inflated; None when it is not there."""
        raise NotImplementedError

    def key(self, url: str) -> str:
        """What names the file on both sides: its path below the set's folder."""
        raise NotImplementedError


class _Folder(_Place):
    def __init__(self, folder: Path | str, filename: str, base_url: str | None, max_bytes: int) -> None:
        if not Path(folder).is_dir():
            raise SitemapkitError(f"{str(folder)!r} is not a folder")
        self.where = str(folder)
        self.site = SiteFolder(folder)
        self.filename = filename
        self.scope = Scope(base_url) if base_url else None
        self.max_bytes = max_bytes

    def entries(self) -> list[str] | None:
        found = []
        robots, _ = self.site.file("robots.txt")
        if robots is not None and self.scope is not None:
            text = decode_robots_txt(robots.read_bytes(), str(robots))
            found += [url for _, url in robots_sitemap_lines(text) if self.scope.file_below(url)]
        path, _ = self.site.file(self.filename)
        if path is not None:
            found.insert(0, self.filename)
        return found or None

    def key(self, url: str) -> str:
        if "://" not in url:
            return url
        if self.scope is not None:
            below = self.scope.file_below(url)
            if below:
                return below
        # Without a base URL, a sitemap an index names is looked for at the
        # folder's root, where sitemapkit writes every shard.
        return urlsplit(url).path.rpartition("/")[2]

    def read(self, url: str, named_by: str) -> bytes | None:
        name = self.key(url)
        path, why_not = self.site.file(name)
        if path is None:
            if why_not and "outside" in why_not:
                raise SitemapkitError(f"{url}, named by {named_by}, {why_not}; not opened")
            return None
        try:
            with open(path, "rb") as handle:
                return read_limited(handle, name, self.max_bytes)
        except LimitError as error:
            raise SitemapkitError(f"{path}: {error}") from None
        except (zlib.error, EOFError) as error:
            raise SitemapkitError(f"{path}: not a valid gzip file ({error})") from None


class _LiveSite(_Place):
    """A published site, from the URL of its robots.txt, sitemap or index. Only
    that host is asked, and only for robots.txt and sitemap files: a sitemap
    another file names is asked for at its path on this host."""

    def __init__(self, url: str, max_bytes: int, timeout: float) -> None:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise SitemapkitError(f"--since {url!r} is neither a folder nor an http(s) URL")
        if not sitemap_path(url, "robots.txt or sitemap"):
            raise SitemapkitError(
                f"--since {url}: give the URL of the live site's robots.txt, sitemap or index "
                "(a file ending in .xml, .txt or .gz); nothing else is fetched"
            )
        self.where = url
        self.origin = f"{parts.scheme}://{parts.netloc}"
        self.max_bytes, self.timeout = max_bytes, timeout

    def _get(self, url: str, named_by: str) -> bytes | None:
        what = url if not named_by else f"{url} (named by {named_by})"
        response = request(
            "GET",
            url,
            timeout=self.timeout,
            max_bytes=self.max_bytes,
            allowed="robots.txt or sitemap",
            what=what,
        )
        if response.status in _NOT_THERE:
            return None
        if response.status != 200:
            raise FetchError(f"{what} answered HTTP {response.status}; cannot tell what was published")
        if urlsplit(url).path.endswith(".gz") and response.body[:2] == b"\x1f\x8b":
            import io

            try:
                return read_limited(io.BytesIO(response.body), ".gz", self.max_bytes)
            except LimitError as error:
                raise FetchError(f"{what}: {error}") from None
            except (zlib.error, EOFError) as error:
                raise FetchError(f"{what}: not a valid gzip file ({error})") from None
        return response.body

    def entries(self) -> list[str] | None:
        if urlsplit(self.where).path != "/robots.txt":
            return [self.where]
        data = self._get(self.where, "")
        if data is None:
            return None
        try:
            text = decode_robots_txt(data, self.where)
        except SitemapkitError:
            raise SitemapkitError(f"{self.where} is not UTF-8 text; its Sitemap: lines cannot be read") from None
        return [url for _, url in robots_sitemap_lines(text)] or None

    def key(self, url: str) -> str:
        return urlsplit(url).path.rpartition("/")[2]

    def read(self, url: str, named_by: str) -> bytes | None:
        parts = urlsplit(url)
        here = self.origin + (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        if not sitemap_path(here, "sitemap"):
            raise SitemapkitError(
                f"{url}, named by {named_by}, is not a sitemap file name (.xml, .txt, .gz); not fetched"
            )
        return self._get(here, named_by)


def _root(raw: bytes) -> tuple[str, str] | None:
    """The namespace and name of the root element of ``raw``, read no further;
    None for bytes that are no XML (a text sitemap)."""
    parser = xml.parsers.expat.ParserCreate(namespace_separator=" ")
    found: list[tuple[str, str]] = []

    class _Found(Exception):
        pass

    def start(tag: str, attrs: dict) -> None:
        ns, _, local = tag.rpartition(" ")
        found.append((ns, local))
        raise _Found

    parser.StartElementHandler = start
    try:
        parser.Parse(raw, True)
    except _Found:
        pass
    except xml.parsers.expat.ExpatError:
        return None
    return found[0] if found else None


@dataclasses.dataclass
class _File:
    url: str
    named_by: str
    kind: str  # "urlset", "text"
    digest: bytes
    #: The bytes, kept for a live site's files that differ (fetched once).
    raw: bytes | None = None


def _walk(
    place: _Place,
    side: str,
    entries: list[str],
    twins: dict[str, _File] | None = None,
    unchanged: set[str] | None = None,
    content_named: re.Pattern[str] | None = None,
) -> tuple[list[_File], list[str], bool]:
    """Every sitemap file of the set at ``place`` from its ``entries``, indexes
    followed, shards not parsed; the URLs its indexes name; and whether any
    entry point was there.

    With ``twins`` (the other side's files by key), a file whose name and bytes
    the other side has too goes into ``unchanged`` and not into the result, and a
    content-named shard the other side names is taken as the same without being
    read at all.
    """
    files: list[_File] = []
    seen: set[str] = set()
    todo = [(entry, "") for entry in entries]
    named: list[str] = []
    found = False
    while todo:
        url, named_by = todo.pop(0)
        key = place.key(url)
        if key in seen:
            continue
        seen.add(key)
        twin = twins.get(key) if twins is not None else None
        if twin is not None and unchanged is not None and named_by and content_named and content_named.match(key):
            unchanged.add(key)
            continue
        raw = place.read(url, named_by or "the entry point")
        where = url if not named_by else f"{url} (named by {named_by})"
        if raw is None:
            if not named_by:
                continue
            raise SitemapkitError(f"{where} is missing from the {side} set")
        found = True
        digest = hashlib.blake2b(raw).digest()
        if twin is not None and unchanged is not None and twin.digest == digest:
            unchanged.add(key)
            continue
        keep = raw if isinstance(place, _LiveSite) else None
        root = _root(raw)
        if key.endswith((".txt", ".txt.gz")) and root is None:
            files.append(_File(url, named_by, "text", digest, keep))
            continue
        if root != (SITEMAP_NS, "sitemapindex"):
            # A urlset, or bytes that are none: read (and refused) only if the
            # other side has other bytes under this name.
            files.append(_File(url, named_by, "urlset", digest, keep))
            continue
        parsed = parse_sitemap(raw)
        if parsed.error is not None:
            raise SitemapkitError(f"{where} in the {side} set: line {parsed.error[0]}: {parsed.error[1]}")
        for entry in parsed.entries:
            loc = entry.field("loc")
            if loc:
                named.append(loc)
                todo.append((loc, url))
    return files, named, found


def _entries(place: _Place, item: _File, side: str) -> Iterator[tuple[str, str | None]]:
    raw = item.raw if item.raw is not None else place.read(item.url, item.named_by or "the entry point")
    where = item.url if not item.named_by else f"{item.url} (named by {item.named_by})"
    if raw is None:
        raise SitemapkitError(f"{where} went missing while it was read")
    if item.kind == "text":
        try:
            yield from ((url, None) for _, url in text_sitemap_lines(raw))
        except UnicodeDecodeError:
            raise SitemapkitError(f"{where} in the {side} set is not UTF-8 text") from None
        return
    parsed = parse_sitemap(raw)
    if parsed.root != "urlset" or parsed.root_namespace != SITEMAP_NS:
        raise SitemapkitError(f"{where} in the {side} set is not a sitemap (no sitemaps.org <urlset>)")
    if parsed.error is not None:
        raise SitemapkitError(f"{where} in the {side} set: line {parsed.error[0]}: {parsed.error[1]}")
    for entry in parsed.entries:
        loc = entry.field("loc")
        if loc:
            yield loc, entry.field("lastmod")


def _same_moment(old: str | None, new: str | None) -> bool:
    if old is None or new is None:
        # Nothing says the page changed: a date that appears or goes (a deeper
        # or shallower clone) is no edit.
        return True
    try:
        return lastmod_instant(old) == lastmod_instant(new)
    except SitemapkitError:
        return old == new


def _origin(url: str | None) -> str | None:
    parts = urlsplit(url or "")
    return f"{parts.scheme}://{parts.netloc}/" if parts.scheme in ("http", "https") and parts.netloc else None


def change_list(
    site_dir: Path | str,
    since: str,
    *,
    filename: str = "sitemap.xml",
    base_url: str | None = None,
    all_if_new: bool = False,
    max_bytes: int = MAX_BYTES_CEILING,
    timeout: float = DEFAULT_TIMEOUT,
) -> ChangeList:
    """The URLs added, updated and removed from the set ``since`` names (a folder,
    or the http(s) URL of a live robots.txt, sitemap or index) to the one
    ``site_dir`` holds. With nothing published before, the list says so and is
    empty, unless ``all_if_new``: then every URL is ``added``."""
    new = _Folder(site_dir, filename, base_url, max_bytes)
    new_entry_points = new.entries()
    new_files, new_named, _ = _walk(new, "new", new_entry_points or [])
    if not new_files:
        raise SitemapkitError(f"{str(site_dir)!r} holds no sitemap ({filename}); build the site first")
    old: _Place = (
        _LiveSite(since, max_bytes, timeout) if "://" in since else _Folder(since, filename, base_url, max_bytes)
    )
    unchanged: set[str] = set()
    twins = {new.key(item.url): item for item in new_files}
    old_files, _, published = _walk(old, "old", old.entries() or [], twins, unchanged, content_named_pattern(filename))
    new_entries: dict[str, str | None] = {}
    for item in new_files:
        if new.key(item.url) not in unchanged:
            for loc, lastmod in _entries(new, item, "new"):
                new_entries[loc] = lastmod
    site = _origin(base_url) or next(filter(None, map(_origin, new_named)), None)
    if site is None:
        # The entry point is a urlset: its URLs name the host.
        first = next(iter(new_entries), None) or next((loc for loc, _ in _entries(new, new_files[0], "new")), None)
        site = _origin(first) or ""
    result = ChangeList(site, since, published, compared_files=len(new_files))
    if not published:
        if all_if_new:
            result.changes = [Change(loc, "added", lastmod) for loc, lastmod in sorted(new_entries.items())]
        return result
    old_entries: dict[str, str | None] = {}
    for item in old_files:
        for loc, lastmod in _entries(old, item, "old"):
            old_entries[loc] = lastmod
    result.unchanged_files = len(unchanged)
    changes = []
    for loc, lastmod in new_entries.items():
        if loc not in old_entries:
            changes.append(Change(loc, "added", lastmod))
        elif not _same_moment(old_entries[loc], lastmod):
            changes.append(Change(loc, "updated", lastmod))
    changes += [Change(loc, "removed", lastmod) for loc, lastmod in old_entries.items() if loc not in new_entries]
    result.changes = sorted(changes, key=lambda c: (c.url, c.kind))
    return result
