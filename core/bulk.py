"""Very large URL lists (``sitemapkit generate``): every core formats and compresses.

The input is read in blocks of lines. A block whose lines are all plain (absolute
URLs under the base, or paths below it, each with an optional W3C date) is
formatted with whole-block byte operations; any other block goes line by line
through the same :class:`~sitemapkit.sitemap._Formatter` pages use, which reports
what it leaves out. Shard boundaries depend only on entries (see
:class:`~sitemapkit.sitemap.ShardPlanner`), so each worker process cuts, renders,
compresses and writes the shards that lie wholly inside its block; the main process
joins the pieces that straddle two blocks and writes the index.
"""

from __future__ import annotations

import concurrent.futures
import datetime as dt
import itertools
import multiprocessing
import os
import operator
import re
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from . import writer
from .errors import UrlError
from .model import MAX_LOC_LENGTH, Excluded, Options, Page
from .sitemap import (
    GenerateResult,
    Sequencer,
    ShardPlanner,
    SitemapFile,
    _Formatter,
    finish,
)
from .urls import Scope

# Lines per process hand-off: big enough to hold several shards (so most shards
# are made where the block is), small enough to keep each process's memory flat.
BLOCK_BYTES = 1 << 20

# RFC 3986 characters that need no percent-encoding in a path or query, plus the
# tab and line break that structure the input.
_PLAIN = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;=:@/?%\t\n"
_NEEDS_ENCODING = re.compile(rb"[^A-Za-z0-9\-._~!$&'()*+,;=:@/?%\t\n]")
_LONE_PERCENT = re.compile(rb"%(?![0-9A-Fa-f]{2})")
_CONTROL = re.compile(rb"[\x00-\x08\x0b-\x1f\x7f]")
_DOT_SEGMENT = re.compile(rb"/\.\.?(?=[/?\t\n])")
_ABSOLUTE_LINE = re.compile(rb"(?m)^(?:/|[A-Za-z][A-Za-z0-9+.-]*://)")
_PERCENT = {bytes([b]): b"%%%02X" % b for b in range(256)}

# The dates the quick path takes, each a fixed width, so a look-behind from the
# line break recognises a dated line in C: YYYY-MM-DD, or a time to the second in
# UTC ("Z") or with an offset. Other W3C forms take the careful path.
_DAY = rb"\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])"
_TIME = rb"T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d"
_DATED_LINE_END = re.compile(
    rb"\n(?:(?<=\t" + _DAY + rb"\n)|(?<=\t" + _DAY + _TIME + rb"Z\n)|(?<=\t" + _DAY + _TIME
    + rb"[+-](?:[01]\d|2[0-3]):[0-5]\d\n))"
)
_DAY_AFTER_TAB = re.compile(rb"\t(\d{4}-\d\d-\d\d)")
# Days already checked against the calendar (2024-02-30 is no date); a list of
# URLs repeats few distinct days.
_REAL_DAYS: set[bytes] = set()


def _percent(match: re.Match[bytes]) -> bytes:
    return _PERCENT[match.group()]


def _days_are_real(body: bytes) -> bool:
    for day in set(_DAY_AFTER_TAB.findall(body)) - _REAL_DAYS:
        try:
            dt.date.fromisoformat(day.decode("ascii"))
        except ValueError:
            return False
        if len(_REAL_DAYS) < 100_000:
            _REAL_DAYS.add(day)
    return True


def plain_block_entries(block: bytes, prefix: bytes) -> tuple[list[bytes], list[int]] | None:
    """The ``<url>`` entries of a block of ``URL[<TAB>DATE]`` lines and the crc32 of
    each loc, or None when a line needs the careful path (other hosts, dot
    segments, fragments, comments, blank or overlong lines, control characters,
    other date forms, repeated URLs).

    Everything here runs as whole-block byte operations or C-level maps: no
    Python code runs per line, which is what makes a million URLs cheap.
    """
    if not block.startswith(prefix):
        if _ABSOLUTE_LINE.search(block):
            return None
        # Paths relative to the base URL.
        block = prefix + block[:-1].replace(b"\n", b"\n" + prefix) + b"\n"
    if block.count(b"\n" + prefix) != block.count(b"\n") - 1:
        return None
    if b"#" in block or b"\n\n" in block or (b"/." in block and _DOT_SEGMENT.search(block)):
        return None
    lines = block[:-1].split(b"\n")
    unusual = block.translate(None, _PLAIN)
    if unusual:
        if _CONTROL.search(unusual):
            return None
        if not unusual.isascii():
            block.decode("utf-8")  # raises on bytes that are not UTF-8
        # IRIs to URIs, on the few lines that need it: each byte of a UTF-8
        # sequence becomes %XX.
        leftovers = map(len, map(bytes.translate, lines, itertools.repeat(None), itertools.repeat(_PLAIN)))
        for i in itertools.compress(itertools.count(), leftovers):
            lines[i] = _NEEDS_ENCODING.sub(_percent, lines[i])
    if b"%" in block:
        for i in itertools.compress(itertools.count(), map(_LONE_PERCENT.search, lines)):
            lines[i] = _LONE_PERCENT.sub(b"%25", lines[i])
    locs = list(map(operator.itemgetter(0), map(bytes.partition, lines, itertools.repeat(b"\t"))))
    if max(map(len, locs)) > MAX_LOC_LENGTH or any(map(operator.eq, locs, itertools.islice(locs, 1, None))):
        return None  # too long, or listed twice in a row: the careful path reports it
    hashes = list(map(zlib.crc32, locs))
    body = b"\n".join(lines) + b"\n"
    dated = body.count(b"\t")
    if dated:
        body, marked = _DATED_LINE_END.subn(b"\x02\n", body)
        if marked != dated or not _days_are_real(body):
            return None
    if b"&" in body:
        body = body.replace(b"&", b"&amp;")
    if b"'" in body:
        body = body.replace(b"'", b"&apos;")
    # Dated lines now end in \x02: each line's closing tags follow from that alone.
    body = (
        body.replace(b"\t", b"</loc><lastmod>")
        .replace(b"\x02\n", b"</lastmod></url>\x03")
        .replace(b"\n", b"</loc></url>\x03")
    )
    entries = (b"<url><loc>" + body[:-1].replace(b"\x03", b"\n<url><loc>")).split(b"\n")
    return entries, hashes


class _BlockFormatter:
    """Formats one block, quickly when it is plain, line by line when it is not."""

    def __init__(self, options: Options) -> None:
        self.options = options
        self.scope = Scope(options.base_url)
        self.prefix = self.scope.prefix.encode("ascii")
        self.planner = ShardPlanner(options)
        # The quick path writes exactly what _Formatter writes for plain lines.
        self.quick = options.format == "xml" and options.changefreq is None and options.priority is None

    def entries(self, block: bytes, result: GenerateResult) -> tuple[list[bytes], list[int]]:
        if self.quick:
            quick = plain_block_entries(block, self.prefix)
            if quick is not None and self.planner.fits_one_file(1, max(map(len, quick[0])) + 1, False):
                return quick
        formatter = _Formatter(self.options, self.scope, result)
        entries, hashes = [], []
        for line in block.decode("utf-8").split("\n"):
            line = line.rstrip("\r")
            if not line or line.startswith("#"):
                continue
            url, _, lastmod = line.partition("\t")
            entry = formatter.entry(Page(url, lastmod=lastmod or None))
            if entry is None:
                continue
            if not self.planner.fits_alone(entry):
                result.excluded.append(Excluded(url, "too long"))
                continue
            entries.append(entry)
            hashes.append(zlib.crc32(formatter.previous.encode("ascii")))
        return entries, hashes


def read_blocks(source: BinaryIO, size: int | None = None) -> Iterator[bytes]:
    """Blocks of whole lines, each ending in a line break."""
    size = size or BLOCK_BYTES
    rest = b""
    while True:
        chunk = source.read(size)
        if not chunk:
            break
        chunk = rest + chunk
        cut = chunk.rfind(b"\n") + 1
        if cut == 0:
            rest = chunk
            continue
        yield chunk[:cut]
        rest = chunk[cut:]
    if rest:
        yield rest + b"\n"


def _write(folder: Path, files: list[SitemapFile]) -> list[SitemapFile]:
    for item in files:
        writer.atomic_write(folder, item.name, writer.gzip_bytes(item.data) if item.gzip else item.data)
    return [SitemapFile(f.name, b"", f.kind, f.count, f.lastmod, f.gzip) for f in files]


# Worker process state, set once by _start_worker (fork copies the rest).
_worker: dict = {}


def _start_worker(options: Options, folder: str) -> None:
    _worker.update(formatter=_BlockFormatter(options), folder=Path(folder))


def _work_on_block(block: bytes, threshold: int):
    """In a worker: the entries before the block's first boundary (head), the
    shards wholly inside it (written here), and the entries from its last
    boundary on (tail)."""
    formatter: _BlockFormatter = _worker["formatter"]
    formatter.planner.threshold = threshold
    result = GenerateResult()
    entries, hashes = formatter.entries(block, result)
    bounds = formatter.planner.boundaries(hashes)
    if not bounds:
        return entries, None, [], None, result.excluded
    inner = []
    for a, b in zip(bounds, bounds[1:]):
        inner += _write(_worker["folder"], formatter.planner.shards(entries[a:b]))
    return entries[: bounds[0]], True, inner, entries[bounds[-1]:], result.excluded


def _worker_count() -> int:
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cpus = os.cpu_count() or 1
    return min(cpus, 4)


def _ready() -> None:
    """A first task, so the pool forks its workers at once."""


def write_url_list(source: BinaryIO, options: Options, folder: Path, result: GenerateResult) -> list[SitemapFile]:
    """Write the sitemaps for a ``URL[<TAB>LASTMOD]`` list into ``folder``."""
    folder = Path(folder)
    formatter = _BlockFormatter(options)
    sequencer = Sequencer(formatter.planner)
    written: list[SitemapFile] = []
    blocks = read_blocks(source)
    pool = None
    workers = _worker_count()
    try:
        # While the list may still fit one file, this process does the work.
        for number, block in enumerate(blocks):
            if number == 1 and workers > 1:
                # A second block: the list may need shards. Fork the workers now,
                # while this process is small (a fork copies its memory), and
                # before anything here starts a thread.
                pool = concurrent.futures.ProcessPoolExecutor(
                    workers, mp_context=multiprocessing.get_context("fork"),
                    initializer=_start_worker, initargs=(options, str(folder)),
                )
                pool.submit(_ready).result()
            written += _write(folder, sequencer.feed(*formatter.entries(block, result)))
            if not sequencer.single:
                break
        if not sequencer.single:
            written += _shard_in_workers(blocks, pool, workers, options, folder, sequencer, result)
        written += _write(folder, list(finish(sequencer, options, formatter.scope, result)))
    except UnicodeDecodeError as error:
        raise UrlError(f"the URL list is not UTF-8 text ({error.reason} at byte {error.start} of a block)") from None
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)
    return written


def _write_run(run: list[bytes]) -> list[SitemapFile]:
    """In a worker: the shards of a run that straddled two blocks, written."""
    return _write(_worker["folder"], _worker["formatter"].planner.shards(run))


def _shard_in_workers(blocks, pool, workers: int, options, folder, sequencer: Sequencer, result: GenerateResult) -> list[SitemapFile]:
    threshold = sequencer.planner.threshold
    if pool is None:
        written: list[SitemapFile] = []
        _start_worker(options, str(folder))
        for block in blocks:
            head, bounded, inner, tail, excluded = _work_on_block(block, threshold)
            result.excluded.extend(excluded)
            if not bounded:
                sequencer.run.extend(head)
                continue
            written.extend(_write(folder, sequencer.take_run_through(head)))
            sequencer.shards.extend(inner)
            written.extend(inner)
            sequencer.run = tail
        return written

    # Shards in site order: lists from the blocks' workers, and futures for the
    # runs that straddled two blocks, which a worker writes too, so that this
    # process only reads, hands out and keeps count.
    ordered: list = []

    def take(outcome) -> None:
        head, bounded, inner, tail, excluded = outcome
        result.excluded.extend(excluded)
        if not bounded:
            sequencer.run.extend(head)
            return
        run = sequencer.run + head
        if run:
            ordered.append(pool.submit(_write_run, run))
        ordered.append(inner)
        sequencer.run = tail

    pending: list[concurrent.futures.Future] = []
    for block in blocks:
        pending.append(pool.submit(_work_on_block, block, threshold))
        # Results are taken in order; a few blocks ahead keep every core busy
        # while memory stays bounded.
        while len(pending) > workers + 1:
            take(pending.pop(0).result())
    for future in pending:
        take(future.result())
    written = []
    for part in ordered:
        written.extend(part.result() if isinstance(part, concurrent.futures.Future) else part)
    sequencer.shards.extend(written)
    return written
