"""One call for adapters: pages and options in, sitemaps and robots.txt out, a report back.

The order of the steps matters: URLs are scoped and encoded first, so exclusion
globs, robots.txt rules and alternates all see the URL a crawler will see; dates are
resolved only for the pages that stay, in one pass.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import fnmatch
import itertools
import operator
import os
import pickle
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import TypeVar
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from urllib.parse import unquote, urlsplit

from ..publish import publication as publish
from . import workers
from ..protocol.errors import SitemapkitError, UrlError
from ..site.folder import file_prefix, folder_page, page_file, walk_pages
from ..site.htmlcheck import HeadFacts, check_built_page, inspect_built_page
from ..site.lastmod import resolve_file_lastmods
from ..protocol.model import NOTICE_EXAMPLES, Excluded, Lastmod, Notice, Options, Page, Report
from ..protocol.robotsrules import RobotsRules
from ..protocol.dates import W3C_DATETIME, lastmod_instant, parse_lastmod
from ..protocol.encoder import EncodeResult, SitemapFile, encode_pages
from ..protocol.languages import X_DEFAULT, language_tag
from ..protocol.urls import OutOfScope, Scope, comparable_url, file_spelling


def build_site(
    pages: Iterable[Page], options: Options, output_dir: Path | str, *, page_dates: str | None = None
) -> Report:
    """Write the sitemaps for ``pages`` into ``output_dir`` and return the report.

    Raises :class:`SitemapkitError` for input that cannot be written; pages that
    must be left out (scope, exclude globs, noindex, canonical, redirects,
    robots.txt rules, the adapter's ``exclude_reason``) are reported, not raised,
    and so is every HTML file in ``output_dir`` that no page stands for.
    ``page_dates`` says how the caller's pages can state their own date, in its
    users' terms ("give the pages a 'date' in their front matter"); None where
    they cannot. Notices offer it only when it is given, so every user is told
    only what they can do.
    """
    output_dir = Path(output_dir)
    # Held from the first read of the folder (robots.txt rules) to the switch.
    with publish.Publication(output_dir, options, read_robots=options.check_robots_rules) as publication:
        return _build(pages, options, publication, page_dates)


def _build(pages: Iterable[Page], options: Options, publication: publish.Publication, page_dates: str | None) -> Report:
    report, scope, rules = start(options, publication)
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
    page_list = pages if isinstance(pages, list) else list(pages)
    listings = any(page.members for page in page_list)
    # The output files of the pages handed over.
    handed = {os.fspath(page.output) for page in page_list if page.output is not None}
    read_ahead = _read_ahead(page_list, options, output_dir, handed)
    said, not_handed = read_ahead if read_ahead is not None else (None, None)
    for index, page in enumerate(page_list):
        verdict = said.get(index, NOTHING_SAID) if said is not None else None
        loc, listed = select_page(page, scope, options, rules, report, heads, output_dir, broken_canonicals, verdict)
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
    if not_handed is None:
        not_handed = _files_not_handed(output_dir, handed)
    del said
    report.excluded.extend(_pages_not_handed(not_handed, scope, options))
    del handed, page_list
    if broken_canonicals:
        report.notices.append(broken_canonicals_notice(broken_canonicals))
    lastmods = _resolve_dates(kept, left_out, scoped, options, scope, report, heads, page_dates)
    _resolve_alternates(kept, options, report, heads)
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


# The state of a worker of _read_ahead, set once (fork copies the rest).
_ahead_worker: dict = {}


def _start_ahead_worker(options: Options, output_dir: Path, handed: set[str]) -> None:
    _ahead_worker.update(options=options, scope=Scope(options.base_url), output_dir=output_dir, handed=handed)


def _read_heads(task: bytes) -> list[tuple[int, HeadVerdict]]:
    """In a worker: the verdicts of the pages ``(index, loc as given, output)``
    (pickled) whose heads say something (most say nothing: nothing is sent back)."""
    options, scope, output_dir = _ahead_worker["options"], _ahead_worker["scope"], _ahead_worker["output_dir"]
    said = []
    for index, given, output in pickle.loads(task):
        try:
            loc = scope.loc(given)
        except (OutOfScope, UrlError):
            continue  # never read: select_page leaves the page out first
        verdict = head_verdict(output, loc, scope, options, output_dir)
        if verdict is not NOTHING_SAID:
            said.append((index, verdict))
    return said


def _files_not_handed(output_dir: Path | None = None, handed: set[str] | None = None) -> list[tuple[str, str]]:
    """The HTML files of the output folder that are no handed page's output, as
    ``(path, relative name)``; in a worker, of the folder and pages it was given."""
    if output_dir is None or handed is None:
        output_dir, handed = _ahead_worker["output_dir"], _ahead_worker["handed"]
    prefix = file_prefix(output_dir)
    found = [(path, name) for name in walk_pages(output_dir) if (path := page_file(prefix, name)) not in handed]
    if not found:
        return found
    # Outputs handed in another spelling (relative, with ".."): each made and
    # kept only when it differs, so a site of absolute paths costs no memory.
    respelled = {spelling for path in handed if (spelling := os.path.abspath(path)) != path}
    return [
        (path, name)
        for path, name in found
        if (spelling := os.path.abspath(path)) not in handed and spelling not in respelled
    ]


def _read_ahead(
    pages: list[Page], options: Options, output_dir: Path, handed: set[str]
) -> tuple[dict[int, HeadVerdict], list[tuple[str, str]]] | None:
    """What build_site's loop needs from the disk, read by worker processes
    before the loop starts: what the heads of the pages (by index) say that is
    not :data:`NOTHING_SAID` (:func:`head_verdict`), and the output folder's
    HTML files no page stands for (:func:`_files_not_handed`). The head checks
    are the build's main cost and independent per page; the walk needs nothing
    the loop finds. None for a small site, or where no worker can be forked
    (:func:`workers.can_fork`): the loop reads the heads itself.

    The workers share this process's memory, so it writes none of the objects
    they share while they run: taking a page's loc counts a reference, a write
    that copies the memory page holding it, and would hold the site twice.
    Hence every chunk's task is made, as bytes, before they fork, and this
    process only waits until they end.
    """
    count = workers.worker_count()
    chunk_pages = workers.CHUNK_PAGES
    if len(pages) < workers.POOL_FROM_CHUNKS * chunk_pages or count <= 1 or not workers.can_fork():
        return None
    tasks = [
        pickle.dumps(
            [
                (index, page.loc, os.fspath(page.output))
                for index, page in enumerate(pages[start : start + chunk_pages], start)
                # The pages whose heads the loop would read.
                if page.output is not None and page.exclude_reason is None and page.listed
            ]
        )
        for start in range(0, len(pages), chunk_pages)
    ]
    said: dict[int, HeadVerdict] = {}
    with workers.objects_frozen():
        pool = workers.start_pool(_start_ahead_worker, (options, output_dir, handed), count)
        try:
            walk = pool.submit(_files_not_handed)
            read = [pool.submit(_read_heads, task) for task in tasks]
            del tasks
            for future in read:
                said.update(future.result())
            not_handed = walk.result()
        except BrokenProcessPool:
            return None  # a worker was killed (out of memory, by a user): read here
        finally:
            pool.shutdown(cancel_futures=True)
    return said, not_handed


def broken_canonicals_notice(broken_canonicals: list[str]) -> Notice:
    """One notice for the pages (``loc -> target``, in page order) whose canonical
    link names a page the site does not have."""
    shown = ", ".join(broken_canonicals[:3]) + (
        f" and {len(broken_canonicals) - 3} more" if len(broken_canonicals) > 3 else ""
    )
    return Notice(
        "canonical",
        f"listed {len(broken_canonicals)} page(s) whose canonical link names a page the site does not have: {shown}",
    )


def start(options: Options, publication: publish.Publication) -> tuple[Report, Scope, RobotsRules | None]:
    """What every build starts from: an empty report, the scope, and the rules of
    the site's robots.txt when the build applies them."""
    robots_text = publication.robots_text
    rules = RobotsRules.from_text(robots_text) if options.check_robots_rules and robots_text else None
    if rules is not None and not rules.disallow:
        rules = None  # it allows every page: nothing to check them against
    return Report(), Scope(options.base_url), rules


def select_page(
    page: Page,
    scope: Scope,
    options: Options,
    rules: RobotsRules | None,
    report: Report,
    heads: dict[str, HeadFacts],
    output_dir: Path | None,
    broken_canonicals: list[str],
    verdict: HeadVerdict | None = None,
) -> tuple[str | None, bool]:
    """A page's sitemap loc and whether it may be listed; what leaves it out goes
    into ``report``, what its head declares (dates, alternates) into ``heads``,
    a canonical link naming a page ``output_dir`` does not have into
    ``broken_canonicals``. The loc is None for a page that is out of scope or
    whose URL cannot be written (it dates nothing). Duplicates are the caller's
    to find. ``verdict`` is what :func:`head_verdict` said of the page's head,
    when it was read already (in a worker process)."""
    try:
        loc = scope.loc(page.loc)
    except OutOfScope as out:
        report.excluded.append(Excluded(page.loc, out.reason))
        return None, False
    except UrlError as error:
        report.excluded.append(Excluded(repr(page.loc), "invalid URL"))
        report.notices.append(Notice("url", f"left out a page whose URL cannot be written: {error}"))
        return None, False
    reason: str | tuple[str, str] | None
    if page.exclude_reason is not None:
        reason = page.exclude_reason
    elif not page.listed:
        reason = "metadata"
    else:
        reason = _exclusion(page, loc, scope, options, rules, heads, output_dir, broken_canonicals, verdict)
    if reason is None:
        return loc, True
    if isinstance(reason, tuple):
        report.excluded.append(Excluded(loc, reason[0], reason[1]))
        if reason[0] == "unreadable":
            report.notices.append(Notice("unreadable", f"left out {loc}: cannot read {reason[1]}"))
    else:
        report.excluded.append(Excluded(loc, reason))
    return loc, False


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
    return publish.finish(publication, files, result, report)


def _pages_not_handed(found: list[tuple[str, str]], scope: Scope, options: Options) -> list[Excluded]:
    """The HTML files in the output folder that no page stands for (``found``,
    as ``(path, relative name)``: see _files_not_handed), each with why it is
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


def _path(value) -> Path:
    # Adapters mostly hand Path objects already; wrapping again is not free.
    return value if isinstance(value, Path) else Path(value)


def _exclusion(
    page: Page,
    loc: str,
    scope: Scope,
    options: Options,
    rules: RobotsRules | None,
    heads: dict[str, HeadFacts],
    output_dir: Path | None = None,
    broken: list[str] | None = None,
    verdict: HeadVerdict | None = None,
) -> str | tuple[str, str] | None:
    """Why ``page`` must stay out of the sitemap (a reason, or a reason and where
    the page points), or None. The cheap checks first: globs, then robots.txt
    rules, then the built page's head (its ``verdict`` when it was read already),
    whose dates and alternates go to ``heads``."""
    if options.exclude:
        below = scope.path_below(loc)
        decoded = unquote(below)
        if any(fnmatch.fnmatchcase(below, p) or fnmatch.fnmatchcase(decoded, p) for p in options.exclude):
            return "exclude"
    if rules is not None:
        parts = urlsplit(loc)
        if not rules.allows(parts.path + ("?" + parts.query if parts.query else "")):
            return "robots.txt"
    if page.output is None:
        return None
    reason, facts, broken_text = (
        head_verdict(page.output, loc, scope, options, output_dir) if verdict is None else verdict
    )
    if facts is not None:
        heads[loc] = facts
    if broken_text is not None and broken is not None:
        broken.append(broken_text)
    return reason


#: What a page's head says for the sitemap (see :func:`head_verdict`).
HeadVerdict = tuple[str | tuple[str, str] | None, HeadFacts | None, str | None]
#: A head that says nothing: the page is listed, nothing declared, nothing broken.
NOTHING_SAID: HeadVerdict = (None, None, None)


def head_verdict(output: Path | str, loc: str, scope: Scope, options: Options, output_dir: Path | None) -> HeadVerdict:
    """What the head of ``output``, the built page at ``loc``, says for the
    sitemap: why it must stay out (a reason, or a reason and where the page
    points) or None; its dates and alternates (None when it declares neither);
    and ``"loc -> target"`` when its canonical link names a page ``output_dir``
    does not have (it stays listed). Reads only that one file, so pages can be
    checked in any process, in any order."""
    try:
        facts = inspect_built_page(
            output,
            loc,
            noindex=options.check_noindex,
            canonical=options.check_canonical,
            redirects=options.check_redirects,
            dates=options.lastmod != "none",
            alternates=True,
            images=options.images,
            same_page=lambda target: _other_builder_form(output, loc, target),
        )
    except FileNotFoundError:
        return NOTHING_SAID  # not written (yet): nothing in it can ask to be left out
    except OSError as error:
        # There, but its head cannot be read (permissions, a folder, a FIFO):
        # unchecked, it might be a noindex page, so it is reported, not listed.
        if options.check_noindex or options.check_canonical or options.check_redirects:
            return ("unreadable", f"{output}: {error.strerror or error}"), None, None
        return NOTHING_SAID  # nothing asked of its head but its dates and alternates
    declared = facts if facts.modified or facts.alternates or facts.images or facts.outside_images else None
    reason, target = facts.reason, facts.canonical_target
    # A canonical target that is a page of the site is listed under its own
    # entry; the report says where the left-out page points.
    if reason == "canonical" and target:
        if output_dir is not None and _serves(output_dir, scope, target) is False:
            # A canonical naming a page the site does not have is broken
            # (Zensical writes ".../what" for ".../what%3F/"): crawlers pass
            # over it, so the page stays listed, and the user is told.
            return None, declared, f"{loc} -> {target}"
        return ("canonical", target), declared, None
    if reason is None and declared is None:
        return NOTHING_SAID
    return reason, declared, None


def _serves(output_dir: Path, scope: Scope, url: str) -> bool | None:
    """Whether the output folder holds a file a static host serves at ``url``
    (itself, its ``index.html``, or ``<url>.html``), or the page in the other URL
    form (``guide/install.html`` for ``guide/install/``: the page a canonical
    written for the other form means); None for a URL outside the base folder,
    whose pages this build does not know."""
    key = comparable_url(url)
    prefix = comparable_url(scope.prefix)
    if not key.startswith(prefix):
        return None
    below = unquote(key[len(prefix) :].split("?", 1)[0].split("#", 1)[0])
    if below in ("", "/") or below.endswith("/"):
        candidates = [below + "index.html", below + "index.htm"] + ([below[:-1] + ".html"] if below.strip("/") else [])
    else:
        candidates = [below, below + ".html", below + "/index.html"]
    return any((output_dir / name).is_file() for name in candidates)


def _other_builder_form(output: Path | str, loc: str, target: str) -> bool:
    """Whether ``target`` is the page at ``loc`` written in the other URL form of
    generators that build either (``guide/install/`` and ``guide/install.html``),
    and the site has no file at ``target``: then the generator named the page
    itself (Sphinx 7.4 and 8.0 ``dirhtml`` write ``.../install.html`` as the
    canonical of ``.../install/``). Where both files exist they are two pages.
    """
    page_path, _, page_query = comparable_url(loc).partition("?")
    target_path, _, target_query = comparable_url(target).partition("?")
    if page_query != target_query:
        return False
    page_path, target_path = file_spelling(page_path), file_spelling(target_path)
    output = _path(output)
    if page_path.endswith("/") and target_path == page_path[:-1] + ".html":
        # The page is .../install/index.html; the other form's file is .../install.html.
        other_file = output.parent.with_name(output.parent.name + ".html")
    elif page_path.endswith(".html") and target_path == page_path[: -len(".html")] + "/":
        other_file = output.with_suffix("") / "index.html"
    else:
        return False
    return not other_file.exists()


def _resolve_dates(
    kept: dict[str, Page],
    left_out: dict[str, Page],
    scoped: dict[str, str],
    options: Options,
    scope: Scope,
    report: Report,
    heads: dict[str, HeadFacts],
    page_dates: str | None = None,
) -> dict[str, Lastmod]:
    """Each page's date, the first there is of: its metadata (front matter); the
    git date or file time of its source, when that is a file of its own; the
    dates its built head declares (:meth:`HeadFacts.declared_date`); the git date or file time
    of the built page itself. Then listing pages from their members.

    Returned by the ``loc`` each kept page was given, where it is not the
    page's own ``lastmod`` (a dict entry, not a copy of every page)."""
    lastmods: dict[str, Lastmod] = {}
    if options.lastmod == "none":
        for page in kept.values():
            if page.lastmod is not None:
                lastmods[page.loc] = None
        return lastmods

    def member_loc(member: str) -> str | None:
        try:
            return scope.loc(member)
        except (OutOfScope, UrlError):
            return None

    listings: dict[str, list[str | None]] = {}
    for loc, page in kept.items():
        if page.members and page.lastmod is None:
            # Members are mostly pages of the site, scoped already.
            locs = list(map(scoped.get, page.members))
            if None in locs:
                locs = [scoped[m] if m in scoped else member_loc(m) for m in page.members]
            listings[loc] = locs
    # Left-out members are dated too (their loc is not a kept page's).
    wanted = sorted({m for members in listings.values() for m in members if m in left_out and m not in kept})

    def dated() -> Iterator[tuple[str, Page]]:
        # Walked twice rather than held: a list of 100,000 pairs is memory for nothing.
        yield from ((loc, left_out[loc]) for loc in wanted)
        yield from kept.items()

    # A page whose only source is its own built file (sitemapkit build on a plain
    # folder) is dated by its head first: the file's time is the build's.
    head_dates = {loc: date for loc, facts in heads.items() if (date := facts.declared_date()) is not None}
    by_head = (
        {
            loc
            for loc, page in dated()
            if page.lastmod is None and loc in head_dates and (page.source is None or _is_own_output(page))
        }
        if head_dates
        else ()
    )
    # Strings, not Path objects: making, hashing and sorting 100,000 of those
    # cost more than the rest of the date pass.
    # A sorted list, not a set: a set of 100,000 names is a table of 262,144 slots.
    sources: list[str] = []
    includes: set[str] = set()
    for loc, page in dated():
        if page.lastmod is None and loc not in by_head:
            if page.source is not None:
                sources.append(os.fspath(page.source))
            if page.includes:
                includes.update(os.fspath(include) for include in page.includes)
    sources.sort()
    sources = [name for name, _ in itertools.groupby(sources)]  # each named once
    dates: dict[str, dt.datetime | None] = {}
    not_in_git: set[str] = set()
    if sources or includes:
        # Keyed by the file as pages mostly give it, so each page looks its date
        # up without making a Path again (_date_of).
        only_included = sorted(includes.difference(sources))
        found = resolve_file_lastmods(sources, options.lastmod, only_included, page_dates=page_dates)
        del sources, includes
        dates, not_in_git = found.dates, found.not_in_git
        if options.lastmod_warnings:
            report.notices.extend(found.notices)
        else:
            # Still said, but as advice, which strict builds do not fail on.
            report.advice.extend(notice.message for notice in found.notices)
    # loc -> (instant, lastmod as given): the instant finds the newest, the value is
    # copied as written, so a date stays a date and an offset stays an offset.
    # Kept only when some page lists others.
    resolved: dict[str, tuple[dt.datetime, Lastmod]] = {}
    generated: list[str] = []
    for loc, page in dated():
        value = page.lastmod
        if value is None and loc in by_head:
            value = head_dates[loc]
        elif value is None:
            generated_here = page.source is not None and bool(not_in_git) and _key(page.source, dates) in not_in_git
            if generated_here:
                # Written by the build (ignored by git, or outside the repository):
                # only what it is built from that git knows can date it.
                value = _newest([_date_of(dates, f) for f in page.includes])
            elif page.source is not None or page.includes:
                value = _date_of(dates, page.source) if page.source is not None else None
                if page.includes:
                    value = _newest([value, *(_date_of(dates, f) for f in page.includes)])
            if value is None:
                value = head_dates.get(loc)
            if value is None:
                if generated_here:
                    generated.append(loc)
                continue
        elif isinstance(value, str) and not W3C_DATETIME.match(value.strip()):
            value = _parse_front_matter_date(value, page)
        if value is not page.lastmod:
            if kept.get(loc) is page:
                lastmods[page.loc] = value
            if not listings:
                continue  # found here (git, file time, head, parsed): a date already
        try:
            instant = lastmod_instant(value)
        except UrlError as error:
            where = f"{page.source} ({page.loc})" if page.source is not None else repr(page.loc)
            raise UrlError(f"lastmod of {where}: {error}") from None
        if instant is not None and listings:
            resolved[loc] = (instant, value)
    # Listing pages (tags, categories, indexes) changed when their newest member did,
    # or when their own source did (a blog index's Markdown), if that is newer.
    for loc, members in listings.items():
        member_dates = [resolved[member] for member in members if member is not None and member in resolved]
        if member_dates and loc in resolved:
            member_dates.append(resolved[loc])
        if member_dates:
            lastmods[kept[loc].loc] = max(member_dates, key=operator.itemgetter(0))[1]
    report.undated_generated = sorted(
        loc for loc in generated if loc in kept and lastmods.get(kept[loc].loc, kept[loc].lastmod) is None
    )
    return lastmods


def _key(file, dates: dict[str, dt.datetime | None]) -> str:
    """The key of ``dates`` (resolve_lastmods' paths, as strings) for a file a
    page names: mostly the very string it gave, which needs no Path to find."""
    return file if isinstance(file, str) and file in dates else str(_path(file))


def _date_of(dates: dict[str, dt.datetime | None], file) -> dt.datetime | None:
    return dates.get(_key(file, dates))


def _newest(dates: list[dt.datetime | None]) -> dt.datetime | None:
    """The newest known date of a page's files. An included file without a date is
    one git cannot date (untracked, installed, before a shallow clone's cut, so
    older than any date the clone does know): it does not hold the page back."""
    known = [d for d in dates if d is not None]
    return max(known) if known else None


def _is_own_output(page: Page) -> bool:
    return page.output is not None and (page.source is page.output or str(page.source) == str(page.output))


def _parse_front_matter_date(value: str, page: Page):
    try:
        return parse_lastmod(value)
    except ValueError as error:
        where = f"{page.source} ({page.loc})" if page.source is not None else repr(page.loc)
        raise UrlError(f"lastmod of {where}: {error}") from None


def _resolve_alternates(kept: dict[str, Page], options: Options, report: Report, heads: dict[str, HeadFacts]) -> None:
    """Each version lists every version, itself included, and ``x-default``.

    Versions are the pages sharing a ``translation_key``, plus any alternates an
    adapter gives explicitly (pages of other builds, such as other-language Sphinx
    projects); a group of one is no group and gets none. A language code that is
    no BCP 47 tag drops that page's alternates, with one warning.
    """
    groups: dict[str, list[tuple[str, str]]] = {}
    for loc, page in kept.items():
        if page.translation_key is not None and page.hreflang:
            groups.setdefault(page.translation_key, []).append((page.hreflang, loc))
    bad: set[str] = set()
    x_default = language_tag(options.x_default) if options.x_default else None
    for loc, page in kept.items():
        pairs: dict[str, str] = {}
        given = list(page.alternates)
        if page.translation_key is not None:
            given += groups.get(page.translation_key, ())
        if page.hreflang:
            given.append((page.hreflang, loc))
        given = [(code, href) for code, href in given if code != X_DEFAULT]
        for code, href in given:
            tag = language_tag(code)
            if tag is None:
                bad.add(code)
            else:
                pairs.setdefault(tag, href)
        if len(pairs) < 2 or any(language_tag(code) is None for code, _ in given):
            if page.alternates:
                kept[loc] = dataclasses.replace(page, alternates=())
            continue
        alternates = sorted(pairs.items())
        if x_default and x_default in pairs:
            alternates.append((X_DEFAULT, pairs[x_default]))
        kept[loc] = dataclasses.replace(page, alternates=tuple(alternates))
    if bad:
        report.notices.append(
            Notice(
                "hreflang",
                f"left out the alternates of pages whose language is not a language tag: {', '.join(sorted(map(repr, bad)))}",
            )
        )
    if any(facts.alternates for facts in heads.values()):
        _declared_alternates(kept, options, report, heads)


def _declared_alternates(kept: dict[str, Page], options: Options, report: Report, heads: dict[str, HeadFacts]) -> None:
    """The hreflang alternates pages declare in their heads (Hugo, Zensical and
    Material multilingual sites) replace any the adapter gave, so crawlers read one
    answer from the page and the sitemap. A declared group is listed when it holds
    only language tags, names only pages of this sitemap, includes the page itself
    (named by the page, or by the versions it names), and every page it names
    declares the same group (reciprocal); else the page gets no alternates and one
    notice says why."""
    by_key = {comparable_url(loc): loc for loc in kept}
    # Whether the adapter gave groups at all: then a page it gave none (an untranslated
    # page) that declares one disagrees with it too.
    adapter_groups = any(page.translation_key is not None or page.alternates for page in kept.values())
    groups: dict[str, frozenset[tuple[str, str]] | str] = {}
    for loc, facts in heads.items():
        if loc not in kept or not facts.alternates:
            continue
        pairs = set()
        problem = None
        for code, href in facts.alternates:
            tag = "x-default" if code.strip().lower() == "x-default" else language_tag(code)
            target = by_key.get(comparable_url(href))
            if tag is None:
                problem = f"{code!r} is not a language tag"
            elif target is None:
                problem = f"it names {href}, which this sitemap does not list"
            else:
                pairs.add((tag, target))
        groups[loc] = problem if problem is not None else frozenset(pairs)
    # Pelican's themes, among others, name only the other versions: the page's own
    # language is then the one those versions give it.
    for loc, group in list(groups.items()):
        if isinstance(group, frozenset) and loc not in {target for _, target in group}:
            own: set[str] = set()
            for _, target in group:
                theirs = groups.get(target)
                if isinstance(theirs, frozenset):
                    own.update(tag for tag, named in theirs if named == loc)
            groups[loc] = group | {(own.pop(), loc)} if len(own) == 1 else "it does not name the page itself"
    refused: dict[str, str] = {}
    disagree: list[str] = []
    for loc, group in groups.items():
        page = kept[loc]
        if isinstance(group, frozenset):
            for _, target in group:
                if groups.get(target) != group:
                    group = f"{target} does not declare the same alternates back"
                    break
        if isinstance(group, str):
            refused[loc] = group
            alternates: tuple[tuple[str, str], ...] = ()
        else:
            languages = sorted((tag, target) for tag, target in group if tag != "x-default")
            defaults = [target for tag, target in group if tag == "x-default"]
            if len({tag for tag, _ in languages}) != len(languages) or len(defaults) > 1:
                refused[loc] = "it names two pages for one language"
                alternates = ()
            elif len(languages) < 2:
                alternates = ()
            else:
                alternates = tuple(languages)
                x_default = language_tag(options.x_default) if options.x_default else None
                if defaults:
                    alternates += (("x-default", defaults[0]),)
                elif x_default and x_default in dict(languages):
                    alternates += (("x-default", dict(languages)[x_default]),)
        if adapter_groups and page.alternates != alternates:
            disagree.append(loc)
        if page.alternates != alternates:
            kept[loc] = dataclasses.replace(page, alternates=alternates)
    if refused:
        examples = sorted(refused)[:NOTICE_EXAMPLES]
        more = len(refused) - len(examples)
        report.notices.append(
            Notice(
                "hreflang",
                f"left out the hreflang alternates {len(refused)} page{'s' if len(refused) != 1 else ''} declare"
                f"{'' if len(refused) != 1 else 's'}, which crawlers ignore too: "
                + "; ".join(f"{loc}: {refused[loc]}" for loc in examples)
                + (f"; and {more} more" if more > 0 else ""),
            )
        )
    if disagree:
        report.advice.append(
            f"{len(disagree)} page{'s' if len(disagree) != 1 else ''} declare other hreflang alternates in "
            f"{'their heads' if len(disagree) != 1 else 'its head'} than the site's translations give "
            f"(such as {disagree[0]}); the sitemap follows the pages"
        )
