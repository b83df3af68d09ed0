"""Image entries from real Pelican builds with notmyidea (issue 23): article
images, a CDN image, and the og:image the theme's article template writes; the
author's avatar the theme's post info shows beside each article's content, in its
content element, is no article's image: the adapter hands each article's own
content (its ``content`` as the file shows it), and its images are read from that."""

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
    # The avatar, in the article's content element.
    shown = (out / "third" / "index.html").read_text().split('<div class="entry-content">')[1]
    assert f'<img class="avatar" src="{BASE}images/avatar.png"' in shown
    entries = sitemap_entries(out)  # the image schema (strict) and ultimate-sitemap-parser
    images = {loc: entry["images"] for loc, entry in entries.items() if "images" in entry}
    assert images[BASE + "first/"] == [BASE + "images/cover.png", BASE + "images/diagram.png"]
    assert images[BASE + "second/"] == [BASE + "images/second.png", "https://cdn.example.net/remote.png"]
    assert BASE + "third/" not in images
    # A listing is read whole: the articles' images it shows, and the avatar
    # (on too few pages to be the site's chrome).
    assert images[BASE] == [
        BASE + "images/avatar.png",
        BASE + "images/second.png",
        "https://cdn.example.net/remote.png",
        BASE + "images/diagram.png",
    ]
    check = run_sitemapkit("check", str(out), "--base-url", BASE)
    assert check.returncode == 0, check.stdout + check.stderr


def test_relative_urls_resolve_against_each_article(tmp_path: Path) -> None:
    # With RELATIVE_URLS each file's links are relative to it ("../../images/..."
    # from 2024/first/, "../" from the author page Pelican writes last): the
    # content handed is the one that very file shows, not the rendering for
    # whichever file Pelican wrote last.
    out = fixture_site(tmp_path).build(
        RELATIVE_URLS=True, ARTICLE_URL="{date:%Y}/{slug}/", ARTICLE_SAVE_AS="{date:%Y}/{slug}/index.html"
    )
    assert 'src="../../images/diagram.png"' in (out / "2024" / "first" / "index.html").read_text()
    images = {loc: entry.get("images", []) for loc, entry in sitemap_entries(out).items()}
    assert images[BASE + "2024/first/"] == [BASE + "images/cover.png", BASE + "images/diagram.png"]
    assert images[BASE + "2024/second/"] == [BASE + "images/second.png", "https://cdn.example.net/remote.png"]
