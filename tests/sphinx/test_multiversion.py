"""Versioned Sphinx docs with the real sphinx-multiversion (it needs Sphinx < 9:
the sphinx-oldest environment) and sphinx-polyversion: a project at git tags,
each version built from its git archive copy, then `sitemapkit versions` on the
output."""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import assert_valid, git, git_env, run_sitemapkit, sitemap_entries, usp_pages

BASE = "https://docs.example.org/"
START = dt.datetime(2023, 5, 1, 9, 30, tzinfo=dt.timezone.utc)
CONF = """\
project = "Versioned"
extensions = ["sphinx_multiversion", "sitemapkit.plugins.sphinx"]
html_baseurl = "https://docs.example.org/"
smv_tag_whitelist = r"^v\\d"
smv_branch_whitelist = r"^$"
smv_remote_whitelist = None
"""


def commit(root: Path, when: dt.datetime, files: dict[str, str], tag: str | None = None) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", f"at {when}", when=when)
    if tag:
        git(root, "tag", tag)


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Path, subprocess.CompletedProcess]:
    pytest.importorskip("sphinx_multiversion")  # needs Sphinx < 9: the sphinx-oldest environment
    root = tmp_path_factory.mktemp("smv") / "project"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    day = dt.timedelta(days=1)
    commit(
        root,
        START,
        {
            "docs/conf.py": CONF,
            "docs/index.rst": "Home\n====\n\n.. toctree::\n\n   guide\n",
            "docs/guide.rst": "Guide\n=====\n\nOne.\n",
        },
        "v1.0",
    )
    commit(root, START + 10 * day, {"docs/guide.rst": "Guide\n=====\n\nTwo.\n"}, "v1.1")
    commit(root, START + 20 * day, {"docs/index.rst": "Home\n====\n\nNew.\n\n.. toctree::\n\n   guide\n"}, "v2.0")
    # A later commit on main, after every tag: no version's page is dated by it.
    commit(root, START + 30 * day, {"docs/guide.rst": "Guide\n=====\n\nThree.\n"})
    done = subprocess.run(
        [sys.executable, "-m", "sphinx_multiversion", "docs", "out", "-W"],
        cwd=root,
        env=git_env(),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return root / "out", done


def test_each_version_lists_its_pages_where_served_dated_by_its_tag(built):
    out, done = built
    # -W: no warning in any version's build.
    assert "warning" not in done.stderr.lower()
    expected = {
        "v1.0": {"index.html": START, "guide.html": START},
        "v1.1": {"index.html": START, "guide.html": START + dt.timedelta(days=10)},
        "v2.0": {"index.html": START + dt.timedelta(days=20), "guide.html": START + dt.timedelta(days=10)},
    }
    for version, pages in expected.items():
        entries = sitemap_entries(out / version)
        listed = {loc: entries[loc]["lastmod"] for loc in entries}
        assert listed == {f"{BASE}{version}/{name}": when.isoformat() for name, when in pages.items()} | {
            f"{BASE}{version}/genindex.html": listed.get(f"{BASE}{version}/genindex.html")
        }
        assert not (out / version / "robots.txt").exists()
    assert "sphinx-multiversion v2.0: pages listed at https://docs.example.org/v2.0/" in done.stdout + done.stderr


def test_root_index_over_the_versions(built):
    out, _ = built
    own = {v: (out / v / "sitemap.xml").read_bytes() for v in ("v1.0", "v1.1", "v2.0")}
    done = run_sitemapkit("versions", str(out), "--base-url", BASE)
    assert done.returncode == 0, done.stderr
    assert "the pages of v2.0, the newest release" in done.stdout
    # html_baseurl without the version folder: Sphinx's canonical links name no
    # page of a version; said once, the pages listed under their own URLs.
    assert len(done.stderr.splitlines()) == 1 and "name no page of a version" in done.stderr
    data = (out / "sitemap.xml").read_bytes()
    assert_valid(data)
    assert sorted(usp_pages(data)) == [f"{BASE}v2.0/{name}" for name in ("genindex.html", "guide.html", "index.html")]
    assert (out / "robots.txt").read_text().splitlines()[-1] == f"Sitemap: {BASE}sitemap.xml"
    for version, data in own.items():
        assert (out / version / "sitemap.xml").read_bytes() == data
        assert all(url.startswith(f"{BASE}{version}/") for url in usp_pages(data))
    done = run_sitemapkit("versions", str(out), "--base-url", BASE, "--all-versions")
    assert done.returncode == 0, done.stderr
    assert_valid(out / "sitemap.xml")
    assert b"v1.0/sitemap.xml" in (out / "sitemap.xml").read_bytes()


# sphinx-polyversion's configuration script: each tag's docs built with
# sphinx-build in this environment (no per-version virtual environment).
POLY = """\
from pathlib import Path
from sphinx_polyversion.driver import DefaultDriver
from sphinx_polyversion.environment import Environment
from sphinx_polyversion.git import Git, file_predicate
from sphinx_polyversion.sphinx import SphinxBuilder

root = Git.root(Path(__file__).parent)
DefaultDriver(
    root,
    "poly-out",
    vcs=Git(branch_regex=r"^$", tag_regex=r"v[\\d.]+", predicate=file_predicate([Path("docs")])),
    builder=SphinxBuilder(Path("docs"), args=["-W"]),
    env=Environment.factory(),
).run(False, True)
"""
POLY_CONF = """\
from sphinx_polyversion.api import load

load(globals())
project = "Versioned"
extensions = ["sitemapkit.plugins.sphinx"]
html_baseurl = "https://docs.example.org/"
"""


def test_sphinx_polyversion_versions_listed_where_served_undated_without_warnings(tmp_path):
    pytest.importorskip("sphinx_polyversion")
    root = tmp_path / "project"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    page = {"docs/index.rst": "Home\n====\n\nText.\n"}
    commit(root, START, {"docs/conf.py": POLY_CONF, "poly.py": POLY, **page}, "v1.0")
    commit(root, START + dt.timedelta(days=5), {"docs/index.rst": "Home\n====\n\nMore.\n"}, "v2.0")
    env = git_env()
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env['PATH']}"
    done = subprocess.run([sys.executable, "poly.py"], cwd=root, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    out = root / "poly-out"
    for version in ("v1.0", "v2.0"):
        entries = sitemap_entries(out / version)
        # Built from an archive whose repository the tool does not name: undated,
        # and no warning (-W passed).
        assert entries == {
            f"{BASE}{version}/{name}": {"lastmod": None, "alternates": []} for name in ("genindex.html", "index.html")
        }
        assert not (out / version / "robots.txt").exists()
    done = run_sitemapkit("versions", str(out), "--base-url", BASE)
    assert done.returncode == 0, done.stderr
    assert "the pages of v2.0, the newest release" in done.stdout
    assert sorted(usp_pages((out / "sitemap.xml").read_bytes())) == [
        f"{BASE}v2.0/genindex.html",
        f"{BASE}v2.0/index.html",
    ]
