"""``sitemapkit check`` on sphinx-sitemap's real sitemap of fixtures/sphinx, and on
ours of the same project: sphinx-sitemap writes its URLs unencoded and lists
every page the build wrote, whatever the page says of itself; ours has no error
finding."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import check_audit

from .test_sphinx_build import BASE, copy_fixture, sphinx_build


def audit(out: Path) -> tuple[list[str], dict[str, set[str]], bool]:
    return check_audit(out, BASE)


def sphinx_sitemap_build(tmp_path: Path, name: str, settings: str = "") -> Path:
    """fixtures/sphinx built with sphinx-sitemap in place of sitemapkit's extension."""
    pytest.importorskip("sphinx_sitemap")  # tests/tasks.py's sphinx environment has it
    src = copy_fixture(tmp_path / name)
    conf = src / "conf.py"
    conf.write_text(conf.read_text().replace('"sitemapkit.plugins.sphinx"', '"sphinx_sitemap"') + settings)
    out = tmp_path / f"{name}-html"
    done = sphinx_build(src, out)
    assert done.returncode == 0, done.stderr
    return out


def test_sphinx_sitemap_by_default_lists_no_served_url(tmp_path: Path):
    # Its default scheme, "{lang}{version}{link}", puts Sphinx's default
    # language ("en") in front of every page of a site that has no en/ folder.
    problems, found, failed = audit(sphinx_sitemap_build(tmp_path, "default"))
    assert failed
    assert found["no-file"] and all(url.startswith(BASE + "en/") for url in found["no-file"])
    assert BASE + "index.html" not in found["no-file"] and BASE in found["unlisted"]


def test_sphinx_sitemaps_and_ours(tmp_path: Path):
    out = sphinx_sitemap_build(tmp_path, "theirs", '\nsitemap_url_scheme = "{link}"\n')
    problems, found, failed = audit(out)
    assert failed
    # Its unencoded URLs ("über uns.html", "c#sharp.html", "what?.html").
    assert any("is not percent-encoded" in problem for problem in problems), problems
    assert BASE + "c#sharp.html" in found["no-file"]
    # It lists every page written, whatever the page asks.
    assert found["noindex"] >= {BASE + "noindex.html"}
    assert found["canonical"] == {BASE + "reprint.html"}
    assert found["robots"] == {BASE + "private.html"}
    assert found["redirect"] == {BASE + "moved.html"}
    assert not {"out-of-folder", "batch-lastmod"} & set(found), found

    ours_src = copy_fixture(tmp_path / "ours")
    out = tmp_path / "ours-html"
    done = sphinx_build(ours_src, out)
    assert done.returncode == 0, done.stderr
    problems, found, failed = audit(out)
    assert (problems, failed) == ([], False)
    # The page :sitemap: false leaves out, which no rule of the built folder sees.
    assert found == {"unlisted": {BASE + "hidden.html"}}, found
