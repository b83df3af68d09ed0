"""Property tests: for arbitrary Unicode paths the output is a valid sitemap.

sitemaps.org, "Entity escaping": "Your Sitemap file must be UTF-8 encoded" and
"all data values in a Sitemap must be entity-escaped"; "Please check to make sure
that your URLs follow the RFC-3986 standard for URIs".
"""

from __future__ import annotations

import html
from urllib.parse import unquote

from lxml import etree

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import assert_valid, usp_pages
from sitemapkit import Options, Page
from sitemapkit.protocol.encoder import encode_pages
from sitemapkit.protocol.urls import is_uri

BASE = "https://example.org/base/"


def xml_locs(data: bytes) -> list[str]:
    return [e.text for e in etree.fromstring(data).iter("{http://www.sitemaps.org/schemas/sitemap/0.9}loc")]


# Any text a file name or slug can hold: no surrogates, no controls; "%", "?" and
# "#" have URL meaning (escape, query, fragment), so they are tested by the tables.
segment = st.text(
    st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="%?#/\\"),
    min_size=1,
    max_size=20,
).filter(lambda s: s not in (".", ".."))
paths = st.lists(segment, min_size=1, max_size=4).map("/".join)


@settings(max_examples=150, deadline=None)
@given(st.lists(paths, min_size=1, max_size=8, unique=True))
def test_arbitrary_paths_make_valid_sitemaps_that_decode_back(raw_paths: list[str]) -> None:
    files = list(encode_pages([Page(p) for p in sorted(raw_paths)], Options(base_url=BASE)))
    assert len(files) == 1
    data = files[0].data
    assert_valid(data)  # well-formed and valid against sitemap.xsd
    locs = xml_locs(data)
    assert len(locs) == len(raw_paths)
    # An independent parser reads the same URLs. (ultimate-sitemap-parser runs
    # html.unescape over loc text once more after the XML parser, so "&lt" in a
    # path reaches it as "<": compare on its terms.)
    assert usp_pages(data) == [html.unescape(loc) for loc in locs]
    for loc in locs:
        assert loc.startswith(BASE) and is_uri(loc)
    assert sorted(unquote(loc[len(BASE) :]) for loc in locs) == sorted(raw_paths)


@settings(max_examples=40, deadline=None)
@given(st.lists(paths, min_size=30, max_size=60, unique=True))
def test_sharded_output_is_valid_and_complete(raw_paths: list[str]) -> None:
    files = list(encode_pages([Page(p) for p in sorted(raw_paths)], Options(base_url=BASE, max_urls=7, max_bytes=2048)))
    listed = []
    for f in files:
        assert len(f.data) <= 2048
        assert_valid(f.data)
        if f.kind == "urlset":
            assert f.count <= 7
            listed += xml_locs(f.data)
    # The longest path here encodes to about 1,000 bytes, so every page fits a file.
    assert sorted(unquote(l[len(BASE) :]) for l in listed) == sorted(raw_paths)
