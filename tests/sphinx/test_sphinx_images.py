"""Image entries from real Sphinx builds (issue 23): the ``image`` and ``figure``
directives, their ``_images/`` copies, and the theme's logo left out as chrome, on
alabaster, furo and the Read the Docs theme. Three pages only, fewer than the frequency rule needs: the
themes' content elements alone must tell the logo apart."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import FIXTURES, run_sitemapkit, sitemap_entries

BASE = "https://docs.example.org/"


def build(tmp_path: Path, theme: str, *args: str) -> tuple[Path, subprocess.CompletedProcess]:
    src = tmp_path / "src"
    shutil.copytree(FIXTURES / "images" / "sphinx", src)
    out = src / "_build" / "html"
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "sphinx",
            "--no-color",
            "-b",
            "html",
            "-D",
            f"html_theme={theme}",
            *args,
            str(src),
            str(out),
        ],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONHASHSEED": "0"},
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    assert "WARNING" not in result.stderr, result.stderr
    return out, result


@pytest.mark.parametrize("theme", ["alabaster", "furo", "sphinx_rtd_theme"])
def test_content_images_are_listed_and_the_logo_is_not(tmp_path: Path, theme: str) -> None:
    out, result = build(tmp_path, theme)
    # The logo is on every page, outside the content: never an image of a page.
    assert (out / "_static" / "logo.png").is_file() and "logo.png" in (out / "guide.html").read_text()
    entries = sitemap_entries(out)  # the image schema (strict) and ultimate-sitemap-parser
    images = {loc: entry.get("images", []) for loc, entry in entries.items()}
    assert images[BASE + "index.html"] == [BASE + "_images/diagram.png"]
    assert images[BASE + "guide.html"] == [
        BASE + "_images/figure.png",
        BASE + "_images/sch%C3%A9ma.png",
        "https://cdn.example.net/remote.png",
    ]
    assert images[BASE + "plain.html"] == []
    assert "4 URLs, 4 images in" in result.stdout + result.stderr
    # Each listed image of the site is a file `sitemapkit check` finds.
    check = run_sitemapkit("check", str(out), "--base-url", BASE)
    assert check.returncode == 0, check.stdout + check.stderr
    assert "4 images" in check.stdout
    # `sitemapkit build` reads the same built pages the same way (a site built
    # elsewhere, published as a folder): the same images (the folder's index page
    # listed as "/", the URL a web server serves it at).
    again = run_sitemapkit("build", str(out), "--base-url", BASE, "--images", "--lastmod", "none")
    assert again.returncode == 0, again.stderr
    read_again = {loc: entry.get("images", []) for loc, entry in sitemap_entries(out).items()}
    served = {loc: BASE if loc == BASE + "index.html" else loc for loc in images}
    assert {loc: read_again[served[loc]] for loc in images} == images


def test_sitemapkit_images_false_lists_none(tmp_path: Path) -> None:
    out, _ = build(tmp_path, "alabaster", "-D", "sitemapkit_images=0")
    assert all("images" not in entry for entry in sitemap_entries(out).values())
    assert b"xmlns:image" not in (out / "sitemap.xml").read_bytes()
