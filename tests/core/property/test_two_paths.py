"""One encoder: `sitemapkit generate`'s whole-block path writes, byte for byte, what
the page-by-page path writes, over every option that changes an entry and every
Unicode category (control characters, C1 among them, included).

A comparison only counts when the block path took the block; the test fails when
fewer than most of its examples were compared, so it cannot pass by sending
everything the careful way.
"""

from __future__ import annotations

import re
import zlib

from hypothesis import given, settings
from hypothesis import strategies as st

from sitemapkit import Options, Page, UrlError
from sitemapkit.protocol.encoder import EncodeResult, EntryParts, EntryWriter
from sitemapkit.engine.urllist import plain_block
from sitemapkit.protocol.urls import Scope

BASES = ["https://example.org/", "https://example.org/docs/", "http://example.org:8080/a%20b/c/"]

# Most characters are ones a URL holds as they are; the rest are drawn from every
# category but surrogates (which UTF-8 text cannot hold), control characters
# (C0, DEL, C1 with NEL U+0085) among them, and the characters with URL meaning.
plain_char = st.sampled_from("abcxyz0129-._~/!$&'()*+,;=:@?")
# Every category: letters, marks, numbers, punctuation, symbols, separators (U+2028
# too), format characters (the BOM), private use, unassigned; control characters
# and the characters with list or URL meaning come as rare pieces.
unicode_char = st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="#")
control_char = st.sampled_from("\x00\x01\x1f\x7f\x80\x85\x9f\r")
odd_piece = st.sampled_from(
    ["/x", "//evil.example/x", "%", "%2", "%41", "%2e%2E", "/../", "/./", "#", "#x", "\t", "\tyesterday", " "]
)
text_piece = st.one_of(
    st.text(plain_char, min_size=1, max_size=8),
    st.text(plain_char, min_size=1, max_size=8),
    st.text(unicode_char, min_size=1, max_size=2),
)
rare_piece = st.one_of(control_char, odd_piece, st.characters(blacklist_categories=("Cs",), blacklist_characters="\n"))
# A leading "/" would make every line host-relative (the careful path's): rare pieces cover it.
path = st.lists(text_piece, min_size=1, max_size=3).map(lambda pieces: "p" + "".join(pieces))
# What follows the tab: mostly the fixed-width forms the block path reads...
date = st.sampled_from(
    [
        None,
        None,
        "2024-05-01",
        "2024-05-01T10:00:00+00:00",
        "2024-05-01T10:00:00Z",
        "2023-01-02T03:04:05-07:00",
        "0004-02-29",
    ]
)
# ...and rarely the other W3C forms and what is no date.
rare_date = st.sampled_from(
    ["2024-05-01T10:00+02:00", "2024-05-01T10:00:00.25Z", "2023-02-29", "yesterday", " 2024-05-01"]
)


def seldom(strategy):
    """No value three times in four, else one."""
    return st.one_of(st.just(()), st.just(()), st.just(()), strategy.map(lambda value: (value,)))


options = st.builds(
    Options,
    base_url=st.sampled_from(BASES),
    format=st.sampled_from(["xml", "xml", "txt"]),
    changefreq=st.sampled_from([None, None, "daily"]),
    priority=st.sampled_from([None, None, 0.5, 1.0]),
)


# hreflang alternates: a URL list has none, so the block path never writes them;
# the page path adds them to an entry without changing anything else in it.
alternate_sets = st.sampled_from(
    [
        (("en", "https://example.org/en/a"), ("fr", "https://example.fr/a?x=1&y=2")),
        (
            ("de-CH-1901", "https://example.org/de/ä"),
            ("en-x-test", "https://example.org/en/"),
            ("x-default", "https://example.org/"),
        ),
    ]
)
_LINKS = re.compile(rb'(?:<xhtml:link rel="alternate" hreflang="[^"]+" href="[^"]+"/>)+(?=</url>\Z)')


def careful(lines: list[str], opts: Options, alternates: dict | None = None):
    """The page-by-page path's entries (their hreflang links taken out) and loc
    hashes, or the error it stops with."""
    scope = Scope(opts.base_url)
    formatter = EntryWriter(opts, scope, EncodeResult())
    entries, hashes = [], []
    try:
        for index, line in enumerate(lines):
            url, _, lastmod = line.partition("\t")
            links = (alternates or {}).get(index, ())
            entry = formatter.entry(Page(url, lastmod=lastmod or None, alternates=links))
            if links and entry is not None and not opts.format == "txt":
                entry, found = _LINKS.subn(b"", entry)
                assert found == 1 and b"<xhtml:link" not in entry
            if entry is None:
                return "left out"
            entries.append(entry)
            hashes.append(zlib.crc32(formatter.previous.encode()))
    except UrlError:
        return "refused"
    return entries, hashes


def test_block_path_writes_what_the_page_path_writes() -> None:
    counts = {"examples": 0, "compared": 0}

    @settings(max_examples=400, deadline=None)
    @given(
        opts=options,
        rows=st.lists(st.tuples(path, date), min_size=1, max_size=12, unique_by=lambda row: row[0]),
        rare=seldom(st.tuples(st.integers(0, 11), rare_piece)),
        rare_dates=seldom(st.tuples(st.integers(0, 11), rare_date)),
        with_alternates=seldom(st.tuples(st.integers(0, 11), alternate_sets)),
        absolute=st.booleans(),
    )
    def compare(opts: Options, rows, rare, rare_dates, with_alternates, absolute: bool) -> None:
        counts["examples"] += 1
        rows = [list(row) for row in rows]
        for index, piece in rare:
            rows[index % len(rows)][0] += piece
        for index, text in rare_dates:
            rows[index % len(rows)][1] = text
        prefix = Scope(opts.base_url).prefix
        lines = [(prefix + p if absolute else p) + ("" if d is None else "\t" + d) for p, d in rows]
        block = ("\n".join(lines) + "\n").encode("utf-8")
        quick = plain_block(block, prefix.encode(), EntryParts.of(opts))
        expected = careful(lines, opts, {index % len(rows): links for index, links in with_alternates})
        if quick is None:
            return  # the careful path's block: nothing to compare
        counts["compared"] += 1
        # Whatever the block path takes, the page path takes and writes the same.
        assert expected == (quick.entries(), quick.hashes)

    compare()
    assert counts["compared"] > counts["examples"] // 2, counts


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.text(st.sampled_from("abcxyz012-_~"), min_size=1, max_size=6), min_size=2, max_size=6, unique=True),
    st.integers(0, 5),
    control_char,
    st.booleans(),
)
def test_a_control_character_is_refused_whatever_its_neighbours(paths, where, control, absolute) -> None:
    """C0, DEL and C1 (NEL U+0085 too) are refused by both paths, in any block."""
    prefix = "https://example.org/docs/"
    paths = sorted(paths)
    paths[where % len(paths)] += "a" + control + "b"
    lines = [(prefix + p if absolute else p) for p in paths]
    block = ("\n".join(lines) + "\n").encode("utf-8")
    assert plain_block(block, prefix.encode()) is None
    opts = Options(base_url=prefix)
    assert careful(lines, opts) == "refused"
