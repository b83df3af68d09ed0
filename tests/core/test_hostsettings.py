"""The rules every tool shares about its own settings (sitemapkit.protocol.hostsettings).

Each adapter's real build checks its words against these functions (tests/mkdocs,
tests/pelican, tests/sphinx); here, the rules themselves and the command line.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import sitemapkit
from conftest import run_sitemapkit
from sitemapkit import ConfigError, Options, Report

TOOLS = {
    "command line": (sitemapkit.COMMAND_LINE_SETTINGS, "--base-url", "--max-bytes"),
    "mkdocs": (sitemapkit.MKDOCS_SETTINGS, "site_url", "plugins.sitemapkit.max_bytes"),
    "pelican": (sitemapkit.PELICAN_SETTINGS, "SITEURL", "SITEMAPKIT['max_bytes']"),
    "sphinx": (sitemapkit.SPHINX_SETTINGS, "html_baseurl", "sitemapkit_max_bytes"),
}


@pytest.mark.parametrize("tool", sorted(TOOLS))
def test_each_tool_names_the_core_options_its_own_way_with_the_same_problem(tool: str) -> None:
    names, base_setting, max_bytes_setting = TOOLS[tool]
    with pytest.raises(ConfigError) as bad_base:
        Options(base_url="https://[::1/")
    with pytest.raises(ConfigError) as bad_size:
        Options(base_url="https://example.org/", max_bytes=5)
    assert names.message(bad_base.value) == f"{base_setting}: {bad_base.value.problem}"
    assert names.message(bad_size.value) == f"{max_bytes_setting}: {bad_size.value.problem}"


def test_the_command_lines_error_is_the_shared_translation(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as raised:
        Options(base_url="https://[::1/")
    result = run_sitemapkit("build", str(tmp_path), "--base-url", "https://[::1/")
    assert result.returncode == 2
    assert result.stderr == f"sitemapkit: error: {sitemapkit.COMMAND_LINE_SETTINGS.message(raised.value)}\n"


@pytest.mark.parametrize(
    ("value", "environ", "base"),
    [
        ("https://example.org/", {"READTHEDOCS_CANONICAL_URL": "https://x.readthedocs.io/"}, "https://example.org/"),
        (
            "",
            {"READTHEDOCS_CANONICAL_URL": " https://x.readthedocs.io/en/latest/ "},
            "https://x.readthedocs.io/en/latest/",
        ),
        (None, {"READTHEDOCS_CANONICAL_URL": "https://x.readthedocs.io/"}, "https://x.readthedocs.io/"),
        ("  ", {}, ""),
        (None, {}, ""),
    ],
)
def test_read_the_docs_url_stands_in_for_an_unset_setting(value, environ, base) -> None:
    assert sitemapkit.base_url_setting(value, environ) == base


@pytest.mark.parametrize(
    ("base", "reason"),
    [
        ("", "is not set"),
        ("  ", "is not set"),
        ("/", "'/' is a relative URL"),
        ("/blog", "'/blog' is a relative URL"),
        ("./docs/", "'./docs/' is a relative URL"),
        ("//example.org/blog", "'//example.org/blog' is a relative URL"),
        # Meant to be published: Options checks them (and names a bad one).
        ("https://example.org/", None),
        ("docs.example.org", None),
        ("https://[::1/", None),
    ],
)
def test_development_base_urls_get_no_sitemap_in_one_shape(base: str, reason: str | None) -> None:
    warning = sitemapkit.development_base_url(base, setting="SITEURL", example="SITEURL = 'https://example.org'")
    if reason is None:
        assert warning is None
    else:
        assert warning == (
            f"no sitemap written: SITEURL {reason}, and a sitemap lists absolute URLs; "
            "set it to the address the site is published at, e.g. SITEURL = 'https://example.org'"
        )


@pytest.mark.parametrize(
    ("base", "local"),
    [
        ("http://127.0.0.1:8000/", True),
        ("http://localhost:8000/docs/", True),
        ("http://docs.localhost/", True),
        ("http://[::1]:8000/", True),
        ("http://0.0.0.0:8000/", True),
        ("https://example.org/", False),
        ("https://10.0.0.1/", False),
        ("https://[::1/", False),
    ],
)
def test_local_addresses_are_previews(base: str, local: bool) -> None:
    assert sitemapkit.is_local_address(base) is local


def test_a_preview_below_the_host_root_gets_no_robots_txt_advice(tmp_path: Path) -> None:
    """The robots.txt advice is about publishing: a preview on this machine gets none."""
    pages = [sitemapkit.Page("index.html")]
    (tmp_path / "index.html").write_text("<html><head></head><body>x</body></html>")
    published = sitemapkit.build_site(pages, Options(base_url="https://example.org/docs/", lastmod="none"), tmp_path)
    assert any("robots.txt is read only at the host root" in line for line in published.advice)
    preview = sitemapkit.build_site(pages, Options(base_url="http://127.0.0.1:8000/docs/", lastmod="none"), tmp_path)
    assert preview.advice == []


def test_folders_in_a_configuration_file_are_read_beside_it(tmp_path: Path) -> None:
    settings = {"stylesheet_template": "style", "max_urls": 5}
    assert sitemapkit.beside_config_file(settings, tmp_path) == {
        "stylesheet_template": str(tmp_path / "style"),
        "max_urls": 5,
    }
    assert sitemapkit.beside_config_file({"stylesheet_template": "/abs"}, tmp_path) == {"stylesheet_template": "/abs"}
    assert sitemapkit.beside_config_file(settings, None) == settings


def test_the_report_is_the_summary_then_each_notice() -> None:
    notice = sitemapkit.Notice("lastmod", "lastmod omitted for 2 pages")
    report = Report(urls=2, files=["sitemap.xml"], notices=[notice])
    assert report.log_lines() == [(None, report.summary()), (notice, notice.message)]
    assert report.log_lines(verbose=True) == [(None, report.details().rstrip("\n")), (notice, notice.message)]
    assert report.log_lines(summary="one line")[0] == (None, "one line")


@pytest.mark.parametrize(
    ("path", "error"),
    [
        ("404.html", True),
        ("fr/404.html", True),
        ("a/b/404.html", True),
        # Sphinx dirhtml's form of a 404.html (sphinx-notfound-page, Flask's docs).
        ("404/index.html", True),
        ("docs/404/index.html", True),
        ("404/other.html", False),
        ("index.html", False),
        ("x404.html", False),
    ],
)
def test_error_pages_are_named_404_html_in_any_folder(path: str, error: bool) -> None:
    assert sitemapkit.is_error_page(path) is error
