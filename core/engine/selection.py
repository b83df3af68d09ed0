"""What is listed: the per-page rules every build path applies, in one place.

A page is listed when its URL is in scope and can be written, the adapter did
not leave it out, no exclude glob matches it, the site's robots.txt rules allow
it, and its built head asks for nothing else (noindex, a canonical link to
another page, a redirect). :func:`select_page` applies them in that order, the
cheap ones first; :func:`head_verdict` is the one read of a built page's head,
usable in any process (worker processes read heads ahead of the build, see
:mod:`~sitemapkit.engine.workers`), and what it says travels as a
:data:`HeadVerdict`. Duplicates are the caller's to find: they depend on the
other pages.
"""

from __future__ import annotations

import fnmatch
from pathlib import Path
from urllib.parse import unquote, urlsplit

from ..protocol.errors import ConfigError, UrlError
from ..protocol.model import Excluded, Notice, Options, Page, Report
from ..protocol.robotsrules import RobotsRules
from ..protocol.urls import INDEX_FILE, OutOfScope, Scope, comparable_url, file_spelling, files_serving
from ..publish import publication as publish
from ..site.htmlcheck import HeadFacts, inspect_built_page


#: What a page's head says for the sitemap (see :func:`head_verdict`).
HeadVerdict = tuple[str | tuple[str, str] | None, HeadFacts | None, str | None]
#: A head that says nothing: the page is listed, nothing declared, nothing broken.
NOTHING_SAID: HeadVerdict = (None, None, None)


def head_verdict(
    output: Path | str,
    loc: str,
    scope: Scope,
    options: Options,
    output_dir: Path | None,
    content: str | None = None,
    start: bytes | None = None,
) -> HeadVerdict:
    """What the head of ``output``, the built page at ``loc``, says for the
    sitemap: why it must stay out (a reason, or a reason and where the page
    points) or None; its dates and alternates (None when it declares neither);
    and ``"loc -> target"`` when its canonical link names a page ``output_dir``
    does not have (it stays listed). Reads only that one file (and ``content``,
    the page's :attr:`~Page.content_html`, for its images), so pages can be
    checked in any process, in any order; ``start``: its first bytes, read
    already (see :func:`~sitemapkit.site.htmlcheck.inspect_built_page`)."""
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
            content=content,
            first=start,
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


def images_alone(verdict: HeadVerdict) -> HeadFacts | None:
    """The facts of a :func:`head_verdict` that says nothing but the images its
    page shows (no reason to leave it out, no date, no alternates, no broken
    canonical link), else None."""
    reason, facts, broken = verdict
    if reason is None and broken is None and facts is not None and not (facts.modified or facts.alternates):
        return facts
    return None


#: Pages whose canonical links, all shifted alike, show a wrong base URL: at
#: least this many (a few broken links are a generator's quirk, not a wrong base).
MOVED_BASE_MIN_PAGES = 3


def _nearly_all(count: int, of: int) -> bool:
    """Nine in ten or more: the share of pages that shows a moved base."""
    return count * 10 >= of * 9


def _moved_base(pairs: list[tuple[str, str]], scope: Scope) -> tuple[str, int] | None:
    """The other base URL under which nearly every canonical link of ``pairs``
    (``(loc, target)``) names its own page (the same path below it, from a
    ``/``), and how many do so; None when fewer than MOVED_BASE_MIN_PAGES or
    fewer than nine in ten do (a few pages pointing elsewhere are a site's
    choice, not a wrong base)."""
    if len(pairs) < MOVED_BASE_MIN_PAGES:
        return None
    bases: dict[str, int] = {}
    for loc, target in pairs:
        below = loc[len(scope.prefix) :] if loc.startswith(scope.prefix) else None
        if below is not None and target.endswith(below) and "://" in target:
            base = target[: len(target) - len(below)]
            if base.endswith("/"):
                bases[base] = bases.get(base, 0) + 1
    if not bases:
        return None
    base, count = max(bases.items(), key=lambda item: item[1])
    if base == scope.prefix or not _nearly_all(count, len(pairs)):
        return None
    return base, count


def check_base_against_canonicals(broken_canonicals: list[str], scope: Scope) -> None:
    """Raise :class:`ConfigError` for ``base_url`` when nearly every page whose
    canonical link names a page the site does not have (``loc -> target``) names
    itself under one other base: ``--base-url https://example.org/`` for a site
    published at ``https://example.org/docs/``, whose pages all say so. A sitemap
    of such URLs would list what the host does not serve; the published one is
    left as it is."""
    pairs = [(loc, target) for loc, _, target in (text.partition(" -> ") for text in broken_canonicals)]
    moved = _moved_base(pairs, scope)
    if moved is not None:
        base, count = moved
        raise ConfigError(
            "base_url",
            f"{scope.prefix!r}: the canonical links of {count:,} pages name each page under {base} instead, "
            "where this folder serves no page; set the base URL the site is published at (nothing was written)",
        )


def moved_base_notice(excluded: list[Excluded], scope: Scope, listed: int) -> Notice | None:
    """A notice when nearly every page of the site (nine in ten of those left out
    for their canonical link and the ``listed`` ones) names itself under one
    other base URL, on another host or outside the base path: the site was built
    for that base (``hugo --baseURL`` of a staging host, Jekyll's local
    ``url``), so its pages are left out as copies of pages there. A folder
    beside the base on its host is another version of the same site (mike's
    ``canonical_version``, sphinx-multiversion), whose pages point there on
    purpose: no notice."""
    pairs = [(item.loc, item.detail) for item in excluded if item.reason == "canonical" and item.detail is not None]
    moved = _moved_base(pairs, scope)
    if moved is None:
        return None
    base, count = moved
    if not _nearly_all(count, len(pairs) + listed) or _beside(base, scope.prefix):
        return None
    return Notice(
        "canonical",
        f"left out {count:,} pages whose canonical links name each page under {base} instead of "
        f"{scope.prefix}: the site was built for that base URL; if it is published there, give it as the base URL",
    )


def _beside(base: str, other: str) -> bool:
    """Whether two base URLs are folders side by side on one host (``/1.0/`` and ``/latest/``)."""
    one, two = urlsplit(base), urlsplit(other)
    paths = one.path.rstrip("/"), two.path.rstrip("/")
    return one.netloc == two.netloc and all(paths) and paths[0].rpartition("/")[0] == paths[1].rpartition("/")[0]


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


def build_context(options: Options, publication: publish.Publication) -> tuple[Report, Scope, RobotsRules | None]:
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
    start: bytes | None = None,
) -> tuple[str | None, bool, HeadVerdict | None]:
    """A page's sitemap loc, whether it may be listed, and what its head said
    when this call read it (None when it was given, or not read); what leaves it out goes
    into ``report``, what its head declares (dates, alternates) into ``heads``,
    a canonical link naming a page ``output_dir`` does not have into
    ``broken_canonicals``. The loc is None for a page that is out of scope or
    whose URL cannot be written (it dates nothing). Duplicates are the caller's
    to find. ``verdict`` is what :func:`head_verdict` said of the page's head,
    when it was read already (in a worker process); ``start``: the first bytes
    of its built file, read already (see :func:`head_verdict`)."""
    try:
        loc = scope.loc(page.loc)
    except OutOfScope as out:
        report.excluded.append(Excluded(page.loc, out.reason))
        return None, False, None
    except UrlError as error:
        report.excluded.append(Excluded(repr(page.loc), "invalid URL"))
        report.notices.append(Notice("url", f"left out a page whose URL cannot be written: {error}"))
        return None, False, None
    read: HeadVerdict | None = None
    reason: str | tuple[str, str] | None
    if page.exclude_reason is not None:
        reason = page.exclude_reason
    elif not page.listed:
        reason = "metadata"
    else:
        reason, read = _exclusion(
            page, loc, scope, options, rules, heads, output_dir, broken_canonicals, verdict, start
        )
    if reason is None:
        return loc, True, read
    if isinstance(reason, tuple):
        report.excluded.append(Excluded(loc, reason[0], reason[1]))
        if reason[0] == "unreadable":
            report.notices.append(Notice("unreadable", f"left out {loc}: cannot read {reason[1]}"))
    else:
        report.excluded.append(Excluded(loc, reason))
    return loc, False, read


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
    start: bytes | None = None,
) -> tuple[str | tuple[str, str] | None, HeadVerdict | None]:
    """Why ``page`` must stay out of the sitemap (a reason, or a reason and where
    the page points), or None; and its head's verdict when read here. The cheap
    checks first: globs, then robots.txt rules, then the built page's head (its
    ``verdict`` when it was read already),
    whose dates and alternates go to ``heads``."""
    if options.exclude:
        below = scope.path_below(loc)
        decoded = unquote(below)
        if any(fnmatch.fnmatchcase(below, p) or fnmatch.fnmatchcase(decoded, p) for p in options.exclude):
            return "exclude", None
    if rules is not None:
        parts = urlsplit(loc)
        if not rules.allows(parts.path + ("?" + parts.query if parts.query else "")):
            return "robots.txt", None
    if page.output is None:
        return None, None
    read = None
    if verdict is None:
        read = verdict = head_verdict(page.output, loc, scope, options, output_dir, page.content_html, start)
    reason, facts, broken_text = verdict
    if facts is not None:
        heads[loc] = facts
    if broken_text is not None and broken is not None:
        broken.append(broken_text)
    return reason, read


def _path(value) -> Path:
    # Adapters mostly hand Path objects already; wrapping again is not free.
    return value if isinstance(value, Path) else Path(value)


def _serves(output_dir: Path, scope: Scope, url: str) -> bool | None:
    """Whether the output folder holds a file a static host serves at ``url``
    (:func:`~sitemapkit.protocol.urls.files_serving`), or the page in the other URL
    form (``guide/install.html`` for ``guide/install/``: the page a canonical
    written for the other form means); None for a URL outside the base folder,
    whose pages this build does not know."""
    key = comparable_url(url)
    prefix = comparable_url(scope.prefix)
    if not key.startswith(prefix):
        return None
    below = unquote(key[len(prefix) :].split("?", 1)[0].split("#", 1)[0])
    candidates = list(files_serving(below))
    if below.endswith("/") and below.strip("/"):
        candidates.append(below[:-1] + ".html")  # the other form of guide/install/
    return any((output_dir / name).is_file() for name in candidates)


def _other_builder_form(output: Path | str, loc: str, target: str) -> bool:
    """Whether ``target`` is the page at ``loc`` written in the other URL form of
    generators that build either (``guide/install/`` and ``guide/install.html``;
    ``contact`` for ``contact.html``), and the site has no file at ``target``: then the generator named the page
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
        other_file = output.with_suffix("") / INDEX_FILE
    elif page_path.endswith(".html") and target_path == page_path[: -len(".html")]:
        # .../contact for .../contact.html (Jekyll's "permalink: /contact"): a
        # static host serves the page there when no file comes before it in
        # files_serving("contact"): "contact" itself.
        return not output.with_suffix("").exists()
    else:
        return False
    return not other_file.exists()
