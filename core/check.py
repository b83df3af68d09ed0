"""Check an existing site's sitemaps, whoever wrote them, against the protocol.

Reads files only. Each problem names the file and line it was found at, so a
user can go straight to it; the rules are the protocol's, as this project reads it.
"""

from __future__ import annotations

import dataclasses
import gzip
import re
import xml.parsers.expat
from pathlib import Path

from .model import CHANGEFREQ_VALUES, MAX_LOC_LENGTH, MAX_SITEMAPS_PER_INDEX, MAX_URLS_PER_SITEMAP, MAX_BYTES_CEILING
from .dates import W3C_DATETIME
from .encoder import SITEMAP_NS
from .urls import Scope, encode_url, is_uri

_ROBOTS_SITEMAP = re.compile(r"[ \t]*sitemap[ \t]*:[ \t]*(\S+)", re.IGNORECASE)
_URL_CHILDREN = ("loc", "lastmod", "changefreq", "priority")


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
        verdict = "no problems" if not self.problems else f"{len(self.problems)} problem{'s' if len(self.problems) != 1 else ''}"
        return f"sitemapkit check: {self.urls:,} URLs in {len(self.files)} file{'s' if len(self.files) != 1 else ''}; {verdict}"


def check_site(site_dir: Path, base_url: str, *, entry: str = "sitemap.xml", max_bytes: int = MAX_BYTES_CEILING) -> CheckResult:
    """Check the sitemaps reachable from ``entry`` and from robots.txt in ``site_dir``.

    ``max_bytes`` is the byte limit held to (the protocol's current 50 MiB ceiling
    unless a stricter one is asked for).
    """
    site_dir = Path(site_dir)
    scope = Scope(base_url)
    result = CheckResult()
    todo: list[tuple[str, str, int]] = []  # (file name, who named it, line)
    robots = site_dir / "robots.txt"
    if robots.is_file():
        for number, line in enumerate(robots.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            match = _ROBOTS_SITEMAP.match(line)
            if match:
                url = match.group(1)
                name = _local_name(url, scope)
                if name is None or not (site_dir / name).is_file():
                    result.problems.append(Problem("robots.txt", number, f"Sitemap: {url} does not point at a sitemap in this site"))
                else:
                    todo.append((name, "robots.txt", number))
    if (site_dir / entry).is_file():
        todo.append((entry, "", 0))
    elif not todo:
        result.problems.append(Problem(entry, 0, "no sitemap found (neither this file nor a Sitemap: line in robots.txt)"))
    seen: set[str] = set()
    while todo:
        name, _, _ = todo.pop(0)
        if name in seen:
            continue
        seen.add(name)
        result.files.append(name)
        for child in _check_file(site_dir, name, scope, max_bytes, result):
            todo.append((child, name, 0))
    return result


def _local_name(url: str, scope: Scope) -> str | None:
    below = scope.file_below(url)
    return below if below and "/" not in below else None


def _check_file(site_dir: Path, name: str, scope: Scope, max_bytes: int, result: CheckResult) -> list[str]:
    """Check one sitemap or index file; return the sitemap files an index names."""
    problems = result.problems

    def problem(line: int, message: str) -> None:
        problems.append(Problem(name, line, message))

    raw = (site_dir / name).read_bytes()
    if name.endswith(".gz"):
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError) as error:
            problem(0, f"not a valid gzip file: {error}")
            return []
    if len(raw) > max_bytes:
        problem(0, f"{len(raw):,} bytes uncompressed; the limit is {max_bytes:,}")
    if name.endswith((".txt", ".txt.gz")):
        return _check_text(raw, name, scope, site_dir, result)

    parser = xml.parsers.expat.ParserCreate(namespace_separator=" ")
    stack: list[str] = []
    state = {"root": None, "count": 0, "text": [], "children": [], "line": 0}
    children: list[str] = []

    def start(tag: str, attrs: dict) -> None:
        line = parser.CurrentLineNumber
        ns, _, local = tag.rpartition(" ")
        if not stack:
            state["root"] = local
            if ns != SITEMAP_NS:
                problem(line, f"root element <{local}> is not in the sitemaps.org namespace {SITEMAP_NS}")
            if local not in ("urlset", "sitemapindex"):
                problem(line, f"root element is <{local}>, not <urlset> or <sitemapindex>")
        elif len(stack) == 1:
            expected = "url" if state["root"] == "urlset" else "sitemap"
            if ns == SITEMAP_NS and local != expected:
                problem(line, f"<{local}> inside <{state['root']}>; expected <{expected}>")
            state["count"] += 1
            state["children"] = []
            state["line"] = line
        elif len(stack) == 2 and ns == SITEMAP_NS:
            state["children"].append(local)
        stack.append(tag)
        state["text"] = []

    def end(tag: str) -> None:
        stack.pop()
        ns, _, local = tag.rpartition(" ")
        text = "".join(state["text"]).strip()
        line = parser.CurrentLineNumber
        if len(stack) == 2 and ns == SITEMAP_NS:
            if local == "loc":
                child = _check_loc(text, line, problem, scope, site_dir, state["root"] == "sitemapindex")
                if child:
                    children.append(child)
            elif local == "lastmod" and not W3C_DATETIME.match(text):
                problem(line, f"lastmod {text!r} is not a W3C Datetime")
            elif local == "changefreq" and text not in CHANGEFREQ_VALUES:
                problem(line, f"changefreq {text!r} is not one of {', '.join(CHANGEFREQ_VALUES)}")
            elif local == "priority" and not _is_priority(text):
                problem(line, f"priority {text!r} is not a number from 0.0 to 1.0")
        elif len(stack) == 1:
            own = [c for c in state["children"]]
            if own.count("loc") != 1:
                problem(state["line"], f"<{local}> must have exactly one <loc>")
            order = [c for c in own if c in _URL_CHILDREN]
            if order != sorted(order, key=_URL_CHILDREN.index) or len(set(order)) != len(order):
                problem(state["line"], f"<{local}> children out of order or repeated: {', '.join(order)}")

    def chars(data: str) -> None:
        state["text"].append(data)

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = chars
    try:
        parser.Parse(raw, True)
    except xml.parsers.expat.ExpatError as error:
        problem(error.lineno, f"not well-formed XML: {xml.parsers.expat.ErrorString(error.code)}")
        return children
    limit = MAX_URLS_PER_SITEMAP if state["root"] == "urlset" else MAX_SITEMAPS_PER_INDEX
    if state["count"] > limit:
        problem(0, f"{state['count']:,} entries; the limit is {limit:,}")
    if state["count"] == 0:
        problem(1, f"<{state['root']}> lists nothing")
    if state["root"] == "urlset":
        result.urls += state["count"]
    return children


def _is_priority(text: str) -> bool:
    try:
        return 0.0 <= float(text) <= 1.0
    except ValueError:
        return False


def _check_loc(text: str, line: int, problem, scope: Scope, site_dir: Path, in_index: bool) -> str | None:
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
    below = scope.file_below(normal)
    if below is None:
        problem(line, f"loc {text} names no file below {scope.prefix}")
        return None
    if in_index:
        if not (site_dir / below).is_file():
            problem(line, f"sitemap {text} has no file in the site")
            return None
        return below
    candidates = [below + "index.html"] if below.endswith("/") or below == "" else [below, below + ".html", below + "/index.html"]
    if not any((site_dir / c).is_file() for c in candidates):
        problem(line, f"{text} has no file in the site (looked for {candidates[0]})")
    return None


def _check_text(raw: bytes, name: str, scope: Scope, site_dir: Path, result: CheckResult) -> list[str]:
    def problem(line: int, message: str) -> None:
        result.problems.append(Problem(name, line, message))

    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        problem(0, "not UTF-8 text")
        return []
    lines = [l for l in text.splitlines() if l.strip()]
    if len(lines) > MAX_URLS_PER_SITEMAP:
        problem(0, f"{len(lines):,} URLs; the limit is {MAX_URLS_PER_SITEMAP:,}")
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip():
            _check_loc(line.strip(), number, problem, scope, site_dir, False)
    result.urls += len(lines)
    return []
