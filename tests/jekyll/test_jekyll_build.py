"""``sitemapkit build --config _config.yml`` on a site built by the real Jekyll 4.3
with jekyll-sitemap (Debian's packages), in git with set dates (fixtures/jekyll):
jekyll-sitemap's URLs, its dates where it has true ones, git's where it has
none (pages) or the build's clock (a collection's documents, static files)."""

from __future__ import annotations

import datetime as dt
import shutil
import subprocess
from pathlib import Path

import pytest
from lxml import etree

from conftest import FIXTURES, SITEMAP_NS, assert_valid, git, run_sitemapkit, running_in_ci, sitemap_entries
from sitemapkit.protocol.dates import lastmod_instant

BASE = "https://example.org/site/"
INSTALL = "install Debian's Jekyll 4.3 and jekyll-sitemap: sudo apt-get install jekyll ruby-jekyll-sitemap"
#: The day each source was last committed (one a day, in name order, from here).
FIRST_COMMIT = dt.datetime(2023, 1, 2, 12, tzinfo=dt.timezone.utc)


def jekyll() -> str:
    found = shutil.which("jekyll")
    if found is None:
        if running_in_ci():
            pytest.fail(f"jekyll not found; {INSTALL} (CI is set, so this is a failure, not a skip)")
        pytest.skip(f"jekyll not found; {INSTALL}")
    return found


@pytest.fixture
def project(tmp_path: Path) -> tuple[Path, dict[str, dt.datetime]]:
    """fixtures/jekyll in a repository of its own, each file committed on a day of
    its own; built by Jekyll (jekyll-sitemap's sitemap kept as theirs.xml)."""
    binary = jekyll()
    root = tmp_path / "site"
    shutil.copytree(FIXTURES / "jekyll", root)
    (root / ".gitignore").write_text("_site/\n.jekyll-cache/\n")
    git(root, "init", "-q", "-b", "main")
    dates = {}
    for day, path in enumerate(sorted(p for p in root.rglob("*") if p.is_file() and ".git" not in p.parts)):
        name = path.relative_to(root).as_posix()
        git(root, "add", name)
        git(root, "commit", "-q", "-m", name, when=FIRST_COMMIT + dt.timedelta(days=day))
        dates[name] = FIRST_COMMIT + dt.timedelta(days=day)
    done = subprocess.run([binary, "build", "--quiet"], cwd=root, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    shutil.copy(root / "_site" / "sitemap.xml", root / "theirs.xml")
    return root, dates


def read_theirs(path: Path) -> dict[str, str | None]:
    root = etree.parse(str(path)).getroot()
    return {
        url.findtext(f"{{{SITEMAP_NS}}}loc"): url.findtext(f"{{{SITEMAP_NS}}}lastmod")
        for url in root.iterfind(f"{{{SITEMAP_NS}}}url")
    }


def instant(value):
    return None if value is None else lastmod_instant(value)


def test_same_urls_as_jekyll_sitemap_and_true_dates(project):
    root, dates = project
    theirs = read_theirs(root / "theirs.xml")
    done = run_sitemapkit("build", "--config", "_config.yml", "--verbose", cwd=root)
    assert done.returncode == 0, done.stderr
    ours = {loc: entry["lastmod"] for loc, entry in sitemap_entries(root / "_site").items()}
    assert_valid(root / "_site" / "sitemap.xml")
    assert set(ours) == set(theirs)
    # Posts: their date (the file name's, front matter's) or last_modified_at, as jekyll-sitemap.
    for path in ("news/2021/03/04/first-post.html", "2021/05/06/second.html", "blog/2022/02/03/in-blog.html"):
        assert instant(ours[BASE + path]) == instant(theirs[BASE + path]), path
    assert instant(ours[BASE + "contact.html"]) == instant(theirs[BASE + "contact.html"])
    # Pages without dates of their own, and what jekyll-sitemap dates by the
    # build's clock (a collection's document, a static file): their git dates.
    for path, source in {
        "": "index.md",
        "about-us/": "about.md",
        "docs/": "docs/index.md",
        "docs/guide.html": "docs/guide.md",
        "cooking/soup/": "_recipes/soup.md",
        "plain.html": "plain.html",
    }.items():
        assert instant(ours[BASE + path]) == dates[source], path
    assert theirs[BASE + "about-us/"] is None and theirs[BASE + "docs/guide.html"] is None
    # Left out, as jekyll-sitemap leaves them: sitemap: false, the error page.
    assert "excluded (metadata): https://example.org/site/hidden.html" in done.stdout
    assert "excluded (metadata): https://example.org/site/cooking/mains/stew/" in done.stdout
    assert "excluded (error page): https://example.org/site/404.html" in done.stdout


def test_bad_settings_are_one_line(project):
    root, _ = project
    config = root / "_config.yml"
    config.write_text(config.read_text().replace("url: https://example.org", "url: ftp://example.org"))
    done = run_sitemapkit("build", "--config", "_config.yml", cwd=root)
    assert done.returncode == 2
    assert (
        done.stderr
        == "sitemapkit: error: _config.yml: url: 'ftp://example.org' is not an absolute http(s) URL with a host\n"
    )
    # As written, never read as unset nor joined with baseurl (/site).
    for written in ('"/"', "http://"):
        config.write_text(f"url: {written}\nbaseurl: /site\n")
        done = run_sitemapkit("build", "--config", "_config.yml", cwd=root)
        shown = written.strip('"')
        assert done.stderr == (
            f"sitemapkit: error: _config.yml: url: {shown!r} is not an absolute http(s) URL with a host\n"
        ), written
    config.write_text("collections: 3\n")
    done = run_sitemapkit("build", "--config", "_config.yml", cwd=root)
    assert done.stderr.startswith("sitemapkit: error: _config.yml: collections: ") and done.stderr.count("\n") == 1


def test_a_site_built_with_a_local_url_is_named_in_one_warning(project):
    """``jekyll build --config _config.yml,_config_local.yml`` with the local
    ``url`` a preview uses (``jekyll serve`` sets ``http://localhost:4000``),
    then ``sitemapkit build --config _config.yml``: every page's canonical link
    names itself on localhost, so each is left out as a copy of a page there,
    and one warning says the site was built for that base."""
    root, _ = project
    done = run_sitemapkit("build", "--config", "_config.yml", cwd=root)
    assert done.returncode == 0 and "canonical links name each page" not in done.stderr, done.stderr
    (root / "_config_local.yml").write_text("url: http://localhost:4000\n")
    built = subprocess.run(
        [jekyll(), "build", "--quiet", "--config", "_config.yml,_config_local.yml"],
        cwd=root,
        capture_output=True,
        text=True,
    )
    assert built.returncode == 0, built.stderr
    done = run_sitemapkit("build", "--config", "_config.yml", cwd=root)
    assert done.returncode == 0, done.stderr
    warned = [line for line in done.stderr.splitlines() if "canonical links name each page" in line]
    assert len(warned) == 1, done.stderr
    assert "under http://localhost:4000/site/ instead of https://example.org/site/" in warned[0]
    # Only the page without a layout, which names no canonical, is listed.
    assert set(sitemap_entries(root / "_site")) == {BASE + "plain.html"}


def test_source_and_destination_as_jekyll_reads_them(tmp_path):
    """``source`` and ``destination`` in _config.yml (relative to it): the pages
    are found where Jekyll wrote them and dated by the sources where Jekyll read
    them, with the same URLs as jekyll-sitemap's."""
    binary = jekyll()
    root = tmp_path / "project"
    shutil.copytree(FIXTURES / "jekyll", root / "src")
    (root / "src" / "_config.yml").rename(root / "_config.yml")
    with (root / "_config.yml").open("a") as config:
        config.write("source: src\ndestination: public\n")
    (root / ".gitignore").write_text("public/\n.jekyll-cache/\nsrc/.jekyll-cache/\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "all", when=FIRST_COMMIT)
    about = root / "src" / "about.md"
    about.write_text(about.read_text() + "\nMore.\n")
    later = FIRST_COMMIT + dt.timedelta(days=30)
    git(root, "commit", "-q", "-am", "about", when=later)
    done = subprocess.run([binary, "build", "--quiet"], cwd=root, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert (root / "public" / "sitemap.xml").is_file() and not (root / "_site").exists()
    theirs = read_theirs(root / "public" / "sitemap.xml")
    done = run_sitemapkit("build", "--config", "_config.yml", cwd=root)
    assert done.returncode == 0, done.stderr
    ours = {loc: entry["lastmod"] for loc, entry in sitemap_entries(root / "public").items()}
    assert set(ours) == set(theirs)
    assert instant(ours[BASE + "about-us/"]) == later
    assert instant(ours[BASE + "docs/"]) == FIRST_COMMIT
