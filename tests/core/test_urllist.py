"""`sitemapkit generate`'s block path: the same bytes as the page-by-page path."""

from __future__ import annotations

import gzip
import io
import random
import subprocess
import sys
import zlib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import sitemap_entries
from sitemapkit import Options, Page, UrlError
from sitemapkit.engine import urllist
from sitemapkit.engine import workers
from sitemapkit.engine.urllist import plain_block_entries, write_url_list
from sitemapkit.protocol.encoder import EncodeResult, EntryWriter, encode_pages
from sitemapkit.protocol.urls import Scope

BASE = "https://example.org/docs/"


def careful_entries(lines: list[str]) -> tuple[list[bytes], list[int]]:
    formatter = EntryWriter(Options(base_url=BASE), Scope(BASE), EncodeResult())
    entries, hashes = [], []
    for line in lines:
        url, _, lastmod = line.partition("\t")
        entries.append(formatter.entry(Page(url, lastmod=lastmod or None)))
        hashes.append(zlib.crc32(formatter.previous.encode()))
    return entries, hashes


path_text = st.text(
    st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="\t\n\r#\x85\u2028\u2029"),
    min_size=1,
    max_size=30,
)
dates = st.sampled_from(
    [
        "",
        "\t2024-05-01",
        "\t2024-05-01T10:00:00+00:00",
        "\t2024-05-01T10:00:00Z",
        "\t2023-01-02T03:04:05-07:00",
        "\t2024-05-01T10:00+02:00",
        "\t2024-05-01T10:00:00.25Z",
    ]
)


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


def test_quick_path_knows_the_calendar() -> None:
    """It takes a day exactly when it exists (leap years, year 0 which does not)."""
    import datetime as dt

    for year in (0, 1, 4, 100, 1900, 2000, 2023, 2024, 2100, 2400, 9999):
        for month in range(14):
            for day in range(33):
                text = f"{year:04d}-{month:02d}-{day:02d}"
                try:
                    dt.date.fromisoformat(text)
                    exists = True
                except ValueError:
                    exists = False
                quick = plain_block_entries(f"a\t{text}\n".encode(), BASE.encode())
                assert (quick is not None) == exists, text


def test_blank_relative_line_is_no_page() -> None:
    """A blank line in a relative list is skipped, as the careful path skips it,
    never read as the base URL itself."""
    assert plain_block_entries(b"a\n\nb\n", BASE.encode()) is None


@pytest.mark.parametrize(
    "line",
    [
        "https://other.org/x",
        "/abs",
        "a/../b",
        "x#frag",
        "",
        "# comment",
        "bad\x01ctl",
        "a\tyesterday",
        "https://example.org:443/docs/a",
    ],
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


@pytest.mark.parametrize("source_kind", ["file", "stream"])
@pytest.mark.parametrize("processes", [2, 1])
@pytest.mark.parametrize("n", [50, 3000])
def test_parallel_writer_matches_page_generator(
    tmp_path: Path, n: int, processes: int, source_kind: str, monkeypatch
) -> None:
    """Worker processes (or one process), block boundaries, workers reading their
    own blocks from a file, and stitching change nothing in the output."""
    options = Options(base_url=BASE, max_urls=100, max_bytes=65536, gzip=False)
    lines = make_list(n)
    # Lines longer than a block (some blocks then hold no line start at all): one
    # listed, one too long for a sitemap, left out by either path.
    lines[n // 3] = lines[n // 3].partition("\t")[0] + "/" + "y" * 1500
    lines[n // 2] = lines[n // 2].partition("\t")[0] + "/" + "x" * 9000
    text = ("\n".join(lines)).encode()  # the last line without its break
    out = tmp_path / "out"
    out.mkdir()
    monkeypatch.setattr(urllist, "BLOCK_BYTES", 1024)  # many blocks, so stitching is exercised
    monkeypatch.setattr(workers, "worker_count", lambda: processes)
    result = EncodeResult()
    if source_kind == "file":
        (tmp_path / "urls.tsv").write_bytes(text)
        with open(tmp_path / "urls.tsv", "rb") as source:
            written = write_url_list(source, options, out, result)
    else:
        written = write_url_list(io.BytesIO(text), options, out, result)
    pages = []
    for line in lines:
        url, _, lastmod = line.partition("\t")
        pages.append(Page(url, lastmod=lastmod or None))
    expected = {f.name: f.data for f in encode_pages(pages, options)}
    got = {f.name: (out / f.name).read_bytes() for f in written}
    assert got == expected
    assert result.urls == n - 1
    assert [(e.reason, len(e.loc)) for e in result.excluded] == [("too long", len(lines[n // 2]))]
    assert len(written) > (30 if n > 1000 else 0)
    assert len(sitemap_entries(out)) == n - 1


def _speculations(monkeypatch) -> dict[str, int]:
    """Counts of the speculations a run made and of those found wrong."""
    counts = {"made": 0, "wrong": 0}
    real_of_file = urllist._Speculation.of_file

    def of_file(*args):
        speculation = real_of_file(*args)
        counts["made"] += speculation is not None
        return speculation

    class Mispredicted(urllist._Mispredicted):
        def __init__(self) -> None:
            counts["wrong"] += 1

    monkeypatch.setattr(urllist._Speculation, "of_file", staticmethod(of_file))
    monkeypatch.setattr(urllist, "_Mispredicted", Mispredicted)
    return counts


def _written_from_file(tmp_path: Path, lines: list[str], options: Options) -> dict[str, bytes]:
    (tmp_path / "urls.tsv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "out"
    out.mkdir()
    with open(tmp_path / "urls.tsv", "rb") as source:
        written = write_url_list(source, options, out, EncodeResult())
    return {f.name: (out / f.name).read_bytes() for f in written}


def _expected(lines: list[str], options: Options) -> dict[str, bytes]:
    pages = [Page(url, lastmod=lastmod or None) for url, _, lastmod in (line.partition("\t") for line in lines)]
    return {f.name: f.data for f in encode_pages(pages, options)}


@pytest.mark.parametrize("processes", [2, 1])
def test_a_large_file_is_cut_into_shards_from_its_first_block(tmp_path: Path, monkeypatch, processes: int) -> None:
    """A file too large for one sitemap is cut from the start by the boundary rule
    its first lines predict (no first file's worth held back), to the same bytes."""
    counts = _speculations(monkeypatch)
    monkeypatch.setattr(urllist, "BLOCK_BYTES", 1024)
    monkeypatch.setattr(workers, "worker_count", lambda: processes)
    options = Options(base_url=BASE, max_urls=100, max_bytes=65536)
    lines = make_list(3000)
    assert _written_from_file(tmp_path, lines, options) == _expected(lines, options)
    assert counts == {"made": 1, "wrong": 0}


def test_a_wrong_boundary_rule_is_found_and_the_list_written_again(tmp_path: Path, monkeypatch) -> None:
    """Short first lines predict one boundary rule; the long lines up to the first
    file's end make another: found once they are known, and the list is written
    again without speculating, to the same bytes."""
    counts = _speculations(monkeypatch)
    monkeypatch.setattr(urllist, "BLOCK_BYTES", 1024)
    monkeypatch.setattr(workers, "worker_count", lambda: 2)
    options = Options(base_url=BASE, max_bytes=65536)
    short = [f"a/{i:04d}" for i in range(60)]
    long = [f"b/{i:04d}/" + "x" * 150 for i in range(2000)]
    lines = short + long
    assert _written_from_file(tmp_path, lines, options) == _expected(lines, options)
    assert counts == {"made": 1, "wrong": 1}


def test_a_large_file_that_fits_one_sitemap_after_all_is_one_sitemap(tmp_path: Path, monkeypatch) -> None:
    """Its first block predicts many files; the rest is comments: one sitemap, as
    without speculating, and no shard left behind."""
    counts = _speculations(monkeypatch)
    monkeypatch.setattr(urllist, "BLOCK_BYTES", 1024)
    monkeypatch.setattr(workers, "worker_count", lambda: 2)
    options = Options(base_url=BASE, max_urls=100, max_bytes=65536)
    lines = [f"page/{i:03d}" for i in range(90)] + ["# " + "comment " * 10] * 3000
    expected = _expected([line for line in lines if not line.startswith("#")], options)
    assert list(expected) == ["sitemap.xml"]
    (tmp_path / "urls.tsv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "site"
    out.mkdir()
    with open(tmp_path / "urls.tsv", "rb") as source:
        report = urllist.generate(source, options, out)
    assert report.urls == 90
    # The shards the wrong guess wrote were removed with the publication.
    assert sorted(p.name for p in out.iterdir() if p.name.startswith("sitemap")) == ["sitemap.xml"]
    assert (out / "sitemap.xml").read_bytes() == expected["sitemap.xml"]
    assert counts == {"made": 1, "wrong": 1}


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.binary(max_size=40).map(lambda b: b.replace(b"\n", b"")), max_size=30),
    st.booleans(),
    st.integers(1, 64),
    st.integers(0, 5),
)
def test_blocks_read_from_ranges_are_the_lines_of_the_file(tmp_path_factory, lines, last_break, size, skip) -> None:
    """Each line is read exactly once, by the range it starts in, whatever the sizes."""
    text = b"\n".join(lines) + (b"\n" if last_break and lines else b"")
    path = tmp_path_factory.mktemp("ranges") / "list.tsv"
    path.write_bytes(text)
    with open(path, "rb") as source:
        source.read(min(skip, len(text)))  # ranges start where the reader stands
        start = source.tell()
        bulk_size, urllist.BLOCK_BYTES = urllist.BLOCK_BYTES, size
        try:
            ranges = list(urllist.file_ranges(source))
        finally:
            urllist.BLOCK_BYTES = bulk_size
        blocks = [urllist.read_lines(source.fileno(), a, b) for a, b in ranges]
    rest = text[start:]
    if start == 0:
        # A byte order mark opening the file is no part of its first line (read_lines).
        rest = rest.removeprefix(b"\xef\xbb\xbf")
    # The lines from the reader's position on (a line it stands inside included:
    # its tail is what a stream would give), each ending in a break.
    expected = rest + (b"\n" if rest and not rest.endswith(b"\n") else b"")
    if start > 0 and text[start - 1 : start] != b"\n":
        # A range starting mid-line skips to the next line start, as a worker must.
        expected = expected[expected.find(b"\n") + 1 :] if b"\n" in expected else b""
    assert b"".join(blocks) == expected
    assert all(block.endswith(b"\n") for block in blocks if block)


@pytest.mark.parametrize("text", [b"\xef\xbb\xbf", b"\xef\xbb\xbfab\ncd\n", b"\xef\xbb\xbf\nx"])
@pytest.mark.parametrize("size", [1, 2, 3, 4, 64])
def test_a_byte_order_mark_is_no_part_of_the_first_line_whatever_the_range(tmp_path, text: bytes, size: int) -> None:
    """Ranges shorter than the mark itself (hypothesis found a file that is only one)."""
    path = tmp_path / "list.tsv"
    path.write_bytes(text)
    with open(path, "rb") as source:
        blocks = [urllist.read_lines(source.fileno(), a, a + size) for a in range(0, len(text), size)]
    rest = text.removeprefix(b"\xef\xbb\xbf")
    assert b"".join(blocks) == rest + (b"\n" if rest and not rest.endswith(b"\n") else b"")


def test_standard_input_is_read_as_a_stream() -> None:
    assert urllist.file_ranges(io.BytesIO(b"a\n")) is None


def test_not_utf8_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(UrlError, match="not UTF-8"):
        write_url_list(io.BytesIO(b"https://example.org/docs/\xff\n"), Options(base_url=BASE), tmp_path, EncodeResult())


# ---- odd input (issue 16) ------------------------------------------------------------


def run_list(
    tmp_path: Path, data: bytes, source_kind: str, block_bytes: int | None = None, monkeypatch=None, **options
):
    out = tmp_path / f"out-{source_kind}"
    out.mkdir()
    if block_bytes is not None:
        monkeypatch.setattr(urllist, "BLOCK_BYTES", block_bytes)
        monkeypatch.setattr(workers, "worker_count", lambda: 2)
    result = EncodeResult()
    opts = Options(base_url=BASE, **options)
    if source_kind == "file":
        (tmp_path / "urls.tsv").write_bytes(data)
        with open(tmp_path / "urls.tsv", "rb") as source:
            written = write_url_list(source, opts, out, result)
    else:
        written = write_url_list(io.BytesIO(data), opts, out, result)
    return {f.name: (out / f.name).read_bytes() for f in written}, result


@pytest.mark.parametrize("source_kind", ["file", "stream"])
def test_a_byte_order_mark_is_not_part_of_the_first_url(tmp_path: Path, source_kind: str) -> None:
    files, result = run_list(tmp_path, b"\xef\xbb\xbfhttps://example.org/docs/a\nb\n", source_kind)
    assert sitemap_entries(tmp_path / f"out-{source_kind}").keys() == {BASE + "a", BASE + "b"}


@pytest.mark.parametrize("source_kind", ["file", "stream"])
@pytest.mark.parametrize("seed", range(4))
def test_equal_lines_on_both_sides_of_a_block_boundary_are_one_url(
    tmp_path: Path, monkeypatch, source_kind, seed
) -> None:
    """Whatever the block size, a repeated line is listed once, as the page path
    lists it: the output is the same bytes."""
    rng = random.Random(seed)
    lines = []
    for i in range(2500):
        line = f"p{i:05d}" + rng.choice(["", "\t2024-05-01", "\t2024-05-01T10:00:00+02:00"])
        lines += [line] * rng.choice([1, 1, 1, 2, 3])
    data = ("\n".join(lines) + "\n").encode()
    options = dict(max_urls=100, max_bytes=65536)
    files, result = run_list(tmp_path, data, source_kind, rng.choice([97, 256, 1024, 4096]), monkeypatch, **options)
    expected = {
        f.name: f.data
        for f in encode_pages(
            [Page(l.partition("\t")[0], lastmod=l.partition("\t")[2] or None) for l in lines],
            Options(base_url=BASE, **options),
        )
    }
    assert files == expected
    assert result.urls == 2500 and len(result.excluded) == len(lines) - 2500
    assert {e.reason for e in result.excluded} <= {"duplicate"}


@pytest.mark.parametrize("source_kind", ["file", "stream"])
@pytest.mark.parametrize("control", ["\x85", "\x80", "\x9f", "\x01", "\x7f"])
def test_a_control_character_stops_the_list_whatever_block_it_is_in(
    tmp_path: Path, monkeypatch, source_kind, control
) -> None:
    """U+0085 and every other control character is refused, in a block of plain
    lines as in any other, and the line is named."""
    lines = [f"p{i:04d}" for i in range(400)]
    lines[250] = f"p0250a{control}b"
    data = ("\n".join(lines) + "\n").encode()
    with pytest.raises(UrlError, match=r"line 251: 'p0250a\\x[0-9a-f]{2}b' contains control characters"):
        run_list(tmp_path, data, source_kind, 512, monkeypatch)


@pytest.mark.parametrize("source_kind", ["file", "stream"])
@pytest.mark.parametrize("block_bytes", [64, 1 << 20])
def test_a_bad_lastmod_names_its_line_and_url(tmp_path: Path, monkeypatch, source_kind, block_bytes) -> None:
    lines = [f"https://example.org/docs/p{i:04d}\t2024-05-01" for i in range(300)]
    lines[277] = "https://example.org/docs/p0277\tyesterday"
    lines.insert(10, "# a comment")
    data = ("\n".join(lines) + "\n").encode()
    with pytest.raises(UrlError) as raised:
        run_list(tmp_path, data, source_kind, block_bytes, monkeypatch)
    name = "urls.tsv" if source_kind == "file" else "standard input"
    assert str(raised.value).endswith(
        f"{name} line 279: https://example.org/docs/p0277: lastmod 'yesterday' is not a W3C Datetime (YYYY-MM-DD or YYYY-MM-DDThh:mm:ss+00:00)"
    )


@pytest.mark.parametrize("source_kind", ["file", "stream"])
@pytest.mark.parametrize(
    "extra", [{"format": "txt"}, {"changefreq": "daily", "priority": 0.5}], ids=["txt", "changefreq"]
)
def test_every_entry_option_takes_the_block_path_to_the_same_bytes(
    tmp_path: Path, monkeypatch, source_kind, extra
) -> None:
    """The text form and the options' changefreq and priority are written by the
    block path too (workers, stitching), and the same as page by page."""
    lines = make_list(3000)
    data = ("\n".join(lines) + "\n").encode()
    options = dict(max_urls=100, max_bytes=65536, **extra)
    # The list's plain blocks take the quick path with these options too.
    assert (
        urllist.BlockFormatter(Options(base_url=BASE, **options)).plain(("\n".join(lines[:40]) + "\n").encode())
        is not None
    )
    files, result = run_list(tmp_path, data, source_kind, 1024, monkeypatch, **options)
    pages = [Page(l.partition("\t")[0], lastmod=l.partition("\t")[2] or None) for l in lines]
    assert files == {f.name: f.data for f in encode_pages(pages, Options(base_url=BASE, **options))}
    assert result.urls == 3000 and len(files) > 30


@pytest.mark.parametrize("source_kind", ["file", "stream"])
def test_a_worker_killed_loses_no_block(tmp_path: Path, monkeypatch, source_kind: str) -> None:
    """A worker of `sitemapkit generate` killed (out of memory, by a user): the
    blocks no worker finished are formatted and written in this process, and the
    sitemaps are those of a run without workers."""
    from conftest import killed_in_workers

    assert workers.can_fork()
    text = ("\n".join(make_list(3000)) + "\n").encode()
    (tmp_path / "alone").mkdir()
    expected, _ = run_list(tmp_path / "alone", text, source_kind, max_urls=100, gzip=False)
    (tmp_path / "killed").mkdir()
    killed_in_workers(monkeypatch, urllist, "plain_block")
    got, result = run_list(
        tmp_path / "killed", text, source_kind, block_bytes=4096, monkeypatch=monkeypatch, max_urls=100, gzip=False
    )
    assert got == expected and result.urls == 3000


# The same generate, with zlib-ng kept from being imported: the standard library's zlib.
_WITHOUT_ZLIB_NG = (
    "import sys; sys.modules['zlib_ng'] = None; from sitemapkit.commands.cli import main; sys.exit(main(sys.argv[1:]))"
)
_WITH_ZLIB_NG = "import sys; from sitemapkit.commands.cli import main; sys.exit(main(sys.argv[1:]))"


def test_shards_have_the_same_names_and_entries_with_either_zlib(tmp_path: Path) -> None:
    """zlib-ng's crc32 (the `fast` extra) names and cuts shards as zlib's does: only
    the deflate bytes may differ."""
    pytest.importorskip("zlib_ng")
    urls = tmp_path / "urls.tsv"
    rng = random.Random(7)
    urls.write_text(
        "".join(f"{BASE}page-{n}-{rng.randrange(10**6)}.html\t2024-05-{1 + n % 28:02d}\n" for n in range(30000))
    )
    trees = []
    for program in (_WITH_ZLIB_NG, _WITHOUT_ZLIB_NG):
        out = tmp_path / f"out{len(trees)}"
        out.mkdir()
        subprocess.run(
            [
                sys.executable,
                "-c",
                program,
                "generate",
                "--input",
                str(urls),
                "--base-url",
                BASE,
                "--out",
                str(out),
                "--gzip",
                "--max-urls",
                "5000",
            ],
            check=True,
            capture_output=True,
        )
        trees.append(
            {p.name: gzip.decompress(p.read_bytes()) if p.suffix == ".gz" else p.read_bytes() for p in out.iterdir()}
        )
    assert len([name for name in trees[0] if name.endswith(".xml.gz")]) > 10
    assert trees[0] == trees[1]
