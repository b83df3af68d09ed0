"""robots.txt rules for ``User-agent: *`` with RFC 9309 matching (``*`` and ``$``).

(stub: being written; the interface below is fixed)
"""

from __future__ import annotations


class RobotsRules:
    """The rules of one robots.txt for the ``*`` user agent."""

    def __init__(self, allow: list[str], disallow: list[str]) -> None:
        self.allow = allow
        self.disallow = disallow

    @classmethod
    def from_text(cls, text: str) -> "RobotsRules":
        return cls([], [])

    def allows(self, path: str) -> bool:
        """Whether a crawler obeying ``User-agent: *`` may fetch ``path`` (the URL's
        percent-encoded path and query, starting with ``/``)."""
        return True
