"""How an entry is dated: one rule for every build path.

A page's date is the first there is of: its metadata (an adapter's front matter,
a URL list's column); the git date or file time of its source, when that is a
file of its own; the dates its built head declares
(:meth:`~sitemapkit.site.htmlcheck.HeadFacts.declared_date`); the git date or
file time of the built page itself. A page whose only source is its built file
(``sitemapkit build`` on a plain folder) is dated by its head before the file.
Listing pages (tags, categories, indexes) are dated by their newest member. File
times that all fall in one moment are no page's last change and date nothing
(:func:`~sitemapkit.site.lastmod.one_batch`); git, file times and that rule are
:mod:`~sitemapkit.site.lastmod`'s, over every dated page in one pass.
"""

from __future__ import annotations

import datetime as dt
import itertools
import operator
import os
from collections.abc import Iterator
from pathlib import Path

from ..protocol.dates import W3C_DATETIME, lastmod_instant, parse_lastmod
from ..protocol.errors import LastmodError, UrlError
from ..protocol.model import Lastmod, Options, Page, Report
from ..protocol.urls import OutOfScope, Scope
from ..site.htmlcheck import HeadFacts
from ..site.lastmod import resolve_file_lastmods


def date_pages(
    kept: dict[str, Page],
    left_out: dict[str, Page],
    scoped: dict[str, str],
    options: Options,
    scope: Scope,
    report: Report,
    heads: dict[str, HeadFacts],
    date_advice: str | None = None,
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
        found = resolve_file_lastmods(sources, options.lastmod, only_included, date_advice=date_advice)
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
        except LastmodError as error:
            where = f"{page.source} ({page.loc})" if page.source is not None else repr(page.loc)
            raise LastmodError(f"lastmod of {where}: {error}") from None
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
    return file if isinstance(file, str) and file in dates else str(file if isinstance(file, Path) else Path(file))


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
        raise LastmodError(f"lastmod of {where}: {error}") from None
