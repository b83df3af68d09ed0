"""``sitemapkit check`` on Hugo's own sitemaps and on ours, of the same real Hugo
build (fixtures/hugo, in git with a commit a day): Hugo's language sitemaps list
URLs outside their folder (an error) and leave its pagination unlisted (a
warning); ours of the same site has no error finding."""

from __future__ import annotations

import json

from conftest import run_sitemapkit
from hugo.conftest import run_hugo

BASE = "https://example.org/"


def audit(public) -> dict:
    done = run_sitemapkit("check", str(public), "--base-url", BASE, "--format", "json")
    data = json.loads(done.stdout)
    assert done.returncode == (1 if data["failed"] else 0), done.stderr
    return data


def kinds(data: dict) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for finding in data["findings"]:
        found.setdefault(finding["kind"], set()).add(finding["url"])
    return found


def test_hugos_sitemaps_and_ours(project):
    run_hugo(project)
    theirs = audit(project / "public")
    assert theirs["problems"] == [] and theirs["failed"]
    found = kinds(theirs)
    # The default language's sitemap is en/sitemap.xml, and it lists the root's pages.
    assert BASE + "posts/first/" in found["out-of-folder"] and BASE in found["out-of-folder"]
    assert not any(url.startswith((BASE + "fr/", BASE + "de/")) for url in found["out-of-folder"])
    # Hugo's sitemap leaves out its pagination, which is served and indexable.
    assert {BASE + "page/2/", BASE + "posts/page/2/"} <= found["unlisted"]
    assert set(found) == {"out-of-folder", "unlisted"}, found

    done = run_sitemapkit("build", "--config", "hugo.toml", cwd=project)
    assert done.returncode == 0, done.stderr
    ours = audit(project / "public")
    assert ours["problems"] == [] and not ours["failed"]
    # Left: the pages whose front matter (or a cascade above them) says
    # sitemap.disable or build.list, which no rule of the built folder can see
    # (a warning, not an error).
    unlisted = {"posts/hidden/", "posts/unlisted/", "posts/local/", "archive/", "archive/one/", "archive/old/"}
    unlisted.add("2023/03/quiet/")  # journal/quiet.md, where its permalink moved it
    assert kinds(ours) == {"unlisted": {BASE + path for path in unlisted}}
