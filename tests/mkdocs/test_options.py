"""The plugin's mkdocs.yml options are sitemapkit.Options' own: the same names, types
and defaults, made from the one declaration; a mistyped one stops the build."""

from __future__ import annotations

import pytest
import yaml
from mkdocs.config import load_config

from sitemapkit import Options
from sitemapkit.plugins.mkdocs import SitemapkitConfig, SitemapkitPlugin

from conftest import option_samples, options_with

SPECS = {spec.name: spec for spec in Options.specs()}
WRONG = {bool: "yes", int: "many", float: "high", str: 5, tuple: "drafts/*"}


def _plugin(project, **options) -> tuple[SitemapkitPlugin, object]:
    """The plugin as MkDocs loads it from the project's mkdocs.yml with exactly
    these options (the fixture's own left out), after on_config."""
    config = yaml.safe_load(project.config_file.read_text(encoding="utf-8"))
    config["plugins"] = [
        {"sitemapkit": options}
        if entry == "sitemapkit" or (isinstance(entry, dict) and "sitemapkit" in entry)
        else entry
        for entry in config["plugins"]
    ]
    project.config_file.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    config = load_config(str(project.config_file))
    plugin = config.plugins["sitemapkit"]
    plugin.on_config(config)
    return plugin, config


def test_the_config_schema_is_the_declared_options():
    assert [name for name, _ in SitemapkitConfig._schema] == list(SPECS)


def test_unset_options_are_the_declared_defaults(project):
    plugin, config = _plugin(project)
    assert plugin.options == Options(base_url=config.site_url)


def test_every_option_reaches_the_core_as_written(project, tmp_path):
    samples = option_samples(tmp_path)
    plugin, config = _plugin(project, **samples)
    assert plugin.options == options_with(samples, config.site_url)
    assert plugin.options != Options(base_url=config.site_url)


@pytest.mark.parametrize("name", sorted(SPECS))
def test_a_value_of_another_type_is_refused_naming_the_option(name):
    errors, _ = SitemapkitPlugin().load_config({name: WRONG[SPECS[name].kind]})
    assert [key for key, _ in errors] == [name]


def test_a_mistyped_option_stops_the_build_with_the_closest_name(project):
    project.configure(sitemapkit={"max_byte": 2048, "stylesheets": True})
    result = project.cli("build")
    assert result.returncode != 0
    assert "Traceback" not in result.stderr
    errors = [line for line in result.stderr.splitlines() if "sitemapkit" in line]
    assert "Plugin 'sitemapkit' option 'max_byte': is not a sitemapkit option; did you mean 'max_bytes'?" in errors[0]
    assert (
        "Plugin 'sitemapkit' option 'stylesheets': is not a sitemapkit option; did you mean 'stylesheet'?" in errors[1]
    )
    assert "Unrecognised configuration name" not in result.stderr
    assert not project.site.exists()


def test_base_url_is_site_url(project):
    project.configure(sitemapkit={"base_url": "https://example.org/"})
    result = project.cli("build")
    assert result.returncode != 0
    assert "Plugin 'sitemapkit' option 'base_url': the base URL comes from site_url; set that instead" in result.stderr


CUSTOM_XSL = """<?xml version="1.0" encoding="UTF-8"?>
<xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">
  <!-- the project's own stylesheet -->
</xsl:stylesheet>
"""


def test_stylesheet_template_folder_is_relative_to_mkdocs_yml(project):
    (project.root / "sitemap_style").mkdir()
    (project.root / "sitemap_style" / "sitemap.xsl.j2").write_text(CUSTOM_XSL)
    project.configure(sitemapkit={"stylesheet": True, "stylesheet_template": "sitemap_style"})
    result = project.cli("build", "--strict")
    assert result.returncode == 0, result.stderr
    assert "the project's own stylesheet" in (project.site / "sitemap.xsl").read_text()


def test_a_missing_stylesheet_template_folder_names_the_option(project):
    project.configure(sitemapkit={"stylesheet": True, "stylesheet_template": "no_such_folder"})
    result = project.cli("build")
    assert result.returncode != 0
    assert "Plugin 'sitemapkit' option 'stylesheet_template':" in result.stderr
    assert "is not a folder" in result.stderr
    assert not (project.site / "sitemap.xml").exists()


def test_indexnow_key_writes_the_key_file_at_the_site_root(project):
    key = "mkdocs-indexnow-key-1"
    project.configure(sitemapkit={"indexnow_key": key})
    site = project.build()
    assert (site / f"{key}.txt").read_text() == key
    assert (site / "sitemap.xml").is_file()
