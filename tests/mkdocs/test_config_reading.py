"""What `sitemapkit build --config` reads without MkDocs, compared with what MkDocs
itself reads: its YAML (PyYAML), its front matter (mkdocs.utils.meta.get_data) and its
exclude_docs matching (pathspec's GitIgnoreSpec), all installed in this environment."""

from __future__ import annotations

import datetime as dt
import sys
from pathlib import Path

import pathspec
import pytest
import yaml
from mkdocs.utils.meta import get_data

from sitemapkit import SitemapkitError, front_matter_lastmod, front_matter_listed
from sitemapkit.site.frontmatter import FRONT_MATTER_KEYS, read_front_matter
from sitemapkit.config.mkdocs import GitIgnorePatterns, read_project_config
from sitemapkit.site.yamlsubset import YamlSubsetError, read_top_level

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"

DOCUMENTS = [
    (FIXTURES / "mkdocs" / "mkdocs.yml").read_text(encoding="utf-8"),
    (FIXTURES / "mkdocs-i18n" / "mkdocs.yml").read_text(encoding="utf-8"),
    # Shapes found in real mkdocs.yml files and front matter.
    """\
site_name: "Docs: the \\"real\\" ones"   # a comment
site_url: https://example.org/docs/
use_directory_urls: false
docs_dir: 'source''s'
theme:
  name: material
  features: [navigation.tabs, "search.suggest"]
  palette: {scheme: slate, primary: indigo}
exclude_docs: |
  *.tmp.md
  /private/   # part of the text in a block

  !keep.md
draft_docs: >-
  drafts/
  wip.md
not_in_nav: |+
  orphan.md

plugins:
- search:
    lang: [en, fr]
- sitemapkit:
    exclude:
    - archive/*
    - 'q#r'
    gzip_copy: yes
    priority: 0.5
    max_urls: 1_000
extra:
  version: 1.0
""",
    """\
date:
  created: 2024-05-01
  updated: 2024-06-01 10:00:00
lastmod: "2024-01-02"
sitemap: off
tags:
  - a
  - b: c
""",
    yaml.safe_dump(
        {"exclude_docs": "secret.md\n/drafts/\n\n*.tmp\n", "draft_docs": "a b c " * 30, "site_url": "https://x.org/"},
        width=40,
    ),
]


def pyyaml(text: str, keys) -> dict:
    """PyYAML's reading, dates written as text (as they reach the core's date rule)."""

    def plain(value):
        if isinstance(value, (dt.date, dt.datetime)):
            return str(value)
        if isinstance(value, dict):
            return {k: plain(v) for k, v in value.items()}
        if isinstance(value, list):
            return [plain(v) for v in value]
        return value

    return {k: plain(v) for k, v in yaml.safe_load(text).items() if k in keys}


@pytest.mark.parametrize("text", DOCUMENTS, ids=range(len(DOCUMENTS)))
def test_reads_what_pyyaml_reads(text):
    keys = set(yaml.safe_load(text))
    assert read_top_level(text, keys) == pyyaml(text, keys)


def test_unwanted_keys_are_never_parsed():
    text = (
        "markdown_extensions:\n  - pymdownx.emoji:\n      emoji_index: !!python/name:material.extensions.emoji.twemoji\n"
        "anchors: &a {x: 1}\nalias: *a\nsite_url: https://example.org/\n"
    )
    assert read_top_level(text, {"site_url"}) == {"site_url": "https://example.org/"}
    with pytest.raises(YamlSubsetError, match="line 5: anchors and aliases"):
        read_top_level(text, {"alias"})


def test_env_tag(monkeypatch):
    monkeypatch.setenv("SITE_URL", "https://from.env/")
    monkeypatch.delenv("UNSET_URL", raising=False)
    text = "site_url: !ENV [UNSET_URL, SITE_URL, 'https://default/']\nsite_dir: !ENV [UNSET_URL, 'out']\n"
    assert read_top_level(text, {"site_url", "site_dir"}) == {"site_url": "https://from.env/", "site_dir": "out"}


PATTERNS = "secret.md\n/drafts/\nnotes/\n*.tmp.md\n!keep.tmp.md\nguide/**/old.md\n[ab]?.md\n"
PATHS = [
    "secret.md",
    "a/secret.md",
    "drafts/x.md",
    "a/drafts/x.md",
    "notes/x.md",
    "a/notes/b/x.md",
    "notes.md",
    "x.tmp.md",
    "a/keep.tmp.md",
    "keep.tmp.md",
    "guide/old.md",
    "guide/a/b/old.md",
    "old.md",
    "a1.md",
    "c1.md",
    ".hidden.md",
    "a/.git/x.md",
    "templates/x.md",
    "a/templates/x.md",
    "index.md",
]


@pytest.mark.parametrize("path", PATHS)
def test_exclusions_match_as_mkdocs_matches_them(path):
    text = ".*\n/templates/\n" + PATTERNS  # MkDocs' own exclusions, then the user's
    expected = pathspec.gitignore.GitIgnoreSpec.from_lines(text.splitlines()).match_file(path)
    assert GitIgnorePatterns(text).match(path) == expected


FRONT_MATTER = [
    "---\ntitle: A\ndate: 2024-05-01\n---\n\n# A\n",
    "---\ndate:\n  created: 2024-05-01\n  updated: 2024-06-01 10:00:00\nsitemap: false\n---\n# B\n",
    "---\nlastmod: '2024-01-02T03:04:05+02:00'\ntags: [x, y]\nauthors:\n  - name: A\n    email: a@example.org\n---\n",
    "Title: MultiMarkdown\nDate: 2024-05-01\nSitemap: false\n\n# C\n",
    "# No front matter\n\ndate: 2024-05-01\n",
    "---\nsitemap: no\n...\nBody\n",
]


@pytest.mark.parametrize("text", FRONT_MATTER, ids=range(len(FRONT_MATTER)))
def test_front_matter_as_mkdocs_reads_it(tmp_path, text):
    page = tmp_path / "page.md"
    page.write_text(text, encoding="utf-8")
    ours = read_front_matter(page)
    try:
        theirs = get_data(text)[1]
    except yaml.YAMLError:  # pragma: no cover
        theirs = {}
    theirs = {k: v for k, v in theirs.items() if k in FRONT_MATTER_KEYS}
    assert front_matter_listed(ours) == front_matter_listed(theirs)
    ours_date, theirs_date = front_matter_lastmod(ours), front_matter_lastmod(theirs)
    assert (None if ours_date is None else str(ours_date)) == (None if theirs_date is None else str(theirs_date))


def test_front_matter_it_cannot_read_names_file_and_line(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("---\ntitle: x\ndate: &d 2024-05-01\n---\n", encoding="utf-8")
    with pytest.raises(SitemapkitError, match=r"page\.md: front matter line 3: anchors and aliases"):
        read_front_matter(page)


@pytest.mark.skipif(sys.version_info < (3, 11), reason="zensical.toml is read with tomllib, Python 3.11 or later")
def test_project_settings_from_either_file(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "mkdocs.yml").write_text(
        "site_url: https://example.org/\nsite_dir: public\nuse_directory_urls: false\n"
        "exclude_docs: |\n  secret.md\nplugins:\n  - sitemapkit:\n      gzip: true\n",
        encoding="utf-8",
    )
    (tmp_path / "zensical.toml").write_text(
        '[project]\nsite_url = "https://example.org/"\nsite_dir = "public"\nuse_directory_urls = false\n'
        'exclude_docs = """\nsecret.md\n"""\n[project.plugins.sitemapkit]\ngzip = true\n',
        encoding="utf-8",
    )
    yml, toml = read_project_config(tmp_path / "mkdocs.yml"), read_project_config(tmp_path / "zensical.toml")
    for config in (yml, toml):
        assert config.site_url == "https://example.org/"
        assert config.site_dir == tmp_path.resolve() / "public"
        assert config.docs_dir == tmp_path.resolve() / "docs"
        assert config.use_directory_urls is False
        assert config.exclude_docs == "secret.md\n"
        assert config.plugin_options == {"gzip": True}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("use_directory_urls: sometimes\n", "mkdocs.yml: use_directory_urls: 'sometimes' must be true or false"),
        ("exclude_docs: [a.md]\n", "mkdocs.yml: exclude_docs: must be a multi-line string of gitignore-style patterns"),
        ("plugins: search\n", "mkdocs.yml: plugins: must be a list or a mapping"),
        ("site_url: 'unclosed\n", "mkdocs.yml: line 1: a quoted string is not closed"),
    ],
)
def test_bad_settings_name_the_file_and_setting(tmp_path, text, message):
    (tmp_path / "mkdocs.yml").write_text(text, encoding="utf-8")
    with pytest.raises(SitemapkitError) as raised:
        read_project_config(tmp_path / "mkdocs.yml")
    assert str(raised.value) == message


def test_scalars_on_lines_of_their_own():
    text = "site_url:\n  https://example.org/\n  docs/\nsite_dir:\n  'a\n  b'\nuse_directory_urls:\n  no\n"
    keys = {"site_url", "site_dir", "use_directory_urls"}
    assert read_top_level(text, keys) == pyyaml(text, keys)
