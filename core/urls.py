"""URLs as the protocol wants them: absolute, RFC 3986 encoded, XML escaped, in scope.

sitemaps.org/protocol.html, "Entity escaping": "Your Sitemap file must be UTF-8
encoded ... all data values in a Sitemap must be entity-escaped" and "Please check
to make sure that your URLs follow the RFC-3986 standard for URIs, the RFC-3987
standard for IRIs": IRIs become URIs by UTF-8 percent-encoding, then the XML entities.
"""

from __future__ import annotations

import re
from urllib.parse import quote, unquote, urlsplit

from .errors import UrlError
from .model import MAX_LOC_LENGTH

# RFC 3986 section 2: unreserved, sub-delims, and the gen-delims that may stand in a
# path, query or fragment (":" "@" "/" "?"). "%" is kept only where it starts a valid
# %XX triplet, so encoded input is never encoded twice. "#" opens the fragment once.
_NEEDS_ENCODING = re.compile(r"[^A-Za-z0-9\-._~!$&'()*+,;=:@/?%]|%(?![0-9A-Fa-f]{2})")
# C0 and C1 controls and DEL: no way to write them that a crawler would read back.
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
# "scheme://" marks an absolute URL; a bare "a:b" is a file name here, not a scheme.
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")
_DEFAULT_PORTS = {"http": 80, "https": 443}

# sitemaps.org "Entity escaping": & ' " > < become &amp; &apos; &quot; &gt; &lt;.
_XML_ESCAPES = str.maketrans({"&": "&amp;", "'": "&apos;", '"': "&quot;", "<": "&lt;", ">": "&gt;"})


_DOT_SEGMENT = re.compile(r"(?:^|/)\.\.?(?:/|$|\?)")
# A path (and query) that needs nothing done: only characters RFC 3986 allows as
# they are, no "%" (which may need encoding), no ":" (which may open a scheme),
# no "#". With no leading "/" or "." and no "/." inside, it has no dot segment and
# goes under the base folder as it is: one match instead of five checks.
_PLAIN_PATH = re.compile(r"[A-Za-z0-9\-._~!$&'()*+,;=@/?]*")


def _is_plain_path(text: str) -> bool:
    return bool(_PLAIN_PATH.fullmatch(text)) and not text.startswith(("/", ".")) and "/." not in text


def _resolve(base: str, reference: str) -> str:
    """RFC 3986 section 5.2 for a path reference against an absolute base.

    urllib's urljoin strips leading spaces (a browser's behaviour for typed URLs),
    which would change a file name that starts with one; this does not.
    """
    origin_end = base.index("/", base.index("//") + 2)
    origin, base_path = base[:origin_end], base[origin_end:]
    path, mark, rest = reference.partition("?") if "?" in reference.split("#", 1)[0] else reference.partition("#")
    if not path.startswith("/"):
        path = base_path.rsplit("/", 1)[0] + "/" + path
    output: list[str] = []
    segments = path.split("/")
    for index, segment in enumerate(segments):
        if segment == "..":
            if len(output) > 1:
                output.pop()
            if index == len(segments) - 1:
                output.append("")
        elif segment == ".":
            if index == len(segments) - 1:
                output.append("")
        else:
            output.append(segment)
    return origin + "/".join(output) + mark + rest


class OutOfScope(Exception):
    """Internal: a URL that may not be listed; ``reason`` says why (for the report)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _encode_char(match: re.Match[str]) -> str:
    try:
        return quote(match.group(), safe="")
    except UnicodeEncodeError:
        raise UrlError(f"{match.group()!r} is not valid Unicode text") from None


def encode_part(text: str) -> str:
    """Percent-encode what RFC 3986 does not allow in a path, query or fragment."""
    if _NEEDS_ENCODING.search(text) is None:
        return text
    return _NEEDS_ENCODING.sub(_encode_char, text)


def encode_url(url: str) -> str:
    """An absolute IRI as a URI: IDNA host, lowercase scheme and host, no default
    port, percent-encoded path, query and fragment."""
    if _CONTROL.search(url):
        raise UrlError(f"{url!r} contains control characters (tabs, line breaks...)")
    try:
        parts = urlsplit(url)  # raises for a broken IPv6 literal: "https://[::1/"
        host = parts.hostname or ""
        port = parts.port
    except ValueError:
        raise UrlError(f"{url!r} has an invalid host or port") from None
    scheme = parts.scheme.lower()
    if not host:
        raise UrlError(f"{url!r} is not an absolute URL with a host")
    if not host.isascii():
        try:
            host = host.encode("idna").decode("ascii")
        except UnicodeError:
            raise UrlError(f"{url!r} has a host name that cannot be encoded") from None
    if ":" in host:  # an IPv6 literal keeps its brackets
        host = f"[{host}]"
    netloc = host if port in (None, _DEFAULT_PORTS.get(scheme)) else f"{host}:{port}"
    rest = url.split("//", 1)[1]
    slash = min((i for i in (rest.find(c) for c in "/?#") if i >= 0), default=len(rest))
    tail, hash_, fragment = rest[slash:].partition("#")
    if not tail.startswith("/"):
        tail = "/" + tail
    encoded = f"{scheme}://{netloc}{encode_part(tail)}"
    if hash_:
        encoded += "#" + encode_part(fragment).replace("#", "%23")
    return encoded


# RFC 3986 section 3.3: a path segment holds unreserved characters, sub-delims,
# ":" and "@" as they are; "/" separates segments. Everything else in a file or
# document name, "%" included, is data to percent-encode: "c#sharp.html" is
# "c%23sharp.html", "lit%20eral.html" is "lit%2520eral.html".
_PATH_SEGMENT_SAFE = "/!$&'()*+,;=:@~"


def encode_path(path: str) -> str:
    """A file or document name (``/``-separated, relative to the site root) as the
    URL path that names it.

    Unlike a URL an adapter is handed (which keeps its valid ``%XX``), a name is
    text: every character a path segment may not hold is percent-encoded as UTF-8,
    ``%`` included. A name that is not valid Unicode (a file name's undecodable
    bytes, as ``os.fsdecode`` keeps them) is encoded as the bytes the file has.
    A ":" in the first segment would read as a scheme ("a:b.html"), so it is
    encoded there.
    """
    encoded = quote(path, safe=_PATH_SEGMENT_SAFE, errors="surrogateescape")
    first, slash, rest = encoded.partition("/")
    if ":" in first:
        encoded = first.replace(":", "%3A") + slash + rest
    return encoded


HTML_SUFFIXES = (".html", ".htm")
INDEX_FILE = "index.html"


def path_of_file(relative: str) -> str:
    """The URL path (a name, still to encode) a static host serves ``relative``
    at: ``guide/index.html`` is its folder, ``guide/``."""
    if relative == INDEX_FILE:
        return ""
    if relative.endswith("/" + INDEX_FILE):
        return relative[: -len(INDEX_FILE)]
    return relative


def file_spelling(url: str) -> str:
    """``url`` with its path percent-decoded, except ``%2F`` (a ``/`` inside a name).

    A static host maps the decoded path to a file, so two URLs whose paths decode
    the same (``a%26b/`` and ``a&b/``, ``%C3%BC`` and ``ü``) name the same file:
    generators spell the same page differently (MkDocs writes its canonical links
    with ``quote``, its page URLs with fewer escapes). Meant for URLs already in
    one comparable spelling (scheme, host, port, dot segments): it compares paths.
    """
    if "%" not in url:
        return url
    scheme_end = url.find("//")
    path_start = url.find("/", scheme_end + 2) if scheme_end >= 0 else 0
    if path_start < 0:
        return url
    end = min((i for i in (url.find("?", path_start), url.find("#", path_start)) if i >= 0), default=len(url))
    path = url[path_start:end]
    decoded = "/".join(
        "%2F".join(unquote(piece, errors="surrogateescape") for piece in re.split("%2[Ff]", segment))
        for segment in path.split("/")
    )
    return url[:path_start] + decoded + url[end:]


def escape_xml(text: str) -> str:
    """Entity-escape a value for XML text or a double-quoted attribute."""
    return text.translate(_XML_ESCAPES) if ("&" in text or "'" in text or "<" in text or '"' in text or ">" in text) else text


class Scope:
    """Turns page URLs into the ``loc`` values one sitemap folder may list.

    sitemaps.org "Sitemap file location": "a Sitemap file located at
    http://example.com/catalog/sitemap.xml can include any URLs starting with
    http://example.com/catalog/ but can not include URLs starting with
    http://example.com/images/". Every shard sits beside the entry point, so one
    scope, the folder of ``base_url``, holds for all of them.
    """

    def __init__(self, base_url: str) -> None:
        base = encode_url(base_url.strip())
        if not base.endswith("/"):
            # The site lives in a folder: "https://x.org/docs" means "/docs/".
            base = base.split("?", 1)[0] + "/"
        self.prefix = base

    def loc(self, url: str) -> str:
        """The encoded absolute URL for ``url`` (absolute, or relative to the base).

        Raises :class:`OutOfScope` for URLs the sitemap may not list and
        :class:`UrlError` for URLs that can never be written.
        """
        if _is_plain_path(url):
            # The most common case of all, a clean relative path: the branch
            # below for it without its checks, each of which it passes.
            loc = self.prefix + url
            if len(loc) > MAX_LOC_LENGTH:
                raise OutOfScope("too long")
            return loc
        if url.startswith(self.prefix):
            # Already absolute and in scope (adapters often hand such URLs, and
            # build_site hands its own): encode the rest, skip the parsing.
            rest = url[len(self.prefix):]
            if _is_plain_path(rest):
                if len(url) > MAX_LOC_LENGTH:
                    raise OutOfScope("too long")
                return url
            if not (rest.startswith("/") or "#" in rest or _DOT_SEGMENT.search(rest) or _CONTROL.search(rest)):
                loc = self.prefix + encode_part(rest)
                if len(loc) > MAX_LOC_LENGTH:
                    raise OutOfScope("too long")
                return loc
        if _SCHEME.match(url) is None:
            if _CONTROL.search(url):
                raise UrlError(f"{url!r} contains control characters (tabs, line breaks...)")
            if url.startswith("/") or "#" in url or _DOT_SEGMENT.search(url):
                # Host-relative, dotted or with a fragment: resolve as a browser would.
                loc = encode_url(_resolve(self.prefix, url))
            else:
                # The common case, kept fast: a clean path below the base folder.
                loc = self.prefix + encode_part(url)
        else:
            loc = encode_url(url)
        if not loc.startswith(self.prefix):
            raise OutOfScope("outside base_url")
        if len(loc) > MAX_LOC_LENGTH:
            raise OutOfScope("too long")
        return loc

    def path_below(self, loc: str) -> str:
        """The part of an encoded ``loc`` below the base folder (for exclude globs)."""
        return loc[len(self.prefix):]
