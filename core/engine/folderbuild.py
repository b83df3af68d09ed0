"""``sitemapkit build``: a built folder's pages found, checked and dated on every core.

The same steps as :func:`~sitemapkit.build.build_site` given the pages of
:func:`walk_pages` (which ``find_pages`` hands adapters' way), without holding a
:class:`Page` or a ``Path`` per page: one walk with ``os.scandir`` hands the
pages' file names, in chunks, to worker processes (forked early, while this
process is small); each checks its pages with :func:`~sitemapkit.build.select_page`,
reads their file times and formats their entries with the encoder's own
``EntryWriter``, and sends back one bytes object per listed page: its sitemap loc,
its place in the walk and its entry. This process sorts those (by loc, then
walk order: the first of two pages with one URL wins, as in ``build_site``),
decides whether the file times can be believed (:mod:`~sitemapkit.lastmod`'s
rule, over all of them) and writes them with the same sharding and publishing
as every build.

Three kinds of site take ``build_site``'s path instead: dates from git (a
repository is dated in one pass over all of its files, not per chunk): the
folder in a git work tree that tracks some of its pages or ignores only some
(:func:`~sitemapkit.lastmod.git_leaves_to_file_times`), or holding one; pages
whose heads declare hreflang alternates (a group is checked across its pages);
and, with dates, two pages with one URL or a page too long to list (build_site
dates only the pages it lists, which decides whether file times are believed).
"""

from __future__ import annotations

import array
import collections
import datetime as dt
import heapq
import itertools
import os
import re
import shutil
from collections.abc import Iterator
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

from ..publish import publication as publish
from .pages import (
    allowed_images,
    broken_canonicals_notice,
    build_site,
    chrome_images,
    select_page,
    start,
    write_sitemaps,
)
from ..protocol.encoder import (
    LASTMOD_CLOSE,
    LASTMOD_OPEN,
    EncodeResult,
    ShardPlanner,
    EntryWriter,
    encode_entries,
    image_elements,
    image_host,
    loc_hash,
)
from ..protocol.errors import SitemapkitError
from ..site.htmlcheck import HeadFacts
from ..site.lastmod import file_times_notice, git_leaves_to_file_times, one_batch, trusted_file_time
from ..protocol.model import NOTICE_EXAMPLES, Excluded, Notice, Options, Page, Report
from ..protocol.robotsrules import RobotsRules
from ..protocol.urls import Scope
from ..site.folder import file_prefix, find_pages, folder_page, page_file, walk_pages
from .workers import CHUNK_PAGES, POOL_FROM_CHUNKS, can_fork, start_pool, worker_count


# Where each listed page's bytes split: "LOC\0" + its walk position in this many
# bytes + 1 when its lastmod is its file time (else 0) + its entry.
_ORDER_BYTES = 5
_LASTMOD_ELEMENT = re.compile(LASTMOD_OPEN.encode("ascii") + b"[^<]*" + LASTMOD_CLOSE.encode("ascii"))
_UTC = dt.timezone.utc


class _Found:
    """Pages checked: a chunk's in a worker, then the whole site's here."""

    __slots__ = (
        "listed",
        "excluded",
        "notices",
        "plausible",
        "common",
        "plausible_names",
        "too_old_names",
        "too_old_count",
        "alternates",
        "broken",
        "image_pages",
        "images_shown",
        "images_cut",
        "images_unwritten",
    )

    def __init__(self) -> None:
        #: One per page that may be listed: its sitemap loc, NUL, its walk
        #: position, whether it is dated by its file time, its entry (see _ORDER_BYTES).
        self.listed: list[bytes] = []
        self.excluded: list[Excluded] = []
        #: Each with the loc its page was given, to put them in page order.
        self.notices: list[tuple[str, Notice]] = []
        #: File times of the listed pages that may be real edits.
        self.plausible = array.array("d")
        #: The folder all dated pages lie in (relative; "" the site's own), or None.
        self.common: str | None = None
        #: The first few names (sorted) of the listed pages with plausible times,
        #: and of those with times before 1980 (see trim).
        self.plausible_names: list[str] = []
        self.too_old_names: list[str] = []
        self.too_old_count = 0
        #: Whether a page's head declares hreflang alternates.
        self.alternates = False
        #: Canonical links naming a page the site does not have, each with the
        #: loc its page was given.
        self.broken: list[tuple[str, str]] = []
        #: On how many listed pages each image (an absolute URL) is shown, in
        #: their content or around it, and how many listed pages were read: the
        #: site's chrome is told from them.
        self.image_pages: dict[str, int] = {}
        self.images_shown = 0
        #: Pages with more images than one entry lists.
        self.images_cut: list[str] = []
        #: Images of pages written in the text form, which has none.
        self.images_unwritten = 0

    def dated(self, name: str, stamp: float, plausible: bool) -> None:
        """A listed page ``name`` has the file time ``stamp``."""
        folder = name.rpartition("/")[0]
        self.common = folder if self.common is None else _common_folder(self.common, folder)
        if plausible:
            self.plausible.append(stamp)
            self.plausible_names.append(name)
        else:
            self.too_old_count += 1
            self.too_old_names.append(name)

    def trim(self) -> _Found:
        """Only the names a notice shows are kept."""
        self.plausible_names = heapq.nsmallest(NOTICE_EXAMPLES, self.plausible_names)
        self.too_old_names = heapq.nsmallest(NOTICE_EXAMPLES, self.too_old_names)
        return self

    def add(self, chunk: _Found) -> None:
        self.listed += chunk.listed
        self.excluded += chunk.excluded
        self.notices += chunk.notices
        self.plausible += chunk.plausible
        if chunk.common is not None:
            self.common = chunk.common if self.common is None else _common_folder(self.common, chunk.common)
        self.plausible_names += chunk.plausible_names
        self.too_old_names += chunk.too_old_names
        self.too_old_count += chunk.too_old_count
        self.alternates = self.alternates or chunk.alternates
        self.broken += chunk.broken
        for element, count in chunk.image_pages.items():
            self.image_pages[element] = self.image_pages.get(element, 0) + count
        self.images_shown += chunk.images_shown
        self.images_cut += chunk.images_cut
        self.images_unwritten += chunk.images_unwritten
        self.trim()


# Worker state, set once by _start_worker (fork copies the rest).
_worker: dict = {}


def _start_worker(options: Options, site_dir: str, rules: RobotsRules | None) -> None:
    scope = Scope(options.base_url)
    _worker.update(
        options=options,
        scope=scope,
        rules=rules,
        base=file_prefix(site_dir),
        site=site_dir,
        planner=ShardPlanner(options),
        dated=options.lastmod != "none",
    )


def _check_chunk(names: list[str], first: int) -> _Found:
    """In a worker: check, date and format the pages ``names`` (relative file
    names, the first at walk position ``first``)."""
    options: Options = _worker["options"]
    scope: Scope = _worker["scope"]
    rules = _worker["rules"]
    base: str = _worker["base"]
    planner: ShardPlanner = _worker["planner"]
    dated: bool = _worker["dated"]
    report = Report()
    result = EncodeResult()
    formatter = EntryWriter(options, scope, result)
    found = _Found()
    heads: dict[str, HeadFacts] = {}
    broken: list[str] = []
    output_dir = Path(_worker["site"])
    for position, name in enumerate(names, first):
        path = page_file(base, name)
        # The file time first, so that one Page serves the checks and the entry
        # (a page left out needed no stat, but few are).
        lastmod: dt.date | dt.datetime | None = None
        stamp = None
        if dated:
            try:
                stamp = os.stat(path).st_mtime
            except OSError:
                pass  # gone or unreadable: nothing to say about it
            else:
                if trusted_file_time(stamp):
                    lastmod = dt.datetime.fromtimestamp(int(stamp), _UTC)
        page = folder_page(name, path, lastmod=lastmod)
        noticed, broke = len(report.notices), len(broken)
        loc, may_list = select_page(page, scope, options, rules, report, heads, output_dir, broken)
        if len(report.notices) > noticed:
            found.notices += [(page.loc, notice) for notice in report.notices[noticed:]]
        if len(broken) > broke:
            found.broken += [(page.loc, text) for text in broken[broke:]]
        facts = heads.pop(loc, None) if heads and loc is not None else None
        if facts is not None and facts.alternates:
            # Checked across pages (every version must name the same group):
            # build_site's to do.
            found.alternates = True
        if not may_list or loc is None:
            continue
        # build_site's order: a date the head declares, else the file time.
        declared = facts.declared_date() if dated and facts is not None else None
        images = allowed_images(facts.images, scope, rules) if facts is not None and facts.images else ()
        if declared is not None or images:
            if declared is not None:
                lastmod, stamp = declared, None
            page = Page(page.loc, lastmod=lastmod, source=path, output=path, images=images)
        # Each page on its own: duplicates are found across chunks, below.
        formatter.previous = None
        entry = formatter.entry(page)
        if entry is None:
            continue
        if not planner.fits_alone(entry):
            result.excluded.append(Excluded(page.loc, "too long"))
            continue
        if options.images:
            found.images_shown += 1
            if facts is not None:
                for image in {*facts.images, *facts.outside_images}:
                    found.image_pages[image] = found.image_pages.get(image, 0) + 1
        # Bit 1: dated by its file time; bit 2: it shows images it does not place
        # in a content element (the chrome is looked for among them).
        flags = 1 if stamp is not None and lastmod is not None else 0
        if images and facts is not None and facts.uncertain_images:
            flags |= 2
        by_file_time = bytes([flags])
        order = position.to_bytes(_ORDER_BYTES, "big")
        found.listed.append(loc.encode("ascii") + b"\0" + order + by_file_time + entry)
        if stamp is not None:
            found.dated(name, stamp, trusted_file_time(stamp))
    found.excluded = report.excluded + result.excluded
    found.images_cut = result.images_cut
    found.images_unwritten = result.images_unwritten
    return found.trim()


def _common_folder(a: str, b: str) -> str:
    """The deepest folder holding both relative folders ("" is the top)."""
    if a == b or not a:
        return a
    if not b:
        return b
    parts = []
    for x, y in zip(a.split("/"), b.split("/")):
        if x != y:
            break
        parts.append(x)
    return "/".join(parts)


def _chunks(names: Iterator[str], size: int) -> Iterator[list[str]]:
    while chunk := list(itertools.islice(names, size)):
        yield chunk


def _uses_git(site_dir: Path, mode: str) -> bool:
    """Whether ``mode`` dates these pages from git (which build_site does in one
    pass for the whole repository)."""
    if mode == "git":
        return True  # git, or the notice that says why not
    if mode != "auto" or shutil.which("git") is None:
        return False
    # A build's output folder inside a work tree (Hugo's public/, Jekyll's _site/)
    # that git neither tracks nor half ignores: file times, as without git.
    return not git_leaves_to_file_times(os.path.abspath(site_dir))


def _build_site(site_dir: Path, options: Options, page_dates: str | None) -> Report:
    return build_site(sorted(find_pages(site_dir), key=lambda p: p.loc), options, site_dir, page_dates=page_dates)


def _has_duplicates(listed: list[bytes]) -> bool:
    """Whether two of the sorted entries have one loc."""
    previous = None
    for item in listed:
        loc = item[: item.index(b"\0")]
        if loc == previous:
            return True
        previous = loc
    return False


def build_folder(
    site_dir: Path | str,
    options: Options,
    workers: int | None = None,
    chunk_pages: int = CHUNK_PAGES,
    *,
    page_dates: str | None = None,
) -> Report:
    """``build_site`` for the pages :func:`walk_pages` finds in ``site_dir``,
    written into it (``page_dates`` as build_site takes it); ``workers``
    processes (default: one a core, 1 for none) check ``chunk_pages`` pages at
    a time."""
    site_dir = Path(site_dir)
    if not site_dir.is_dir():
        raise SitemapkitError(f"{str(site_dir)!r} is not a folder")
    if not _uses_git(site_dir, options.lastmod):
        # Held from the first read of the folder (robots.txt rules) to the switch.
        with publish.Publication(site_dir, options, read_robots=options.check_robots_rules) as publication:
            report = _build_folder(site_dir, options, publication, workers, chunk_pages, page_dates)
        if report is not None:
            return report
    return _build_site(site_dir, options, page_dates)


def _build_folder(
    site_dir: Path,
    options: Options,
    publication: publish.Publication,
    workers: int | None,
    chunk_pages: int,
    page_dates: str | None,
) -> Report | None:
    """build_folder's own path; None (nothing written) where build_site's is needed."""
    report, scope, rules = start(options, publication)
    found = _Found()
    # Pages in a repository of their own below the folder are dated by its
    # history (build_site); the folder's own repository was judged already (_uses_git).
    repositories: list[str] | None = [] if options.lastmod == "auto" and shutil.which("git") else None
    chunks = _chunks(walk_pages(site_dir, repositories), chunk_pages)
    # Processes pay for themselves from a few chunks on (starting them costs about
    # what checking a thousand pages does).
    ahead = list(itertools.islice(chunks, POOL_FROM_CHUNKS))
    small = len(ahead) < POOL_FROM_CHUNKS
    if workers is None and not small:
        workers = worker_count()
    if small or workers is None or workers <= 1 or not can_fork():
        # A small site, one core, or no fork (Windows, other threads): no processes.
        _start_worker(options, str(site_dir), rules)
        position = 0
        for names in itertools.chain(ahead, chunks):
            found.add(_check_chunk(names, position))
            position += len(names)
    else:
        pool = start_pool(_start_worker, (options, str(site_dir), rules), workers)
        try:
            pending: collections.deque = collections.deque()
            position = 0
            for names in itertools.chain(ahead, chunks):
                pending.append(pool.submit(_check_chunk, names, position))
                position += len(names)
                # A few chunks ahead keep every core busy; results in walk order.
                while len(pending) > 2 * workers:
                    found.add(pending.popleft().result())
            while pending:
                found.add(pending.popleft().result())
        except BrokenProcessPool:
            # A worker was killed (out of memory, by a user): nothing is written
            # yet, and build_site's path, which can read every page itself, does it.
            return None
        finally:
            pool.shutdown(cancel_futures=True)

    listed = found.listed
    listed.sort()
    if (
        found.alternates
        or any(prefix for prefix in repositories or ())  # "" is the folder's own
        or (
            options.lastmod != "none"
            and (_has_duplicates(listed) or any(e.reason == "too long" for e in found.excluded))
        )
    ):
        # Pages in a git repository, or declaring hreflang alternates (each group
        # is checked across its pages); or two pages with one URL, or a page too
        # long to list (build_site dates only the pages it lists, and so decides
        # whether file times are believable without the others): build_site's path.
        del listed[:]
        return None
    report.excluded += found.excluded
    # Notices in page order, as build_site gives them. (Every HTML file the host
    # serves was walked and handed over: none is left to report as not a page.)
    found.notices.sort(key=lambda pair: pair[0])
    report.notices += [notice for _, notice in found.notices]
    if found.broken:
        found.broken.sort(key=lambda pair: pair[0])
        report.notices.append(broken_canonicals_notice([text for _, text in found.broken]))
    flat = one_batch(found.plausible)
    if flat or found.too_old_count:
        below = len(found.common) + 1 if found.common else 0
        notice = file_times_notice(
            [n[below:] for n in found.plausible_names] if flat else [],
            [n[below:] for n in found.too_old_names],
            len(found.plausible) if flat else 0,
            found.too_old_count,
            page_dates=page_dates,
        )
        if notice is not None and options.lastmod_warnings:
            report.notices.append(notice)
        elif notice is not None:
            # Still said, but as advice, which strict builds do not fail on.
            report.advice.append(notice.message)
    found.plausible = array.array("d")

    # Taken from the end, each page's bytes freed once its entry is encoded.
    listed.reverse()

    # Images on most pages are the site's chrome: taken out of the entries made
    # in the workers, which saw a chunk each.
    writer = EntryWriter(options, scope, EncodeResult())
    chrome = {writer.image_element(image) for image in chrome_images(found.image_pages, found.images_shown)}
    found.image_pages = {}
    hosts: dict[str, int] = {}

    def entries(result: EncodeResult) -> Iterator[tuple[bytes, str, int, bool]]:
        result.images_cut += found.images_cut
        result.images_unwritten += found.images_unwritten
        result.image_hosts = hosts
        previous = None
        while listed:
            item = listed.pop()
            cut = item.index(b"\0")
            loc = item[:cut]
            if loc == previous:
                report.excluded.append(Excluded(loc.decode("ascii"), "duplicate"))
                continue
            previous = loc
            entry = item[cut + 2 + _ORDER_BYTES :]
            flags = item[cut + 1 + _ORDER_BYTES]
            if flat and flags & 1:
                # One moment's file times are no page's last change.
                entry = _LASTMOD_ELEMENT.sub(b"", entry)
            for element in image_elements(entry):
                if element in chrome and flags & 2:
                    entry = entry.replace(element, b"", 1)
                else:
                    host = image_host(element)
                    hosts[host] = hosts.get(host, 0) + 1
            yield entry, loc.decode("ascii"), loc_hash(loc), False

    return write_sitemaps(lambda result: encode_entries(entries(result), options, result), publication, report)
