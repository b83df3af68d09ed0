"""Image entries from real Pelican builds with notmyidea (issue 23): article
images, a CDN image, and the og:image the theme's article template writes."""

from __future__ import annotations

import shutil
from pathlib import Path

from conftest import git, run_sitemapkit, sitemap_entries

from .conftest import FIRST_COMMIT, Site

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "images" / "pelican"
BASE = "https://example.org/blog/"


def fixture_site(tmp_path: Path) -> Site:
    root = tmp_path / "site"
    shutil.copytree(FIXTURE, root)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "fixture", when=FIRST_COMMIT)
    return Site(root, tmp_path)


def test_the_sitemapkit_images_key_turns_them_off(tmp_path: Path) -> None:
    out = fixture_site(tmp_path).build(SITEMAPKIT={"images": False})
    assert all("images" not in entry for entry in sitemap_entries(out).values())


def test_articles_list_their_images_and_the_themes_og_image(tmp_path: Path) -> None:
    site = fixture_site(tmp_path)
    out = site.build()
    entries = sitemap_entries(out)  # the image schema (strict) and ultimate-sitemap-parser
    images = {loc: entry["images"] for loc, entry in entries.items() if "images" in entry}
    assert images[BASE + "first/"] == [BASE + "images/cover.png", BASE + "images/diagram.png"]
    assert images[BASE + "second/"] == [BASE + "images/second.png", "https://cdn.example.net/remote.png"]
    assert BASE + "third/" not in images
    # The index shows every article's content: its images are the articles'.
    check = run_sitemapkit("check", str(out), "--base-url", BASE)
    assert check.returncode == 0, check.stdout + check.stderr
