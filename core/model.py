"""The data sitemapkit works on: the protocol's limits, one options object, pages.

Every adapter translates its tool's settings into :class:`Options` and its pages
into :class:`Page`; nothing else crosses from an adapter into the core.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal, Union
from urllib.parse import urlsplit

from .errors import ConfigError
from .languages import language_tag

# sitemaps.org/protocol.html, "Sitemap file location" and "Using Sitemap index files":
# "Each Sitemap file that you provide must have no more than 50,000 URLs".
MAX_URLS_PER_SITEMAP = 50_000

# sitemaps.org/protocol.html, as the project was specified from it: "and must be no
# larger than 10MB (10,485,760 bytes)". Every crawler accepts this figure.
DEFAULT_MAX_BYTES = 10_485_760

# sitemaps.org/protocol.html since November 2016: "must be no larger than 50MB
# (52,428,800 bytes)". Nothing above this is accepted.
MAX_BYTES_CEILING = 52_428_800

# sitemaps.org/protocol.html, "Using Sitemap index files": "Sitemap index files may
# not list more than 50,000 Sitemaps and must be no larger than 50MB".
MAX_SITEMAPS_PER_INDEX = 50_000

# sitemaps.org/protocol.html, <loc>: "This value must be less than 2,048 characters."
MAX_LOC_LENGTH = 2_047

# sitemaps.org/protocol.html, <changefreq>: "Valid values are: always hourly daily
# weekly monthly yearly never".
CHANGEFREQ_VALUES = ("always", "hourly", "daily", "weekly", "monthly", "yearly", "never")

# Error pages static sites write, in any folder (Hugo writes fr/404.html for each
# language, Material a 404.html from its theme): never content to index.
ERROR_PAGES = frozenset({"404.html"})

LASTMOD_SOURCES = ("auto", "git", "mtime", "none")
OUTPUT_FORMATS = ("xml", "txt")

Lastmod = Union[dt.date, dt.datetime, str, None]

_FILENAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*\Z")


def _check_filename(option: str, name: str, suffixes: tuple[str, ...]) -> None:
    if not isinstance(name, str) or "/" in name or "\\" in name or ".." in name:
        raise ConfigError(option, f"{name!r} must be a plain file name (no folders, no '..')")
    if not _FILENAME.match(name) or not name.endswith(suffixes):
        raise ConfigError(option, f"{name!r} must be a file name ending in {' or '.join(suffixes)}")


@dataclasses.dataclass(frozen=True, kw_only=True)
class Options:
    """Everything a user can set. The same names in every adapter.

    MkDocs: ``plugins: [sitemapkit: {NAME: value}]``; Pelican: ``SITEMAPKIT = {"NAME":
    value}``; Sphinx: ``sitemapkit_NAME = value``. The base URL comes from the host
    tool's own setting (``site_url``, ``SITEURL``, ``html_baseurl``).
    """

    #: Absolute http(s) URL of the folder the sitemap is published in.
    base_url: str
    #: Name of the entry point file at the output root.
    filename: str = "sitemap.xml"
    #: ``xml`` (the default) or ``txt``, the protocol's plain-text form.
    format: Literal["xml", "txt"] = "xml"
    #: Write shards as ``.xml.gz`` (the entry point itself stays uncompressed).
    gzip: bool = False
    #: Also write a gzip copy of the entry point as ``<filename>.gz`` (for a name
    #: already submitted to search consoles, such as MkDocs' ``sitemap.xml.gz``).
    gzip_copy: bool = False
    #: Most URLs in one sitemap file.
    max_urls: int = MAX_URLS_PER_SITEMAP
    #: Most uncompressed bytes in one sitemap or index file.
    max_bytes: int = DEFAULT_MAX_BYTES
    #: Most sitemaps one index file lists.
    max_sitemaps: int = MAX_SITEMAPS_PER_INDEX
    #: Written on every URL when set; crawlers ignore it, so it is off by default.
    changefreq: str | None = None
    #: Written on every URL when set (0.0 to 1.0); off by default for the same reason.
    priority: float | None = None
    #: Where page dates come from: ``auto`` (git in a work tree, else mtime), ``git``
    #: or ``mtime``; a page's own front-matter date wins over each. ``none`` writes
    #: no lastmod at all, front matter included.
    lastmod: Literal["auto", "git", "mtime", "none"] = "auto"
    #: Say why dates are left out (a shallow clone, file times of a checkout) as a
    #: warning, which fails strict builds (``mkdocs build --strict``, ``sphinx-build
    #: -W``). False says it as information instead: the build stays green and the
    #: message is still shown, as git-revision-date-localized's ``strict: false``.
    lastmod_warnings: bool = True
    #: Glob patterns (``fnmatch``) matched against each URL's path below ``base_url``.
    exclude: tuple[str, ...] = ()
    #: Write the ``Sitemap:`` line into robots.txt. ``None`` (the default): only when
    #: ``base_url`` is a host root, the one place crawlers read robots.txt from.
    robots_txt: bool | None = None
    #: Add the ``xsi:schemaLocation`` header the protocol shows for validation.
    schema_location: bool = False
    #: Write an XSL stylesheet (and a CSS fallback) beside the sitemaps so browsers
    #: show a sortable table.
    stylesheet: bool = False
    #: A folder holding your own ``sitemap.xsl.j2`` / ``sitemap.css.j2`` (Jinja2;
    #: they may ``{% extends "sitemapkit/sitemap.xsl.j2" %}``). Adapters resolve a
    #: relative folder against the tool's configuration file.
    stylesheet_template: str | None = None
    #: Leave out pages whose robots meta says ``noindex``.
    check_noindex: bool = True
    #: Leave out pages whose ``<link rel="canonical">`` names another URL.
    check_canonical: bool = True
    #: Leave out meta-refresh redirect stubs.
    check_redirects: bool = True
    #: Leave out URLs the site's own robots.txt disallows for ``User-agent: *``.
    check_robots_rules: bool = True
    #: hreflang of the version also announced as ``x-default`` in alternates groups.
    x_default: str | None = None
    #: Also write the build report (every excluded URL and why) to this file name
    #: in the output folder.
    report_file: str | None = None
    #: List every excluded URL with its reason in the log, not only the counts.
    verbose: bool = False

    def __post_init__(self) -> None:
        base = self.base_url
        if not isinstance(base, str) or not base.strip():
            raise ConfigError("base_url", "is not set; it must be the site's absolute http(s) URL")
        try:
            parts = urlsplit(base.strip())
            parts.port  # parsed on first use: "https://x.org:99999/" fails here
        except ValueError:  # "https://[::1/", a broken IPv6 literal or port
            raise ConfigError("base_url", f"{base!r} has an invalid host or port") from None
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ConfigError("base_url", f"{base!r} is not an absolute http(s) URL with a host")
        if parts.query or parts.fragment:
            raise ConfigError("base_url", f"{base!r} must not have a query or fragment")
        if any(ord(c) < 0x21 or ord(c) == 0x7F for c in base.strip()):
            raise ConfigError("base_url", f"{base!r} contains spaces or control characters")
        if self.format not in OUTPUT_FORMATS:
            raise ConfigError("format", f"{self.format!r} is not one of {', '.join(OUTPUT_FORMATS)}")
        default_name = "sitemap.xml" if self.format == "xml" else "sitemap.txt"
        if self.format == "txt" and self.filename == "sitemap.xml":
            object.__setattr__(self, "filename", default_name)
        _check_filename("filename", self.filename, (".xml",) if self.format == "xml" else (".txt",))
        for name in ("max_urls", "max_sitemaps"):
            value = getattr(self, name)
            if not _is_int(value) or not 1 <= value <= MAX_URLS_PER_SITEMAP:
                raise ConfigError(name, f"{value!r} must be a whole number from 1 to {MAX_URLS_PER_SITEMAP:,}")
        if not _is_int(self.max_bytes) or not 1_024 <= self.max_bytes <= MAX_BYTES_CEILING:
            raise ConfigError(
                "max_bytes",
                f"{self.max_bytes!r} must be a whole number from 1,024 to {MAX_BYTES_CEILING:,} "
                "(50 MiB, the protocol's ceiling)",
            )
        if self.changefreq is not None and self.changefreq not in CHANGEFREQ_VALUES:
            raise ConfigError("changefreq", f"{self.changefreq!r} is not one of {', '.join(CHANGEFREQ_VALUES)}")
        if self.priority is not None and (
            isinstance(self.priority, bool)
            or not isinstance(self.priority, (int, float))
            or not 0.0 <= self.priority <= 1.0
        ):
            raise ConfigError("priority", f"{self.priority!r} must be a number from 0.0 to 1.0")
        if self.lastmod not in LASTMOD_SOURCES:
            raise ConfigError("lastmod", f"{self.lastmod!r} is not one of {', '.join(LASTMOD_SOURCES)}")
        if isinstance(self.exclude, str) or not all(isinstance(p, str) for p in self.exclude):
            raise ConfigError("exclude", f"{self.exclude!r} must be a list of glob patterns")
        object.__setattr__(self, "exclude", tuple(self.exclude))
        for name in (
            "gzip", "gzip_copy", "schema_location", "stylesheet", "check_noindex", "check_canonical",
            "check_redirects", "check_robots_rules", "verbose", "lastmod_warnings",
        ):
            if not isinstance(getattr(self, name), bool):
                raise ConfigError(name, f"{getattr(self, name)!r} must be true or false")
        if self.robots_txt is not None and not isinstance(self.robots_txt, bool):
            raise ConfigError("robots_txt", f"{self.robots_txt!r} must be true, false or unset")
        if self.x_default is not None and language_tag(self.x_default) is None:
            raise ConfigError("x_default", f"{self.x_default!r} is not a language tag (such as en, pt-BR or en-x-test)")
        if self.stylesheet_template is not None and (
            not isinstance(self.stylesheet_template, str) or not Path(self.stylesheet_template).is_dir()
        ):
            raise ConfigError("stylesheet_template", f"{self.stylesheet_template!r} is not a folder")
        if self.report_file is not None:
            _check_filename("report_file", self.report_file, (".txt", ".json"))

    def xml_companion(self) -> Options | None:
        """With ``format: txt``, the options of the ``sitemap.xml`` urlset written
        beside it for readers in the browser (Material's instant navigation and
        mike's version selector fetch sitemap.xml and read its <loc>s); None for
        XML, which is sitemap.xml already. It touches neither robots.txt nor the
        report file: the text sitemap is the one announced."""
        if self.format != "txt":
            return None
        return dataclasses.replace(
            self, format="xml", filename="sitemap.xml", robots_txt=False, report_file=None, gzip_copy=False,
            verbose=False,
        )

    @property
    def base_path(self) -> str:
        """The path of ``base_url``, always ending in ``/``."""
        path = urlsplit(self.base_url.strip()).path or "/"
        return path if path.endswith("/") else path + "/"

    @property
    def at_host_root(self) -> bool:
        """Whether ``base_url`` is the host root, where crawlers read robots.txt."""
        return self.base_path == "/"

    @classmethod
    def field_names(cls) -> tuple[str, ...]:
        return tuple(f.name for f in dataclasses.fields(cls))

    @classmethod
    def from_mapping(cls, settings: Mapping[str, Any], *, base_url: str) -> Options:
        """Options from a user's mapping of option names, as adapters receive them.

        Unknown names raise :class:`ConfigError` naming the key; ``base_url`` comes
        from the host tool's own setting, never from the mapping.
        """
        known = set(cls.field_names()) - {"base_url"}
        for key in settings:
            if key not in known:
                raise ConfigError(str(key), f"is not a sitemapkit option (known: {', '.join(sorted(known))})")
        values = dict(settings)
        if "exclude" in values and isinstance(values["exclude"], list):
            values["exclude"] = tuple(values["exclude"])
        return cls(base_url=base_url, **values)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@dataclasses.dataclass(frozen=True, slots=True)
class Page:
    """One page of the site, as an adapter hands it to the core.

    A page is given by its URL or by its path, and the two are not the same thing:

    * ``Page(url)``: ``loc`` is a URL as a tool hands it over (MkDocs' ``page.url``,
      Pelican's ``*_URL`` results), absolute or relative to ``base_url``
      (``guide/``, ``a%20b/ü.html``). It keeps its meaning: a valid ``%XX`` stays,
      ``#`` opens a fragment; the core encodes only what a URL cannot hold.
    * ``Page.from_path(path)``: a file or document name below the output folder
      (``c#sharp.html``, ``lit%20eral/``). Every character a path segment may not
      hold is percent-encoded, ``%`` included (:func:`sitemapkit.urls.encode_path`).

    The other fields are optional.
    """

    loc: str
    #: A front-matter or metadata date; it always wins over git and file times.
    lastmod: Lastmod = None
    #: The source file whose git or file time is the page's lastmod (a path or a
    #: string: adapters that hold strings need not build Path objects).
    source: Path | str | None = None
    #: Other files the page is built from (Sphinx ``include``, ``literalinclude``,
    #: autodoc's modules): its date is the newest of ``source``'s and theirs, all
    #: dated in the same git pass. Only git dates them: see ``resolve_lastmods``.
    includes: tuple[Path | str, ...] = ()
    #: The HTML file the build wrote, read (head only) for noindex, canonical and
    #: redirect checks.
    output: Path | str | None = None
    #: ``loc`` values of the pages this page lists (tag, category, index pages): its
    #: lastmod is the newest of theirs.
    members: tuple[str, ...] = ()
    #: False when the page's own metadata keeps it out (``sitemap: false``): it is
    #: reported, and its date still counts for the listing pages that show it.
    listed: bool = True
    #: Language of this version, for hreflang alternates.
    hreflang: str | None = None
    #: Pages with the same ``translation_key`` are versions of one another.
    translation_key: str | None = None
    #: Resolved alternates, ``(hreflang, loc)`` pairs; the core fills these from
    #: ``hreflang`` and ``translation_key``.
    alternates: tuple[tuple[str, str], ...] = ()
    changefreq: str | None = None
    priority: float | None = None
    #: Why the adapter leaves out a page its tool writes (``error page``, ``search
    #: page``): reported under this reason, never listed.
    exclude_reason: str | None = None

    @classmethod
    def from_path(cls, path: str, **fields: Any) -> Page:
        """The page published at ``path``, a ``/``-separated file or document name
        relative to ``base_url`` (a folder ends in ``/``): a name, not a URL, so
        ``#``, ``?`` and ``%`` in it are characters of the name."""
        from .urls import encode_path

        return cls(encode_path(path), **fields)


@dataclasses.dataclass(frozen=True, slots=True)
class Notice:
    """A warning for the user. ``code`` lets host tools filter it (Sphinx
    ``suppress_warnings = ["sitemapkit.<code>"]``)."""

    code: str
    message: str


@dataclasses.dataclass(frozen=True, slots=True)
class Excluded:
    """A page left out of the sitemap, and why (``exclude``, ``noindex``,
    ``canonical``, ``redirect``, ``robots.txt``, ``scope``, ``too long``...)."""

    loc: str
    reason: str
    #: More about the reason: for ``canonical``, the URL the page names.
    detail: str | None = None


@dataclasses.dataclass
class Report:
    """What one build wrote and left out; every adapter prints :meth:`summary`."""

    urls: int = 0
    files: list[str] = dataclasses.field(default_factory=list)
    excluded: list[Excluded] = dataclasses.field(default_factory=list)
    notices: list[Notice] = dataclasses.field(default_factory=list)
    #: Things to tell the user that are not warnings (they must not fail strict
    #: builds), such as the robots.txt line to add at the host root.
    advice: list[str] = dataclasses.field(default_factory=list)
    #: Pages the build generated outside git (no source file in a repository, and
    #: no listed page to date them by): left without lastmod, counted, no warning.
    undated_generated: list[str] = dataclasses.field(default_factory=list)

    def excluded_counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for item in self.excluded:
            counts[item.reason] = counts.get(item.reason, 0) + 1
        return dict(sorted(counts.items()))

    def summary(self) -> str:
        """One line: URLs written, files, excluded counts by reason."""
        line = f"sitemapkit: {self.urls:,} URLs in {len(self.files)} file{'s' if len(self.files) != 1 else ''}"
        if self.files:
            line += f" ({', '.join(self.files[:3])}{', ...' if len(self.files) > 3 else ''})"
        counts = self.excluded_counts()
        if counts:
            line += "; excluded " + ", ".join(f"{n} {reason}" for reason, n in counts.items())
        if self.undated_generated:
            count = len(self.undated_generated)
            line += f"; {count} generated page{'s' if count != 1 else ''} without lastmod (no source in git)"
        if self.advice:
            line += "; " + "; ".join(self.advice)
        return line

    def details(self) -> str:
        """Every excluded URL with its reason, one a line (the verbose report)."""
        lines = [self.summary()]
        lines += [
            f"excluded ({item.reason}): {item.loc}" + (f" -> {item.detail}" if item.detail else "")
            for item in sorted(self.excluded, key=lambda e: (e.reason, e.loc))
        ]
        lines += [f"without lastmod (generated, no source in git): {loc}" for loc in self.undated_generated]
        lines += [f"warning ({notice.code}): {notice.message}" for notice in self.notices]
        return "\n".join(lines) + "\n"
