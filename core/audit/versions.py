"""One root sitemap over a versioned documentation site (``sitemapkit versions``).

A versioned site (mike's ``gh-pages`` branch, sphinx-multiversion's output)
serves every version of the docs in a folder of its own, each a full copy, each
with the sitemap its build wrote (a ``<urlset>`` of that version's pages at the
URLs they are served at: Material's version selector reads it). This module
reads those published sitemaps and the pages' heads back, and decides what the
root sitemap lists: one copy of each page, the canonical version's, under the
URL its ``<link rel="canonical">`` names. It writes nothing into the version
folders; the root files go through the one publication every build uses.

Which version is canonical: ``--canonical``; else mike's ``canonical_version``
(read from the pages: their canonical links name it); else mike's default (the
version or alias the root ``index.html`` redirects to, ``mike set-default``);
else the newest release by version order.
"""

from __future__ import annotations

import dataclasses
import xml.etree.ElementTree as ElementTree
from collections.abc import Iterator
from pathlib import Path

from ..protocol.dates import parse_lastmod
from ..protocol.encoder import EncodeResult, encode_index, encode_pages, newest_lastmod_in
from ..protocol.errors import ConfigError, SitemapkitError
from ..protocol.model import Excluded, Notice, Options, Page, Report
from ..protocol.patterns import deferred
from ..protocol.urls import Scope, same_file_key
from ..publish import publication as publish
from ..site.htmlcheck import inspect_built_page
from .check import SiteFolder
from .versionfolders import VERSION_SITEMAP, Version, find_versions

#: The code of the warnings of this module.
NOTICE_CODE = "versions"

_SITEMAP_NS = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
# A release is a version number alone ("1.0", "v2.1.3"): mike sorts names
# without a leading digit ("dev", "main") as newer than every release, and a
# pre-release ("2.1rc1", "3.0.dev0") is no release either.
_RELEASE = deferred(r"v?(\d+(?:\.\d+)*)")
# The most of a sitemap file read back: the protocol's own limit ("no larger than 50MB").
_SITEMAP_READ_LIMIT = 50 * 1024 * 1024


@dataclasses.dataclass
class RootPlan:
    """What the root sitemap lists, and why."""

    versions: list[Version]
    #: The version folder whose pages are listed, and the name chosen (it or an alias).
    canonical: Version
    chosen: str
    #: How it was chosen, in words.
    why: str
    pages: list[Page] = dataclasses.field(default_factory=list)
    #: With ``all_versions``: each version's own sitemap (path below the root, newest lastmod).
    sitemaps: list[tuple[str, str | None]] = dataclasses.field(default_factory=list)
    excluded: list[Excluded] = dataclasses.field(default_factory=list)
    notices: list[Notice] = dataclasses.field(default_factory=list)


def release_key(name: str) -> tuple[int, ...] | None:
    """The version order of a release name (``1.10`` after ``1.9``), None for a name that is no release."""
    match = _RELEASE.fullmatch(name)
    return tuple(int(part) for part in match.group(1).split(".")) if match else None


def _newest_first(versions: list[Version]) -> list[Version]:
    releases = [v for v in versions if release_key(v.name) is not None]
    return sorted(releases, key=lambda v: release_key(v.name) or (), reverse=True)


def _parsed(name: str, path: Path) -> ElementTree.Element:
    """The root element of the sitemap file ``name`` at ``path``."""
    if path.stat().st_size > _SITEMAP_READ_LIMIT:
        raise SitemapkitError(f"{name} is larger than a sitemap may be")
    try:
        return ElementTree.parse(path).getroot()
    except ElementTree.ParseError as error:
        raise SitemapkitError(f"{name} is no well-formed XML ({error})") from None


def _page_entries(folder: SiteFolder, scope: Scope, name: str) -> Iterator[tuple[str, str | None]]:
    """(loc, lastmod as written) of every URL the sitemap ``name`` (below the root) lists,
    and of the sitemaps its index lists."""
    path, why = folder.file(name)
    if path is None:
        raise SitemapkitError(f"{name} {why}")
    top = _parsed(name, path)
    if top.tag == _SITEMAP_NS + "sitemapindex":
        for item in top.findall(_SITEMAP_NS + "sitemap"):
            below = scope.file_below((item.findtext(_SITEMAP_NS + "loc") or "").strip())
            if below is None:
                raise SitemapkitError(f"{name} lists a sitemap outside the root")
            yield from _page_entries(folder, scope, below)
        return
    if top.tag != _SITEMAP_NS + "urlset":
        raise SitemapkitError(f"{name} is no sitemap (its root element is {top.tag!r})")
    for item in top.findall(_SITEMAP_NS + "url"):
        lastmod = item.findtext(_SITEMAP_NS + "lastmod")
        yield (item.findtext(_SITEMAP_NS + "loc") or "").strip(), lastmod.strip() if lastmod else None


def _version_sitemaps(folder: SiteFolder, scope: Scope, name: str) -> list[tuple[str, str | None]]:
    """The sitemap files (below the root, with their newest lastmod) a version's
    ``name`` stands for: itself, or the shards its index lists (an index may not
    list an index)."""
    path, why = folder.file(name)
    if path is None:
        raise SitemapkitError(f"{name} {why}")
    top = _parsed(name, path)
    if top.tag != _SITEMAP_NS + "sitemapindex":
        return [(name, newest_lastmod_in(path.read_bytes()))]
    shards = []
    for item in top.findall(_SITEMAP_NS + "sitemap"):
        below = scope.file_below((item.findtext(_SITEMAP_NS + "loc") or "").strip())
        if below is None:
            raise SitemapkitError(f"{name} lists a sitemap outside the root")
        lastmod = item.findtext(_SITEMAP_NS + "lastmod")
        shards.append((below, lastmod.strip() if lastmod else None))
    return shards


def _top_folder(scope: Scope, url: str) -> str | None:
    below = scope.file_below(url)
    return below.split("/", 1)[0] if below and "/" in below else None


def _declared_canonical(folder: SiteFolder, scope: Scope, versions: list[Version]) -> str | None:
    """mike's ``canonical_version``, as the pages declare it: the version or alias
    the canonical link of a version's first page names, when it is not the
    version's own folder (the newest version that says so)."""
    names = {name for v in versions for name in (v.name, *v.aliases)}
    ordered = _newest_first(versions) + [v for v in versions if release_key(v.name) is None]
    for version in ordered:
        first = next(_page_entries(folder, scope, f"{version.name}/{VERSION_SITEMAP}"), None)
        if first is None:
            continue
        path, _, _ = folder.page_file(scope.file_below(first[0]) or "")
        if path is None:
            continue
        facts = inspect_built_page(path, first[0], noindex=False, redirects=False)
        if facts.canonical_target is None:
            continue
        named = _top_folder(scope, facts.canonical_target)
        if named in names and named != version.name:
            return named
    return None


def _default_version(root: Path, scope: Scope, versions: list[Version]) -> str | None:
    """The version or alias the root ``index.html`` redirects to (``mike set-default``)."""
    index = root / "index.html"
    if not index.is_file():
        return None
    facts = inspect_built_page(index, scope.prefix, noindex=False, canonical=False)
    if facts.redirect_target is None:
        return None
    below = scope.file_below(facts.redirect_target)
    named = below.split("/", 1)[0] if below else None
    return named if any(named in (v.name, *v.aliases) for v in versions) else None


def plan_root(
    root: Path | str,
    base_url: str,
    *,
    names: list[str] | None = None,
    canonical: str | None = None,
    all_versions: bool = False,
) -> RootPlan:
    """What the root sitemap of the versioned site in ``root``, served at
    ``base_url``, lists. Reads only below ``root``; writes nothing."""
    root = Path(root)
    versions = find_versions(root, names)
    scope = Scope(base_url)
    folder = SiteFolder(root)
    by_name = {name: v for v in versions for name in (v.name, *v.aliases)}
    declared = None
    if canonical is not None:
        if canonical not in by_name:
            known = ", ".join(sorted(by_name))
            raise ConfigError("canonical", f"{canonical!r} names no version or alias of the site ({known})")
        chosen, why = canonical, "named with --canonical"
    elif (declared := _declared_canonical(folder, scope, versions)) is not None:
        chosen, why = declared, "mike's canonical_version, as the pages' canonical links name it"
    elif (default := _default_version(root, scope, versions)) is not None:
        chosen, why = default, "the default the root index.html redirects to"
    else:
        newest = _newest_first(versions)
        if not newest:
            raise SitemapkitError(
                f"no release among the versions ({', '.join(v.name for v in versions)}); "
                "name the canonical one with --canonical"
            )
        chosen, why = newest[0].name, "the newest release"
    plan = RootPlan(versions, by_name[chosen], chosen, why)
    if all_versions and declared is not None:
        # Every other version's pages name the canonical one's as their canonical:
        # an index of all their sitemaps lists duplicates crawlers drop, and the
        # audit reports each as an error.
        raise ConfigError(
            "all_versions",
            f"the pages' canonical links name {declared}/ (mike's canonical_version), so the other versions' "
            f"URLs are duplicates; leave --all-versions out to list the pages of {declared}",
        )
    if all_versions:
        for version in sorted(versions, key=lambda v: v.name):
            plan.sitemaps.extend(_version_sitemaps(folder, scope, f"{version.name}/{VERSION_SITEMAP}"))
        return plan
    _plan_pages(plan, folder, scope)
    return plan


def _plan_pages(plan: RootPlan, folder: SiteFolder, scope: Scope) -> None:
    """The canonical version's pages, each under the URL its canonical link names,
    when a page that is no redirect and names itself serves that URL."""
    version = plan.canonical
    own = {version.name, *version.aliases}
    every_name = {name for v in plan.versions for name in (v.name, *v.aliases)}
    listed: dict[str, str | None] = {}
    loops: list[str] = []
    broken: list[str] = []
    for loc, lastmod in _page_entries(folder, scope, f"{version.name}/{VERSION_SITEMAP}"):
        path, _, _ = folder.page_file(scope.file_below(loc) or "")
        if path is None:
            plan.excluded.append(Excluded(loc, "no file"))
            continue
        facts = inspect_built_page(path, loc)
        if facts.reason in ("noindex", "redirect"):
            plan.excluded.append(Excluded(loc, facts.reason))
            continue
        target = facts.canonical_target or loc
        if target != loc:
            top = _top_folder(scope, target)
            if top not in own and top in every_name:
                plan.excluded.append(Excluded(loc, "canonical in another version", target))
                continue
            target_path, _, _ = folder.page_file(scope.file_below(target) or "")
            if target_path is None or top not in own:
                # A canonical naming no page is broken: crawlers pass over it,
                # so the page is listed under its own URL (as every build does).
                broken.append(f"{loc} -> {target}")
                listed.setdefault(scope.loc(loc), lastmod)
                continue
            served = inspect_built_page(target_path, target)
            if served.reason == "redirect" and same_file_key(served.redirect_target or "") == same_file_key(loc):
                # mike's alias_type: redirect with canonical_version naming the
                # alias: the URL the site declares canonical is a stub leading
                # back to the page. Listed, as the site declares it; one warning.
                loops.append(target)
            elif served.reason is not None:
                plan.excluded.append(Excluded(loc, f"canonical is a {served.reason} page", target))
                continue
        listed.setdefault(scope.loc(target), lastmod)
    plan.pages = [
        Page(loc, lastmod=None if lastmod is None else parse_lastmod(lastmod))
        for loc, lastmod in sorted(listed.items())
    ]
    if broken:
        plan.notices.append(
            Notice(
                NOTICE_CODE,
                f"the canonical links of {len(broken)} pages of {version.name} name no page of a version "
                f"(e.g. {broken[0]}), so they are listed under their own URLs; build each version with its "
                "own folder in its base URL (Sphinx: html_baseurl) for canonical links that lead somewhere",
            )
        )
    if loops:
        plan.notices.append(
            Notice(
                NOTICE_CODE,
                f"the {len(loops)} URLs the pages of {version.name} declare canonical (under {plan.chosen}/, "
                f"e.g. {loops[0]}) are redirect stubs leading back to {version.name}/: crawlers are sent in a loop; "
                "deploy the alias with mike's alias_type: symlink or copy",
            )
        )


def publish_root(root: Path | str, options: Options, plan: RootPlan) -> Report:
    """Write the root sitemap (and robots.txt line) for ``plan`` into ``root``, as
    every build writes its set: locked, atomic, stale root files removed."""
    report = Report(excluded=list(plan.excluded), notices=list(plan.notices))
    with publish.Publication(Path(root), options) as publication:
        result = EncodeResult()
        if plan.sitemaps:
            files = publication.write(encode_index(plan.sitemaps, options, result))
        else:
            files = publication.write(encode_pages(plan.pages, options, result))
        report.excluded.extend(result.excluded)
        report.notices.extend(result.notices)
        return publish.finish(publication, files, result, report)
