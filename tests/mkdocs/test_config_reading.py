"""What `sitemapkit build --config` reads, compared with what MkDocs itself reads from
the same files: MkDocs' own load_config (its YAML, its tags, INHERIT, its checks), its
front matter (mkdocs.utils.meta.get_data) and its exclusions (mkdocs.structure.files),
all installed in this environment."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from mkdocs.config import load_config
from mkdocs.exceptions import Abort, ConfigurationError
from mkdocs.structure.files import get_files
from mkdocs.utils.meta import get_data

from conftest import run_sitemapkit

from sitemapkit import SitemapkitError, front_matter_lastmod, front_matter_listed
from sitemapkit.config.mkdocs import options_for, read_project_config
from sitemapkit.site.frontmatter import FRONT_MATTER_KEYS, read_front_matter

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def mkdocs_reading(config_file: Path) -> dict:
    """The settings the sitemap depends on, as MkDocs' own load_config gives them."""
    config = load_config(str(config_file))
    plugin = config.plugins.get("sitemapkit")
    options = {} if plugin is None else dict(plugin.config)
    return {
        "site_url": config.site_url,
        "docs_dir": Path(config.docs_dir).resolve(),
        "site_dir": Path(config.site_dir).resolve(),
        "use_directory_urls": config.use_directory_urls,
        # MkDocs fills in every option; unset ones are None (or [] for lists).
        "plugin_options": {k: v for k, v in options.items() if v is not None and v != []},
    }


def our_reading(config_file: Path) -> dict:
    config = read_project_config(config_file)
    return {
        "site_url": config.site_url,
        "docs_dir": config.docs_dir.resolve(),
        "site_dir": config.site_dir.resolve(),
        "use_directory_urls": config.use_directory_urls,
        "plugin_options": {k: v for k, v in config.plugin_options.items() if v is not None and v != []},
    }


def write_project(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    (root / "docs").mkdir(exist_ok=True)
    (root / "docs" / "index.md").write_text("# Home\n", encoding="utf-8")
    return root / "mkdocs.yml"


# Real configurations, one feature of MkDocs' YAML each: the file named on the
# command line is mkdocs.yml.
PROJECTS: dict[str, dict[str, str]] = {
    # Three files: the paths in the parents stay relative to mkdocs.yml, mappings
    # merge key by key at any depth, lists are replaced.
    "inherit-chain": {
        "config/base.yml": """\
site_url: https://base.example/
docs_dir: docs
site_dir: public
use_directory_urls: false
theme:
  name: material
  features: [navigation.tabs]
plugins:
  search: {}
  sitemapkit:
    gzip: true
    exclude: [a/*]
""",
        "config/mid.yml": """\
INHERIT: base.yml
site_url: https://mid.example/docs/
plugins:
  sitemapkit:
    max_urls: 500
""",
        "mkdocs.yml": """\
INHERIT: config/mid.yml
site_name: chain
plugins:
  sitemapkit:
    exclude: [b/*]
""",
    },
    # A list in the child replaces the parent's mapping, options and all.
    "inherit-list-over-mapping": {
        "base.yml": "site_url: https://base.example/\nplugins:\n  sitemapkit:\n    gzip: true\n",
        "mkdocs.yml": "INHERIT: ./base.yml\nsite_name: t\nplugins: [search, sitemapkit]\n",
    },
    "env": {
        "mkdocs.yml": """\
site_name: env
site_url: !ENV [SITEMAPKIT_TEST_UNSET, SITEMAPKIT_TEST_URL, 'https://default.example/']
use_directory_urls: !ENV [SITEMAPKIT_TEST_DIRS, true]
site_dir: !ENV SITEMAPKIT_TEST_SITE_DIR
plugins:
  - sitemapkit:
      max_urls: !ENV [SITEMAPKIT_TEST_MAX, 100]
      gzip: !ENV [SITEMAPKIT_TEST_GZIP, false]
""",
    },
    # !relative where MkDocs resolves it: Markdown extensions' options.
    "relative": {
        "mkdocs.yml": """\
site_name: relative
site_url: https://example.org/
markdown_extensions:
  - pymdownx.snippets:
      base_path:
        - !relative $config_dir/snippets
        - !relative $docs_dir/includes
        - !relative
plugins:
  - sitemapkit:
      gzip: true
""",
    },
    "anchors-and-merge-keys": {
        "mkdocs.yml": """\
site_name: anchors
site_url: &url https://example.org/docs/
extra:
  canonical: *url
  defaults: &defaults
    gzip: true
    max_urls: 1000
    exclude: &excluded [drafts/*, old/*]
plugins:
  - search
  - sitemapkit:
      <<: *defaults
      max_urls: 500
      exclude: *excluded
""",
    },
    "python-name-tags": {
        "mkdocs.yml": """\
site_name: tags
site_url: https://example.org/
theme: {name: material}
markdown_extensions:
  - pymdownx.emoji:
      emoji_index: !!python/name:material.extensions.emoji.twemoji
      emoji_generator: !!python/name:material.extensions.emoji.to_svg
  - pymdownx.superfences:
      custom_fences:
        - name: mermaid
          class: mermaid
          format: !!python/name:pymdownx.superfences.fence_code_format
plugins: [search, sitemapkit]
""",
    },
    "flow-across-lines": {
        "mkdocs.yml": """\
site_name: flow
site_url: https://example.org/
use_directory_urls: no
plugins: [search,
  sitemapkit]
""",
    },
    "flow-options-across-lines": {
        "mkdocs.yml": """\
site_name: flow
site_url: "https://example.org/a b/"
plugins: [search, {sitemapkit: {gzip: true,
    max_urls: 10, exclude: [
      "x/*",
      'y/*']}}]
""",
    },
}

ENVIRONMENTS = {
    "unset": {},
    "set": {
        "SITEMAPKIT_TEST_URL": "https://from.env/",
        "SITEMAPKIT_TEST_DIRS": "false",
        "SITEMAPKIT_TEST_SITE_DIR": "out",
        "SITEMAPKIT_TEST_MAX": "7",
        "SITEMAPKIT_TEST_GZIP": "yes",
    },
}


@pytest.mark.parametrize("environment", list(ENVIRONMENTS))
@pytest.mark.parametrize("name", list(PROJECTS))
def test_reads_what_mkdocs_reads(tmp_path, monkeypatch, name, environment):
    for variable in ENVIRONMENTS["set"]:
        monkeypatch.delenv(variable, raising=False)
    for variable, value in ENVIRONMENTS[environment].items():
        monkeypatch.setenv(variable, value)
    config_file = write_project(tmp_path, PROJECTS[name])
    assert our_reading(config_file) == mkdocs_reading(config_file)


def test_an_inherit_chain_merges_as_mkdocs_merges(tmp_path):
    # What the comparison above holds MkDocs to, written out.
    config_file = write_project(tmp_path, PROJECTS["inherit-chain"])
    config = read_project_config(config_file)
    assert config.site_url == "https://mid.example/docs/"
    assert (config.docs_dir, config.site_dir) == (tmp_path.resolve() / "docs", tmp_path.resolve() / "public")
    assert config.use_directory_urls is False
    assert config.plugin_options == {"gzip": True, "exclude": ["b/*"], "max_urls": 500}
    config_file = write_project(tmp_path, PROJECTS["inherit-list-over-mapping"])
    assert read_project_config(config_file).plugin_options == {}


@pytest.mark.parametrize("fixture", ["mkdocs", "mkdocs-i18n", "mkdocs-blog"])
def test_fixture_projects_read_as_mkdocs_reads_them(fixture):
    config_file = FIXTURES / fixture / "mkdocs.yml"
    assert our_reading(config_file) == mkdocs_reading(config_file)


def test_python_tags_import_nothing(tmp_path):
    config_file = write_project(
        tmp_path,
        {
            "mkdocs.yml": "site_url: https://example.org/\n"
            "markdown_extensions:\n  - x:\n      f: !!python/name:sitemapkit_no_such_module.thing\n"
            "      g: !!python/object/apply:os.system [echo imported]\n"
        },
    )
    assert read_project_config(config_file).site_url == "https://example.org/"
    assert "sitemapkit_no_such_module" not in sys.modules


@pytest.mark.parametrize(
    "text",
    [
        # MkDocs checks each of these as text: a path placeholder is refused.
        "site_name: t\ndocs_dir: !relative $config_dir/docs\n",
        "site_name: t\nsite_dir: !relative $docs_dir/../out\n",
        "site_name: t\nplugins:\n  - sitemapkit:\n      stylesheet_template: !relative $config_dir/templates\n",
        # Anywhere in the file, as MkDocs' loader refuses them.
        "site_name: t\nextra:\n  x: !relative $site_dir/a\n",
        "site_name: t\nextra:\n  x: !relative a/b\n",
        "site_name: t\nextra:\n  x: !unknown_tag a\n",
    ],
)
def test_what_mkdocs_refuses_is_refused_in_one_line(tmp_path, text):
    config_file = write_project(tmp_path, {"mkdocs.yml": text})
    with pytest.raises((Abort, ConfigurationError)):
        load_config(str(config_file))
    with pytest.raises(SitemapkitError) as raised:
        options_for(read_project_config(config_file), "https://example.org/", {})
    assert str(raised.value).startswith("mkdocs.yml: ")
    assert "\n" not in str(raised.value)


def test_inherit_problems_name_the_file(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "mkdocs.yml").write_text("INHERIT: base/missing.yml\n", encoding="utf-8")
    with pytest.raises(SitemapkitError, match=r"^mkdocs\.yml: INHERIT: 'base/missing\.yml': No such file"):
        read_project_config(tmp_path / "mkdocs.yml")
    (tmp_path / "base").mkdir()
    (tmp_path / "base" / "a.yml").write_text("INHERIT: ../mkdocs.yml\n", encoding="utf-8")
    (tmp_path / "mkdocs.yml").write_text("INHERIT: base/a.yml\n", encoding="utf-8")
    with pytest.raises(SitemapkitError, match=r"^base/a\.yml: INHERIT: '\.\./mkdocs\.yml' inherits from itself$"):
        read_project_config(tmp_path / "mkdocs.yml")
    (tmp_path / "base" / "a.yml").write_text("site_url: https://example.org/\nplugins: [search,\n", encoding="utf-8")
    with pytest.raises(SitemapkitError, match=r"^base/a\.yml: line 3: "):
        read_project_config(tmp_path / "mkdocs.yml")


def test_read_the_docs_url_where_site_url_is_unset(tmp_path, monkeypatch):
    config_file = write_project(tmp_path, {"mkdocs.yml": "site_name: t\n"})
    monkeypatch.setenv("READTHEDOCS_CANONICAL_URL", " https://project.readthedocs.io/en/latest/ ")
    assert (
        options_for(read_project_config(config_file), None, {}).base_url == "https://project.readthedocs.io/en/latest/"
    )
    # site_url wins, as in the adapter.
    config_file.write_text("site_url: https://example.org/\n", encoding="utf-8")
    assert options_for(read_project_config(config_file), None, {}).base_url == "https://example.org/"
    config_file.write_text("site_name: t\n", encoding="utf-8")
    monkeypatch.setenv("READTHEDOCS_CANONICAL_URL", "ftp://example.org/")
    with pytest.raises(SitemapkitError, match=r"^READTHEDOCS_CANONICAL_URL: "):
        options_for(read_project_config(config_file), None, {})


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
    "wip/y.md",
    "index.md",
]


def test_exclusions_match_as_mkdocs_matches_them(tmp_path):
    config_file = write_project(
        tmp_path,
        {
            "mkdocs.yml": "site_name: t\nexclude_docs: |\n"
            + "".join(f"  {line}\n" for line in PATTERNS.splitlines())
            + "draft_docs: |\n  wip/\n  notes.md\n"
        },
    )
    for path in PATHS:
        (tmp_path / "docs" / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "docs" / path).write_text("# x\n", encoding="utf-8")
    theirs = {}
    for file in get_files(load_config(str(config_file))):
        level = file.inclusion
        theirs[file.src_uri] = None if level.is_included() else "draft_docs" if level.is_in_serve() else "exclude_docs"
    ours = read_project_config(config_file)
    assert set(theirs) == set(PATHS)
    assert {path: ours.exclusion(path) for path in PATHS} == theirs
    # The comparison means something: each outcome occurs.
    assert set(theirs.values()) == {None, "exclude_docs", "draft_docs"}


def test_only_config_imports_pyyaml_and_pathspec(tmp_path):
    """`generate` and a plain `build` start without the `config` extra's libraries."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text("<html><head><title>x</title></head><body>x</body></html>", encoding="utf-8")
    (tmp_path / "urls.tsv").write_text("https://example.org/\n", encoding="utf-8")
    program = (
        "import sys\nfrom sitemapkit.__main__ import main\ncode = main(sys.argv[1:])\n"
        "print(code, sorted(name for name in ('yaml', 'pathspec') if name in sys.modules))\n"
    )
    runs = {
        "generate": ["generate", "--input", "urls.tsv", "--out", "out", "--base-url", "https://example.org/"],
        "build": ["build", "site", "--base-url", "https://example.org/"],
        "build --config": ["build", "--config", "mkdocs.yml"],
    }
    write_project(tmp_path, {"mkdocs.yml": "site_url: https://example.org/\n"})
    seen = {}
    for name, args in runs.items():
        result = subprocess.run([sys.executable, "-c", program, *args], cwd=tmp_path, capture_output=True, text=True)
        seen[name] = result.stdout.strip().splitlines()[-1]
    assert seen == {"generate": "0 []", "build": "0 []", "build --config": "0 ['pathspec', 'yaml']"}


FRONT_MATTER = [
    "---\ntitle: A\ndate: 2024-05-01\n---\n\n# A\n",
    "---\ndate:\n  created: 2024-05-01\n  updated: 2024-06-01 10:00:00\nsitemap: false\n---\n# B\n",
    "---\nlastmod: '2024-01-02T03:04:05+02:00'\ntags: [x, y]\nauthors:\n  - name: A\n    email: a@example.org\n---\n",
    "Title: MultiMarkdown\nDate: 2024-05-01\nSitemap: false\n\n# C\n",
    "# No front matter\n\ndate: 2024-05-01\n",
    "---\nsitemap: no\n...\nBody\n",
    # Anchors, aliases and merge keys, which front matter may use as any YAML.
    "---\ndate: &when 2024-05-01\nlastmod: *when\n---\n",
    "---\nbase: &base {sitemap: false, date: 2023-01-01}\n<<: *base\ndate: 2024-02-03 04:05:06\n---\n",
    # YAML that is not a mapping sets nothing.
    "---\n- a\n- b\n---\n",
    "---\n---\n",
]


@pytest.mark.parametrize("text", FRONT_MATTER, ids=range(len(FRONT_MATTER)))
def test_front_matter_as_mkdocs_reads_it(tmp_path, text):
    page = tmp_path / "page.md"
    page.write_text(text, encoding="utf-8")
    ours = read_front_matter(page)
    theirs = {k: v for k, v in get_data(text)[1].items() if k in FRONT_MATTER_KEYS}
    assert front_matter_listed(ours) == front_matter_listed(theirs)
    ours_date, theirs_date = front_matter_lastmod(ours), front_matter_lastmod(theirs)
    assert (None if ours_date is None else str(ours_date)) == (None if theirs_date is None else str(theirs_date))


def test_front_matter_it_cannot_read_names_file_and_line(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("---\ntitle: x\ndate: [2024-05-01\nsitemap: false\n---\n", encoding="utf-8")
    with pytest.raises(SitemapkitError, match=r"page\.md: front matter line [45]: "):
        read_front_matter(page)
    page.write_text("---\ndate: 2024-13-01\n---\n", encoding="utf-8")
    with pytest.raises(SitemapkitError, match=r"page\.md: front matter: month must be in 1\.\.12"):
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
        ("docs_dir: !relative $config_dir/docs\n", "mkdocs.yml: docs_dir: !relative $config_dir/docs must be text"),
        ("- a\n- b\n", "mkdocs.yml: must be a mapping of settings, not list"),
        ("INHERIT: [a.yml]\n", "mkdocs.yml: INHERIT: ['a.yml'] must be the path of a file"),
        ("exclude_docs: |\n  a\\\n", None),
    ],
)
def test_bad_settings_name_the_file_and_setting(tmp_path, text, message):
    (tmp_path / "mkdocs.yml").write_text(text, encoding="utf-8")
    with pytest.raises(SitemapkitError) as raised:
        read_project_config(tmp_path / "mkdocs.yml")
    if message is None:
        # pathspec's own words, after the setting.
        assert str(raised.value).startswith("mkdocs.yml: exclude_docs: ")
    else:
        assert str(raised.value) == message


def test_build_config_reads_the_plugin_options_as_the_mkdocs_adapter_does(tmp_path):
    """`build --config mkdocs.yml`: a mistyped option is named with the closest one,
    and a stylesheet_template folder is relative to mkdocs.yml, as in the adapter."""
    project = tmp_path / "project"
    (project / "site").mkdir(parents=True)
    (project / "site" / "index.html").write_text("<html><head><title>t</title></head></html>")
    (project / "docs").mkdir()
    (project / "style").mkdir()
    own = (
        '<xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform"><!-- ours --></xsl:stylesheet>'
    )
    (project / "style" / "sitemap.xsl.j2").write_text(own)
    config = project / "mkdocs.yml"
    config.write_text("site_url: https://example.org/\nplugins:\n  - sitemapkit:\n      stylesheets: true\n")
    result = run_sitemapkit("build", "--config", str(config), cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr == (
        "sitemapkit: error: mkdocs.yml: plugins.sitemapkit.stylesheets: is not a sitemapkit option; "
        "did you mean 'stylesheet'?\n"
    )
    config.write_text(
        "site_url: https://example.org/\nplugins:\n  - sitemapkit:\n      stylesheet: true\n"
        "      stylesheet_template: style\n"
    )
    result = run_sitemapkit("build", "--config", str(config), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "<!-- ours -->" in (project / "site" / "sitemap.xsl").read_text()
