"""``sitemapkit check`` on jekyll-sitemap's real sitemap of fixtures/jekyll (Debian's
Jekyll 4.3 and jekyll-sitemap, in git with a commit a day), and on ours of the
same build: both valid, no error finding; jekyll-sitemap's post dates (from their
file names) are older than the site's history, a warning."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import run_sitemapkit

from .test_jekyll_build import BASE, project

__all__ = ["project"]  # the fixture, shared with test_jekyll_build


def audit(site: Path) -> tuple[dict[str, set[str]], bool]:
    done = run_sitemapkit("check", str(site), "--base-url", BASE, "--format", "json")
    data = json.loads(done.stdout)
    assert data["problems"] == [], data["problems"]
    assert done.returncode == (1 if data["failed"] else 0), done.stderr
    found: dict[str, set[str]] = {}
    for finding in data["findings"]:
        found.setdefault(finding["kind"], set()).add(finding["url"])
    return found, data["failed"]


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
