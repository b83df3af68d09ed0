"""`sitemapkit versions` on version folders `sitemapkit build` wrote (the real
mike and sphinx-multiversion runs are in tests/mkdocs and tests/sphinx)."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import assert_valid, run_sitemapkit, sitemap_entries, usp_pages

from sitemapkit.audit.versions import release_key
from sitemapkit.protocol.encoder import written_by_sitemapkit

BASE = "https://docs.example.org/"


def version_folder(root: Path, name: str, pages: tuple[str, ...] = ("index.html", "guide.html"), *flags: str) -> Path:
    folder = root / name
    folder.mkdir(parents=True)
    for page in pages:
        url = BASE + name + "/" + ("" if page == "index.html" else page)
        (folder / page).write_text(
            f'<html><head><link rel="canonical" href="{url}"><title>{name}</title></head><body>{name}</body></html>'
        )
    done = run_sitemapkit("build", str(folder), "--base-url", f"{BASE}{name}/", "--lastmod", "none", *flags)
    assert done.returncode == 0, done.stderr
    return folder


def versions(root: Path, *args: str):
    return run_sitemapkit("versions", str(root), "--base-url", BASE, *args)


def test_release_order():
    assert release_key("1.10") > release_key("1.9") > release_key("v1.2.3")
    assert release_key("dev") is None and release_key("2.1rc1") is None and release_key("main") is None


def test_only_sitemapkit_sitemaps_mark_a_version(tmp_path):
    folder = version_folder(tmp_path, "1.0")
    assert written_by_sitemapkit((folder / "sitemap.xml").read_bytes())
    # MkDocs' own sitemap indents its entries.
    mkdocs = b'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n    <url>\n'
    assert not written_by_sitemapkit(mkdocs)


def test_versions_found_from_their_sitemaps_without_versions_json(tmp_path):
    root = tmp_path / "site"
    for name in ("1.9", "1.10", "dev"):
        version_folder(root, name)
    (root / "latest").symlink_to("1.10")
    (root / "assets").mkdir()
    (root / "assets" / "x.css").write_text("")
    (root / "404.html").write_text("<html><head></head><body>gone</body></html>")
    done = versions(root)
    assert done.returncode == 0, done.stderr
    assert "the pages of 1.10, the newest release" in done.stdout
    assert sorted(sitemap_entries(root)) == [f"{BASE}1.10/", f"{BASE}1.10/guide.html"]
    done = versions(root, "--canonical", "latest")
    assert done.returncode == 0, done.stderr
    assert "the pages of 1.10 (as latest)" in done.stdout
    done = versions(root, "--versions", "1.9,dev", "--canonical", "dev")
    assert done.returncode == 0, done.stderr
    assert sorted(sitemap_entries(root)) == [f"{BASE}dev/", f"{BASE}dev/guide.html"]


@pytest.mark.parametrize(
    ("layout", "message"),
    [
        ("empty", "has no versions.json and no folder holding a sitemap sitemapkit wrote"),
        ("version", "it is a version folder itself"),
        ("no-release", "no release among the versions (dev); name the canonical one with --canonical"),
        ("not-a-version", "--canonical: 'main' names no version or alias of the site (dev)"),
    ],
)
def test_odd_layouts_are_one_line(tmp_path, layout, message):
    root = tmp_path / "site"
    root.mkdir()
    args: tuple[str, ...] = ()
    if layout == "version":
        root = version_folder(tmp_path, "2.0")
    elif layout in ("no-release", "not-a-version"):
        version_folder(root, "dev")
        args = ("--canonical", "main") if layout == "not-a-version" else ()
    before = sorted(p.name for p in root.iterdir())
    done = versions(root, *args)
    assert done.returncode == 2
    assert done.stderr.splitlines() == [f"sitemapkit: error: {done.stderr.splitlines()[0][19:]}"]
    assert message in done.stderr
    assert sorted(p.name for p in root.iterdir()) == before


def test_all_versions_lists_each_versions_sitemaps_never_an_index(tmp_path):
    from lxml import etree

    root = tmp_path / "site"
    version_folder(root, "1.0")
    # Sharded: 2.0's sitemap.xml is an index; the root index lists its shards.
    version_folder(root, "2.0", ("index.html", "guide.html", "more.html"), "--max-urls", "1")
    assert b"<sitemapindex" in (root / "2.0" / "sitemap.xml").read_bytes()
    done = versions(root, "--all-versions")
    assert done.returncode == 0, done.stderr
    listed = etree.fromstring((root / "sitemap.xml").read_bytes()).findtext(".//{*}loc")
    locs = [e.text for e in etree.fromstring((root / "sitemap.xml").read_bytes()).iterfind(".//{*}loc")]
    assert listed == f"{BASE}1.0/sitemap.xml" and len(locs) == 4
    assert all(loc.startswith(f"{BASE}2.0/sitemap-") for loc in locs[1:])
    assert_valid(root / "sitemap.xml")
    # Every page of both versions, through the files the root index lists.
    assert sum(len(usp_pages(root / loc[len(BASE) :])) for loc in locs) == 5
    (root / "1.0" / "sitemap.xml").write_text("<urlset")
    (root / "1.0" / "index.html").unlink()
    done = versions(root, "--all-versions", "--versions", "1.0,2.0")
    assert (
        done.returncode == 2
        and done.stderr.splitlines() == [done.stderr.splitlines()[0]]
        and "1.0/sitemap.xml is no well-formed XML" in done.stderr
    )
