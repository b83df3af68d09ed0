"""Versioned docs with the real mike: `mike deploy` into a real gh-pages branch,
then `sitemapkit versions` on a checkout of it.

A test project at 1.0, 1.1 and 2.0 (alias latest), deployed with each alias_type,
with and without mike's canonical_version: latest; then 2.1 becomes latest.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from conftest import assert_valid, git, git_env, run_sitemapkit, sitemap_entries, usp_pages

BASE = "https://docs.example.org/"
# mike builds with ProperDocs whenever it is installed (mkdocs-redirects pulls it
# in); the versioned project is built with MkDocs itself, as mike does without it.
MIKE = [
    sys.executable,
    "-c",
    "import sys, mike.mkdocs_utils as tool; tool._program_name = 'mkdocs'; from mike.driver import main; "
    "sys.argv[0] = 'mike'; sys.exit(main())",
]
START = dt.datetime(2024, 3, 1, 12, 0, tzinfo=dt.timezone.utc)
# Pages each version has: 2.0 adds a page, 1.x has one 2.0 dropped.
PAGES = {
    "1.0": ["index.md", "guide.md", "old.md"],
    "1.1": ["index.md", "guide.md", "old.md"],
    "2.0": ["index.md", "guide.md", "new.md"],
    "2.1": ["index.md", "guide.md", "new.md", "newer.md"],
}


class MikeProject:
    def __init__(self, root: Path, alias_type: str, canonical_version: str | None, mike_first: bool = False) -> None:
        self.root = root
        self.alias_type = alias_type
        self.canonical_version = canonical_version
        self.mike_first = mike_first
        self.deploys = 0
        root.mkdir()
        git(root, "init", "-q", "-b", "main")

    def write(self, version: str) -> None:
        mike: dict = {"alias_type": self.alias_type}
        if self.canonical_version:
            mike["canonical_version"] = self.canonical_version
        plugins = (
            ["search", {"mike": mike}, "sitemapkit"] if self.mike_first else ["search", "sitemapkit", {"mike": mike}]
        )
        config = {
            "site_name": "Versioned",
            "site_url": BASE,
            "theme": {"name": "material"},
            "plugins": plugins,
            "extra": {"version": {"provider": "mike"}},
        }
        (self.root / "mkdocs.yml").write_text(yaml.safe_dump(config, sort_keys=False))
        docs = self.root / "docs"
        shutil.rmtree(docs, ignore_errors=True)
        docs.mkdir()
        for name in PAGES[version]:
            (docs / name).write_text(f"# {name[:-3].title()} {version}\n\nText of {version}.\n")

    def deploy(self, version: str, *aliases: str, update: bool = False) -> subprocess.CompletedProcess:
        self.write(version)
        when = START + dt.timedelta(days=30 * self.deploys)
        self.deploys += 1
        git(self.root, "add", "-A")
        git(self.root, "commit", "-q", "-m", f"release {version}", when=when)
        env = git_env(when)
        env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env['PATH']}"
        args = [*MIKE, "deploy", version, *aliases] + (["--update-aliases"] if update else [])
        done = subprocess.run(args, cwd=self.root, env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        return done

    def checkout(self, folder: Path) -> Path:
        """gh-pages as a web server serves it: a checkout of the branch (symlinks kept)."""
        if folder.exists():
            git(self.root, "worktree", "remove", "--force", str(folder))
        git(self.root, "worktree", "add", "-q", "--detach", str(folder), "gh-pages")
        return folder


def versions(root: Path, *args: str) -> subprocess.CompletedProcess:
    return run_sitemapkit("versions", str(root), "--base-url", BASE, *args, timeout=120)


def root_files(root: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in root.iterdir() if p.is_file() and not p.is_symlink()}


@pytest.fixture(scope="module")
def deployed(tmp_path_factory) -> dict:
    """Each alias_type, with and without canonical_version: latest: 1.0, 1.1, 2.0 latest."""
    made = {}
    for alias_type in ("symlink", "copy", "redirect"):
        for canonical in (None, "latest"):
            base = tmp_path_factory.mktemp(f"{alias_type}-{canonical}")
            project = MikeProject(base / "project", alias_type, canonical, mike_first=alias_type == "copy")
            project.deploy("1.0")
            project.deploy("1.1")
            done = project.deploy("2.0", "latest")
            made[alias_type, canonical] = (project, done)
    return made


def served_page(root: Path, url: str) -> Path:
    below = url[len(BASE) :]
    return root / (below + "index.html" if below.endswith("/") or not below else below)


@pytest.mark.parametrize("alias_type", ["symlink", "copy", "redirect"])
@pytest.mark.parametrize("canonical", [None, "latest"])
def test_root_lists_one_copy_of_each_page_under_its_canonical_url(deployed, tmp_path, alias_type, canonical):
    from sitemapkit.site.htmlcheck import inspect_built_page

    project, _ = deployed[alias_type, canonical]
    root = project.checkout(tmp_path / "gh-pages")
    own = {v: (root / v / "sitemap.xml").read_bytes() for v in ("1.0", "1.1", "2.0")}
    done = versions(root)
    assert done.returncode == 0, done.stderr
    entries = sitemap_entries(root)
    # With canonical_version: latest the pages name /latest/ as canonical; without,
    # latest is an alias and the version's own URLs are the canonical ones.
    prefix = BASE + ("latest/" if canonical else "2.0/")
    assert sorted(entries) == sorted(prefix + p for p in ["", "guide/", "new/"])
    assert all(entries[loc]["lastmod"] for loc in entries)
    assert (root / "robots.txt").read_text().splitlines()[-1] == f"Sitemap: {BASE}sitemap.xml"
    loops = canonical == "latest" and alias_type == "redirect"
    for loc in entries:
        facts = inspect_built_page(served_page(root, loc), loc)
        if loops:
            # The one exception: the alias's stubs lead back to 2.0; said in one warning.
            assert facts.reason == "redirect"
        else:
            assert facts.reason is None and facts.canonical_target is None, loc
    warnings = [line for line in done.stderr.splitlines() if "warning" in line]
    if loops:
        assert len(warnings) == 1 and "loop" in warnings[0] and "alias_type: symlink or copy" in warnings[0]
    else:
        assert warnings == []
    # The version folders are left as they were: each version's own urlset of its
    # pages at the URLs they are served at (Material's version selector reads it).
    for version, data in own.items():
        assert (root / version / "sitemap.xml").read_bytes() == data
        assert_valid(data)
        pages = usp_pages(data)
        assert pages and all(url.startswith(f"{BASE}{version}/") for url in pages)
        assert not (root / version / "robots.txt").exists()
    # Nothing but the root files was added; non-version files left alone.
    assert sorted(p.name for p in root.iterdir() if p.is_file()) == [
        ".git",
        ".nojekyll",
        "robots.txt",
        "sitemap.xml",
        "versions.json",
    ]


def test_version_sitemaps_list_served_urls_whatever_canonical_version_did(deployed):
    """mike listed after sitemapkit (symlink fixtures) and before it (copy fixtures)."""
    for (alias_type, canonical), (project, done) in deployed.items():
        data = subprocess.run(
            ["git", "show", "gh-pages:2.0/sitemap.xml"], cwd=project.root, capture_output=True, check=True
        ).stdout
        assert usp_pages(data) == [f"{BASE}2.0/", f"{BASE}2.0/guide/", f"{BASE}2.0/new/"], (alias_type, canonical)
        assert "mike deploy 2.0: pages listed at https://docs.example.org/2.0/" in done.stderr + done.stdout
        if canonical:
            assert "their canonical links name https://docs.example.org/latest/" in done.stderr + done.stdout


def test_default_alias_without_canonical_version(deployed, tmp_path):
    project, _ = deployed["symlink", None]
    env = git_env()
    subprocess.run([*MIKE, "set-default", "latest"], cwd=project.root, env=env, check=True, capture_output=True)
    try:
        root = project.checkout(tmp_path / "gh-pages")
        done = versions(root)
        assert done.returncode == 0, done.stderr
        assert "the default the root index.html redirects to" in done.stdout
        assert sorted(sitemap_entries(root)) == [BASE + "2.0/", BASE + "2.0/guide/", BASE + "2.0/new/"]
    finally:
        git(project.root, "update-ref", "gh-pages", "gh-pages~1")


def test_canonical_flag_and_all_versions(deployed, tmp_path):
    project, _ = deployed["symlink", None]
    root = project.checkout(tmp_path / "gh-pages")
    done = versions(root, "--canonical", "1.0")
    assert done.returncode == 0, done.stderr
    assert sorted(sitemap_entries(root)) == [BASE + "1.0/", BASE + "1.0/guide/", BASE + "1.0/old/"]
    done = versions(root, "--all-versions")
    assert done.returncode == 0, done.stderr
    data = (root / "sitemap.xml").read_bytes()
    assert_valid(data)
    assert b"<sitemapindex" in data
    assert sorted(re.findall(rb"<loc>([^<]*)</loc>", data)) == [
        f"{BASE}{v}/sitemap.xml".encode() for v in ("1.0", "1.1", "2.0")
    ]
    # Through the index, every version's own pages (and no alias's).
    assert sorted(sitemap_entries(root / "1.0")) == [BASE + "1.0/" + p for p in ["", "guide/", "old/"]]


@pytest.mark.parametrize(
    # Not redirect with canonical_version: its alias's stubs lead back (a loop
    # sitemapkit versions warns of; see the first test).
    ("alias_type", "canonical"),
    [("symlink", None), ("copy", None), ("redirect", None), ("symlink", "latest"), ("copy", "latest")],
)
def test_check_of_the_root_tells_other_versions_from_unlisted_pages(deployed, tmp_path, alias_type, canonical):
    """``sitemapkit check`` of the root: the older versions' pages, which the root
    sitemap leaves to their own sitemaps on purpose, are one note, not a warning
    each; a page the root serves that no sitemap lists is still one."""
    project, _ = deployed[alias_type, canonical]
    root = project.checkout(tmp_path / "gh-pages")
    assert versions(root).returncode == 0
    (root / "extra.html").write_text("<!doctype html><title>Extra</title><p>Not in any sitemap.</p>")
    done = run_sitemapkit("check", str(root), "--base-url", BASE)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert [line for line in lines if line.startswith(("warning", "error"))] == [
        f"warning unlisted: {BASE}extra.html: a page of the site that no sitemap lists and no rule leaves out"
    ]
    # 1.0's and 1.1's three pages each; with canonical_version, only old/ of each:
    # the others name /latest/'s as canonical (left out), but latest/ has no old/.
    held = 2 if canonical else 6
    notes = [line for line in lines if line.startswith("note:")]
    assert notes == [
        f"note: 1.0/, 1.1/: {held} pages of versions the sitemaps read do not list, each version listed by its "
        "own sitemap.xml (a versioned site's root sitemap lists one copy of each page; sitemapkit versions "
        "--all-versions lists every version's)"
    ]
    assert lines[-1] == "sitemapkit check: 3 URLs in 1 file; no problems; findings: 0 errors, 1 warning"
    if canonical:
        return  # sitemapkit versions refuses --all-versions under canonical_version (a later test)
    # With every version listed (an index of their own sitemaps), nothing is held back.
    assert versions(root, "--all-versions").returncode == 0
    done = run_sitemapkit("check", str(root), "--base-url", BASE, "--format", "json")
    report = json.loads(done.stdout)
    assert report["notes"] == [] and [f["url"] for f in report["findings"]] == [BASE + "extra.html"]


def test_a_further_deploy_moves_the_root_and_leaves_no_stale_file(tmp_path):
    project = MikeProject(tmp_path / "project", "symlink", "latest")
    project.deploy("1.0")
    project.deploy("2.0", "latest")
    root = project.checkout(tmp_path / "gh-pages")
    assert versions(root, "--max-urls", "2").returncode == 2  # not an option of versions
    assert versions(root).returncode == 0
    first = root_files(root)
    project.deploy("2.1", "latest", update=True)
    # The served folder is updated in place (git pull), the root files kept.
    git(root, "checkout", "-q", "--detach", "gh-pages")
    assert root_files(root)["sitemap.xml"] == first["sitemap.xml"]
    done = versions(root)
    assert done.returncode == 0, done.stderr
    assert "the pages of 2.1 (as latest)" in done.stdout
    entries = sitemap_entries(root)
    assert sorted(entries) == [BASE + "latest/" + p for p in ["", "guide/", "new/", "newer/"]]
    assert sorted(root_files(root)) == sorted(first)  # no stale root file
    assert json.loads((root / "versions.json").read_text())[0]["aliases"] == ["latest"]


def test_odd_inputs_are_one_line_and_nothing_written(deployed, tmp_path):
    project, _ = deployed["symlink", "latest"]
    root = project.checkout(tmp_path / "gh-pages")
    assert versions(root).returncode == 0
    before = root_files(root)

    def refused(*args: str, root: Path = root) -> str:
        done = versions(root, *args)
        assert done.returncode == 2, done.stdout
        lines = done.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith("sitemapkit: error: "), done.stderr
        after = root_files(tmp_path / "gh-pages")
        assert [after.get(name) for name in ("sitemap.xml", "robots.txt")] == [
            before["sitemap.xml"],
            before["robots.txt"],
        ]
        return lines[0]

    assert "--canonical: '3.0' names no version or alias" in refused("--canonical", "3.0")
    # An alias is another version's pages again; canonical_version makes every
    # other version's URLs duplicates of the canonical one's.
    assert "--versions: 'latest' is an alias of '2.0' (versions.json)" in refused("--versions", "1.0,2.0,latest")
    assert "--all-versions: the pages' canonical links name latest/ (mike's canonical_version)" in refused(
        "--all-versions"
    )
    assert "is a version folder itself" in refused(root=root / "2.0")
    (root / "1.1" / "sitemap.xml").rename(root / "1.1" / "moved.xml")
    assert "version '1.1' (versions.json) has no sitemap.xml" in refused()
    (root / "1.1" / "moved.xml").rename(root / "1.1" / "sitemap.xml")
    (root / "latest").unlink()
    assert "alias 'latest' of version '2.0' (versions.json) points nowhere" in refused()
    (root / "latest").symlink_to("2.0")
    (root / "versions.json").write_text("[{")
    assert "versions.json' is not JSON" in refused()
    (root / "versions.json").unlink()
    # Without versions.json: the folders holding a sitemap sitemapkit wrote.
    assert "--versions: " in refused("--versions", "..")
    assert "version '0.9' (--versions) has no folder" in refused("--versions", "0.9,2.0")
    done = versions(root)
    assert done.returncode == 0, done.stderr
    assert sorted(sitemap_entries(root)) == [BASE + "latest/" + p for p in ["", "guide/", "new/"]]


def test_a_killed_run_leaves_the_root_files_whole(deployed, tmp_path):
    """SIGKILL at every moment of the run: the root sitemap and robots.txt are the
    old ones or the new ones, never a mix, never missing."""
    project, _ = deployed["symlink", None]
    root = project.checkout(tmp_path / "gh-pages")
    assert versions(root, "--canonical", "1.0").returncode == 0
    old = root_files(root)
    done = versions(root)
    assert done.returncode == 0
    new = root_files(root)
    assert new["sitemap.xml"] != old["sitemap.xml"]
    for delay in (0.05, 0.1, 0.2, 0.3, 0.5):
        assert versions(root, "--canonical", "1.0").returncode == 0
        process = subprocess.Popen(
            [sys.executable, "-m", "sitemapkit", "versions", str(root), "--base-url", BASE],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        time.sleep(delay)
        process.send_signal(signal.SIGKILL)
        process.wait()
        now = {name: data for name, data in root_files(root).items() if not name.startswith(".")}
        assert now["sitemap.xml"] in (old["sitemap.xml"], new["sitemap.xml"])
        assert now["robots.txt"] == old["robots.txt"]
        # The next run finishes the job and cleans what the killed one left.
        assert versions(root).returncode == 0
        assert root_files(root) == new
