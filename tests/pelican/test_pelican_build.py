"""The Pelican adapter, tested by building fixtures/pelican with the real Pelican."""

from __future__ import annotations

import datetime as dt
import logging
import os
import re
import shutil
from pathlib import Path
from urllib.parse import quote, unquote
from zoneinfo import ZoneInfo

import pytest

import sitemapkit
from sitemapkit import Options
from conftest import (
    assert_every_page_accounted,
    option_samples,
    options_with,
    read_ahead_in_workers,
    sitemap_entries,
)

from .conftest import FIRST_COMMIT, FIXTURE, git

BASE = "https://example.org/blog/"
BERLIN = ZoneInfo("Europe/Berlin")


def berlin(*args: int) -> dt.datetime:
    return dt.datetime(*args, tzinfo=BERLIN)


# The fixture's published articles, newest first (Pelican's order), with the date
# each one's lastmod must be: Modified, else Date.
FIRST_STEPS = berlin(2024, 3, 5, 18, 30)  # Date 2024-01-10, Modified 2024-03-05
UNLISTED = berlin(2024, 3, 10, 20, 0)  # `Sitemap: false`: not listed itself
QUIET = berlin(2024, 3, 1, 7, 0)  # robots noindex: not listed itself
R_AND_D = berlin(2024, 2, 15, 12, 0)
UBER_CAFE = berlin(2024, 2, 1, 8, 15)
OLDER = berlin(2023, 6, 1, 16, 45)

# Every URL of the fixture's sitemap (below BASE) and its lastmod. Each is a page
# Pelican wrote; see EXCLUDED_FILES for the written pages that must stay out.
EXPECTED = {
    # articles and pages; their translations
    "2024/first-steps/": FIRST_STEPS,
    "first-steps-de.html": berlin(2024, 1, 12, 10, 0),
    "2024/%C3%BCber-caf%C3%A9/": UBER_CAFE,
    "2024/r&d-notes/": R_AND_D,
    "2023/older/": OLDER,
    "pages/about.html": FIRST_COMMIT,  # no dates: its git commit
    "pages/about-de.html": FIRST_COMMIT,
    "pages/colophon.html": berlin(2024, 2, 20, 11, 30),
    # the index and its pagination (two articles a page)
    "": UNLISTED,  # unlisted, quiet
    "index2.html": R_AND_D,  # r-and-d, über-café
    "index3.html": FIRST_STEPS,  # first-steps, older
    # categories, tags, authors (AUTHORS_SAVE_AS is empty: no authors list)
    "categories.html": UNLISTED,
    "category/guides.html": UNLISTED,  # unlisted, first-steps
    "category/guides2.html": OLDER,
    "category/notes.html": QUIET,  # quiet, r-and-d
    "category/notes2.html": UBER_CAFE,
    "tags.html": UNLISTED,
    "tag/cafe.html": UBER_CAFE,
    "tag/intro.html": FIRST_STEPS,
    "tag/python.html": FIRST_STEPS,
    "tag/research.html": R_AND_D,
    "author/ada-lovelace.html": UNLISTED,  # unlisted, quiet
    "author/ada-lovelace2.html": FIRST_STEPS,  # r-and-d, first-steps
    "author/ada-lovelace3.html": OLDER,
    "author/grace-hopper.html": R_AND_D,
    # archives: the list and the year archives
    "archives.html": UNLISTED,
    "2024/": UNLISTED,
    "2023/": OLDER,
}
# HTML files Pelican writes that must never be listed, and why.
EXCLUDED_FILES = {
    "drafts/work-in-progress.html": "draft",
    "drafts/pages/upcoming.html": "draft page",
    "2024/hidden-article/index.html": "hidden article",
    "pages/contact.html": "hidden page",
    "2024/unlisted/index.html": "`Sitemap: false` metadata",
    "2024/quiet/index.html": "robots noindex meta",
    "pages/first-steps-reprint.html": "its canonical link names the article 2024/first-steps/",
    "pages/old-colophon.html": "a meta refresh redirect stub",
    "pages/private-notes.html": "disallowed by the site's robots.txt",
    "google0123456789abcdef.html": "a static file",
}


def locs(output: Path, entry: str = "sitemap.xml") -> dict[str, dict]:
    """The sitemap's entries (schema-checked, read twice) keyed by URL below BASE."""
    entries = sitemap_entries(output, entry)
    assert all(loc.startswith(BASE) for loc in entries), sorted(entries)
    return {loc[len(BASE) :]: fields for loc, fields in entries.items()}


def written_html(output: Path) -> set[str]:
    """Every HTML file in the output, minus the theme's files and the feeds."""
    found = set()
    for path in output.rglob("*.html"):
        relative = path.relative_to(output).as_posix()
        if not relative.startswith(("theme/", "feeds/")):
            found.add(relative)
    return found


def url_of(relative_file: str) -> str:
    """The fixture's URL for a written file: a folder's index.html is the folder;
    non-ASCII characters percent-encoded as UTF-8."""
    if relative_file == "index.html":
        relative_file = ""
    elif relative_file.endswith("/index.html"):
        relative_file = relative_file[: -len("index.html")]
    return quote(relative_file, safe="/&")


def instant(lastmod: str | None) -> dt.datetime | None:
    if lastmod is None:
        return None
    value = dt.datetime.fromisoformat(lastmod)
    assert value.tzinfo is not None, f"{lastmod} has no time zone"
    return value


def summary(caplog) -> str:
    lines = [
        r.getMessage() for r in caplog.records if r.name == "sitemapkit.plugins.pelican" and r.levelno == logging.INFO
    ]
    assert len(lines) == 1, lines
    return lines[0]


def sitemapkit_warnings(caplog) -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if r.name == "sitemapkit.plugins.pelican" and r.levelno >= logging.WARNING
    ]


# ---- what is listed -----------------------------------------------------------------


def test_lists_exactly_the_pages_pelican_wrote(site, caplog):
    caplog.set_level(logging.INFO)
    output = site.build()
    listed = locs(output)
    assert set(listed) == set(EXPECTED)
    # The same answer from the files on disk: what Pelican wrote, minus what must stay out.
    written = written_html(output)
    assert set(EXCLUDED_FILES) <= written
    assert {url_of(f) for f in written - set(EXCLUDED_FILES)} == set(listed)
    assert summary(caplog).startswith(f"sitemapkit: {len(EXPECTED)} URLs in 1 file (sitemap.xml)")
    for count in ("1 canonical", "1 metadata", "1 noindex", "1 redirect", "1 robots.txt"):
        assert count in summary(caplog), summary(caplog)


def test_each_page_left_out_is_reported_with_its_reason(site, caplog):
    """The verbose report names every written page that stays out, and why; the
    pages a canonical link or a redirect stub point to stay listed."""
    caplog.set_level(logging.INFO)
    listed = locs(site.build(SITEMAPKIT={"verbose": True}))
    reported = {line for line in summary(caplog).splitlines() if line.startswith("excluded ")}
    assert reported == {
        f"excluded (canonical): {BASE}pages/first-steps-reprint.html -> {BASE}2024/first-steps/",
        f"excluded (metadata): {BASE}2024/unlisted/",
        f"excluded (noindex): {BASE}2024/quiet/",
        f"excluded (redirect): {BASE}pages/old-colophon.html",
        f"excluded (robots.txt): {BASE}pages/private-notes.html",
        # Written by Pelican, never listed.
        f"excluded (draft): {BASE}drafts/work-in-progress.html",
        f"excluded (draft): {BASE}drafts/pages/upcoming.html",
        f"excluded (hidden): {BASE}2024/hidden-article/",
        f"excluded (hidden): {BASE}pages/contact.html",
        # Copied by Pelican as a static file, not built as a page.
        f"excluded (not a page): {BASE}google0123456789abcdef.html",
    }
    assert "2024/first-steps/" in listed and "pages/colophon.html" in listed


def test_every_html_file_written_is_listed_or_reported(site):
    output = site.build(SITEMAPKIT={"report_file": "report.txt"})
    left_out = assert_every_page_accounted(output, BASE, (output / "report.txt").read_text())
    assert set(left_out) == set(EXCLUDED_FILES)


def test_pages_left_out_for_their_head_are_listed_when_the_checks_are_off(site):
    """What keeps them out is their head (robots meta, canonical link, meta
    refresh), each behind its own option."""
    listed = locs(site.build(SITEMAPKIT={"check_noindex": False, "check_canonical": False, "check_redirects": False}))
    assert set(listed) == set(EXPECTED) | {"2024/quiet/", "pages/first-steps-reprint.html", "pages/old-colophon.html"}


def test_a_canonical_link_naming_the_page_itself_keeps_it_listed(built):
    """templates/head_tags.html gives every article and page a canonical link to
    itself, as most themes do, written as Pelican's URL: raw non-ASCII, "&"."""
    listed = locs(built)
    for loc, written in (
        ("2024/%C3%BCber-caf%C3%A9/", "2024/über-café/index.html"),
        ("2024/r&d-notes/", "2024/r&d-notes/index.html"),
        ("first-steps-de.html", "first-steps-de.html"),
        ("pages/about.html", "pages/about.html"),
    ):
        head = (built / written).read_text(encoding="utf-8")
        assert f'<link rel="canonical" href="{BASE}{unquote(loc)}" />' in head, written
        assert loc in listed


def test_special_characters_are_encoded_and_escaped(built):
    raw = (built / "sitemap.xml").read_bytes()
    assert b"<loc>https://example.org/blog/2024/r&amp;d-notes/</loc>" in raw
    assert b"<loc>https://example.org/blog/2024/%C3%BCber-caf%C3%A9/</loc>" in raw
    assert "über".encode() not in raw


def test_translations_are_hreflang_alternates(built):
    listed = locs(built)
    article = [("de", BASE + "first-steps-de.html"), ("en", BASE + "2024/first-steps/")]
    page = [("de", BASE + "pages/about-de.html"), ("en", BASE + "pages/about.html")]
    assert listed["2024/first-steps/"]["alternates"] == article
    assert listed["first-steps-de.html"]["alternates"] == article
    assert listed["pages/about.html"]["alternates"] == page
    assert listed["pages/about-de.html"]["alternates"] == page
    untranslated = set(EXPECTED) - {
        "2024/first-steps/",
        "first-steps-de.html",
        "pages/about.html",
        "pages/about-de.html",
    }
    assert all(listed[loc]["alternates"] == [] for loc in untranslated)


@pytest.mark.parametrize("loc", list(EXPECTED))
def test_lastmod(built, loc):
    """Modified, else Date, else the source's git commit; listings: the newest they
    show, pages left out of the sitemap (noindex, `sitemap: false`) included."""
    listed = locs(built)
    assert instant(listed[loc]["lastmod"]) == EXPECTED[loc]


def test_article_lastmod_keeps_the_sites_time_zone(built):
    listed = locs(built)
    assert listed["2024/first-steps/"]["lastmod"] == "2024-03-05T18:30:00+01:00"
    assert listed["2023/older/"]["lastmod"] == "2023-06-01T16:45:00+02:00"


def test_lastmod_follows_a_later_commit_never_the_build(site):
    """A page without dates takes its own last commit; the other pages keep theirs."""
    later = dt.datetime(2021, 8, 9, 12, 0, tzinfo=dt.timezone.utc)
    about = site.content / "pages" / "about.md"
    about.write_text(about.read_text(encoding="utf-8") + "\nOne more line.\n", encoding="utf-8")
    git(site.root, "commit", "-q", "-am", "edit about", when=later)
    started = dt.datetime.now(dt.timezone.utc)
    listed = locs(site.build())
    assert instant(listed["pages/about.html"]["lastmod"]) == later
    assert instant(listed["pages/about-de.html"]["lastmod"]) == FIRST_COMMIT
    newest = max(instant(f["lastmod"]) for f in listed.values() if f["lastmod"])
    assert newest < started - dt.timedelta(days=365)


def test_a_page_saved_as_the_home_page_is_the_home_page(site, caplog):
    """pelican-blog's ``pages/index.rst`` with ``save_as: index.html``: Pelican
    writes the article listing there, then the page over it. The home page is
    the page served: dated by it, no duplicate reported."""
    later = dt.datetime(2022, 6, 22, 12, 0, 21, tzinfo=dt.timezone.utc)
    site.write("pages/home.md", "Title: Home\nURL:\nSave_as: index.html\n\nThe page served at the root.\n")
    git(site.root, "add", "-A")
    git(site.root, "commit", "-q", "-m", "home page", when=later)
    with caplog.at_level(logging.INFO):
        output = site.build()
    assert "The page served at the root." in (output / "index.html").read_text(encoding="utf-8")
    assert instant(locs(output)[""]["lastmod"]) == later
    assert "duplicate" not in caplog.text


def test_pages_pelican_did_not_write_are_not_listed(site):
    """An empty *_SAVE_AS: Pelican writes no such page, so none is listed."""
    output = site.build(TAG_SAVE_AS="", TAGS_SAVE_AS="", CATEGORY_SAVE_AS="")
    listed = locs(output)
    assert not any(loc.startswith(("tag/", "category/")) or loc == "tags.html" for loc in listed)
    assert "categories.html" in listed and "2024/first-steps/" in listed
    assert {url_of(f) for f in written_html(output) - set(EXCLUDED_FILES)} == set(listed)


def test_urls_follow_pelicans_url_settings(site):
    """The URL Pelican links (*_URL, PAGINATION_PATTERNS), not the file name."""
    output = site.build(
        PAGE_URL="info/{slug}/",
        PAGE_SAVE_AS="info/{slug}/index.html",
        PAGE_LANG_URL="info/{slug}/{lang}/",
        PAGE_LANG_SAVE_AS="info/{slug}/{lang}/index.html",
        TAG_URL="tag/{slug}/",
        TAG_SAVE_AS="tag/{slug}/index.html",
        INDEX_SAVE_AS="blog/index.html",
        PAGINATION_PATTERNS=[
            (1, "{url}", "{save_as}"),
            (2, "{base_name}/page/{number}/", "{base_name}/page/{number}/index.html"),
        ],
    )
    listed = locs(output)
    for loc in (
        "info/about/",
        "info/about/de/",
        "info/colophon/",
        "tag/python/",
        "blog/",
        "blog/page/2/",
        "blog/page/3/",
        "category/guides.html",
        "category/guides/page/2/",
    ):
        assert loc in listed, (loc, sorted(listed))
    assert not any(loc.endswith("index.html") for loc in listed), sorted(listed)
    assert listed["info/about/"]["alternates"] == [("de", BASE + "info/about/de/"), ("en", BASE + "info/about/")]


# ---- options -----------------------------------------------------------------------


def test_kinds_can_be_switched_off(site):
    listed = locs(
        site.build(SITEMAPKIT={"pelican_kinds": {"tags": False, "authors": False, "archives": False, "index": False}})
    )
    gone = {
        loc
        for loc in EXPECTED
        if loc.startswith(("tag/", "author/"))
        or loc in {"tags.html", "archives.html", "2024/", "2023/", "", "index2.html", "index3.html"}
    }
    assert set(listed) == set(EXPECTED) - gone


def test_template_pages_and_other_templates_only_when_asked(site):
    site.write("extra/books.html", '{% extends "base.html" %}{% block content %}Books{% endblock %}')
    (site.root / "templates" / "search.html").write_text(
        '{% extends "base.html" %}{% block content %}Search{% endblock %}', encoding="utf-8"
    )
    site.write("extra/humans.txt", "Made by {{ AUTHOR }}\n")
    settings = {
        "TEMPLATE_PAGES": {"extra/books.html": "books/index.html", "extra/humans.txt": "humans.txt"},
        "DIRECT_TEMPLATES": ["index", "tags", "categories", "authors", "archives", "search"],
    }
    listed = locs(site.build(**settings))
    assert "books/" not in listed and "search.html" not in listed
    listed = locs(site.build(SITEMAPKIT={"pelican_kinds": {"template_pages": True, "other": True}}, **settings))
    assert "search.html" in listed
    assert "humans.txt" not in listed  # written through the writer, but not an HTML page
    # A template page's date is its template's commit.
    assert instant(listed["books/"]["lastmod"]) > FIRST_COMMIT


def test_core_options_pass_through(site):
    output = site.build(SITEMAPKIT={"exclude": ["tag/*"], "filename": "map.xml", "max_urls": 10})
    listed = locs(output, "map.xml")
    assert set(listed) == {loc for loc in EXPECTED if not loc.startswith("tag/")}
    assert not (output / "sitemap.xml").exists()


def test_unreadable_sitemap_metadata_is_a_warning(site, caplog):
    site.write("articles/maybe.md", "Title: Maybe\nDate: 2022-01-01\nSitemap: perhaps\nSlug: maybe\n\nText.\n")
    listed = locs(site.build())
    assert "2022/maybe/" in listed
    assert any("'sitemap: perhaps' is neither true nor false" in w for w in sitemapkit_warnings(caplog))


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"SITEMAPKIT": {"max_bytes": 5}}, "SITEMAPKIT['max_bytes']: 5 must be a whole number from 1,024"),
        (
            {"SITEMAPKIT": {"maxbytes": 5}},
            "SITEMAPKIT['maxbytes']: is not a sitemapkit option; did you mean 'max_bytes'?",
        ),
        (
            {"SITEMAPKIT": {"pelican_kind": {}}},
            "SITEMAPKIT['pelican_kind']: is not a sitemapkit option; did you mean 'pelican_kinds'?",
        ),
        ({"SITEMAPKIT": {"zzz": 5}}, "SITEMAPKIT['zzz']: is not a sitemapkit option (known: 'changefreq', "),
        (
            {"SITEMAPKIT": {"base_url": "https://example.org"}},
            "SITEMAPKIT['base_url']: the base URL comes from SITEURL",
        ),
        ({"SITEMAPKIT": {"changefreq": "sometimes"}}, "SITEMAPKIT['changefreq']: 'sometimes' is not one of"),
        ({"SITEMAPKIT": {"pelican_kinds": {"tag": False}}}, "SITEMAPKIT['pelican_kinds']: 'tag' is not a kind of page"),
        (
            {"SITEMAPKIT": {"pelican_kinds": {"tags": "no"}}},
            "SITEMAPKIT['pelican_kinds']: 'tags': 'no' must be True or False",
        ),
        (
            {"SITEMAPKIT": {"pelican_kinds": ["tags"]}},
            "SITEMAPKIT['pelican_kinds']: must be a dict of kind: true/false",
        ),
        ({"SITEMAPKIT": ["gzip"]}, "SITEMAPKIT: must be a dict of sitemapkit options, not list"),
        ({"SITEURL": "ftp://example.org"}, "SITEURL: 'ftp://example.org' is not an absolute http(s) URL"),
        # The base URL's one check (urls.check_base_url): a C1 control, NEL, refused at once.
        (
            {"SITEURL": "https://example.org/a\x85b"},
            "SITEURL: 'https://example.org/a\\x85b' contains spaces or control characters",
        ),
    ],
)
def test_a_bad_setting_stops_the_build_naming_it(site, settings, message):
    import sitemapkit
    from sitemapkit.plugins.pelican import SitemapkitConfigError

    with pytest.raises(SitemapkitConfigError) as raised:
        site.build(**settings)
    assert str(raised.value).startswith(message), str(raised.value)
    assert isinstance(raised.value, sitemapkit.ConfigError)
    # Checked before Pelican writes anything.
    assert not site.output.exists() or not any(site.output.iterdir())


def _pelican_settings(**override):
    from pelican.settings import read_settings

    return read_settings(override={"SITEURL": BASE, "PLUGINS": ["sitemapkit.plugins.pelican"], **override})


def test_the_sitemapkit_keys_are_the_declared_options_with_their_defaults(tmp_path):
    from sitemapkit.plugins.pelican import read_options

    settings = _pelican_settings()
    assert read_options(settings)[0] == Options(base_url=settings["SITEURL"])
    samples = option_samples(tmp_path)
    settings = _pelican_settings(SITEMAPKIT=samples)
    assert read_options(settings)[0] == options_with(samples, settings["SITEURL"])


@pytest.mark.parametrize("spec", Options.specs(), ids=lambda spec: spec.name)
def test_a_value_of_another_type_is_refused_naming_the_key(spec):
    from sitemapkit.plugins.pelican import SitemapkitConfigError, read_options

    wrong = {bool: "yes", int: "many", float: "high", str: 5, tuple: "drafts/*"}
    with pytest.raises(SitemapkitConfigError, match=rf"^SITEMAPKIT\['{spec.name}'\]: "):
        read_options(_pelican_settings(SITEMAPKIT={spec.name: wrong[spec.kind]}))


def test_a_bad_setting_fails_even_without_siteurl(site):
    from sitemapkit.plugins.pelican import SitemapkitConfigError

    with pytest.raises(SitemapkitConfigError, match=r"SITEMAPKIT\['gzip'\]"):
        site.build(SITEURL="", SITEMAPKIT={"gzip": "yes"})


def test_an_unparsable_siteurl_stops_naming_it_as_every_tool_does(site):
    """``https://[::1/`` cannot be parsed: the core's one line, with SITEURL named."""
    from sitemapkit.plugins.pelican import SitemapkitConfigError

    # Pelican hands SITEURL over without its trailing "/".
    with pytest.raises(sitemapkit.ConfigError) as core:
        Options(base_url="https://[::1")
    with pytest.raises(SitemapkitConfigError) as raised:
        site.build(SITEURL="https://[::1/")
    assert str(raised.value) == sitemapkit.PELICAN_SETTINGS.message(core.value) == "SITEURL: " + core.value.problem


@pytest.mark.parametrize("site_url", ["", "/blog", "//example.org/blog"])
def test_development_siteurl_warns_and_writes_nothing(site, caplog, site_url):
    output = site.build(SITEURL=site_url, FEED_DOMAIN="https://example.org")
    assert not (output / "sitemap.xml").exists()
    assert (output / "robots.txt").read_bytes() == (FIXTURE / "content" / "extra" / "robots.txt").read_bytes()
    assert (output / "index.html").exists()  # the build went on
    # The one rule every tool gives, in pelicanconf.py's terms.
    assert sitemapkit_warnings(caplog) == ["sitemapkit: " + development_siteurl(site_url)]


def development_siteurl(site_url: str) -> str:
    why = sitemapkit.development_base_url(
        site_url, setting="SITEURL", example="SITEURL = 'https://example.org' (as publishconf.py does)"
    )
    assert why is not None
    return why


def unpacked_without_git(site) -> None:
    """The site as an unpacked archive of real size: no git, and every undated page
    with the file time of the moment it was written (a handful written at once is
    a new project's, which keeps its times)."""
    shutil.rmtree(site.root / ".git")
    for number in range(5):
        site.write(f"pages/unpacked-{number}.md", f"Title: Unpacked {number}\n\nA page with no date.\n")


def test_warnings_can_be_silenced_with_log_filter(site, caplog):
    """Each notice code has its own message template, for Pelican's LOG_FILTER."""
    from pelican.log import LimitFilter

    # Without git every source has the fresh copy's file time: the core omits those
    # lastmods and says so, under the code "lastmod".
    unpacked_without_git(site)
    site.build()
    assert any(w.startswith("sitemapkit [lastmod]: ") for w in sitemapkit_warnings(caplog))
    caplog.clear()
    LimitFilter._raised_messages.clear()
    try:
        site.build(LOG_FILTER=[(logging.WARNING, "sitemapkit [lastmod]: %s")])
    finally:
        LimitFilter._ignore.discard((logging.WARNING, "sitemapkit [lastmod]: %s"))
    assert not sitemapkit_warnings(caplog)


def test_lastmod_warnings_off_keeps_fatal_warnings_green_and_still_says_why(site):
    unpacked_without_git(site)  # fresh copy's file times: dates omitted, and said
    quiet_feeds = ('FEED_DOMAIN="https://example.org"',)
    strict = site.cli(*quiet_feeds, "--fatal", "warnings")
    assert strict.returncode != 0 and "sitemapkit [lastmod]" in strict.stdout + strict.stderr
    # Information, in the summary line Pelican prints.
    quiet = site.cli("-e", 'SITEMAPKIT={"lastmod_warnings": false}', *quiet_feeds, "--fatal", "warnings")
    output = quiet.stdout + quiet.stderr
    assert quiet.returncode == 0, output
    assert "sitemapkit [lastmod]" not in output and "lastmod omitted" in output


# ---- the command line: messages, exit status, --fatal ---------------------------------


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        ('SITEMAPKIT={"max_bytes": 5}', "SITEMAPKIT['max_bytes']: 5 must be a whole number"),
        ('SITEMAPKIT={"maxbytes": 5}', "SITEMAPKIT['maxbytes']: is not a sitemapkit option; did you mean 'max_bytes'?"),
    ],
)
def test_cli_bad_setting_message_without_traceback(site, setting, message):
    result = site.cli("-e", setting)
    output = result.stdout + result.stderr
    assert result.returncode != 0
    assert f"SitemapkitConfigError: {message}" in output, output
    assert "Traceback" not in output, output


def test_cli_empty_siteurl_warns_and_fails_under_fatal_warnings(site):
    # No feeds: Pelican before 4.10 warns about feeds without SITEURL even with
    # FEED_DOMAIN set, and --fatal warnings would stop on that warning first.
    quiet_feeds = tuple(
        f"{kind}_{form}=null"
        for kind in ("FEED", "FEED_ALL", "CATEGORY_FEED", "AUTHOR_FEED", "TAG_FEED", "TRANSLATION_FEED")
        for form in ("ATOM", "RSS")
    )
    result = site.cli("-e", 'SITEURL=""', *quiet_feeds)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no sitemap written: SITEURL is not set" in result.stdout + result.stderr
    assert not (site.output / "sitemap.xml").exists()
    strict = site.cli("-e", 'SITEURL=""', *quiet_feeds, "--fatal", "warnings")
    assert strict.returncode != 0
    assert "SITEURL is not set" in strict.stdout + strict.stderr


# ---- robots.txt, other plugins, reruns ----------------------------------------------------


def test_robots_txt_is_merged_never_clobbered(site):
    """STATIC_PATHS + EXTRA_PATH_METADATA put the user's robots.txt in the output."""
    output = site.build(SITEURL="https://example.org")
    robots = (output / "robots.txt").read_text(encoding="utf-8")
    for line in (FIXTURE / "content" / "extra" / "robots.txt").read_text(encoding="utf-8").splitlines():
        assert line in robots.splitlines()
    assert robots.count("Sitemap:") == 1 and "Sitemap: https://example.org/sitemap.xml" in robots.splitlines()
    entries = sitemap_entries(output)
    assert "https://example.org/pages/private-notes.html" not in entries
    assert "https://example.org/pages/about.html" in entries


# Plugins connect to Pelican's process-wide signals for good: builds with other
# plugins run in a pelican process of their own, so no later test inherits them.


def test_with_pelican_seo_writing_robots_txt(site):
    site.output.mkdir()  # seo creates only the last folder of OUTPUT_PATH
    result = site.cli(
        "-e",
        'SITEURL="https://example.org"',
        'PLUGINS=["pelican.plugins.seo", "sitemapkit.plugins.pelican"]',
        'STATIC_PATHS=["images"]',  # seo writes robots.txt; no static one overwrites it
        "SEO_REPORT=false",
        "SEO_ENHANCER=true",
        'SEO_ENHANCER_SITEMAP_URL="https://example.org/sitemap.xml"',
    )
    assert result.returncode == 0, result.stdout + result.stderr
    robots = (site.output / "robots.txt").read_text(encoding="utf-8").splitlines()
    assert robots[0] == "User-agent: *"
    assert robots.count("Sitemap: https://example.org/sitemap.xml") == 1, robots
    # seo adds a canonical link to each article and page: it names the page itself.
    assert 'rel="canonical"' in (site.output / "pages" / "about.html").read_text(encoding="utf-8")
    listed = sitemap_entries(site.output)
    assert "https://example.org/2024/first-steps/" in listed
    assert "https://example.org/pages/about.html" in listed


def test_i18n_subsites_one_sitemap_for_all_languages(site):
    result = site.cli(
        "-e",
        'PLUGINS=["pelican.plugins.i18n_subsites", "sitemapkit.plugins.pelican"]',
        'I18N_SUBSITES={"de": {"SITENAME": "sitemapkit Beispiel"}}',
        # i18n_subsites reads content without `Lang:` as each sub-site's own language.
        'DEFAULT_METADATA={"lang": "en"}',
    )
    assert result.returncode == 0, result.stdout + result.stderr
    output = site.output
    assert not (output / "de" / "sitemap.xml").exists()
    listed = locs(output)
    assert "de/2024/first-steps/" in listed and "de/pages/about.html" in listed and "de/" in listed
    assert "2024/first-steps/" in listed and "first-steps-de.html" not in listed
    # English content that the German sub-site hides (drafts, hidden pages) stays out.
    assert not any(loc.startswith("de/drafts/") or loc.endswith("-en.html") for loc in listed), sorted(listed)
    article = [("de", BASE + "de/2024/first-steps/"), ("en", BASE + "2024/first-steps/")]
    assert listed["2024/first-steps/"]["alternates"] == article
    assert listed["de/2024/first-steps/"]["alternates"] == article
    assert listed["de/pages/about.html"]["alternates"] == [
        ("de", BASE + "de/pages/about.html"),
        ("en", BASE + "pages/about.html"),
    ]
    # Every listed sub-site page is a file the sub-site wrote.
    written = {url_of(f) for f in written_html(output / "de")}
    assert {loc[len("de/") :] for loc in listed if loc.startswith("de/")} <= written


def test_a_pelican_without_the_plugin_gets_no_sitemap(site, tmp_path):
    """Signals outlive the Pelican that connected them: a later build that does not
    list the plugin must not get a sitemap."""
    site.build()
    other = tmp_path / "other"
    site.build(OUTPUT_PATH=str(other), PLUGINS=[])
    assert (other / "index.html").exists() and not (other / "sitemap.xml").exists()


def test_heads_read_by_worker_processes_give_the_same_bytes(site, tmp_path, monkeypatch):
    """build_site's read-ahead in worker processes, inside a real Pelican run
    (large sites take it), changes nothing in what is written."""
    here, forked = site.build(), tmp_path / "forked"
    with read_ahead_in_workers(monkeypatch):
        site.build(OUTPUT_PATH=str(forked))
    for name in ("sitemap.xml", "robots.txt"):
        assert (forked / name).read_bytes() == (here / name).read_bytes(), name


def test_same_input_same_bytes_and_reruns(site, tmp_path):
    from pelican import Pelican

    pelican = Pelican(site.settings())
    pelican.run()
    first = (site.output / "sitemap.xml").read_bytes()
    # Pelican's autoreload runs the same instance again.
    (site.output / "sitemap.xml").unlink()
    pelican.run()
    assert (site.output / "sitemap.xml").read_bytes() == first
    other = tmp_path / "other"
    Pelican(site.settings(OUTPUT_PATH=str(other))).run()
    assert (other / "sitemap.xml").read_bytes() == first


def test_a_crashed_run_does_not_stop_the_next(site):
    """A run that fails midway never reaches finalized; the next run starts clean."""
    from pelican import Pelican

    broken = site.write(
        "articles/broken.md", "Title: Broken\nDate: 2022-01-01\nTemplate: missing\n\nNo such template.\n"
    )
    with pytest.raises(Exception, match="missing"):
        Pelican(site.settings()).run()
    os.remove(broken)
    listed = locs(site.build())
    assert set(listed) == set(EXPECTED)


def test_cli_shows_the_summary_by_default_and_it_is_no_warning(site):
    """Pelican shows INFO only with --verbose; the summary (with the robots.txt
    line to add, as SITEURL is below the host root) shows without it, and
    --fatal warnings does not count it."""
    result = site.cli("--fatal", "warnings")
    assert result.returncode == 0, result.stdout + result.stderr
    [summary] = [line for line in result.stdout.splitlines() if "sitemapkit" in line]
    assert re.fullmatch(
        # Every written page left out is counted: drafts and hidden content too, and
        # the static verification file no page stands for.
        r"\[\d\d:\d\d:\d\d\] INFO +sitemapkit: 28 URLs in 1 file \(sitemap\.xml\); excluded 1 canonical, 2 draft, "
        r"2 hidden, 1 metadata, 1 noindex, 1 not a page, 1 redirect, 1 robots\.txt; robots\.txt is read only at the host root; "
        r"add 'Sitemap: https://example\.org/blog/sitemap\.xml' to it +(pelican|log)\.py:\d+",
        summary.rstrip(),
    ), summary
    assert "Traceback" not in result.stdout + result.stderr
    # --quiet still means quiet.
    quiet = site.cli("--fatal", "warnings", "--quiet")
    assert quiet.returncode == 0, quiet.stdout + quiet.stderr
    assert "sitemapkit" not in quiet.stdout + quiet.stderr


def test_cli_flat_file_times_warning_offers_metadata_dates(site):
    # An unpacked archive of real size: no git, every file the same time.
    unpacked_without_git(site)
    for path in site.content.rglob("*"):
        os.utime(path, (1_700_000_000, 1_700_000_000))
    result = site.cli()
    assert result.returncode == 0, result.stdout + result.stderr
    [warning] = [line.rstrip() for line in result.stdout.splitlines() if "lastmod omitted" in line]
    assert re.search(
        r"so they do not tell when a page changed\. Build from a full git clone \(lastmod 'auto' or 'git'\), give the "
        r"articles and pages a 'modified' or 'date' in their metadata, or set lastmod to 'none'\. +(pelican|log)\.py:\d+$",
        warning,
    ), warning


CUSTOM_XSL = """<?xml version="1.0" encoding="UTF-8"?>
<xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">
  <!-- the fixture's own stylesheet -->
</xsl:stylesheet>
"""


def test_stylesheet_template_folder_is_relative_to_pelicanconf(site, tmp_path, monkeypatch):
    """As in mkdocs.yml and conf.py: a relative folder is read from beside the
    settings file, wherever Pelican runs from (here: another folder)."""
    (site.root / "sitemap_style").mkdir()
    (site.root / "sitemap_style" / "sitemap.xsl.j2").write_text(CUSTOM_XSL)
    with site.config_file.open("a") as conf:
        conf.write('\nSITEMAPKIT = {"stylesheet": True, "stylesheet_template": "sitemap_style"}\n')
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    output = site.build()
    assert "the fixture's own stylesheet" in (output / "sitemap.xsl").read_text()
    # The command line, run from the site's folder as users do, reads the same one.
    result = site.cli()
    assert result.returncode == 0, result.stdout + result.stderr
    assert "the fixture's own stylesheet" in (site.output / "sitemap.xsl").read_text()


def test_indexnow_key_writes_the_key_file_at_the_output_root(site):
    key = "pelican-indexnow-key-1"
    output = site.build(SITEMAPKIT={"indexnow_key": key})
    assert (output / f"{key}.txt").read_text() == key
    assert (output / "sitemap.xml").is_file()
