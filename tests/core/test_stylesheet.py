"""The browser view (sitemap.xsl): rendered by Jinja2, run by a real headless Chromium.

The Chromium tests serve a folder over http.server on 127.0.0.1 (browsers run an
XML file's stylesheet only from the same origin; file:// is a unique origin to
Chromium) and read back the DOM after the XSLT and its script have run.
Chromium is required, never skipped: on Debian/Ubuntu `apt-get install -y chromium`.
"""

from __future__ import annotations

import functools
import http.server
import shutil
import subprocess
import threading
from pathlib import Path

import pytest
from lxml import etree, html

from sitemapkit import ConfigError
from sitemapkit.stylesheet import TEMPLATE_NAME, render_stylesheet

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "tests" / "artifacts"

URLSET = """<?xml version="1.0" encoding="UTF-8"?>
<?xml-stylesheet type="text/xsl" href="sitemap.xsl"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml">
<url><loc>https://example.com/</loc><lastmod>2026-03-01</lastmod><xhtml:link rel="alternate" hreflang="en" href="https://example.com/"/><xhtml:link rel="alternate" hreflang="de" href="https://example.com/de/"/></url>
<url><loc>https://example.com/de/</loc><lastmod>2026-01-15T08:30:00+00:00</lastmod><xhtml:link rel="alternate" hreflang="en" href="https://example.com/"/><xhtml:link rel="alternate" hreflang="de" href="https://example.com/de/"/></url>
<url><loc>https://example.com/%C3%BCber-uns/</loc><lastmod>2025-12-24</lastmod></url>
<url><loc>https://example.com/search?q=a&amp;lang=de</loc></url>
<url><loc>https://example.com/%E6%97%A5%E6%9C%AC%E8%AA%9E/guide.html</loc><lastmod>2026-11-02</lastmod></url>
</urlset>
"""
# (href in the page, text people read), in document order.
URLSET_ROWS = [
    ("https://example.com/", "https://example.com/"),
    ("https://example.com/de/", "https://example.com/de/"),
    ("https://example.com/%C3%BCber-uns/", "https://example.com/\u00fcber-uns/"),
    ("https://example.com/search?q=a&lang=de", "https://example.com/search?q=a&lang=de"),
    ("https://example.com/%E6%97%A5%E6%9C%AC%E8%AA%9E/guide.html", "https://example.com/\u65e5\u672c\u8a9e/guide.html"),
]

INDEX = """<?xml version="1.0" encoding="UTF-8"?>
<?xml-stylesheet type="text/xsl" href="sitemap.xsl"?>
<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<sitemap><loc>https://example.com/sitemap-1.xml</loc><lastmod>2026-03-01</lastmod></sitemap>
<sitemap><loc>https://example.com/sitemap-2.xml</loc><lastmod>2026-11-02</lastmod></sitemap>
<sitemap><loc>https://example.com/sitemap-3.xml.gz</loc></sitemap>
</sitemapindex>
"""
# The build knows how many URLs it wrote into each shard; the third is left
# unknown on purpose, to show how a missing count looks.
URL_COUNTS = {"https://example.com/sitemap-1.xml": 50_000, "https://example.com/sitemap-2.xml": 5}

CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


# --- rendering --------------------------------------------------------------


def test_default_stylesheet_is_well_formed_xslt_and_deterministic():
    data = render_stylesheet()
    root = etree.fromstring(data)
    assert root.tag == "{http://www.w3.org/1999/XSL/Transform}stylesheet"
    assert root.get("version") == "1.0"
    etree.XSLT(root)  # compiles
    assert render_stylesheet() == data
    assert render_stylesheet(url_counts=URL_COUNTS) == render_stylesheet(url_counts=dict(reversed(URL_COUNTS.items())))


def _transform(sitemap: str, **render_args) -> html.HtmlElement:
    xslt = etree.XSLT(etree.fromstring(render_stylesheet(**render_args)))
    result = xslt(etree.fromstring(sitemap.encode("utf-8")))
    return html.fromstring(str(result))


def test_urlset_table_lists_every_url_in_order():
    page = _transform(URLSET)
    links = page.xpath("//table[@id='entries']/tbody/tr/td[2]/a")
    assert [a.get("href") for a in links] == [href for href, _text in URLSET_ROWS]
    assert page.xpath("//th/button/text()") == ["#", "URL", "Last modified"]
    assert page.xpath("//th[@data-key='alternates']/text()") == ["Languages"]
    first_row = page.xpath("//tbody/tr[1]")[0]
    assert first_row.xpath("td[4]/a/@hreflang") == ["en", "de"]
    assert first_row.xpath("td[4]/a/@href") == ["https://example.com/", "https://example.com/de/"]
    assert page.xpath("//tbody/tr[4]/td[3]/text()") == []  # no lastmod: an empty cell
    assert "5" in page.xpath("string(//p[@class='intro'])")


def test_urlset_without_alternates_has_no_languages_column():
    page = _transform(
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        "<url><loc>https://example.com/a</loc><changefreq>weekly</changefreq><priority>0.8</priority></url></urlset>"
    )
    assert page.xpath("//th/@data-key") == ["n", "url", "lastmod", "changefreq", "priority"]
    assert page.xpath("//tbody/tr/td/text()") == ["1", "weekly", "0.8"]
    assert "1 URL." in " ".join(page.xpath("string(//p[@class='intro'])").split())


def test_index_table_shows_counts_written_at_build_time():
    page = _transform(INDEX, url_counts=URL_COUNTS)
    rows = page.xpath("//table[@id='entries']/tbody/tr")
    assert [row.xpath("string(td[2]/a/@href)") for row in rows] == [
        "https://example.com/sitemap-1.xml",
        "https://example.com/sitemap-2.xml",
        "https://example.com/sitemap-3.xml.gz",
    ]
    assert [row.xpath("string(td[4])").strip() for row in rows] == ["50,000", "5", "\u2013"]
    assert "50,005" in page.xpath("string(//p[@class='intro'])")


def test_counts_match_whole_urls_only():
    # "…/sitemap-1.xml" must not take the count of "…/sitemap-1.xml.gz" or of
    # "…/a/sitemap-1.xml".
    counts = {"https://example.com/sitemap-1.xml.gz": 7, "https://example.com/a/sitemap-1.xml": 8}
    page = _transform(INDEX, url_counts=counts)
    assert page.xpath("string(//tbody/tr[1]/td[4])").strip() == "\u2013"


def test_other_documents_get_a_message():
    page = _transform("<rss><channel/></rss>")
    assert page.xpath("string(//h1)") == "Not a sitemap"


def test_user_template_replaces_the_built_in_one(tmp_path):
    (tmp_path / TEMPLATE_NAME).write_text(
        '{% extends "sitemapkit/sitemap.xsl.j2" %}{% block footer %}Our site, {{ sitemapkit_version }}{% endblock %}'
    )
    page = _transform(URLSET, template_dir=tmp_path)
    assert page.xpath("string(//footer)").startswith("Our site, ")
    assert len(page.xpath("//tbody/tr")) == 5


@pytest.mark.parametrize(
    ("files", "message"),
    [
        (None, "is not a folder"),
        ({}, "holds no sitemap.xsl.j2"),
        ({TEMPLATE_NAME: "{% if %}"}, "line 1"),
        ({TEMPLATE_NAME: "{{ no_such_variable }}"}, "no_such_variable"),
        ({TEMPLATE_NAME: "<xsl:stylesheet>"}, "well-formed"),
    ],
)
def test_bad_user_template_is_a_config_error(tmp_path, files, message):
    folder = tmp_path / "xsl"
    if files is not None:
        folder.mkdir()
        for name, text in files.items():
            (folder / name).write_text(text)
    with pytest.raises(ConfigError) as raised:
        render_stylesheet(folder)
    assert raised.value.option == "stylesheet_template"
    assert message in str(raised.value)


def test_count_keys_must_be_urls():
    with pytest.raises(ValueError):
        render_stylesheet(url_counts={"https://example.com/a b.xml": 1})


def test_fixtures_are_valid_sitemaps():
    from conftest import assert_valid

    assert_valid(URLSET.encode("utf-8"))
    assert_valid(INDEX.encode("utf-8"))


# --- in a real browser -------------------------------------------------------


def _chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    pytest.fail(
        "the browser-view tests need headless Chromium and found none on PATH; "
        "install it (Debian/Ubuntu: apt-get install -y chromium)"
    )


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 - the base class's name
        pass


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """Base URL of a folder with the sitemaps and the stylesheet, on 127.0.0.1."""
    folder = tmp_path_factory.mktemp("site")
    (folder / "sitemap.xml").write_text(URLSET, encoding="utf-8")
    (folder / "sitemap-index.xml").write_text(INDEX, encoding="utf-8")
    (folder / "sitemap.xsl").write_bytes(render_stylesheet(url_counts=URL_COUNTS))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_QuietHandler, directory=str(folder)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def _run_chromium(tmp_path: Path, url: str, *extra: str) -> str:
    command = [_chromium(), *CHROMIUM_FLAGS, f"--user-data-dir={tmp_path / 'profile'}", *extra, url]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, f"{' '.join(command)} exited {done.returncode}:\n{done.stderr[-3000:]}"
    return done.stdout


def _dom(tmp_path: Path, url: str, *extra: str) -> html.HtmlElement:
    dumped = _run_chromium(tmp_path, url, "--dump-dom", *extra)
    assert "<table" in dumped, f"no table in what Chromium shows for {url}:\n{dumped[:2000]}"
    return html.fromstring(dumped)


def _rows(page: html.HtmlElement) -> list[tuple[str, str, str]]:
    return [
        (row.xpath("string(td[2]/a/@href)"), row.xpath("string(td[2]/a)"), row.xpath("string(td[3])"))
        for row in page.xpath("//table[@id='entries']/tbody/tr")
    ]


def test_chromium_shows_every_url_of_a_urlset(served, tmp_path):
    page = _dom(tmp_path, served + "sitemap.xml")
    rows = _rows(page)
    assert [(href, text) for href, text, _lastmod in rows] == URLSET_ROWS
    assert [lastmod for _href, _text, lastmod in rows] == [
        "2026-03-01", "2026-01-15T08:30:00+00:00", "2025-12-24", "", "2026-11-02",
    ]
    assert page.xpath("//tbody/tr[1]/td[4]/a/@hreflang") == ["en", "de"]
    assert page.xpath("string(//title)") == "Sitemap"


def test_chromium_sorts_by_the_column_a_link_names(served, tmp_path):
    # The click handler and the #sort= link share one sort function; the hash is
    # what a headless dump can drive. Newest first, rows without a date last.
    page = _dom(tmp_path, served + "sitemap.xml#sort=-lastmod")
    assert [lastmod for _href, _text, lastmod in _rows(page)] == [
        "2026-11-02", "2026-03-01", "2026-01-15T08:30:00+00:00", "2025-12-24", "",
    ]
    assert page.xpath("//th[@data-key='lastmod']/@aria-sort") == ["descending"]
    page = _dom(tmp_path, served + "sitemap.xml#sort=url")
    assert [href for href, _text, _lastmod in _rows(page)] == sorted(href for href, _text in URLSET_ROWS)


def test_chromium_shows_an_index_with_url_counts(served, tmp_path):
    page = _dom(tmp_path, served + "sitemap-index.xml")
    rows = page.xpath("//table[@id='entries']/tbody/tr")
    assert [row.xpath("string(td[2]/a/@href)") for row in rows] == [
        "https://example.com/sitemap-1.xml",
        "https://example.com/sitemap-2.xml",
        "https://example.com/sitemap-3.xml.gz",
    ]
    assert [row.xpath("string(td[4])").strip() for row in rows] == ["50,000", "5", "\u2013"]
    assert page.xpath("string(//title)") == "Sitemap index"
    sorted_page = _dom(tmp_path, served + "sitemap-index.xml#sort=-urls")
    assert [row.xpath("string(td[4])").strip() for row in sorted_page.xpath("//tbody/tr")] == ["50,000", "5", "\u2013"]
    sorted_page = _dom(tmp_path, served + "sitemap-index.xml#sort=urls")
    assert [row.xpath("string(td[4])").strip() for row in sorted_page.xpath("//tbody/tr")] == ["5", "50,000", "\u2013"]


@pytest.mark.parametrize("name", ["sitemap.xml", "sitemap-index.xml"])
def test_chromium_screenshot_is_kept_for_people(served, tmp_path, name):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shot = ARTIFACTS / f"stylesheet-{name.removesuffix('.xml')}.png"
    shot.unlink(missing_ok=True)
    _run_chromium(tmp_path, served + name, f"--screenshot={shot}", "--window-size=1200,800")
    data = shot.read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    assert len(data) > 10_000  # a blank page compresses to a few hundred bytes
