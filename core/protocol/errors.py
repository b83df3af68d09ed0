"""The one exception family of sitemapkit; adapters translate it at their edge."""

from __future__ import annotations


class SitemapkitError(ValueError):
    """Base of every error sitemapkit raises on bad input or configuration."""


class ConfigError(SitemapkitError):
    """An option has a bad value.

    ``option`` is the core's option name (``base_url``, ``max_bytes``...). Adapters
    replace it with the name the user wrote (``site_url``, ``SITEURL``,
    ``html_baseurl``, ``SITEMAPKIT['max_bytes']``) through :meth:`for_setting`.
    """

    def __init__(self, option: str, problem: str) -> None:
        self.option = option
        self.problem = problem
        super().__init__(f"{option}: {problem}")

    def for_setting(self, setting: str) -> str:
        """The message with the option named as the user wrote it."""
        return f"{setting}: {self.problem}"


class UrlError(SitemapkitError):
    """A page URL that can never be written (control characters, unparsable)."""


class LastmodError(UrlError):
    """A page's lastmod that is no date the sitemap can hold (not W3C Datetime,
    a day that does not exist, a value of another type).

    A kind of :class:`UrlError` only because such dates were raised as one
    before: code that catches ``UrlError`` (or :class:`SitemapkitError`) for an
    entry that cannot be written still catches it."""


class OutputError(SitemapkitError):
    """The output folder or a configured file name cannot be used."""
