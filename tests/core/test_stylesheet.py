"""The browser view (sitemap.xsl): rendered by Jinja2, run by a real headless Chromium.

The Chromium tests serve a folder over http.server on 127.0.0.1 (browsers run an
XML file's stylesheet only from the same origin; file:// is a unique origin to
Chromium) and read back the DOM after the XSLT and its script have run.
Without Chromium they skip, saying how to install it; with CI=true they fail instead.
"""

from __future__ import annotations

import functools
import http.server
import json
import os
import select
import shutil
import subprocess
import threading
import time
from html import escape
from pathlib import Path

import pytest
from lxml import etree, html

from conftest import run_sitemapkit, running_in_ci
from tasks import find_chromium

from sitemapkit import ConfigError
from sitemapkit.publish.stylesheet import (
    FALLBACK_CSS_TEMPLATE_NAME,
    TEMPLATE_NAME,
    render_fallback_css,
    render_stylesheet,
)

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "tests" / "artifacts"

# The two stylesheet lines sitemaps carry: the XSL table where browsers still
# run XSLT, the CSS list where they no longer do.
STYLESHEET_LINES = """<?xml-stylesheet type="text/xsl" href="sitemap.xsl"?>
<?xml-stylesheet type="text/css" href="sitemap.css"?>
"""

URLSET = (
    """<?xml version="1.0" encoding="UTF-8"?>
"""
    + STYLESHEET_LINES
    + """<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml">
<url><loc>https://example.com/</loc><lastmod>2026-03-01</lastmod><xhtml:link rel="alternate" hreflang="en" href="https://example.com/"/><xhtml:link rel="alternate" hreflang="de" href="https://example.com/de/"/></url>
<url><loc>https://example.com/de/</loc><lastmod>2026-01-15T08:30:00+00:00</lastmod><xhtml:link rel="alternate" hreflang="en" href="https://example.com/"/><xhtml:link rel="alternate" hreflang="de" href="https://example.com/de/"/></url>
<url><loc>https://example.com/%C3%BCber-uns/</loc><lastmod>2025-12-24</lastmod></url>
<url><loc>https://example.com/search?q=a&amp;lang=de</loc></url>
<url><loc>https://example.com/%E6%97%A5%E6%9C%AC%E8%AA%9E/guide.html</loc><lastmod>2026-11-02</lastmod></url>
</urlset>
"""
)
# (href in the page, text people read), in document order.
URLSET_ROWS = [
    ("https://example.com/", "https://example.com/"),
    ("https://example.com/de/", "https://example.com/de/"),
    ("https://example.com/%C3%BCber-uns/", "https://example.com/\u00fcber-uns/"),
    ("https://example.com/search?q=a&lang=de", "https://example.com/search?q=a&lang=de"),
    ("https://example.com/%E6%97%A5%E6%9C%AC%E8%AA%9E/guide.html", "https://example.com/\u65e5\u672c\u8a9e/guide.html"),
]

INDEX = (
    """<?xml version="1.0" encoding="UTF-8"?>
"""
    + STYLESHEET_LINES
    + """<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<sitemap><loc>https://example.com/sitemap-1.xml</loc><lastmod>2026-03-01</lastmod></sitemap>
<sitemap><loc>https://example.com/sitemap-2.xml</loc><lastmod>2026-11-02</lastmod></sitemap>
<sitemap><loc>https://example.com/sitemap-3.xml.gz</loc></sitemap>
</sitemapindex>
"""
)
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


HOSTILE_URLS = [
    "javascript:alert(document.domain)",
    "JavaScript:alert(1)//http://example.com/",
    " javascript:alert(1)",
    "java\tscript:alert(1)",
    "data:text/html,<script>alert(1)</script>",
    "vbscript:msgbox(1)",
    "//evil.example/x",
    "/relative/path",
    "ftp://example.com/file",
    "https:alert(1)",
]


def test_only_http_and_https_urls_become_links():
    # A sitemap read from anywhere may hold any text where a URL belongs; the view
    # shows it, but a click can only ever lead to a web page.
    rows = [("https://example.com/ok", "HTTP://EXAMPLE.COM/upper")] + [(url, url) for url in HOSTILE_URLS]
    urlset = (
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml">'
        + "".join(
            f"<url><loc>{escape(loc)}</loc>"
            f'<xhtml:link rel="alternate" hreflang="en" href="{escape(href, quote=True)}"/>'
            '<xhtml:link rel="alternate" hreflang="de" href="https://example.com/de/"/></url>'
            for loc, href in rows
        )
        + "</urlset>"
    )
    index = (
        '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        + "".join(f"<sitemap><loc>{escape(loc)}</loc></sitemap>" for loc, _ in rows)
        + "</sitemapindex>"
    )
    for page in (_transform(urlset), _transform(index)):
        hrefs = page.xpath("//a/@href")
        assert hrefs and all(href.lower().startswith(("http://", "https://")) for href in hrefs), hrefs
        cells = page.xpath("//tbody/tr/td[2]")
        # Every URL is still shown, as text when it is no web address.
        assert [" ".join(cell.text_content().split()) for cell in cells] == [" ".join(loc.split()) for loc, _ in rows]
        assert cells[0].xpath("a/@data-decode") == [""]
        assert all(cell.xpath("a") == [] for cell in cells[1:])
    page = _transform(urlset)
    assert page.xpath("//tbody/tr[1]/td[4]/a/@href") == ["HTTP://EXAMPLE.COM/upper", "https://example.com/de/"]
    assert page.xpath("//tbody/tr[1]/td[4]/a/@hreflang") == ["en", "de"]
    for row in page.xpath("//tbody/tr")[1:]:
        assert row.xpath("td[4]/a/@href") == ["https://example.com/de/"]
        assert row.xpath("string(td[4])").split() == ["en", "de"]


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


def test_fallback_css_is_deterministic_and_names_the_sitemap_namespace():
    data = render_fallback_css()
    assert data == render_fallback_css()
    text = data.decode("utf-8")
    assert text.startswith('@charset "UTF-8";')
    assert '@namespace url("http://www.sitemaps.org/schemas/sitemap/0.9");' in text
    assert text.count("{") == text.count("}")


def test_fallback_css_from_the_user_folder_or_built_in(tmp_path):
    (tmp_path / TEMPLATE_NAME).write_text('{% extends "sitemapkit/sitemap.xsl.j2" %}')
    assert render_fallback_css(tmp_path) == render_fallback_css()
    (tmp_path / FALLBACK_CSS_TEMPLATE_NAME).write_text(
        '{% extends "sitemapkit/sitemap.css.j2" %}{% block intro_urlset %}"Our pages"{% endblock %}'
    )
    assert 'urlset::before { content: "Our pages"; }' in render_fallback_css(tmp_path).decode("utf-8")


def test_fixtures_are_valid_sitemaps():
    from conftest import assert_valid

    assert_valid(URLSET.encode("utf-8"))
    assert_valid(INDEX.encode("utf-8"))


# --- in a real browser -------------------------------------------------------


CHROMIUM_MISSING = (
    "headless Chromium not found (looked for $CHROMIUM, then chromium, chromium-browser, google-chrome on PATH); "
    "to run the browser-view tests install it (Debian/Ubuntu: sudo apt-get install chromium; "
    "macOS: brew install --cask chromium, then "
    "CHROMIUM=/Applications/Chromium.app/Contents/MacOS/Chromium)"
)


def _chromium() -> str:
    found = find_chromium()
    if found:
        return found
    # A laptop without Chromium skips, and says how to get it; CI must never pass
    # without having looked at the page in a browser.
    if running_in_ci():
        pytest.fail(CHROMIUM_MISSING + "; CI is set, so this is a failure, not a skip")
    pytest.skip(CHROMIUM_MISSING)


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
    (folder / "sitemap.css").write_bytes(render_fallback_css())
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_QuietHandler, directory=str(folder)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


class _DevTools:
    """A headless Chromium driven over --remote-debugging-pipe (DevTools protocol).

    --dump-dom cannot click; this can, with nothing but the standard library:
    Chromium reads NUL-terminated JSON commands on fd 3 and answers on fd 4.
    """

    def __init__(self, profile: Path, *extra: str) -> None:
        to_browser = os.pipe()
        from_browser = os.pipe()
        browser_reads, browser_writes = to_browser[0], from_browser[1]

        def wire_fds() -> None:
            # Dup first: a pipe end that already is fd 3 or 4 would keep its
            # close-on-exec flag through a dup2 onto itself.
            reads, writes = os.dup(browser_reads), os.dup(browser_writes)
            os.dup2(reads, 3)
            os.dup2(writes, 4)

        self.process = subprocess.Popen(
            [
                _chromium(),
                *CHROMIUM_FLAGS,
                f"--user-data-dir={profile}",
                "--remote-debugging-pipe",
                *extra,
                "about:blank",
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            close_fds=False,
            preexec_fn=wire_fds,
        )
        os.close(browser_reads)
        os.close(browser_writes)
        self._send, self._receive = to_browser[1], from_browser[0]
        self._pending = b""
        self._last_id = 0

    def call(self, method: str, params: dict | None = None, session: str | None = None, timeout: float = 60) -> dict:
        self._last_id += 1
        message = {"id": self._last_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._send, json.dumps(message).encode("utf-8") + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            while b"\0" in self._pending:
                raw, self._pending = self._pending.split(b"\0", 1)
                reply = json.loads(raw)
                if reply.get("id") == self._last_id:  # events and other replies are not ours
                    if "error" in reply:
                        raise RuntimeError(f"{method}: {reply['error'].get('message')}")
                    return reply["result"]
            left = deadline - time.monotonic()
            assert left > 0, f"Chromium did not answer {method} within {timeout} s"
            if select.select([self._receive], [], [], left)[0]:
                chunk = os.read(self._receive, 1 << 16)
                assert chunk, "Chromium closed its DevTools pipe"
                self._pending += chunk

    def open(self, url: str) -> str:
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        self.call("Page.navigate", {"url": url}, session=session)
        return session

    def evaluate(self, session: str, ready: str, expression: str) -> object:
        """The value of ``expression`` once the JavaScript condition ``ready`` holds."""
        script = (
            "new Promise(function (done, fail) { var until = Date.now() + 20000; (function poll() {"
            f" if (document.readyState === 'complete' && ({ready})) done();"
            " else if (Date.now() > until) fail(new Error('page never got ready'));"
            " else setTimeout(poll, 25); })(); })"
            f".then(function () {{ return JSON.stringify({expression}); }})"
        )
        for _attempt in range(50):
            try:
                result = self.call(
                    "Runtime.evaluate", {"expression": script, "awaitPromise": True, "returnByValue": True}, session
                )
            except RuntimeError as error:
                # The XML document is replaced by the XSLT result while loading.
                if "context" not in str(error).lower():
                    raise
                time.sleep(0.1)
                continue
            assert "exceptionDetails" not in result, result["exceptionDetails"]
            return json.loads(result["result"]["value"])
        raise AssertionError(f"no stable page to evaluate {expression!r} in")

    def close(self) -> None:
        try:
            self.call("Browser.close", timeout=10)
        except (AssertionError, OSError):
            pass
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        os.close(self._send)
        os.close(self._receive)


@pytest.fixture
def devtools(tmp_path):
    opened: list[_DevTools] = []

    def start(*extra: str) -> _DevTools:
        browser = _DevTools(tmp_path / f"profile-{len(opened)}", *extra)
        opened.append(browser)
        return browser

    yield start
    for browser in opened:
        browser.close()


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
        "2026-03-01",
        "2026-01-15T08:30:00+00:00",
        "2025-12-24",
        "",
        "2026-11-02",
    ]
    assert page.xpath("//tbody/tr[1]/td[4]/a/@hreflang") == ["en", "de"]
    assert page.xpath("string(//title)") == "Sitemap"


def test_chromium_sorts_by_the_column_a_link_names(served, tmp_path):
    # The click handler and the #sort= link share one sort function; the hash is
    # what a headless dump can drive. Newest first, rows without a date last.
    page = _dom(tmp_path, served + "sitemap.xml#sort=-lastmod")
    assert [lastmod for _href, _text, lastmod in _rows(page)] == [
        "2026-11-02",
        "2026-03-01",
        "2026-01-15T08:30:00+00:00",
        "2025-12-24",
        "",
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


_ROW_LASTMODS = "Array.prototype.map.call(document.getElementById('entries').tBodies[0].rows, function (row) { return row.cells[2].textContent; })"


def test_chromium_sorts_when_a_heading_is_clicked(served, devtools):
    browser = devtools()
    page = browser.open(served + "sitemap.xml")
    ready = "document.getElementById('entries')"
    click = "document.querySelector('th[data-key=lastmod] button').click()"
    state = (
        "{lastmods: "
        + _ROW_LASTMODS
        + ", sort: document.querySelector('th[data-key=lastmod]').getAttribute('aria-sort'), hash: location.hash}"
    )
    assert browser.evaluate(page, ready, f"({click}, {state})") == {
        "lastmods": ["2025-12-24", "2026-01-15T08:30:00+00:00", "2026-03-01", "2026-11-02", ""],
        "sort": "ascending",
        "hash": "#sort=lastmod",
    }
    assert browser.evaluate(page, ready, f"({click}, {state})") == {
        "lastmods": ["2026-11-02", "2026-03-01", "2026-01-15T08:30:00+00:00", "2025-12-24", ""],
        "sort": "descending",
        "hash": "#sort=-lastmod",
    }
    back = "(document.querySelector('th[data-key=n] button').click(), " + _ROW_LASTMODS + ")"
    assert browser.evaluate(page, ready, back)[:2] == ["2026-03-01", "2026-01-15T08:30:00+00:00"]


def test_chromium_without_xslt_falls_back_to_the_css_view(served, devtools):
    # --disable-features=XSLT is how Chromium behaves once XSLT is removed
    # (disabled by default from version 155/158 on): the XSL line is ignored and
    # the CSS line styles the XML itself.
    browser = devtools("--disable-features=XSLT")
    page = browser.open(served + "sitemap.xml")
    seen = browser.evaluate(
        page,
        "document.querySelector('loc')",
        "{root: document.documentElement.localName,"
        " locs: Array.prototype.map.call(document.getElementsByTagNameNS('http://www.sitemaps.org/schemas/sitemap/0.9', 'loc'), function (loc) { return [loc.textContent, getComputedStyle(loc).display]; }),"
        " title: getComputedStyle(document.documentElement, '::before').content}",
    )
    assert seen["root"] == "urlset"
    assert seen["locs"] == [[href, "block"] for href, _text in URLSET_ROWS]
    assert seen["title"].startswith('"Sitemap')


@pytest.mark.parametrize(
    ("name", "extra"),
    [
        ("sitemap.xml", ()),
        ("sitemap-index.xml", ()),
        ("sitemap.xml", ("--disable-features=XSLT",)),
    ],
    ids=["urlset", "index", "urlset-without-xslt"],
)
def test_chromium_screenshot_is_kept_for_people(served, tmp_path, request, name, extra):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    kept = ARTIFACTS / f"stylesheet-{request.node.callspec.id}.png"
    # Drawn beside the picture kept, then renamed over it: tests/tasks.py runs
    # this test in two environments at once.
    shot = ARTIFACTS / f".{kept.stem}.{os.getpid()}.png"
    shot.unlink(missing_ok=True)
    # Chromium 143+ lays a deprecation banner about XSLT over the top of the page;
    # the picture is for checking our page, so the banner is switched off.
    flags = ("--disable-features=GenerateXSLTWarningBanner",) if not extra else extra
    _run_chromium(tmp_path, served + name, f"--screenshot={shot}", "--window-size=1200,800", *flags)
    data = shot.read_bytes()
    os.replace(shot, kept)
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    assert len(data) > 10_000  # a blank page compresses to a few hundred bytes


def test_chromium_shows_every_url_of_a_built_fixture_sitemap(tmp_path):
    """The static fixture built with --stylesheet, served, opened in Chromium: the
    table lists every URL the sitemap lists (and the sitemap names the view)."""
    from conftest import FIXTURES, sitemap_entries

    site = tmp_path / "site"
    shutil.copytree(FIXTURES / "static", site)
    built = run_sitemapkit("build", str(site), "--base-url", "https://example.org/", "--stylesheet")
    assert built.returncode == 0, built.stderr
    listed = sorted(sitemap_entries(site))
    head = (site / "sitemap.xml").read_text().split("<urlset", 1)[0]
    assert '<?xml-stylesheet type="text/xsl" href="sitemap.xsl"?>' in head
    assert '<?xml-stylesheet type="text/css" href="sitemap.css"?>' in head
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_QuietHandler, directory=str(site)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        page = _dom(tmp_path, f"http://127.0.0.1:{server.server_address[1]}/sitemap.xml")
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
    assert sorted(href for href, _text, _lastmod in _rows(page)) == listed
    # The four top pages, fr/ and the 16 of names/ (each with a character to encode, or not).
    assert len(listed) == 21


IMAGE_URLSET = (
    '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">'
    "<url><loc>https://example.com/a</loc>"
    "<image:image><image:loc>https://example.com/a.png</image:loc></image:image>"
    "<image:image><image:loc>https://cdn.example.net/b%20c.jpg</image:loc></image:image>"
    "<image:image><image:loc>javascript:alert(1)</image:loc></image:image></url>"
    "<url><loc>https://example.com/b</loc></url></urlset>"
)


def test_urlset_with_images_shows_each_pages_count_and_the_images_as_links():
    page = _transform(IMAGE_URLSET)
    assert page.xpath("//th/@data-key")[-1] == "images"
    rows = page.xpath("//tbody/tr")
    assert rows[0].xpath("string(td[4])") == "3" and rows[1].xpath("string(td[4])") == "0"
    # Only web URLs become links, as for every URL the view shows.
    assert rows[0].xpath("td[5]/a/@href") == ["https://example.com/a.png", "https://cdn.example.net/b%20c.jpg"]
    assert "javascript:alert(1)" in rows[0].xpath("string(td[5])")
    assert "and 3 images" in " ".join(page.xpath("string(//p[@class='intro'])").split())
    # Without images, no image columns.
    assert "images" not in _transform(URLSET).xpath("//th/@data-key")


def test_index_shows_image_totals():
    page = _transform(INDEX, url_counts=URL_COUNTS, image_counts={"https://example.com/sitemap-2.xml": 12})
    assert "and 12 images in all" in " ".join(page.xpath("string(//p[@class='intro'])").split())
    rows = page.xpath("//table[@id='entries']/tbody/tr")
    assert [row.xpath("string(td[5])").strip() for row in rows] == ["\u2013", "12", "\u2013"]
    assert "images" not in _transform(INDEX, url_counts=URL_COUNTS).xpath("//th/@data-key")
