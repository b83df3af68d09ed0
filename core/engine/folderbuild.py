"""``sitemapkit build``: a built folder's pages found, checked and dated on every core.

The engine's steps (:mod:`~sitemapkit.engine.pages`) for the pages of
:func:`walk_pages` (which ``find_pages`` hands adapters' way), without holding a
:class:`Page` or a ``Path`` per page: one walk with ``os.scandir`` hands the
pages' file names, in chunks, to worker processes (:mod:`~sitemapkit.engine.workers`);
each checks its pages with :func:`~sitemapkit.engine.selection.select_page`,
reads their file times and formats their entries with the encoder's own
``EntryWriter``, and sends back one bytes object per listed page (its sitemap
loc, its place in the walk and its entry) and the verdicts of the heads that
said something. This process sorts the entries (by loc, then walk order: the
first of two pages with one URL wins, as in ``build_site``), decides whether
the file times can be believed (:mod:`~sitemapkit.site.lastmod`'s rule, over all
of them) and writes them with the same sharding and publishing as every build.

Where a site needs more than one chunk at a time can give, the same walk and
the same head reads go through :func:`~sitemapkit.engine.pages.build_pages`,
inside the same publication: dates from git (a repository is dated in one pass
over all of its files): the folder in a git work tree that tracks some of its
pages or ignores only some (:func:`~sitemapkit.site.lastmod.git_leaves_to_file_times`),
or holding one, where the workers only read heads; pages whose heads declare
hreflang alternates (a group is checked across its pages); and, with dates, two
pages with one URL or a page too long to list (only the listed pages' file
times decide whether file times are believed). Nothing is walked or read twice:
the pages are made from the names walked, and their heads' verdicts are the
workers'.
"""

from __future__ import annotations

import array
import datetime as dt
import heapq
import itertools
import operator
import os
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from ..protocol.dates import moment_of_timestamp
from ..protocol.encoder import (
    LASTMOD_CLOSE,
    LASTMOD_OPEN,
    EncodeResult,
    EntryWriter,
    ShardPlanner,
    SitemapFile,
    encode_entry_batches,
    image_elements,
    image_host,
    loc_hashes_below,
)
from ..protocol.errors import SitemapkitError
from ..protocol.model import NOTICE_EXAMPLES, Excluded, Notice, Options, Page, Report, is_error_page
from ..protocol.patterns import deferred
from ..protocol.robotsrules import RobotsRules
from ..protocol.urls import NAME_NOT_PATH, Scope, path_of_file
from ..publish import publication as publish
from ..site.folder import file_prefix, folder_page, page_file, walk_pages
from ..site.htmlcheck import FIRST_READ, HeadFacts, first_read, head_markers, quiet_facts
from ..site.lastmod import file_times_notice, git_installed, git_leaves_to_file_times, one_batch, trusted_file_time
from .pages import allowed_images, build_pages, chrome_images, write_sitemaps
from .selection import (
    NOTHING_SAID,
    HeadVerdict,
    broken_canonicals_notice,
    build_context,
    check_base_against_canonicals,
    head_verdict,
    images_alone,
    select_page,
)
from .workers import CHUNK_PAGES, POOL_FROM_CHUNKS, Workers, pool_pays

if TYPE_CHECKING:
    from .urllist import BlockFormatter

# Where each listed page's bytes split: "LOC\0" (its loc below the base folder,
# Scope.path_below) + its walk position in this many bytes + 1 when its lastmod is
# its file time (else 0) + its entry.
_ORDER_BYTES = 5
_LASTMOD_ELEMENT = deferred(LASTMOD_OPEN.encode("ascii") + b"[^<]*" + LASTMOD_CLOSE.encode("ascii"))


class _CheckedPages:
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
        "image_hosts",
        "verdicts",
        "reread",
    )

    def __init__(self) -> None:
        #: One per page that may be listed: its sitemap loc below the base folder
        #: (every loc starts with it: kept once, not once a page), NUL, its walk
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
        #: The images the entries hold, by host (see EncodeResult.image_hosts).
        self.image_hosts: dict[str, int] = {}
        #: What the heads that said something said (see select_page), each with
        #: its page's walk position: build_pages' input where it is needed.
        self.verdicts: list[tuple[int, HeadVerdict]] = []
        #: The walk positions of the pages listed with their images from a
        #: chunk's block (see _check_chunk): build_pages reads their heads again
        #: where it is needed, since sending each one's verdict would cost every
        #: build a pickling and the memory of its images.
        self.reread = array.array("q")

    def dated(self, name: str, stamp: float, plausible: bool) -> None:
        """A listed page ``name`` has the file time ``stamp``."""
        folder = name.rpartition("/")[0]
        self.common = folder if self.common is None else _common_folder(self.common, folder)
        self._time(name, stamp, plausible)

    def _time(self, name: str, stamp: float, plausible: bool) -> None:
        if plausible:
            self.plausible.append(stamp)
            self.plausible_names.append(name)
        else:
            self.too_old_count += 1
            self.too_old_names.append(name)

    def all_dated(self, names: list[str], stamps: list[float]) -> None:
        """:meth:`dated` for many listed pages at once, ``names`` (in walk order)
        with their file times ``stamps``."""
        if not names:
            return
        # The folder all of them lie in: their names' common start, to its last "/".
        start = os.path.commonprefix(names)
        folder = start[: max(start.rfind("/"), 0)]
        self.common = folder if self.common is None else _common_folder(self.common, folder)
        plausible = list(map(trusted_file_time, stamps))
        if all(plausible):
            self.plausible.extend(stamps)
            self.plausible_names += names
            return
        for name, stamp, is_plausible in zip(names, stamps, plausible):
            self._time(name, stamp, is_plausible)

    def count_images(self, facts: HeadFacts) -> None:
        """A listed page shows ``facts``' images, in its content or around it."""
        for image in {*facts.images, *facts.outside_images}:
            self.image_pages[image] = self.image_pages.get(image, 0) + 1

    def trim(self) -> _CheckedPages:
        """Only the names a notice shows are kept."""
        self.plausible_names = heapq.nsmallest(NOTICE_EXAMPLES, self.plausible_names)
        self.too_old_names = heapq.nsmallest(NOTICE_EXAMPLES, self.too_old_names)
        return self

    def add(self, chunk: _CheckedPages) -> None:
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
        for host, count in chunk.image_hosts.items():
            self.image_hosts[host] = self.image_hosts.get(host, 0) + count
        self.verdicts += chunk.verdicts
        self.reread += chunk.reread
        self.trim()


class _FolderChecker(NamedTuple):
    """What a process checking a folder's pages holds (see workers.Workers)."""

    options: Options
    scope: Scope
    rules: RobotsRules | None
    base: str
    site: Path
    planner: ShardPlanner
    dated: bool
    #: False where build_pages takes over (git dates): only heads are read.
    entries: bool
    #: The words a head that says something holds (htmlcheck.head_markers),
    #: where short pages that hold none are listed without a reading of their
    #: head (see _check_chunk); None where every page goes through select_page.
    markers: tuple[bytes, ...] | None
    formatter: BlockFormatter


def _folder_checker(options: Options, site_dir: str, rules: RobotsRules | None, entries: bool) -> _FolderChecker:
    # Imported here: urllist makes its default entry parts (an Options) when
    # imported, which a run that builds no folder need not pay.
    from .urllist import BlockFormatter

    # Exclude globs and robots.txt rules judge each URL in select_page.
    quick = entries and rules is None and not options.exclude
    return _FolderChecker(
        options,
        Scope(options.base_url),
        rules,
        file_prefix(site_dir),
        Path(site_dir),
        ShardPlanner(options),
        options.lastmod != "none",
        entries,
        head_markers(
            options.check_noindex,
            options.check_canonical,
            options.check_redirects,
            options.lastmod != "none",
            True,
            options.images,
        )
        if quick
        else None,
        BlockFormatter(options),
    )


_NAME_NOT_PATH = deferred(NAME_NOT_PATH)


def _check_chunk(checker: _FolderChecker, names: list[str], first: int) -> _CheckedPages:
    """Check, date and format the pages ``names`` (relative file names, the
    first at walk position ``first``).

    A page whose head says nothing to the checks (most pages of most sites),
    under a name that is its URL path, is listed without a Page or an entry of
    its own: the chunk's such pages are formatted as one block of URL and date
    lines by the block formatting ``generate`` uses (the same bytes as
    EntryWriter's). One read of the page's first FIRST_READ bytes serves its
    file time and its head: a page it holds whole that holds none of the words
    the checks look for needs no reading of its head as a browser reads it,
    only the images it shows read, from its start (htmlcheck.quiet_facts);
    another one's head is read on from there. The
    other pages (and those under other names) go through select_page.
    """
    options, scope, rules, base, output_dir, planner, dated, entries, markers, formatter = checker
    report = Report()
    result = EncodeResult()
    writer = EntryWriter(options, scope, result)
    found = _CheckedPages()
    heads: dict[str, HeadFacts] = {}
    broken: list[str] = []
    # The pages that said nothing: walk position, name, URL path, file time.
    quiet: list[tuple[int, str, str, float | None]] = []
    # Of those, the ones that show images (by their place in quiet): what they show.
    pictured: dict[int, HeadFacts] = {}
    plain_names = markers is not None and not _NAME_NOT_PATH.search("/".join(names))

    def check(
        position: int, name: str, path: str, stamp: float | None, start: bytes | None, said: HeadVerdict | None
    ) -> None:
        lastmod: dt.date | dt.datetime | None = None
        if stamp is not None and trusted_file_time(stamp):
            lastmod = moment_of_timestamp(stamp)
        page = folder_page(name, path, lastmod=lastmod)
        noticed, broke = len(report.notices), len(broken)
        loc, may_list, verdict = select_page(
            page, scope, options, rules, report, heads, output_dir, broken, said, start
        )
        verdict = said if verdict is None else verdict
        if verdict is not None and verdict is not NOTHING_SAID:
            found.verdicts.append((position, verdict))
        if not entries:
            return
        if len(report.notices) > noticed:
            found.notices += [(page.loc, notice) for notice in report.notices[noticed:]]
        if len(broken) > broke:
            found.broken += [(page.loc, text) for text in broken[broke:]]
        facts = heads.pop(loc, None) if heads and loc is not None else None
        if facts is not None and facts.alternates:
            # Checked across pages (every version must name the same group):
            # build_pages' to do.
            found.alternates = True
        if not may_list or loc is None:
            return
        # build_pages' order: a date the head declares, else the file time.
        declared = facts.declared_date() if dated and facts is not None else None
        images = allowed_images(facts.images, scope, rules) if facts is not None and facts.images else ()
        if declared is not None or images:
            if declared is not None:
                lastmod, stamp = declared, None
            page = Page(page.loc, lastmod=lastmod, source=path, output=path, images=images)
        # Each page on its own: duplicates are found across chunks, below.
        writer.previous = None
        entry = writer.entry(page)
        if entry is None:
            return
        if not planner.fits_alone(entry):
            result.too_long(page.loc, entry)
            return
        if options.images:
            found.images_shown += 1
            if facts is not None:
                found.count_images(facts)
        flags = _flags(stamp is not None and lastmod is not None, facts if images else None)
        found.listed.append(_listed(scope.path_below(loc), position, flags, entry))
        if stamp is not None:
            found.dated(name, stamp, trusted_file_time(stamp))

    for position, name in enumerate(names, first):
        path = page_file(base, name)
        stamp: float | None = None
        start: bytes | None = None
        said: HeadVerdict | None = None
        if markers is not None:
            read = first_read(path)
            if read is not None:
                start, status = read
                stamp = status.st_mtime if dated else None
                if (plain_names or not _NAME_NOT_PATH.search(name)) and not is_error_page(name):
                    below = path_of_file(name)
                    loc = scope.prefix + below
                    # Asked here, before head_verdict: this is the one caller
                    # that hands whole short pages, and going through
                    # head_verdict first costs each such page about 5% more.
                    quick = (
                        quiet_facts(start, loc, markers, options.images)
                        if len(start) == status.st_size < FIRST_READ
                        else None
                    )
                    if quick is None:
                        # Its head read as a browser reads it, on from the first read.
                        said = head_verdict(path, loc, scope, options, output_dir, None, start)
                        if said is NOTHING_SAID:
                            quiet.append((position, name, below, stamp))
                            continue
                        facts = images_alone(said)
                    else:
                        facts = quick if quick.images or quick.outside_images else None
                        if facts is None:
                            quiet.append((position, name, below, stamp))
                            continue
                    if facts is not None:
                        # Its head says nothing but the images its page shows.
                        pictured[len(quiet)] = facts
                        found.reread.append(position)
                        quiet.append((position, name, below, stamp))
                        continue
                    start = None
        elif dated and entries:
            # The file time first, so that one Page serves the checks and the entry
            # (a page left out needed no stat, but few are).
            try:
                stamp = os.stat(path).st_mtime
            except OSError:
                pass  # gone or unreadable: nothing to say about it
        check(position, name, path, stamp, start, said)

    if quiet:
        # Each line the page's URL and, when it may be its date, its file time.
        lastmod_text = writer.lastmod_text
        dates = [
            lastmod_text(moment_of_timestamp(stamp)) if stamp is not None and trusted_file_time(stamp) else None
            for _, _, _, stamp in quiet
        ]
        lines = [
            scope.prefix + below if date is None else scope.prefix + below + "\t" + date
            for (_, _, below, _), date in zip(quiet, dates)
        ]
        plain = formatter.plain(("\n".join(lines) + "\n").encode("ascii"))
        if plain is None:
            # A line the quick formatting does not take (too long for a loc, say):
            # each page on its own, as any other.
            for position, name, _, stamp in quiet:
                check(position, name, page_file(base, name), stamp, None, None)
        else:
            formatted = plain.entries()
            for index, facts in pictured.items():
                # As check() lists a page showing images: its entry with them, each
                # image counted for the site's chrome, and its own when it fits.
                entry = writer.with_images(
                    formatted[index], plain.locs[index].decode("ascii"), allowed_images(facts.images, scope, rules)
                )
                if not planner.fits_alone(entry):
                    result.too_long(quiet[index][2], entry)
                    formatted[index] = b""
                    continue
                formatted[index] = entry
                found.count_images(facts)
            timed: list[tuple[str, float]] = []
            listed_before = len(found.listed)
            for (position, name, below, stamp), date, entry, index in zip(quiet, dates, formatted, itertools.count()):
                if not entry:
                    continue  # too long
                flags = _flags(date is not None, pictured.get(index))
                found.listed.append(_listed(below, position, flags, entry))
                if stamp is not None:
                    timed.append((name, stamp))
            if options.images:
                found.images_shown += len(found.listed) - listed_before
            found.all_dated([name for name, _ in timed], [stamp for _, stamp in timed])
    found.excluded = report.excluded + result.excluded
    found.images_cut = result.images_cut
    found.images_unwritten = result.images_unwritten
    found.image_hosts = result.image_hosts
    return found.trim()


def _flags(file_time: bool, facts: HeadFacts | None) -> int:
    """A listed page's flags (see _CheckedPages.listed): bit 1, it is dated by its
    file time; bit 2, it shows images (``facts``) it does not place in a content
    element (the chrome is looked for among them)."""
    return (1 if file_time else 0) | (2 if facts is not None and facts.uncertain_images else 0)


def _listed(below: str, position: int, flags: int, entry: bytes) -> bytes:
    """A listed page's bytes (see _CheckedPages.listed)."""
    return below.encode("ascii") + b"\0" + position.to_bytes(_ORDER_BYTES, "big") + bytes((flags,)) + entry


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
    """Whether ``mode`` dates these pages from git (one pass for the whole
    repository: build_pages' dating)."""
    if mode == "git":
        return True  # git, or the notice that says why not
    if mode != "auto" or not git_installed():
        return False
    # A build's output folder inside a work tree (Hugo's public/, Jekyll's _site/)
    # that git neither tracks nor half ignores: file times, as without git.
    return not git_leaves_to_file_times(os.path.abspath(site_dir))


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
    date_advice: str | None = None,
) -> Report:
    """``build_site`` for the pages :func:`walk_pages` finds in ``site_dir``,
    written into it (``date_advice`` as build_site takes it); ``workers``
    processes (default: one a core, 1 for none) check ``chunk_pages`` pages at
    a time."""
    site_dir = Path(site_dir)
    if not site_dir.is_dir():
        raise SitemapkitError(f"{str(site_dir)!r} is not a folder")
    # Held from the first read of the folder (robots.txt rules) to the switch.
    with publish.Publication(site_dir, options, read_robots=options.check_robots_rules) as publication:
        return _build_folder(site_dir, options, publication, workers, chunk_pages, date_advice)


def _build_folder(
    site_dir: Path,
    options: Options,
    publication: publish.Publication,
    workers: int | None,
    chunk_pages: int,
    date_advice: str | None,
) -> Report:
    report, scope, rules = build_context(options, publication)
    git_dated = _uses_git(site_dir, options.lastmod)
    found = _CheckedPages()
    # Pages in a repository of their own below the folder are dated by its
    # history (build_pages); the folder's own repository was judged already (_uses_git).
    repositories: list[str] | None = [] if options.lastmod == "auto" and git_installed() else None
    # The names walked, for build_pages where it is needed: a chunk's names joined
    # and deflated (a tenth of their size), since the pages are held until the
    # end and most builds never need them.
    walked: list[bytes] = []

    def chunks() -> Iterator[list[str]]:
        for names in _chunks(walk_pages(site_dir, repositories), chunk_pages):
            walked.append(zlib.compress(os.fsencode("\0".join(names)), 1))
            yield names

    walk = chunks()
    ahead = list(itertools.islice(walk, POOL_FROM_CHUNKS))
    count = workers if pool_pays(len(ahead)) else 1

    def tasks() -> Iterator[tuple]:
        position = 0
        for names in itertools.chain(ahead, walk):
            yield _check_chunk, (names, position)
            position += len(names)

    with Workers(_folder_checker, (options, str(site_dir), rules, not git_dated), count) as pool:
        for chunk in pool.in_order(tasks()):
            found.add(chunk)
    ahead.clear()

    listed = found.listed
    listed.sort()
    if (
        git_dated
        or found.alternates
        or any(prefix for prefix in repositories or ())  # "" is the folder's own
        or (
            options.lastmod != "none"
            and (_has_duplicates(listed) or any(e.reason == "too long" for e in found.excluded))
        )
    ):
        # Pages in a git repository, or declaring hreflang alternates (each group
        # is checked across its pages); or two pages with one URL, or a page too
        # long to list (only the pages listed are dated, which decides whether
        # file times are believable without the others): every page together.
        del listed[:]
        return _build_together(site_dir, options, publication, walked, found.verdicts, found.reread, date_advice)
    walked.clear()
    report.excluded += found.excluded
    # Notices in page order, as build_site gives them. (Every HTML file the host
    # serves was walked and handed over: none is left to report as not a page.)
    found.notices.sort(key=lambda pair: pair[0])
    report.notices += [notice for _, notice in found.notices]
    if found.broken:
        found.broken.sort(key=lambda pair: pair[0])
        check_base_against_canonicals([text for _, text in found.broken], scope)
        report.notices.append(broken_canonicals_notice([text for _, text in found.broken]))
    flat = one_batch(found.plausible)
    if flat or found.too_old_count:
        below = len(found.common) + 1 if found.common else 0
        notice = file_times_notice(
            [n[below:] for n in found.plausible_names] if flat else [],
            [n[below:] for n in found.too_old_names],
            len(found.plausible) if flat else 0,
            found.too_old_count,
            date_advice=date_advice,
        )
        if notice is not None and options.lastmod_warnings:
            report.notices.append(notice)
        elif notice is not None:
            # Still said, but as advice, which strict builds do not fail on.
            report.advice.append(notice.message)
    found.plausible = array.array("d")

    # Taken from the end, each page's bytes freed once its entry is encoded.
    listed.reverse()
    base_folder = scope.prefix.encode("ascii")
    if not flat and not options.images:
        # No entry to change: a batch at a time, with no Python code per entry.
        batches = _listed_batches(listed, base_folder, report)
        return write_sitemaps(lambda result: encode_entry_batches(batches, options, result), publication, report)

    # Images on most pages are the site's chrome: taken out of the entries made
    # in the workers, which saw a chunk each (and counted the hosts of the images
    # they wrote: each one taken out here is taken off its host's count).
    writer = EntryWriter(options, scope, EncodeResult())
    chrome = {writer.image_element(image) for image in chrome_images(found.image_pages, found.images_shown)}
    found.image_pages = {}
    hosts = found.image_hosts

    def uncount(element: bytes) -> None:
        host = image_host(element)
        hosts[host] -= 1
        if not hosts[host]:
            del hosts[host]

    def changed(entry: bytes, flags: int) -> bytes:
        # Only ever shorter: every entry still fits a file on its own.
        if flat and flags & 1:
            # One moment's file times are no page's last change.
            entry = _LASTMOD_ELEMENT.sub(b"", entry)
        if chrome and flags & 2:
            for element in image_elements(entry):
                if element in chrome:
                    entry = entry.replace(element, b"", 1)
                    uncount(element)
        return entry

    def dropped(entry: bytes) -> None:
        # The second of two pages with one loc: its images are not listed.
        for element in image_elements(entry):
            uncount(element)

    def encoded(result: EncodeResult) -> Iterator[SitemapFile]:
        result.images_cut += found.images_cut
        result.images_unwritten += found.images_unwritten
        result.image_hosts = hosts
        return encode_entry_batches(
            _listed_batches(listed, base_folder, report, changed if flat or chrome else None, dropped),
            options,
            result,
        )

    return write_sitemaps(encoded, publication, report)


# Entries handed to the encoder at a time, from the end of the sorted list.
_POST_BATCH = 4096


def _listed_batches(
    listed: list[bytes],
    base_folder: bytes,
    report: Report,
    changed: Callable[[bytes, int], bytes] | None = None,
    dropped: Callable[[bytes], None] | None = None,
) -> Iterator[tuple[list[bytes], list[int], bool]]:
    """The entries of ``listed`` (sorted, then reversed: see _CheckedPages.listed;
    each loc there is what follows ``base_folder``), in batches for
    :func:`encode_entry_batches`, taken from its end so that each batch's bytes
    are freed once encoded; the second of two pages with one loc left out as a
    duplicate (handed to ``dropped``)."""
    previous = None
    while listed:
        batch = listed[-_POST_BATCH:]
        del listed[-_POST_BATCH:]
        batch.reverse()
        cuts = list(map(bytes.index, batch, itertools.repeat(b"\0")))
        locs = [item[:cut] for item, cut in zip(batch, cuts)]
        kept: range | list[int] = range(len(batch))
        if locs[0] == previous or any(map(operator.eq, locs, itertools.islice(locs, 1, None))):
            before = [previous, *locs[:-1]]
            kept = [index for index, loc in enumerate(locs) if loc != before[index]]
            report.excluded += [
                Excluded((base_folder + loc).decode("ascii"), "duplicate")
                for loc, last in zip(locs, before)
                if loc == last
            ]
            if dropped is not None:
                for index, (loc, last) in enumerate(zip(locs, before)):
                    if loc == last:
                        dropped(batch[index][cuts[index] + 2 + _ORDER_BYTES :])
            locs = [locs[index] for index in kept]
        if not locs:
            continue
        previous = locs[-1]
        entries = [batch[index][cuts[index] + 2 + _ORDER_BYTES :] for index in kept]
        if changed is not None:
            # With each entry its flags byte (see _CheckedPages.listed).
            flags = [batch[index][cuts[index] + 1 + _ORDER_BYTES] for index in kept]
            entries = list(map(changed, entries, flags))
        yield entries, loc_hashes_below(base_folder, locs), False


def _build_together(
    site_dir: Path,
    options: Options,
    publication: publish.Publication,
    walked: list[bytes],
    verdicts: list[tuple[int, HeadVerdict]],
    reread: array.array,
    date_advice: str | None,
) -> Report:
    """build_pages for the pages walked (``walked``, each chunk's names
    deflated), in build_site's order (by loc, then walk order), with the verdicts
    the workers read (by walk position; those at ``reread`` are read again): as
    ``build_site(find_pages(...))`` writes them, without a second walk."""
    base = file_prefix(site_dir)
    pages = [
        folder_page(name, page_file(base, name))
        for chunk in walked
        for name in os.fsdecode(zlib.decompress(chunk)).split("\0")
    ]
    del walked[:]
    order = sorted(range(len(pages)), key=lambda position: pages[position].loc)
    index_of = {position: index for index, position in enumerate(order)}
    by_index: dict[int, HeadVerdict | None] = {index_of[position]: verdict for position, verdict in verdicts}
    by_index.update((index_of[position], None) for position in reread)
    del verdicts[:], reread[:]
    return build_pages([pages[position] for position in order], options, publication, date_advice, (by_index, []))
