"""Telling IndexNow which URLs changed: the key file checked first, then the
URLs of the key's host posted in requests of at most 10,000, 429 and 5xx tried
again after the wait the endpoint asks for (a bounded number of times).
"""

from __future__ import annotations

import dataclasses
import email.utils
import json
import time
from collections.abc import Callable, Iterable
from urllib.parse import urlsplit

from ..protocol.errors import SitemapkitError
from ..protocol.indexnow import (
    ACCEPTED_STATUSES,
    CONTENT_TYPE,
    DEFAULT_ENDPOINT,
    MAX_URLS_PER_REQUEST,
    REFUSALS,
    RETRY_STATUSES,
    check_key,
    key_file_name,
)
from .fetch import DEFAULT_TIMEOUT, FetchError, request, same_host

# Tries of one request that is answered 429 or 5xx, the first one included.
MAX_ATTEMPTS = 4
# The first wait when the endpoint names none; doubled at each try.
FIRST_BACKOFF = 2.0
# The longest wait honoured: a Retry-After beyond it ends the tries at once (a
# deploy job should not sleep for an hour).
MAX_WAIT = 120.0
# A key file holds one key of at most 128 characters; a response says little.
KEY_FILE_BYTES = 4_096
RESPONSE_BYTES = 65_536


class SubmitError(SitemapkitError):
    """A submission that stopped, with how many URLs were accepted before."""


@dataclasses.dataclass
class Submission:
    """What will be (or was) sent: the key, where it is published, the URLs."""

    key: str
    key_location: str
    host: str
    urls: list[str]
    #: URLs of the change list the key's host (or folder) does not cover: never sent.
    refused: list[str] = dataclasses.field(default_factory=list)

    def bodies(self, per_request: int = MAX_URLS_PER_REQUEST) -> list[bytes]:
        """The JSON bodies of the requests, at most ``per_request`` URLs each."""
        return [
            json.dumps(
                {
                    "host": self.host,
                    "key": self.key,
                    "keyLocation": self.key_location,
                    "urlList": self.urls[start : start + per_request],
                },
                ensure_ascii=False,
            ).encode("utf-8")
            for start in range(0, len(self.urls), per_request)
        ]


def plan(urls: Iterable[str], site: str, key: str, key_location: str | None = None) -> Submission:
    """The submission of ``urls`` for the site at ``site`` (the scheme and host
    of its URLs): the key file at ``key_location`` (which must be on the site's
    host), else ``KEY.txt`` at the host root with the site's scheme. Only URLs on
    that host, and below the key file's folder, are kept; the rest are refused."""
    check_key(key, "key")
    parts = urlsplit(site)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise SitemapkitError(f"the change list names no http(s) site ({site!r}); it cannot be submitted")
    if key_location is None:
        key_location = f"{parts.scheme}://{parts.netloc}/{key_file_name(key)}"
    elif urlsplit(key_location).scheme not in ("http", "https") or not same_host(key_location, site):
        raise SitemapkitError(
            f"--key-location {key_location} must be an http(s) URL on the site's host, {parts.netloc}"
        )
    folder = urlsplit(key_location).path.rpartition("/")[0] + "/"
    kept, refused = [], []
    for url in dict.fromkeys(urls):
        target = urlsplit(url)
        if target.scheme in ("http", "https") and same_host(url, key_location) and target.path.startswith(folder):
            kept.append(url)
        else:
            refused.append(url)
    return Submission(key, key_location, parts.netloc.rpartition("@")[2], kept, refused)


def verify_key_file(submission: Submission, *, timeout: float = DEFAULT_TIMEOUT) -> None:
    """Stop, in one line saying where it is expected, unless the key location
    serves exactly the key (around it, at most white space)."""
    where = f"the IndexNow key file must be at {submission.key_location}, holding exactly the key"
    try:
        response = request(
            "GET", submission.key_location, timeout=timeout, max_bytes=KEY_FILE_BYTES, what=submission.key_location
        )
    except FetchError as error:
        raise SitemapkitError(f"{where}, and it could not be read: {error}") from None
    if response.status != 200:
        raise SitemapkitError(f"{where}; it answered HTTP {response.status}")
    text = response.body.decode("utf-8", "replace").removeprefix("\ufeff").strip()
    if text != submission.key:
        raise SitemapkitError(f"{where}; it serves something else")


def _wait(retry_after: str | None, attempt: int) -> float:
    """Seconds to wait before try ``attempt + 1``: what Retry-After says (seconds
    or an HTTP date, RFC 9110 section 10.2.3), else a doubling backoff."""
    if retry_after:
        value = retry_after.strip()
        if value.isdigit():
            return float(value)
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            when = None
        if when is not None:
            return max(0.0, when.timestamp() - time.time())
    return FIRST_BACKOFF * 2 ** (attempt - 1)


def submit(
    submission: Submission,
    endpoint: str = DEFAULT_ENDPOINT,
    *,
    per_request: int = MAX_URLS_PER_REQUEST,
    attempts: int = MAX_ATTEMPTS,
    max_wait: float = MAX_WAIT,
    timeout: float = DEFAULT_TIMEOUT,
    sleep: Callable[[float], None] = time.sleep,
) -> int:
    """Post the submission's URLs to ``endpoint``; the number of requests made.
    Raises :class:`SubmitError` in one line, with how many URLs were and were not
    accepted, for a refusal, an endpoint that stays busy, or no answer."""
    total = len(submission.urls)
    accepted = 0
    requests = 0

    def stop(reason: str) -> SubmitError:
        return SubmitError(f"{reason}; {accepted:,} of {total:,} URLs accepted, {total - accepted:,} not")

    for body in submission.bodies(per_request):
        count = len(json.loads(body)["urlList"])
        for attempt in range(1, attempts + 1):
            try:
                response = request(
                    "POST",
                    endpoint,
                    body=body,
                    headers={"Content-Type": CONTENT_TYPE},
                    timeout=timeout,
                    max_bytes=RESPONSE_BYTES,
                    redirects=0,
                    what=f"the IndexNow endpoint {endpoint}",
                )
            except FetchError as error:
                raise stop(str(error)) from None
            requests += 1
            if response.status in ACCEPTED_STATUSES:
                accepted += count
                break
            if response.status in REFUSALS:
                raise stop(f"{REFUSALS[response.status]} (HTTP {response.status} from {endpoint})")
            if response.status not in RETRY_STATUSES:
                raise stop(f"the IndexNow endpoint {endpoint} answered HTTP {response.status}")
            what = "too many requests" if response.status == 429 else "a server error"
            wait = _wait(response.headers.get("retry-after"), attempt)
            if attempt == attempts or wait > max_wait:
                later = f" and asks to wait {wait:g} s" if wait > max_wait else ""
                raise stop(
                    f"the IndexNow endpoint answered HTTP {response.status} ({what}) {attempt} "
                    f"time{'s' if attempt != 1 else ''}{later}; try again later"
                )
            sleep(wait)
    return requests
