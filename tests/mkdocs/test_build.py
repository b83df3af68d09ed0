"""The MkDocs adapter on real builds of fixtures/mkdocs: what is listed, lastmod, robots.txt."""

from __future__ import annotations

import datetime as dt
import gzip
import logging
import os

import pytest

from conftest import (
    assert_every_page_accounted,
    assert_valid,
    read_ahead_in_workers,
    read_bytes,
    sitemap_entries,
    run_sitemapkit,
)

from .conftest import FIRST_COMMIT, git

# Every page `mkdocs build` writes, minus those that must stay out: hidden.md
# (sitemap: false), private.md (robots.txt Disallow), noindex.md (robots meta),
# elsewhere.md (canonical names another page), archive/old.md (exclude glob),
# secret.md (exclude_docs), drafts/ (draft_docs), the redirect stub moved/ and 404.html.
# docs/names/: a page for each of "& + ( ) , ; = ! $ * ' @", a space, non-ASCII,
# "#", "?" and "%", under the URL MkDocs gives it (page.url, kept as it is).
NAMES = [
    "%C3%A7a",
    "a%20b",
    "a%21b",
    "a%24b",
    "a%26b",
    "a%27b",
    "a%28b%29",
    "a%2Ab",
    "a%2Bb",
    "a%2Cb",
    "a%3Bb",
    "a%3Db",
    "a%40b",
    "c%23sharp",
    "lit%2520eral",
    "what%3F",
]
LISTED_DIRECTORY_URLS = [
    "",
    "%C3%BCmlaut/",
    "a%26b/",
    "dated/",
    "guide/",
    "guide/advanced/deep/",
    "guide/install/",
    "orphan/",
    *(f"names/{name}/" for name in NAMES),
]
LISTED_FILE_URLS = [
    "index.html",
    "%C3%BCmlaut.html",
    "a%26b.html",
    "dated.html",
    "guide/index.html",
    "guide/advanced/deep.html",
    "guide/install.html",
    "orphan.html",
    *(f"names/{name}.html" for name in NAMES),
]
# Written by the build but never listed: proves the exclusions above were tested on real files.
BUILT_NOT_LISTED_DIRECTORY_URLS = [
    "404.html",
    "hidden/",
    "private/",
    "noindex/",
    "elsewhere/",
    "archive/old/",
    "moved/",
]


def built_file(site, url: str):
    return site / (url + "index.html" if url.endswith("/") or url == "" else url)


def locs(site) -> set[str]:
    return set(sitemap_entries(site))


@pytest.mark.parametrize(
    ("use_directory_urls", "listed"),
    [(True, LISTED_DIRECTORY_URLS), (False, LISTED_FILE_URLS)],
    ids=["directory-urls", "file-urls"],
)
def test_lists_every_built_page_once_with_mkdocs_url(project, use_directory_urls, listed):
    project.configure(use_directory_urls=use_directory_urls)
    site = project.build()
    assert locs(site) == {"https://example.org/" + url for url in listed}
    from urllib.parse import unquote

    for url in listed:
        assert built_file(site, unquote(url)).is_file(), url


def test_pages_left_out_were_built(project):
    site = project.build()
    for url in BUILT_NOT_LISTED_DIRECTORY_URLS:
        assert built_file(site, url).is_file(), url
    assert not (site / "secret").exists()
    assert not (site / "drafts").exists()
    assert "Redirecting..." in (site / "moved" / "index.html").read_text()


def test_site_url_with_a_sub_path(project):
    project.configure(site_url="https://example.org/docs/")
    site = project.build()
    # robots.txt's "Disallow: /private" does not reach /docs/private/.
    assert locs(site) == {"https://example.org/docs/" + url for url in [*LISTED_DIRECTORY_URLS, "private/"]}
    # robots.txt below the host root is not read by crawlers: it is left as written.
    assert (site / "robots.txt").read_bytes() == (project.root / "docs" / "robots.txt").read_bytes()


def test_mkdocs_material(project, caplog):
    project.configure(theme={"name": "material", "custom_dir": "overrides"})
    with caplog.at_level(logging.WARNING):
        site = project.build()
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []
    assert locs(site) == {"https://example.org/" + url for url in LISTED_DIRECTORY_URLS}
    assert not (site / "sitemap.xml.gz").exists()


def test_robots_txt_keeps_its_lines_and_gains_the_sitemap_line(project):
    site = project.build()
    own = (project.root / "docs" / "robots.txt").read_text().splitlines()
    lines = (site / "robots.txt").read_text().splitlines()
    assert [line for line in lines if not line.startswith("Sitemap:")][: len(own)] == own
    assert [line for line in lines if line.startswith("Sitemap:")] == ["Sitemap: https://example.org/sitemap.xml"]


def test_mkdocs_own_sitemap_is_replaced(project, caplog):
    with caplog.at_level(logging.INFO):
        site = project.build()
    assert_valid(site / "sitemap.xml")
    # MkDocs' own sitemap lists hidden.md and stamps the build date; ours is the only one.
    assert "hidden" not in (site / "sitemap.xml").read_text()
    assert not (site / "sitemap.xml.gz").exists()
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []
    assert any(r.getMessage().startswith(f"sitemapkit: {len(LISTED_DIRECTORY_URLS)} URLs") for r in caplog.records)


def test_gzip_copy_under_mkdocs_old_name(project):
    project.configure(sitemapkit={"gzip_copy": True})
    site = project.build()
    assert gzip.decompress((site / "sitemap.xml.gz").read_bytes()) == (site / "sitemap.xml").read_bytes()
    assert_valid(site / "sitemap.xml.gz")


def test_same_input_same_bytes(project, tmp_path):
    first = project.build(site_dir=tmp_path / "one")
    second = project.build(site_dir=tmp_path / "two")
    for name in ("sitemap.xml", "robots.txt"):
        assert read_bytes(first / name) == read_bytes(second / name), name


def test_heads_read_by_worker_processes_give_the_same_bytes(project, tmp_path, monkeypatch):
    """build_site's read-ahead in worker processes, inside a real MkDocs build
    (large sites take it), changes nothing in what is written."""
    here = project.build(site_dir=tmp_path / "here")
    with read_ahead_in_workers(monkeypatch):
        forked = project.build(site_dir=tmp_path / "forked")
    for name in ("sitemap.xml", "robots.txt"):
        assert read_bytes(forked / name) == read_bytes(here / name), name


def test_dirty_build_still_lists_unchanged_pages(project):
    """`mkdocs build --dirty` and `mkdocs serve --dirty` skip unchanged pages without reading them."""
    site = project.build()
    before = (site / "sitemap.xml").read_bytes()
    os.utime(project.root / "docs" / "orphan.md")
    project.build(dirty=True)
    # Unread pages keep their front matter: dated.md its date, hidden.md sitemap: false.
    assert (site / "sitemap.xml").read_bytes() == before


def test_other_filename_leaves_no_sitemap_xml(project):
    project.configure(sitemapkit={"filename": "pages.xml"})
    site = project.build()
    assert set(sitemap_entries(site, "pages.xml")) == {"https://example.org/" + url for url in LISTED_DIRECTORY_URLS}
    # Neither MkDocs' rendered sitemap nor its raw template (a theme file once it is
    # no static template) may be left behind.
    assert not (site / "sitemap.xml").exists()
    assert not (site / "sitemap.xml.gz").exists()
    assert "Sitemap: https://example.org/pages.xml" in (site / "robots.txt").read_text()


# --- lastmod: the fixture's git dates ---------------------------------------------------

SECOND_COMMIT = dt.datetime(2022, 7, 15, 8, 30, tzinfo=dt.timezone(dt.timedelta(hours=2)))
CHANGED_IN_SECOND = ["guide/install.md", "ümlaut.md"]


def instant(value: str) -> dt.datetime:
    return dt.datetime.fromisoformat(value.replace("Z", "+00:00"))


def test_lastmod_is_the_git_commit_date(project):
    root = project.root
    for name in CHANGED_IN_SECOND:
        with open(root / "docs" / name, "a", encoding="utf-8") as f:
            f.write("\nChanged.\n")
    git(root, "commit", "-q", "-a", "-m", "second", when=SECOND_COMMIT)
    # Fresh file times: only git knows the true dates now.
    for path in (root / "docs").rglob("*.md"):
        os.utime(path)

    entries = sitemap_entries(project.build())

    def lastmod(url: str) -> str:
        return entries["https://example.org/" + url]["lastmod"]

    assert instant(lastmod("guide/install/")) == SECOND_COMMIT
    assert instant(lastmod("%C3%BCmlaut/")) == SECOND_COMMIT
    for url in ("", "a%26b/", "guide/", "guide/advanced/deep/", "orphan/"):
        assert instant(lastmod(url)) == FIRST_COMMIT, url
    # Front matter wins over git, and stays a plain date.
    assert lastmod("dated/") == "2021-03-04"


@pytest.mark.parametrize("theme", ["mkdocs", "material"])
def test_every_page_written_is_listed_or_reported_with_its_reason(project, theme):
    project.configure(theme={"name": theme, "custom_dir": "overrides"}, sitemapkit={"report_file": "report.txt"})
    site = project.build()
    assert assert_every_page_accounted(site, "https://example.org/", (site / "report.txt").read_text()) == {
        "404.html": "error page",
        "hidden/index.html": "metadata",
        "private/index.html": "robots.txt",
        "noindex/index.html": "noindex",
        "elsewhere/index.html": "canonical",
        "archive/old/index.html": "exclude",
        # mkdocs-redirects writes its stubs itself, not as MkDocs pages.
        "moved/index.html": "redirect",
    }


def test_sitemapkit_build_over_mkdocs_output_lists_the_same_pages(project):
    """MkDocs writes each canonical link with every reserved character escaped
    (a%26b/); `sitemapkit build` over its output compares the file the link
    names, so no page is "canonical elsewhere" by spelling alone."""

    site = project.build()
    listed = locs(site)
    (site / "sitemap.xml").unlink()
    result = run_sitemapkit(
        "build",
        str(site),
        "--base-url",
        "https://example.org/",
        "--exclude",
        "archive/*",
        "--exclude",
        "hidden/",
        "--lastmod",
        "none",
    )
    assert result.returncode == 0, result.stderr
    from urllib.parse import unquote

    # The same pages; MkDocs escapes sub-delims the core leaves as they are.
    assert sorted(map(unquote, locs(site))) == sorted(map(unquote, listed))
    check = run_sitemapkit("check", str(site), "--base-url", "https://example.org/")
    assert check.returncode == 0, check.stdout
