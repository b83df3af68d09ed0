"""``build_site``: pages and options in, sitemaps and robots.txt out, a report back.

The engine's steps, in their order (each rule in one module, shared by every
build path): which pages are listed (:mod:`~sitemapkit.engine.selection`), then
duplicates (the first page of a URL wins), then how each listed page is dated
(:mod:`~sitemapkit.engine.dating`, in one pass over all of them), then the
hreflang groups (:mod:`~sitemapkit.engine.alternates`, across pages), then the
entries (the encoder's ``EntryWriter``) and their publication. URLs are scoped
and encoded first, so exclusion globs, robots.txt rules and alternates all see
the URL a crawler will see; dates are found only for the pages that stay.

:func:`build_pages` is those steps for pages whose heads may have been read
already: ``build_site`` has worker processes read them first when they pay
(:func:`_read_ahead`), and ``sitemapkit build`` hands what its own workers read
(:mod:`~sitemapkit.engine.folderbuild`).
"""

from __future__ import annotations

import os
import pickle
import dataclasses
from collections.abc import Callable, Iterable, Mapping
from typing import TypeVar
from urllib.parse import urlsplit
from pathlib import Path
from typing import NamedTuple

from ..protocol.encoder import EncodeResult, SitemapFile, encode_pages
from ..protocol.errors import SitemapkitError, UrlError
from ..protocol.model import Excluded, Options, Page, Report
from ..protocol.robotsrules import RobotsRules
from ..protocol.urls import OutOfScope, Scope
from ..publish import publication as publish
from ..site.folder import file_prefix, folder_page, page_file, walk_pages
from ..site.htmlcheck import HeadFacts, check_built_page
from . import workers
from .alternates import group_alternates
from .dating import date_pages
from .selection import (
    NOTHING_SAID,
    HeadVerdict,
    broken_canonicals_notice,
    build_context,
    check_base_against_canonicals,
    moved_base_notice,
    head_verdict,
    select_page,
)

#: What was read of a build's pages before its loop: the verdicts of the heads
#: that say something, by the page's index (None: the page is read in the loop),
#: and the output folder's HTML files no page stands for, as ``(path, relative name)``.
ReadAhead = tuple[dict[int, HeadVerdict | None], list[tuple[str, str]]]


def build_site(
    pages: Iterable[Page],
    options: Options,
    output_dir: Path | str,
    *,
    date_advice: str | None = None,
    page_dates: str | None = None,
) -> Report:
    """Write the sitemaps for ``pages`` into ``output_dir`` and return the report.

    Raises :class:`SitemapkitError` for input that cannot be written; pages that
    must be left out (scope, exclude globs, noindex, canonical, redirects,
    robots.txt rules, the adapter's ``exclude_reason``) are reported, not raised,
    and so is every HTML file in ``output_dir`` that no page stands for.
    ``date_advice`` says how the caller's pages can state their own date, in its
    users' terms ("give the pages a 'date' in their front matter"); None where
    they cannot. Notices offer it only when it is given, so every user is told
    only what they can do. ``page_dates`` is its former name, still taken.
    """
    output_dir = Path(output_dir)
    advice = date_advice if date_advice is not None else page_dates
    # Held from the first read of the folder (robots.txt rules) to the switch.
    with publish.Publication(output_dir, options, read_robots=options.check_robots_rules) as publication:
        page_list = pages if isinstance(pages, list) else list(pages)
        return build_pages(page_list, options, publication, advice)


def build_pages(
    pages: list[Page],
    options: Options,
    publication: publish.Publication,
    date_advice: str | None,
    read: ReadAhead | None = None,
) -> Report:
    """The engine's steps for ``pages``, published in ``publication``:
    ``read`` is what was read of them already (see :data:`ReadAhead`; a page
    without a verdict there said nothing), else it is read here, by worker
    processes where they pay."""
    report, scope, rules = build_context(options, publication)
    kept: dict[str, Page] = {}
    # Left-out pages still date the listing pages that show them (a tag page
    # changed when its newest article did, noindex or not).
    left_out: dict[str, Page] = {}
    # Each loc as given -> its sitemap loc, for the listing pages to find their
    # members by (only when there are listing pages: one entry a page).
    scoped: dict[str, str] = {}
    # What each page's head declares (its dates, its hreflang alternates), from the
    # same one read as the noindex, canonical and redirect checks.
    heads: dict[str, HeadFacts] = {}
    broken_canonicals: list[str] = []
    output_dir = publication.folder
    listings = any(page.members for page in pages)
    # The output files of the pages given.
    outputs = {os.fspath(page.output) for page in pages if page.output is not None}
    if read is None:
        read = _read_ahead(pages, options, output_dir, outputs)
    verdicts, files_without_page = read if read is not None else (None, None)
    for index, page in enumerate(pages):
        verdict = (
            verdicts.get(index, NOTHING_SAID)
            if verdicts is not None and not _read_in_this_process(page, options)
            else None
        )
        loc, listed, _ = select_page(page, scope, options, rules, report, heads, output_dir, broken_canonicals, verdict)
        if loc is None:
            continue
        if listings:
            scoped[page.loc] = loc
        if not listed:
            left_out[loc] = page
        elif loc in kept:
            report.excluded.append(Excluded(loc, "duplicate"))
        else:
            # Keyed by its sitemap loc; the page keeps the loc it was given (the
            # writer encodes it again, cheaply), which saves a copy per page.
            kept[loc] = page
    if files_without_page is None:
        files_without_page = _files_without_page(output_dir, outputs)
    del verdicts, read
    report.excluded.extend(_reasons_for_files_without_page(files_without_page, scope, options))
    del outputs
    if broken_canonicals:
        check_base_against_canonicals(broken_canonicals, scope)
        report.notices.append(broken_canonicals_notice(broken_canonicals))
    lastmods = date_pages(kept, left_out, scoped, options, scope, report, heads, date_advice)
    group_alternates(kept, options, report, heads)
    if options.images:
        choose_images(kept, heads, scope, rules)

    return write_sitemaps(
        lambda result: encode_pages([kept[loc] for loc in sorted(kept)], options, result, lastmods),
        publication,
        report,
    )


T = TypeVar("T")
#: An image shown on more than this fraction of a site's listed pages is its
#: chrome (a logo, a theme icon, a default og:image), not any page's content...
CHROME_FRACTION = 0.5
#: ...once the site has at least this many pages: on a smaller one, every image
#: may well be on every page. Only images a page does not place in a content
#: element are judged so: what a content element holds is the page's.
CHROME_MIN_PAGES = 4


def choose_images(kept: dict[str, Page], heads: dict[str, HeadFacts], scope: Scope, rules: RobotsRules | None) -> None:
    """Give each listed page the images its built page shows (``heads``), unless
    its adapter named them: not the site's chrome (an image on more than
    CHROME_FRACTION of the pages that show images, where the page does not place
    it in its content element: see HeadFacts.uncertain_images), not an image of
    the site's own host that its robots.txt disallows. Pages left out get none,
    since only listed pages are written."""
    found = {loc: heads[loc].images for loc in kept if loc in heads and heads[loc].images and not kept[loc].images}
    if not found:
        return
    counts: dict[str, int] = {}
    for loc in kept:
        if loc in heads:
            for image in {*heads[loc].images, *heads[loc].outside_images}:
                counts[image] = counts.get(image, 0) + 1
    # Of the pages read: every listed page with a built file.
    chrome = chrome_images(counts, sum(1 for page in kept.values() if page.output is not None))
    for loc, images in found.items():
        uncertain = set(heads[loc].uncertain_images) & chrome
        shown = tuple(image for image in allowed_images(images, scope, rules) if image not in uncertain)
        if shown:
            kept[loc] = dataclasses.replace(kept[loc], images=shown)


def chrome_images(counts: Mapping[T, int], pages: int) -> set[T]:
    """Of the images shown (``counts``: on how many of the ``pages`` read each
    is, in its content or around it), those that are the site's chrome (see
    CHROME_FRACTION)."""
    if pages < CHROME_MIN_PAGES:
        return set()
    return {image for image, n in counts.items() if n > CHROME_FRACTION * pages}


def allowed_images(images: Iterable[str], scope: Scope, rules: RobotsRules | None) -> tuple[str, ...]:
    """The absolute image URLs the site's robots.txt lets crawlers fetch (its
    rules hold for its own host only)."""
    if rules is None:
        return tuple(images)
    own = urlsplit(scope.prefix).netloc
    allowed = []
    for image in images:
        parts = urlsplit(image)
        if parts.netloc.lower() != own or rules.allows(parts.path + ("?" + parts.query if parts.query else "")):
            allowed.append(image)
    return tuple(allowed)


class _HeadReader(NamedTuple):
    """What a process reading heads ahead of build_pages holds (see workers.Workers)."""

    options: Options
    scope: Scope
    output_dir: Path
    outputs: set[str]


def _head_reader(options: Options, output_dir: Path, outputs: set[str]) -> _HeadReader:
    return _HeadReader(options, Scope(options.base_url), output_dir, outputs)


def _read_heads(reader: _HeadReader, task: bytes) -> list[tuple[int, HeadVerdict]]:
    """The verdicts of the pages ``(index, loc as given, output)`` (pickled)
    whose heads say something (most say nothing: nothing is sent back)."""
    verdicts = []
    for index, given, output in pickle.loads(task):
        try:
            loc = reader.scope.loc(given)
        except (OutOfScope, UrlError):
            continue  # never read: select_page leaves the page out first
        verdict = head_verdict(output, loc, reader.scope, reader.options, reader.output_dir)
        if verdict is not NOTHING_SAID:
            verdicts.append((index, verdict))
    return verdicts


def _walk_for_files_without_page(reader: _HeadReader) -> list[tuple[str, str]]:
    return _files_without_page(reader.output_dir, reader.outputs)


def _files_without_page(output_dir: Path, outputs: set[str]) -> list[tuple[str, str]]:
    """The HTML files of the output folder that are no given page's output
    (``outputs``), as ``(path, relative name)``."""
    prefix = file_prefix(output_dir)
    found = [(path, name) for name in walk_pages(output_dir) if (path := page_file(prefix, name)) not in outputs]
    if not found:
        return found
    # Outputs given in another spelling (relative, with ".."): each made and
    # kept only when it differs, so a site of absolute paths costs no memory.
    respelled = {spelling for path in outputs if (spelling := os.path.abspath(path)) != path}
    return [
        (path, name)
        for path, name in found
        if (spelling := os.path.abspath(path)) not in outputs and spelling not in respelled
    ]


def _read_in_this_process(page: Page, options: Options) -> bool:
    """Whether build_pages' loop reads the page itself, never a worker: a page
    whose images its content gives (:attr:`Page.content_html`). The content stays
    in this process (a worker reading it would copy it), and its head alone is a
    small part of the work."""
    return options.images and page.content_html is not None


def _read_ahead(pages: list[Page], options: Options, output_dir: Path, outputs: set[str]) -> ReadAhead | None:
    """What build_pages' loop needs from the disk, read by worker processes
    before the loop starts: what the heads of the pages (by index) say that is
    not :data:`NOTHING_SAID` (:func:`head_verdict`), and the output folder's
    HTML files no page stands for (:func:`_files_without_page`). The head checks
    are the build's main cost and independent per page; the walk needs nothing
    the loop finds. None where a pool does not pay (:func:`workers.pool_pays`)
    or no worker can be forked (:func:`workers.can_fork`): the loop reads the
    heads itself.

    The workers share this process's memory, so it writes none of the objects
    they share while they run: taking a page's loc counts a reference, a write
    that copies the memory page holding it, and would hold the site twice.
    Hence every chunk's task is made, as bytes, before they fork, all are
    handed out at once, and this process only waits until they end.
    """
    chunk_pages = workers.CHUNK_PAGES
    count = workers.worker_count()
    if not workers.pool_pays(-(-len(pages) // chunk_pages)) or count <= 1 or not workers.can_fork():
        return None
    tasks = [
        (
            _read_heads,
            (
                pickle.dumps(
                    [
                        (index, page.loc, os.fspath(page.output))
                        for index, page in enumerate(pages[start : start + chunk_pages], start)
                        # The pages whose heads the loop would read.
                        if page.output is not None
                        and page.exclude_reason is None
                        and page.listed
                        and not _read_in_this_process(page, options)
                    ]
                ),
            ),
        )
        for start in range(0, len(pages), chunk_pages)
    ]
    verdicts: dict[int, HeadVerdict | None] = {}
    with workers.objects_frozen(), workers.Workers(_head_reader, (options, output_dir, outputs), count) as pool:
        walk = pool.submit(_walk_for_files_without_page)
        for read in pool.in_order(tasks, ahead=len(tasks)):
            verdicts.update(read)
        del tasks
        files_without_page = pool.result(walk)
    return verdicts, files_without_page


def write_sitemaps(
    encoded: Callable[[EncodeResult], Iterable[SitemapFile]], publication: publish.Publication, report: Report
) -> Report:
    """Publish the files ``encoded`` yields (given the result to fill) with the
    rest of the set (:func:`publish.finish`); the finished report."""
    result = EncodeResult()
    try:
        files = publication.write(encoded(result))
    except (UrlError, ValueError) as error:
        if isinstance(error, SitemapkitError):
            raise
        raise UrlError(str(error)) from None
    report.excluded.extend(result.excluded)
    report.notices.extend(result.notices)
    moved = moved_base_notice(report.excluded, Scope(publication.options.base_url), result.urls)
    if moved is not None:
        report.notices.append(moved)
    return publish.finish(publication, files, result, report)


def _reasons_for_files_without_page(found: list[tuple[str, str]], scope: Scope, options: Options) -> list[Excluded]:
    """The HTML files in the output folder that no page stands for (``found``,
    as ``(path, relative name)``: see _files_without_page), each with why it is
    not listed: the adapter's tool did not build it as a page (another plugin's
    redirect stub, a theme file copied as it is). No page the site serves leaves
    the sitemap without a reason in the report."""
    excluded = []
    for path, name in found:
        # The page a folder build would make of it (sitemapkit build's URL and reason).
        page = folder_page(name, path)
        try:
            loc = scope.loc(page.loc)
        except (OutOfScope, UrlError):
            loc = name
        reason = None
        try:
            # What the page's head says, as for any page: a more telling reason.
            reason, _ = check_built_page(
                Path(path),
                loc,
                noindex=options.check_noindex,
                canonical=options.check_canonical,
                redirects=options.check_redirects,
            )
        except OSError:
            pass
        if reason is None:
            reason = page.exclude_reason or "not a page"
        excluded.append(Excluded(loc, reason))
    return excluded
