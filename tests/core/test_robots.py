"""robots.txt keeps its bytes: line ends, byte order mark, comments; our Sitemap: line once.

RFC 9309 section 2.2: lines end with CR, LF or CRLF, and "#" starts a comment;
section 2.3: the file is UTF-8. A build changes only the Sitemap: lines that are
sitemapkit's, and a file it cannot read as text it leaves alone.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sitemapkit import Options, OutputError, Page, build_site
from sitemapkit.protocol.robots import decode_robots_txt, merge_sitemap_lines

BASE = "https://example.org/"
OURS = "https://example.org/sitemap.xml"


@pytest.mark.parametrize("newline", [b"\r\n", b"\r", b"\n"])
def test_line_ends_stay_as_they_were(tmp_path: Path, newline: bytes) -> None:
    original = newline.join([b"User-agent: *", b"Disallow: /private/", b""])
    (tmp_path / "robots.txt").write_bytes(original)
    build_site([Page("a")], Options(base_url=BASE, lastmod="none"), tmp_path)
    written = (tmp_path / "robots.txt").read_bytes()
    assert written == original + newline + b"Sitemap: " + OURS.encode() + newline
    build_site([Page("a")], Options(base_url=BASE, lastmod="none"), tmp_path)
    assert (tmp_path / "robots.txt").read_bytes() == written


@pytest.mark.parametrize(
    "original",
    [
        # Our line after a UTF-8 byte order mark, on the first line.
        b"\xef\xbb\xbfSitemap: https://example.org/sitemap.xml\r\nUser-agent: *\r\nDisallow:\r\n",
        # Before a comment, and spelled in other letter case and spacing.
        b"User-agent: *\nDisallow:\n\nsitemap :https://example.org/sitemap.xml   # written by sitemapkit\n",
        b"User-agent: *\rDisallow:\rSITEMAP:\thttps://example.org/sitemap.xml#ours\r",
        # Mixed line ends, no line end at the end of the file.
        b"User-agent: *\r\nDisallow: /a\nAllow: /b\rSitemap: https://example.org/sitemap.xml",
    ],
)
def test_a_file_that_names_our_sitemap_is_not_touched(tmp_path: Path, original: bytes) -> None:
    (tmp_path / "robots.txt").write_bytes(original)
    build_site([Page("a")], Options(base_url=BASE, lastmod="none"), tmp_path)
    assert (tmp_path / "robots.txt").read_bytes() == original


def test_an_old_line_of_ours_is_updated_in_place_keeping_its_comment() -> None:
    existing = "\ufeffUser-agent: *\r\nSitemap: https://example.org/sitemap-index-1.xml  # ours\r\nDisallow: /x\r\n"
    merged = merge_sitemap_lines(existing, [OURS], lambda url: "sitemap-index-" in url)
    assert merged == "\ufeffUser-agent: *\r\nSitemap: https://example.org/sitemap.xml  # ours\r\nDisallow: /x\r\n"


def test_more_urls_than_lines_go_after_the_last_of_ours() -> None:
    existing = "Sitemap: https://example.org/sitemap.xml # ours\rDisallow: /x"
    merged = merge_sitemap_lines(existing, [OURS, "https://example.org/sitemap-index-2.xml"])
    assert (
        merged
        == "Sitemap: https://example.org/sitemap.xml # ours\rSitemap: https://example.org/sitemap-index-2.xml\rDisallow: /x"
    )


def test_a_line_break_inside_a_line_is_only_cr_or_lf() -> None:
    # A form feed or U+2028 is no line end to a robots.txt parser: the line
    # "Disallow: /a\x0cSitemap: ..." is a Disallow line, not ours.
    existing = "Disallow: /a\x0cSitemap: https://example.org/sitemap.xml\u2028\n"
    merged = merge_sitemap_lines(existing, [OURS])
    assert merged == existing + "\nSitemap: https://example.org/sitemap.xml\n"


lines = st.lists(
    st.one_of(
        st.sampled_from(
            ["User-agent: *", "Disallow: /", "", "# c", f"Sitemap: {OURS}", f" sitemap:{OURS} #x", "\ufeffAllow: /"]
        ),
        st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\n"), max_size=20),
    ),
    max_size=8,
)


@given(lines, st.lists(st.sampled_from(["\r\n", "\r", "\n"]), min_size=8, max_size=8), st.booleans())
def test_merging_keeps_every_other_byte_and_is_idempotent(body: list[str], ends: list[str], final_end: bool) -> None:
    text = "".join(line + end for line, end in zip(body, ends))
    if not final_end and text:
        text = text[: -len(ends[len(body) - 1])]
    once = merge_sitemap_lines(text, [OURS])
    assert merge_sitemap_lines(once, [OURS]) == once
    assert once.count("Sitemap: " + OURS) + once.count(f"sitemap:{OURS}") >= 1
    if OURS not in text:
        assert once.startswith(text)


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"User-agent: *\nDisallow: /\x00\n", "a NUL byte at offset 25"),
        (b"\xff\xfeU\x00s\x00", "a NUL byte at offset 3"),
        (b"User-agent: *\n# caf\xe9\n", "byte 0xe9 at offset 19 is not UTF-8"),
    ],
)
def test_a_binary_robots_txt_is_an_error_naming_it_and_left_alone(tmp_path: Path, data: bytes, reason: str) -> None:
    (tmp_path / "robots.txt").write_bytes(data)
    with pytest.raises(OutputError) as raised:
        build_site([Page("a")], Options(base_url=BASE), tmp_path)
    assert str(raised.value) == f"{tmp_path / 'robots.txt'} is not a UTF-8 text file ({reason}); it was left as it is"
    assert (tmp_path / "robots.txt").read_bytes() == data
    assert sorted(p.name for p in tmp_path.iterdir()) == ["robots.txt"]


def test_a_binary_robots_txt_not_needed_is_not_read(tmp_path: Path) -> None:
    (tmp_path / "robots.txt").write_bytes(b"\x00\xff")
    build_site([Page("a")], Options(base_url=BASE, robots_txt=False, check_robots_rules=False), tmp_path)
    assert (tmp_path / "robots.txt").read_bytes() == b"\x00\xff"
    assert (tmp_path / "sitemap.xml").is_file()


def test_decoding_gives_back_every_byte() -> None:
    data = b"\xef\xbb\xbfUser-agent: *\r\nDisallow: /\xc3\xbc\rAllow: /\n"
    assert decode_robots_txt(data).encode("utf-8") == data
