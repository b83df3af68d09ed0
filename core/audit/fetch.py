"""HTTP requests made as carefully as ``check`` reads files: a deadline for the
whole request, a cap on the bytes read (compressed and inflated), a few
redirects and only within the host, and one line for every way it can fail.

Standard library only (http.client): the few requests sitemapkit makes (a live
site's robots.txt and sitemaps, an IndexNow key file, the IndexNow endpoint)
need no more.
"""

from __future__ import annotations

import dataclasses
import time
import zlib
from typing import TYPE_CHECKING
from urllib.parse import urljoin, urlsplit

from ..protocol.errors import SitemapkitError
from ..protocol.version import __version__

if TYPE_CHECKING:
    import http.client
    import socket

# Seconds one request may take, from connecting to the last byte read.
DEFAULT_TIMEOUT = 30.0
# Redirects followed, each within the host; RFC 9110 section 15.4 leaves the
# number to the client ("a client SHOULD detect and intervene in cyclical
# redirections").
MAX_REDIRECTS = 5
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
_READ_SIZE = 65_536
USER_AGENT = f"sitemapkit/{__version__}"


class FetchError(SitemapkitError):
    """A request that got no usable answer: one line, naming the URL."""


@dataclasses.dataclass
class Response:
    url: str
    status: int
    headers: dict[str, str]
    body: bytes


def _host_key(url: str) -> tuple[str, int | None]:
    parts = urlsplit(url)
    return (parts.hostname or "", parts.port)


def same_host(url: str, other: str) -> bool:
    """Whether ``url`` and ``other`` name the same host (and port, when written)."""
    return _host_key(url) == _host_key(other)


class _Body:
    """An HTTP response read against the request's deadline, at most ``limit``
    bytes: each read waits no longer than the time left."""

    def __init__(self, response: http.client.HTTPResponse, sock: socket.socket | None, deadline: float, limit: int):
        self.response, self.sock, self.deadline, self.left = response, sock, deadline, limit + 1

    def read(self, size: int = _READ_SIZE) -> bytes:
        remaining = self.deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError
        if self.sock is not None:
            self.sock.settimeout(remaining)
        data = self.response.read1(min(size, self.left)) if self.left > 0 else b""
        self.left -= len(data)
        return data


def request(
    method: str,
    url: str,
    *,
    body: bytes | None = None,
    headers: dict[str, str] | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    max_bytes: int,
    redirects: int = MAX_REDIRECTS,
    allowed: str = "",
    what: str = "",
) -> Response:
    """``method url`` and its answer, the body inflated when the server sent it
    gzip-encoded, never more than ``max_bytes`` of it.

    Redirects (up to ``redirects``; 0 follows none) stay on the host, and never
    from https to http; ``allowed`` (a suffix test, see :func:`sitemap_path`)
    names what a redirect may lead to. Raises :class:`FetchError` in one line,
    naming ``what`` (the URL by default), for a timeout, a refused connection,
    an unknown host, a broken TLS or HTTP exchange, a redirect it does not follow,
    or a body past the limit.
    """
    first = url
    for _ in range(redirects + 1):
        response = _one(method, url, body, headers or {}, timeout, max_bytes, what or url)
        location = response.headers.get("location")
        if response.status not in REDIRECT_STATUSES or not location or redirects == 0:
            return response
        target = urljoin(url, location)
        if urlsplit(target).scheme not in ("http", "https") or not same_host(target, first):
            raise FetchError(f"{what or first} redirects to {target}, on another host; not followed")
        if urlsplit(url).scheme == "https" and urlsplit(target).scheme == "http":
            raise FetchError(f"{what or first} redirects from https to {target}; not followed")
        if allowed and not sitemap_path(target, allowed):
            raise FetchError(f"{what or first} redirects to {target}, which is no {allowed}; not followed")
        url = target
        if response.status == 303:
            method, body = "GET", None
    raise FetchError(f"{what or first} redirects more than {redirects} times; not followed further")


def sitemap_path(url: str, allowed: str) -> bool:
    """Whether ``url``'s path names what ``allowed`` says: ``robots.txt or sitemap``
    (a robots.txt at the host root, or a file ending in .xml, .txt, .xml.gz or
    .txt.gz), ``sitemap`` (the files only)."""
    path = urlsplit(url).path
    if "robots.txt" in allowed and path == "/robots.txt":
        return True
    return path.endswith((".xml", ".txt", ".xml.gz", ".txt.gz")) and path != "/robots.txt"


def _one(
    method: str, url: str, body: bytes | None, headers: dict[str, str], timeout: float, max_bytes: int, what: str
) -> Response:
    # Imported by the first request: every command's parser names DEFAULT_TIMEOUT,
    # and `generate` or `build` should not pay for HTTP, TLS and the sitemap reader.
    import http.client
    import socket
    import ssl

    from .check import LimitError, inflate_at_most

    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise FetchError(f"{what} is not an http(s) URL")
    deadline = time.monotonic() + timeout
    try:
        port = parts.port
    except ValueError:
        raise FetchError(f"{what} has an invalid port") from None
    connection: http.client.HTTPConnection
    if parts.scheme == "https":
        connection = http.client.HTTPSConnection(
            parts.hostname, port, timeout=timeout, context=ssl.create_default_context()
        )
    else:
        connection = http.client.HTTPConnection(parts.hostname, port, timeout=timeout)
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    try:
        connection.request(
            method,
            target,
            body=body,
            headers={"User-Agent": USER_AGENT, "Accept-Encoding": "gzip", **headers},
        )
        if connection.sock is not None:
            connection.sock.settimeout(max(deadline - time.monotonic(), 0.001))
        answer = connection.getresponse()
        names = {name.lower(): value for name, value in answer.getheaders()}
        reader = _Body(answer, connection.sock, deadline, max_bytes)
        if names.get("content-encoding", "").strip().lower() in ("gzip", "x-gzip"):
            try:
                inflated = inflate_at_most(reader, max_bytes)
            except (zlib.error, EOFError):
                if reader.left > 0:
                    raise
                inflated = b""  # cut off by the limit, not broken
            if reader.left <= 0:
                raise LimitError(f"more than {max_bytes:,} bytes")
            if inflated is None:
                raise LimitError(f"more than {max_bytes:,} bytes uncompressed")
            data = inflated
        else:
            data = b""
            while chunk := reader.read():
                data += chunk
            if len(data) > max_bytes:
                raise LimitError(f"more than {max_bytes:,} bytes")
        return Response(url, answer.status, names, data)
    except LimitError as error:
        raise FetchError(f"{what} answers with {error}; the limit is {max_bytes:,} (not read further)") from None
    except (TimeoutError, socket.timeout):
        raise FetchError(f"{what} did not answer within {timeout:g} seconds") from None
    except socket.gaierror:
        raise FetchError(f"{what}: the host {parts.hostname} was not found (DNS)") from None
    except ConnectionRefusedError:
        raise FetchError(f"{what}: connection refused by {parts.netloc}") from None
    except ssl.SSLError as error:
        raise FetchError(f"{what}: the TLS connection failed ({error.reason or error})") from None
    except (zlib.error, EOFError):
        raise FetchError(f"{what} answers with a broken gzip body") from None
    except http.client.HTTPException as error:
        raise FetchError(f"{what} gave no valid HTTP answer ({type(error).__name__})") from None
    except OSError as error:
        raise FetchError(f"{what}: {error.strerror or error}") from None
    finally:
        connection.close()
