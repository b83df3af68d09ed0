"""`sitemapkit build` over fixtures/static, a hand-written site, as a user runs it."""

from __future__ import annotations

import shutil
from pathlib import Path

from conftest import FIXTURES, assert_every_page_accounted, sitemap_entries, run_sitemapkit

# fixtures/static/names/*.html as served: each of RFC 3986's sub-delims and "@"
# as it is, a space and non-ASCII encoded, and "#", "?" and "%" encoded as data.
NAMES = [
    "a&b",
    "a+b",
    "a(b)",
    "a,b",
    "a;b",
    "a=b",
    "a!b",
    "a$b",
    "a*b",
    "a'b",
    "a@b",
    "a%20b",
    "%C3%BCber",
    "c%23sharp",
    "what%3F",
    "lit%2520eral",
]


def test_static_site_lists_only_indexable_pages(tmp_path: Path) -> None:
    site = tmp_path / "site"
    shutil.copytree(FIXTURES / "static", site)
    robots_before = (site / "robots.txt").read_text()
    result = run_sitemapkit("build", str(site), "--base-url", "https://example.org/", "--verbose")
    assert result.returncode == 0, result.stderr
    assert set(sitemap_entries(site)) == {
        "https://example.org/",
        "https://example.org/about/",
        "https://example.org/blog/%C3%BCmlaut%20post.html",
        "https://example.org/blog/q&a.html",
        "https://example.org/fr/",
        # File names are names: each character a path segment may not hold is
        # encoded, "%" included; each page's canonical link spells its own URL
        # with more escapes (as MkDocs and Hugo do) and still names the page itself.
        *(f"https://example.org/names/{name}.html" for name in NAMES),
    }
    summary = result.stdout.splitlines()[0]
    assert summary.endswith("excluded 1 canonical, 2 error page, 2 noindex, 1 redirect, 1 robots.txt"), summary
    assert assert_every_page_accounted(site, "https://example.org/", result.stdout) == {
        "404.html": "error page",
        "fr/404.html": "error page",
        "blog/draft.html": "noindex",
        "blog/draft-utf16.html": "noindex",
        "blog/print.html": "canonical",
        "old/index.html": "redirect",
        "private/index.html": "robots.txt",
    }
    # Verbose: every excluded URL with its reason.
    assert "excluded (noindex): https://example.org/blog/draft.html" in result.stdout
    # Read through its byte order mark: UTF-16 is no reason to list a noindex page.
    assert "excluded (noindex): https://example.org/blog/draft-utf16.html" in result.stdout
    assert "excluded (robots.txt): https://example.org/private/" in result.stdout
    assert (
        "excluded (canonical): https://example.org/blog/print.html -> https://example.org/blog/q&a.html"
        in result.stdout
    )
    robots = (site / "robots.txt").read_text()
    assert robots.startswith(robots_before) and robots.endswith("Sitemap: https://example.org/sitemap.xml\n")
    check = run_sitemapkit("check", str(site), "--base-url", "https://example.org/")
    assert check.returncode == 0, check.stdout


def test_each_check_can_be_switched_off(tmp_path: Path) -> None:
    site = tmp_path / "site"
    shutil.copytree(FIXTURES / "static", site)
    result = run_sitemapkit(
        "build",
        str(site),
        "--base-url",
        "https://example.org/",
        "--lastmod",
        "none",
        "--no-check-noindex",
        "--no-check-canonical",
        "--no-check-redirects",
        "--no-check-robots-rules",
    )
    assert result.returncode == 0, result.stderr
    assert len(sitemap_entries(site)) == 9 + 1 + len(NAMES)
