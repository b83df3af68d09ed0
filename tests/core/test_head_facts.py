"""The dates and hreflang alternates a built page's head declares, and how
build_site uses them."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from conftest import sitemap_entries
from sitemapkit import Options, Page, build_site
from sitemapkit.site.htmlcheck import inspect_built_page

URL = "https://example.org/blog/post/"
BASE = "https://example.org/"


def page(tmp_path: Path, head: str, name: str = "index.html") -> Path:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"<!doctype html><html><head><meta charset=utf-8>{head}</head><body>x</body></html>")
    return path


ARTICLE = '<meta property="article:modified_time" content="2024-03-03T03:03:03+01:00">'
OG = '<meta property="og:updated_time" content="2023-02-02">'
JSON_LD = '<script type="application/ld+json">{"@type": "BlogPosting", "dateModified": "2022-01-01T00:00:00Z"}</script>'


@pytest.mark.parametrize(
    ("head", "expected"),
    [
        (JSON_LD + OG + ARTICLE, ("2024-03-03T03:03:03+01:00", "2023-02-02", "2022-01-01T00:00:00Z")),
        (JSON_LD + OG, ("2023-02-02", "2022-01-01T00:00:00Z")),
        (JSON_LD, ("2022-01-01T00:00:00Z",)),
        # Open Graph written with name= (some themes do).
        ('<meta name="og:updated_time" content="2023-02-02">', ("2023-02-02",)),
        # In a comment or in another script, a tag is text.
        ("<!-- " + ARTICLE + " -->", ()),
        ("<script>var t = '" + ARTICLE + "';</script>", ()),
        # A JSON-LD block in a comment or a <template> is no script of the head.
        ("<!-- " + JSON_LD + " -->", ()),
        ("<template>" + JSON_LD + "</template>", ()),
        # One whose text holds "</head>" is still the head's, and so is what follows it.
        (
            '<script type="application/ld+json">{"name": "</head><body>", "dateModified": "2021-01-01"}</script>' + OG,
            ("2023-02-02", "2021-01-01"),
        ),
        # Broken JSON is passed over, as crawlers pass over it.
        ('<script type="application/ld+json">{"dateModified": </script>', ()),
        ("", ()),
    ],
    ids=[
        "all-three",
        "og-then-json-ld",
        "json-ld",
        "og-by-name",
        "comment",
        "script-text",
        "json-ld-in-comment",
        "json-ld-in-template",
        "json-ld-holding-head-end",
        "broken-json",
        "none",
    ],
)
def test_dates_in_the_order_crawlers_trust_them(tmp_path, head, expected):
    assert inspect_built_page(page(tmp_path, head), URL, dates=True).modified == expected


def test_dates_and_alternates_are_read_only_when_asked(tmp_path):
    path = page(tmp_path, ARTICLE + '<link rel="alternate" hreflang="fr" href="/fr/">')
    facts = inspect_built_page(path, URL)
    assert facts.modified == () and facts.alternates == ()


def test_alternates_resolve_against_the_page_and_its_base(tmp_path):
    head = (
        '<link rel="alternate" hreflang="fr" href="../../fr/blog/post/">'
        '<link rel="alternate" hreflang="x-default" href="/blog/post/">'
        '<link rel="alternate" href="/feed.xml" type="application/rss+xml">'
        '<link rel="alternate" hreflang="de" href="mailto:someone@example.org">'
    )
    facts = inspect_built_page(page(tmp_path, head), URL, alternates=True)
    assert facts.alternates == (
        ("fr", "https://example.org/fr/blog/post/"),
        ("x-default", "https://example.org/blog/post/"),
    )
    based = inspect_built_page(page(tmp_path, '<base href="https://example.org/en/">' + head), URL, alternates=True)
    assert based.alternates[0] == ("fr", "https://example.org/fr/blog/post/")


def flat_site(tmp_path: Path, heads: dict[str, str]) -> list[Page]:
    """Pages whose only source is their built file, all with one build-time mtime."""
    pages = []
    for url, head in heads.items():
        path = page(tmp_path, head, (url or "") + "index.html")
        os.utime(path, (1_767_225_600, 1_767_225_600))
        pages.append(Page(url, source=path, output=path))
    return pages


def test_build_dates_pages_by_their_heads(tmp_path):
    pages = flat_site(
        tmp_path,
        {
            "a/": ARTICLE,
            "b/": '<meta property="article:modified_time" content="yesterday">' + OG,
            "c/": "",
        },
    )
    pages.append(Page("d/", lastmod="2020-01-01", source=pages[0].source, output=pages[0].output))
    build_site(pages, Options(base_url=BASE, check_canonical=False), tmp_path)
    dates = {loc[len(BASE) :]: e["lastmod"] for loc, e in sitemap_entries(tmp_path).items()}
    assert dates == {
        "a/": "2024-03-03T03:03:03+01:00",
        "b/": "2023-02-02",  # a value that is no date is passed over for the next
        "c/": "2026-01-01T00:00:00+00:00",  # no head date: the file time, the last rule
        "d/": "2020-01-01",  # metadata wins
    }
    build_site(pages, Options(base_url=BASE, lastmod="none"), tmp_path)
    assert {e["lastmod"] for e in sitemap_entries(tmp_path).values()} == {None}


def test_build_follows_declared_groups_over_translation_keys(tmp_path):
    pair = '<link rel="alternate" hreflang="en" href="/a/"><link rel="alternate" hreflang="fr-CA" href="/fr/a/">'
    built = {p.loc: p for p in flat_site(tmp_path, {"a/": pair, "fr/a/": pair, "b/": "", "fr/b/": ""})}
    # The adapter knows b/ and fr/b/ as translations, and nothing of a/ and fr/a/.
    pages = [
        built["a/"],
        built["fr/a/"],
        Page("b/", source=built["b/"].source, output=built["b/"].output, hreflang="en", translation_key="b"),
        Page("fr/b/", source=built["fr/b/"].source, output=built["fr/b/"].output, hreflang="fr", translation_key="b"),
    ]
    report = build_site(pages, Options(base_url=BASE, x_default="en"), tmp_path)
    entries = sitemap_entries(tmp_path)
    declared = [("en", BASE + "a/"), ("fr-CA", BASE + "fr/a/"), ("x-default", BASE + "a/")]
    assert entries[BASE + "a/"]["alternates"] == sorted(declared)
    assert entries[BASE + "fr/a/"]["alternates"] == sorted(declared)
    # Heads that declare nothing leave the adapter's groups as they were.
    given = sorted([("en", BASE + "b/"), ("fr", BASE + "fr/b/"), ("x-default", BASE + "b/")])
    assert entries[BASE + "b/"]["alternates"] == given
    assert any("the sitemap follows the pages" in line for line in report.advice)
