"""The ``sitemap.xml`` written beside a text sitemap, for readers in the browser."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from ..protocol.model import Options, Page, Report
from .pages import build_site

#: What the build says when it wrote the companion.
XML_COMPANION_NOTE = "sitemapkit: also wrote sitemap.xml, which Material's and Zensical's instant navigation read"


def build_xml_companion(pages: Iterable[Page], options: Options, output_dir: Path | str) -> Report | None:
    """With ``format: txt``, write the ``sitemap.xml`` urlset of the same pages
    beside the text sitemap (:meth:`Options.xml_companion`): Material's and
    Zensical's instant navigation and mike's version selector fetch sitemap.xml
    and read its <loc>s, and a text sitemap alone would leave them a stale one or
    none. Its report (None for an XML sitemap, which is sitemap.xml already)."""
    companion = options.xml_companion()
    if companion is None:
        return None
    return build_site(pages, companion, Path(output_dir))
