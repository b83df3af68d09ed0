"""The MkDocs adapter as users meet it on the command line: --strict, bad settings, serve."""

from __future__ import annotations

import datetime as dt
import logging
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
import yaml

import sitemapkit

from conftest import sitemap_entries

from .conftest import QUIET_ENV
from .test_build import LISTED_DIRECTORY_URLS


def test_fixture_builds_under_strict_without_warnings(project):
    result = project.cli("build", "--strict")
    assert result.returncode == 0, result.stderr
    assert "WARNING" not in result.stderr
    assert f"sitemapkit: {len(LISTED_DIRECTORY_URLS)} URLs" in result.stderr
    assert (project.site / "sitemap.xml").is_file()


@pytest.mark.parametrize(
    ("options", "named"),
    [
        # The core checks types and values alike, when MkDocs loads mkdocs.yml:
        # one form for every bad option, MkDocs' own, as for a misspelled name.
        ({"max_bytes": "lots"}, "Plugin 'sitemapkit' option 'max_bytes': 'lots' must be a whole number"),
        ({"exclude": "drafts/*"}, "Plugin 'sitemapkit' option 'exclude': 'drafts/*' is not a list of glob patterns"),
        ({"max_bytes": 100}, "Plugin 'sitemapkit' option 'max_bytes': 100 must be a whole number"),
        ({"lastmod": "sometimes"}, "Plugin 'sitemapkit' option 'lastmod': 'sometimes' is not one of"),
        ({"filename": "../sitemap.xml"}, "Plugin 'sitemapkit' option 'filename': '../sitemap.xml' must be a plain"),
    ],
    ids=["type", "list", "range", "choice", "filename"],
)
def test_bad_option_names_it_and_writes_nothing(project, options, named):
    project.configure(sitemapkit=options)
    result = project.cli("build")
    assert result.returncode != 0
    assert f"Config value 'plugins': {named}" in result.stderr
    assert "Aborted with a configuration error!" in result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    assert not project.site.exists()


def test_missing_site_url_warns_and_writes_no_sitemap(project, caplog):
    project.configure(drop=("site_url",))
    with caplog.at_level(logging.WARNING):
        site = project.build()
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    # The one rule every tool gives, in mkdocs.yml's terms.
    why = sitemapkit.development_base_url("", setting="site_url", example="site_url: https://example.org/docs/")
    assert len(warnings) == 1 and warnings[0].getMessage() == f"sitemapkit: {why}"
    # A MkDocs plugin logger, so --strict counts it and users can filter it.
    assert warnings[0].name.startswith("mkdocs.plugins.")
    assert (site / "index.html").is_file()
    assert not (site / "sitemap.xml").exists()
    assert not (site / "sitemap.xml.gz").exists()
    assert (site / "robots.txt").read_bytes() == (project.root / "docs" / "robots.txt").read_bytes()


def test_missing_site_url_fails_strict(project):
    project.configure(drop=("site_url",))
    result = project.cli("build", "--strict")
    assert result.returncode != 0
    assert "site_url" in result.stderr
    assert "Traceback" not in result.stderr


# --- mkdocs serve ----------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def snapshot(folder: Path) -> dict[str, tuple[int, int]]:
    # .git is left out: git may refresh its own index while the core reads dates.
    return {
        str(p.relative_to(folder)): (p.stat().st_size, p.stat().st_mtime_ns)
        for p in folder.rglob("*")
        if p.relative_to(folder).parts[0] != ".git"
    }


def fetch(url: str, timeout: float = 60) -> bytes:
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(url, timeout=5) as response:
                return response.read()
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.3)


def _restore_ctrl_c() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def serve(project, tmp_path, check):
    """Run a real `mkdocs serve`, call ``check(base_url, served_folder)`` while it
    runs, stop it with Ctrl-C; its output. Checks that it left nothing behind."""
    port = free_port()
    # serve builds into a tempfile.mkdtemp() folder: point TMPDIR at one we can watch.
    served_tmp = tmp_path / "served-tmp"
    served_tmp.mkdir()
    before = snapshot(project.root)
    server = subprocess.Popen(
        [sys.executable, "-m", "mkdocs", "serve", "-f", str(project.config_file), "-a", f"127.0.0.1:{port}"],
        cwd=project.root,
        env={**QUIET_ENV, "TMPDIR": str(served_tmp)},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        # A shell without job control starts background commands with Ctrl-C
        # ignored, and Python then installs no KeyboardInterrupt handler: serve
        # would never stop (nor clean up) on the SIGINT sent below.
        preexec_fn=_restore_ctrl_c,
    )
    try:
        site_url = yaml.safe_load(project.config_file.read_text(encoding="utf-8"))["site_url"]
        base = f"http://127.0.0.1:{port}{urllib.parse.urlsplit(site_url).path}"
        fetch(base + "sitemap.xml")
        # serve's own folder: tempfile.mkdtemp(prefix="mkdocs_").
        [served] = [p for p in served_tmp.iterdir() if p.name.startswith("mkdocs_")]
        check(base, served)
    finally:
        server.send_signal(signal.SIGINT)
        try:
            # Generous: on a loaded machine stopping the watcher and the server
            # threads can take long; killed, serve cannot remove its folder.
            output, _ = server.communicate(timeout=180)
        except subprocess.TimeoutExpired:
            server.kill()
            output, _ = server.communicate()
            pytest.fail(f"mkdocs serve did not stop within 180 s of Ctrl-C:\n{output}")
    assert "Traceback" not in output, output
    # Nothing written beside the sources, and serve's own folder is gone after it stops.
    assert snapshot(project.root) == before
    from importlib import metadata

    if metadata.version("mkdocs") != "1.6.0":
        # MkDocs 1.6.0 leaves its serve folder behind when stopped; 1.6.1 removes it.
        assert not served.exists()
        assert list(served_tmp.iterdir()) == []
    return output


def test_serve(project, tmp_path):
    """A short real `mkdocs serve`: it builds into a temporary folder and serves the sitemap from there."""
    seen = {}

    def check(base, served):
        seen["sitemap"] = fetch(base + "sitemap.xml")
        seen["robots"] = fetch(base + "robots.txt").decode()
        seen["listed"] = set(sitemap_entries(served))
        # serve previews drafts; they are still not listed.
        assert (served / "drafts" / "wip" / "index.html").is_file()

    output = serve(project, tmp_path, check)
    base = seen["robots"].split("Sitemap: ")[1].split("sitemap.xml")[0]
    assert base.startswith("http://127.0.0.1:")
    assert b"<urlset" in seen["sitemap"]
    assert seen["listed"] == {base + url for url in LISTED_DIRECTORY_URLS}
    assert f"sitemapkit: {len(LISTED_DIRECTORY_URLS)} URLs" in output, output


def test_serve_below_the_host_root_gives_no_robots_txt_advice(project, tmp_path):
    """A real build below the host root says which robots.txt line to add; a
    preview on 127.0.0.1 has no robots.txt to publish, so it says nothing of it."""
    project.configure(site_url="https://example.org/docs/")
    build = project.cli("build")
    assert "add 'Sitemap: https://example.org/docs/sitemap.xml' to it" in build.stderr, build.stderr

    output = serve(project, tmp_path, lambda base, served: None)
    [summary] = [line for line in output.splitlines() if "sitemapkit: " in line]
    # private/ is listed: robots.txt's rule is for /private, not /docs/private. Every
    # page serve wrote that is not listed is counted with its reason.
    assert summary == (
        f"INFO    -  sitemapkit: {len(LISTED_DIRECTORY_URLS) + 1} URLs in 1 file (sitemap.xml); excluded 1 canonical, "
        "1 draft_docs, 1 error page, 1 exclude, 1 metadata, 1 noindex, 1 redirect"
    )
    assert "robots.txt" not in output, output


def _out_of_git(project) -> None:
    """The project as an unpacked archive: no git, every file the same time."""
    shutil.rmtree(project.root / ".git")
    for path in (project.root / "docs").rglob("*"):
        os.utime(path, (1_700_000_000, 1_700_000_000))


def test_flat_file_times_warning_offers_front_matter_dates(project):
    _out_of_git(project)
    result = project.cli("build")
    assert result.returncode == 0, result.stderr
    [warning] = [line for line in result.stderr.splitlines() if line.startswith("WARNING")]
    # 7 pages, and the 16 of docs/names/.
    assert warning.startswith("WARNING -  sitemapkit: lastmod omitted: 23 pages (a&b.md, "), warning
    assert warning.endswith(
        "so they do not tell when a page changed. Build from a full git clone (lastmod 'auto' or 'git'), "
        "give the pages a 'lastmod' or 'date' in their front matter, or set lastmod to 'none'."
    ), warning


def test_lastmod_git_outside_git_stops_naming_the_setting(project):
    _out_of_git(project)
    project.configure(sitemapkit={"lastmod": "git"})
    result = project.cli("build")
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("ERROR")]
    assert errors == [
        f"ERROR   -  plugins.sitemapkit.lastmod: 'git' asks for git dates, but {project.root / 'docs'} "
        "is not in a git work tree"
    ], result.stderr


def test_read_the_docs_canonical_url_stands_in_for_an_unset_site_url(project):
    project.configure(drop=("site_url",))
    rtd = "https://fixture.readthedocs.io/en/latest/"
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(project.config_file)],
        cwd=project.root,
        env={**QUIET_ENV, "READTHEDOCS_CANONICAL_URL": rtd},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    listed = set(sitemap_entries(project.site))
    assert rtd + "guide/install/" in listed and all(url.startswith(rtd) for url in listed)


# A hook doing what mkdocs-gen-files (the usual mkdocstrings setup) does: write a
# page into a temporary folder outside the repository and add it to the build.
GENERATOR_HOOK = """
import tempfile
from mkdocs.structure.files import File

def on_files(files, config):
    folder = tempfile.mkdtemp(prefix="generated-")
    with open(folder + "/api.md", "w") as page:
        page.write("# API\\n\\nGenerated at build time.\\n")
    files.append(File("api.md", folder, config.site_dir, config.use_directory_urls))
    return files
"""


def test_a_page_generated_outside_the_repository_keeps_git_dates_for_the_others(project):
    (project.root / "generate.py").write_text(GENERATOR_HOOK)
    project.configure(hooks=["generate.py"])
    result = project.cli("build", "--strict")
    assert result.returncode == 0, result.stderr
    assert "WARNING" not in result.stderr
    assert "1 generated page without lastmod (no source in git)" in result.stderr
    entries = sitemap_entries(project.site)
    assert entries["https://example.org/api/"]["lastmod"] is None
    # Committed pages keep their commit date, not the build's file times.
    assert entries["https://example.org/guide/install/"]["lastmod"].startswith("2020-05-01T10:00:00")


def test_a_shallow_clone_fails_strict_unless_lastmod_warnings_is_off(project, tmp_path):
    from .conftest import Project, git

    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{project.root}", str(clone))
    shallow = Project(clone)
    strict = shallow.cli("build", "--strict")
    assert strict.returncode != 0 and "fetch-depth: 0" in strict.stderr
    shallow.configure(sitemapkit={"lastmod_warnings": False})
    quiet = shallow.cli("build", "--strict")
    assert quiet.returncode == 0, quiet.stderr
    assert "WARNING" not in quiet.stderr
    assert "fetch-depth: 0" in quiet.stderr  # still shown, as information


def test_material_blog_archives_in_a_temporary_folder_leave_git_dates_on(project):
    # Material's blog plugin writes its archive and category pages under a
    # temporary folder: once, that moved every page's date to the build's time.
    from .conftest import git

    blog = project.root / "docs" / "blog"
    (blog / "posts").mkdir(parents=True)
    (blog / "index.md").write_text("# Blog\n")
    (blog / "posts" / "hello.md").write_text(
        "---\ndate: 2023-01-05\ncategories:\n  - News\n---\n\n# Hello\n\nThe first post.\n"
    )
    git(project.root, "add", "-A")
    git(project.root, "commit", "-q", "-m", "blog", when=dt.datetime(2023, 1, 6, tzinfo=dt.timezone.utc))
    config = yaml.safe_load(project.config_file.read_text(encoding="utf-8"))
    config["nav"].append({"Blog": ["blog/index.md"]})
    config["plugins"].insert(0, "blog")
    project.config_file.write_text(yaml.safe_dump(config, allow_unicode=True, sort_keys=False), encoding="utf-8")
    project.configure(theme={"name": "material", "custom_dir": "overrides"})
    result = project.cli("build", "--strict")
    assert result.returncode == 0, result.stderr
    entries = sitemap_entries(project.site)
    assert "https://example.org/blog/archive/2023/" in entries  # built from the temporary folder
    assert entries["https://example.org/guide/install/"]["lastmod"].startswith("2020-05-01T10:00:00")
    assert entries["https://example.org/blog/"]["lastmod"].startswith("2023-01-06T00:00:00")
