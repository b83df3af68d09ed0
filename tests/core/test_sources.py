"""`sitemapkit build public --source content` on a Hugo-shaped site in git, and the
dates and hreflang alternates pages declare in their heads (fixtures/hugo-shaped)."""

from __future__ import annotations

import datetime as dt
import gzip
import os
import shutil
from pathlib import Path

import pytest

from conftest import FIXTURES, git, sitemap_entries
from sitemapkit.audit.check import check_site
from sitemapkit.commands.cli import main

BASE = "https://example.org/"
FIRST = dt.datetime(2020, 5, 1, 10, 0, tzinfo=dt.timezone.utc)
EDITED = dt.datetime(2023, 7, 8, 9, 10, 11, tzinfo=dt.timezone.utc)
# The built files' time: one moment for all, as after a build, so they date nothing.
BUILT = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc).timestamp()


@pytest.fixture
def site(tmp_path: Path) -> Path:
    """The fixture in a repository of its own: content/ committed at FIRST, then
    posts/first.md edited at EDITED; public/ ignored, as Hugo projects keep it."""
    root = tmp_path / "project"
    shutil.copytree(FIXTURES / "hugo-shaped", root)
    (root / ".gitignore").write_text("public/\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "content", when=FIRST)
    first = root / "content" / "posts" / "first.md"
    first.write_text(first.read_text() + "Edited.\n")
    git(root, "commit", "-q", "-am", "edit", when=EDITED)
    for folder, _, files in os.walk(root / "public"):
        for name in files:
            os.utime(Path(folder) / name, (BUILT, BUILT))
    return root


def build(root: Path, *args: str, capsys) -> tuple[int, str, str]:
    code = main(["build", str(root / "public"), "--base-url", BASE, *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_mirrored_sources_date_the_pages(site, capsys):
    code, out, err = build(site, "--source", str(site / "content"), capsys=capsys)
    assert code == 0, err
    entries = sitemap_entries(site / "public")
    dates = {loc[len(BASE) :]: entry["lastmod"] for loc, entry in entries.items()}
    assert dates == {
        "": "2020-05-01T10:00:00+00:00",  # content/_index.md
        "posts/": "2020-05-01T10:00:00+00:00",  # content/posts/_index.md
        # content/posts/first.md: its git date wins over the og:updated_time its head declares.
        "posts/first/": "2023-07-08T09:10:11+00:00",
        "fr/posts/first/": "2020-05-01T10:00:00+00:00",  # content/fr/posts/first.md
        "posts/bundle/": "2020-05-01T10:00:00+00:00",  # content/posts/bundle/index.md
        "about.html": "2020-05-01T10:00:00+00:00",  # content/about.markdown
        # No source: the head's article:modified_time, before its og:updated_time.
        "tags/": "2022-02-02T02:02:02+00:00",
        # No source: JSON-LD's dateModified of the page's node, not the site's.
        "archive/": "2021-06-15T12:00:00+00:00",
        # No source, no declared date, a build-time file: no date rather than a wrong one.
        "posts/lonely/": None,
        "search/": None,
    }


def test_without_source_pages_keep_the_other_rules(site, capsys):
    code, out, err = build(site, capsys=capsys)
    assert code == 0, err
    dates = {loc[len(BASE) :]: e["lastmod"] for loc, e in sitemap_entries(site / "public").items()}
    assert dates["posts/first/"] == "2019-01-01T00:00:00+00:00"  # only its head's date is left
    assert dates["tags/"] == "2022-02-02T02:02:02+00:00"
    assert dates["posts/bundle/"] is None
    assert "file time" in err


def test_declared_hreflang_alternates(site, capsys):
    code, out, err = build(site, "--source", str(site / "content"), capsys=capsys)
    assert code == 0, err
    entries = sitemap_entries(site / "public")
    pair = [("en", BASE + "posts/first/"), ("fr", BASE + "fr/posts/first/")]
    # Absolute, root-relative and relative hrefs, each page naming itself: one group.
    assert entries[BASE + "posts/first/"]["alternates"] == pair
    assert entries[BASE + "fr/posts/first/"]["alternates"] == pair
    # fr/posts/first/ does not name posts/lonely/ back: crawlers ignore such a pair.
    assert entries[BASE + "posts/lonely/"]["alternates"] == []
    assert "posts/lonely/: https://example.org/fr/posts/first/ does not declare the same alternates back" in err


def test_source_must_be_a_folder(site, capsys):
    code, out, err = build(site, "--source", str(site / "nowhere"), capsys=capsys)
    assert code == 2
    assert err.strip() == f"sitemapkit: error: --source {str(site / 'nowhere')!r} is not a folder"


def test_stale_gzip_copy_is_rewritten_and_checked(site, capsys):
    public = site / "public"
    (public / "sitemap.xml.gz").write_bytes(gzip.compress(b"<urlset>an older build's</urlset>"))
    code, out, err = build(site, capsys=capsys)
    assert code == 0, err
    assert gzip.decompress((public / "sitemap.xml.gz").read_bytes()) == (public / "sitemap.xml").read_bytes()
    assert check_site(public, BASE).problems == []
    # A generator's sitemap.xml written again over ours leaves the copy stale: check says so.
    (public / "sitemap.xml").write_bytes((public / "sitemap.xml").read_bytes() + b"\n")
    problems = [str(p) for p in check_site(public, BASE).problems]
    assert problems == [
        "sitemap.xml.gz:0: is not a copy of sitemap.xml: a stale sitemap, left by an earlier build or another generator"
    ]


def test_build_help_names_config_and_source(capsys):
    with pytest.raises(SystemExit):
        main(["build", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "--config FILE mkdocs.yml or zensical.toml" in text
    assert "--source DIR the sources of a generator whose output mirrors them" in text


def test_public_folder_git_ignores_is_dated_by_file_times_without_asking_git_per_page(site, tmp_path, capsys):
    """Hugo projects keep public/ in .gitignore: git can date none of its pages,
    so `sitemapkit build public` asks git once (lastmod.git_leaves_to_file_times)
    and writes what build_site, asking git about every page, writes."""
    from sitemapkit import Options, build_site
    from sitemapkit.site.folder import find_pages
    from sitemapkit.site.lastmod import git_leaves_to_file_times

    assert git_leaves_to_file_times(str(site / "public"))
    assert not git_leaves_to_file_times(str(site / "content"))  # committed: git dates it
    other = tmp_path / "other"
    shutil.copytree(site, other, symlinks=True, copy_function=shutil.copy2)
    code, out, err = build(site, capsys=capsys)
    assert code == 0, err
    build_site(
        sorted(find_pages(other / "public"), key=lambda page: page.loc), Options(base_url=BASE), other / "public"
    )
    names = sorted(p.name for p in (site / "public").glob("sitemap*"))
    assert names == sorted(p.name for p in (other / "public").glob("sitemap*"))
    for name in names:
        assert (site / "public" / name).read_bytes() == (other / "public" / name).read_bytes(), name
