"""``sitemapkit build --config hugo.toml`` on a multilingual site built by the real
Hugo with ``enableGitInfo``: the URLs of Hugo's own sitemap, the dates Hugo gives
them, and the pagination Hugo's sitemap leaves out (fixtures/hugo)."""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import assert_valid, git, run_sitemapkit, sitemap_entries
from hugo.conftest import FIRST_COMMIT, hugo_alternates, hugo_sitemap, run_hugo
from sitemapkit.protocol.dates import lastmod_instant

BASE = "https://example.org/"
PAGER = re.compile(r"(.*/)?page/\d+/(?:index\.html)?\Z")


def build_both(root: Path, *config: str, hugo_args: tuple[str, ...] = ()) -> tuple[dict, dict, str]:
    """Hugo's sitemap, then ours (``sitemapkit build --config ...``) of the same
    build: URL -> lastmod of each, and what ours said on stderr."""
    run_hugo(root, *hugo_args)
    theirs = hugo_sitemap(root / "public")
    done = run_sitemapkit("build", "--config", *(config or ("hugo.toml",)), cwd=root)
    assert done.returncode == 0, done.stderr
    ours = {loc: entry["lastmod"] for loc, entry in sitemap_entries(root / "public").items()}
    return theirs, ours, done.stderr


def instant(value):
    return None if value is None else lastmod_instant(value)


def assert_as_hugo(theirs: dict, ours: dict, base: str = BASE, paginated: bool = True) -> None:
    """The same URLs as Hugo's sitemap, and its pagination; the same date on every
    URL Hugo dates; a pagination page with its list's date."""
    pagination = {loc for loc in ours if PAGER.match(loc[len(base) :])}
    assert bool(pagination) == paginated, "the fixture's English pages paginate"
    assert set(ours) - pagination == set(theirs)
    assert {loc: instant(ours[loc]) for loc, date in theirs.items() if date} == {
        loc: instant(date) for loc, date in theirs.items() if date
    }
    for loc in pagination:
        owner = PAGER.match(loc[len(base) :]).group(1) or ""
        list_loc = base + owner if base + owner in ours else base + owner + "index.html"
        assert ours[loc] == ours[list_loc], loc


def test_same_urls_and_dates_as_hugos_sitemap(project):
    theirs, ours, err = build_both(project)
    assert err == ""
    assert_as_hugo(theirs, ours)
    # What the fixture shows, spelled out (the commit of each file is a day after the last):
    # a section with an _index.md has its own date, not its newest page's.
    assert instant(ours[BASE + "posts/"]) == instant(theirs[BASE + "posts/"]) < instant(ours[BASE + "posts/first/"])
    # Sections without a source (de/posts/, notes/), taxonomies and terms: their newest page.
    assert ours[BASE + "notes/"] == ours[BASE + "notes/second-note/"]
    assert ours[BASE + "de/posts/"] == ours[BASE + "de/posts/first/"]
    assert ours[BASE + "tags/"] == ours[BASE + "posts/second/"]
    # A top-level folder holding no page, only a section with an _index.md: a
    # section still, dated by what it holds.
    assert ours[BASE + "manuals/"] == ours[BASE + "manuals/v1/"] == theirs[BASE + "manuals/"] is not None
    # The French pages, from their own contentDir, are dated by it.
    assert ours[BASE + "fr/posts/autre/"] is not None
    # Pages Hugo does not list: a draft (not built), sitemap.disable, the alias stub, 404s.
    for path in ("posts/draft/", "posts/hidden/", "old-first/", "404.html", "en/", "posts/page/1/"):
        assert BASE + path not in ours
    # Pages its [permalinks] moved, each still its source's page: dated by it, and
    # left out where its front matter says so (journal/quiet.md); a section's
    # folder is in :sections only with an _index.md (guides/plain/ is not).
    moved = ["2024/01/hello-world-c-@home-%C3%A9t%C3%A9/", "de/2024/02/hallo-welt/", "2022/07/a-trip/"]
    moved += ["1/01/no-date-given/", "learn/guides/start-here/", "learn/guides/deep/setup-steps/"]
    moved += ["learn/guides/loose/", "2021/12/quoted/"]  # a date written as text, in its own offset
    assert all(ours[BASE + path] == theirs[BASE + path] is not None for path in moved)
    assert BASE + "2023/03/quiet/" not in ours and (project / "public" / "2023" / "03" / "quiet").is_dir()
    # Hugo's language sitemaps are replaced by the one sitemap.
    assert not (project / "public" / "fr" / "sitemap.xml").exists()
    assert_valid(project / "public" / "sitemap.xml")


def test_a_configuration_of_another_name_is_read_as_hugos(project):
    """``hugo --config config-git.toml``: the file is Hugo's by what it holds."""
    shutil.copy(project / "hugo.toml", project / "config-git.toml")
    theirs, ours, err = build_both(project, "config-git.toml")
    assert err == ""
    assert_as_hugo(theirs, ours)


def test_several_configuration_files_are_merged_as_hugo_merges_them(project):
    """``hugo --config hugo.toml,hugo.production.toml``: the later file's baseURL
    wins, and its ``[languages.fr]`` is merged into the first file's (French keeps
    its own contentDir; its hreflang is the later file's)."""
    files = "hugo.toml,hugo.production.toml"
    theirs, ours, err = build_both(project, files, hugo_args=("--config", files))
    assert err == ""
    production = "https://www.example.org/"
    assert production + "fr/posts/autre/" in theirs
    assert_as_hugo(theirs, ours, base=production)
    alternates = hugo_alternates(project / "public")
    assert ("fr-CA", production + "fr/tags/alpha/") in alternates[production + "tags/alpha/"]
    run_hugo(project, "--config", files)
    assert hugo_alternates(project / "public") == alternates


@pytest.mark.parametrize("named", ["hugo.toml", "config", "config/_default"])
def test_the_configuration_folder_and_its_environment_as_hugo_reads_them(project, named):
    """Hugo reads its configuration folder over the project's own file, whatever
    ``--config`` names: ``config/_default/``, then the environment's folder
    (``production/`` for a plain ``hugo``; ``HUGO_ENVIRONMENT`` names another). A
    deploy's baseURL kept in ``config/production/`` (the fixture's
    hugo.production.toml) is where the pages are served."""
    config = project / "config"
    for name in ("_default", "production", "staging"):
        (config / name).mkdir(parents=True)
    (config / "_default" / "hugo.toml").write_text('baseURL = "http://localhost:1313/"\n')
    shutil.copy(project / "hugo.production.toml", config / "production" / "hugo.toml")
    (config / "staging" / "hugo.yaml").write_text("baseURL: https://staging.example.org/\n")
    # Files directly in config/ are not read, by Hugo nor by sitemapkit.
    (config / "hugo.toml").write_text('baseURL = "https://nowhere.example.org/"\n')
    theirs, ours, err = build_both(project, named)
    assert err == ""
    production = "https://www.example.org/"
    assert production + "fr/posts/autre/" in theirs
    assert_as_hugo(theirs, ours, base=production)
    assert ("fr-CA", production + "fr/tags/alpha/") in hugo_alternates(project / "public")[production + "tags/alpha/"]

    staging = "https://staging.example.org/"
    env = {**os.environ, "HUGO_ENVIRONMENT": "staging"}
    run_hugo(project, env=env)
    theirs = hugo_sitemap(project / "public")
    done = run_sitemapkit("build", "--config", named, cwd=project, env=env)
    assert done.returncode == 0, done.stderr
    assert_as_hugo(theirs, {loc: e["lastmod"] for loc, e in sitemap_entries(project / "public").items()}, base=staging)
    assert ("fr-FR", staging + "fr/tags/alpha/") in hugo_alternates(project / "public")[staging + "tags/alpha/"]
    # A bad setting there is named in its file.
    (config / "staging" / "hugo.yaml").write_text("baseURL: ftp://staging.example.org/\n")
    done = run_sitemapkit("build", "--config", named, cwd=project, env=env)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.startswith("sitemapkit: error: config/staging/hugo.yaml: baseURL: 'ftp://staging.example.org/' ")


def test_a_bad_setting_of_a_later_file_is_named_in_that_file(project):
    (project / "hugo.production.toml").write_text('baseURL = "ftp://www.example.org/"\n')
    run_hugo(project)
    done = run_sitemapkit("build", "--config", "hugo.toml,hugo.production.toml", cwd=project)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.startswith("sitemapkit: error: hugo.production.toml: baseURL: 'ftp://www.example.org/' ")
    assert done.stderr.count("\n") == 1
    (project / "hugo.production.toml").write_text("[languages.fr]\ncontentDir = 3\n")
    done = run_sitemapkit("build", "--config", "hugo.toml,hugo.production.toml", cwd=project)
    assert done.stderr == "sitemapkit: error: hugo.production.toml: languages.fr.contentDir: 3 must be text\n"
    done = run_sitemapkit("build", "--config", "hugo.toml,,hugo.production.toml", cwd=project)
    assert done.stderr == (
        "sitemapkit: error: --config 'hugo.toml,,hugo.production.toml': names an empty file "
        "(files are joined by single commas)\n"
    )


def test_a_cascade_in_the_site_configuration(project):
    """``cascade`` with a ``target`` in hugo.toml: the pages it takes are out of
    Hugo's sitemap and of ours alike, the others stay."""
    _prepend(project / "hugo.toml", 'cascade = [{ sitemap = { disable = true }, target = { path = "/notes/**" } }]\n')
    theirs, ours, _ = build_both(project)
    assert_as_hugo(theirs, ours)
    assert BASE + "notes/second-note/" not in ours and BASE + "notes/" in ours


def test_hugos_sitemap_filename_is_the_name_ours_takes(project):
    """``[sitemap] filename``: ours is written under that name, Hugo's there and in
    each language's folder replaced, none left stale; ``--filename`` still wins."""
    _prepend(project / "hugo.toml", 'sitemap = { filename = "sitemap-main.xml", changefreq = "monthly" }\n')
    run_hugo(project)
    theirs = hugo_sitemap(project / "public", "sitemap-main.xml")
    assert (project / "public" / "fr" / "sitemap-main.xml").is_file()
    done = run_sitemapkit("build", "--config", "hugo.toml", cwd=project)
    assert done.returncode == 0, done.stderr
    ours = {loc: entry["lastmod"] for loc, entry in sitemap_entries(project / "public", "sitemap-main.xml").items()}
    assert_as_hugo(theirs, ours)
    assert not (project / "public" / "sitemap.xml").exists()
    assert not list((project / "public").glob("*/sitemap-main.xml"))
    assert b"<changefreq>" not in (project / "public" / "sitemap-main.xml").read_bytes()
    assert "Sitemap: https://example.org/sitemap-main.xml" in (project / "public" / "robots.txt").read_text()
    done = run_sitemapkit("build", "--config", "hugo.toml", "--filename", "map.xml", cwd=project)
    assert done.returncode == 0, done.stderr
    assert (project / "public" / "map.xml").is_file() and not (project / "public" / "sitemap-main.xml").exists()


@pytest.mark.parametrize("setting", ["languageCode", "locale"])
def test_the_alternates_of_hugos_sitemap(project, setting):
    """Every translated page's hreflang alternates, as Hugo's sitemap gives them:
    pages, sections with or without an _index.md in each language, taxonomies
    and terms; the hreflang is a language's locale (languageCode before Hugo
    0.158: fr-FR), else its key."""
    config = project / "hugo.toml"
    config.write_text(config.read_text().replace('languageCode = "fr-FR"', f'{setting} = "fr-FR"'))
    run_hugo(project)
    theirs = hugo_alternates(project / "public")
    assert len(theirs) == 22 and ("fr-FR", BASE + "fr/tags/alpha/") in theirs[BASE + "tags/alpha/"]
    # A page its permalink moved, and its translation (each language's folder added).
    assert theirs[BASE + "2024/01/hello-world-c-@home-%C3%A9t%C3%A9/"] == {
        ("en", BASE + "2024/01/hello-world-c-@home-%C3%A9t%C3%A9/"),
        ("de", BASE + "de/2024/02/hallo-welt/"),
    }
    done = run_sitemapkit("build", "--config", "hugo.toml", cwd=project)
    assert done.returncode == 0, done.stderr
    ours = hugo_alternates(project / "public")
    assert ours == theirs


def test_a_base_url_the_pages_contradict_is_one_line_and_nothing_written(project):
    """``--base-url https://example.org/`` for a site Hugo built for
    ``https://example.org/docs/``: every page's canonical link names itself
    under /docs/, which this folder does not serve there. One line naming the
    flag; the sitemap published before is left as it was."""
    hugo_toml = project / "hugo.toml"
    hugo_toml.write_text(
        hugo_toml.read_text().replace('baseURL = "https://example.org/"', 'baseURL = "https://example.org/docs/"')
    )
    run_hugo(project)
    done = run_sitemapkit("build", "--config", "hugo.toml", cwd=project)
    assert done.returncode == 0, done.stderr
    before = {name: (project / "public" / name).read_bytes() for name in ("sitemap.xml",)}
    done = run_sitemapkit("build", "--config", "hugo.toml", "--base-url", BASE, cwd=project)
    assert done.returncode == 2
    assert (
        done.stderr.startswith(f"sitemapkit: error: --base-url: '{BASE}': the canonical links of ")
        and "name each page under https://example.org/docs/ instead" in done.stderr
    )
    assert done.stderr.count("\n") == 1
    assert {name: (project / "public" / name).read_bytes() for name in before} == before
    # The folder build the same.
    done = run_sitemapkit("build", "public", "--base-url", BASE, cwd=project)
    assert done.returncode == 2 and "https://example.org/docs/" in done.stderr


def test_a_site_built_for_another_host_is_named_in_one_warning(project):
    """``hugo --baseURL https://staging.example.org/`` (a preview build), then
    ``sitemapkit build --config hugo.toml``, whose baseURL is the production
    host: every page's canonical link names itself on the staging host, so each
    is left out as a copy of a page there. One warning says which base the site
    was built for; nothing is written over the sitemap published before."""
    run_hugo(project)
    done = run_sitemapkit("build", "--config", "hugo.toml", cwd=project)
    assert done.returncode == 0, done.stderr
    assert "canonical" not in done.stderr
    published = (project / "public" / "sitemap.xml").read_bytes()
    staging = "https://staging.example.org/"
    run_hugo(project, "--baseURL", staging)
    (project / "public" / "sitemap.xml").write_bytes(published)
    for command in (["build", "--config", "hugo.toml"], ["build", "public", "--base-url", BASE]):
        done = run_sitemapkit(*command, cwd=project)
        assert done.returncode == 0, done.stderr
        warned = [line for line in done.stderr.splitlines() if "canonical links name each page" in line]
        assert len(warned) == 1, done.stderr
        assert f"under {staging} instead of {BASE}: the site was built for that base URL" in warned[0]
        assert (project / "public" / "sitemap.xml").read_bytes() == published


def test_content_mounted_with_module_mounts(project):
    """hugoDocs' way: ``[[module.mounts]]`` with target ``content`` in place of
    contentDir (the sources in content-en/). The same URLs and dates as Hugo's
    sitemap, front matter read from the mounted sources."""
    (project / "content").rename(project / "content-en")
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "mount the content", when=FIRST_COMMIT + dt.timedelta(days=400))
    _prepend(project / "hugo.toml", 'module = { mounts = [{ source = "content-en", target = "content" }] }\n')
    theirs, ours, err = build_both(project)
    assert err == ""
    assert_as_hugo(theirs, ours)
    assert BASE + "posts/hidden/" not in ours, "sitemap.disable, read from the mounted source"


def test_no_page_undated_that_hugo_dates(project):
    theirs, ours, _ = build_both(project)
    assert [loc for loc, date in theirs.items() if date and not ours[loc]] == []
    # Hugo dates no taxonomy without terms; neither can we.
    assert theirs[BASE + "de/categories/"] is None and ours[BASE + "de/categories/"] is None


def _prepend(config: Path, text: str) -> None:
    """Set the top-level settings ``text`` (``key = value`` lines) in ``config``."""
    body = config.read_text()
    for line in text.splitlines():
        body = re.sub(rf"(?m)^{re.escape(line.split(' = ')[0])} = .*\n", "", body)
    config.write_text(text + body)


@pytest.mark.parametrize(
    "settings",
    [
        "uglyURLs = true\n",
        "defaultContentLanguageInSubdir = true\ndisablePathToLower = true\n",
        # Git first or last: front matter's lastmod wins on posts/second.md.
        '[frontmatter]\nlastmod = ["lastmod", ":git"]\n',
        # Without git info Hugo dates only the pages with front-matter dates.
        "enableGitInfo = false\n",
    ],
    ids=["uglyURLs", "subdir-and-case", "frontmatter-order", "no-git-info"],
)
def test_settings_as_hugo_reads_them(project, settings):
    config = project / "hugo.toml"
    if settings.startswith("["):
        config.write_text(config.read_text() + settings)
    else:
        _prepend(config, settings)
    theirs, ours, _ = build_both(project)
    if "subdir" in settings:
        base_pages = {loc for loc in ours if not PAGER.match(loc[len(BASE) :])}
        assert BASE + "en/posts/Third-Post/" in base_pages
        pagination = {loc for loc in ours if PAGER.match(loc[len(BASE) :])}
        assert base_pages == set(theirs) and pagination
    elif "enableGitInfo" in settings:
        # Hugo dates each page by its front matter only, and a list by the newest
        # page it dates so: the same dates where a page has its own, and never an
        # older one on a list, where ours knows the pages' git dates too.
        pagination = {loc for loc in ours if PAGER.match(loc[len(BASE) :])}
        assert set(ours) - pagination == set(theirs)
        for loc, date in theirs.items():
            if date is not None:
                assert instant(ours[loc]) >= instant(date), loc
        assert instant(ours[BASE + "posts/second/"]) == instant(theirs[BASE + "posts/second/"])
        assert instant(ours[BASE + "posts/"]) > instant(theirs[BASE + "posts/"])
    else:
        assert_as_hugo(theirs, ours)
    if "uglyURLs" in settings:
        assert BASE + "posts/first.html" in ours and BASE + "tags/alpha.html" in ours
    if "frontmatter" in settings:
        assert instant(ours[BASE + "posts/second/"]) == instant("2019-03-04T10:00:00Z")
    if "enableGitInfo" in settings:
        # Where Hugo has no date, ours is the git date of the source.
        undated = [loc for loc, date in theirs.items() if date is None]
        assert BASE + "notes/one/" in undated
        assert ours[BASE + "notes/one/"] is not None


def test_file_mod_time_order(project):
    config = project / "hugo.toml"
    config.write_text(config.read_text() + '[frontmatter]\nlastmod = [":fileModTime"]\n')
    import os

    for day, path in enumerate(sorted((project / "content").rglob("*.md"))):
        stamp = 1_600_000_000 + day * 86_400 + day * 7
        os.utime(path, (stamp, stamp))
    theirs, ours, _ = build_both(project)
    assert_as_hugo(theirs, ours)
    assert instant(ours[BASE + "about-us/"]) is not None


def test_file_name_dates(project):
    """[frontmatter] date = [":filename", ...]: a file named 2020-02-03-dated.md is
    dated so and published as dated/, as Hugo does."""
    config = project / "hugo.toml"
    config.write_text(
        config.read_text() + '[frontmatter]\ndate = [":filename", ":default"]\nlastmod = ["lastmod", ":git", "date"]\n'
    )
    (project / "content" / "notes" / "2020-02-03-dated.md").write_text("---\ntitle: Dated\n---\nBy its name.\n")
    # Committed: Hugo dates an uncommitted file by the next key of the order, ours
    # by its file time (it is being changed now).
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "dated", when=FIRST_COMMIT - dt.timedelta(days=400))
    theirs, ours, _ = build_both(project)
    assert_as_hugo(theirs, ours)
    assert BASE + "notes/dated/" in ours


@pytest.mark.parametrize("form", ["hugo.yaml", "hugo.json", "config.toml", "config/_default"])
def test_config_forms(project, form):
    from sitemapkit.site.dataformats import load_toml

    settings = load_toml((project / "hugo.toml").read_text(), "hugo.toml")
    (project / "hugo.toml").unlink()
    if form == "hugo.yaml":
        (project / form).write_text(yaml.safe_dump(settings))
    elif form == "hugo.json":
        (project / form).write_text(json.dumps(settings))
    elif form == "config.toml":
        shutil.copy(Path(__file__).parents[2] / "fixtures" / "hugo" / "hugo.toml", project / form)
    else:
        folder = project / form
        folder.mkdir(parents=True)
        languages = settings.pop("languages")
        (folder / "hugo.yaml").write_text(yaml.safe_dump(settings))
        (folder / "languages.json").write_text(json.dumps(languages))
    theirs, ours, _ = build_both(project, form)
    assert_as_hugo(theirs, ours)


def test_permalinks_not_read_are_named_and_a_bad_one_is_one_line(project):
    """What this reader does not expand (other kinds' patterns, a section's
    slices, a Go date layout) is named in one warning line, its pages keeping
    the folder's rules; a kind Hugo does not know is one error line."""
    run_hugo(project)
    config = project / "hugo.toml"
    fixture = config.read_text()
    config.write_text(
        fixture.replace(
            'guides = "/learn/:sections/:slugorfilename/"',
            'guides = "/learn/:sections[1:]/:slug/"\n[permalinks.term]\ntags = "/topics/:slug/"',
        )
        + '[languages.de.permalinks]\njournal = "/tagebuch/:title/"\n'
    )
    done = run_sitemapkit("build", "--config", "hugo.toml", cwd=project)
    assert done.returncode == 0, done.stderr
    assert done.stderr == (
        "sitemapkit: warning: hugo.toml: permalinks: page.guides ('/learn/:sections[1:]/:slug/'), term.tags, "
        "languages.de.permalinks not read; the pages they move keep the folder's rules (dated by their heads)\n"
    )
    config.write_text(fixture.replace("[permalinks.page]", "[permalinks.widget]"))
    done = run_sitemapkit("build", "--config", "hugo.toml", cwd=project)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        "sitemapkit: error: hugo.toml: permalinks.widget: is not one of page, section, taxonomy, term\n"
    )


def test_drafts_built_are_left_out(project):
    run_hugo(project, "--buildDrafts")
    done = run_sitemapkit("build", "--config", "hugo.toml", "--verbose", cwd=project)
    assert done.returncode == 0, done.stderr
    assert "excluded (draft): https://example.org/posts/draft/" in done.stdout


def test_a_theme_is_named_not_guessed(project):
    run_hugo(project)
    _prepend(project / "hugo.toml", 'theme = "ananke"\n')
    done = run_sitemapkit("build", "--config", "hugo.toml", cwd=project)
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and "theme" in lines[0] and "ananke" in lines[0] and "is not read" in lines[0]


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ('baseURL = "ftp://example.org/"\n', "hugo.toml: baseURL: 'ftp://example.org/' is not an absolute http(s) URL"),
        ('contentDir = "nowhere"\n', "hugo.toml: contentDir: "),
        ('defaultContentLanguage = "es"\n', "hugo.toml: defaultContentLanguage: 'es' is not one of the languages"),
        ("uglyURLs = 3\n", "hugo.toml: uglyURLs: 3 must be true"),
        ("theme = true\n", "hugo.toml: theme: True must be a theme's name or a list of names"),
        ("theme = 7\n", "hugo.toml: theme: 7 must be a theme's name"),
        ("module = 5\n", "hugo.toml: module: 5 must be a table"),
        ("module = { imports = 5 }\n", "hugo.toml: module.imports: 5 must be a list"),
    ],
)
def test_bad_settings_are_one_line(project, settings, message):
    run_hugo(project)
    config = project / "hugo.toml"
    _prepend(config, settings)
    done = run_sitemapkit("build", "--config", "hugo.toml", cwd=project)
    assert done.returncode == 2
    assert done.stderr.startswith("sitemapkit: error: " + message), done.stderr
    assert len(done.stderr.splitlines()) == 1


def test_bad_front_matter_is_one_line(project):
    run_hugo(project)
    (project / "content" / "notes" / "one.md").write_text("---\ntitle: [unclosed\n---\n")
    done = run_sitemapkit("build", "--config", "hugo.toml", cwd=project)
    assert done.returncode == 2
    assert done.stderr.startswith("sitemapkit: error: content/notes/one.md: front matter"), done.stderr
    assert len(done.stderr.splitlines()) == 1


def test_languages_with_their_own_base_url(project):
    """Hugo's multihost: each language is a site of its own in public/LANG, with
    its own sitemap; so is ours."""
    config = project / "hugo.toml"
    hosts = {"en": "https://en.example.org/", "de": "https://example.de/", "fr": "https://example.fr/blog/"}
    text = config.read_text()
    for code, url in hosts.items():
        text = text.replace(f"[languages.{code}]\n", f'[languages.{code}]\nbaseURL = "{url}"\n')
    config.write_text(text)
    run_hugo(project)
    theirs = {code: hugo_sitemap(project / "public" / code) for code in hosts}
    done = run_sitemapkit("build", "--config", "hugo.toml", cwd=project)
    assert done.returncode == 0, done.stderr
    assert [line.split(":")[1] for line in done.stdout.splitlines()] == [" en/", " de/", " fr/"]
    for code, url in hosts.items():
        ours = {loc: entry["lastmod"] for loc, entry in sitemap_entries(project / "public" / code).items()}
        assert_as_hugo(theirs[code], ours, url, paginated=code == "en")
    assert not (project / "public" / "sitemap.xml").exists()
    # A reader that takes the first site's line and goes (`| head -1`) stops
    # none of the others: each site's sitemap is written again, and nothing is
    # said of the pipe.
    written = {
        code: {
            name: path.read_bytes()
            for name in ("sitemap.xml", "robots.txt")
            if (path := project / "public" / code / name).exists()
        }
        for code in hosts
    }
    for code, files in written.items():
        for name in files:
            (project / "public" / code / name).unlink()
    command = [str(Path(sys.executable).with_name("sitemapkit")), "build", "--config", "hugo.toml"]
    unbuffered = {**os.environ, "PYTHONUNBUFFERED": "1"}
    with subprocess.Popen(command, cwd=project, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=unbuffered) as head:
        assert b" en/" in head.stdout.readline()
        head.stdout.close()
        stderr = head.stderr.read()
    # Its warnings are the build's own, as before; nothing about the pipe.
    assert (head.returncode, stderr.decode()) == (0, done.stderr)
    for code, files in written.items():
        assert {name: (project / "public" / code / name).read_bytes() for name in files} == files
