"""The data sitemapkit works on: the protocol's limits, one options object, pages.

Every adapter translates its tool's settings into :class:`Options` and its pages
into :class:`Page`; nothing else crosses from an adapter into the core.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
import types
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints
from urllib.parse import urlsplit

from .errors import ConfigError
from .urls import INDEX_FILE
from .indexnow import check_key
from .languages import language_tag
from .limits import (
    DEFAULT_MAX_BYTES,
    MAX_BYTES_CEILING,
    MAX_SITEMAPS_PER_INDEX,
    MAX_URLS_PER_SITEMAP,
)
from .patterns import deferred
from .urls import check_base_url, encode_path

# sitemaps.org/protocol.html, <changefreq>: "Valid values are: always hourly daily
# weekly monthly yearly never".
Changefreq = Literal["always", "hourly", "daily", "weekly", "monthly", "yearly", "never"]
CHANGEFREQ_VALUES: tuple[str, ...] = get_args(Changefreq)

# Error pages static sites write, in any folder (Hugo writes fr/404.html for each
# language, Material a 404.html from its theme): never content to index.
ERROR_PAGES = frozenset({"404.html"})


def is_error_page(path: str) -> bool:
    """Whether the file written at ``path`` (``/``-separated, relative to the output
    folder, or only its name) is an error page: its name is one of ERROR_PAGES, in
    any folder, or it is the index.html of a folder so named (``404/index.html``,
    Sphinx's dirhtml form of sphinx-notfound-page's 404.html). Every tool leaves
    such pages out by this one rule."""
    folder, _, name = path.rpartition("/")
    if name == INDEX_FILE and folder:
        name = folder.rpartition("/")[2] + ".html"
    return name in ERROR_PAGES


LastmodSource = Literal["auto", "git", "mtime", "none"]
LASTMOD_SOURCES: tuple[str, ...] = get_args(LastmodSource)
OutputFormat = Literal["xml", "txt"]
OUTPUT_FORMATS: tuple[str, ...] = get_args(OutputFormat)

Lastmod = Union[dt.date, dt.datetime, str, None]

_FILENAME = deferred(r"[A-Za-z0-9][A-Za-z0-9._-]*\Z")


def _check_filename(option: str, name: str, suffixes: tuple[str, ...]) -> None:
    if not isinstance(name, str) or "/" in name or "\\" in name or ".." in name:
        raise ConfigError(option, f"{name!r} must be a plain file name (no folders, no '..')")
    if not _FILENAME.match(name) or not name.endswith(suffixes):
        raise ConfigError(option, f"{name!r} must be a file name ending in {' or '.join(suffixes)}")


def _option(
    default: Any,
    help: str,
    *,
    bounds: tuple[float, float] | None = None,
    values: str = "",
    built_pages_only: bool = False,
) -> Any:
    """One :class:`Options` field with what every tool shows about it (see
    :class:`OptionSpec`): its help text, the bounds of a number or, in words,
    what a free-form value must be, and whether it concerns only pages found in
    a built site. The type and the choices are the annotation's."""
    metadata = {"help": help, "bounds": bounds, "values": values, "built_pages_only": built_pages_only}
    return dataclasses.field(default=default, metadata=metadata)


@dataclasses.dataclass(frozen=True, kw_only=True)
class Options:
    """Everything a user can set. The same names in every adapter.

    MkDocs: ``plugins: [sitemapkit: {NAME: value}]``; Pelican: ``SITEMAPKIT = {"NAME":
    value}``; Sphinx: ``sitemapkit_NAME = value``; the command line: ``--NAME-IN-KEBAB``.
    The base URL comes from the host tool's own setting (``site_url``, ``SITEURL``,
    ``html_baseurl``, ``--base-url``).

    This class is the one declaration of the options: each field's type, default and
    help text (:func:`_option`) are what the MkDocs config schema, the Sphinx config
    values, the Pelican key check, the command-line flags and their ``--help`` are
    made from (:meth:`specs`), so a new field is a new option everywhere at once
    (in ``sitemapkit generate`` too, unless it concerns only built pages:
    ``built_pages_only``).
    """

    #: Absolute http(s) URL of the folder the sitemap is published in.
    base_url: str
    filename: str = _option(
        "sitemap.xml",
        "the entry point file at the output root",
        values="a plain file name ending in .xml (.txt when format is txt)",
    )
    format: OutputFormat = _option("xml", "xml, or txt for the protocol's plain-text form")
    gzip: bool = _option(False, "write shards as .xml.gz (the entry point itself stays uncompressed)")
    gzip_copy: bool = _option(
        False,
        "also write a gzip copy of the entry point as <filename>.gz, for a name already "
        "submitted to search consoles (such as MkDocs' sitemap.xml.gz)",
    )
    max_urls: int = _option(
        MAX_URLS_PER_SITEMAP,
        "most URLs in one sitemap file (the protocol's limit: lower it, never raise it)",
        bounds=(1, MAX_URLS_PER_SITEMAP),
    )
    max_bytes: int = _option(
        DEFAULT_MAX_BYTES,
        "most uncompressed bytes in one sitemap or index file: 10 MiB, accepted by every "
        "crawler; at most 50 MiB, the protocol's ceiling",
        bounds=(1_024, MAX_BYTES_CEILING),
    )
    max_sitemaps: int = _option(
        MAX_SITEMAPS_PER_INDEX, "most sitemaps one index file lists", bounds=(1, MAX_SITEMAPS_PER_INDEX)
    )
    changefreq: Changefreq | None = _option(None, "written on every URL when set (crawlers ignore it)")
    priority: float | None = _option(None, "written on every URL when set (crawlers ignore it)", bounds=(0.0, 1.0))
    lastmod: LastmodSource = _option(
        "auto",
        "where page dates come from: auto (git in a work tree, else file times), git, mtime, "
        "or none (no dates at all); a page's own metadata date wins over git and mtime",
        built_pages_only=True,
    )
    lastmod_warnings: bool = _option(
        True,
        "say why dates are left out (a shallow clone, the file times of a checkout) as a warning, "
        "which fails strict builds; false says it as information, so the build stays green",
        built_pages_only=True,
    )
    exclude: tuple[str, ...] = _option(
        (),
        "glob patterns (fnmatch) matched against each URL's path below the base URL",
        values="a list of glob patterns",
        built_pages_only=True,
    )
    robots_txt: bool | None = _option(
        None,
        "write the Sitemap: line into robots.txt; unset: only when the base URL is a host "
        "root, the one place crawlers read robots.txt from",
    )
    schema_location: bool = _option(False, "add the xsi:schemaLocation header the protocol shows, for validators")
    stylesheet: bool = _option(
        False, "write an XSL stylesheet (and a CSS fallback) beside the sitemaps, so browsers show a sortable table"
    )
    stylesheet_template: str | None = _option(
        None,
        "a folder with your own sitemap.xsl.j2 / sitemap.css.j2 (Jinja2; they may extend "
        "sitemapkit/sitemap.xsl.j2); a relative one is read from beside the tool's configuration "
        "file (mkdocs.yml, conf.py, pelicanconf.py; on the command line, from the current folder)",
        values="a folder",
    )
    check_noindex: bool = _option(True, "leave out pages whose robots meta says noindex", built_pages_only=True)
    check_canonical: bool = _option(
        True, "leave out pages whose canonical link names another URL", built_pages_only=True
    )
    check_redirects: bool = _option(True, "leave out meta-refresh redirect stubs", built_pages_only=True)
    check_robots_rules: bool = _option(
        True, "leave out URLs the site's own robots.txt disallows for User-agent: *", built_pages_only=True
    )
    x_default: str | None = _option(
        None,
        "the hreflang of the version also announced as x-default in alternates groups",
        values="a language tag (such as en, pt-BR or en-x-test)",
        built_pages_only=True,
    )
    report_file: str | None = _option(
        None,
        "also write the build report (every excluded URL and why) to this file in the output folder",
        values="a plain file name ending in .txt or .json",
    )
    verbose: bool = _option(False, "list every excluded URL with its reason in the log, not only the counts")
    images: bool = _option(
        True,
        "list the images each listed page shows (Google's image extension: <image:image>), "
        "read from the page body in the same read as its head (the MkDocs plugin, and "
        "Pelican's for articles and pages, read them from each page's own content instead); "
        "off, only each page's head is read; the text format has no images",
    )
    image_hosts: tuple[str, ...] = _option(
        (),
        "glob patterns (fnmatch) of the hosts whose images are listed; empty: the site's own "
        "host and any host its pages show images from",
        values="a list of glob patterns",
    )
    indexnow_key: str | None = _option(
        None,
        "write KEY.txt, holding this IndexNow key, at the output root with the sitemaps, so the deploy "
        "publishes the key file sitemapkit indexnow submits with (the build itself contacts nothing)",
        values="8 to 128 characters of a-z, A-Z, 0-9 and -",
    )

    def __post_init__(self) -> None:
        check_base_url(self.base_url)
        # Types, choices and bounds, as declared on each field.
        for spec in self.specs():
            spec.check(getattr(self, spec.name))
        object.__setattr__(self, "exclude", tuple(self.exclude))
        object.__setattr__(self, "image_hosts", tuple(self.image_hosts))
        default_name = "sitemap.xml" if self.format == "xml" else "sitemap.txt"
        if self.format == "txt" and self.filename == "sitemap.xml":
            object.__setattr__(self, "filename", default_name)
        _check_filename("filename", self.filename, (".xml",) if self.format == "xml" else (".txt",))
        if self.x_default is not None and language_tag(self.x_default) is None:
            raise ConfigError("x_default", f"{self.x_default!r} is not a language tag (such as en, pt-BR or en-x-test)")
        if self.stylesheet_template is not None and not Path(self.stylesheet_template).is_dir():
            raise ConfigError("stylesheet_template", f"{self.stylesheet_template!r} is not a folder")
        if self.report_file is not None:
            _check_filename("report_file", self.report_file, (".txt", ".json"))
        if self.indexnow_key is not None:
            check_key(self.indexnow_key)

    def xml_companion(self) -> Options | None:
        """With ``format: txt``, the options of the ``sitemap.xml`` urlset written
        beside it for readers in the browser (Material's instant navigation and
        mike's version selector fetch sitemap.xml and read its <loc>s); None for
        XML, which is sitemap.xml already. It touches neither robots.txt nor the
        report file: the text sitemap is the one announced."""
        if self.format != "txt":
            return None
        return dataclasses.replace(
            self,
            format="xml",
            filename="sitemap.xml",
            robots_txt=False,
            report_file=None,
            gzip_copy=False,
            indexnow_key=None,
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
    def specs(cls) -> tuple[OptionSpec, ...]:
        """Every option a user sets by name, in declaration order (all fields but
        ``base_url``, which comes from the host tool's own setting)."""
        return _specs()

    @classmethod
    def from_mapping(cls, settings: Mapping[str, Any], *, base_url: str) -> Options:
        """Options from a user's mapping of option names, as adapters receive them.

        Unknown names raise :class:`ConfigError` naming the key (see
        :func:`unknown_option`); ``base_url`` comes from the host tool's own setting,
        never from the mapping.
        """
        known = {spec.name for spec in cls.specs()}
        for key in settings:
            if key not in known:
                raise unknown_option(str(key))
        values = dict(settings)
        for name in ("exclude", "image_hosts"):
            if name in values and isinstance(values[name], list):
                values[name] = tuple(values[name])
        return cls(base_url=base_url, **values)


@dataclasses.dataclass(frozen=True)
class OptionSpec:
    """One option as every tool declares and documents it, read off its
    :class:`Options` field (see :meth:`Options.specs`)."""

    name: str
    #: ``bool``, ``int``, ``float``, ``str``, or ``tuple`` (a list of strings).
    kind: type
    default: Any
    #: What the option does, one sentence in lower case.
    help: str
    #: None is allowed too: unset, the core decides (``help`` says how).
    optional: bool = False
    #: A choice's allowed values (from its ``Literal`` annotation).
    choices: tuple[str, ...] = ()
    #: The smallest and largest allowed number.
    bounds: tuple[float, float] | None = None
    #: What a free-form value must be, in words (a file name, a folder).
    values: str = ""
    #: The option concerns only pages found in a built site (their files, heads,
    #: sources and dates): ``sitemapkit generate``, which reads a URL list, does
    #: not take it; every adapter and ``sitemapkit build`` do.
    built_pages_only: bool = False

    def allowed(self) -> str:
        """The allowed values in words: ``one of xml, txt``, ``a whole number from 1 to 50,000``."""
        if self.kind is bool:
            return "true, false or unset" if self.optional else "true or false"
        if self.choices:
            return "one of " + ", ".join(self.choices)
        if self.bounds is not None:
            low, high = self.bounds
            if self.kind is int:
                return f"a whole number from {low:,} to {high:,}"
            return f"a number from {low} to {high}"
        return self.values or f"a {self.kind.__name__}"

    def default_text(self) -> str:
        """The default as a user writes it: ``false``, ``50000``, ``[]``, ``unset``."""
        if self.default is None:
            return "unset"
        if isinstance(self.default, bool):
            return str(self.default).lower()
        if isinstance(self.default, tuple):
            return "[]" if not self.default else str(list(self.default))
        return str(self.default)

    def check(self, value: Any) -> None:
        """Raise :class:`ConfigError` unless ``value`` is of this option's type and,
        for a choice or a number, within its allowed values."""
        if value is None and self.optional:
            return
        if self.choices:
            if value not in self.choices:
                raise ConfigError(self.name, f"{value!r} is not one of {', '.join(self.choices)}")
            return
        if self.kind is bool:
            ok = isinstance(value, bool)
        elif self.kind is int:
            ok = _is_int(value)
        elif self.kind is float:
            ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        elif self.kind is tuple:
            ok = isinstance(value, (list, tuple)) and all(isinstance(item, str) for item in value)
        else:
            ok = isinstance(value, self.kind)
        if ok and self.bounds is not None:
            ok = self.bounds[0] <= value <= self.bounds[1]
        if not ok:
            # "5 is not a folder", "'a' is not a list of glob patterns"; "must be" a number or true/false.
            verb = "is not" if self.values else "must be"
            raise ConfigError(self.name, f"{value!r} {verb} {self.allowed()}")


@functools.cache
def _specs() -> tuple[OptionSpec, ...]:
    hints = get_type_hints(Options)
    specs = []
    for field in dataclasses.fields(Options):
        if field.name == "base_url":
            continue
        kind, optional = hints[field.name], False
        if get_origin(kind) in (Union, types.UnionType) and type(None) in get_args(kind):
            optional = True
            (kind,) = [arg for arg in get_args(kind) if arg is not type(None)]
        choices: tuple[str, ...] = ()
        if get_origin(kind) is Literal:
            kind, choices = str, get_args(kind)
        kind = get_origin(kind) or kind  # tuple[str, ...] -> tuple
        specs.append(
            OptionSpec(
                field.name,
                kind,
                field.default,
                field.metadata["help"],
                optional=optional,
                choices=choices,
                bounds=field.metadata["bounds"],
                values=field.metadata["values"],
                built_pages_only=field.metadata["built_pages_only"],
            )
        )
    return tuple(specs)


def closest_option(name: str, known: Iterable[str]) -> str | None:
    """The known name a mistyped one most likely meant (``maxbytes``, ``max-bytes``,
    ``MAX_BYTES`` -> ``max_bytes``), or None when none is close."""
    normal = name.strip().lower().replace("-", "_")
    known = list(known)
    if normal in known:
        return normal
    # Imported here: only a mistyped setting needs it, and every build imports this module.
    import difflib

    matches = difflib.get_close_matches(normal, known, n=1, cutoff=0.6)
    return matches[0] if matches else None


def unknown_option(
    name: str,
    *,
    spelled: Callable[[str], str] = repr,
    extra: Iterable[str] = (),
    base_url_from: str = "",
) -> ConfigError:
    """The error for a setting that names no option, the same in every tool.

    ``option`` is ``name`` as the user wrote it (adapters name the setting with
    :meth:`ConfigError.for_setting`); the problem suggests the closest option,
    ``spelled`` as that tool spells an option's setting (``'max_bytes'``,
    ``sitemapkit_max_bytes``, ``--max-bytes``), else lists them all. ``extra``: an
    adapter's own names; ``base_url_from``: the host setting the base URL comes from.
    """
    if base_url_from and name.strip().lower().replace("-", "_") == "base_url":
        return ConfigError(name, f"the base URL comes from {base_url_from}; set that instead")
    known = sorted([*(spec.name for spec in Options.specs()), *extra])
    guess = closest_option(name, known)
    if guess is not None:
        return ConfigError(name, f"is not a sitemapkit option; did you mean {spelled(guess)}?")
    return ConfigError(name, f"is not a sitemapkit option (known: {', '.join(map(spelled, known))})")


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
    #: The images the page shows, in document order, as found: absolute URLs or
    #: references relative to ``loc`` (the core resolves, encodes and de-duplicates
    #: them); the core reads them from ``output`` when the adapter gives none.
    images: tuple[str, ...] = ()
    #: Why the adapter leaves out a page its tool writes (``error page``, ``search
    #: page``): reported under this reason, never listed.
    exclude_reason: str | None = None
    #: The page's own content as its tool rendered it, before the theme put its
    #: chrome around it (MkDocs' ``page.content``, a Pelican article's or page's
    #: ``content``). When given, the images the
    #: page shows are read from it (with its head's og:image and twitter:image),
    #: and ``output`` only to the end of its head: a few kilobytes instead of the
    #: whole themed page, and no chrome to tell apart.
    content_html: str | None = None

    @classmethod
    def from_path(cls, path: str, **fields: Any) -> Page:
        """The page published at ``path``, a ``/``-separated file or document name
        relative to ``base_url`` (a folder ends in ``/``): a name, not a URL, so
        ``#``, ``?`` and ``%`` in it are characters of the name."""
        return cls(encode_path(path), **fields)


# Notices name a few affected pages or files so users can check; the full list
# would drown the log on a big site.
NOTICE_EXAMPLES = 3


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
    #: ``<image:image>`` entries written.
    images: int = 0
    #: Images listed, by host.
    image_hosts: dict[str, int] = dataclasses.field(default_factory=dict)
    #: Pages that show more images than one entry may list (the first were listed).
    images_cut: list[str] = dataclasses.field(default_factory=list)
    #: Images found for a text sitemap, which cannot hold them.
    images_unwritten: int = 0

    def excluded_counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for item in self.excluded:
            counts[item.reason] = counts.get(item.reason, 0) + 1
        return dict(sorted(counts.items()))

    def summary(self) -> str:
        """One line: URLs written, files, excluded counts by reason."""
        images = f", {self.images:,} image{'s' if self.images != 1 else ''}" if self.images else ""
        line = f"sitemapkit: {self.urls:,} URLs{images} in {len(self.files)} file{'s' if len(self.files) != 1 else ''}"
        if self.files:
            line += f" ({', '.join(self.files[:3])}{', ...' if len(self.files) > 3 else ''})"
        counts = self.excluded_counts()
        if counts:
            line += "; excluded " + ", ".join(f"{n} {reason}" for reason, n in counts.items())
        if self.undated_generated:
            count = len(self.undated_generated)
            line += f"; {count} generated page{'s' if count != 1 else ''} without lastmod (no source in git)"
        if self.images_cut:
            count = len(self.images_cut)
            line += (
                f"; {count} page{'s' if count != 1 else ''} with more images than one entry lists (the first listed)"
            )
        if self.images_unwritten:
            line += "; images found, not written: the text format has no images"
        if self.advice:
            line += "; " + "; ".join(self.advice)
        return line

    def log_lines(self, *, verbose: bool = False, summary: str | None = None) -> list[tuple[Notice | None, str]]:
        """What a build tells the user, in order, for each tool to send to its own
        logger: the summary (``summary``, else :meth:`summary`; with ``verbose``,
        :meth:`details`) as information, paired with None, then each notice as a
        warning, paired with the notice, whose code lets the host tool filter it
        and whose level makes its strict mode count it."""
        text = self.details().rstrip("\n") if verbose else summary or self.summary()
        return [(None, text), *((notice, notice.message) for notice in self.notices)]

    def details(self) -> str:
        """Every excluded URL with its reason, one a line (the verbose report)."""
        lines = [self.summary()]
        lines += [
            f"excluded ({item.reason}): {item.loc}" + (f" -> {item.detail}" if item.detail else "")
            for item in sorted(self.excluded, key=lambda e: (e.reason, e.loc))
        ]
        lines += [f"without lastmod (generated, no source in git): {loc}" for loc in self.undated_generated]
        lines += [f"images on host {host}: {count}" for host, count in sorted(self.image_hosts.items())]
        lines += [f"images cut (more than one entry lists): {loc}" for loc in self.images_cut]
        lines += [f"warning ({notice.code}): {notice.message}" for notice in self.notices]
        return "\n".join(lines) + "\n"
