"""check_site reads only regular files inside the site folder, and gzip only up to the byte limit.

Whatever a sitemap, an index or robots.txt names (they may come from anywhere),
`sitemapkit check` opens nothing outside SITE_DIR: such entries are reported.
What the checker opens is recorded through an audit hook, so "never opened" is
shown, not assumed.
"""

from __future__ import annotations

import os
import sys
import zlib
from pathlib import Path

import pytest

from sitemapkit import SitemapkitError
from sitemapkit.audit.check import CheckResult, check_site
from sitemapkit.publish.publication import gzip_bytes

BASE = "https://example.org/"
URLSET = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n{}</urlset>\n'
)


def urlset(*locs: str) -> str:
    return URLSET.format("".join(f"<url><loc>{loc}</loc></url>\n" for loc in locs))


def index(*locs: str) -> str:
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
        + "".join(f"<sitemap><loc>{loc}</loc></sitemap>\n" for loc in locs)
        + "</sitemapindex>\n"
    )


_opened: list[str] | None = None


def _audit(event: str, args: tuple) -> None:
    if _opened is not None and event == "open" and isinstance(args[0], (str, bytes, os.PathLike)):
        _opened.append(os.fsdecode(args[0]))


sys.addaudithook(_audit)


def checked(site: Path, *args, **kwargs) -> tuple[CheckResult, list[str]]:
    """check_site's result, and the paths it opened outside ``site`` (from the
    "open" audit event: open(), os.open, Path.read_bytes...)."""
    global _opened
    _opened = []
    try:
        result = check_site(site, *args, **kwargs)
    finally:
        opened, _opened = _opened, None
    root = os.path.realpath(site)
    # Python's own files (a module imported on first use, its bytecode) are no
    # part of what the check reads.
    return result, [
        path
        for path in opened
        if not os.path.realpath(path).startswith(root + os.sep) and not path.endswith((".py", ".pyc", ".so"))
    ]


@pytest.fixture
def site(tmp_path: Path) -> Path:
    """A site with one page, and beside it (outside it) a secret that is a valid
    sitemap, so that reading it would show in the counts too."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text("<html></html>")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.xml").write_text(urlset("https://example.org/"))
    return site


@pytest.mark.parametrize(
    "loc",
    [
        "https://example.org/../outside/secret.xml",
        "https://example.org/%2e%2e/outside/secret.xml",
        "https://example.org/%2E%2E/outside/secret.xml",
        "https://example.org/./../outside/secret.xml",
        "https://example.org/..%2Foutside%2Fsecret.xml",
        "https://example.org//etc/passwd",
        "https://example.org//{outside}/secret.xml",
        "https://example.org/%2F{outside}/secret.xml",
        "https://example.org/%00secret.xml",
        "//etc/passwd",
    ],
)
def test_an_index_entry_outside_the_site_is_reported_never_opened(site: Path, loc: str) -> None:
    loc = loc.format(outside=str(site.parent / "outside").lstrip("/"))
    (site / "sitemap.xml").write_text(index(loc, "https://example.org/pages.xml"))
    (site / "pages.xml").write_text(urlset("https://example.org/"))
    result, outside = checked(site, BASE)
    assert outside == []
    assert result.files == ["sitemap.xml", "pages.xml"]
    assert result.urls == 1
    assert len(result.problems) == 1 and result.problems[0].line == 3, result.problems
    assert loc in result.problems[0].message or "not an absolute URL" in result.problems[0].message


@pytest.mark.parametrize(
    ("link", "target", "loc"),
    [
        ("leak.xml", "outside/secret.xml", "https://example.org/leak.xml"),
        ("sub", "outside", "https://example.org/sub/secret.xml"),
        ("a", "site/b", "https://example.org/a/c/secret.xml"),  # a/c -> ../../outside, through b
    ],
)
def test_a_symlink_out_of_the_site_is_reported_never_opened(site: Path, link: str, target: str, loc: str) -> None:
    (site / "b").mkdir()
    (site / "b" / "c").symlink_to(site.parent / "outside")
    (site / link).symlink_to(site.parent / target)
    (site / "sitemap.xml").write_text(index(loc))
    result, outside = checked(site, BASE)
    assert outside == []
    assert [str(p) for p in result.problems] == [
        f"sitemap.xml:3: sitemap {loc} leads outside the site folder (through a symlink); not opened"
    ]
    assert result.urls == 0


def test_a_symlinked_entry_point_and_robots_txt_out_of_the_site_are_not_opened(site: Path) -> None:
    (site / "sitemap.xml").symlink_to(site.parent / "outside" / "secret.xml")
    (site.parent / "outside" / "robots.txt").write_text("Sitemap: https://example.org/sitemap.xml\n")
    (site / "robots.txt").symlink_to(site.parent / "outside" / "robots.txt")
    result, outside = checked(site, BASE)
    assert outside == []
    assert [str(p) for p in result.problems] == [
        "robots.txt:0: leads outside the site folder (through a symlink); not opened",
        "sitemap.xml:0: leads outside the site folder (through a symlink); not opened",
    ]


def test_a_symlink_inside_the_site_is_followed(site: Path) -> None:
    (site / "real.xml").write_text(urlset("https://example.org/"))
    (site / "alias.xml").symlink_to("real.xml")
    (site / "sitemap.xml").write_text(index("https://example.org/alias.xml"))
    result = check_site(site, BASE)
    assert result.problems == [] and result.urls == 1


@pytest.mark.parametrize(
    "line",
    [
        "Sitemap: https://example.org/%2e%2e",
        "Sitemap: https://example.org/..%2Foutside%2Fsecret.xml",
        "Sitemap: https://example.org/leak.xml",
        "Sitemap: file:///etc/passwd",
    ],
)
def test_a_robots_sitemap_line_outside_the_site_is_reported_never_opened(site: Path, line: str) -> None:
    (site / "leak.xml").symlink_to(site.parent / "outside" / "secret.xml")
    (site / "robots.txt").write_text(f"User-agent: *\r\n{line}\r\n")
    result, outside = checked(site, BASE)
    assert outside == []
    url = line.split(" ", 1)[1]
    assert str(result.problems[0]).startswith(f"robots.txt:2: Sitemap: {url} does not point at a sitemap in this site")
    assert result.files == [] and result.urls == 0


def test_a_page_loc_outside_the_site_is_not_taken_for_a_page(site: Path) -> None:
    (site.parent / "outside" / "page.html").write_text("<html></html>")
    (site / "sitemap.xml").write_text(urlset("https://example.org/", "https://example.org/../outside/page.html"))
    result = check_site(site, BASE)
    assert [str(p) for p in result.problems] == [
        "sitemap.xml:4: https://example.org/../outside/page.html leads outside the site folder"
        " (an empty, '.' or '..' path segment)"
    ]


def test_a_fifo_named_in_an_index_is_reported_never_opened(site: Path) -> None:
    os.mkfifo(site / "pipe.xml")
    (site / "sitemap.xml").write_text(index("https://example.org/pipe.xml"))
    result = check_site(site, BASE)  # opening the FIFO would block forever
    assert [str(p) for p in result.problems] == [
        "sitemap.xml:3: sitemap https://example.org/pipe.xml is not a regular file; not opened"
    ]


def test_a_folder_that_does_not_exist_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(SitemapkitError, match="is not a folder"):
        check_site(tmp_path / "missing", BASE)


def _zeros_gzip(size: int, members: int = 1) -> bytes:
    """A gzip file of ``members`` members each inflating to ``size`` zero bytes."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    member = compressor.compress(bytes(size)) + compressor.flush()
    return member * members


def test_gzip_is_inflated_only_up_to_the_limit(site: Path) -> None:
    (site / "sitemap.xml.gz").write_bytes(_zeros_gzip(10_000_000))
    result = check_site(site, BASE, entry="sitemap.xml.gz", max_bytes=1_000)
    assert [str(p) for p in result.problems] == [
        "sitemap.xml.gz:0: more than 1,000 bytes uncompressed; the limit is 1,000 (not read further)"
    ]


def test_a_huge_plain_file_is_read_only_up_to_the_limit(site: Path) -> None:
    # 64 GiB that take no disk space (a sparse file): reading it whole cannot work.
    with open(site / "sitemap.xml", "wb") as handle:
        handle.truncate(64 << 30)
    result = check_site(site, BASE)
    assert [str(p) for p in result.problems] == [
        "sitemap.xml:0: more than 52,428,800 bytes; the limit is 52,428,800 (not read further)"
    ]
    (site / "sitemap.xml").write_text(urlset(*[f"https://example.org/#{i}" for i in range(40)]))
    assert [str(p) for p in check_site(site, BASE, max_bytes=1_000).problems] == [
        "sitemap.xml:0: more than 1,000 bytes; the limit is 1,000 (not read further)"
    ]


@pytest.mark.parametrize("padding", [b"", b"\0" * 10])
def test_gzip_of_several_members_is_read_whole(site: Path, padding: bytes) -> None:
    text = urlset("https://example.org/").encode()
    (site / "sitemap.xml.gz").write_bytes(gzip_bytes(text[:50]) + padding + gzip_bytes(text[50:]) + padding)
    result = check_site(site, BASE, entry="sitemap.xml.gz")
    assert result.problems == [] and result.urls == 1


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"not gzip at all", "sitemap.xml.gz:0: not a valid gzip file: "),
        (
            gzip_bytes(b"<urlset/>")[:-5],
            "sitemap.xml.gz:0: not a valid gzip file: the file ends inside a compressed member",
        ),
        (gzip_bytes(b"<urlset/>") + b"junk", "sitemap.xml.gz:0: not a valid gzip file: "),
    ],
)
def test_a_broken_gzip_file_is_one_problem(site: Path, data: bytes, message: str) -> None:
    (site / "sitemap.xml.gz").write_bytes(data)
    result = check_site(site, BASE, entry="sitemap.xml.gz")
    assert len(result.problems) == 1 and str(result.problems[0]).startswith(message), result.problems


def test_a_binary_robots_txt_is_one_problem(site: Path) -> None:
    (site / "robots.txt").write_bytes(b"Sitemap: https://example.org/sitemap.xml\n\0\xff")
    (site / "sitemap.xml").write_text(urlset("https://example.org/"))
    result = check_site(site, BASE)
    assert [str(p) for p in result.problems] == [
        "robots.txt:0: not a UTF-8 text file (RFC 9309 section 2.3); its Sitemap: lines were not read"
    ]
    assert result.urls == 1


def test_robots_lines_end_at_cr_too_and_a_bom_is_no_part_of_the_first(site: Path) -> None:
    (site / "robots.txt").write_bytes(
        b"\xef\xbb\xbfSitemap: https://example.org/a.xml\rSitemap: https://example.org/b.xml\r"
    )
    result = check_site(site, BASE)
    assert [str(p) for p in result.problems] == [
        "robots.txt:1: Sitemap: https://example.org/a.xml does not point at a sitemap in this site",
        "robots.txt:2: Sitemap: https://example.org/b.xml does not point at a sitemap in this site",
        "sitemap.xml:0: no sitemap found (neither this file nor a Sitemap: line in robots.txt)",
    ]


# -- what a trial of check on hostile folders found ----------------------------------


@pytest.mark.parametrize(
    ("files", "index_lines"),
    [
        ({"sitemap.xml": index(BASE + "sitemap.xml", BASE + "pages.xml")}, {"sitemap.xml"}),
        (
            {"sitemap.xml": index(BASE + "b.xml"), "b.xml": index(BASE + "sitemap.xml", BASE + "pages.xml")},
            {"sitemap.xml", "b.xml"},
        ),
        ({"sitemap.xml": index(BASE + "b.xml"), "b.xml": index(BASE + "pages.xml")}, {"sitemap.xml"}),
    ],
    ids=["itself", "each-other", "nested"],
)
def test_an_index_that_lists_an_index_is_a_problem(site: Path, files: dict[str, str], index_lines: set[str]) -> None:
    for name, text in files.items():
        (site / name).write_text(text)
    (site / "pages.xml").write_text(urlset(BASE))
    result, _ = checked(site, BASE)
    named = {problem.file for problem in result.problems if "an index lists sitemaps only" in problem.message}
    assert named == index_lines and result.failed
    assert result.urls == 1  # each file read once, loops or not


def test_robots_txt_is_read_only_to_the_parsing_limit(site: Path) -> None:
    from sitemapkit.protocol.limits import ROBOTS_TXT_PARSING_LIMIT

    (site / "pages.xml").write_text(urlset(BASE))
    line = b"Sitemap: https://example.org/pages.xml\n"
    filler = b"# " + b"x" * (ROBOTS_TXT_PARSING_LIMIT - len(line) - 3) + b"\n"
    (site / "robots.txt").write_bytes(line + filler + b"Sitemap: https://example.org/late.xml\n" + b"#" * 10**6)
    result, _ = checked(site, BASE)
    assert result.files == ["pages.xml"]  # the line past the limit is not read
    assert [p.message.split(";")[0] for p in result.problems] == [f"more than {ROBOTS_TXT_PARSING_LIMIT:,} bytes"]


@pytest.mark.parametrize(
    ("data", "encoding"),
    [
        (URLSET.format(f"<url><loc>{BASE}</loc></url>").replace("UTF-8", "UTF-16").encode("utf-16"), "UTF-16"),
        (URLSET.format(f"<url><loc>{BASE}</loc></url>").replace("UTF-8", "ISO-8859-1").encode("latin-1"), "ISO-8859-1"),
    ],
)
def test_a_sitemap_in_another_encoding_than_utf8_is_a_problem(site: Path, data: bytes, encoding: str) -> None:
    (site / "sitemap.xml").write_bytes(data)
    result, _ = checked(site, BASE)
    assert [str(p) for p in result.problems] == [
        f'sitemap.xml:1: encoded as {encoding}; sitemaps.org: "Your Sitemap file must be UTF-8 encoded"'
    ]


def test_a_doctype_and_its_entities_are_a_problem_never_read(site: Path) -> None:
    secret = site.parent / "outside" / "secret.xml"
    (site / "sitemap.xml").write_text(
        f'<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE urlset [<!ENTITY x SYSTEM "file://{secret}">]>\n'
        f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>{BASE}&x;</loc></url></urlset>\n'
    )
    result, outside = checked(site, BASE)
    assert outside == []
    assert [p.line for p in result.problems if "declares a DOCTYPE" in p.message] == [2]


def test_a_text_sitemap_may_start_with_a_byte_order_mark(site: Path) -> None:
    (site / "sitemap.txt").write_bytes(b"\xef\xbb\xbf" + BASE.encode() + b"\n")
    result, _ = checked(site, BASE, entry="sitemap.txt")
    assert result.problems == [] and result.urls == 1


def test_a_sitemap_in_a_subfolder_named_by_robots_txt_is_read(site: Path) -> None:
    (site / "sub").mkdir()
    (site / "sub" / "a.html").write_text("<html></html>")
    (site / "sub" / "s.xml").write_text(urlset(BASE + "sub/a.html"))
    (site / "robots.txt").write_text(f"User-agent: *\nSitemap: {BASE}sub/s.xml\n")
    result, _ = checked(site, BASE)
    assert result.problems == [] and result.files == ["sub/s.xml"] and result.urls == 1


def test_a_page_symlinked_from_outside_is_not_opened(site: Path) -> None:
    """The folder's own pages are walked for the audit: a symlink out of it is no
    page of the site, and its file is never opened."""
    secret = site.parent / "outside" / "page.html"
    secret.write_text("<html><head><title>Not of this site</title></head></html>")
    (site / "leak.html").symlink_to(secret)
    (site / "sitemap.xml").write_text(urlset(BASE))
    result, outside = checked(site, BASE)
    assert outside == []
    assert [f.url for f in result.findings if f.kind == "unlisted"] == []


def test_a_huge_loc_is_one_short_line(site: Path) -> None:
    (site / "sitemap.xml").write_text(urlset(BASE + "a" * 5_000_000))
    result, _ = checked(site, BASE)
    (line,) = [str(p) for p in result.problems]
    assert line.endswith("is 5,000,020 characters; the protocol allows fewer than 2,048") and len(line) < 250


def test_entries_past_the_limit_are_counted_and_problems_capped(site: Path, monkeypatch) -> None:
    """60,000 empty <url/>: every one a problem, the first few shown, the rest
    counted; entries past the 50,000 limit counted, not kept."""
    from sitemapkit.audit import check

    monkeypatch.setattr(check, "MAX_PROBLEMS_SHOWN", 5)
    (site / "sitemap.xml").write_text(URLSET.format("<url/>\n" * 60_000))
    result, _ = checked(site, BASE)
    assert len(result.problems) == 6
    # 50,001 entries kept (one past the limit shows it), each without a loc, and
    # the limit's own problem: 50,002, of which 5 shown.
    assert str(result.problems[-1]) == "sitemap.xml:0: 49,997 more problems in this file (not shown)"
    assert "60,000 problems" not in result.summary() and "6 problems" in result.summary()


def test_the_gzip_copy_past_the_limit_or_out_of_the_site_is_named(site: Path) -> None:
    (site / "sitemap.xml").write_text(urlset(BASE))
    bomb = zlib.compressobj(9, zlib.DEFLATED, 31)
    (site / "sitemap.xml.gz").write_bytes(bomb.compress(b"\0" * 2_000_000) + bomb.flush())
    result, _ = checked(site, BASE, max_bytes=1_000_000)
    assert [str(p) for p in result.problems] == [
        "sitemap.xml.gz:0: more than 1,000,000 bytes uncompressed; the limit is 1,000,000 (not read further)"
    ]
    (site / "sitemap.xml.gz").unlink()
    (site / "sitemap.xml.gz").symlink_to(site.parent / "outside" / "secret.xml")
    result, outside = checked(site, BASE)
    assert outside == []
    assert [str(p) for p in result.problems] == [
        "sitemap.xml.gz:0: leads outside the site folder (through a symlink); not opened"
    ]
