"""`sitemapkit build --config` without the `config` extra: one line saying what to
install. This environment has no PyYAML (tests/tasks.py), as a core install has none."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from conftest import run_sitemapkit

ADVICE = (
    "sitemapkit: error: --config reads the project with PyYAML and pathspec, "
    'and PyYAML is not installed: pip install "sitemapkit[config]"'
)


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("mkdocs.yml", "site_url: https://example.org/\n"),
        ("zensical.toml", '[project]\nsite_url = "https://example.org/"\n'),
    ],
)
def test_config_without_pyyaml_says_what_to_install(tmp_path: Path, name: str, text: str) -> None:
    # The premise: the core needs only Jinja2, and this environment is a core install.
    assert importlib.util.find_spec("yaml") is None, "tests/tasks.py's core environment must not install PyYAML"
    (tmp_path / name).write_text(text, encoding="utf-8")
    (tmp_path / "docs").mkdir()
    (tmp_path / "site").mkdir()
    result = run_sitemapkit("build", "--config", name, cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.splitlines() == [ADVICE]
    assert result.stdout == ""


def test_everything_else_runs_without_it(tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text("<html><head><title>x</title></head><body>x</body></html>", encoding="utf-8")
    result = run_sitemapkit("build", "site", "--base-url", "https://example.org/", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert (site / "sitemap.xml").is_file()
