"""Real Sphinx builds of fixtures/sphinx with the sitemapkit extension.

Every build runs ``python -m sphinx`` in a subprocess, exactly as users run it, on a
copy of the fixture in tmp_path.
"""

from __future__ import annotations

import datetime as dt
from importlib import metadata
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from protego import Protego

import sitemapkit
from conftest import (
    FIXTURES,
    assert_every_page_accounted,
    git,
    option_samples,
    options_with,
    read_ahead_in_workers,
    sitemap_entries,
    run_sitemapkit,
)

BASE = "https://docs.example.org/"
# The Sphinx this environment runs (tests/tasks.py tests the oldest allowed and the newest).
SPHINX_VERSION = tuple(int(part) for part in metadata.version("sphinx").split(".")[:2])
# Long before any build: a lastmod taken from when Sphinx read or wrote a file
# would be today.
SOURCE_TIME = dt.datetime(2021, 3, 4, 5, 6, 7, tzinfo=dt.timezone.utc)
# Every HTML page the fixture's documents, indices and html_additional_pages
# produce, minus the ones that must stay out: hidden (:sitemap: false), private
# (robots.txt Disallow), noindex (robots meta), reprint (a canonical link naming
# guide/install), moved (a meta refresh redirect stub), search (never).
HTML_PAGES = [
    "%C3%BCber%20uns.html",
    # viewcode's pages, added through html-collect-pages.
    "_modules/demo.html",
    "_modules/index.html",
    "api.html",
    # Document names are names: "#", "?" and "%" in them are encoded.
    "c%23sharp.html",
    "changes.html",
    "download.html",
    "genindex.html",
    "guide/deep/nested.html",
    "guide/index.html",
    "guide/install.html",
    "index.html",
    "lit%2520eral.html",
    "orphan.html",
    "py-modindex.html",
    "what%3F.html",
]
DIRHTML_PAGES = [
    "",
    "%C3%BCber%20uns/",
    "_modules/",
    "_modules/demo/",
    "api/",
    "c%23sharp/",
    "changes/",
    "download/",
    "genindex/",
    "guide/",
    "guide/deep/nested/",
    "guide/install/",
    "lit%2520eral/",
    "orphan/",
    "py-modindex/",
    "what%3F/",
]
# Pages the fixture's build writes that are not listed, and why.
LEFT_OUT = {
    "hidden": "metadata",
    "private": "robots.txt",
    "noindex": "noindex",
    "reprint": "canonical",
    "moved": "redirect",
    "search": "search page",
}


def sphinx_build(src: Path, out: Path, *args: str, builder: str = "html") -> subprocess.CompletedProcess:
    return subprocess.run(
        # --no-color: Sphinx colours its output where CI=true is set, and the tests
        # read that output.
        [sys.executable, "-m", "sphinx", "--no-color", "-b", builder, *args, str(src), str(out)],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONHASHSEED": "0"},
        timeout=300,
    )


def assert_clean(result: subprocess.CompletedProcess) -> None:
    assert result.returncode == 0, result.stderr
    assert "WARNING" not in result.stderr, result.stderr


def assert_stopped_naming(result: subprocess.CompletedProcess, *settings: str) -> None:
    """Stopped as a user's mistake, not as a crash: exit status 2 and one error
    line naming the setting, no traceback, no request to report it to Sphinx."""
    assert result.returncode == 2, result.stderr
    [line] = result.stderr.strip().splitlines()
    assert line.startswith("ERROR: sitemapkit_") or line.startswith("ERROR: html_baseurl"), line
    for setting in settings:
        assert setting in line, line
    assert "build succeeded" not in result.stdout


def urls(out: Path) -> list[str]:
    return sorted(sitemap_entries(out))


def instant(w3c: str) -> dt.datetime:
    value = dt.datetime.fromisoformat(w3c)
    return value if value.tzinfo else value.replace(tzinfo=dt.timezone.utc)


def set_mtime(path: Path, when: dt.datetime) -> None:
    os.utime(path, (when.timestamp(), when.timestamp()))


def copy_fixture(src: Path) -> Path:
    """The fixture, with each source file a day older than the next, as in a project
    edited over time (identical times from a fresh copy make the core omit lastmod)."""
    shutil.copytree(FIXTURES / "sphinx", src, ignore=shutil.ignore_patterns("_build"))
    for number, source in enumerate(sorted(src.rglob("*.rst"))):
        set_mtime(source, SOURCE_TIME + dt.timedelta(days=number))
    return src


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return copy_fixture(tmp_path / "src")


@pytest.fixture(scope="module")
def html_build(tmp_path_factory) -> tuple[Path, subprocess.CompletedProcess]:
    src = copy_fixture(tmp_path_factory.mktemp("html") / "src")
    out = src / "_build" / "html"
    return out, sphinx_build(src, out, "-W")


def sitemapkit_check(out: Path) -> None:
    """`sitemapkit check` finds nothing wrong: every URL has its file, and more."""
    check = run_sitemapkit("check", str(out), "--base-url", BASE)
    assert check.returncode == 0, check.stdout + check.stderr


def test_html_build_lists_every_page_and_nothing_else(html_build):
    out, result = html_build
    assert_clean(result)
    assert urls(out) == [BASE + page for page in HTML_PAGES]
    sitemapkit_check(out)
    # Sanity: the pages left out were really written.
    for written in ("hidden.html", "private.html", "noindex.html", "reprint.html", "moved.html", "search.html"):
        assert (out / written).is_file()


def test_html_build_logs_the_summary(html_build):
    _out, result = html_build
    summary = next(line for line in result.stdout.splitlines() if line.startswith("sitemapkit: "))
    assert summary.startswith(f"sitemapkit: {len(HTML_PAGES)} URLs in")
    # hidden.html (:sitemap: false) is reported as left out by its metadata.
    assert summary.endswith("; excluded 1 canonical, 1 metadata, 1 noindex, 1 redirect, 1 robots.txt, 1 search page"), (
        summary
    )


def test_each_page_left_out_is_reported_with_its_reason(project):
    out = project / "_build" / "html"
    result = sphinx_build(project, out, "-W", "-D", "sitemapkit_verbose=1")
    assert_clean(result)
    reported = {line for line in result.stdout.splitlines() if line.startswith("excluded ")}
    assert reported == {
        f"excluded (canonical): {BASE}reprint.html -> {BASE}guide/install.html",
        f"excluded (metadata): {BASE}hidden.html",
        f"excluded (noindex): {BASE}noindex.html",
        f"excluded (redirect): {BASE}moved.html",
        f"excluded (robots.txt): {BASE}private.html",
        f"excluded (search page): {BASE}search.html",
    }
    # Every HTML file the build wrote is listed or reported with its reason.
    assert assert_every_page_accounted(out, BASE, result.stdout) == {
        f"{name}.html": why for name, why in LEFT_OUT.items()
    }
    # The page the canonical link and the redirect name stays listed.
    assert BASE + "guide/install.html" in urls(out)


def test_pages_left_out_for_their_head_are_listed_when_the_checks_are_off(project):
    """What keeps them out is their head (robots meta, canonical link, meta
    refresh), each behind its own option."""
    out = project / "_build" / "html"
    checks_off = [f"-Dsitemapkit_check_{name}=0" for name in ("noindex", "canonical", "redirects")]
    assert_clean(sphinx_build(project, out, "-W", *checks_off))
    assert urls(out) == sorted(BASE + page for page in [*HTML_PAGES, "noindex.html", "reprint.html", "moved.html"])


def test_the_themes_canonical_link_to_the_page_itself_keeps_it_listed(html_build):
    """With html_baseurl set, Sphinx gives every page a canonical link to itself."""
    out, _result = html_build
    head = (out / "über uns.html").read_text(encoding="utf-8")
    # Before 8.1 Sphinx writes the document name unencoded; it names the page all the same.
    own = "%C3%BCber%20uns.html" if SPHINX_VERSION >= (8, 1) else "über uns.html"
    assert f'<link rel="canonical" href="{BASE}{own}" />' in head
    assert f'<link rel="canonical" href="{BASE}index.html" />' in (out / "index.html").read_text(encoding="utf-8")
    assert BASE + "%C3%BCber%20uns.html" in urls(out) and BASE + "index.html" in urls(out)


def test_robots_txt_keeps_its_rules_and_names_the_sitemap(html_build):
    out, _result = html_build
    text = (out / "robots.txt").read_text()
    assert text.startswith("User-agent: *\nDisallow: /private\n")
    assert text.count("Sitemap:") == 1
    robots = Protego.parse(text)
    assert list(robots.sitemaps) == [BASE + "sitemap.xml"]
    assert not robots.can_fetch(BASE + "private.html", "*")
    assert robots.can_fetch(BASE + "guide/install.html", "*")


def test_dirhtml_build_uses_the_builders_urls(project):
    out = project / "_build" / "dirhtml"
    result = sphinx_build(project, out, "-W", "-D", "sitemapkit_verbose=1", builder="dirhtml")
    assert_clean(result)
    assert urls(out) == [BASE + page for page in DIRHTML_PAGES]
    sitemapkit_check(out)
    assert assert_every_page_accounted(out, BASE, result.stdout) == {
        f"{name}/index.html": why for name, why in LEFT_OUT.items()
    }
    # The canonical link the fixture's layout.html writes follows the builder's URLs.
    assert f"excluded (canonical): {BASE}reprint/ -> {BASE}guide/install/" in result.stdout.splitlines()
    assert f"excluded (redirect): {BASE}moved/" in result.stdout.splitlines()


@pytest.mark.parametrize("jobs", ["2", "auto"])
def test_parallel_build_gives_the_same_bytes_as_serial(project, jobs):
    serial, parallel = project / "_build" / "serial", project / "_build" / "parallel"
    assert_clean(sphinx_build(project, serial, "-W"))
    result = sphinx_build(project, parallel, "-W", "-j", jobs)
    assert_clean(result)
    if jobs == "2" or (os.cpu_count() or 1) > 1:
        # Parallel reading reports chunks of documents: "[ 50%] api .. hidden".
        assert re.search(r"reading sources\.\.\. \[[ \d]+%\] \S+ \.\. ", result.stdout), result.stdout
    for name in ("sitemap.xml", "robots.txt"):
        assert (parallel / name).read_bytes() == (serial / name).read_bytes(), name


def test_heads_read_by_worker_processes_give_the_same_bytes(project, monkeypatch):
    """build_site's read-ahead in worker processes, inside a real Sphinx build
    (large sites take it; here in this process, to give it a fixture's few
    pages), changes nothing in what is written."""
    from sphinx.cmd.build import build_main

    here, forked = project / "_build" / "here", project / "_build" / "forked"
    assert_clean(sphinx_build(project, here, "-W"))
    with read_ahead_in_workers(monkeypatch):
        assert build_main(["--no-color", "-q", "-W", "-b", "html", str(project), str(forked)]) == 0
    for name in ("sitemap.xml", "robots.txt"):
        assert (forked / name).read_bytes() == (here / name).read_bytes(), name


def test_incremental_build_still_lists_every_page(project):
    out = project / "_build" / "html"
    assert_clean(sphinx_build(project, out, "-W"))
    first = (out / "sitemap.xml").read_bytes()
    untouched = (out / "api.html").stat().st_mtime_ns
    changed = (out / "guide" / "install.html").stat().st_mtime_ns

    time.sleep(0.05)
    install = project / "guide" / "install.rst"
    install.write_text(install.read_text() + "\nOne more sentence.\n")
    assert_clean(sphinx_build(project, out, "-W"))
    # Really incremental: only the touched page (and its toctree parents) rewritten.
    assert (out / "api.html").stat().st_mtime_ns == untouched
    assert (out / "guide" / "install.html").stat().st_mtime_ns != changed
    assert urls(out) == [BASE + page for page in HTML_PAGES]
    assert (out / "sitemap.xml").read_bytes() != first  # install's lastmod moved
    assert (out / "robots.txt").read_text().count("Sitemap:") == 1

    (project / "orphan.rst").unlink()
    assert_clean(sphinx_build(project, out, "-W"))
    assert (out / "orphan.html").is_file()  # Sphinx leaves the stale file behind
    assert urls(out) == [BASE + page for page in HTML_PAGES if page != "orphan.html"]


def test_unchanged_rebuild_gives_the_same_bytes(project):
    out = project / "_build" / "html"
    assert_clean(sphinx_build(project, out, "-W"))
    first = {name: (out / name).read_bytes() for name in ("sitemap.xml", "robots.txt")}
    result = sphinx_build(project, out, "-W")
    assert_clean(result)
    assert "no targets are out of date" in result.stdout
    assert {name: (out / name).read_bytes() for name in first} == first


def test_lastmod_is_the_source_files_time(project):
    install_time = dt.datetime(2022, 1, 2, 3, 4, 5, tzinfo=dt.timezone.utc)
    api_time = dt.datetime(2022, 6, 7, 8, 9, 10, tzinfo=dt.timezone.utc)
    set_mtime(project / "guide" / "install.rst", install_time)
    set_mtime(project / "api.rst", api_time)
    out = project / "_build" / "html"
    assert_clean(sphinx_build(project, out, "-W"))
    entries = sitemap_entries(out)
    assert instant(entries[BASE + "guide/install.html"]["lastmod"]) == install_time
    assert instant(entries[BASE + "api.html"]["lastmod"]) == api_time
    # A page made from a template alone has no source to date it by (nor have
    # viewcode's pages: their source is a module, not a document).
    undated = {BASE + "download.html", BASE + "_modules/index.html", BASE + "_modules/demo.html"}
    for loc in undated:
        assert entries[loc]["lastmod"] is None
    for loc, fields in entries.items():
        if loc not in undated:
            assert instant(fields["lastmod"]) < dt.datetime(2023, 1, 1, tzinfo=dt.timezone.utc), loc
    # Indices changed when the newest page they list did: genindex lists install
    # (an index entry) and api (the module and function); py-modindex lists api.
    assert instant(entries[BASE + "genindex.html"]["lastmod"]) == api_time
    assert instant(entries[BASE + "py-modindex.html"]["lastmod"]) == api_time


def test_lastmod_is_the_commit_time_in_a_git_work_tree(project):
    committed = dt.datetime(2020, 1, 2, 3, 4, 5, tzinfo=dt.timezone.utc)
    stamp = committed.isoformat()
    git_env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.org",
        "GIT_AUTHOR_DATE": stamp,
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.org",
        "GIT_COMMITTER_DATE": stamp,
    }
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "fixture"]):
        subprocess.run(["git", *args], cwd=project, env=git_env, check=True)
    out = project / "_build" / "html"
    assert_clean(sphinx_build(project, out, "-W"))
    entries = sitemap_entries(out)
    assert instant(entries[BASE + "guide/install.html"]["lastmod"]) == committed


def test_viewcode_pages_are_dated_by_their_modules(project):
    """viewcode's _modules/demo.html shows demo.py: dated by its git date, and
    _modules/index.html, which lists the modules, by the newest of them."""
    git(project, "init", "-q")
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "fixture", when=dt.datetime(2020, 1, 2, tzinfo=dt.timezone.utc))
    (project / "demo.py").write_text((project / "demo.py").read_text() + "\n# A comment.\n")
    edited = dt.datetime(2021, 7, 8, 9, 10, 11, tzinfo=dt.timezone.utc)
    git(project, "commit", "-q", "-am", "demo", when=edited)
    out = project / "_build" / "html"
    assert_clean(sphinx_build(project, out, "-W"))
    entries = sitemap_entries(out)
    assert instant(entries[BASE + "_modules/demo.html"]["lastmod"]) == edited
    assert instant(entries[BASE + "_modules/index.html"]["lastmod"]) == edited
    # The documents keep their own dates (api.rst documents demo, but is not demo.py).
    assert instant(entries[BASE + "guide/install.html"]["lastmod"]) == dt.datetime(2020, 1, 2, tzinfo=dt.timezone.utc)


def test_a_page_is_dated_by_the_newest_file_it_includes(project):
    # changes.rst includes history.txt and literalincludes example.py, as
    # requests' and flask's changes pages include their CHANGES file (which kept
    # those pages dated years before their last change).
    git(project, "init", "-q")
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "fixture", when=dt.datetime(2020, 1, 2, tzinfo=dt.timezone.utc))
    (project / "history.txt").write_text("1.1\n---\n\nA fix.\n\n" + (project / "history.txt").read_text())
    git(project, "commit", "-q", "-am", "release", when=dt.datetime(2021, 6, 1, tzinfo=dt.timezone.utc))
    out = project / "_build" / "html"
    assert_clean(sphinx_build(project, out, "-W"))
    entries = sitemap_entries(out)
    assert instant(entries[BASE + "changes.html"]["lastmod"]) == dt.datetime(2021, 6, 1, tzinfo=dt.timezone.utc)
    assert instant(entries[BASE + "api.html"]["lastmod"]) == dt.datetime(2020, 1, 2, tzinfo=dt.timezone.utc)

    # Edit the included file and rebuild: incrementally, then in full.
    (project / "example.py").write_text((project / "example.py").read_text() + "demo.run('again')\n")
    git(project, "commit", "-q", "-am", "example", when=dt.datetime(2022, 2, 3, tzinfo=dt.timezone.utc))
    result = sphinx_build(project, out, "-W")
    assert_clean(result)
    assert "1 changed" in result.stdout  # Sphinx re-read changes.rst alone
    moved = sitemap_entries(out)
    assert instant(moved[BASE + "changes.html"]["lastmod"]) == dt.datetime(2022, 2, 3, tzinfo=dt.timezone.utc)
    assert {loc: e for loc, e in moved.items() if loc != BASE + "changes.html"} == {
        loc: e for loc, e in entries.items() if loc != BASE + "changes.html"
    }
    assert_clean(sphinx_build(project, out, "-W", "-E"))
    assert sitemap_entries(out) == moved


def _shallow_clone(project: Path, tmp_path: Path) -> Path:
    git(project, "init", "-q")
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "one", when=dt.datetime(2020, 1, 2, tzinfo=dt.timezone.utc))
    (project / "api.rst").write_text((project / "api.rst").read_text() + "\nMore.\n")
    git(project, "commit", "-q", "-am", "two", when=dt.datetime(2020, 2, 2, tzinfo=dt.timezone.utc))
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{project}", str(clone))
    return clone


def test_a_shallow_clone_warns_and_a_strict_build_can_stay_green_still_showing_it(project, tmp_path):
    clone = _shallow_clone(project, tmp_path)
    out = clone / "_build" / "html"
    strict = sphinx_build(clone, out, "-W")
    assert strict.returncode != 0 and "fetch-depth: 0" in strict.stderr
    if SPHINX_VERSION >= (8,):  # Sphinx 7.4 does not show warning types
        assert "[sitemapkit.lastmod]" in strict.stderr
    # Either way the README gives: filter the warning by its type, or make it
    # information with sitemapkit_lastmod_warnings = False (still in the log).
    assert_clean(sphinx_build(clone, out, "-W", "-D", "suppress_warnings=sitemapkit.lastmod"))
    quiet = sphinx_build(clone, out, "-W", "-D", "sitemapkit_lastmod_warnings=0")
    assert_clean(quiet)
    assert "fetch-depth: 0" in quiet.stdout
    # Depth 1: the one commit is the cut, so no page can be dated.
    assert {e["lastmod"] for e in sitemap_entries(out).values()} == {None}


def test_a_brand_new_project_builds_strictly(tmp_path):
    # sphinx-quickstart's project, not in git yet, with a second page written in
    # the same second: its file times are when it was written, not a checkout's.
    src = tmp_path / "new"
    quickstart = [
        sys.executable,
        "-m",
        "sphinx.cmd.quickstart",
        "-q",
        "-p",
        "New",
        "-a",
        "Me",
        "--no-makefile",
        "--no-batchfile",
        "--extensions",
        "sitemapkit.plugins.sphinx",
        str(src),
    ]
    subprocess.run(quickstart, check=True, capture_output=True)
    with open(src / "conf.py", "a") as conf:
        conf.write("html_baseurl = 'https://new.example.org/'\n")
    index = src / "index.rst"
    index.write_text(index.read_text().replace(":caption: Contents:\n", ":caption: Contents:\n\n   usage\n"))
    (src / "usage.rst").write_text("Usage\n=====\n\nRun it.\n")
    written = index.stat().st_mtime
    for page in (index, src / "usage.rst", src / "conf.py"):
        os.utime(page, (written, written))
    env_outside_git = {"GIT_CEILING_DIRECTORIES": str(tmp_path)}
    result = subprocess.run(
        [sys.executable, "-m", "sphinx", "--no-color", "-W", "-b", "html", str(src), str(src / "_build")],
        capture_output=True,
        text=True,
        env={**os.environ, **env_outside_git},
        timeout=300,
    )
    assert_clean(result)
    entries = sitemap_entries(src / "_build")
    assert instant(entries["https://new.example.org/usage.html"]["lastmod"]) == dt.datetime.fromtimestamp(
        int(written), dt.timezone.utc
    )


def test_read_the_docs_canonical_url_stands_in_for_an_unset_html_baseurl(project):
    out = project / "_build" / "html"
    rtd = "https://fixture.readthedocs.io/en/latest/"
    result = subprocess.run(
        [sys.executable, "-m", "sphinx", "--no-color", "-W", "-D", "html_baseurl=", str(project), str(out)],
        capture_output=True,
        text=True,
        env={**os.environ, "READTHEDOCS_CANONICAL_URL": rtd},
        timeout=300,
    )
    assert_clean(result)
    listed = urls(out)
    assert {rtd + page for page in HTML_PAGES} <= set(listed)
    assert all(url.startswith(rtd) for url in listed)


def test_a_relative_html_baseurl_warns_and_writes_no_sitemap(project):
    out = project / "_build" / "html"
    result = sphinx_build(project, out, "-D", "html_baseurl=/")
    assert result.returncode == 0, result.stderr
    assert "html_baseurl '/' is a relative URL" in result.stderr
    if SPHINX_VERSION >= (8,):  # Sphinx 7.4 does not show warning types
        assert "[sitemapkit.config]" in result.stderr
    assert not (out / "sitemap.xml").exists()
    assert sphinx_build(project, out, "-W", "-D", "html_baseurl=/").returncode != 0


def test_sitemap_false_and_exclude_globs_leave_pages_out(project):
    out = project / "_build" / "html"
    assert_clean(sphinx_build(project, out, "-W", "-D", "sitemapkit_exclude=guide/*,orphan.html"))
    kept = [page for page in HTML_PAGES if not page.startswith("guide/") and page != "orphan.html"]
    assert urls(out) == [BASE + page for page in kept]


def test_indices_are_listed_only_when_written(project):
    out = project / "_build" / "html"
    # Sphinx before 8 warns that -D gives html_domain_indices as a string.
    result = sphinx_build(project, out, "-D", "html_use_index=0", "-D", "html_domain_indices=0")
    assert result.returncode == 0, result.stderr
    if SPHINX_VERSION >= (8,):
        assert_clean(result)
    assert not (out / "genindex.html").exists()
    assert urls(out) == [BASE + page for page in HTML_PAGES if page not in ("genindex.html", "py-modindex.html")]


@pytest.mark.parametrize("builder", ["html", "dirhtml"])
def test_languages_give_hreflang_alternates(project, builder):
    out = project / "_build" / builder
    result = sphinx_build(
        project,
        out,
        "-W",
        "-D",
        "html_baseurl=https://project.example.org/en/latest/",
        "-D",
        "sitemapkit_languages=en,fr,pt-br",
        "-D",
        "sitemapkit_x_default=en",
        builder=builder,
    )
    assert_clean(result)
    base = "https://project.example.org/{}/latest/"
    entries = sitemap_entries(out)
    # robots.txt rules are paths from the host root, so /private no longer covers
    # /en/latest/private/.
    pages, private = (HTML_PAGES, "private.html") if builder == "html" else (DIRHTML_PAGES, "private/")
    assert sorted(entries) == sorted(base.format("en") + page for page in [*pages, private])
    # html's URLs come percent-encoded from Sphinx, dirhtml's raw: both end up the same.
    page = "%C3%BCber%20uns.html" if builder == "html" else "%C3%BCber%20uns/"
    assert entries[base.format("en") + page]["alternates"] == sorted(
        [
            ("en", base.format("en") + page),
            ("fr", base.format("fr") + page),
            ("pt-br", base.format("pt-br") + page),
            ("x-default", base.format("en") + page),
        ]
    )
    # Below the host root robots.txt is never read by crawlers: left as it was.
    assert "Sitemap:" not in (out / "robots.txt").read_text()


def test_a_private_use_language_tag_is_an_alternate_not_a_stopped_build(project):
    """hreflang="en-x-test" passed the site-level check and stopped the build in
    the formatter: one BCP 47 rule now, which takes private-use subtags."""
    out = project / "_build" / "html"
    result = sphinx_build(
        project,
        out,
        "-W",
        "-D",
        "html_baseurl=https://project.example.org/en/latest/",
        "-D",
        "sitemapkit_languages=en,fr,en-x-test",
        "-D",
        "sitemapkit_x_default=en-x-test",
    )
    assert_clean(result)
    base = "https://project.example.org/{}/latest/"
    assert sitemap_entries(out)[base.format("en") + "index.html"]["alternates"] == sorted(
        [
            ("en", base.format("en") + "index.html"),
            ("en-x-test", base.format("en-x-test") + "index.html"),
            ("fr", base.format("fr") + "index.html"),
            ("x-default", base.format("en-x-test") + "index.html"),
        ]
    )


def test_x_default_that_is_no_language_stops_naming_the_setting(project):
    result = sphinx_build(project, project / "_build" / "html", "-D", "sitemapkit_x_default=12")
    assert_stopped_naming(result, "sitemapkit_x_default", "'12' is not a language tag")


def test_languages_need_the_language_in_html_baseurl(project):
    out = project / "_build" / "html"
    result = sphinx_build(
        project, out, "-D", "html_baseurl=https://project.example.org/latest/", "-D", "sitemapkit_languages=en,fr"
    )
    assert_stopped_naming(result, "sitemapkit_languages", "html_baseurl")
    assert not (out / "sitemap.xml").exists()


def test_missing_html_baseurl_warns_and_writes_no_sitemap(project):
    out = project / "_build" / "html"
    result = sphinx_build(project, out, "-D", "html_baseurl=")
    assert result.returncode == 0, result.stderr
    assert "html_baseurl" in result.stderr
    if SPHINX_VERSION >= (8,):  # Sphinx 7.4 does not show warning types
        assert "[sitemapkit.config]" in result.stderr
    assert not (out / "sitemap.xml").exists()
    assert "Sitemap:" not in (out / "robots.txt").read_text()


def test_missing_html_baseurl_fails_a_strict_build(project):
    result = sphinx_build(project, project / "_build" / "html", "-W", "-D", "html_baseurl=")
    assert result.returncode != 0
    assert "html_baseurl" in result.stderr


def test_missing_html_baseurl_warning_can_be_suppressed(project):
    result = sphinx_build(
        project, project / "_build" / "html", "-W", "-D", "html_baseurl=", "-D", "suppress_warnings=sitemapkit"
    )
    assert_clean(result)


@pytest.mark.parametrize(
    ("override", "setting"),
    [
        ("sitemapkit_max_bytes=12", "sitemapkit_max_bytes"),
        ("sitemapkit_lastmod=yesterday", "sitemapkit_lastmod"),
        # Checked when the pages are dated, at the end: the copy is not in git.
        ("sitemapkit_lastmod=git", "sitemapkit_lastmod"),
        ("html_baseurl=docs.example.org", "html_baseurl"),
    ],
)
def test_bad_setting_stops_the_build_naming_it(project, override, setting):
    out = project / "_build" / "html"
    result = sphinx_build(project, out, "-D", override)
    assert_stopped_naming(result, f"{setting}:")
    assert not (out / "sitemap.xml").exists()


CUSTOM_XSL = """<?xml version="1.0" encoding="UTF-8"?>
<xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">
  <!-- the fixture's own stylesheet -->
</xsl:stylesheet>
"""


def test_stylesheet_template_folder_is_relative_to_conf_py(project):
    (project / "sitemap_style").mkdir()
    (project / "sitemap_style" / "sitemap.xsl.j2").write_text(CUSTOM_XSL)
    out = project / "_build" / "html"
    options = ("-D", "sitemapkit_stylesheet=1", "-D", "sitemapkit_stylesheet_template=sitemap_style")
    assert_clean(sphinx_build(project, out, "-W", *options))
    assert "the fixture's own stylesheet" in (out / "sitemap.xsl").read_text()


def test_stylesheet_template_problem_names_the_setting(project):
    out = project / "_build" / "html"
    options = ("-D", "sitemapkit_stylesheet=1", "-D", "sitemapkit_stylesheet_template=no_such_folder")
    assert_stopped_naming(sphinx_build(project, out, *options), "sitemapkit_stylesheet_template:")


@pytest.mark.parametrize("builder", ["singlehtml", "text"])
def test_other_builders_write_no_sitemap(project, builder):
    out = project / "_build" / builder
    result = sphinx_build(project, out, "-W", "-D", "html_baseurl=", builder=builder)
    assert_clean(result)
    assert not (out / "sitemap.xml").exists()


def _app(project: Path, **overrides):
    """The extension as Sphinx loads it from the fixture's conf.py (in this process,
    up to builder-inited, where the extension checks its settings)."""
    from sphinx.application import Sphinx

    out = project / "_build"
    return Sphinx(
        str(project),
        str(project),
        str(out / "html"),
        str(out / "doctrees"),
        "html",
        confoverrides=overrides,
        status=None,
        warning=None,
        freshenv=True,
    )


def test_every_core_option_is_a_sphinx_setting_with_its_type_default_and_help(project):
    from sitemapkit.plugins.sphinx import OPTION_TYPES

    specs = {spec.name: spec for spec in sitemapkit.Options.specs()}
    assert list(OPTION_TYPES) == list(specs)
    values = _app(project).config.values
    assert {name for name in values if name.startswith("sitemapkit_")} == {
        *(f"sitemapkit_{name}" for name in specs),
        "sitemapkit_languages",
    }
    kinds = {bool: {bool}, int: {int}, float: {float, int}, str: {str}, tuple: {list, tuple}}
    for name, spec in specs.items():
        value = values[f"sitemapkit_{name}"]
        assert value.default == (list(spec.default) if isinstance(spec.default, tuple) else spec.default), name
        assert set(value.valid_types) == kinds[spec.kind] | ({type(None)} if spec.optional else set()), name
        assert spec.help in value.description, name


def test_unset_settings_are_the_declared_defaults(project):
    from sitemapkit.plugins.sphinx import _options

    assert _options(_app(project)) == sitemapkit.Options(base_url=BASE)


def test_every_setting_reaches_the_core_as_written(project, tmp_path):
    from sitemapkit.plugins.sphinx import _options

    samples = option_samples(tmp_path)
    app = _app(project, **{f"sitemapkit_{name}": value for name, value in samples.items()})
    assert _options(app) == options_with(samples, BASE)


@pytest.mark.parametrize("builder", ["html", "text"])
def test_a_mistyped_setting_in_conf_py_stops_the_build_with_the_closest_name(project, builder):
    with (project / "conf.py").open("a") as conf:
        conf.write("sitemapkit_maxbytes = 20_000\n")
    out = project / "_build" / builder
    result = sphinx_build(project, out, builder=builder)
    assert_stopped_naming(result, "sitemapkit_maxbytes: is not a sitemapkit option; did you mean sitemapkit_max_bytes?")
    assert not (out / "index.html").exists() and not (out / "index.txt").exists()


def test_a_mistyped_override_stops_the_build_too(project):
    result = sphinx_build(project, project / "_build" / "html", "-D", "sitemapkit_base_url=https://example.org/")
    assert result.returncode == 2, result.stderr
    # After Sphinx's own warning that it ignores the override.
    assert result.stderr.strip().splitlines()[-1] == (
        "ERROR: sitemapkit_base_url: the base URL comes from html_baseurl; set that instead"
    ), result.stderr
    assert "Traceback" not in result.stderr


def test_pages_extensions_add_follow_exclude_and_survive_incremental_builds(project):
    """viewcode's _modules/ pages come through html-collect-pages: listed like any
    page, left out by an exclude glob, still listed after a build that rendered
    nothing again (viewcode skips module pages newer than their source)."""
    out = project / "_build" / "html"
    result = sphinx_build(project, out, "-W", "-D", "sitemapkit_exclude=_modules/*", "-D", "sitemapkit_verbose=1")
    assert_clean(result)
    assert urls(out) == [BASE + page for page in HTML_PAGES if not page.startswith("_modules/")]
    assert f"excluded (exclude): {BASE}_modules/demo.html" in result.stdout.splitlines()
    assert_clean(sphinx_build(project, out, "-W"))
    (project / "api.rst").write_text((project / "api.rst").read_text() + "\nMore.\n")
    result = sphinx_build(project, out, "-W")
    assert_clean(result)
    assert urls(out) == [BASE + page for page in HTML_PAGES]


def test_an_unparsable_html_baseurl_stops_with_the_command_lines_line(project, tmp_path):
    """``https://[::1/`` cannot be parsed: one error line, worded as ``sitemapkit
    build --base-url`` words it with html_baseurl named, never Sphinx's crash report."""
    out = project / "_build" / "html"
    result = sphinx_build(project, out, "-D", "html_baseurl=https://[::1/")
    assert_stopped_naming(result, "html_baseurl:")
    assert "Traceback" not in result.stderr and "Extension error" not in result.stderr
    folder = tmp_path / "site"
    folder.mkdir()
    cli = run_sitemapkit("build", str(folder), "--base-url", "https://[::1/")
    assert cli.returncode == 2
    [cli_line] = cli.stderr.strip().splitlines()
    assert cli_line.startswith("sitemapkit: error: --base-url: "), cli_line
    assert result.stderr.strip() == "ERROR: html_baseurl: " + cli_line.removeprefix("sitemapkit: error: --base-url: ")
    assert not (out / "sitemap.xml").exists()


@pytest.mark.parametrize("base", ["", "/", "./docs/", "//docs.example.org/"])
def test_a_development_html_baseurl_warns_with_the_one_rules_words(project, base):
    """Unset or relative: the warning is the one every tool gives, in conf.py's terms."""
    out = project / "_build" / "html"
    result = sphinx_build(project, out, "-D", f"html_baseurl={base}")
    assert result.returncode == 0, result.stderr
    expected = sitemapkit.development_base_url(
        base, setting="html_baseurl", example="html_baseurl = 'https://docs.example.org/' in conf.py"
    )
    assert expected is not None and f"sitemapkit: {expected}" in result.stderr, result.stderr
    assert not (out / "sitemap.xml").exists()


# A theme or extension that adds its own error page through html-collect-pages,
# as pallets-sphinx-themes does for Flask's docs (and sphinx-notfound-page).
NOT_FOUND_EXTENSION = """
def collect_pages(app):
    yield ("404", {"title": "Page not found", "body": "<h1>Page not found</h1>"}, "page.html")


def setup(app):
    app.connect("html-collect-pages", collect_pages)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
"""


def test_a_themes_404_page_from_html_collect_pages_is_an_error_page(project, tmp_path):
    """Left out as the command line leaves 404.html out (ERROR_PAGES, in any
    folder): reported as an error page, never listed."""
    (project / "notfound_theme.py").write_text(NOT_FOUND_EXTENSION)
    with (project / "conf.py").open("a") as conf:
        conf.write("extensions.append('notfound_theme')\n")
    out = project / "_build" / "html"
    result = sphinx_build(project, out, "-W", "-D", "sitemapkit_verbose=1")
    assert_clean(result)
    assert (out / "404.html").is_file()
    assert BASE + "404.html" not in urls(out)
    assert f"excluded (error page): {BASE}404.html" in result.stdout.splitlines()
    assert assert_every_page_accounted(out, BASE, result.stdout) == {
        "404.html": "error page",
        **{f"{name}.html": why for name, why in LEFT_OUT.items()},
    }
    # The command line, on the same built folder, gives the same verdict.
    copy = tmp_path / "copy"
    shutil.copytree(out, copy)
    cli = run_sitemapkit("build", str(copy), "--base-url", BASE, "--verbose")
    assert cli.returncode == 0, cli.stderr
    assert f"excluded (error page): {BASE}404.html" in cli.stdout.splitlines()


def test_the_404_page_of_a_dirhtml_build_is_an_error_page(project, tmp_path):
    """Flask's docs built with dirhtml: the theme's 404 page is written as
    404/index.html, an error page all the same, for the extension and the
    command line alike."""
    (project / "notfound_theme.py").write_text(NOT_FOUND_EXTENSION)
    with (project / "conf.py").open("a") as conf:
        conf.write("extensions.append('notfound_theme')\n")
    out = project / "_build" / "dirhtml"
    result = sphinx_build(project, out, "-D", "sitemapkit_verbose=1", builder="dirhtml")
    assert result.returncode == 0, result.stderr
    assert (out / "404" / "index.html").is_file()
    assert BASE + "404/" not in urls(out)
    assert f"excluded (error page): {BASE}404/" in result.stdout.splitlines()
    copy = tmp_path / "copy"
    shutil.copytree(out, copy)
    cli = run_sitemapkit("build", str(copy), "--base-url", BASE, "--verbose")
    assert cli.returncode == 0, cli.stderr
    assert f"excluded (error page): {BASE}404/" in cli.stdout.splitlines()


def test_indexnow_key_writes_the_key_file_at_the_output_root(project):
    key = "sphinx-indexnow-key-1"
    with (project / "conf.py").open("a") as conf:
        conf.write(f"sitemapkit_indexnow_key = {key!r}\n")
    out = project / "_build" / "html"
    result = sphinx_build(project, out)
    assert result.returncode == 0, result.stderr
    assert (out / f"{key}.txt").read_text() == key
    assert (out / "sitemap.xml").is_file()
