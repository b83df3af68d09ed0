"""``sitemapkit check`` on pelican-sitemap's real sitemap of fixtures/pelican, and on
ours of the same project (both built by the real Pelican, in git): pelican-sitemap's
is not well-formed XML and lists a noindex page; ours has no error finding."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from conftest import check_audit

from .conftest import Site, copy_fixture

BASE = "https://example.org/blog/"
IMAGES_FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "images" / "pelican"


def audit(output: Path) -> tuple[list[str], dict[str, set[str]], bool]:
    return check_audit(output, BASE)


def test_pelican_sitemap_and_ours(tmp_path: Path):
    pytest.importorskip("pelican.plugins.sitemap")  # tests/tasks.py's pelican environment has it
    (tmp_path / "theirs").mkdir()
    # Built by the pelican command, in a process of its own: a plugin registered
    # in this one would stay connected to Pelican's signals for every later build.
    site = copy_fixture(tmp_path / "theirs")
    site.config_file = site.root / "theirsconf.py"
    site.config_file.write_text(
        'import sys\nsys.path.insert(0, ".")\nfrom pelicanconf import *\n'
        'PLUGINS = ["pelican.plugins.sitemap"]\nSITEMAP = {"format": "xml"}\n'
    )
    done = site.cli()
    assert done.returncode == 0, done.stdout + done.stderr
    theirs = site.output
    problems, found, failed = audit(theirs)
    # Its raw "&" (a page's title in a URL) ends the XML there; what it listed
    # before that includes a noindex page. Which pages it leaves unlisted is not
    # said of a sitemap that could not be read whole.
    assert problems == ["not well-formed XML: not well-formed (invalid token)"]
    assert (found, failed) == ({"noindex": {BASE + "2024/quiet/"}}, True)

    (tmp_path / "ours").mkdir()
    ours = copy_fixture(tmp_path / "ours").build()
    problems, found, failed = audit(ours)
    assert (problems, failed) == ([], False)
    # Warnings: pages the adapter leaves out by what only Pelican knows (drafts,
    # hidden and `Sitemap: false` metadata, a static verification file).
    assert found == {
        "unlisted": {
            BASE + "2024/unlisted/",
            BASE + "2024/hidden-article/",
            BASE + "drafts/work-in-progress.html",
            BASE + "drafts/pages/upcoming.html",
            BASE + "google0123456789abcdef.html",
            BASE + "pages/contact.html",
        }
    }, found


def test_a_small_blog_built_outside_git_has_no_build_clock(tmp_path: Path):
    # Its dates are its articles' metadata; its listings (index, archives,
    # category, tag and author pages), each dated by the newest article shown,
    # outnumber the articles: most URLs share that one date, written years
    # before the build. No clock of the build that wrote the sitemap.
    root = tmp_path / "blog"
    shutil.copytree(IMAGES_FIXTURE, root)  # not in git: no history to hold the dates against
    out = Site(root, tmp_path).build()
    lastmods = re.findall(r"<lastmod>([^<]+)</lastmod>", (out / "sitemap.xml").read_text())
    newest = max(lastmods)
    assert newest.startswith("2024-01-04") and lastmods.count(newest) * 2 > len(lastmods) >= 5
    problems, found, failed = audit(out)
    assert (problems, failed) == ([], False)
    assert "batch-lastmod" not in found, found
