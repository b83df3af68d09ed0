"""IndexNow's rules (https://www.indexnow.org/documentation): the key, its file,
what one request may hold, and what each answer means. Data only; the requests
themselves are made by ``audit.indexnow``.
"""

from __future__ import annotations

from .errors import ConfigError
from .patterns import deferred

# "The key should have a minimum of 8 and a maximum of 128 hexadecimal
# characters. The key can contain only the following characters: lowercase
# characters (a-z), uppercase characters (A-Z), numbers (0-9), and dashes (-)."
KEY_MIN_LENGTH = 8
KEY_MAX_LENGTH = 128
_KEY = deferred(r"[a-zA-Z0-9-]{%d,%d}\Z" % (KEY_MIN_LENGTH, KEY_MAX_LENGTH))

# "You can submit up to 10,000 URLs per post".
MAX_URLS_PER_REQUEST = 10_000

# "the search engines ... share the URLs submitted ... with all other
# participating search engines": one shared endpoint reaches every one of them.
DEFAULT_ENDPOINT = "https://api.indexnow.org/indexnow"

CONTENT_TYPE = "application/json; charset=utf-8"

# "HTTP 200 Ok: URL submitted successfully"; "202 Accepted: URL received. IndexNow
# key validation pending."
ACCEPTED_STATUSES = frozenset({200, 202})
# The documented refusals, each in the user's terms.
REFUSALS = {
    400: "bad request: the endpoint refused the request as malformed",
    403: "key not valid: the endpoint did not find the key, or the key file did not serve it",
    422: "URLs not on the host: the endpoint says some URLs do not belong to the key's host or key location",
}
# "429 Too Many Requests: Too Many Requests (potential Spam)"; 5xx: the endpoint's
# own trouble. Both are worth another try, after a while.
RETRY_STATUSES = frozenset({429}) | frozenset(range(500, 600))


def check_key(key: object, option: str = "indexnow_key") -> str:
    """``key`` if it is an IndexNow key; else :class:`ConfigError` on ``option``."""
    if not isinstance(key, str) or not _KEY.match(key):
        raise ConfigError(
            option,
            f"{key!r} is not an IndexNow key: {KEY_MIN_LENGTH} to {KEY_MAX_LENGTH} characters of a-z, A-Z, 0-9 and -",
        )
    return key


def key_file_name(key: str) -> str:
    """The file a site publishes at its host root to prove it holds ``key``:
    "Host a text key file ... https://www.example.com/{key}.txt"."""
    return f"{key}.txt"
