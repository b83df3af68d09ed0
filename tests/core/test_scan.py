"""`sitemapkit build`'s own path (sitemapkit.engine.folderbuild): the pages of a folder checked on
every core must come out byte for byte as build_site writes them, one process or
many, and as the serial path wrote them before."""

from __future__ import annotations

import datetime as dt
import os
import re
import shutil
from pathlib import Path

import pytest

from conftest import FIXTURES, assert_valid, killed_in_workers, run_sitemapkit
from sitemapkit import Options, build_site
from sitemapkit.site.folder import find_pages
from sitemapkit.engine.folderbuild import build_folder

BASE = "https://example.org/"
ROOT_USER = hasattr(os, "geteuid") and os.geteuid() == 0


def _page(path: Path, head: str = "", stamp: int | None = None, body: str = "x") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"<!doctype html><html><head><title>t</title>{head}</head><body>{body}</body></html>")
    if stamp is not None:
        os.utime(path, (stamp, stamp))


def make_site(root: Path, times: str, duplicates: bool, alternates: bool = False, robots: bool = True) -> Path:
    """A few hundred pages of every kind the checks tell apart, in many folders;
    ``robots``: a robots.txt that disallows some (without one, the pages that say
    nothing are listed without a reading of their heads: see _check_chunk)."""
    site = root / "site"
    stamps = {
        "spread": lambda n: 1_700_000_000 + n * 3_613,
        "flat": lambda n: 1_700_000_000,
        "some before 1980": lambda n: 86_400 * n if n % 5 == 0 else 1_700_000_000 + n * 3_613,
        "all before 1980": lambda n: 86_400 * n,
    }[times]
    n = 0
    for section in range(12):
        for number in range(25):
            n += 1
            url = f"{BASE}s{section}/p{number}/"
            head = f'<link rel="canonical" href="{url}">'
            if number == 3:
                head = '<meta name="robots" content="noindex">'
            elif number == 4:
                head = f'<link rel="canonical" href="{BASE}s{section}/p0/">'
            elif number == 5:
                head = '<meta http-equiv="refresh" content="0; url=../p1/">'
            elif number == 6:
                head = ""
            elif number == 7:
                # A date the head declares wins over the file time.
                head += f'<meta property="article:modified_time" content="2024-0{section % 9 + 1}-01T10:00:00+02:00">'
            elif number == 8 and alternates:
                # Versions of one another, each naming both (checked across pages).
                other = f"{BASE}s{section}/p9/"
                head += f'<link rel="alternate" hreflang="en" href="{url}"><link rel="alternate" hreflang="fr" href="{other}">'
            elif number == 9 and alternates:
                other = f"{BASE}s{section}/p8/"
                head += f'<link rel="alternate" hreflang="en" href="{other}"><link rel="alternate" hreflang="fr" href="{url}">'
            elif number == 10:
                head = '<META NAME="ROBOTS" CONTENT="NOINDEX">'
            elif number == 11:
                # The words in the body and a comment only: the page says nothing.
                head += '<!-- robots canonical --><meta name="description" content="a refresh">'
            elif number == 12:
                # Longer than a first read: its head read on from there.
                head += "<meta name=x>" * 400 + '<meta name="robots" content="noindex">' * (section % 2)
            elif number == 13:
                # Its own link in a comment, another one in the head.
                head = f'<!-- <link rel="canonical" href="{url}"> --><link rel="canonical" href="{BASE}s{section}/p1/">'
            elif number == 14:
                head = f'<link rel="canonical" href="{url}"><link rel="canonical" href="{url}">'
            # An image on two pages in five: not the site's chrome, counted
            # among all the pages listed (most of which say nothing).
            body = '<img src="/logo.png">' if number >= 15 else "x"
            if number == 16:
                # Longer than a first read, its images in its content element.
                body += (
                    "<p>text</p>" * 500 + f'<main><img src="own-{section}.png"><img srcset="a.png 1x, b.png 2x"></main>'
                )
            elif number == 17:
                # A date and images: the date decides its entry's lastmod.
                head += '<meta property="article:modified_time" content="2024-05-01T10:00:00+02:00">'
                body += '<main><img src="dated.png"></main>'
            elif number == 18:
                body = (
                    '<header><img src="/logo.png"></header><main><img src="../p0/shared.png"><img src="data:,x"></main>'
                )
            _page(site / f"s{section}" / f"p{number}" / "index.html", head, stamps(n), body)
        _page(site / f"s{section}" / "a b.html", "", stamps(n + 1))
        if duplicates:
            # Once the same URL as "a b.html"; a name of its own since names are paths.
            _page(site / f"s{section}" / "a%20b.html", "", stamps(n + 2))
        _page(site / f"s{section}" / "ü & ñ.htm", "", stamps(n + 3))
        n += 3
    _page(site / "index.html", "", stamps(0))
    _page(site / "404.html", "", stamps(0))
    _page(site / ".hidden" / "x.html", "", stamps(0))
    _page(site / "private" / "index.html", "", stamps(7))
    _page(site / "s2" / "x_~-.y.html", "", stamps(8))
    _page(site / "s2" / "utf-16.html", "", stamps(8))
    (site / "s2" / "utf-16.html").write_bytes(
        '<html><head><meta name="robots" content="noindex"></head></html>'.encode("utf-16")
    )
    if robots:
        (site / "robots.txt").write_text("User-agent: *\nDisallow: /private/\n")
    if not ROOT_USER:
        _page(site / "s1" / "locked.html", "", stamps(9))
        (site / "s1" / "locked.html").chmod(0)
    return site


def outputs(site: Path) -> dict[str, bytes]:
    return {
        p.name: p.read_bytes()
        for p in sorted(site.iterdir())
        if p.is_file() and p.name.startswith(("sitemap", "robots"))
    }


def report_text(report) -> tuple[str, list, list]:
    return report.details(), [(n.code, n.message) for n in report.notices], report.advice


@pytest.mark.parametrize(
    ("times", "lastmod", "duplicates", "alternates", "form"),
    [
        *[(times, "mtime", False, False, {}) for times in ("spread", "flat", "some before 1980", "all before 1980")],
        # Without robots.txt rules: most pages listed without a reading of their heads.
        ("spread", "mtime", False, False, {"robots": False}),
        ("spread", "mtime", False, False, {"robots": False, "images": True}),
        ("flat", "mtime", False, False, {"robots": False, "images": True}),
        ("some before 1980", "mtime", True, False, {"robots": False, "images": False}),
        ("spread", "none", False, False, {"robots": False, "format": "txt"}),
        ("spread", "mtime", False, True, {"robots": False, "changefreq": "weekly"}),
        ("spread", "mtime", True, False, {}),
        ("flat", "mtime", True, False, {}),
        ("spread", "none", True, False, {}),
        ("spread", "none", False, False, {}),
        ("spread", "mtime", False, True, {}),
        ("spread", "mtime", False, False, {"format": "txt"}),
        ("spread", "mtime", False, False, {"gzip": True, "stylesheet": True, "changefreq": "weekly"}),
        ("flat", "mtime", False, False, {"lastmod_warnings": False}),
    ],
)
def test_every_core_writes_what_build_site_writes(
    tmp_path: Path, times: str, lastmod: str, duplicates: bool, alternates: bool, form: dict
) -> None:
    form = dict(form)
    robots = form.pop("robots", True)
    site = make_site(tmp_path / "made", times, duplicates, alternates, robots)
    # Small files and small chunks: shards, an index, and pages in many chunks.
    options = Options(base_url=BASE, lastmod=lastmod, max_urls=100, report_file="report.txt", **form)
    results = {}
    for name, build in {
        "build_site": lambda folder: build_site(sorted(find_pages(folder), key=lambda p: p.loc), options, folder),
        "one process": lambda folder: build_folder(folder, options, workers=1, chunk_pages=7),
        "two processes": lambda folder: build_folder(folder, options, workers=2, chunk_pages=7),
        "default chunks": lambda folder: build_folder(folder, options),
    }.items():
        folder = tmp_path / name
        shutil.copytree(site, folder, copy_function=shutil.copy2)
        report = build(folder)
        results[name] = (outputs(folder), (folder / "report.txt").read_bytes(), report_text(report), report.urls)
    expected = results.pop("build_site")
    files = expected[0]
    assert len(files) > 4 and expected[3] > 250  # shards, an index, robots.txt
    for name, got in results.items():
        assert got == expected, name
    for name, data in files.items():
        if name.endswith(".xml") and form.get("format") != "txt":
            assert_valid(data)
    details = expected[2][0]
    # File names are names: "a%20b.html" is served at a%2520b.html, no duplicate.
    assert "excluded (duplicate)" not in details
    assert "excluded (noindex): https://example.org/s0/p3/" in details
    assert ("excluded (robots.txt): https://example.org/private/" in details) == robots
    for number in (10, 13):
        assert f"https://example.org/s0/p{number}/" in details
    assert "https://example.org/s1/p12/" in details and "https://example.org/s0/p12/" not in details
    assert "https://example.org/s2/utf-16.html" in details
    assert (b"<xhtml:link" in b"".join(files.values())) == alternates
    if lastmod == "mtime" and not form:
        dates = re.findall(rb"<url><loc>[^<]*</loc><lastmod>([^<]*)", b"".join(files.values()))
        # Each section's page with a date in its head has that date, whatever its file time.
        assert len([d for d in dates if d.endswith(b"T10:00:00+02:00")]) == 24
        assert any(not d.endswith(b"T10:00:00+02:00") for d in dates) == (times in ("spread", "some before 1980"))
        assert any(code == "lastmod" for code, _ in expected[2][1]) == (times != "spread")
    if not ROOT_USER:
        assert any(code == "unreadable" for code, _ in expected[2][1])


def test_the_static_fixture_comes_out_as_the_serial_path_writes_it(tmp_path: Path) -> None:
    """`sitemapkit build` (every core) and build_site on find_pages' pages (the
    serial path `build` took before) write the same files for fixtures/static."""
    written = []
    for name in ("command", "build_site"):
        site = tmp_path / name
        shutil.copytree(FIXTURES / "static", site)
        pages = sorted(p for p in site.rglob("*.htm*") if p.is_file())
        for number, page in enumerate(pages):
            stamp = 1_700_000_000 + number * 90_061
            os.utime(page, (stamp, stamp))
        if name == "command":
            result = run_sitemapkit("build", str(site), "--base-url", BASE, "--lastmod", "mtime", "--max-urls", "2")
            assert result.returncode == 0, result.stderr
        else:
            build_site(
                sorted(find_pages(site), key=lambda p: p.loc), Options(base_url=BASE, lastmod="mtime", max_urls=2), site
            )
        written.append({p.name: p.read_bytes() for p in site.iterdir() if p.name.startswith(("sitemap", "robots"))})
    assert written[0] == written[1]
    assert len(written[0]) > 3 and b"<lastmod>" in written[0]["sitemap.xml"]


def test_the_walk_finds_pages_in_page_order(tmp_path: Path) -> None:
    site = tmp_path / "site"
    for name in ["c.htm", "404.html", "d.txt", "a/index.html", "a/b.html", ".hidden/x.html", "é/x.html"]:
        _page(site / name)
    # A symlinked folder is not walked (its pages would be listed twice, or forever).
    (site / "b").symlink_to(site / "a")
    (site / "e.html").symlink_to(site / "c.htm")
    from sitemapkit.site.folder import folder_page, walk_pages

    names = list(walk_pages(site))
    assert names == ["404.html", "c.htm", "e.html", "a/b.html", "a/index.html", "é/x.html"]
    pages = [folder_page(n, site / n) for n in names]
    assert [p.loc for p in pages] == ["404.html", "c.htm", "e.html", "a/b.html", "a/", "%C3%A9/x.html"]
    assert [p.exclude_reason for p in pages] == ["error page", None, None, None, None, None]


@pytest.mark.parametrize("where", ["the folder", "a folder inside"])
def test_pages_in_git_are_dated_by_its_history(tmp_path: Path, where: str) -> None:
    from conftest import git

    site = make_site(tmp_path / "made", "spread", duplicates=False)
    repository = site if where == "the folder" else site / "s3"
    git(repository, "init", "-q")
    git(repository, "add", "-A")
    git(repository, "commit", "-q", "-m", "pages", when=dt.datetime(2021, 3, 4, 5, 6, 7, tzinfo=dt.timezone.utc))
    options = Options(base_url=BASE, max_urls=100)  # lastmod 'auto'
    written = []
    for name, build in {
        "build_site": lambda folder: build_site(sorted(find_pages(folder), key=lambda p: p.loc), options, folder),
        "parallel": lambda folder: build_folder(folder, options, workers=2, chunk_pages=7),
    }.items():
        folder = tmp_path / name
        shutil.copytree(site, folder, copy_function=shutil.copy2, symlinks=True)
        build(folder)
        written.append(outputs(folder))
    assert written[0] == written[1]
    assert b"<lastmod>2021-03-04T05:06:07+00:00</lastmod>" in b"".join(written[1].values())


@pytest.mark.parametrize(
    ("state", "fast"),
    [
        ("ignored", True),
        ("not yet added", True),
        ("a log ignored", True),
        ("half ignored", False),
        ("a folder of pages ignored", False),
        ("one page tracked", False),
    ],
)
def test_output_folder_inside_a_work_tree(tmp_path: Path, monkeypatch, state: str, fast: bool) -> None:
    """Hugo's public/, Jekyll's _site/: a build's output inside the project's git
    work tree, with lastmod 'auto'. Where git tracks none of its pages and ignores
    all or none of them, git can date none, and `build` takes its own path (file
    times, as without git); else every page goes through build_pages, which
    asks git for the whole repository at once. Both write what build_site writes."""
    from conftest import git
    from sitemapkit.engine import folderbuild as scan

    project = tmp_path / "project"
    site = make_site(project, "spread", duplicates=False)  # project/site
    (project / "content.md").write_text("x")
    ignores = {
        "ignored": "site/",
        "half ignored": "*.htm",
        "a log ignored": "*.log",
        "a folder of pages ignored": "s2/",
    }
    (project / ".gitignore").write_text(ignores.get(state, "") + "\n")
    (site / "build.log").write_text("no page: whether git ignores it changes no date")
    git(project, "init", "-q")
    git(project, "add", "content.md", ".gitignore")
    if state == "one page tracked":
        git(project, "add", "site/index.html")
    git(project, "commit", "-q", "-m", "project", when=dt.datetime(2021, 3, 4, 5, 6, 7, tzinfo=dt.timezone.utc))
    assert scan.git_leaves_to_file_times(str(site)) is fast
    options = Options(base_url=BASE, max_urls=100, report_file="report.txt")  # lastmod 'auto'
    taken = []
    real_build_together = scan._build_together
    monkeypatch.setattr(scan, "_build_together", lambda *args: taken.append(1) or real_build_together(*args))
    written = {}
    for name, build in {
        "build_site": lambda folder: build_site(sorted(find_pages(folder), key=lambda p: p.loc), options, folder),
        "build": lambda folder: build_folder(folder, options, workers=2, chunk_pages=7),
    }.items():
        report = build(site)
        written[name] = (outputs(site), (site / "report.txt").read_bytes(), report_text(report))
        for file in site.glob("sitemap*"):
            file.unlink()
    assert written["build"] == written["build_site"]
    assert (not taken) is fast
    assert b"<lastmod>" in b"".join(written["build"][0].values())


def test_a_worker_killed_leaves_its_pages_to_this_process(tmp_path: Path, monkeypatch) -> None:
    """A worker of `sitemapkit build` killed (out of memory, by a user): nothing
    is lost, this process checks the chunks no worker finished and writes what
    build_site writes."""
    from sitemapkit.engine import folderbuild as scan

    site = make_site(tmp_path / "made", "spread", duplicates=False)
    options = Options(base_url=BASE, lastmod="mtime", max_urls=100, report_file="report.txt")
    expected = tmp_path / "expected"
    shutil.copytree(site, expected, copy_function=shutil.copy2)
    build_site(sorted(find_pages(expected), key=lambda p: p.loc), options, expected)
    killed_in_workers(monkeypatch, scan, "select_page")
    together = []
    monkeypatch.setattr(scan, "_build_together", lambda *args: together.append(1))
    build_folder(site, options, workers=2, chunk_pages=7)
    assert not together and outputs(site) == outputs(expected)
    assert (site / "report.txt").read_bytes() == (expected / "report.txt").read_bytes()


def _long_named_page(site: Path, last: int) -> None:
    """A page whose URL makes an entry longer than a 1024-byte file holds (with a
    ``last`` folder name of 80: only with its lastmod)."""
    folder = site.joinpath(*(f"{n}" * 190 for n in range(4)), "4" * last)
    _page(folder / "index.html", "", 1_700_000_000)


# Two pages of one URL are not to be had from a folder (file names are names, see
# test_every_core_writes_what_build_site_writes): build_folder still sends them
# the same way, should the page rule ever make them.
@pytest.mark.parametrize("case", ["git", "git inside", "alternates", "too long", "flat and too long"])
def test_what_needs_every_page_walks_and_reads_each_once(tmp_path: Path, monkeypatch, case: str) -> None:
    """The sites `sitemapkit build` once handed to build_site (dates from git,
    hreflang groups, duplicates or a page too long with dates) go through the
    engine's shared steps with what the walk and the workers read: the folder is
    walked once, each head read once, and the bytes are build_site's."""
    from conftest import git
    from sitemapkit.engine import folderbuild, pages, selection

    times = "flat" if case.startswith("flat") else "spread"
    site = make_site(tmp_path / "made", times, duplicates=False, alternates=case == "alternates")
    if case.startswith("git"):
        repository = site if case == "git" else site / "s3"
        git(repository, "init", "-q")
        git(repository, "add", "-A")
        git(repository, "commit", "-q", "-m", "pages", when=dt.datetime(2021, 3, 4, 5, 6, 7, tzinfo=dt.timezone.utc))
    form = {"max_bytes": 1024} if "too long" in case else {}
    if form:
        _long_named_page(site, 190 if case == "too long" else 80)
    lastmod = "auto" if case.startswith("git") else "mtime"
    options = Options(base_url=BASE, lastmod=lastmod, max_urls=100, report_file="report.txt", **form)
    expected = tmp_path / "expected"
    shutil.copytree(site, expected, copy_function=shutil.copy2, symlinks=True)
    report = build_site(sorted(find_pages(expected), key=lambda p: p.loc), options, expected)
    if "too long" in case:
        assert any(e.reason == "too long" for e in report.excluded) == (case == "too long")

    walks, reads, together = [], [], []
    real_walk, real_read = folderbuild.walk_pages, selection.inspect_built_page
    monkeypatch.setattr(folderbuild, "walk_pages", lambda *args: walks.append(1) or real_walk(*args))
    monkeypatch.setattr(pages, "walk_pages", lambda *args: walks.append(1) or real_walk(*args))
    monkeypatch.setattr(
        selection, "inspect_built_page", lambda path, *a, **k: reads.append(path) or real_read(path, *a, **k)
    )
    real_together = folderbuild._build_together
    monkeypatch.setattr(folderbuild, "_build_together", lambda *args: together.append(1) or real_together(*args))
    got = build_folder(site, options, workers=1, chunk_pages=7)
    assert together and walks == [1]
    assert reads and len(reads) == len(set(map(str, reads)))
    assert outputs(site) == outputs(expected)
    assert (site / "report.txt").read_bytes() == (expected / "report.txt").read_bytes()
    assert report_text(got) == report_text(report)


def test_a_worktree_inside_the_folder_is_dated_by_its_history(tmp_path: Path) -> None:
    # A worktree's .git is a file, not a folder: the walk notes it all the same.
    from conftest import git

    site = make_site(tmp_path / "made", "spread", duplicates=False, robots=False)
    origin = tmp_path / "origin"
    _page(origin / "p0" / "index.html", "", 1_700_000_000)
    git(origin, "init", "-q")
    git(origin, "add", "-A")
    git(origin, "commit", "-q", "-m", "pages", when=dt.datetime(2021, 3, 4, 5, 6, 7, tzinfo=dt.timezone.utc))
    git(origin, "worktree", "add", "-q", str(site / "w"))
    assert (site / "w" / ".git").is_file()
    options = Options(base_url=BASE, max_urls=100)  # lastmod 'auto'
    build_folder(site, options, workers=2, chunk_pages=7)
    written = b"".join(outputs(site).values())
    assert b"<loc>https://example.org/w/p0/</loc><lastmod>2021-03-04T05:06:07+00:00</lastmod>" in written


@pytest.mark.parametrize("lastmod", ["none", "mtime"])
@pytest.mark.parametrize("form", ["xml", "txt"])
def test_a_page_too_long_only_with_its_images_is_left_out_as_build_site_leaves_it(
    tmp_path: Path, lastmod: str, form: str
) -> None:
    # Its head says nothing, so it is listed without a Page of its own: its entry
    # is measured with its images all the same.
    site = tmp_path / "site"
    images = "".join(f'<img src="figure-{n}-{"x" * 80}.png">' for n in range(12))
    _page(site / "long" / "index.html", "", 1_700_000_000, body=f"<main>{images}</main>")
    _page(site / "short" / "index.html", "", 1_700_000_000, body='<main><img src="one.png"></main>')
    for n in range(5):
        _page(site / f"plain{n}" / "index.html", "", 1_700_000_000 + n * 86_400)
    options = Options(
        base_url=BASE, lastmod=lastmod, images=True, max_bytes=1024, format=form, report_file="report.txt"
    )
    expected = tmp_path / "expected"
    shutil.copytree(site, expected, copy_function=shutil.copy2)
    wanted = build_site(sorted(find_pages(expected), key=lambda p: p.loc), options, expected)
    assert [e.loc for e in wanted.excluded if e.reason == "too long"] == (["long/"] if form == "xml" else [])
    got = build_folder(site, options, workers=1, chunk_pages=3)
    assert outputs(site) == outputs(expected)
    assert (site / "report.txt").read_bytes() == (expected / "report.txt").read_bytes()
    assert report_text(got) == report_text(wanted)


def test_a_head_that_says_nothing_but_images_is_told_from_one_that_says_more() -> None:
    from sitemapkit.engine.selection import NOTHING_SAID, images_alone
    from sitemapkit.site.htmlcheck import HeadFacts

    pictured = HeadFacts(images=("https://example.org/a.png",))
    assert images_alone((None, pictured, None)) is pictured
    assert images_alone(NOTHING_SAID) is None
    assert images_alone(("noindex", pictured, None)) is None
    assert images_alone((None, pictured, "a/ -> https://example.org/gone/")) is None
    assert images_alone((None, HeadFacts(images=pictured.images, modified=("2024-01-01",)), None)) is None
    assert images_alone((None, HeadFacts(alternates=(("fr", "https://example.org/fr/"),)), None)) is None
