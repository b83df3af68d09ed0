"""The writer's limits, sharding, index and bytes, run in memory with tiny limits."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import assert_valid, usp_pages
from sitemapkit import Options, Page
from sitemapkit.protocol.encoder import EncodeResult, encode_pages

BASE = "https://example.org/"


def run(pages, **options):
    result = EncodeResult()
    files = list(encode_pages(pages, Options(base_url=BASE, **options), result))
    return files, result


def pages(n: int, width: int = 6) -> list[Page]:
    return [Page(f"p{i:0{width}d}.html") for i in range(n)]


def single_size(n: int, **options) -> int:
    files, _ = run(pages(n), **options)
    assert len(files) == 1
    return len(files[0].data)


class TestCountLimit:
    """ "Each Sitemap file ... must have no more than 50,000 URLs": here with max_urls=10."""

    @pytest.mark.parametrize("n", [9, 10])
    def test_at_or_under_limit_is_one_urlset(self, n: int) -> None:
        files, result = run(pages(n), max_urls=10)
        assert [f.name for f in files] == ["sitemap.xml"]
        assert files[0].kind == "urlset" and files[0].count == n == result.urls
        assert_valid(files[0].data)

    def test_one_over_limit_shards_with_an_index(self) -> None:
        files, result = run(pages(11), max_urls=10)
        index = files[-1]
        assert index.name == "sitemap.xml" and index.kind == "sitemapindex"
        shards = files[:-1]
        assert len(shards) >= 2 and all(f.count <= 10 for f in shards)
        assert sum(f.count for f in shards) == 11 == result.urls
        for f in files:
            assert_valid(f.data)

    def test_no_shard_ever_over_count(self) -> None:
        files, _ = run(pages(5000), max_urls=7)
        assert max(f.count for f in files if f.kind == "urlset") <= 7


class TestByteLimit:
    """ "... and must be no larger than 10MB": exact bytes, with a tiny max_bytes."""

    def test_exactly_at_limit_is_one_file(self) -> None:
        size = single_size(40)
        files, _ = run(pages(40), max_bytes=size)
        assert len(files) == 1 and len(files[0].data) == size

    def test_one_byte_under_the_size_splits(self) -> None:
        size = single_size(40)
        files, _ = run(pages(40), max_bytes=size - 1)
        assert files[-1].kind == "sitemapindex"
        assert all(len(f.data) <= size - 1 for f in files)

    def test_one_byte_over_the_size_is_one_file(self) -> None:
        size = single_size(40)
        files, _ = run(pages(40), max_bytes=size + 1)
        assert len(files) == 1

    @pytest.mark.parametrize("max_bytes", [1024, 1500, 4096])
    def test_no_file_over_the_limit_whatever_the_lengths(self, max_bytes: int) -> None:
        varied = [Page("x" * (i % 300) + f"-{i:05d}.html") for i in range(3000)]
        varied.sort(key=lambda p: p.loc)
        files, result = run(varied, max_bytes=max_bytes)
        assert all(len(f.data) <= max_bytes for f in files)
        assert result.urls + len(result.excluded) == 3000

    def test_entry_that_cannot_fit_any_file_is_dropped(self) -> None:
        files, result = run([Page("a" * 1500)], max_bytes=1024)
        assert [e.reason for e in result.excluded] == ["too long"]

    def test_alternates_head_counted_exactly(self) -> None:
        group = [
            Page(f"p{i:03d}.html", alternates=(("en", f"p{i:03d}.html"), ("fr", f"fr/p{i:03d}.html")))
            for i in range(30)
        ]
        files, _ = run(group)
        size = len(files[0].data)
        assert len(run(group, max_bytes=size)[0]) == 1
        assert len(run(group, max_bytes=size - 1)[0]) > 1


class TestIndexes:
    def test_more_shards_than_one_index_may_list(self) -> None:
        """ "Sitemap index files may not list more than 50,000 Sitemaps": here 3."""
        files, result = run(pages(200), max_urls=5, max_sitemaps=3)
        indexes = [f for f in files if f.kind == "sitemapindex"]
        assert len(indexes) > 1
        assert indexes[0].name == "sitemap.xml"
        assert [f.name for f in indexes[1:]] == [f"sitemap-index-{n}.xml" for n in range(2, len(indexes) + 1)]
        assert all(f.count <= 3 for f in indexes)
        assert result.entry_points == [f.name for f in indexes]
        listed = sum(f.count for f in indexes)
        assert listed == len(files) - len(indexes)
        for f in indexes:
            assert_valid(f.data)

    def test_index_byte_limit(self) -> None:
        files, _ = run(pages(3000), max_urls=5, max_bytes=2048)
        assert all(len(f.data) <= 2048 for f in files)
        assert sum(1 for f in files if f.kind == "sitemapindex") > 1

    def test_shard_lastmod_is_its_newest(self) -> None:
        dated = [Page(f"p{i:04d}.html", lastmod=dt.date(2020, 1, 1) + dt.timedelta(days=i)) for i in range(50)]
        files, _ = run(dated, max_urls=10)
        index = files[-1].data.decode()
        for shard in files[:-1]:
            newest = max(
                (
                    line.split("<lastmod>")[1].split("<")[0]
                    for line in shard.data.decode().splitlines()
                    if "<lastmod>" in line
                )
            )
            assert shard.lastmod == newest
            assert f"{shard.name}</loc><lastmod>{newest}</lastmod>" in index

    def test_shard_without_dates_has_no_lastmod(self) -> None:
        files, _ = run(pages(30), max_urls=10)
        assert "<lastmod>" not in files[-1].data.decode()

    def test_gzip_shards_named_gz(self) -> None:
        files, _ = run(pages(30), max_urls=10, gzip=True)
        assert all(f.name.endswith(".xml.gz") and f.gzip for f in files[:-1])
        assert files[-1].name == "sitemap.xml" and not files[-1].gzip
        assert ".xml.gz</loc>" in files[-1].data.decode()


class TestStableShards:
    def test_adding_one_page_changes_at_most_two_shards(self) -> None:
        """120,000 URLs, small limits; one URL added: every other shard byte-identical."""
        urls = [f"section-{i % 97}/page-{i:06d}.html" for i in range(120_000)]
        before, _ = run([Page(u) for u in sorted(urls)], max_urls=1000)
        after, _ = run([Page(u) for u in sorted(urls + ["section-5/new-page.html"])], max_urls=1000)
        old = {f.name: f.data for f in before if f.kind == "urlset"}
        new = {f.name: f.data for f in after if f.kind == "urlset"}
        assert len(old) > 100
        changed = {n for n in old.keys() | new.keys() if old.get(n) != new.get(n)}
        assert len(changed) <= 2, changed

    @pytest.mark.parametrize("position", [0, 1, 500, 59_999, 119_999])
    def test_removing_one_page_changes_at_most_two_shards(self, position: int) -> None:
        urls = sorted(f"p/{i:06d}" for i in range(120_000))
        before, _ = run([Page(u) for u in urls], max_urls=1000)
        after, _ = run([Page(u) for u in urls[:position] + urls[position + 1 :]], max_urls=1000)
        old = {f.name: f.data for f in before if f.kind == "urlset"}
        new = {f.name: f.data for f in after if f.kind == "urlset"}
        assert len({n for n in old.keys() | new.keys() if old.get(n) != new.get(n)}) <= 2

    def test_unchanged_shard_keeps_its_index_lastmod(self) -> None:
        dated = [Page(f"p{i:05d}", lastmod=dt.date(2021, 1, 1) + dt.timedelta(days=i % 300)) for i in range(3000)]
        before, _ = run(dated, max_urls=100)
        after, _ = run(
            sorted(dated + [Page("p01000x", lastmod=dt.date(2025, 1, 1))], key=lambda p: p.loc), max_urls=100
        )
        old_index = {line for line in before[-1].data.decode().splitlines() if "<sitemap>" in line}
        new_index = {line for line in after[-1].data.decode().splitlines() if "<sitemap>" in line}
        assert len(old_index ^ new_index) <= 4  # at most two shards differ, each one line each side


class TestContent:
    def test_same_input_same_bytes(self) -> None:
        make = lambda: [Page(f"ü/{i}", lastmod=dt.datetime(2024, 1, 1, 12, tzinfo=dt.timezone.utc)) for i in range(500)]
        a, _ = run(make(), max_urls=50)
        b, _ = run(make(), max_urls=50)
        assert [(f.name, f.data) for f in a] == [(f.name, f.data) for f in b]

    def test_changefreq_and_priority_only_when_set(self) -> None:
        plain = run(pages(3))[0][0].data.decode()
        assert "changefreq" not in plain and "priority" not in plain
        set_ = run(pages(3), changefreq="weekly", priority=0.5)[0][0].data.decode()
        assert "<changefreq>weekly</changefreq><priority>0.5</priority>" in set_
        assert_valid(set_.encode())

    def test_lastmod_forms(self) -> None:
        files, _ = run(
            [
                Page("a", lastmod=dt.date(2024, 5, 1)),
                Page("b", lastmod=dt.datetime(2024, 5, 1, 10, 0, 0, 123, tzinfo=dt.timezone(dt.timedelta(hours=2)))),
                Page("c", lastmod=dt.datetime(2024, 5, 1, 10, 0)),
                Page("d", lastmod="2024-05-01T10:00:00Z"),
            ]
        )
        text = files[0].data.decode()
        assert "<lastmod>2024-05-01</lastmod>" in text
        assert "<lastmod>2024-05-01T10:00:00+02:00</lastmod>" in text
        assert "<lastmod>2024-05-01T10:00:00+00:00</lastmod>" in text
        assert "<lastmod>2024-05-01T10:00:00Z</lastmod>" in text
        assert_valid(files[0].data)

    def test_schema_location_header(self) -> None:
        text = run(pages(2), schema_location=True)[0][0].data.decode()
        assert (
            'xsi:schemaLocation="http://www.sitemaps.org/schemas/sitemap/0.9 http://www.sitemaps.org/schemas/sitemap/0.9/sitemap.xsd"'
            in text
        )
        assert_valid(text.encode())

    def test_escaping_and_independent_parser(self) -> None:
        tricky = ["a&b.html", "it's.html", "ümlaut/", "q?x=1&y=2", "sp ace/"]
        files, _ = run([Page(u) for u in sorted(tricky)])
        assert_valid(files[0].data)
        assert sorted(usp_pages(files[0].data)) == sorted(
            [
                "https://example.org/a&b.html",
                "https://example.org/it's.html",
                "https://example.org/%C3%BCmlaut/",
                "https://example.org/q?x=1&y=2",
                "https://example.org/sp%20ace/",
            ]
        )

    def test_consecutive_duplicates_listed_once(self) -> None:
        files, result = run([Page("a"), Page("a"), Page("b")])
        assert files[0].count == 2 and [e.reason for e in result.excluded] == ["duplicate"]

    def test_text_format(self) -> None:
        files, _ = run([Page("a b"), Page("c")], format="txt")
        assert files[0].name == "sitemap.txt"
        assert files[0].data == b"https://example.org/a%20b\nhttps://example.org/c\n"

    def test_text_format_shards_get_an_xml_index(self) -> None:
        files, _ = run(pages(30), format="txt", max_urls=10)
        assert files[-1].name == "sitemap.xml" and files[-1].kind == "sitemapindex"
        assert all(f.name.endswith(".txt") for f in files[:-1])
        assert_valid(files[-1].data)


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("max_urls", 0),
        ("max_urls", 50_001),
        ("max_bytes", 52_428_801),
        ("max_bytes", 10),
        ("max_sitemaps", 50_001),
        ("changefreq", "sometimes"),
        ("priority", 1.5),
        ("priority", True),
        ("lastmod", "yesterday"),
        ("filename", "../sitemap.xml"),
        ("filename", "a/b.xml"),
        ("filename", "sitemap.json"),
        ("format", "csv"),
        ("exclude", "drafts/*"),
        ("gzip", "yes"),
    ],
)
def test_bad_options_name_the_option(option: str, value) -> None:
    from sitemapkit import ConfigError

    with pytest.raises(ConfigError) as raised:
        Options(base_url=BASE, **{option: value})
    assert raised.value.option == option


def test_limits_can_be_raised_to_the_ceiling_not_beyond() -> None:
    assert Options(base_url=BASE, max_bytes=52_428_800).max_bytes == 52_428_800
    assert Options(base_url=BASE).max_bytes == 10_485_760


# ---- the names the encoder makes are the names publish recognises -----------------


@pytest.mark.parametrize("filename", ["sitemap.xml", "map.v2.xml", "sitemap.txt", "site-map.txt"])
@pytest.mark.parametrize("gzip", [False, True])
def test_publish_knows_every_name_the_encoder_makes(filename: str, gzip: bool) -> None:
    """Shards and extra indexes, as encode_pages names them, are exactly the names
    publish's own_file_pattern takes for its own (to remove them when stale, to
    keep a report file off them); the entry points and other files are not."""
    from sitemapkit.protocol.filenames import content_index_name, own_file_pattern
    from sitemapkit.publish.publication import entry_names

    fmt = "txt" if filename.endswith(".txt") else "xml"
    options = dict(filename=filename, format=fmt, gzip=gzip, max_urls=5, max_sitemaps=3)
    files, result = run(pages(200), **options)
    own = own_file_pattern(filename)
    shards = [f.name for f in files if f.kind != "sitemapindex"]
    indexes = [f.name for f in files if f.kind == "sitemapindex"]
    assert len(shards) > 9 and len(indexes) > 1
    assert all(own.match(name) for name in shards + indexes[1:]), [n for n in shards if not own.match(n)]
    assert all(name.endswith((".gz",) if gzip else (".xml", ".txt")) for name in shards)
    assert own.match(content_index_name(filename, files[-1].data))
    # The entry point and its index are fixed names, never taken for a shard.
    entry = entry_names(Options(base_url=BASE, **options))
    assert indexes[0] in entry and result.entry_points[0] == indexes[0]
    for name in [
        *entry,
        *(n + ".gz" for n in entry),
        "robots.txt",
        "sitemap.xsl",
        "sitemap-extra.xml",
        "other-0123456789.xml",
    ]:
        assert not own.match(name), name


@given(st.binary(max_size=40), st.lists(st.binary(max_size=40), max_size=8))
def test_hashes_of_locs_kept_below_a_prefix_are_the_hashes_of_the_whole_locs(prefix: bytes, rests: list[bytes]) -> None:
    """sitemapkit build keeps each loc without the base folder every loc starts
    with; the shard boundaries must hash the same as for the whole loc."""
    from sitemapkit.protocol.encoder import loc_hash, loc_hashes_below

    assert loc_hashes_below(prefix, rests) == [loc_hash(prefix + rest) for rest in rests]
