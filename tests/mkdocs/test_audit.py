"""``sitemapkit check`` on the sitemaps MkDocs and Zensical write themselves, and
on ours of the same real build (the fixture in git with set dates): MkDocs'
stamps its build's clock on every page and lists a noindex page, a page whose
canonical is another and one robots.txt disallows; Zensical's lists those and
URLs for two pages that no file serves (so those pages go unlisted), and has no
lastmod. (The redirect stub its redirects plugin writes it leaves out of its
sitemap, here: the redirect kind is shown by sphinx-sitemap's and in
tests/core/test_audit.py.)
Ours has no error finding."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import run_sitemapkit

from .conftest import QUIET_ENV, Project
from .test_config_command import copy_of, repository, sitemapkit, zensical_build

__all__ = ["repository"]  # the fixture, shared with test_config_command

BASE = "https://example.org/"
#: What the fixture's pages ask of a sitemap, each broken by both incumbents.
LEFT_OUT = {
    "noindex": {BASE + "noindex/"},
    "canonical": {BASE + "elsewhere/"},
    "robots": {BASE + "private/"},
}


#: Pages ours leaves out by rules no built page shows (--exclude, front matter's
#: ``sitemap: false``): warnings.
UNLISTED_BY_OPTIONS = {"unlisted": {BASE + "archive/old/", BASE + "hidden/"}}


def audit(site: Path, problems: tuple[str, ...] = ()) -> tuple[dict[str, set[str]], bool]:
    """The findings of ``sitemapkit check`` by kind, and whether it failed; its
    protocol problems are ``problems``."""
    done = run_sitemapkit("check", str(site), "--base-url", BASE, "--format", "json", env=QUIET_ENV)
    data = json.loads(done.stdout)
    assert [problem["message"] for problem in data["problems"]] == list(problems)
    assert done.returncode == (1 if data["failed"] else 0)
    found: dict[str, set[str]] = {}
    for finding in data["findings"]:
        found.setdefault(finding["kind"], set()).add(finding["url"])
    return found, data["failed"]


def test_mkdocs_own_sitemap_and_ours(repository):
    project = Project(copy_of(repository, "plain"))
    project.configure(plugins=["search", {"redirects": {"redirect_maps": {"moved.md": "guide/install.md"}}}])
    site = project.build()
    found, failed = audit(site)
    assert failed
    assert found == {**LEFT_OUT, "batch-lastmod": {BASE + "sitemap.xml"}}, found

    result = sitemapkit(project.root, "--config", "mkdocs.yml", "--exclude", "archive/*")
    assert result.returncode == 0, result.stderr
    found, failed = audit(site)
    # The page --exclude left out is one no rule of the built folder sees: a warning.
    assert (found, failed) == (UNLISTED_BY_OPTIONS, False)


#: Zensical's URLs for names/lit%20eral.md and names/what?.md, which no file serves.
ZENSICAL_PROBLEMS = (
    "https://example.org/names/lit%20eral/ has no file in the site (looked for names/lit eral/index.html)",
    "https://example.org/names/what has no file in the site (looked for names/what)",
)


def test_zensical_own_sitemap_and_ours(repository):
    root = copy_of(repository, "zensical")
    # Zensical's own redirects: the stub it writes is not in its sitemap, and the
    # audit's rules know it for one (not an unlisted page).
    with open(root / "zensical.toml", "a", encoding="utf-8") as config:
        config.write('\n[project.plugins.redirects.redirect_maps]\n"moved.md" = "guide/install.md"\n')
    zensical_build(root, "zensical.toml")
    assert (root / "site" / "moved" / "index.html").is_file()
    found, failed = audit(root / "site", ZENSICAL_PROBLEMS)
    assert failed
    assert found == {
        **LEFT_OUT,
        # Its URLs for the two pages below, and the pages themselves, unlisted.
        "no-file": {BASE + "names/lit%20eral/", BASE + "names/what"},
        "unlisted": {BASE + "names/lit%2520eral/", BASE + "names/what%3F/"},
    }, found

    result = sitemapkit(root, "--config", "zensical.toml")
    assert result.returncode == 0, result.stderr
    found, failed = audit(root / "site")
    # Zensical's page for what?.md names ".../what" as its canonical, a page the
    # site does not have: listed, as the build does, and a warning.
    assert (found, failed) == ({**UNLISTED_BY_OPTIONS, "broken-canonical": {BASE + "names/what%3F/"}}, False)
