"""Helpers every test folder shares: schema validation and an independent parser.

This file is loaded in every test environment, so it imports no site generator.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures"
# The sitemaps.org schemas live beside the repository (../shared/schemas), never in it.
SCHEMAS = ROOT.parent / "shared" / "schemas"
SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
XHTML_NS = "http://www.w3.org/1999/xhtml"

_schema_cache: dict[str, object] = {}


def _schema(name: str):
    from lxml import etree

    if not (SCHEMAS / name).exists():
        pytest.skip(f"schema check skipped: {SCHEMAS / name} is missing (the sitemaps.org XSDs live in ../shared/schemas beside the repository)")
    if name not in _schema_cache:
        _schema_cache[name] = etree.XMLSchema(etree.parse(str(SCHEMAS / name)))
    return _schema_cache[name]


def read_bytes(path: Path) -> bytes:
    data = Path(path).read_bytes()
    return gzip.decompress(data) if str(path).endswith(".gz") else data


def assert_valid(path_or_bytes) -> None:
    """Well-formed and valid against sitemap.xsd or siteindex.xsd (by root element).

    hreflang alternates (xhtml:link) are checked too: sitemap.xsd admits them with
    processContents="strict", so a schema for the xhtml namespace is needed; the
    sitemaps.org folder has none, so we check their shape by hand instead.
    """
    from lxml import etree

    data = path_or_bytes if isinstance(path_or_bytes, bytes) else read_bytes(path_or_bytes)
    root = etree.fromstring(data)
    local = etree.QName(root).localname
    schema = _schema("sitemap.xsd" if local == "urlset" else "siteindex.xsd")
    links = root.findall(f".//{{{XHTML_NS}}}link")
    if links:
        # Validate a copy without the xhtml links (see docstring), then the links' shape.
        for link in links:
            assert link.get("rel") == "alternate", etree.tostring(link)
            assert link.get("hreflang"), etree.tostring(link)
            assert link.get("href", "").startswith(("http://", "https://")), etree.tostring(link)
        root = etree.fromstring(data)
        for link in root.findall(f".//{{{XHTML_NS}}}link"):
            link.getparent().remove(link)
    if not schema.validate(root):
        raise AssertionError(f"not valid against the sitemaps.org schema: {schema.error_log}")


def usp_pages(path_or_bytes) -> list[str]:
    """The URLs an independent parser (ultimate-sitemap-parser) reads from one file."""
    from usp.tree import sitemap_from_str

    data = path_or_bytes if isinstance(path_or_bytes, bytes) else read_bytes(path_or_bytes)
    sitemap = sitemap_from_str(data.decode("utf-8"))
    return [page.url for page in sitemap.all_pages()]


def sitemap_entries(out_dir: Path, entry: str = "sitemap.xml") -> dict[str, dict]:
    """Every <url> reachable from the entry point (following an index): loc -> fields.

    Each file is schema-checked on the way; each urlset is also read with usp and
    must give the same URLs.
    """
    from lxml import etree

    out_dir = Path(out_dir)
    found: dict[str, dict] = {}
    todo = [out_dir / entry]
    while todo:
        path = todo.pop()
        data = read_bytes(path)
        assert_valid(data)
        root = etree.fromstring(data)
        if etree.QName(root).localname == "sitemapindex":
            for loc in root.iterfind(f"{{{SITEMAP_NS}}}sitemap/{{{SITEMAP_NS}}}loc"):
                todo.append(out_dir / loc.text.rsplit("/", 1)[1])
            continue
        locs = []
        for url in root.iterfind(f"{{{SITEMAP_NS}}}url"):
            loc = url.findtext(f"{{{SITEMAP_NS}}}loc")
            assert loc not in found, f"{loc} listed twice"
            locs.append(loc)
            found[loc] = {
                "lastmod": url.findtext(f"{{{SITEMAP_NS}}}lastmod"),
                "alternates": sorted(
                    (link.get("hreflang"), link.get("href")) for link in url.iterfind(f"{{{XHTML_NS}}}link")
                ),
            }
        assert usp_pages(data) == locs
    return found


@pytest.fixture
def schemas_dir() -> Path:
    if not SCHEMAS.exists():
        pytest.skip(f"schema check skipped: {SCHEMAS} is missing (the sitemaps.org XSDs live in ../shared/schemas beside the repository)")
    return SCHEMAS
