"""Check an existing site's sitemaps, whoever wrote them, against the protocol.

Reads files only, and only regular files inside the site folder: a URL that would
lead out of it (dot segments, an empty segment, a symlink) is reported, never
opened. Each problem names the file and line it was found at, so a user can go
straight to it; the rules are the protocol's, as this project reads it.

The audit (:func:`audit_pages`) then holds the listed URLs and the folder's pages
to the page rules the builds use, and reports findings (:class:`Finding`) by kind; where
there are lastmods it asks git (the one process it runs) when the site's history
began and last changed.
"""

from __future__ import annotations

import dataclasses
import json
import os
import stat
import time
import xml.parsers.expat
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from ..protocol.limits import (
    ROBOTS_TXT_PARSING_LIMIT,
    MAX_BYTES_CEILING,
    MAX_IMAGES_PER_URL,
    MAX_LOC_LENGTH,
    MAX_SITEMAPS_PER_INDEX,
    MAX_URLS_PER_SITEMAP,
)
from ..protocol.model import CHANGEFREQ_VALUES
from ..protocol.dates import W3C_DATETIME, lastmod_instant, parse_lastmod
from ..protocol.encoder import IMAGE_NS, SITEMAP_NS
from ..protocol.errors import OutputError, SitemapkitError
from ..protocol.robots import decode_robots_txt, sitemap_line_url
from ..protocol.robotsrules import LINE_BREAK
from ..protocol.urls import HTML_SUFFIXES, Scope, comparable_url, encode_url, files_serving, is_uri, is_web_url
from .versionfolders import VERSION_SITEMAP, VERSIONS_JSON, find_versions

_URL_CHILDREN = ("loc", "lastmod", "changefreq", "priority")
# Compressed bytes read at a time; what they inflate to is capped separately.
_GZIP_READ_SIZE = 65_536


#: The kinds of finding the audit of a site's pages reports (see
#: :func:`audit_pages`), and whether each is an error: a listed URL a crawler is
#: told not to index, or cannot fetch, or may not take from this sitemap, is an
#: error; a page left unlisted and a lastmod that does not tell when a page
#: changed are warnings (the sitemap is valid, but says less than it could).
FINDING_KINDS: dict[str, bool] = {
    "redirect": True,
    "noindex": True,
    "canonical": True,
    "robots": True,
    "error-page": True,
    "unreadable": True,
    "no-file": True,
    "out-of-folder": True,
    "broken-canonical": False,
    "unlisted": False,
    "batch-lastmod": False,
    "future-lastmod": False,
    "before-history": False,
}

# What select_page's report calls a reason to leave a page out -> the finding's kind.
_REASON_KINDS = {
    "redirect": "redirect",
    "noindex": "noindex",
    "canonical": "canonical",
    "robots.txt": "robots",
    "error page": "error-page",
    "unreadable": "unreadable",
}


@dataclasses.dataclass(frozen=True)
class Finding:
    """What the audit found about one URL: its kind (:data:`FINDING_KINDS`), the
    URL, and why."""

    kind: str
    url: str
    reason: str

    @property
    def error(self) -> bool:
        return FINDING_KINDS[self.kind]

    def __str__(self) -> str:
        return f"{'error' if self.error else 'warning'} {self.kind}: {self.url}: {self.reason}"


@dataclasses.dataclass(frozen=True)
class Listed:
    """One URL a sitemap file lists, with the file that serves it."""

    loc: str
    sitemap: str
    lastmod: str | None
    file: Path


@dataclasses.dataclass(frozen=True)
class Problem:
    file: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.message}"


@dataclasses.dataclass
class CheckResult:
    problems: list[Problem] = dataclasses.field(default_factory=list)
    files: list[str] = dataclasses.field(default_factory=list)
    urls: int = 0
    images: int = 0
    findings: list[Finding] = dataclasses.field(default_factory=list)
    #: The URLs the sitemaps list that a file of the site serves, for the audit.
    listed: list[Listed] = dataclasses.field(default_factory=list)
    #: False when a sitemap could not be read whole: which pages it lists is unknown.
    read_whole: bool = True
    #: The files read that are sitemap indexes.
    indexes: set[str] = dataclasses.field(default_factory=set, repr=False)
    #: What the audit went past on purpose, one line each (another version's pages).
    notes: list[str] = dataclasses.field(default_factory=list)

    @property
    def failed(self) -> bool:
        """Whether the exit status says so: a problem, or a finding of an error kind."""
        return bool(self.problems) or any(finding.error for finding in self.findings)

    def summary(self) -> str:
        verdict = (
            "no problems"
            if not self.problems
            else f"{len(self.problems):,} problem{'s' if len(self.problems) != 1 else ''}"
        )
        if self.findings:
            errors = sum(1 for finding in self.findings if finding.error)
            warnings = len(self.findings) - errors
            verdict += (
                f"; findings: {errors} error{'s' if errors != 1 else ''}, "
                f"{warnings} warning{'s' if warnings != 1 else ''}"
            )
        images = f", {self.images:,} image{'s' if self.images != 1 else ''}" if self.images else ""
        return f"sitemapkit check: {self.urls:,} URLs{images} in {len(self.files)} file{'s' if len(self.files) != 1 else ''}; {verdict}"

    def to_json(self) -> str:
        """The problems and findings, for CI."""
        return json.dumps(
            {
                "files": self.files,
                "urls": self.urls,
                "problems": [dataclasses.asdict(problem) for problem in self.problems],
                "findings": [
                    {"kind": f.kind, "url": f.url, "reason": f.reason, "error": f.error} for f in self.findings
                ],
                "notes": self.notes,
                "failed": self.failed,
            },
            indent=2,
            ensure_ascii=False,
        )


def check_site(
    site_dir: Path | str,
    base_url: str,
    *,
    entry: str = "sitemap.xml",
    max_bytes: int = MAX_BYTES_CEILING,
    audit: bool = True,
    now: float | None = None,
) -> CheckResult:
    """Check the sitemaps reachable from ``entry`` and from robots.txt in ``site_dir``,
    and with ``audit`` the pages they list and the pages the folder holds
    (:func:`audit_pages`; ``now``, POSIX seconds, is when a lastmod is in the future).

    ``max_bytes`` is the byte limit held to (the protocol's current 50 MiB ceiling
    unless a stricter one is asked for).
    """
    if not Path(site_dir).is_dir():
        raise SitemapkitError(f"{str(site_dir)!r} is not a folder")
    site = SiteFolder(site_dir)
    scope = Scope(base_url)
    result = CheckResult()
    todo: list[tuple[str, str, int]] = []  # (file name, who named it, line)
    robots_text = ""
    robots, why_not = site.file("robots.txt")
    if robots is None and why_not != NO_FILE:
        result.problems.append(Problem("robots.txt", 0, f"{why_not}; not opened"))
    elif robots is not None:
        with open(robots, "rb") as handle:
            robots_bytes = handle.read(ROBOTS_TXT_PARSING_LIMIT + 1)
        if len(robots_bytes) > ROBOTS_TXT_PARSING_LIMIT:
            result.problems.append(
                Problem(
                    "robots.txt",
                    0,
                    f"more than {ROBOTS_TXT_PARSING_LIMIT:,} bytes; crawlers ignore what follows "
                    "(RFC 9309 section 2.5; Google reads 500 KiB), and so does this check",
                )
            )
            robots_bytes = robots_bytes[:ROBOTS_TXT_PARSING_LIMIT]
        try:
            robots_text = decode_robots_txt(robots_bytes)
        except OutputError:
            result.problems.append(
                Problem(
                    "robots.txt", 0, "not a UTF-8 text file (RFC 9309 section 2.3); its Sitemap: lines were not read"
                )
            )
            robots_text = ""
        for number, url in robots_sitemap_lines(robots_text):
            if url:
                name = _local_name(url, scope)
                found, why_not = (None, NO_FILE) if name is None else site.file(name)
                if name is None or found is None:
                    detail = "" if why_not == NO_FILE else f" ({why_not}; not opened)"
                    result.problems.append(
                        Problem(
                            "robots.txt", number, f"Sitemap: {url} does not point at a sitemap in this site{detail}"
                        )
                    )
                else:
                    todo.append((name, "robots.txt", number))
    found, why_not = site.file(entry)
    if found is not None:
        todo.append((entry, "", 0))
    elif why_not != NO_FILE:
        result.problems.append(Problem(entry, 0, f"{why_not}; not opened"))
    elif not todo:
        result.problems.append(
            Problem(entry, 0, "no sitemap found (neither this file nor a Sitemap: line in robots.txt)")
        )
    seen: set[str] = set()
    named_by_index: list[tuple[str, str]] = []  # (file, the index naming it)
    while todo:
        name, named_by, _ = todo.pop(0)
        if named_by in result.indexes:
            named_by_index.append((name, named_by))
        if name in seen:
            continue
        seen.add(name)
        result.files.append(name)
        for child in _check_file(site, name, scope, max_bytes, result):
            todo.append((child, name, 0))
        _check_gzip_copy(site, name, max_bytes, result)
    for name, index in named_by_index:
        if name in result.indexes:
            # An index listing itself, or indexes listing each other, included.
            result.problems.append(
                Problem(
                    index,
                    0,
                    f"lists {name}, an index: an index lists sitemaps only (Google: "
                    '"Sitemap index files can\'t be nested"; its schema names only <urlset> files)',
                )
            )
    if audit:
        audit_pages(site, scope, robots_text, result, now=time.time() if now is None else now)
    return result


NO_FILE = "has no file in the site"
#: Problems listed of one file at most; past them, how many more there are.
MAX_PROBLEMS_SHOWN = 1_000


class SiteFolder:
    """The regular files of the site folder, and nothing outside it.

    A path with a ``.`` or ``..`` segment, an empty segment (``//etc/passwd``) or a
    NUL byte is refused before anything is looked at; so is one that leads out
    through a symlink (of a folder or of the file). Nothing but a regular file is
    a file here (opening a FIFO would block). Folders are resolved once each, so
    checking a file costs one ``lstat``.
    """

    def __init__(self, site_dir: Path | str) -> None:
        self.root = os.path.realpath(site_dir)
        self._folders: dict[str, str | None] = {"": self.root}  # relative -> real, None: outside

    def _inside(self, real: str) -> bool:
        return real == self.root or real.startswith(self.root.rstrip(os.sep) + os.sep)

    def file(self, relative: str) -> tuple[Path | None, str]:
        """The file ``relative`` (a decoded path below the site folder) names, or
        None and why not."""
        segments = relative.split("/")
        if "\0" in relative or any(s in (".", "..") for s in segments) or "" in segments[:-1]:
            return None, "leads outside the site folder (an empty, '.' or '..' path segment)"
        folder, _, leaf = relative.rpartition("/")
        if folder not in self._folders:
            real = os.path.realpath(os.path.join(self.root, folder))
            self._folders[folder] = real if self._inside(real) else None
        real_folder = self._folders[folder]
        if real_folder is None:
            return None, "leads outside the site folder (through a symlink)"
        if not leaf:
            return None, NO_FILE  # a folder
        path = os.path.join(real_folder, leaf)
        try:
            mode = os.lstat(path).st_mode
            if stat.S_ISLNK(mode):
                path = os.path.realpath(path)
                if not self._inside(path):
                    return None, "leads outside the site folder (through a symlink)"
                mode = os.stat(path).st_mode
        except (OSError, ValueError):  # missing, unreadable folder, symlink loop
            return None, NO_FILE
        if stat.S_ISREG(mode):
            return Path(path), ""
        return None, NO_FILE if stat.S_ISDIR(mode) else "is not a regular file"

    def page_file(self, below: str) -> tuple[Path | None, str, str]:
        """The file a static host serves for the page URL ``below`` (a decoded path
        below the site folder: ``a/`` is ``a/index.html``; ``a`` is ``a``,
        ``a.html`` or ``a/index.html``), or None and why not; and the first file
        looked for."""
        candidates = files_serving(below)
        found, why_not = None, NO_FILE
        for candidate in candidates:
            found, why_not = self.file(candidate)
            if found is not None or why_not != NO_FILE:
                break
        return found, why_not, candidates[0]


def _read_gzip(path: Path, limit: int) -> bytes | None:
    """:func:`inflate_at_most` of the gzip file ``path``."""
    with open(path, "rb") as handle:
        return inflate_at_most(handle, limit)


class Readable(Protocol):
    def read(self, size: int, /) -> bytes: ...


def inflate_at_most(handle: Readable, limit: int) -> bytes | None:
    """The uncompressed bytes of the gzip stream ``handle`` (a file, an HTTP
    response), or None when there are more than ``limit`` of them: never inflated
    past the limit, so a small file that expands to gigabytes costs no more than
    a file at the limit.

    Several members one after another are one file (RFC 1952 section 2.2), and
    zero bytes after a member are padding, as gzip(1) reads them. Raises
    :class:`zlib.error` or :class:`EOFError` for a broken file.
    """
    out = bytearray()
    decompressor = zlib.decompressobj(16 + zlib.MAX_WBITS)
    in_member = False
    pending = b""
    while True:
        if not pending:
            pending = handle.read(_GZIP_READ_SIZE)
            if not pending:
                break
        if not in_member:
            pending = pending.lstrip(b"\0")
            if not pending:
                continue
            in_member = True
        # max_length: at most one byte past the limit, however much the
        # input would inflate to.
        out += decompressor.decompress(pending, limit + 1 - len(out))
        if len(out) > limit:
            return None
        if decompressor.eof:
            pending = decompressor.unused_data
            decompressor = zlib.decompressobj(16 + zlib.MAX_WBITS)
            in_member = False
        else:
            pending = decompressor.unconsumed_tail
    if in_member:
        raise EOFError("the file ends inside a compressed member")
    return bytes(out)


def _check_gzip_copy(site: SiteFolder, name: str, max_bytes: int, result: CheckResult) -> None:
    """A ``sitemap.xml.gz`` beside ``sitemap.xml`` is read by whoever was given its
    URL: it must hold the same bytes, not an older build's (or another generator's)
    sitemap."""
    if name.endswith(".gz"):
        return
    copy_path, why_not = site.file(name + ".gz")
    path, _ = site.file(name)
    if copy_path is None and why_not != NO_FILE:
        result.problems.append(Problem(name + ".gz", 0, f"{why_not}; not opened"))
    if copy_path is None or path is None:
        return
    try:
        copy = _read_gzip(copy_path, max_bytes)
    except (zlib.error, EOFError) as error:
        result.problems.append(Problem(name + ".gz", 0, f"not a valid gzip file: {error}"))
        return
    if copy is None:
        result.problems.append(
            Problem(
                name + ".gz",
                0,
                f"more than {max_bytes:,} bytes uncompressed; the limit is {max_bytes:,} (not read further)",
            )
        )
        return
    with open(path, "rb") as handle:
        current = handle.read(max_bytes + 1)
    if copy != current:
        result.problems.append(
            Problem(
                name + ".gz",
                0,
                f"is not a copy of {name}: a stale sitemap, left by an earlier build or another generator",
            )
        )


def _local_name(url: str, scope: Scope) -> str | None:
    """The file below the site folder a sitemap URL names (in a subfolder too: its
    URLs are then held to that folder, see audit_pages); None outside the site."""
    return scope.file_below(url) or None


@dataclasses.dataclass
class Entry:
    """One ``<url>`` or ``<sitemap>`` of a sitemap file, as written."""

    line: int
    namespace: str
    name: str
    #: Its children in the sitemaps.org namespace, in order: (name, stripped text, line).
    fields: list[tuple[str, str, int]] = dataclasses.field(default_factory=list)
    #: False when the file ended (not well-formed) inside it.
    complete: bool = False
    #: Its ``<image:image>`` elements (Google's image extension): the stripped
    #: text of each one's ``<image:loc>`` (None without one) and its line.
    images: list[tuple[str | None, int]] = dataclasses.field(default_factory=list)

    def field(self, name: str) -> str | None:
        """The text of the first child called ``name``, or None."""
        return next((text for local, text, _ in self.fields if local == name), None)


@dataclasses.dataclass
class ParsedSitemap:
    """What a sitemap or index file holds, read by :func:`parse_sitemap`."""

    root: str | None = None
    root_namespace: str = ""
    root_line: int = 0
    entries: list[Entry] = dataclasses.field(default_factory=list)
    #: (line, message) where the bytes stop being well-formed XML.
    error: tuple[int, str] | None = None
    #: The encoding the file is in when it is not UTF-8 (a UTF-16 byte order
    #: mark, or another in its XML declaration).
    encoding: str | None = None
    #: The line of its DOCTYPE declaration, 0 when it has none.
    doctype: int = 0
    #: How many entries it holds; only the first ``keep`` are in :attr:`entries`.
    count: int = 0

    @property
    def is_index(self) -> bool:
        return self.root == "sitemapindex"


def parse_sitemap(raw: bytes, keep: int | None = None) -> ParsedSitemap:
    """The root and entries of the sitemap XML ``raw`` (expat: no DTD is loaded,
    no external entity resolved), as far as it is well-formed; with ``keep``,
    only that many entries are kept, the others counted (memory stays bounded
    by the limit, whatever a file under the byte limit holds)."""
    parser = xml.parsers.expat.ParserCreate(namespace_separator=" ")
    parsed = ParsedSitemap()
    depth = 0
    text: list[str] = []
    kept = True

    def start(tag: str, attrs: dict) -> None:
        nonlocal depth, text, kept
        ns, _, local = tag.rpartition(" ")
        if depth == 0:
            parsed.root, parsed.root_namespace, parsed.root_line = local, ns, parser.CurrentLineNumber
        elif depth == 1:
            parsed.count += 1
            kept = keep is None or parsed.count <= keep
            if kept:
                parsed.entries.append(Entry(parser.CurrentLineNumber, ns, local))
        elif not kept:
            pass
        elif depth == 2 and ns == IMAGE_NS and local == "image":
            parsed.entries[-1].images.append((None, parser.CurrentLineNumber))
        depth += 1
        text = []

    def end(tag: str) -> None:
        nonlocal depth
        depth -= 1
        ns, _, local = tag.rpartition(" ")
        if not kept and depth >= 1:
            return
        if depth == 2 and ns == SITEMAP_NS:
            parsed.entries[-1].fields.append((local, "".join(text).strip(), parser.CurrentLineNumber))
        elif depth == 3 and ns == IMAGE_NS and local == "loc" and parsed.entries[-1].images:
            images = parsed.entries[-1].images
            if images[-1][0] is None:  # the first <image:loc> of the image counts
                images[-1] = ("".join(text).strip(), images[-1][1])
        elif depth == 1:
            parsed.entries[-1].complete = True

    def declared(version: str, encoding: str | None, standalone: int) -> None:
        if encoding and encoding.lower().replace("_", "-") not in ("utf-8", "utf8"):
            parsed.encoding = encoding

    def doctype(*_: object) -> None:
        parsed.doctype = parser.CurrentLineNumber

    if raw[:2] in (b"\xff\xfe", b"\xfe\xff"):
        parsed.encoding = "UTF-16"
    parser.XmlDeclHandler = declared
    parser.StartDoctypeDeclHandler = doctype
    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = lambda data: text.append(data)
    try:
        parser.Parse(raw, True)
    except xml.parsers.expat.ExpatError as error:
        parsed.error = (error.lineno, f"not well-formed XML: {xml.parsers.expat.ErrorString(error.code)}")
    return parsed


def text_sitemap_lines(raw: bytes) -> list[tuple[int, str]]:
    """The URLs of a text sitemap, ``(line number, URL)``; raises
    :class:`UnicodeDecodeError` for bytes that are not UTF-8 ("The text file must
    use UTF-8 encoding")."""
    text = raw.decode("utf-8").removeprefix("\ufeff")  # a byte order mark is no part of the first URL
    return [(number, line.strip()) for number, line in enumerate(text.splitlines(), 1) if line.strip()]


def robots_sitemap_lines(robots_text: str) -> list[tuple[int, str]]:
    """The ``Sitemap:`` lines of robots.txt text, ``(line number, URL)``."""
    found = []
    for number, line in enumerate(LINE_BREAK.split(robots_text.removeprefix("\ufeff")), 1):
        url = sitemap_line_url(line)
        if url:
            found.append((number, url))
    return found


def read_limited(handle: Readable, name: str, max_bytes: int) -> bytes:
    """The bytes of sitemap file ``name`` from ``handle``, inflated when it is a
    ``.gz``; raises :class:`LimitError` past ``max_bytes`` and
    :class:`zlib.error` or :class:`EOFError` for a broken gzip file."""
    if name.endswith(".gz"):
        raw = inflate_at_most(handle, max_bytes)
        if raw is None:
            raise LimitError(
                f"more than {max_bytes:,} bytes uncompressed; the limit is {max_bytes:,} (not read further)"
            )
        return raw
    raw = handle.read(max_bytes + 1)  # a file of any size costs no more than one at the limit
    if len(raw) > max_bytes:
        raise LimitError(f"more than {max_bytes:,} bytes; the limit is {max_bytes:,} (not read further)")
    return raw


class LimitError(SitemapkitError):
    """A sitemap file past the byte limit."""


def _check_file(site: SiteFolder, name: str, scope: Scope, max_bytes: int, result: CheckResult) -> list[str]:
    """Check one sitemap or index file; return the sitemap files an index names."""
    problems = result.problems

    shown = 0

    def problem(line: int, message: str) -> None:
        nonlocal shown
        shown += 1
        if shown <= MAX_PROBLEMS_SHOWN:
            problems.append(Problem(name, line, message))

    try:
        return _check_xml_file(site, name, scope, max_bytes, result, problem)
    finally:
        if shown > MAX_PROBLEMS_SHOWN:
            problems.append(Problem(name, 0, f"{shown - MAX_PROBLEMS_SHOWN:,} more problems in this file (not shown)"))


def _check_xml_file(
    site: SiteFolder, name: str, scope: Scope, max_bytes: int, result: CheckResult, problem: Callable[[int, str], None]
) -> list[str]:
    path, why_not = site.file(name)
    if path is None:
        problem(0, f"{why_not}; not opened")
        result.read_whole = False
        return []
    try:
        with open(path, "rb") as handle:
            raw = read_limited(handle, name, max_bytes)
    except (zlib.error, EOFError) as error:
        problem(0, f"not a valid gzip file: {error}")
        result.read_whole = False
        return []
    except LimitError as error:
        problem(0, str(error))
        result.read_whole = False
        return []
    if name.endswith((".txt", ".txt.gz")):
        return _check_text(raw, name, scope, site, result, problem)

    # One entry past the larger limit shows the file is over it: the others are counted.
    parsed = parse_sitemap(raw, keep=max(MAX_URLS_PER_SITEMAP, MAX_SITEMAPS_PER_INDEX) + 1)
    if parsed.is_index:
        result.indexes.add(name)
    if parsed.encoding is not None:
        problem(1, f'encoded as {parsed.encoding}; sitemaps.org: "Your Sitemap file must be UTF-8 encoded"')
    if parsed.doctype:
        problem(
            parsed.doctype,
            "declares a DOCTYPE (entities): a sitemap is plain XML, and crawlers expand no entity "
            "(this check reads none, nor any file an entity names)",
        )
    children: list[str] = []
    if parsed.root is not None:
        if parsed.root_namespace != SITEMAP_NS:
            problem(
                parsed.root_line,
                f"root element <{parsed.root}> is not in the sitemaps.org namespace {SITEMAP_NS}",
            )
        if parsed.root not in ("urlset", "sitemapindex"):
            problem(parsed.root_line, f"root element is <{parsed.root}>, not <urlset> or <sitemapindex>")
    expected = "url" if parsed.root == "urlset" else "sitemap"
    for entry in parsed.entries:
        if entry.namespace == SITEMAP_NS and entry.name != expected:
            problem(entry.line, f"<{entry.name}> inside <{parsed.root}>; expected <{expected}>")
        lastmod = entry.field("lastmod")
        for local, text, line in entry.fields:
            if local == "loc":
                child = _check_loc(text, line, problem, scope, site, parsed.is_index, result, name, lastmod)
                if child:
                    children.append(child)
            elif local == "lastmod" and not W3C_DATETIME.match(text):
                problem(line, f"lastmod {text!r} is not a W3C Datetime")
            elif local == "changefreq" and text not in CHANGEFREQ_VALUES:
                problem(line, f"changefreq {text!r} is not one of {', '.join(CHANGEFREQ_VALUES)}")
            elif local == "priority" and not _is_priority(text):
                problem(line, f"priority {text!r} is not a number from 0.0 to 1.0")
        if entry.images:
            _check_images(entry, problem, scope, site)
            result.images += len(entry.images)
        if not entry.complete:
            continue
        own = [local for local, _, _ in entry.fields]
        if own.count("loc") != 1:
            problem(entry.line, f"<{entry.name}> must have exactly one <loc>")
        order = [c for c in own if c in _URL_CHILDREN]
        if order != sorted(order, key=_URL_CHILDREN.index) or len(set(order)) != len(order):
            problem(entry.line, f"<{entry.name}> children out of order or repeated: {', '.join(order)}")
    if parsed.error is not None:
        problem(*parsed.error)
        result.read_whole = False
        return children
    count = parsed.count
    limit = MAX_URLS_PER_SITEMAP if parsed.root == "urlset" else MAX_SITEMAPS_PER_INDEX
    if count > limit:
        problem(0, f"{count:,} entries; the limit is {limit:,} (those past {len(parsed.entries) - 1:,} not checked)")
    if count == 0:
        problem(1, f"<{parsed.root}> lists nothing")
    if parsed.root == "urlset":
        result.urls += count
    return children


def _check_images(entry: Entry, problem, scope: Scope, site: SiteFolder) -> None:
    """Google's image extension (sitemap-image.xsd): each <image:image> holds one
    <image:loc>, an absolute URL; at most MAX_IMAGES_PER_URL a <url>; listing an
    image twice on a page says nothing more. An image below the base folder must
    be a file the site has."""
    if len(entry.images) > MAX_IMAGES_PER_URL:
        problem(entry.line, f"{len(entry.images):,} images; the limit is {MAX_IMAGES_PER_URL:,} for each <url>")
    seen: set[str] = set()
    for text, line in entry.images:
        if text is None:
            problem(line, "<image:image> without an <image:loc>")
            continue
        if not is_uri(text):
            problem(
                line, f"image {text!r} is not percent-encoded (spaces, non-ASCII or other characters RFC 3986 forbids)"
            )
            continue
        if not is_web_url(text):
            problem(line, f"image {text!r} is not an absolute http(s) URL")
            continue
        if text in seen:
            problem(line, f"image {text} is listed twice for one page")
            continue
        seen.add(text)
        try:
            normal = encode_url(text)
        except ValueError:
            problem(line, f"image {text!r} is not an absolute URL")
            continue
        if not normal.startswith(scope.prefix):
            continue  # another host or folder (a CDN): not this site folder's to serve
        below = scope.file_below(text)
        if below is None:
            problem(line, f"image {text} leads outside the site folder (a '..' path segment)")
            continue
        found, why_not = site.file(below)
        if found is None:
            problem(line, f"image {text} {why_not}")


def _is_priority(text: str) -> bool:
    try:
        return 0.0 <= float(text) <= 1.0
    except ValueError:
        return False


def _check_loc(
    text: str,
    line: int,
    problem,
    scope: Scope,
    site: SiteFolder,
    in_index: bool,
    result: CheckResult,
    sitemap: str,
    lastmod: str | None = None,
) -> str | None:
    if len(text) > MAX_LOC_LENGTH:
        # Never listable: not read further (a 50 MB loc would cost gigabytes to match).
        problem(line, f"loc {_shortened(text)} is {len(text):,} characters; the protocol allows fewer than 2,048")
        return None
    if not is_uri(text):
        problem(line, f"loc {text!r} is not percent-encoded (spaces, non-ASCII or other characters RFC 3986 forbids)")
        return None
    try:
        normal = encode_url(text)
    except ValueError:
        problem(line, f"loc {text!r} is not an absolute URL")
        return None
    if not normal.startswith(scope.prefix):
        problem(line, f"loc {text} is outside {scope.prefix}, the folder this sitemap may list")
        return None
    # The file is looked for where the loc points as written: "/docs/x/../a"
    # is refused by the site folder, never resolved into it.
    below = scope.file_below(text)
    if below is None:
        problem(
            line, f"{text} leads outside the site folder (a '..' path segment)" + ("; not opened" if in_index else "")
        )
        return None
    if in_index:
        found, why_not = site.file(below)
        if found is None:
            problem(line, f"sitemap {text} {why_not}" + ("" if why_not == NO_FILE else "; not opened"))
            return None
        return below
    found, why_not, looked_for = site.page_file(below)
    if found is None:
        problem(line, f"{text} {why_not}" + (f" (looked for {looked_for})" if why_not == NO_FILE else ""))
        if why_not == NO_FILE:
            result.findings.append(
                Finding("no-file", text, f"listed in {sitemap}; served by no file (looked for {looked_for})")
            )
    else:
        result.listed.append(Listed(text, sitemap, lastmod, found))
    return None


def _shortened(text: str, shown: int = 100) -> str:
    """A long value as its start, so that a line stays a line."""
    return repr(text) if len(text) <= shown else repr(text[:shown]) + "..."


def _check_text(
    raw: bytes, name: str, scope: Scope, site: SiteFolder, result: CheckResult, problem: Callable[[int, str], None]
) -> list[str]:
    try:
        lines = text_sitemap_lines(raw)
    except UnicodeDecodeError:
        problem(0, "not UTF-8 text")
        result.read_whole = False
        return []
    if len(lines) > MAX_URLS_PER_SITEMAP:
        problem(0, f"{len(lines):,} URLs; the limit is {MAX_URLS_PER_SITEMAP:,} (those past it not checked)")
    for number, line in lines[: MAX_URLS_PER_SITEMAP + 1]:
        _check_loc(line, number, problem, scope, site, False, result, name)
    result.urls += len(lines)
    return []


def audit_pages(site: SiteFolder, scope: Scope, robots_text: str, result: CheckResult, *, now: float) -> None:
    """Read the pages the sitemaps list and the pages the folder holds with the
    page rules the builds use (:func:`~sitemapkit.engine.selection.select_page`,
    the folder walk, the one-batch rule of file times), and add a
    :class:`Finding` for each listed URL those rules leave out, each listed URL
    outside its sitemap's folder, each page no sitemap lists that they keep, and
    each lastmod that does not tell when its page changed."""
    from ..engine.selection import select_page
    from ..protocol.model import Options, Page, Report, is_error_page
    from ..protocol.robotsrules import RobotsRules
    from ..site.folder import find_pages
    from ..site.lastmod import history_span

    options = Options(base_url=scope.prefix)
    rules = RobotsRules.from_text(robots_text) if robots_text else None
    findings = result.findings
    listed_files: set[str] = set()
    output_dir = Path(site.root)

    # The dates each listed page's head declares, by loc (see _audit_lastmods).
    heads: dict = {}

    def left_out(page: Page) -> tuple[str | None, Report, list[str]]:
        """The page's loc when the build's rules list it, what they said, and its
        canonical link when that names a page the site does not have."""
        report, broken = Report(), list[str]()
        loc, keep, _ = select_page(page, scope, options, rules, report, heads, output_dir, broken)
        return (loc if keep else None), report, broken

    for listed in result.listed:
        listed_files.add(os.path.realpath(listed.file))
        relative = os.path.relpath(listed.file, site.root).replace(os.sep, "/")
        # Only a page's head is read; a PDF or an image meets the other rules.
        page = Page(
            listed.loc,
            output=str(listed.file) if str(listed.file).endswith(HTML_SUFFIXES) else None,
            exclude_reason="error page" if is_error_page(relative) else None,
        )
        _, report, broken = left_out(page)
        for excluded in report.excluded:
            kind = _REASON_KINDS.get(excluded.reason)
            if kind is not None:
                detail = f" ({excluded.detail})" if excluded.detail else ""
                findings.append(Finding(kind, listed.loc, f"listed in {listed.sitemap}, but {_SAYS[kind]}{detail}"))
        for text in broken:
            findings.append(
                Finding(
                    "broken-canonical", listed.loc, f"its canonical link names a page the site does not have: {text}"
                )
            )
        folder = listed.sitemap.rpartition("/")[0]
        if folder:
            # "A Sitemap file located at http://example.com/catalog/sitemap.xml
            # can include any URLs starting with http://example.com/catalog/ but
            # can not include URLs starting with http://example.com/images/."
            allowed = encode_url(scope.prefix + folder + "/")
            if not comparable_url(listed.loc).startswith(comparable_url(allowed)):
                findings.append(
                    Finding(
                        "out-of-folder",
                        listed.loc,
                        f"listed in {listed.sitemap}, which may list only URLs below {allowed} "
                        "(sitemaps.org: a sitemap's location sets the URLs it may include)",
                    )
                )

    # Which pages no sitemap lists is known only when every sitemap was read.
    other_versions: dict[str, str] | None = None
    held_back: dict[str, int] = {}
    for page in find_pages(output_dir) if result.read_whole and result.files else ():
        real = os.path.realpath(page.output) if page.output is not None else None
        if real is None or real in listed_files:
            continue
        if site.file(os.path.relpath(real, output_dir).replace(os.sep, "/"))[0] is None:
            continue  # a symlink out of the site folder: nothing outside it is opened
        loc, _, _ = left_out(page)
        if loc is None:
            continue
        if other_versions is None:
            other_versions = _versions_left_to_their_sitemaps(site, listed_files)
        version = next((name for folder, name in other_versions.items() if real.startswith(folder)), None)
        if version is not None:
            held_back[version] = held_back.get(version, 0) + 1
        else:
            findings.append(Finding("unlisted", loc, "a page of the site that no sitemap lists and no rule leaves out"))
    if held_back:
        count = sum(held_back.values())
        result.notes.append(
            f"{', '.join(f'{name}/' for name in sorted(held_back))}: {count:,} page{'s' if count != 1 else ''} "
            f"of versions the sitemaps read do not list, each version listed by its own {VERSION_SITEMAP} "
            "(a versioned site's root sitemap lists one copy of each page; sitemapkit versions --all-versions "
            "lists every version's)"
        )

    # git is asked only when there is a lastmod to hold against its history.
    dated = any(listed.lastmod for listed in result.listed)
    declared = {loc: facts.modified for loc, facts in heads.items() if facts.modified}
    _audit_lastmods(
        result, scope, now, history_span(site.root) if dated else None, declared, _written_time(site, result.files)
    )


def _versions_left_to_their_sitemaps(site: SiteFolder, listed_files: set[str]) -> dict[str, str]:
    """The folders (real paths, with a trailing separator) of the versions a
    versioned site serves (mike's ``versions.json``, else the folders with a
    sitemap of their own) none of whose pages the sitemaps read list, each ->
    its version's name; the folders of its aliases too. Nothing when the site
    is not versioned, or its ``versions.json`` is no regular file inside it."""
    root = Path(site.root)
    if (root / VERSIONS_JSON).exists() and site.file(VERSIONS_JSON)[0] is None:
        return {}
    try:
        versions = find_versions(root)
    except SitemapkitError:
        return {}
    folders: dict[str, str] = {}
    for version in versions:
        own = [os.path.join(os.path.realpath(root / name), "") for name in (version.name, *version.aliases)]
        if not any(listed.startswith(folder) for listed in listed_files for folder in own):
            folders.update((folder, version.name) for folder in own)
    return folders


_SAYS = {
    "redirect": "it is a redirect stub",
    "noindex": "its robots meta says noindex",
    "canonical": "its canonical link names another page",
    "robots": "robots.txt disallows it",
    "error-page": "it is an error page",
    "unreadable": "its file cannot be read",
}


def _declared_by_page(instant, texts: tuple[str, ...]) -> bool:
    """Whether one of the dates a page's head declares is ``instant``."""
    for text in texts:
        try:
            if lastmod_instant(parse_lastmod(text)) == instant:
                return True
        except ValueError:
            continue
    return False


#: How long before its sitemap was written a build's clock may be stamped on the
#: pages: a date-only lastmod is that day's midnight (a day off in the zone it was
#: written in), and a large build runs a while before it writes the sitemap. A
#: batch older than that is no clock of the build that wrote the file (a small
#: blog's listings dated by its newest article, years before).
BUILD_CLOCK_REACH_SECONDS = 2 * 86_400


def _written_time(site: SiteFolder, names: list[str]) -> float | None:
    """When the newest of the sitemap files ``names`` was written (its file time)."""
    times = []
    for name in names:
        path, _ = site.file(name)
        if path is not None:
            try:
                times.append(path.stat().st_mtime)
            except OSError:
                continue
    return max(times, default=None)


def _audit_lastmods(
    result: CheckResult,
    scope: Scope,
    now: float,
    history: tuple[float, float] | None,
    declared: dict[str, tuple[str, ...]] | None = None,
    written: float | None = None,
) -> None:
    """Findings for lastmod values that are the build's clock (one batch's time
    on nearly every URL the sitemaps list, within :data:`BUILD_CLOCK_REACH_SECONDS`
    before the sitemaps were ``written``), in the future, or older than the
    site's git history. A lastmod its page's head declares too (``declared``:
    article:modified_time and the like, by loc) is the page's own date, however
    many pages share it (a theme's demo content dated alike): no clock's."""
    from ..site.lastmod import main_batch

    stamps: list[float] = []
    for listed in result.listed:
        if listed.lastmod is None or not W3C_DATETIME.match(listed.lastmod):
            continue
        try:
            instant = lastmod_instant(parse_lastmod(listed.lastmod))
        except ValueError:
            continue
        if instant is None:
            continue
        stamp = instant.timestamp()
        if not _declared_by_page(instant, (declared or {}).get(listed.loc, ())):
            stamps.append(stamp)
        if stamp > now:
            result.findings.append(Finding("future-lastmod", listed.loc, f"lastmod {listed.lastmod} is in the future"))
        elif history is not None and stamp < history[0]:
            result.findings.append(
                Finding(
                    "before-history",
                    listed.loc,
                    f"lastmod {listed.lastmod} is older than the first commit of the site's git repository",
                )
            )
    # The site's lastmods together: a small language sitemap whose list pages
    # share their newest page's date is not a build's clock. Where git is, a
    # batch no later than the last commit is a commit's time (a site committed
    # at once), not the clock of a build, which runs after it.
    batch = main_batch(stamps)
    if (
        batch is not None
        and (history is None or batch > history[1])
        and (written is None or batch >= written - BUILD_CLOCK_REACH_SECONDS)
    ):
        result.findings.append(
            Finding(
                "batch-lastmod",
                encode_url(scope.prefix + result.files[0]),
                f"{len(stamps)} lastmod values, nearly all one batch's time (seconds apart): "
                "the clock of the build that wrote them, not when the pages changed",
            )
        )
