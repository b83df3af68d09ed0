"""``sitemapkit build --config _config.yml`` on fixtures/jekyll-posts, built by the
real Jekyll 4.3 with jekyll-sitemap: the shapes a trial on real Jekyll sites
found (the posts' permalink under ``collections: posts:``, dates only Ruby's
Time.parse reads, a post's URL date in the site's zone, titles and names as
Jekyll slugs them). Each page matched to its source keeps its ``sitemap: false``
and its own dates; the site is listed with jekyll-sitemap's URLs."""

from __future__ import annotations

import datetime as dt
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import FIXTURES, assert_valid, git, run_sitemapkit, sitemap_entries
from jekyll.test_jekyll_build import instant, jekyll, read_theirs

BASE = "https://example.org/"
COMMITTED = dt.datetime(2024, 7, 1, 12, tzinfo=dt.timezone.utc)
NEW_YORK_SUMMER = dt.timezone(dt.timedelta(hours=-4))


@pytest.fixture
def built(tmp_path: Path) -> Path:
    binary = jekyll()
    root = tmp_path / "site"
    shutil.copytree(FIXTURES / "jekyll-posts", root)
    (root / "unreadable.md").write_text("---\nlayout: default\ntitle: Undated\ndate: some day soon\n---\nText.\n")
    (root / ".gitignore").write_text("_site/\n.jekyll-cache/\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "all", when=COMMITTED)
    done = subprocess.run([binary, "build", "--quiet"], cwd=root, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    shutil.copy(root / "_site" / "sitemap.xml", root / "theirs.xml")
    return root


def test_posts_matched_to_their_sources_as_jekyll_writes_them(built):
    theirs = read_theirs(built / "theirs.xml")
    done = run_sitemapkit("build", "--config", "_config.yml", "--verbose", cwd=built)
    assert done.returncode == 0, done.stderr
    assert_valid(built / "_site" / "sitemap.xml")
    ours = {loc: entry["lastmod"] for loc, entry in sitemap_entries(built / "_site").items()}
    assert set(ours) == set(theirs) | {BASE + "unreadable.html"}
    # sitemap: false on posts and documents whose URLs follow collections.posts
    # .permalink, the site's zone (the 5th in Berlin is the 4th in New York) and
    # Jekyll's slugs (Café-Night, my-project).
    # And a static file under a default's sitemap: false (legacy/old.html).
    for url in (
        "news/2024/05/04/late/",
        "news/2024/Caf%C3%A9-Night/",
        "news/2024/hidden/",
        "projects/my-project/",
        "legacy/old.html",
    ):
        assert f"excluded (metadata): {BASE}{url}\n" in done.stdout
    # Each post's date as Jekyll read it: jekyllrb.com's "18:30:22 2023 -0800"
    # in the site's zone (Ruby passes the -0800 over), "10:00:00 UTC", and
    # last_modified_at over the file name's date.
    for url in ("news/2023/release/", "news/2024/utc/", "news/2024/edited/", "news/2024/Open-Day/"):
        assert instant(ours[BASE + url]) == instant(theirs[BASE + url]), url
    assert instant(ours[BASE + "news/2023/release/"]) == dt.datetime(2023, 1, 29, 23, 30, 22, tzinfo=dt.timezone.utc)
    # A page's "May 5, 2024" (jekyll-sitemap dates no page): that day in the site's zone.
    assert instant(ours[BASE + "dated-page.html"]) == dt.datetime(2024, 5, 5, tzinfo=NEW_YORK_SUMMER)
    # A date nobody reads: one warning naming it, and the page dated by git.
    assert (
        "sitemapkit: warning: unreadable.md: date: 'some day soon' is not a date sitemapkit reads "
        "(such as 2024-01-31 10:00:00 +0100); not used\n"
    ) in done.stderr
    assert instant(ours[BASE + "unreadable.html"]) == COMMITTED


@pytest.mark.parametrize("name", ["_config_dev.yml", "_config,dev.yml"])
def test_a_configuration_of_another_name_is_read_as_jekylls(built, name):
    """``jekyll build --config _config_dev.yml``: the file is Jekyll's by what it
    holds; a file whose name holds a comma is one file, not a list."""
    shutil.copy(built / "_config.yml", built / name)
    done = run_sitemapkit("build", "--config", name, cwd=built)
    assert done.returncode == 0, done.stderr
    assert set(sitemap_entries(built / "_site")) == set(read_theirs(built / "theirs.xml")) | {BASE + "unreadable.html"}


def test_a_page_whose_canonical_drops_html_is_listed_in_a_folder_build(built):
    """``permalink: /contact`` (poole/lanyon): Jekyll writes contact.html, whose
    canonical link names /contact, which static hosts serve from that very file.
    A folder build (no --config) lists it, as jekyll-sitemap does."""
    assert (built / "_site" / "contact.html").is_file()
    assert BASE + "contact" in read_theirs(built / "theirs.xml")
    done = run_sitemapkit("build", "_site", "--base-url", BASE, "--verbose", cwd=built)
    assert done.returncode == 0, done.stderr
    assert "contact" not in "".join(line for line in done.stdout.splitlines() if line.startswith("excluded"))
    assert BASE + "contact.html" in sitemap_entries(built / "_site")


def test_several_configuration_files_are_merged_as_jekyll_merges_them(built):
    """``jekyll build --config _config.yml,_config.production.yml``: the later file's
    ``url`` wins, and its ``collections`` are merged into the first file's key by
    key (``projects`` keeps ``output: true``, ``posts`` its permalink)."""
    files = "_config.yml,_config.production.yml"
    done = subprocess.run([jekyll(), "build", "--quiet", "--config", files], cwd=built, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    theirs = read_theirs(built / "_site" / "sitemap.xml")
    production = "https://www.example.org/"
    assert {production + "work/second-one/", production + "news/2023/release/"} <= set(theirs)
    done = run_sitemapkit("build", "--config", files, "--verbose", cwd=built)
    assert done.returncode == 0, done.stderr
    assert_valid(built / "_site" / "sitemap.xml")
    ours = {loc: entry["lastmod"] for loc, entry in sitemap_entries(built / "_site").items()}
    assert set(ours) == set(theirs) | {production + "unreadable.html"}
    # Matched to their sources under the merged settings: sitemap: false kept.
    assert f"excluded (metadata): {production}work/my-project/\n" in done.stdout
    assert f"excluded (metadata): {production}news/2024/hidden/\n" in done.stdout
    assert instant(ours[production + "news/2023/release/"]) == instant(theirs[production + "news/2023/release/"])


def test_a_bad_setting_of_a_later_file_is_named_in_that_file(built):
    (built / "_config.production.yml").write_text("url: ftp://www.example.org\n")
    done = run_sitemapkit("build", "--config", "_config.yml,_config.production.yml", cwd=built)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        "sitemapkit: error: _config.production.yml: url: 'ftp://www.example.org' is not an absolute http(s) URL "
        "with a host\n"
    )
    (built / "_config.production.yml").write_text("collections: [a, b]\ntimezone: Mars/Olympus\n")
    done = run_sitemapkit("build", "--config", "_config.yml,_config.production.yml", cwd=built)
    assert done.stderr == "sitemapkit: error: _config.production.yml: timezone: 'Mars/Olympus' is not a time zone\n"
    done = run_sitemapkit("build", "--config", "_config.yml,_config.missing.yml", cwd=built)
    assert done.stderr == "sitemapkit: error: --config '_config.missing.yml': No such file or directory\n"
    # Neither file sets url: the list is named, as the user wrote it.
    (built / "_config.yml").write_text("title: No URL\n")
    (built / "_config.production.yml").write_text("title: Still none\n")
    done = run_sitemapkit("build", "--config", "_config.yml,_config.production.yml", cwd=built)
    assert done.stderr.startswith("sitemapkit: error: _config.yml,_config.production.yml: url: is not set")
    assert done.stderr.count("\n") == 1
