"""``sitemapkit check`` as an audit of a site's pages: each finding's kind, URL and
reason, on a hand-made site where each page breaks one rule the builds apply;
which kinds are errors decides the exit status, and ``--format json`` gives them."""

from __future__ import annotations

import datetime as dt
import json
import os
from pathlib import Path

from conftest import git, run_sitemapkit
from sitemapkit.audit.check import FINDING_KINDS, check_site

BASE = "https://example.org/"
#: Far after any clock this runs under, and the history the test's git starts at.
FUTURE = "2999-01-01"
FIRST_COMMIT = dt.datetime(2020, 6, 1, 12, tzinfo=dt.timezone.utc)


def urlset(*entries: tuple[str, str | None]) -> str:
    body = "".join(
        f"<url><loc>{loc}</loc>{f'<lastmod>{lastmod}</lastmod>' if lastmod else ''}</url>\n" for loc, lastmod in entries
    )
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n{body}</urlset>\n'
    )


def page(head: str = "") -> str:
    return f"<!doctype html><html><head><title>t</title>{head}</head><body>x</body></html>"


def make_site(root: Path) -> Path:
    site = root / "site"
    (site / "fr").mkdir(parents=True)
    (site / "private").mkdir()
    (site / "index.html").write_text(page())
    (site / "noindex.html").write_text(page('<meta name="robots" content="noindex">'))
    (site / "old.html").write_text(page('<meta http-equiv="refresh" content="0; url=https://example.org/">'))
    (site / "copy.html").write_text(page('<link rel="canonical" href="https://example.org/">'))
    (site / "private" / "p.html").write_text(page())
    (site / "private" / "doc.pdf").write_bytes(b"%PDF-1.4\n")
    (site / "404.html").write_text(page())
    (site / "forgotten.html").write_text(page())
    (site / "hidden.html").write_text(page('<meta name="robots" content="noindex">'))
    (site / "fr" / "index.html").write_text(page())
    (site / "robots.txt").write_text("User-agent: *\nDisallow: /private/\n")
    (site / "sitemap.xml").write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        "<sitemap><loc>https://example.org/pages.xml</loc></sitemap>"
        "<sitemap><loc>https://example.org/fr/sitemap.xml</loc></sitemap></sitemapindex>\n"
    )
    (site / "pages.xml").write_text(
        urlset(
            (BASE, "2021-01-01"),
            (BASE + "noindex.html", "2021-01-02"),
            (BASE + "old.html", "2021-01-03"),
            (BASE + "copy.html", "2019-01-04"),
            (BASE + "private/p.html", None),
            (BASE + "private/doc.pdf", None),
            (BASE + "404.html", None),
            (BASE + "gone.html", None),
        )
    )
    (site / "fr" / "sitemap.xml").write_text(urlset((BASE + "fr/", FUTURE), (BASE + "copy.html", None)))
    return site


def findings(result) -> set[tuple[str, str]]:
    return {(finding.kind, finding.url) for finding in result.findings}


def test_each_kind_of_finding(tmp_path: Path) -> None:
    site = make_site(tmp_path)
    result = check_site(site, BASE)
    assert findings(result) == {
        ("noindex", BASE + "noindex.html"),
        ("redirect", BASE + "old.html"),
        ("canonical", BASE + "copy.html"),
        ("robots", BASE + "private/p.html"),
        # Not a page, so no head is read, but the robots.txt rules still apply.
        ("robots", BASE + "private/doc.pdf"),
        ("error-page", BASE + "404.html"),
        ("no-file", BASE + "gone.html"),
        ("out-of-folder", BASE + "copy.html"),
        ("future-lastmod", BASE + "fr/"),
        # A noindex page is left out by the rules, so only forgotten.html is unlisted.
        ("unlisted", BASE + "forgotten.html"),
    }
    reasons = {(f.kind, f.url): f.reason for f in result.findings}
    assert "robots.txt disallows it" in reasons[("robots", BASE + "private/p.html")]
    assert "https://example.org/fr/" in reasons[("out-of-folder", BASE + "copy.html")]
    assert result.failed


def test_before_history_only_where_git_is(tmp_path: Path) -> None:
    site = make_site(tmp_path)
    assert not any(f.kind == "before-history" for f in check_site(site, BASE).findings)
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-q", "-m", "site", when=FIRST_COMMIT)
    assert [f.url for f in check_site(site, BASE).findings if f.kind == "before-history"] == [BASE + "copy.html"]


def test_before_history_counts_every_branch_of_the_repository(tmp_path: Path) -> None:
    """mike's gh-pages is a branch of its own (an orphan), first committed at the
    first deploy; the pages' dates come from the sources on main, older. The
    history the site began with is the repository's, every branch's."""
    git(tmp_path, "init", "-q", "-b", "main")
    (tmp_path / "source.md").write_text("the sources\n")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-q", "-m", "sources", when=dt.datetime(2018, 6, 1, tzinfo=dt.timezone.utc))
    git(tmp_path, "checkout", "-q", "--orphan", "gh-pages")
    git(tmp_path, "rm", "-q", "-r", "--cached", ".")
    (tmp_path / "source.md").unlink()
    site = make_site(tmp_path)
    git(tmp_path, "add", "site")
    git(tmp_path, "commit", "-q", "-m", "deploy", when=FIRST_COMMIT)
    # copy.html's 2019 lastmod is older than gh-pages, not than the repository.
    assert [f.url for f in check_site(site, BASE).findings if f.kind == "before-history"] == []


def written_at(sitemap: Path, when: str) -> None:
    """Give ``sitemap`` the file time a build writing it at ``when`` leaves."""
    stamp = dt.datetime.fromisoformat(when).timestamp()
    os.utime(sitemap, (stamp, stamp))


def test_one_batch_of_lastmods_is_the_build_clock(tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    names = [f"p{number}.html" for number in range(6)]
    for name in names:
        (site / name).write_text(page())
    (site / "index.html").write_text(page())
    stamped = [(BASE + name, "2024-03-04T05:06:07+00:00") for name in names]
    (site / "sitemap.xml").write_text(urlset((BASE, "2020-01-01"), *stamped))
    # Written by the build whose clock that is, seconds later.
    written_at(site / "sitemap.xml", "2024-03-04T05:06:09+00:00")
    result = check_site(site, BASE)
    assert findings(result) == {("batch-lastmod", BASE + "sitemap.xml")}
    assert not result.failed, "a warning, not an error"
    # A date-only clock (MkDocs' own sitemap: the build's day) is that day's midnight.
    (site / "sitemap.xml").write_text(urlset((BASE, "2020-01-01"), *((BASE + name, "2024-03-04") for name in names)))
    written_at(site / "sitemap.xml", "2024-03-04T23:50:00+00:00")
    assert findings(check_site(site, BASE)) == {("batch-lastmod", BASE + "sitemap.xml")}
    # The same one date on most pages, in a sitemap written years later: no clock
    # of the build that wrote it (a small blog's listings, each dated by its newest
    # article, outnumber its articles).
    written_at(site / "sitemap.xml", "2026-12-04T10:00:00+00:00")
    assert check_site(site, BASE).findings == []
    # Dates a day apart are the pages' own: no finding.
    (site / "sitemap.xml").write_text(
        urlset((BASE, None), *((BASE + name, f"2024-03-0{day + 1}") for day, name in enumerate(names)))
    )
    assert check_site(site, BASE).findings == []


def test_one_date_the_pages_declare_themselves_is_no_build_clock(tmp_path: Path) -> None:
    """Hugo's PaperMod demo: most posts dated alike in their front matter, and
    their heads say so (article:modified_time): the pages' own date."""
    site = tmp_path / "site"
    site.mkdir()
    names = [f"p{number}.html" for number in range(6)]
    same = "2019-03-11T00:00:00+00:00"
    for name in names:
        (site / name).write_text(page(f'<meta property="article:modified_time" content="{same}">'))
    (site / "index.html").write_text(page())
    (site / "sitemap.xml").write_text(urlset((BASE, "2020-01-01"), *((BASE + name, same) for name in names)))
    written_at(site / "sitemap.xml", "2019-03-11T00:00:05+00:00")
    assert check_site(site, BASE).findings == []
    # Heads declaring another date: the listed one is no page's own.
    for name in names:
        (site / name).write_text(page('<meta property="article:modified_time" content="2018-01-01T00:00:00Z">'))
    assert findings(check_site(site, BASE)) == {("batch-lastmod", BASE + "sitemap.xml")}


def test_json_and_exit_status(tmp_path: Path) -> None:
    site = make_site(tmp_path)
    done = run_sitemapkit("check", str(site), "--base-url", BASE, "--format", "json")
    assert done.returncode == 1, done.stderr
    data = json.loads(done.stdout)
    kinds = {finding["kind"]: finding["error"] for finding in data["findings"]}
    assert kinds["unlisted"] is False and kinds["noindex"] is True
    assert all(FINDING_KINDS[kind] == error for kind, error in kinds.items())
    assert data["failed"] is True
    # Warnings alone do not fail the check.
    (site / "pages.xml").write_text(urlset((BASE, None)))
    (site / "fr" / "sitemap.xml").write_text(urlset((BASE + "fr/", None)))
    text = run_sitemapkit("check", str(site), "--base-url", BASE)
    assert text.returncode == 0, text.stdout
    assert f"warning unlisted: {BASE}forgotten.html: " in text.stdout
    assert text.stdout.splitlines()[-1].endswith("no problems; findings: 0 errors, 1 warning")
