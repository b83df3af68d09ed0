"""`sitemapkit build --config` after Zensical (or a MkDocs build without our plugin)
gives the sitemap the MkDocs adapter gives for the same project.

Both builds are real: MkDocs with the adapter, Zensical (which ignores third-party
plugins) followed by the command, on copies of one git repository with set commit
dates.
"""

from __future__ import annotations

import datetime as dt
import gzip
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import sitemapkit as sitemapkit_package
from conftest import git, run_sitemapkit, sitemap_entries

from .conftest import FIXTURE, FIRST_COMMIT, QUIET_ENV, Project, committed_copy
from .test_build import LISTED_DIRECTORY_URLS

LATER = dt.datetime(2023, 7, 8, 9, 10, 11, tzinfo=dt.timezone.utc)

# The fixture's mkdocs.yml in Zensical's own format: the [project] table.
ZENSICAL_TOML = """\
[project]
site_name = "sitemapkit fixture"
site_url = "https://example.org/"
exclude_docs = \"\"\"
secret.md
\"\"\"
draft_docs = \"\"\"
drafts/
\"\"\"
nav = [
  {"Home" = "index.md"},
  {"Guide" = ["guide/index.md", "guide/install.md", "guide/advanced/deep.md"]},
  {"Ümlaut" = "ümlaut.md"},
  {"Tips & tricks" = "a&b.md"},
  {"Dated" = "dated.md"},
  {"Hidden" = "hidden.md"},
  {"Private" = "private.md"},
  {"Noindex" = "noindex.md"},
  {"Elsewhere" = "elsewhere.md"},
  {"Archived" = "archive/old.md"},
]

[project.theme]
custom_dir = "overrides"

[project.plugins.sitemapkit]
exclude = ["archive/*"]
"""


@pytest.fixture
def repository(tmp_path: Path) -> Path:
    """The fixture with Material as its theme (Zensical has no `mkdocs` theme), two
    commits apart: guide/install.md last changed at LATER, the rest at FIRST_COMMIT."""
    root = committed_copy(FIXTURE, tmp_path / "first")
    Project(root).configure(theme={"name": "material", "custom_dir": "overrides"})
    (root / "zensical.toml").write_text(ZENSICAL_TOML, encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "theme", when=FIRST_COMMIT)
    page = root / "docs" / "guide" / "install.md"
    page.write_text(page.read_text(encoding="utf-8") + "\nOne more line.\n", encoding="utf-8")
    git(root, "commit", "-q", "-am", "install: one more line", when=LATER)
    return root


def copy_of(repository: Path, name: str) -> Path:
    copy = repository.parent / name
    shutil.copytree(repository, copy, symlinks=True)
    return copy


def zensical_build(root: Path, config: str) -> None:
    if sys.version_info < (3, 11):
        # The environment of the oldest MkDocs runs on Python 3.10; the command
        # after Zensical is tested with the newest, on 3.13.
        pytest.skip("Zensical needs Python 3.11 or later")
    result = subprocess.run(
        [sys.executable, "-m", "zensical", "build", "-f", config],
        cwd=root,
        env=QUIET_ENV,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def sitemapkit(root: Path, *args: str) -> subprocess.CompletedProcess:
    return run_sitemapkit("build", *args, cwd=root, env=QUIET_ENV, timeout=300)


@pytest.fixture
def adapter_entries(repository: Path) -> dict[str, dict]:
    site = Project(copy_of(repository, "mkdocs")).build()
    return sitemap_entries(site)


def test_adapter_sitemap_has_the_shapes_compared(adapter_entries):
    # The comparison below means something only if the adapter's sitemap holds
    # git dates, a front-matter date and leaves pages out.
    assert adapter_entries["https://example.org/guide/install/"]["lastmod"] == "2023-07-08T09:10:11+00:00"
    assert adapter_entries["https://example.org/guide/"]["lastmod"] == "2020-05-01T10:00:00+00:00"
    assert adapter_entries["https://example.org/dated/"]["lastmod"] == "2021-03-04"
    assert "https://example.org/hidden/" not in adapter_entries
    assert "https://example.org/archive/old/" not in adapter_entries
    assert len(adapter_entries) == len(LISTED_DIRECTORY_URLS)


@pytest.mark.parametrize("config", ["mkdocs.yml", "zensical.toml"])
def test_zensical_then_command_gives_the_adapters_sitemap(repository, adapter_entries, config):
    root = copy_of(repository, "zensical")
    zensical_build(root, config)
    # Zensical writes a sitemap of its own, without a single lastmod.
    assert b"<lastmod>" not in (root / "site" / "sitemap.xml").read_bytes()

    result = sitemapkit(root, "--config", config)
    assert result.returncode == 0, result.stderr
    assert f"sitemapkit: {len(LISTED_DIRECTORY_URLS)} URLs" in result.stdout
    assert sitemap_entries(root / "site") == adapter_entries
    robots = (root / "site" / "robots.txt").read_text(encoding="utf-8")
    assert "Sitemap: https://example.org/sitemap.xml" in robots


def test_mkdocs_without_the_plugin_then_command(repository, adapter_entries):
    """ProperDocs and plain MkDocs builds: the plugin line removed, the command after."""
    root = copy_of(repository, "plain")
    project = Project(root)
    project.configure(plugins=["search", {"redirects": {"redirect_maps": {"moved.md": "guide/install.md"}}}])
    site = project.build()
    assert (site / "sitemap.xml.gz").is_file()  # MkDocs' own, dated by the build
    # The plugin's options, once in mkdocs.yml, now given as flags.
    result = sitemapkit(root, "--config", "mkdocs.yml", "--exclude", "archive/*")
    assert result.returncode == 0, result.stderr
    assert sitemap_entries(site) == adapter_entries
    # MkDocs' own sitemap.xml.gz is rewritten from ours, never left stale.
    assert gzip.decompress((site / "sitemap.xml.gz").read_bytes()) == (site / "sitemap.xml").read_bytes()


def test_use_directory_urls_false(repository):
    for name in ("mkdocs", "zensical"):
        Project(copy_of(repository, name)).configure(use_directory_urls=False)
    adapter = sitemap_entries(Project(repository.parent / "mkdocs").build())
    root = repository.parent / "zensical"
    zensical_build(root, "mkdocs.yml")
    result = sitemapkit(root, "--config", "mkdocs.yml")
    assert result.returncode == 0, result.stderr
    assert sitemap_entries(root / "site") == adapter
    assert "https://example.org/guide/install.html" in adapter
    assert "https://example.org/guide/index.html" in adapter


def test_unreadable_config_is_one_line(tmp_path):
    (tmp_path / "mkdocs.yml").write_text("site_url: [unclosed\n", encoding="utf-8")
    result = sitemapkit(tmp_path, "--config", "mkdocs.yml")
    assert result.returncode == 2
    # PyYAML's own words, after the file and the line.
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("sitemapkit: error: mkdocs.yml: line 2: "), lines
    result = sitemapkit(tmp_path, "--config", "missing.yml")
    assert result.stderr.strip() == "sitemapkit: error: --config 'missing.yml': No such file or directory"


def test_config_without_site_url_names_it(repository):
    root = copy_of(repository, "nourl")
    Project(root).configure(drop=("site_url",))
    (root / "site").mkdir()
    result = sitemapkit(root, "--config", "mkdocs.yml")
    assert result.returncode == 2
    assert "mkdocs.yml: site_url: is not set" in result.stderr
    assert "Traceback" not in result.stderr


def test_read_the_docs_url_stands_in_for_an_unset_site_url_as_in_the_adapter(repository):
    rtd = "https://fixture.readthedocs.io/en/latest/"
    adapter = Project(copy_of(repository, "mkdocs"))
    adapter.configure(drop=("site_url",))
    built = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(adapter.config_file)],
        cwd=adapter.root,
        env={**QUIET_ENV, "READTHEDOCS_CANONICAL_URL": rtd},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert built.returncode == 0, built.stderr
    root = copy_of(repository, "plain")
    project = Project(root)
    project.configure(
        drop=("site_url",), plugins=["search", {"redirects": {"redirect_maps": {"moved.md": "guide/install.md"}}}]
    )
    site = project.build()
    result = run_sitemapkit(
        "build",
        "--config",
        "mkdocs.yml",
        "--exclude",
        "archive/*",
        cwd=root,
        env={**QUIET_ENV, "READTHEDOCS_CANONICAL_URL": rtd},
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    entries = sitemap_entries(site)
    assert entries == sitemap_entries(adapter.site)
    assert rtd + "guide/install/" in entries and all(url.startswith(rtd) for url in entries)


def test_under_another_name_the_generators_sitemap_goes(repository):
    root = copy_of(repository, "txt")
    zensical_build(root, "mkdocs.yml")
    assert (root / "site" / "sitemap.xml").is_file()
    result = sitemapkit(root, "--config", "mkdocs.yml", "--format", "txt")
    assert result.returncode == 0, result.stderr
    text = (root / "site" / "sitemap.txt").read_text().split()
    assert len(text) == len(LISTED_DIRECTORY_URLS)
    # Zensical's instant navigation reads sitemap.xml: ours, the same pages, replaces
    # the generator's (with no lastmod, listing noindex pages); its .gz copy goes.
    assert sorted(sitemap_entries(root / "site")) == sorted(text)
    assert not (root / "site" / "sitemap.xml.gz").exists()


def test_a_text_sitemaps_sitemap_xml_is_the_same_from_the_adapter_and_the_command(repository):
    """With ``format: txt`` both write the sitemap.xml Material's instant navigation
    reads beside sitemap.txt: one function writes it, so the two are the same bytes."""
    adapter = Project(copy_of(repository, "mkdocs"))
    adapter.configure(sitemapkit={"format": "txt"})
    result = adapter.cli("build")
    assert result.returncode == 0, result.stderr
    assert sitemapkit_package.XML_COMPANION_NOTE in result.stderr, result.stderr

    root = copy_of(repository, "plain")
    project = Project(root)
    project.configure(plugins=["search", {"redirects": {"redirect_maps": {"moved.md": "guide/install.md"}}}])
    site = project.build()
    command = sitemapkit(root, "--config", "mkdocs.yml", "--exclude", "archive/*", "--format", "txt")
    assert command.returncode == 0, command.stderr
    assert command.stdout.splitlines()[0] == sitemapkit_package.XML_COMPANION_NOTE
    for name in ("sitemap.txt", "sitemap.xml"):
        assert (site / name).read_bytes() == (adapter.site / name).read_bytes(), name
    assert len(sitemap_entries(site)) == len(LISTED_DIRECTORY_URLS)
