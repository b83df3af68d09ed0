"""Which file serves a URL: one rule (urls.INDEX_FILE, path_of_file, files_serving),
held over every caller: the folder walk of both builds, ``check``, canonical
targets, URL comparison, mirrored sources and the MkDocs configuration's URLs."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

import pytest

from conftest import sitemap_entries
from sitemapkit import Options, build_site, encode_path, path_of_file
from sitemapkit.audit.check import check_site
from sitemapkit.config.mkdocs import _page_url
from sitemapkit.engine.folderbuild import build_folder
from sitemapkit.protocol.urls import INDEX_FILE, comparable_url, files_serving, is_index_file
from sitemapkit.site.folder import find_pages
from sitemapkit.site.sources import mirrored_source

BASE = "https://example.org/"
# A folder's index.html is its folder's URL; anything else, index.htm too, its own.
SERVED = {
    "index.html": "",
    "guide/index.html": "guide/",
    "guide/install.html": "guide/install.html",
    "a b/index.html": "a b/",
    "legacy/index.htm": "legacy/index.htm",
    "legacy/page.htm": "legacy/page.htm",
    "notes/myindex.html": "notes/myindex.html",
}
PAGE = "<html><head><title>t</title>{head}</head><body>x</body></html>"


def _site(folder: Path, extra: dict[str, str] | None = None) -> Path:
    for name, head in {**dict.fromkeys(SERVED, ""), **(extra or {})}.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(PAGE.format(head=head))
    return folder


def test_the_rule_and_its_inverse() -> None:
    for name, path in SERVED.items():
        assert path_of_file(name) == path
        assert is_index_file(name) is (name.rpartition("/")[2] == INDEX_FILE)
        # The file a URL names is the first the host looks for.
        assert files_serving(path)[0] == name
        # A canonical naming the file's name is the page at its URL: one file serves both.
        assert comparable_url(BASE + quote(name)) == comparable_url(BASE + quote(path))
    # An index.htm is no folder's file: its folder's URL is another page.
    assert comparable_url(BASE + "legacy/index.htm") != comparable_url(BASE + "legacy/")


@pytest.mark.parametrize("build", ["build_site", "sitemapkit build"])
def test_both_builds_list_each_file_at_the_url_check_finds_it_by(tmp_path: Path, build: str) -> None:
    site = _site(tmp_path / "site")
    options = Options(base_url=BASE, lastmod="none")
    if build == "build_site":
        build_site(list(find_pages(site)), options, site)
    else:
        build_folder(site, options, workers=1)
    assert set(sitemap_entries(site)) == {BASE + encode_path(path) for path in SERVED.values()}
    # check looks for each listed URL's file by the same rule, and finds it.
    assert check_site(site, BASE).problems == []


def test_check_looks_for_a_folder_url_by_its_index_html(tmp_path: Path) -> None:
    site = _site(tmp_path / "site")
    (site / "sitemap.xml").write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        f"<url><loc>{BASE}legacy/</loc></url><url><loc>{BASE}guide/</loc></url></urlset>\n"
    )
    problems = [str(problem) for problem in check_site(site, BASE).problems]
    assert len(problems) == 1 and f"{BASE}legacy/" in problems[0] and "legacy/index.html" in problems[0]


def test_a_canonical_target_is_a_page_when_a_file_serves_it(tmp_path: Path) -> None:
    """build's test of a canonical target (is it a page of the site?) takes
    the files the rule says serve it: each served URL is a page, so the page
    naming it is left out as canonical; legacy/ has no index.html, so a
    canonical naming it is broken, and its page stays listed."""
    targets = [*SERVED.values(), "legacy/"]
    extra = {f"c{n}.html": f'<link rel="canonical" href="{BASE}{quote(t)}">' for n, t in enumerate(targets)}
    site = _site(tmp_path / "site", extra)
    report = build_folder(site, Options(base_url=BASE, lastmod="none"), workers=1)
    canonical = {item.loc for item in report.excluded if item.reason == "canonical"}
    assert canonical == {f"{BASE}c{n}.html" for n in range(len(SERVED))}
    assert f"{BASE}c{len(SERVED)}.html" in sitemap_entries(site)
    assert any("legacy/" in notice.message for notice in report.notices)


def test_mirrored_sources_and_mkdocs_urls_take_the_same_folder_index(tmp_path: Path) -> None:
    """A folder's index file takes its folder's source (Hugo's posts/a.md for
    posts/a/index.html), and MkDocs' directory URLs are the rule's paths."""
    sources = tmp_path / "content"
    for stem in ("guide", "legacy", "legacy/index"):
        (sources / (stem + ".md")).parent.mkdir(parents=True, exist_ok=True)
        (sources / (stem + ".md")).write_text("x")
    assert mirrored_source(sources, "guide/index.html") == sources / "guide.md"
    assert mirrored_source(sources, "legacy/index.htm") == sources / "legacy" / "index.md"
    for name, path in SERVED.items():
        assert _page_url(name, True) == quote(path)
        assert _page_url(name, False) == quote(name)
