"""hreflang alternates: which versions of a page each entry names.

Versions are the pages sharing a ``translation_key`` plus any alternates an
adapter gives (:func:`group_alternates`); the alternates pages declare in their
heads replace those, when every page a group names declares the same group
(checked across all the listed pages, so after every page is selected).
"""

from __future__ import annotations

import dataclasses

from ..protocol.languages import X_DEFAULT, hreflang_value, language_tag
from ..protocol.model import NOTICE_EXAMPLES, Notice, Options, Page, Report
from ..protocol.urls import comparable_url
from ..site.htmlcheck import HeadFacts


def group_alternates(kept: dict[str, Page], options: Options, report: Report, heads: dict[str, HeadFacts]) -> None:
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
        given = [(code, href) for code, href in given if hreflang_value(code) != X_DEFAULT]
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
        _head_alternates(kept, options, report, heads)


def _head_alternates(kept: dict[str, Page], options: Options, report: Report, heads: dict[str, HeadFacts]) -> None:
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
            tag = hreflang_value(code)
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
            languages = sorted((tag, target) for tag, target in group if tag != X_DEFAULT)
            defaults = [target for tag, target in group if tag == X_DEFAULT]
            if len({tag for tag, _ in languages}) != len(languages) or len(defaults) > 1:
                refused[loc] = "it names two pages for one language"
                alternates = ()
            elif len(languages) < 2:
                alternates = ()
            else:
                alternates = tuple(languages)
                x_default = language_tag(options.x_default) if options.x_default else None
                if defaults:
                    alternates += ((X_DEFAULT, defaults[0]),)
                elif x_default and x_default in dict(languages):
                    alternates += ((X_DEFAULT, dict(languages)[x_default]),)
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
