"""build_site and the writer: files on disk, robots.txt, stale shards, safety."""

from __future__ import annotations

import datetime as dt
import gzip
import os
from pathlib import Path

import pytest

from conftest import sitemap_entries
from sitemapkit import Options, OutputError, Page, Report, UrlError, build_site
from sitemapkit.protocol.robots import merge_sitemap_lines
from sitemapkit.publish.publication import atomic_write, gzip_bytes

BASE = "https://example.org/"


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


class TestRobotsMerge:
    def test_created_when_missing(self) -> None:
        assert merge_sitemap_lines(None, ["https://x.org/sitemap.xml"]) == (
            "User-agent: *\nDisallow:\n\nSitemap: https://x.org/sitemap.xml\n"
        )

    def test_every_other_byte_kept_and_idempotent(self) -> None:
        existing = "# ours\r\nUser-agent: *\r\nDisallow: /private/\r\nSitemap: https://other.org/theirs.xml\r\n"
        once = merge_sitemap_lines(existing, ["https://x.org/sitemap.xml"])
        assert once.startswith(existing)
        assert once.endswith("Sitemap: https://x.org/sitemap.xml\r\n")
        assert merge_sitemap_lines(once, ["https://x.org/sitemap.xml"]) == once

    def test_own_lines_replaced_in_place(self) -> None:
        existing = "User-agent: *\nSitemap: https://x.org/sitemap.xml\nSitemap: https://x.org/sitemap-index-2.xml\nDisallow: /a\n"
        merged = merge_sitemap_lines(existing, ["https://x.org/sitemap.xml"], lambda url: "sitemap-index-" in url)
        assert merged == "User-agent: *\nSitemap: https://x.org/sitemap.xml\nDisallow: /a\n"

    def test_no_trailing_newline(self) -> None:
        assert merge_sitemap_lines("User-agent: *\nDisallow:", ["https://x.org/s.xml"]) == (
            "User-agent: *\nDisallow:\n\nSitemap: https://x.org/s.xml\n"
        )

    @pytest.mark.parametrize("url", ["https://x.org/a\nDisallow: /", "https://x.org/a\r", "https://x.org/ü"])
    def test_line_breaks_never_reach_robots(self, url: str) -> None:
        with pytest.raises(UrlError):
            merge_sitemap_lines("", [url])


class TestWriter:
    def test_gzip_has_no_timestamp_or_name(self) -> None:
        data = gzip_bytes(b"hello")
        assert data[4:8] == b"\0\0\0\0" and data[3] == 0  # MTIME 0, no FNAME flag
        assert gzip.decompress(data) == b"hello"
        assert gzip_bytes(b"hello") == data

    @pytest.mark.parametrize("name", ["../x", "a/b", "", ".."])
    def test_refuses_paths(self, tmp_path: Path, name: str) -> None:
        with pytest.raises(OutputError):
            atomic_write(tmp_path, name, b"")

    def test_no_temporary_left_on_failure(self, tmp_path: Path) -> None:
        class Boom(Exception):
            pass

        def pages():
            yield Page("a")
            raise Boom

        with pytest.raises(Boom):
            build_site(pages(), Options(base_url=BASE), tmp_path)
        assert list(tmp_path.iterdir()) == []


class TestBuildSite:
    def test_writes_and_reports(self, tmp_path: Path) -> None:
        report = build_site(
            [Page("a&b.html"), Page("ümlaut/"), Page("/outside", lastmod=None)],
            Options(base_url="https://example.org/docs/", lastmod="none"),
            tmp_path,
        )
        assert report.urls == 2
        assert report.excluded_counts() == {"outside base_url": 1}
        assert "2 URLs in 1 file" in report.summary()
        assert set(sitemap_entries(tmp_path)) == {
            "https://example.org/docs/a&b.html",
            "https://example.org/docs/%C3%BCmlaut/",
        }
        # Below the host root no robots.txt is written; the summary says what to add.
        assert not (tmp_path / "robots.txt").exists()
        assert "'Sitemap: https://example.org/docs/sitemap.xml'" in report.summary()

    def test_robots_txt_merged_never_clobbered(self, tmp_path: Path) -> None:
        original = "User-agent: *\nDisallow: /private/\n"
        (tmp_path / "robots.txt").write_text(original)
        build_site([Page("a")], Options(base_url=BASE), tmp_path)
        text = (tmp_path / "robots.txt").read_text()
        assert text.startswith(original) and text.endswith("Sitemap: https://example.org/sitemap.xml\n")
        build_site([Page("a")], Options(base_url=BASE), tmp_path)
        assert (tmp_path / "robots.txt").read_text() == text

    def test_robots_txt_switches(self, tmp_path: Path) -> None:
        build_site([Page("a")], Options(base_url=BASE, robots_txt=False), tmp_path)
        assert not (tmp_path / "robots.txt").exists()
        build_site([Page("a")], Options(base_url="https://example.org/docs/", robots_txt=True), tmp_path)
        assert "Sitemap: https://example.org/docs/sitemap.xml" in (tmp_path / "robots.txt").read_text()

    def test_robots_lists_every_index(self, tmp_path: Path) -> None:
        build_site(
            [Page(f"p{i:04d}") for i in range(300)],
            Options(base_url=BASE, max_urls=5, max_sitemaps=3, lastmod="none"),
            tmp_path,
        )
        lines = [l for l in (tmp_path / "robots.txt").read_text().splitlines() if l.startswith("Sitemap:")]
        # robots.txt is the one file naming every index, each named by its
        # content, so that one rename switches them all; sitemap.xml is the first.
        assert len(lines) > 1 and all(l.startswith("Sitemap: https://example.org/sitemap-index-") for l in lines)
        assert all((tmp_path / l.rsplit("/", 1)[1]).is_file() for l in lines)
        assert (tmp_path / lines[0].rsplit("/", 1)[1]).read_bytes() == (tmp_path / "sitemap.xml").read_bytes()

    def test_stale_shards_removed_nothing_else(self, tmp_path: Path) -> None:
        (tmp_path / "sitemap-notours.xml").write_text("user file")
        (tmp_path / "index.html").write_text("page")
        build_site(
            [Page(f"p{i:04d}") for i in range(400)], Options(base_url=BASE, max_urls=10, lastmod="none"), tmp_path
        )
        many = {p.name for p in tmp_path.glob("sitemap-*.xml")}
        build_site([Page(f"p{i:04d}") for i in range(5)], Options(base_url=BASE, max_urls=10, lastmod="none"), tmp_path)
        left = {p.name for p in tmp_path.iterdir()}
        assert left == {"sitemap.xml", "robots.txt", "sitemap-notours.xml", "index.html"}
        assert len(many) > 10

    def test_same_input_same_bytes_on_disk(self, tmp_path: Path) -> None:
        a, b = tmp_path / "a", tmp_path / "b"
        a.mkdir(), b.mkdir()
        make = lambda: [Page(f"ü{i:04d}", lastmod=dt.date(2024, 1, 1 + i % 28)) for i in range(500)]
        build_site(make(), Options(base_url=BASE, max_urls=50, gzip=True), a)
        build_site(reversed(make()), Options(base_url=BASE, max_urls=50, gzip=True), b)
        assert snapshot(a) == snapshot(b)

    def test_exclude_globs_on_path_below_base(self, tmp_path: Path) -> None:
        report = build_site(
            [Page("drafts/x/"), Page("keep/"), Page("ü/secret.html")],
            Options(base_url=BASE, exclude=("drafts/*", "ü/*"), lastmod="none"),
            tmp_path,
        )
        assert set(sitemap_entries(tmp_path)) == {"https://example.org/keep/"}
        assert report.excluded_counts() == {"exclude": 2}

    def test_front_matter_wins_and_members_take_newest(self, tmp_path: Path) -> None:
        src = tmp_path / "src.md"
        src.write_text("x")
        os.utime(src, (1_600_000_000, 1_600_000_000))
        out = tmp_path / "out"
        out.mkdir()
        pages = [
            Page("a/", lastmod=dt.date(2024, 3, 1), source=src),
            Page("b/", lastmod="2024-04-01 10:30"),
            Page("tags/x/", members=("a/", "b/")),
        ]
        build_site(pages, Options(base_url=BASE, robots_txt=False), out)
        entries = sitemap_entries(out)
        assert entries["https://example.org/a/"]["lastmod"] == "2024-03-01"
        assert entries["https://example.org/b/"]["lastmod"] == "2024-04-01T10:30:00+00:00"
        assert entries["https://example.org/tags/x/"]["lastmod"] == "2024-04-01T10:30:00+00:00"

    def test_a_listing_page_dated_by_its_members_keeps_everything_else(self, tmp_path: Path) -> None:
        # build_site makes a copy of the listing page to give it its date (and of
        # a page to give it its file's): nothing else of it may change.
        src = tmp_path / "src.md"
        src.write_text("x")
        os.utime(src, (1_600_000_000, 1_600_000_000))
        pages = [
            Page("a/", lastmod=dt.datetime(2024, 3, 1, 12, 30, tzinfo=dt.timezone(dt.timedelta(hours=2)))),
            Page("b/", source=src, changefreq="weekly", priority=0.2),
            Page(
                "en/tags/x/",
                members=("a/", "/b/", "https://example.org/elsewhere/"),
                changefreq="daily",
                priority=0.3,
                hreflang="en",
                translation_key="tags-x",
            ),
            Page("de/tags/x/", members=("a/",), hreflang="de", translation_key="tags-x"),
        ]
        out = tmp_path / "out"
        out.mkdir()
        build_site(pages, Options(base_url=BASE, robots_txt=False, lastmod="mtime"), out)
        text = (out / "sitemap.xml").read_text()
        entries = sitemap_entries(out)
        assert entries["https://example.org/en/tags/x/"] == {
            "lastmod": "2024-03-01T12:30:00+02:00",
            "alternates": [("de", "https://example.org/de/tags/x/"), ("en", "https://example.org/en/tags/x/")],
        }
        assert (
            "<loc>https://example.org/en/tags/x/</loc><lastmod>2024-03-01T12:30:00+02:00</lastmod>"
            "<changefreq>daily</changefreq><priority>0.3</priority>"
        ) in text
        assert (
            "<loc>https://example.org/b/</loc><lastmod>2020-09-13T12:26:40+00:00</lastmod>"
            "<changefreq>weekly</changefreq><priority>0.2</priority>"
        ) in text

    def test_left_out_members_still_date_their_listing(self, tmp_path: Path) -> None:
        (tmp_path / "hidden.html").write_text('<html><head><meta name="robots" content="noindex"></head></html>')
        pages = [
            Page("a/", lastmod=dt.date(2024, 1, 1)),
            Page("hidden.html", lastmod=dt.date(2024, 6, 1), output=tmp_path / "hidden.html"),
            Page("draft/", lastmod=dt.date(2024, 9, 1), listed=False),
            Page("tags/x/", members=("a/", "hidden.html")),
            Page("tags/y/", members=("a/", "draft/")),
        ]
        out = tmp_path / "out"
        out.mkdir()
        report = build_site(pages, Options(base_url=BASE, robots_txt=False), out)
        entries = sitemap_entries(out)
        assert set(entries) == {"https://example.org/a/", "https://example.org/tags/x/", "https://example.org/tags/y/"}
        assert entries["https://example.org/tags/x/"]["lastmod"] == "2024-06-01"
        assert entries["https://example.org/tags/y/"]["lastmod"] == "2024-09-01"
        assert report.excluded_counts() == {"metadata": 1, "noindex": 1}

    def test_language_codes_become_tags_and_bad_ones_are_dropped(self, tmp_path: Path) -> None:
        pages = [
            Page("pt/a/", hreflang="pt_BR", translation_key="a"),
            Page("en/a/", hreflang="en", translation_key="a"),
            Page("x/b/", hreflang="not a language", translation_key="b"),
            Page("en/b/", hreflang="en", translation_key="b"),
        ]
        report = build_site(pages, Options(base_url=BASE, lastmod="none"), tmp_path)
        entries = sitemap_entries(tmp_path)
        assert entries["https://example.org/pt/a/"]["alternates"] == [
            ("en", "https://example.org/en/a/"),
            ("pt-BR", "https://example.org/pt/a/"),
        ]
        assert entries["https://example.org/en/b/"]["alternates"] == []
        assert [n.code for n in report.notices] == ["hreflang"] and "'not a language'" in report.notices[0].message

    def test_lastmod_none_writes_no_dates(self, tmp_path: Path) -> None:
        build_site([Page("a", lastmod=dt.date(2024, 1, 1))], Options(base_url=BASE, lastmod="none"), tmp_path)
        assert "<lastmod>" not in (tmp_path / "sitemap.xml").read_text()

    def test_hreflang_groups_list_every_member_and_themselves(self, tmp_path: Path) -> None:
        pages = [
            Page("en/a/", hreflang="en", translation_key="a"),
            Page("fr/a/", hreflang="fr", translation_key="a"),
            Page("de/a/", hreflang="de", translation_key="a"),
            Page("en/only/", hreflang="en", translation_key="only"),
        ]
        build_site(pages, Options(base_url=BASE, x_default="en", lastmod="none"), tmp_path)
        entries = sitemap_entries(tmp_path)
        group = [
            ("de", "https://example.org/de/a/"),
            ("en", "https://example.org/en/a/"),
            ("fr", "https://example.org/fr/a/"),
            ("x-default", "https://example.org/en/a/"),
        ]
        for lang in ("en", "fr", "de"):
            assert entries[f"https://example.org/{lang}/a/"]["alternates"] == sorted(group)
        assert entries["https://example.org/en/only/"]["alternates"] == []

    def test_control_character_url_reported_not_written(self, tmp_path: Path) -> None:
        report = build_site([Page("ok"), Page("bad\nline")], Options(base_url=BASE, lastmod="none"), tmp_path)
        assert report.urls == 1 and report.excluded_counts() == {"invalid URL": 1}
        assert "control characters" in report.notices[0].message

    def test_report_file(self, tmp_path: Path) -> None:
        build_site(
            [Page("a"), Page("/x")],
            Options(base_url="https://example.org/d/", report_file="sitemap-report.txt", lastmod="none"),
            tmp_path,
        )
        text = (tmp_path / "sitemap-report.txt").read_text()
        assert "excluded (outside base_url): /x" in text

    def test_gzip_copy_of_entry_point(self, tmp_path: Path) -> None:
        build_site([Page("a")], Options(base_url=BASE, gzip_copy=True, lastmod="none"), tmp_path)
        assert gzip.decompress((tmp_path / "sitemap.xml.gz").read_bytes()) == (tmp_path / "sitemap.xml").read_bytes()

    def test_no_pages_no_sitemap_and_a_warning(self, tmp_path: Path) -> None:
        report = build_site([Page("/outside")], Options(base_url="https://example.org/d/"), tmp_path)
        assert [n.code for n in report.notices] == ["empty"]
        assert list(tmp_path.iterdir()) == []

    def test_missing_output_folder(self, tmp_path: Path) -> None:
        with pytest.raises(OutputError):
            build_site([Page("a")], Options(base_url=BASE), tmp_path / "nope")


# ---- dates: pages of several files, generated pages, warnings as advice ----------


@pytest.fixture
def dated_repo(tmp_path, monkeypatch):
    from conftest import git

    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    repo = tmp_path / "repo"
    (repo / "docs").mkdir(parents=True)
    for name in ("docs/page.md", "docs/other.md", "CHANGES.md"):
        (repo / name).write_text(name)
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "one", when=dt.datetime(2024, 1, 1, tzinfo=dt.timezone.utc))
    (repo / "CHANGES.md").write_text("a release")
    git(repo, "commit", "-q", "-am", "two", when=dt.datetime(2024, 5, 14, tzinfo=dt.timezone.utc))
    return repo


def test_a_page_takes_the_newest_date_of_its_source_and_includes(dated_repo, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    pages = [
        Page("page.html", source=dated_repo / "docs/page.md", includes=(dated_repo / "CHANGES.md",)),
        Page("other.html", source=str(dated_repo / "docs/other.md"), includes=(str(tmp_path / "not-there.txt"),)),
    ]
    report = build_site(pages, Options(base_url=BASE), out)
    entries = sitemap_entries(out)
    assert entries[BASE + "page.html"]["lastmod"] == "2024-05-14T00:00:00+00:00"
    assert entries[BASE + "other.html"]["lastmod"] == "2024-01-01T00:00:00+00:00"
    assert report.notices == []


def test_generated_pages_without_source_in_git_get_no_date_and_are_counted(dated_repo, tmp_path):
    generated = tmp_path / "tmp-build" / "api.md"
    generated.parent.mkdir()
    generated.write_text("generated")
    archive = tmp_path / "tmp-build" / "archive.md"
    archive.write_text("archive")
    out = tmp_path / "out"
    out.mkdir()
    pages = [
        Page("page.html", source=dated_repo / "docs/page.md"),
        Page("api.html", source=generated),
        # A listing page generated the same way takes the newest date it lists.
        Page("archive.html", source=archive, members=("page.html",)),
        # One built from files git knows (autosummary's stub of a module) takes
        # their date.
        Page("stub.html", source=generated, includes=(dated_repo / "CHANGES.md",)),
    ]
    report = build_site(pages, Options(base_url=BASE), out)
    entries = sitemap_entries(out)
    assert entries[BASE + "page.html"]["lastmod"] == "2024-01-01T00:00:00+00:00"
    assert entries[BASE + "archive.html"]["lastmod"] == "2024-01-01T00:00:00+00:00"
    assert entries[BASE + "api.html"]["lastmod"] is None
    assert entries[BASE + "stub.html"]["lastmod"] == "2024-05-14T00:00:00+00:00"
    assert report.undated_generated == [BASE + "api.html"] and report.notices == []
    assert "1 generated page without lastmod (no source in git)" in report.summary()


def test_lastmod_warnings_false_turns_date_notices_into_advice(dated_repo, tmp_path):
    from conftest import git

    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{dated_repo}", str(clone))
    pages = [Page("page.html", source=clone / "docs/page.md")]
    for warnings in (True, False):
        out = tmp_path / f"out-{warnings}"
        out.mkdir()
        report = build_site(pages, Options(base_url=BASE, lastmod_warnings=warnings), out)
        said = [n.message for n in report.notices if n.code == "lastmod"] if warnings else report.advice
        assert any("fetch-depth: 0" in message for message in said), said
        if not warnings:
            assert report.notices == [] and "fetch-depth: 0" in report.summary()


# ---- one language-tag rule ---------------------------------------------------------


def test_private_use_subtag_is_a_language_tag_everywhere(tmp_path: Path) -> None:
    """hreflang="en-x-test" passed the site-level check and failed the
    formatter's, which stopped the build: one rule now, and it is well-formed BCP 47."""
    pages = [
        Page("en/", hreflang="en-x-test", translation_key="home"),
        Page("fr/", hreflang="fr", translation_key="home"),
    ]
    report = build_site(pages, Options(base_url=BASE, lastmod="none", x_default="en-x-test"), tmp_path)
    assert report.notices == []
    assert sitemap_entries(tmp_path)["https://example.org/fr/"]["alternates"] == [
        ("en-x-test", "https://example.org/en/"),
        ("fr", "https://example.org/fr/"),
        ("x-default", "https://example.org/en/"),
    ]


@pytest.mark.parametrize(
    "alternates, named",
    [
        ((("en", "https://example.org/en/"), ("e", "https://example.org/e/")), "'e'"),
        ((("en", "https://example.org/en/"), ("fr", "javascript:alert(1)")), "'javascript:alert(1)'"),
        ((("en", "https://example.org/en/"), ("fr", "ftp://example.org/fr/")), "'ftp://example.org/fr/'"),
        ((("en", "https://example.org/en/"), ("fr", "https://exa mple.org:x/fr/")), "'https://exa mple.org:x/fr/'"),
    ],
)
def test_alternates_that_cannot_be_written_drop_the_group_with_a_notice(tmp_path: Path, alternates, named) -> None:
    """Every URL written is an http(s) URL and every hreflang a language tag; a
    group with anything else is left out, with one notice, and the build goes on."""
    pages = [Page("en/", alternates=alternates), Page("fr/", alternates=alternates)]
    report = build_site(pages, Options(base_url=BASE, lastmod="none"), tmp_path)
    entries = sitemap_entries(tmp_path)
    assert report.urls == 2 and all(entry["alternates"] == [] for entry in entries.values())
    assert [n.code for n in report.notices] == ["hreflang"] and named in report.notices[0].message


@pytest.mark.parametrize("value", ["12", "e", "en-", "not a language", 12])
def test_x_default_must_be_a_language_tag(value) -> None:
    from sitemapkit import ConfigError

    with pytest.raises(ConfigError) as raised:
        Options(base_url=BASE, x_default=value)
    assert raised.value.option == "x_default" and "is not a language tag" in str(raised.value)


class TestUnreadablePages:
    """A built page whose head cannot be read might be a noindex page: it is left
    out and reported, never listed unchecked. One not written at all is listed."""

    def build(self, tmp_path: Path, page: Path) -> tuple:
        out = tmp_path / "out"
        out.mkdir()
        readable = tmp_path / "ok.html"
        readable.write_text("<html><head><title>t</title></head></html>")
        pages = [
            Page("x.html", output=page),
            Page("ok.html", output=readable),
            Page("later.html", output=tmp_path / "none.html"),
        ]
        report = build_site(pages, Options(base_url=BASE, robots_txt=False, lastmod="none"), out)
        return report, set(sitemap_entries(out))

    def test_a_folder_named_like_a_page(self, tmp_path: Path) -> None:
        (tmp_path / "x.html").mkdir()
        report, listed = self.build(tmp_path, tmp_path / "x.html")
        assert listed == {BASE + "ok.html", BASE + "later.html"}
        assert [(e.loc, e.reason, e.detail) for e in report.excluded] == [
            (BASE + "x.html", "unreadable", f"{tmp_path / 'x.html'}: Is a directory")
        ]
        assert [(n.code, n.message) for n in report.notices] == [
            ("unreadable", f"left out {BASE}x.html: cannot read {tmp_path / 'x.html'}: Is a directory")
        ]
        assert "excluded 1 unreadable" in report.summary()

    def test_a_fifo(self, tmp_path: Path) -> None:
        os.mkfifo(tmp_path / "x.html")
        report, listed = self.build(tmp_path, tmp_path / "x.html")
        assert listed == {BASE + "ok.html", BASE + "later.html"}
        assert [(e.reason, e.detail) for e in report.excluded] == [
            ("unreadable", f"{tmp_path / 'x.html'}: not a regular file")
        ]

    @pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root reads a file whatever its mode")
    def test_a_page_without_read_permission(self, tmp_path: Path) -> None:
        page = tmp_path / "x.html"
        page.write_text('<html><head><meta name="robots" content="noindex"></head></html>')
        page.chmod(0)
        report, listed = self.build(tmp_path, page)
        assert listed == {BASE + "ok.html", BASE + "later.html"}
        assert [(e.reason, e.detail) for e in report.excluded] == [("unreadable", f"{page}: Permission denied")]


class TestCanonicalNamesTheSameFile:
    def _page(self, folder: Path, name: str, canonical: str) -> Path:
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f'<html><head><link rel="canonical" href="{canonical}"></head></html>')
        return path

    def test_other_percent_encoding_is_the_page_itself(self, tmp_path: Path) -> None:
        out = self._page(tmp_path, "a&b/index.html", BASE + "a%26b/").parent.parent
        self._page(tmp_path, "ü/index.html", BASE + "%C3%BC/")
        pages = [Page("a&b/", output=out / "a&b/index.html"), Page("ü/", output=out / "ü/index.html")]
        report = build_site(pages, Options(base_url=BASE, robots_txt=False), out)
        assert report.excluded == []
        assert set(sitemap_entries(out)) == {BASE + "a&b/", BASE + "%C3%BC/"}

    def test_a_canonical_naming_no_page_of_the_site_is_passed_over_with_a_warning(self, tmp_path: Path) -> None:
        # Zensical writes ".../names/what" as the canonical of names/what%3F/.
        self._page(tmp_path, "names/what?/index.html", BASE + "names/what")
        self._page(tmp_path, "print/index.html", BASE + "names/what%3F/")
        self._page(tmp_path, "far/index.html", "https://elsewhere.example/page/")
        pages = [
            Page.from_path(f"{name}/", output=tmp_path / f"{name}/index.html")
            for name in ("names/what?", "print", "far")
        ]
        report = build_site(pages, Options(base_url=BASE, robots_txt=False), tmp_path)
        assert set(sitemap_entries(tmp_path)) == {BASE + "names/what%3F/"}
        assert sorted((e.loc, e.reason) for e in report.excluded) == [
            (BASE + "far/", "canonical"),
            (BASE + "print/", "canonical"),
        ]
        assert [(n.code, n.message) for n in report.notices] == [
            (
                "canonical",
                (
                    "listed 1 page(s) whose canonical link names a page the site does not have: "
                    f"{BASE}names/what%3F/ -> {BASE}names/what"
                ),
            )
        ]

    def test_other_builder_form_is_the_page_itself_unless_that_file_exists(self, tmp_path: Path) -> None:
        # Sphinx 7.4 and 8.0 dirhtml: guide/install/ says canonical guide/install.html.
        self._page(tmp_path, "guide/install/index.html", BASE + "guide/install.html")
        self._page(tmp_path, "guide/other/index.html", BASE + "guide/other.html")
        (tmp_path / "guide/other.html").write_text("<html><head></head></html>")
        pages = [Page(f"guide/{n}/", output=tmp_path / f"guide/{n}/index.html") for n in ("install", "other")]
        pages.append(Page("guide/other.html", output=tmp_path / "guide/other.html"))
        report = build_site(pages, Options(base_url=BASE, robots_txt=False), tmp_path)
        assert set(sitemap_entries(tmp_path)) == {BASE + "guide/install/", BASE + "guide/other.html"}
        assert [(e.loc, e.reason) for e in report.excluded] == [(BASE + "guide/other/", "canonical")]

    def _build(self, folder: Path, base: str, canonicals: dict[str, str], way: str) -> Report:
        """Pages ``name/`` whose canonical link is ``canonicals[name]`` (a page
        without one names itself), built as an adapter or a folder build does."""
        from sitemapkit.engine.folderbuild import build_folder

        for name, canonical in canonicals.items():
            self._page(folder, f"{name}/index.html", canonical or base + name + "/")
        options = Options(base_url=base, robots_txt=False, lastmod="none")
        if way == "build_folder":
            return build_folder(folder, options, workers=1)
        pages = [Page(f"{name}/", output=folder / f"{name}/index.html") for name in canonicals]
        return build_site(pages, options, folder)

    @pytest.mark.parametrize("way", ["build_site", "build_folder"])
    def test_pages_built_for_another_base_are_named_once(self, tmp_path: Path, way: str) -> None:
        """Every page's canonical link names itself on another host (a preview
        built for staging, listed with the production base): each is left out
        as a copy of a page there, and one warning names the base the site was
        built for."""
        staging = "https://staging.example.org/"
        report = self._build(tmp_path, BASE, {name: f"{staging}{name}/" for name in ("a", "b/c", "d", "e", "f")}, way)
        assert [e.reason for e in report.excluded] == ["canonical"] * 5
        assert [(n.code, n.message) for n in report.notices if n.code == "canonical"] == [
            (
                "canonical",
                f"left out 5 pages whose canonical links name each page under {staging} "
                f"instead of {BASE}: the site was built for that base URL; if it is published there, "
                "give it as the base URL",
            )
        ]

    @pytest.mark.parametrize(
        ("base", "canonicals"),
        [
            # Three posts of ten cross-posted, under the same path on another host.
            (
                BASE,
                {
                    **{f"blog/post{n}": f"https://dev.to/blog/post{n}/" for n in range(3)},
                    **{f"p{n}": "" for n in range(7)},
                },
            ),
            # Each country's copy points to its own site: de/products/ -> example.de/products/
            # (a path that ends the same but not from a "/").
            ("https://example.com/", {f"de/{n}": f"https://example.de/{n}/" for n in ("a", "b", "c", "d")}),
            # A version folder whose pages point to the canonical version beside it (mike).
            (
                "https://docs.example.org/1.0/",
                {n: f"https://docs.example.org/latest/{n}/" for n in ("a", "b", "c", "d")},
            ),
        ],
        ids=["a-few-cross-posted", "no-path-boundary", "another-version"],
    )
    @pytest.mark.parametrize("way", ["build_site", "build_folder"])
    def test_pages_pointing_elsewhere_on_purpose_are_not_taken_for_another_base(
        self, tmp_path: Path, way: str, base: str, canonicals: dict[str, str]
    ) -> None:
        report = self._build(tmp_path, base, canonicals, way)
        assert any(e.reason == "canonical" for e in report.excluded)
        assert [n for n in report.notices if "name each page under" in n.message] == []


def test_every_html_file_not_handed_over_is_reported(tmp_path: Path) -> None:
    (tmp_path / "a.html").write_text("<html><head></head></html>")
    (tmp_path / "stub").mkdir()
    (tmp_path / "stub/index.html").write_text(
        '<html><head><meta http-equiv="refresh" content="0; url=../a.html"></head></html>'
    )
    (tmp_path / "theme.html").write_text("<html><head></head></html>")
    (tmp_path / ".hidden").mkdir()
    (tmp_path / ".hidden/x.html").write_text("x")
    (tmp_path / "link.html").symlink_to(tmp_path / "a.html")  # served, so reported
    os.mkfifo(tmp_path / "fifo.html")  # never opened
    report = build_site(
        [Page("a.html", output=tmp_path / "a.html"), Page("404.html", exclude_reason="error page")],
        Options(base_url=BASE, robots_txt=False),
        tmp_path,
    )
    assert sorted((e.loc, e.reason) for e in report.excluded) == [
        (BASE + "404.html", "error page"),
        (BASE + "link.html", "not a page"),
        (BASE + "stub/", "redirect"),
        (BASE + "theme.html", "not a page"),
    ]


# x-default, however a page or an adapter spells it, is one thing on every path.
_EN, _FR = BASE + "en/a/", BASE + "fr/a/"


def _given_alternates(spelling: str, folder: Path) -> bytes:
    """Alternates an adapter hands over, x-default among them (the x_default
    option names the version it is, as with groups by translation_key)."""
    group = (("en", _EN), ("fr", _FR), (spelling, _EN))
    folder.mkdir()
    options = Options(base_url=BASE, lastmod="none", x_default="en")
    build_site([Page("en/a/", alternates=group), Page("fr/a/", alternates=group)], options, folder)
    return (folder / "sitemap.xml").read_bytes()


def _declared_alternates(spelling: str, folder: Path) -> bytes:
    """Alternates the pages' heads declare (sitemapkit build on a folder)."""
    from sitemapkit.engine.folderbuild import build_folder

    head = f'<link rel="alternate" hreflang="en" href="{_EN}"><link rel="alternate" hreflang="fr" href="{_FR}">'
    head += f'<link rel="alternate" hreflang="{spelling}" href="{_EN}">'
    for lang in ("en", "fr"):
        (folder / lang / "a").mkdir(parents=True)
        (folder / lang / "a" / "index.html").write_text(f"<html><head>{head}</head><body>x</body></html>")
    build_folder(folder, Options(base_url=BASE, lastmod="none"), workers=1)
    return (folder / "sitemap.xml").read_bytes()


def _encoded_alternates(spelling: str, folder: Path) -> bytes:
    """Alternates the encoder writes as they are given."""
    from sitemapkit.protocol.encoder import EncodeResult, EntryWriter
    from sitemapkit.protocol.urls import Scope

    page = Page("en/a/", alternates=(("en", _EN), ("fr", _FR), (spelling, _EN)))
    return EntryWriter(Options(base_url=BASE), Scope(BASE), EncodeResult()).entry(page) or b""


@pytest.mark.parametrize("path", [_given_alternates, _declared_alternates, _encoded_alternates])
@pytest.mark.parametrize("spelling", ["X-Default", " x-default ", "x_default", "X_DEFAULT"])
def test_x_default_is_one_value_however_it_is_spelled(tmp_path: Path, path, spelling: str) -> None:
    """Adapters' alternates, declared heads and the encoder read x-default alike:
    any spelling gives the bytes ``x-default`` gives (never a language tag
    ``X-Default``, a private-use tag to a language-tag check)."""
    expected = path("x-default", tmp_path / "as-written")
    assert b'hreflang="x-default"' in expected
    assert path(spelling, tmp_path / "spelled") == expected


@pytest.mark.parametrize("keyword", ["date_advice", "page_dates"])
def test_date_advice_is_offered_under_its_name_and_its_former_one(tmp_path: Path, keyword: str) -> None:
    """build_site's ``date_advice`` (how the caller's pages can state a date) is
    offered when file times are of one batch; ``page_dates``, its former name,
    is public API and still taken."""
    site = tmp_path / "site"
    pages = []
    for n in range(6):
        source = site / f"p{n}.md"
        source.parent.mkdir(parents=True, exist_ok=True)
        source.write_text("x")
        os.utime(source, (1_700_000_000, 1_700_000_000))
        pages.append(Page(f"p{n}/", source=source))
    advice = "give each page a date of its own"
    report = build_site(pages, Options(base_url="https://example.org/", lastmod="mtime"), site, **{keyword: advice})
    assert any(advice in notice.message for notice in report.notices)


@pytest.mark.parametrize("batch", [2, 3, 4096])
def test_the_sorted_entries_go_to_the_encoder_in_batches_without_their_duplicates(monkeypatch, batch: int) -> None:
    """sitemapkit build's listed pages, sorted, handed over a batch at a time: each
    batch's entries and hashes, the second page of one loc left out as a
    duplicate, also where the two fall in two batches."""
    from sitemapkit.engine import folderbuild
    from sitemapkit.protocol.encoder import loc_hash

    monkeypatch.setattr(folderbuild, "_POST_BATCH", batch)
    below = b"https://example.org/"
    locs = [below + b"a", below + b"b", below + b"b", below + b"c"]
    listed = [
        # Each loc as the workers keep it: below the base folder.
        loc[len(below) :]
        + b"\0"
        + position.to_bytes(folderbuild._ORDER_BYTES, "big")
        + b"\0"
        + b"<url>"
        + bytes([97 + position])
        + b"</url>"
        for position, loc in enumerate(locs)
    ]
    listed.sort()
    listed.reverse()
    report = Report()
    dropped: list[bytes] = []
    batches = list(folderbuild._listed_batches(listed, below, report, dropped=dropped.append))
    entries = [entry for got, _, _ in batches for entry in got]
    hashes = [hash_ for _, got, _ in batches for hash_ in got]
    assert entries == [b"<url>a</url>", b"<url>b</url>", b"<url>d</url>"]
    assert hashes == [loc_hash(locs[0]), loc_hash(locs[1]), loc_hash(locs[3])]
    assert [(e.loc, e.reason) for e in report.excluded] == [("https://example.org/b", "duplicate")]
    # The entry left out, handed over (its images are taken off their hosts' counts).
    assert dropped == [b"<url>c</url>"]
    assert not listed
