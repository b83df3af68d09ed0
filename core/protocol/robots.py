"""robots.txt text in, robots.txt text out: sitemapkit's ``Sitemap:`` lines merged.

sitemaps.org/protocol.html, "Specifying the Sitemap location in your robots.txt
file": "Sitemap: http://www.example.com/sitemap.xml ... This directive is
independent of the user-agent line, so it doesn't matter where you place it in your
file." Every other line and byte of the user's file is kept.
"""

from __future__ import annotations

import re
from typing import Callable

from .errors import OutputError, UrlError
from .patterns import deferred
from .robotsrules import LINE_BREAK

# A Sitemap: line, after a byte order mark on the first line, before a "# comment"
# (RFC 9309 section 2.2: "#" starts a comment anywhere on a line).
_SITEMAP_LINE = deferred(r"\ufeff?[ \t]*sitemap[ \t]*:[ \t]*([^\s#]*)[ \t]*(?:#.*)?\Z", re.IGNORECASE)
# Each line with its own line end (robotsrules.LINE_BREAK).
_LINE = deferred(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")

# Written when the output has no robots.txt: allow everything, name the sitemap.
_MINIMAL = "User-agent: *\nDisallow:\n\n"


def sitemap_line_url(line: str) -> str | None:
    """The URL a robots.txt ``Sitemap:`` line names (after a byte order mark,
    before a ``# comment``), or None for any other line."""
    match = _SITEMAP_LINE.match(line.rstrip("\r\n"))
    return match.group(1) if match else None


def decode_robots_txt(data: bytes, name: str = "robots.txt") -> str:
    """robots.txt ``data`` as text, every byte kept: a byte order mark stays U+FEFF
    and each line end stays as it is (CRLF, CR or LF), so that encoding the text
    as UTF-8 again gives back the same bytes.

    RFC 9309 section 2.3: "The file MUST be UTF-8 encoded". Anything else (other
    encodings, NUL bytes) is no robots.txt sitemapkit can safely rewrite: raises
    :class:`OutputError` naming the file as ``name``.
    """
    nul = data.find(b"\0")
    if nul >= 0:
        reason = f"a NUL byte at offset {nul:,}"
    else:
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as error:
            reason = f"byte 0x{data[error.start]:02x} at offset {error.start:,} is not UTF-8"
    raise OutputError(f"{name} is not a UTF-8 text file ({reason}); it was left as it is")


def merge_sitemap_lines(
    existing: str | None, sitemap_urls: list[str], owned: Callable[[str], bool] = lambda url: False
) -> str:
    """``existing`` robots.txt with sitemapkit's ``Sitemap:`` lines set to ``sitemap_urls``.

    Lines naming a URL for which ``owned`` is true (sitemapkit's entry points, now
    or from an earlier build) or one of ``sitemap_urls`` take ``sitemap_urls`` in
    order, each in place of the URL alone (a comment after it, its spacing and its
    line end stay); more URLs than such lines go after the last of them, more lines
    than URLs are removed. Without one, the lines go at the end. Running twice
    gives the same text, and a file that already names ``sitemap_urls`` comes back
    unchanged, byte for byte.
    """
    for url in sitemap_urls:
        if "\r" in url or "\n" in url or not url.isascii():
            # A line break would let a URL inject robots.txt rules.
            raise UrlError(f"{url!r} cannot be written into robots.txt")
    wanted = set(sitemap_urls)
    if existing is None:
        return _MINIMAL + "".join(f"Sitemap: {url}\n" for url in sitemap_urls)
    # New lines end as the file's first line does.
    first_end = LINE_BREAK.search(existing)
    newline = first_end.group() if first_end else "\n"
    out = _LINE.findall(existing)
    ours: list[tuple[int, re.Match[str]]] = []
    for index, line in enumerate(out):
        match = _SITEMAP_LINE.match(line.rstrip("\r\n"))
        if match and (match.group(1) in wanted or owned(match.group(1))):
            ours.append((index, match))
    if ours:
        for (index, match), url in zip(ours, sitemap_urls):
            out[index] = out[index][: match.start(1)] + url + out[index][match.end(1) :]
        for index, _ in ours[len(sitemap_urls) :]:
            out[index] = ""
        more = sitemap_urls[len(ours) :]
        if more:
            last = ours[-1][0]
            if not out[last].endswith(("\n", "\r")):
                out[last] += newline
            out[last] += "".join(f"Sitemap: {url}{newline}" for url in more)
        return "".join(out)
    if out and not out[-1].endswith(("\n", "\r")):
        out[-1] += newline
    if out and out[-1].strip():
        out.append(newline)
    out.extend(f"Sitemap: {url}{newline}" for url in sitemap_urls)
    return "".join(out)
