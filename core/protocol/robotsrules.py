"""robots.txt rules for ``User-agent: *`` with RFC 9309 matching (``*`` and ``$``).

A sitemap that lists URLs the site's own robots.txt forbids sends crawlers
mixed signals (Google Search Console reports them as "Submitted URL blocked by
robots.txt"), so the build leaves them out. What "forbids" means follows RFC
9309, for a crawler that no group names specifically, i.e. the ``*`` group:

* Every ``User-agent: *`` group counts, merged into one (section 2.2.1); a group
  is one or more ``User-agent`` lines and the rules that follow them. Rules
  before the first ``User-agent`` line belong to no group.
* Field names are case-insensitive; ``#`` starts a comment; lines end in CR, LF
  or CRLF; a leading byte-order mark is ignored.
* The longest matching ``Allow``/``Disallow`` pattern wins; on a tie ``Allow``
  wins (section 2.2.2). An empty ``Disallow:`` forbids nothing. ``*`` matches
  any characters, a final ``$`` anchors the end; patterns match from the start
  of the path. ``/robots.txt`` itself is always allowed.
* Paths and patterns are compared in one percent-encoding spelling (section
  2.2.2 with RFC 3986 section 6.2.2): non-ASCII and characters a URI cannot hold
  are percent-encoded as UTF-8, escapes of unreserved characters
  (``A-Za-z0-9-._~``) are decoded, hex digits are upper case. An escaped
  reserved character (``%3F``) stays different from the character itself
  (``?``), as RFC 3986 section 2.2 says.

Where the RFC is silent, Google's published parser is followed, because it is
the crawler users care about most: a missing colon (``Disallow /x``) and
Google's accepted misspellings (``dissallow``...) are read; ``Allow:
/dir/index.html`` also allows ``/dir/`` itself; a ``User-agent`` line only starts
a new group after a rule line (other lines such as ``Sitemap:`` or
``Crawl-delay:`` do not end a group).
"""

from __future__ import annotations

from .patterns import deferred
from .urls import normalise_percent_encoding

# Google's robots.txt parser accepts these spellings (robots.cc, KeyIsDisallow
# and KeyIsUserAgent); RFC 9309 names only the first of each.
_USER_AGENT_FIELDS = frozenset({"user-agent", "useragent", "user agent"})
_ALLOW_FIELDS = frozenset({"allow"})
_DISALLOW_FIELDS = frozenset({"disallow", "dissallow", "dissalow", "disalow", "diasllow", "disallaw"})

# RFC 9309 section 2.2: a line ends with CRLF, CR or LF, nothing else (str.splitlines
# would also split at form feeds and U+2028). robots.py and check.py use it too.
LINE_BREAK = deferred(r"\r\n|\r|\n")

_ROBOTS_TXT = "/robots.txt"


class _Pattern:
    """One Allow or Disallow path pattern, compiled for matching."""

    __slots__ = ("allow", "anchored", "length", "pieces", "text")

    def __init__(self, text: str, allow: bool) -> None:
        self.text = text
        self.allow = allow
        # RFC 9309 section 2.2.2: "the most specific match ... has the most
        # octets"; like Google and Protego we count the pattern's own octets.
        self.length = len(text)
        # "$" is special only at the end (RFC 9309 section 2.2.3).
        self.anchored = text.endswith("$")
        body = text[:-1] if self.anchored else text
        # Any other "$" is literal; paths spell it %24 (see _comparable_path).
        self.pieces = body.replace("$", "%24").split("*")

    def matches(self, path: str) -> bool:
        # The literal pieces between "*"s are found left to right, each at its
        # earliest place: for patterns whose only wildcard is "*" this finds a
        # match if there is one, in linear time (no regex backtracking).
        first, *middle = self.pieces
        if not path.startswith(first):
            return False
        position = len(first)
        if not middle:
            return not self.anchored or position == len(path)
        *middle, last = middle
        for piece in middle:
            found = path.find(piece, position)
            if found < 0:
                return False
            position = found + len(piece)
        if self.anchored:
            return len(path) - len(last) >= position and path.endswith(last)
        return path.find(last, position) >= 0


class RobotsRules:
    """The rules of one robots.txt for the ``*`` user agent."""

    def __init__(self, allow: list[str], disallow: list[str]) -> None:
        """``allow`` and ``disallow`` are the patterns as written in robots.txt."""
        self.allow = allow
        self.disallow = disallow
        patterns = [_Pattern(normalise_percent_encoding(text), allow=True) for text in allow if text]
        patterns += [_Pattern(normalise_percent_encoding(text), allow=False) for text in disallow if text]
        for pattern in list(patterns):
            if pattern.allow:
                directory = _index_file_directory(pattern.text)
                if directory is not None:
                    patterns.append(_Pattern(directory + "$", allow=True))
        # Longest first, Allow before Disallow at equal length: the first match
        # is then the one RFC 9309 section 2.2.2 says to use.
        patterns.sort(key=lambda pattern: (-pattern.length, not pattern.allow))
        self._patterns = patterns

    @classmethod
    def from_text(cls, text: str) -> "RobotsRules":
        """The ``*`` group's rules of robots.txt ``text``."""
        allow: list[str] = []
        disallow: list[str] = []
        in_star_group = False
        agents_open = False  # still reading the User-agent lines of a group
        for line in LINE_BREAK.split(text.removeprefix("\ufeff")):
            field_and_value = _field_and_value(line)
            if field_and_value is None:
                continue
            field, value = field_and_value
            if field in _USER_AGENT_FIELDS:
                if not agents_open:
                    in_star_group = False
                    agents_open = True
                # "*" may be followed by more text, as Google reads it.
                if value.split(maxsplit=1)[:1] == ["*"]:
                    in_star_group = True
            elif field in _ALLOW_FIELDS or field in _DISALLOW_FIELDS:
                agents_open = False
                if in_star_group and value:
                    (allow if field in _ALLOW_FIELDS else disallow).append(value)
        return cls(allow, disallow)

    def allows(self, path: str) -> bool:
        """Whether a crawler obeying ``User-agent: *`` may fetch ``path`` (the URL's
        percent-encoded path and query, starting with ``/``)."""
        path = _comparable_path(path)
        if path == _ROBOTS_TXT:
            return True
        for pattern in self._patterns:
            if pattern.matches(path):
                return pattern.allow
        return True


def _field_and_value(line: str) -> tuple[str, str] | None:
    line = line.split("#", 1)[0].strip()
    if not line:
        return None
    field, colon, value = line.partition(":")
    if not colon:
        # Google reads "Disallow /x" too; the field is then the first word
        # (or the first two, for "user agent").
        words = line.split()
        if len(words) >= 3 and " ".join(words[:2]).lower() in _USER_AGENT_FIELDS:
            return "user-agent", " ".join(words[2:])
        if len(words) < 2:
            return None
        return words[0].lower(), " ".join(words[1:])
    return " ".join(field.split()).lower(), value.strip()


def _comparable_path(path: str) -> str:
    path = path.split("#", 1)[0] or "/"
    # In a pattern "*" and "$" are wildcard and anchor, so a pattern can only
    # name those characters literally as %2A and %24; spell the path that way.
    return normalise_percent_encoding(path).replace("*", "%2A").replace("$", "%24")


# Google's parser reads "Allow: /dir/index.html" or "Allow: /dir/index.htm" as
# also allowing "/dir/" exactly. This is how Google reads a robots.txt, followed
# as it is; which file sitemapkit lists at a folder's URL is urls.INDEX_FILE.
GOOGLE_INDEX_FILES = ("index.html", "index.htm")


def _index_file_directory(pattern: str) -> str | None:
    if pattern.endswith("$"):
        return None
    directory, slash, name = pattern.rpartition("/")
    if slash and name in GOOGLE_INDEX_FILES:
        return directory + "/"
    return None
