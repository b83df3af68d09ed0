"""`sitemapkit generate`'s block path: the same bytes as the page-by-page path."""

from __future__ import annotations

import io
import random
import zlib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import sitemap_entries
from sitemapkit import Options, Page, UrlError
from sitemapkit.bulk import plain_block_entries, write_url_list
from sitemapkit.sitemap import GenerateResult, _Formatter, generate
from sitemapkit.urls import Scope

BASE = "https://example.org/docs/"


def careful_entries(lines: list[str]) -> tuple[list[bytes], list[int]]:
    formatter = _Formatter(Options(base_url=BASE), Scope(BASE), GenerateResult())
    entries, hashes = [], []
    for line in lines:
        url, _, lastmod = line.partition("\t")
        entries.append(formatter.entry(Page(url, lastmod=lastmod or None)))
        hashes.append(zlib.crc32(formatter.previous.encode()))
    return entries, hashes


path_text = st.text(st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="\t\n\r#\x85\u2028\u2029"), min_size=1, max_size=30)
dates = st.sampled_from([
    "", "\t2024-05-01", "\t2024-05-01T10:00:00+00:00", "\t2024-05-01T10:00:00Z", "\t2023-01-02T03:04:05-07:00",
    "\t2024-05-01T10:00+02:00", "\t2024-05-01T10:00:00.25Z",
])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(path_text, dates), min_size=1, max_size=20, unique_by=lambda t: t[0]), st.booleans())
def test_quick_block_path_writes_what_the_careful_path_writes(rows, absolute: bool) -> None:
    lines = [(BASE + p if absolute else p) + d for p, d in rows]
    block = ("\n".join(lines) + "\n").encode("utf-8")
    quick = plain_block_entries(block, BASE.encode())
    if quick is None:
        return  # the block went the careful way; nothing to compare
    assert quick == careful_entries(lines)


@pytest.mark.parametrize("date", ["2024-02-30", "2024-13-01", "2024-05-01T24:00:00Z", "2024-05-01T10:00:00+25:00"])
def test_impossible_dates_take_the_careful_path(date: str) -> None:
    assert plain_block_entries(f"a\t{date}\nb\n".encode(), BASE.encode()) is None


@pytest.mark.parametrize(
    "line",
    ["https://other.org/x", "/abs", "a/../b", "x#frag", "", "# comment", "bad\x01ctl", "a\tyesterday", "https://example.org:443/docs/a"],
)
def test_unusual_lines_take_the_careful_path(line: str) -> None:
    block = f"https://example.org/docs/ok\n{line}\n".encode()
    assert plain_block_entries(block, BASE.encode()) is None


def make_list(n: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    rows = set()
    while len(rows) < n:
        path = f"s{rng.randrange(40)}/p{rng.randrange(10**6)}" + rng.choice(["", "ü", "&x", " y", "%20z"])
        rows.add(path)
    return [p + rng.choice(["", "\t2024-05-01", "\t2024-05-01T10:00:00+02:00"]) for p in sorted(rows)]


@pytest.mark.parametrize("n", [50, 3000])
def test_parallel_writer_matches_page_generator(tmp_path: Path, n: int) -> None:
    """Worker processes, block boundaries and stitching change nothing in the output."""
    options = Options(base_url=BASE, max_urls=100, max_bytes=65536, gzip=False)
    lines = make_list(n)
    source = io.BytesIO(("\n".join(lines) + "\n").encode())
    import sitemapkit.bulk as bulk

    original = bulk.BLOCK_BYTES
    bulk.BLOCK_BYTES = 4096  # many blocks, so workers and stitching are exercised
    try:
        result = GenerateResult()
        written = write_url_list(source, options, tmp_path, result)
    finally:
        bulk.BLOCK_BYTES = original
    pages = []
    for line in lines:
        url, _, lastmod = line.partition("\t")
        pages.append(Page(url, lastmod=lastmod or None))
    expected = {f.name: f.data for f in generate(pages, options)}
    got = {f.name: (tmp_path / f.name).read_bytes() for f in written}
    assert got == expected
    assert result.urls == n
    assert len(written) > (30 if n > 1000 else 0)
    assert len(sitemap_entries(tmp_path)) == n


def test_not_utf8_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(UrlError, match="not UTF-8"):
        write_url_list(io.BytesIO(b"https://example.org/docs/\xff\n"), Options(base_url=BASE), tmp_path, GenerateResult())
