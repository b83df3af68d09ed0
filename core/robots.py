"""robots.txt text in, robots.txt text out: sitemapkit's ``Sitemap:`` lines merged.

sitemaps.org/protocol.html, "Specifying the Sitemap location in your robots.txt
file": "Sitemap: http://www.example.com/sitemap.xml ... This directive is
independent of the user-agent line, so it doesn't matter where you place it in your
file." Every other line and byte of the user's file is kept.
"""

from __future__ import annotations

import re
from typing import Callable

from .errors import UrlError

_SITEMAP_LINE = re.compile(r"[ \t]*sitemap[ \t]*:[ \t]*(\S*)[ \t]*\Z", re.IGNORECASE)

# Written when the output has no robots.txt: allow everything, name the sitemap.
_MINIMAL = "User-agent: *\nDisallow:\n\n"


def merge_sitemap_lines(
    existing: str | None, sitemap_urls: list[str], owned: Callable[[str], bool] = lambda url: False
) -> str:
    """``existing`` robots.txt with sitemapkit's ``Sitemap:`` lines set to ``sitemap_urls``.

    Lines naming a URL for which ``owned`` is true (sitemapkit's entry points, now
    or from an earlier build) or one of ``sitemap_urls`` are replaced in place, the first by all of ``sitemap_urls``; without
    one, the lines go at the end. Running twice gives the same text.
    """
    for url in sitemap_urls:
        if "\r" in url or "\n" in url or not url.isascii():
            # A line break would let a URL inject robots.txt rules.
            raise UrlError(f"{url!r} cannot be written into robots.txt")
    wanted = set(sitemap_urls)
    if existing is None:
        return _MINIMAL + "".join(f"Sitemap: {url}\n" for url in sitemap_urls)
    newline = "\r\n" if "\r\n" in existing else "\n"
    lines = existing.splitlines(keepends=True)
    out: list[str] = []
    placed = False
    for line in lines:
        match = _SITEMAP_LINE.match(line.rstrip("\r\n"))
        if match and (match.group(1) in wanted or owned(match.group(1))):
            if not placed:
                out.extend(f"Sitemap: {url}{newline}" for url in sitemap_urls)
                placed = True
            continue
        out.append(line)
    if not placed:
        if out and not out[-1].endswith(("\n", "\r")):
            out[-1] += newline
        if out and out[-1].strip():
            out.append(newline)
        out.extend(f"Sitemap: {url}{newline}" for url in sitemap_urls)
    return "".join(out)
