"""hreflang alternates on real builds of fixtures/mkdocs-i18n (mkdocs-static-i18n, English and French)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from conftest import sitemap_entries

from .conftest import Project, committed_copy


FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "mkdocs-i18n"
SITE = "https://example.org/"

# Each translated page: its English and French URLs, for directory and file URLs.
TRANSLATED = {
    True: [("", "fr/"), ("guide/install/", "fr/guide/install/"), ("r%C3%A9sum%C3%A9/", "fr/r%C3%A9sum%C3%A9/")],
    False: [
        ("index.html", "fr/index.html"),
        ("guide/install.html", "fr/guide/install.html"),
        ("r%C3%A9sum%C3%A9.html", "fr/r%C3%A9sum%C3%A9.html"),
    ],
}
# about.md has no translation: the French build shows the English text under fr/.
# nouvelles.fr.md has no English version: the English build leaves it out.
UNTRANSLATED = {
    True: ["about/", "fr/about/", "fr/nouvelles/"],
    False: ["about.html", "fr/about.html", "fr/nouvelles.html"],
}
URL_STYLES = pytest.mark.parametrize("use_directory_urls", [True, False], ids=["directory-urls", "file-urls"])


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project(committed_copy(FIXTURE, tmp_path / "project"))


def expected_alternates(english: str, french: str) -> list[tuple[str, str]]:
    return [("en", SITE + english), ("fr", SITE + french)]


@URL_STYLES
def test_one_sitemap_at_the_root_lists_every_language(project, use_directory_urls):
    project.configure(use_directory_urls=use_directory_urls)
    site = project.build()
    listed = {url for pair in TRANSLATED[use_directory_urls] for url in pair} | set(UNTRANSLATED[use_directory_urls])
    assert set(sitemap_entries(site)) == {SITE + url for url in listed}
    # Each language build runs the plugin; only the whole run writes a sitemap.
    assert not (site / "fr" / "sitemap.xml").exists()
    assert (site / "robots.txt").read_text(encoding="utf-8").count("Sitemap:") == 1


@URL_STYLES
def test_every_version_lists_every_version_and_itself(project, use_directory_urls):
    project.configure(use_directory_urls=use_directory_urls)
    entries = sitemap_entries(project.build())
    for english, french in TRANSLATED[use_directory_urls]:
        assert entries[SITE + english]["alternates"] == expected_alternates(english, french)
        assert entries[SITE + french]["alternates"] == expected_alternates(english, french)


def test_untranslated_pages_have_no_alternates(project):
    entries = sitemap_entries(project.build())
    for url in UNTRANSLATED[True]:
        assert entries[SITE + url]["alternates"] == [], url


def test_x_default_names_the_version_for_other_languages(project):
    project.configure(sitemapkit={"x_default": "en"})
    entries = sitemap_entries(project.build())
    for english, french in TRANSLATED[True]:
        expected = sorted([*expected_alternates(english, french), ("x-default", SITE + english)])
        assert entries[SITE + english]["alternates"] == expected
        assert entries[SITE + french]["alternates"] == expected
    assert entries[SITE + "about/"]["alternates"] == []


def test_plugin_order_does_not_matter(project):
    """sitemapkit listed before i18n still writes after the last language is built."""
    config = yaml.safe_load(project.config_file.read_text(encoding="utf-8"))
    i18n = next(entry for entry in config["plugins"] if isinstance(entry, dict) and "i18n" in entry)
    project.configure(plugins=["search", "sitemapkit", i18n])
    entries = sitemap_entries(project.build())
    assert len(entries) == 9
    assert entries[SITE + "fr/"]["alternates"] == expected_alternates("", "fr/")


def test_material_heads_win_over_the_adapters_groups(project, caplog):
    """Material declares en<->fr in the head of every page, also of about/, which the
    French build copies from English: the sitemap follows what the pages declare, so
    crawlers read one answer, and the build report says the two differed."""
    import logging

    project.configure(theme={"name": "material"})
    with caplog.at_level(logging.INFO):
        entries = sitemap_entries(project.build())
    head = (project.site / "fr" / "about" / "index.html").read_text(encoding="utf-8")
    assert 'hreflang="en"' in head and 'hreflang="fr"' in head
    assert entries[SITE + "about/"]["alternates"] == expected_alternates("about/", "fr/about/")
    assert entries[SITE + "fr/about/"]["alternates"] == expected_alternates("about/", "fr/about/")
    for english, french in TRANSLATED[True]:
        assert entries[SITE + english]["alternates"] == expected_alternates(english, french)
    summary = [r.getMessage() for r in caplog.records if r.getMessage().startswith("sitemapkit:")]
    assert any("the sitemap follows the pages" in line for line in summary), summary
    # fr/nouvelles/ has no English version, and Material names the English home
    # page as its English version, which does not name it back: left out, and said.
    assert entries[SITE + "fr/nouvelles/"]["alternates"] == []
    assert any("fr/nouvelles/: https://example.org/ does not declare the same alternates back" in line
               for line in summary), summary
