"""URLs as the protocol wants them: absolute, RFC 3986 encoded, XML escaped, in scope.

sitemaps.org/protocol.html, "Entity escaping": "Your Sitemap file must be UTF-8
encoded ... all data values in a Sitemap must be entity-escaped" and "Please check
to make sure that your URLs follow the RFC-3986 standard for URIs, the RFC-3987
standard for IRIs": IRIs become URIs by UTF-8 percent-encoding, then the XML entities.
"""

from __future__ import annotations

import functools
import re
from urllib.parse import quote, unquote, urljoin, urlsplit, urlunsplit

from .errors import ConfigError, UrlError
from .limits import MAX_LOC_LENGTH
from .patterns import deferred

# ---- what a URL may hold: each rule written once -----------------------------------
# The block path of `sitemapkit generate` (urllist.py) derives its byte patterns
# from these, so the two paths cannot disagree on a character.

#: RFC 3986 section 2: unreserved, sub-delims, and the gen-delims that may stand in
#: a path or query (":" "@" "/" "?"): what a loc holds as it is (a character class
#: body). "%" is kept only where it starts a valid %XX triplet (LONE_PERCENT), so
#: encoded input is never encoded twice. "#" opens the fragment once.
UNRESERVED_CHARACTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"
URI_PLAIN_CHARACTERS = UNRESERVED_CHARACTERS + "!$&'()*+,;=:@/?"
#: The same characters as a character class body.
URI_PLAIN_CLASS = re.escape(URI_PLAIN_CHARACTERS)
#: A character a file name may hold that makes it not its URL path as it is: a
#: name of unreserved characters and "/" only is (encode_path keeps each, and
#: none is escaped in XML).
NAME_NOT_PATH = "[^" + re.escape(UNRESERVED_CHARACTERS + "/") + "]"
#: A "%" that starts no %XX triplet: it is data, written %25.
LONE_PERCENT = r"%(?![0-9A-Fa-f]{2})"
#: Control characters, as code point ranges: C0, DEL and C1 (U+0080 to U+009F,
#: NEL U+0085 among them). No way to write them that a crawler would read back,
#: so a URL holding one is refused, wherever it stands.
CONTROL_RANGES = ((0x00, 0x1F), (0x7F, 0x9F))
#: RFC 3986 section 3.1: scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ).
SCHEME_NAME = r"[A-Za-z][A-Za-z0-9+.-]*"
#: "scheme://" marks an absolute URL; a bare "a:b" is a file name here, not a scheme.
SCHEME = SCHEME_NAME + "://"
#: A "." or ".." path segment after its "/", "." also spelled %2E (RFC 3986
#: section 6.2.2.2), up to the end of the segment (the tab and line break end a
#: line of a URL list).
SLASH_DOT_SEGMENT = r"/(?:\.|%2[Ee]){1,2}(?=[/?#\t\n]|\Z)"
#: Every SLASH_DOT_SEGMENT match holds a "%2" (of "%2E") or a match of this, a
#: "." ending a segment, which a whole block is searched for first: both are
#: rarer in URLs than "/", so the searches skip ahead fast.
DOT_ENDING_SEGMENT = r"\.(?=[/?#\t\n]|\Z)"
#: The same at the start of a relative path too.
DOT_SEGMENT = r"(?:^|/)" + SLASH_DOT_SEGMENT[1:]
#: sitemaps.org "Entity escaping": & ' " > < become &amp; &apos; &quot; &gt; &lt;.
XML_ESCAPES = {"&": "&amp;", "'": "&apos;", '"': "&quot;", "<": "&lt;", ">": "&gt;"}
#: The schemes a sitemap may name, and their default ports.
WEB_SCHEMES = {"http": 80, "https": 443}
#: How an encoded absolute http(s) URL starts (encoding lowers the scheme).
WEB_URL_STARTS = ("http://", "https://")


def control_class(ranges=CONTROL_RANGES) -> str:
    """A character class (str pattern) of the code points in ``ranges``."""
    return "[" + "".join(f"\\x{a:02x}-\\x{b:02x}" if a != b else f"\\x{a:02x}" for a, b in ranges) + "]"


def utf8_pattern(ranges, allowed: bytes = b"") -> bytes:
    """A bytes pattern matching the UTF-8 encoding of any code point in ``ranges``
    (each at most U+07FF), except the single bytes in ``allowed``."""
    single: list[int] = []
    by_lead: dict[int, list[int]] = {}
    for first, last in ranges:
        if last > 0x7FF:
            raise ValueError("only one- and two-byte UTF-8 sequences are derived here")
        for code in range(first, last + 1):
            if code < 0x80:
                if code not in allowed:
                    single.append(code)
            else:
                by_lead.setdefault(0xC0 | code >> 6, []).append(0x80 | code & 0x3F)

    def byte_class(values: list[int]) -> bytes:
        return b"[" + b"".join(re.escape(bytes([v])) for v in values) + b"]"

    options = [byte_class(single)] if single else []
    options += [re.escape(bytes([lead])) + byte_class(tails) for lead, tails in by_lead.items()]
    return b"(?:" + b"|".join(options) + b")"


#: The plain characters, and "%", as bytes (for bytes.translate).
PLAIN_BYTES = (URI_PLAIN_CHARACTERS + "%").encode("ascii")

_NEEDS_ENCODING = deferred(f"[^{URI_PLAIN_CLASS}%]|{LONE_PERCENT}")
_CONTROL = deferred(control_class())
_SCHEME = deferred(SCHEME)
_DOT_SEGMENT = deferred(DOT_SEGMENT)
_DEFAULT_PORTS = WEB_SCHEMES
_XML_ESCAPES = str.maketrans(XML_ESCAPES)

# A path (and query) that needs nothing done: only characters RFC 3986 allows as
# they are, no "%" (which may need encoding), no ":" (which may open a scheme),
# no "#". With no leading "/" or "." and no "/." inside, it has no dot segment and
# goes under the base folder as it is: one match instead of five checks.
_PLAIN_PATH = deferred(r"[A-Za-z0-9\-._~!$&'()*+,;=@/?]*")


def _is_plain_path(text: str) -> bool:
    return bool(_PLAIN_PATH.fullmatch(text)) and not text.startswith(("/", ".")) and "/." not in text


def _is_dot(segment: str) -> bool:
    return segment in (".", "..") or (len(segment) <= 6 and segment.lower().replace("%2e", ".") in (".", ".."))


def remove_dot_segments(path: str) -> str:
    """RFC 3986 section 5.2.4, for absolute URLs too ("." spelled %2E counts):
    urljoin resolves "." and ".." only in relative references."""
    if "." not in path and "%" not in path:
        return path
    segments = path.split("/")
    if not any(map(_is_dot, segments)):
        return path
    output: list[str] = []
    for segment in segments:
        if not _is_dot(segment):
            output.append(segment)
        elif segment.lower().replace("%2e", ".") == ".." and len(output) > 1:
            output.pop()
    if _is_dot(segments[-1]):
        output.append("")
    return "/".join(output)


def _resolve(base: str, reference: str) -> str:
    """RFC 3986 section 5.2 for a reference without a scheme against an absolute base.

    urllib's urljoin strips leading spaces (a browser's behaviour for typed URLs),
    which would change a file name that starts with one; this does not.
    """
    if reference.startswith("//"):
        # A network-path reference names another host, not a path below the base.
        return base[: base.index("//")] + reference
    origin_end = base.index("/", base.index("//") + 2)
    origin, base_path = base[:origin_end], base[origin_end:]
    path, mark, rest = reference.partition("?") if "?" in reference.split("#", 1)[0] else reference.partition("#")
    if not path.startswith("/"):
        path = base_path.rsplit("/", 1)[0] + "/" + path
    return origin + remove_dot_segments(path) + mark + rest


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


def encode_url(url: str, *, resolve_dots: bool = True) -> str:
    """An absolute IRI as a URI: IDNA host, lowercase scheme and host, no default
    port, percent-encoded path, query and fragment, dot segments resolved (unless
    ``resolve_dots`` is false: the path as written)."""
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
    path, question, query = tail.partition("?")
    # "/docs/../admin" is "/admin" to every crawler, "/docs/%2e%2e/admin" too:
    # resolved here, so scope is judged on the URL that will be fetched.
    if resolve_dots:
        path = remove_dot_segments(path)
    encoded = f"{scheme}://{netloc}{encode_part(path + question + query)}"
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


# ---- which file serves a URL: one rule for every build, check and adapter ----------

#: The names of the files a static host serves as pages.
HTML_SUFFIXES = (".html", ".htm")
#: The file a static host serves at its folder's URL: ``guide/`` is
#: ``guide/index.html``. It is the one name every static host serves so (GitHub
#: Pages, Netlify, Cloudflare Pages, S3's default index document, nginx's
#: default ``index``); an ``index.htm`` only some servers are set up to serve for
#: the folder, so it is a page at its own name, ``guide/index.htm``. (Google's
#: robots.txt parser reads both names: see ``robotsrules``, which follows it.)
INDEX_FILE = "index.html"


def is_index_file(relative: str) -> bool:
    """Whether ``relative`` (a ``/``-separated name below the output folder) is
    its folder's :data:`INDEX_FILE`."""
    return relative == INDEX_FILE or relative.endswith("/" + INDEX_FILE)


def path_of_file(relative: str) -> str:
    """The URL path (a name, still to encode) a static host serves ``relative``
    at: ``guide/index.html`` is its folder, ``guide/``; any other file its own name."""
    if is_index_file(relative):
        return relative[: -len(INDEX_FILE)]
    return relative


def files_serving(path: str) -> tuple[str, ...]:
    """The files below the output folder a static host may serve at ``path`` (a
    URL path below the base folder, percent-decoded), in the order it looks: a
    folder's (``""``, ``guide/``) is its :data:`INDEX_FILE`; another path's is
    the file itself, then ``<path>.html`` (the URLs without ``.html`` GitHub
    Pages, Netlify and Cloudflare Pages serve), then ``<path>/index.html`` (after
    redirecting to the folder). ``path_of_file(name)`` is served by ``name``,
    always the first of these."""
    if path == "" or path.endswith("/"):
        return (path + INDEX_FILE,)
    return (path, path + ".html", path + "/" + INDEX_FILE)


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
    return (
        text.translate(_XML_ESCAPES)
        if ("&" in text or "'" in text or "<" in text or '"' in text or ">" in text)
        else text
    )


def unescape_xml(text: str) -> str:
    """What :func:`escape_xml` escaped, as it was (``&amp;`` last, so that
    ``&amp;lt;`` stays ``&lt;``)."""
    if "&" not in text:
        return text
    for char, entity in sorted(XML_ESCAPES.items(), key=lambda item: item[0] == "&"):
        text = text.replace(entity, char)
    return text


# ---- comparing URLs: canonical links, robots.txt rules, `check` -----------------------

_UNRESERVED = frozenset(UNRESERVED_CHARACTERS)
# Characters a URI may hold literally (RFC 3986 section 2: unreserved and
# reserved) plus "%", which starts an escape.
_URI_CHARACTERS = "A-Za-z0-9\\-._~:/?#\\[\\]@!$&'()*+,;=%"
_NEEDS_NO_WORK = deferred(r"[A-Za-z0-9\-._~/:@!&'()+,;=?\[\]#$*]*")
_ESCAPE_OR_FOREIGN = deferred(rf"%([0-9A-Fa-f]{{2}})|%|[^{_URI_CHARACTERS}]")
# What a loc may hold once it is a URI: RFC 3986 characters and valid %XX escapes.
_URI = deferred(r"(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/?#\[\]]|%[0-9A-Fa-f]{2})*\Z")
# HTML's whitespace, which attribute values may carry around a URL.
_HTML_WHITESPACE = "\t\n\f\r "
_INDEX_FILE_END = "/" + INDEX_FILE


def is_uri(text: str) -> bool:
    """Whether ``text`` holds only what a URI may (RFC 3986 characters, valid escapes)."""
    return bool(_URI.match(text))


def normalise_percent_encoding(text: str) -> str:
    """``text`` (a URL path, query or pattern) in one percent-encoding spelling.

    Escapes of unreserved characters are decoded, other escapes get upper-case
    hex digits, and anything a URI cannot hold literally (non-ASCII, spaces,
    ``"<>\\^`{|}``, a ``%`` that starts no escape) is encoded as UTF-8
    (RFC 3986 section 6.2.2).
    """
    if _NEEDS_NO_WORK.fullmatch(text):
        return text
    return _ESCAPE_OR_FOREIGN.sub(_normalise_match, text)


def _normalise_match(match: re.Match[str]) -> str:
    hex_digits = match.group(1)
    if hex_digits is not None:
        character = chr(int(hex_digits, 16))
        return character if character in _UNRESERVED else "%" + hex_digits.upper()
    return "".join(f"%{byte:02X}" for byte in match.group(0).encode("utf-8", "surrogatepass"))


def comparable_url(url: str) -> str:
    """``url`` spelled so that two spellings of one address compare equal.

    Scheme and host are case-insensitive, a default port (80, 443) equals none,
    percent-escapes are compared in one spelling (RFC 3986 section 6.2.2), dot
    segments are resolved, the fragment is ignored, and a path ending in
    ``/index.html`` equals the same path ending in ``/``, since static hosts serve
    one file for both (:func:`path_of_file`).
    """
    try:
        parts = urlsplit(url.strip(_HTML_WHITESPACE))
        port = parts.port
    except ValueError:
        # Unparsable (bad port, broken IPv6 literal): compare the URL as written
        # rather than fail the build.
        return url
    scheme = parts.scheme.lower()
    host = parts.hostname or ""
    if host and not host.isascii():
        try:
            host = host.encode("idna").decode("ascii")
        except UnicodeError:
            pass
    netloc = host
    if parts.username is not None or parts.password is not None:
        netloc = parts.netloc.rpartition("@")[0] + "@" + host
    if port is not None and port != _DEFAULT_PORTS.get(scheme):
        netloc += f":{port}"
    path = remove_dot_segments(normalise_percent_encoding(parts.path)) or "/"
    if path.endswith(_INDEX_FILE_END):
        path = path[: -len(INDEX_FILE)]
    query = normalise_percent_encoding(parts.query)
    return urlunsplit((scheme, netloc, path, query, ""))


def same_file_key(url: str) -> str:
    """``url`` spelled so that two URLs naming the same file compare equal: one
    comparable spelling (:func:`comparable_url`), then the path decoded
    (:func:`file_spelling`): ``.../a%26b/`` is ``.../a&b/``."""
    return file_spelling(comparable_url(url))


# References urljoin gives back as they are, or after the base's origin or
# folder, with nothing to parse: path characters only (no ";" parameters, query,
# fragment, backslash or space), no "." or ".." segment, and no empty segment
# where urljoin would drop it (tests/core/test_urls.py holds them to urljoin).
_SEGMENT = r"(?!\.\.?(?:/|\Z))[A-Za-z0-9\-._~!$&'()*+,=:@%]+"
_ORIGIN_PART = r"https?://[A-Za-z0-9.\-]+(?::[0-9]{1,5})?"
_PLAIN_ABSOLUTE = deferred(_ORIGIN_PART + r"(?:/[A-Za-z0-9\-._~!$&'()*+,=:@%/]*)?\Z")
_PLAIN_ROOTED = deferred(r"(?:/" + _SEGMENT + r")+/?\Z")
_PLAIN_RELATIVE = deferred(r"(?![^/]*:)" + _SEGMENT + r"(?:/" + _SEGMENT + r")*/?\Z")
_PLAIN_BASE = deferred(r"(" + _ORIGIN_PART + r")(?:/" + _SEGMENT + r")*/?\Z")
# A relative reference that first climbs out of the base's folder ("../img/a.png",
# as MkDocs and Sphinx write every image of a page below the root): each "../"
# drops one folder of the base's, never above the root (RFC 3986, 5.2.4).
_PLAIN_CLIMBING = deferred(r"((?:\.\./)+)(" + _SEGMENT + r"(?:/" + _SEGMENT + r")*/?)\Z")


@functools.lru_cache(maxsize=8)
def _plain_origin(base: str) -> str | None:
    """The origin of a base URL with nothing to parse (see _PLAIN_BASE), else
    None: a page's references resolve against one base, asked for each."""
    plain = _PLAIN_BASE.match(base)
    return None if plain is None else plain.group(1)


def resolve_web_reference(base: str, reference: str) -> str | None:
    """``reference`` made absolute against ``base``; None unless it is an http(s) URL.

    A URL that is unparsable or not a web address ("mailto:", "javascript:") is
    one crawlers pass over, so it counts as absent.
    """
    if reference.startswith(WEB_URL_STARTS) and _PLAIN_ABSOLUTE.match(reference):
        return reference
    origin = _plain_origin(base)
    if origin is not None:
        # Most references in a page: its own images and links, by path (each
        # kind tried only for a reference that starts as it does).
        if reference.startswith("/"):
            if _PLAIN_ROOTED.match(reference):
                return origin + reference
        elif not reference.startswith("../"):
            if _PLAIN_RELATIVE.match(reference):
                folder = base[: base.rfind("/") + 1] if len(base) > len(origin) else base + "/"
                return folder + reference
        else:
            climbing = _PLAIN_CLIMBING.match(reference)
            if climbing is not None:
                folders = base[len(origin) : base.rfind("/")].split("/")[1:] if len(base) > len(origin) else []
                kept = folders[: max(len(folders) - len(climbing.group(1)) // 3, 0)]
                return origin + "/" + "".join(folder + "/" for folder in kept) + climbing.group(2)
    try:
        target = urljoin(base, reference)
        if urlsplit(target).scheme.lower() in WEB_SCHEMES:
            return target
    except ValueError:
        pass
    return None


def is_web_url(url: str) -> bool:
    """Whether ``url`` (encoded) is an absolute http(s) URL: the only kind a
    sitemap may name."""
    return url.startswith(WEB_URL_STARTS)


def check_base_url(base_url: object) -> str:
    """``base_url`` as every tool takes it (``site_url``, ``SITEURL``,
    ``html_baseurl``, ``--base-url``), encoded (:func:`encode_url`); else
    :class:`ConfigError` for ``base_url`` saying in one line what is wrong.

    The one check of a base URL: :class:`~sitemapkit.model.Options` makes it when
    it is created and :class:`Scope` when it is, so no base URL that one accepts
    is refused by the other later (a C1 control such as NEL, U+0085, is refused
    by both, as it is in every loc: see :data:`CONTROL_RANGES`).
    """
    if not isinstance(base_url, str) or not base_url.strip():
        raise ConfigError("base_url", "is not set; it must be the site's absolute http(s) URL")
    base = base_url.strip()
    try:
        parts = urlsplit(base)
        _ = parts.port  # parsed on first use: "https://x.org:99999/" fails here
    except ValueError:  # "https://[::1/", a broken IPv6 literal or port
        raise ConfigError("base_url", f"{base_url!r} has an invalid host or port") from None
    if parts.scheme not in WEB_SCHEMES or not parts.hostname:
        raise ConfigError("base_url", f"{base_url!r} is not an absolute http(s) URL with a host")
    if parts.query or parts.fragment:
        raise ConfigError("base_url", f"{base_url!r} must not have a query or fragment")
    if " " in base or _CONTROL.search(base):
        raise ConfigError("base_url", f"{base_url!r} contains spaces or control characters")
    try:
        return encode_url(base)
    except UrlError:  # a host IDNA cannot encode ("https://a..b/" and the like)
        raise ConfigError("base_url", f"{base_url!r} has a host name that cannot be encoded") from None


class Scope:
    """Turns page URLs into the ``loc`` values one sitemap folder may list.

    sitemaps.org "Sitemap file location": "a Sitemap file located at
    http://example.com/catalog/sitemap.xml can include any URLs starting with
    http://example.com/catalog/ but can not include URLs starting with
    http://example.com/images/". Every shard sits beside the entry point, so one
    scope, the folder of ``base_url``, holds for all of them.
    """

    def __init__(self, base_url: str) -> None:
        base = check_base_url(base_url)
        if not base.endswith("/"):
            # The site lives in a folder: "https://x.org/docs" means "/docs/".
            base = base.split("?", 1)[0] + "/"
        self.prefix = base

    def loc(self, url: str) -> str:
        """The encoded absolute URL for ``url`` (absolute, or relative to the base).

        Raises :class:`OutOfScope` for URLs the sitemap may not list and
        :class:`UrlError` for URLs that can never be written.
        """
        if url.startswith(self.prefix):
            # Already absolute and in scope (adapters often hand such URLs, and
            # build_site hands its own, as do a page's images): encode the rest,
            # skip the parsing. (No plain path starts so: it holds no ":".)
            rest = url[len(self.prefix) :]
            if _is_plain_path(rest):
                if len(url) > MAX_LOC_LENGTH:
                    raise OutOfScope("too long")
                return url
            if not (rest.startswith("/") or "#" in rest or _DOT_SEGMENT.search(rest) or _CONTROL.search(rest)):
                loc = self.prefix + encode_part(rest)
                if len(loc) > MAX_LOC_LENGTH:
                    raise OutOfScope("too long")
                return loc
        elif _is_plain_path(url):
            # The most common case of all, a clean relative path: the branch
            # below for it without its checks, each of which it passes.
            loc = self.prefix + url
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

    def file_below(self, url: str) -> str | None:
        """The path below the base folder that ``url`` names, as written (dot
        segments kept) and percent-decoded: the file a static host serves it from;
        None when ``url`` is no URL or lies outside the base. Whether that path
        stays inside a folder on disk (``..``, a decoded ``%2F``) is for the code
        that opens files to judge."""
        try:
            normal = encode_url(url, resolve_dots=False)
        except UrlError:
            return None
        if not normal.startswith(self.prefix):
            return None
        return unquote(urlsplit(normal).path[len(urlsplit(self.prefix).path) :])

    def path_below(self, loc: str) -> str:
        """The part of an encoded ``loc`` below the base folder (for exclude globs)."""
        return loc[len(self.prefix) :]
