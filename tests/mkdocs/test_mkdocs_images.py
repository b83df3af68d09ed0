"""Image entries from real MkDocs builds with Material (issue 23): Markdown images,
a figure with its caption, lazy-loaded and srcset images, a CDN image; the theme's
logo (in its header and navigation, on every page) is chrome, told apart by
Material's content element alone (three pages: too few for the frequency rule);
a banner a template override puts in that element is not the pages' either: the
plugin hands each page's own content (page.content), and its images are read
from that."""

from __future__ import annotations

import shutil

import pytest
from pathlib import Path

from conftest import run_sitemapkit, sitemap_entries

from .conftest import Project, committed_copy

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "images" / "mkdocs"
BASE = "https://docs.example.org/"


def test_material_pages_list_their_content_images_and_not_the_logo(tmp_path: Path) -> None:
    project = Project(committed_copy(FIXTURE, tmp_path / "project"))
    built = project.cli("build", "--strict")
    assert built.returncode == 0, built.stderr
    site = project.site
    assert "assets/logo.png" in (site / "plain" / "index.html").read_text()
    # The override's banner sits in Material's content element, beside each page's
    # content: listed on none (the images are read from page.content).
    assert '<article class="md-content__inner md-typeset">' in (site / "index.html").read_text()
    assert "assets/banner.png" in (site / "plain" / "index.html").read_text().split("md-content__inner")[1]
    # A noindex past the first 4 KB of a long head (the override's preloads): left out.
    hidden = (site / "hidden" / "index.html").read_bytes()
    assert hidden.index(b'<meta name="robots" content="noindex">') > 4_096
    entries = sitemap_entries(site)  # the image schema (strict) and ultimate-sitemap-parser
    images = {loc: entry.get("images", []) for loc, entry in entries.items()}
    assert images == {
        BASE: [BASE + "img/diagram.png", BASE + "img/figure.png"],
        BASE + "guide/": [
            BASE + "img/lazy.png",
            BASE + "img/large.png",  # the srcset's largest candidate
            "https://cdn.example.net/remote.png",
        ],  # the data: URI is not listed
        BASE + "plain/": [],
    }
    assert "3 URLs, 5 images in" in built.stderr + built.stdout
    check = run_sitemapkit("check", str(site), "--base-url", BASE)
    assert check.returncode == 0, check.stdout + check.stderr


def test_images_false_and_image_hosts(tmp_path: Path) -> None:
    project = Project(committed_copy(FIXTURE, tmp_path / "project"))
    project.configure(sitemapkit={"images": True, "image_hosts": ["docs.example.org"]})
    project.build()
    images = {loc: entry.get("images", []) for loc, entry in sitemap_entries(project.site).items()}
    assert images[BASE + "guide/"] == [BASE + "img/lazy.png", BASE + "img/large.png"]
    project.configure(sitemapkit={"images": False})
    project.build()
    assert b"image" not in (project.site / "sitemap.xml").read_bytes()


def test_a_page_too_long_for_a_file_is_left_out_and_its_images_are_not_counted(tmp_path: Path) -> None:
    # A gallery whose entry, with its twelve images (on the CDN), is too long for
    # the smallest file: left out, and the report's images by host count only
    # the images listed.
    root = tmp_path / "project"
    shutil.copytree(FIXTURE, root)
    gallery = "".join(
        f"![shot {n}](https://cdn.example.net/gallery/shot-{n:02d}-of-the-gallery.png)\n\n" for n in range(12)
    )
    (root / "docs" / "gallery.md").write_text("# Gallery\n\n" + gallery)
    project = Project(committed_copy(root, tmp_path / "committed"))
    project.configure(sitemapkit={"images": True, "max_bytes": 1024, "report_file": "report.txt"})
    project.build()
    assert "shot-11-of-the-gallery.png" in (project.site / "gallery" / "index.html").read_text()
    entries = sitemap_entries(project.site)
    assert BASE + "gallery/" not in entries and entries[BASE]["images"]
    report = (project.site / "report.txt").read_text()
    assert "excluded (too long): gallery/\n" in report, report
    # The guide's one CDN image; the home page's and the guide's own two each.
    hosts = [line for line in report.splitlines() if line.startswith("images on host")]
    assert hosts == ["images on host cdn.example.net: 1", "images on host docs.example.org: 4"], report


@pytest.mark.parametrize("theme", ["mkdocs", "readthedocs"])
def test_mkdocs_own_themes_and_the_built_pages_read_again(tmp_path: Path, theme: str) -> None:
    # MkDocs' two themes: the plugin reads each page's content; `sitemapkit build`
    # (Zensical's and ProperDocs' users, a site published as a folder) reads the
    # built pages, where each theme's content element (a div with role="main")
    # tells the readthedocs theme's logo, in its side navigation on every page,
    # from the pages' images. Three pages: too few for the frequency rule.
    project = Project(committed_copy(FIXTURE, tmp_path / "project"))
    project.configure(theme={"name": theme, "logo": "assets/logo.png"})
    built = project.cli("build", "--strict")
    assert built.returncode == 0, built.stderr
    shown = {loc: entry.get("images", []) for loc, entry in sitemap_entries(project.site).items()}
    assert shown[BASE] == [BASE + "img/diagram.png", BASE + "img/figure.png"]
    assert shown[BASE + "guide/"] == [
        BASE + "img/lazy.png",
        BASE + "img/large.png",
        "https://cdn.example.net/remote.png",
    ]
    assert shown[BASE + "plain/"] == []
    if theme == "readthedocs":
        assert 'class="logo"' in (project.site / "plain" / "index.html").read_text()
    again = run_sitemapkit("build", str(project.site), "--base-url", BASE, "--images", "--lastmod", "none")
    assert again.returncode == 0, again.stderr
    assert {loc: entry.get("images", []) for loc, entry in sitemap_entries(project.site).items()} == shown
