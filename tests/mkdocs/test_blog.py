"""Material's blog plugin, built for real (fixtures/mkdocs-blog): posts keep their
own dates; the listing pages it makes are dated by the newest post they show."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import FIXTURES, assert_every_page_accounted, sitemap_entries, run_sitemapkit

from .conftest import Project, committed_copy

BASE = "https://blog.example.org/"


@pytest.fixture
def blog(tmp_path: Path) -> Project:
    return Project(committed_copy(FIXTURES / "mkdocs-blog", tmp_path / "project"))


def test_listings_are_dated_by_the_newest_post_they_show(blog):
    blog.configure(sitemapkit={"report_file": "report.txt"})
    site = blog.build()
    dates = {loc[len(BASE) :]: fields["lastmod"][:10] for loc, fields in sitemap_entries(site).items()}
    assert dates == {
        "": "2020-05-01",  # index.md: its commit
        # Posts: date.updated when given, else date.created.
        "blog/2023/03/01/first-post/": "2023-03-01",
        "blog/2023/11/20/second-post/": "2023-11-20",
        "blog/2024/02/10/third-post/": "2024-08-15",
        "blog/2024/05/05/fourth-post/": "2024-05-05",
        "blog/2024/06/30/fifth-post/": "2024-06-30",
        # Two posts a page, newest created first: fifth and fourth, third and
        # second, first; each page as new as the newest of its posts.
        "blog/": "2024-06-30",
        "blog/page/2/": "2024-08-15",
        "blog/page/3/": "2023-03-01",
        "blog/archive/2023/": "2023-11-20",
        "blog/archive/2024/": "2024-06-30",
        "blog/archive/2024/page/2/": "2024-08-15",
        "blog/category/news/": "2024-05-05",
        "blog/category/news/page/2/": "2023-03-01",
        "blog/category/releases/": "2024-08-15",
    }
    assert assert_every_page_accounted(site, BASE, (site / "report.txt").read_text()) == {"404.html": "error page"}
    check = run_sitemapkit("check", str(site), "--base-url", BASE)
    assert check.returncode == 0, check.stdout + check.stderr


def test_text_format_still_leaves_the_sitemap_xml_material_reads(blog):
    """Instant navigation and mike's version selector fetch sitemap.xml."""
    blog.configure(sitemapkit={"format": "txt"})
    site = blog.build()
    text = (site / "sitemap.txt").read_text().split()
    assert sorted(sitemap_entries(site)) == sorted(text)
    assert len(text) == 15
