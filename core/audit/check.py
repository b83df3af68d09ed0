"""Check an existing site's sitemaps, whoever wrote them, against the protocol.

Reads files only, and only regular files inside the site folder: a URL that would
lead out of it (dot segments, an empty segment, a symlink) is reported, never
opened. Each problem names the file and line it was found at, so a user can go
straight to it; the rules are the protocol's, as this project reads it.
"""

from __future__ import annotations

import dataclasses
import os
import stat
import xml.parsers.expat
import zlib
from pathlib import Path

from ..protocol.limits import MAX_BYTES_CEILING, MAX_LOC_LENGTH, MAX_SITEMAPS_PER_INDEX, MAX_URLS_PER_SITEMAP
from ..protocol.model import CHANGEFREQ_VALUES
from ..protocol.dates import W3C_DATETIME
from ..protocol.encoder import SITEMAP_NS
from ..protocol.errors import OutputError, SitemapkitError
from ..protocol.robots import decode_robots_txt, sitemap_line_url
from ..protocol.robotsrules import LINE_BREAK
from ..protocol.urls import Scope, encode_url, files_serving, is_uri

_URL_CHILDREN = ("loc", "lastmod", "changefreq", "priority")
# Compressed bytes read at a time; what they inflate to is capped separately.
_GZIP_READ_SIZE = 65_536


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

    def summary(self) -> str:
        verdict = (
            "no problems"
            if not self.problems
            else f"{len(self.problems)} problem{'s' if len(self.problems) != 1 else ''}"
        )
        return f"sitemapkit check: {self.urls:,} URLs in {len(self.files)} file{'s' if len(self.files) != 1 else ''}; {verdict}"


def check_site(
    site_dir: Path | str, base_url: str, *, entry: str = "sitemap.xml", max_bytes: int = MAX_BYTES_CEILING
) -> CheckResult:
    """Check the sitemaps reachable from ``entry`` and from robots.txt in ``site_dir``.

    ``max_bytes`` is the byte limit held to (the protocol's current 50 MiB ceiling
    unless a stricter one is asked for).
    """
    if not Path(site_dir).is_dir():
        raise SitemapkitError(f"{str(site_dir)!r} is not a folder")
    site = _SiteFolder(site_dir)
    scope = Scope(base_url)
    result = CheckResult()
    todo: list[tuple[str, str, int]] = []  # (file name, who named it, line)
    robots, why_not = site.file("robots.txt")
    if robots is None and why_not != _NO_FILE:
        result.problems.append(Problem("robots.txt", 0, f"{why_not}; not opened"))
    elif robots is not None:
        try:
            robots_text = decode_robots_txt(robots.read_bytes())
        except OutputError:
            result.problems.append(
                Problem(
                    "robots.txt", 0, "not a UTF-8 text file (RFC 9309 section 2.3); its Sitemap: lines were not read"
                )
            )
            robots_text = ""
        for number, line in enumerate(LINE_BREAK.split(robots_text.removeprefix("\ufeff")), 1):
            url = sitemap_line_url(line)
            if url:
                name = _local_name(url, scope)
                found, why_not = (None, _NO_FILE) if name is None else site.file(name)
                if name is None or found is None:
                    detail = "" if why_not == _NO_FILE else f" ({why_not}; not opened)"
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
    elif why_not != _NO_FILE:
        result.problems.append(Problem(entry, 0, f"{why_not}; not opened"))
    elif not todo:
        result.problems.append(
            Problem(entry, 0, "no sitemap found (neither this file nor a Sitemap: line in robots.txt)")
        )
    seen: set[str] = set()
    while todo:
        name, _, _ = todo.pop(0)
        if name in seen:
            continue
        seen.add(name)
        result.files.append(name)
        for child in _check_file(site, name, scope, max_bytes, result):
            todo.append((child, name, 0))
        _check_gzip_copy(site, name, max_bytes, result)
    return result


_NO_FILE = "has no file in the site"


class _SiteFolder:
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
            return None, _NO_FILE  # a folder
        path = os.path.join(real_folder, leaf)
        try:
            mode = os.lstat(path).st_mode
            if stat.S_ISLNK(mode):
                path = os.path.realpath(path)
                if not self._inside(path):
                    return None, "leads outside the site folder (through a symlink)"
                mode = os.stat(path).st_mode
        except (OSError, ValueError):  # missing, unreadable folder, symlink loop
            return None, _NO_FILE
        if stat.S_ISREG(mode):
            return Path(path), ""
        return None, _NO_FILE if stat.S_ISDIR(mode) else "is not a regular file"


def _read_gzip(path: Path, limit: int) -> bytes | None:
    """The uncompressed bytes of the gzip file ``path``, or None when there are more
    than ``limit`` of them: never inflated past the limit, so a small file that
    expands to gigabytes costs no more than a file at the limit.

    Several members one after another are one file (RFC 1952 section 2.2), and
    zero bytes after a member are padding, as gzip(1) reads them. Raises
    :class:`zlib.error` or :class:`EOFError` for a broken file.
    """
    out = bytearray()
    decompressor = zlib.decompressobj(16 + zlib.MAX_WBITS)
    in_member = False
    pending = b""
    with open(path, "rb") as handle:
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


def _check_gzip_copy(site: _SiteFolder, name: str, max_bytes: int, result: CheckResult) -> None:
    """A ``sitemap.xml.gz`` beside ``sitemap.xml`` is read by whoever was given its
    URL: it must hold the same bytes, not an older build's (or another generator's)
    sitemap."""
    if name.endswith(".gz"):
        return
    copy_path, _ = site.file(name + ".gz")
    path, _ = site.file(name)
    if copy_path is None or path is None:
        return
    try:
        copy = _read_gzip(copy_path, max_bytes)
    except (zlib.error, EOFError) as error:
        result.problems.append(Problem(name + ".gz", 0, f"not a valid gzip file: {error}"))
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
    below = scope.file_below(url)
    return below if below and "/" not in below else None


@dataclasses.dataclass
class _ParseState:
    """Where the parser of one sitemap file is: its root element, the entries so
    far, and the entry being read."""

    root: str | None = None
    count: int = 0
    text: list[str] = dataclasses.field(default_factory=list)
    children: list[str] = dataclasses.field(default_factory=list)
    line: int = 0


def _check_file(site: _SiteFolder, name: str, scope: Scope, max_bytes: int, result: CheckResult) -> list[str]:
    """Check one sitemap or index file; return the sitemap files an index names."""
    problems = result.problems

    def problem(line: int, message: str) -> None:
        problems.append(Problem(name, line, message))

    path, why_not = site.file(name)
    if path is None:
        problem(0, f"{why_not}; not opened")
        return []
    if name.endswith(".gz"):
        try:
            raw = _read_gzip(path, max_bytes)
        except (zlib.error, EOFError) as error:
            problem(0, f"not a valid gzip file: {error}")
            return []
        if raw is None:
            problem(0, f"more than {max_bytes:,} bytes uncompressed; the limit is {max_bytes:,} (not read further)")
            return []
    else:
        with open(path, "rb") as handle:
            raw = handle.read(max_bytes + 1)  # a file of any size costs no more than one at the limit
        if len(raw) > max_bytes:
            problem(0, f"more than {max_bytes:,} bytes; the limit is {max_bytes:,} (not read further)")
            return []
    if name.endswith((".txt", ".txt.gz")):
        return _check_text(raw, name, scope, site, result)

    parser = xml.parsers.expat.ParserCreate(namespace_separator=" ")
    stack: list[str] = []
    state = _ParseState()
    children: list[str] = []

    def start(tag: str, attrs: dict) -> None:
        line = parser.CurrentLineNumber
        ns, _, local = tag.rpartition(" ")
        if not stack:
            state.root = local
            if ns != SITEMAP_NS:
                problem(line, f"root element <{local}> is not in the sitemaps.org namespace {SITEMAP_NS}")
            if local not in ("urlset", "sitemapindex"):
                problem(line, f"root element is <{local}>, not <urlset> or <sitemapindex>")
        elif len(stack) == 1:
            expected = "url" if state.root == "urlset" else "sitemap"
            if ns == SITEMAP_NS and local != expected:
                problem(line, f"<{local}> inside <{state.root}>; expected <{expected}>")
            state.count += 1
            state.children = []
            state.line = line
        elif len(stack) == 2 and ns == SITEMAP_NS:
            state.children.append(local)
        stack.append(tag)
        state.text = []

    def end(tag: str) -> None:
        stack.pop()
        ns, _, local = tag.rpartition(" ")
        text = "".join(state.text).strip()
        line = parser.CurrentLineNumber
        if len(stack) == 2 and ns == SITEMAP_NS:
            if local == "loc":
                child = _check_loc(text, line, problem, scope, site, state.root == "sitemapindex")
                if child:
                    children.append(child)
            elif local == "lastmod" and not W3C_DATETIME.match(text):
                problem(line, f"lastmod {text!r} is not a W3C Datetime")
            elif local == "changefreq" and text not in CHANGEFREQ_VALUES:
                problem(line, f"changefreq {text!r} is not one of {', '.join(CHANGEFREQ_VALUES)}")
            elif local == "priority" and not _is_priority(text):
                problem(line, f"priority {text!r} is not a number from 0.0 to 1.0")
        elif len(stack) == 1:
            own = [c for c in state.children]
            if own.count("loc") != 1:
                problem(state.line, f"<{local}> must have exactly one <loc>")
            order = [c for c in own if c in _URL_CHILDREN]
            if order != sorted(order, key=_URL_CHILDREN.index) or len(set(order)) != len(order):
                problem(state.line, f"<{local}> children out of order or repeated: {', '.join(order)}")

    def chars(data: str) -> None:
        state.text.append(data)

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = chars
    try:
        parser.Parse(raw, True)
    except xml.parsers.expat.ExpatError as error:
        problem(error.lineno, f"not well-formed XML: {xml.parsers.expat.ErrorString(error.code)}")
        return children
    limit = MAX_URLS_PER_SITEMAP if state.root == "urlset" else MAX_SITEMAPS_PER_INDEX
    if state.count > limit:
        problem(0, f"{state.count:,} entries; the limit is {limit:,}")
    if state.count == 0:
        problem(1, f"<{state.root}> lists nothing")
    if state.root == "urlset":
        result.urls += state.count
    return children


def _is_priority(text: str) -> bool:
    try:
        return 0.0 <= float(text) <= 1.0
    except ValueError:
        return False


def _check_loc(text: str, line: int, problem, scope: Scope, site: _SiteFolder, in_index: bool) -> str | None:
    if not is_uri(text):
        problem(line, f"loc {text!r} is not percent-encoded (spaces, non-ASCII or other characters RFC 3986 forbids)")
        return None
    if len(text) > MAX_LOC_LENGTH:
        problem(line, f"loc is {len(text):,} characters; the protocol allows fewer than 2,048")
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
            problem(line, f"sitemap {text} {why_not}" + ("" if why_not == _NO_FILE else "; not opened"))
            return None
        return below
    candidates = files_serving(below)
    found, why_not = None, _NO_FILE
    for candidate in candidates:
        found, why_not = site.file(candidate)
        if found is not None or why_not != _NO_FILE:
            break
    if found is None:
        problem(line, f"{text} {why_not}" + (f" (looked for {candidates[0]})" if why_not == _NO_FILE else ""))
    return None


def _check_text(raw: bytes, name: str, scope: Scope, site: _SiteFolder, result: CheckResult) -> list[str]:
    def problem(line: int, message: str) -> None:
        result.problems.append(Problem(name, line, message))

    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        problem(0, "not UTF-8 text")
        return []
    lines = [line for line in text.splitlines() if line.strip()]
    if len(lines) > MAX_URLS_PER_SITEMAP:
        problem(0, f"{len(lines):,} URLs; the limit is {MAX_URLS_PER_SITEMAP:,}")
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip():
            _check_loc(line.strip(), number, problem, scope, site, False)
    result.urls += len(lines)
    return []
