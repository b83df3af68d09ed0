"""``sitemapkit check`` on jekyll-sitemap's real sitemap of fixtures/jekyll (Debian's
Jekyll 4.3 and jekyll-sitemap, in git with a commit a day), and on ours of the
same build: both valid, no error finding; jekyll-sitemap's post dates (from their
file names) are older than the site's history, a warning."""

from __future__ import annotations

from pathlib import Path

from conftest import check_audit, run_sitemapkit

from .test_jekyll_build import BASE, project

__all__ = ["project"]  # the fixture, shared with test_jekyll_build


def audit(site: Path) -> tuple[dict[str, set[str]], bool]:
    problems, found, failed = check_audit(site, BASE)
    assert problems == [], problems
    return found, failed


#: The pages whose front matter says ``sitemap: false``: no rule of the built
#: folder sees it, so they are unlisted pages (warnings) under either sitemap.
HIDDEN = {BASE + "hidden.html", BASE + "cooking/mains/stew/"}
#: Posts dated by their file names (2020-2022), before the fixture's first commit.
POSTS = {
    BASE + "news/2021/03/04/first-post.html",
    BASE + "2021/05/06/second.html",
    BASE + "blog/2022/02/03/in-blog.html",
    BASE + "contact.html",
}


def test_jekyll_sitemap_and_ours(project):
    root, _ = project
    found, failed = audit(root / "_site")
    assert (found, failed) == ({"unlisted": HIDDEN, "before-history": POSTS}, False)

    done = run_sitemapkit("build", "--config", "_config.yml", cwd=root)
    assert done.returncode == 0, done.stderr
    found, failed = audit(root / "_site")
    assert (found, failed) == ({"unlisted": HIDDEN, "before-history": POSTS}, False)
