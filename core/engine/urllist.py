"""Very large URL lists (``sitemapkit generate``): every core formats and compresses.

The input is cut into blocks of lines; from a file, each worker process reads its
own blocks (from a pipe, this process hands them out). A block whose lines are
all plain (absolute URLs under the base, or paths below it, each with an optional
W3C date) is formatted with whole-block byte operations; any other block goes
line by line through the same :class:`~sitemapkit.protocol.encoder.EntryWriter` pages use,
which reports what it leaves out. Shard boundaries depend only on entries (see
:class:`~sitemapkit.protocol.encoder.ShardPlanner`), so each worker cuts, compresses and
writes the shards that lie wholly inside its block, straight from the formatted
bytes; this process joins the pieces that straddle two blocks (a worker writes
them) and writes the index. Until the list is known not to fit one file, workers
only format, and this process keeps the entries.

The processes are :class:`~sitemapkit.engine.workers.Workers`, as for the
other builds: from the second block on (:data:`~sitemapkit.engine.workers.POOL_FROM_BLOCKS`);
each holds a :class:`_BlockWorker`; a block a dead worker did not finish is
formatted (and its shards written, under their content names) in this process.
"""

from __future__ import annotations

import binascii
import collections
import itertools
import operator
import os
import re
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO, NamedTuple

from ..protocol.deflate import crc32
from ..protocol.dates import FIXED_WIDTH_FORMS, fixed_width_dates, newest_written
from ..protocol.encoder import (
    LOC_CLOSE,
    URL_OPEN,
    EncodeResult,
    EntryParts,
    EntryWriter,
    Sequencer,
    ShardPlanner,
    SitemapFile,
    closing_files,
    entry_sizes,
    held_marks,
    newest_lastmod_in,
)
from ..protocol.errors import UrlError
from ..protocol.limits import MAX_LOC_LENGTH
from ..protocol.model import Excluded, Options, Page, Report
from ..protocol.patterns import deferred
from ..protocol.urls import (
    CONTROL_RANGES,
    DOT_ENDING_SEGMENT,
    LONE_PERCENT,
    PLAIN_BYTES,
    SCHEME,
    SLASH_DOT_SEGMENT,
    URI_PLAIN_CLASS,
    XML_ESCAPES,
    Scope,
    unescape_xml,
    utf8_pattern,
)
from ..publish import publication as publish
from . import workers

# Lines per process hand-off: big enough to hold several shards (so most shards
# are made where the block is), small enough to keep each process's memory flat.
BLOCK_BYTES = 1 << 20

# Every byte pattern below is derived from the one definition of what a URL may
# hold (sitemapkit.urls) and of the dates the protocol takes (sitemapkit.dates):
# a line the quick path formats is one the careful path writes the same way.

# What a line may hold as it is, plus the tab and line break that structure the input.
_PLAIN = PLAIN_BYTES + b"\t\n"
_NEEDS_ENCODING = deferred(b"[^" + URI_PLAIN_CLASS.encode("ascii") + b"%\t\n]+")
_LONE_PERCENT = deferred(LONE_PERCENT.encode("ascii"))
# Control characters in UTF-8 (C1 ones are two bytes), but the tab and line break.
_CONTROL = deferred(utf8_pattern(CONTROL_RANGES, allowed=b"\t\n"))
# Lines start with the base URL, so a dot segment always follows a "/".
_DOT_SEGMENT = deferred(SLASH_DOT_SEGMENT.encode("ascii"))
_DOT_ENDING_SEGMENT = deferred(DOT_ENDING_SEGMENT.encode("ascii"))
_ABSOLUTE_LINE = deferred(b"(?m)^(?:/|" + SCHEME.encode("ascii") + b")")
# The XML escapes a percent-encoded URL can need (the others' characters are encoded).
_ESCAPES = [(c.encode("ascii"), e.encode("ascii")) for c, e in XML_ESCAPES.items() if c.encode("ascii") in _PLAIN]
# A UTF-8 byte order mark: not part of the first URL.
_BOM = b"\xef\xbb\xbf"

# The dates the quick path takes are sitemapkit.dates' FIXED_WIDTH_FORMS, checked
# against the calendar too (no 2023-02-29, no year 0); other W3C forms take the
# careful path. Where only some lines are dated, a look-behind from each line
# break recognises a dated line in C; where all are, a block's distinct dates
# are checked at once (fixed_width_dates).
_DATED_LINE_END = deferred(
    b"\n(?:" + b"|".join(b"(?<=\t" + form.encode("ascii") + b"\n)" for form in FIXED_WIDTH_FORMS) + b")"
)
# The longest of those dates.
_LONGEST_DATE = len("0000-00-00T00:00:00+00:00")


def _dates_taken(dates: list[bytes]) -> bool:
    """Whether every date of a block whose lines are all dated is one the quick
    path takes: each distinct one checked once (a list repeats its days)."""
    return fixed_width_dates(b"\n".join(set(dates)) + b"\n")


def _percent(match: re.Match[bytes]) -> bytes:
    """A run of bytes as %XX%XX..."""
    return b"%" + binascii.hexlify(match.group(), b"%").upper()


class PlainBlock(NamedTuple):
    """A block formatted by the quick path."""

    #: The entries (``<url>`` elements, or locs in the text form), each followed
    #: by a line break.
    body: bytes
    #: Each entry's loc as encoded, before XML escaping (what shard boundaries hash).
    locs: list[bytes]
    #: crc32 of each loc.
    hashes: list[int]
    #: Each entry's lastmod as written; empty when it has none (always, in the text form).
    dates: list[bytes]
    text: bool = False

    def entries(self) -> list[bytes]:
        return self.body[:-1].split(b"\n")

    def offsets(self, indexes: list[int]) -> list[int]:
        """Where the entries at ``indexes`` (ascending) start in ``body``.

        Found by their loc, which only an entry's start can hold: a few searches
        in C instead of measuring every entry.
        """
        found, start = [], 0
        for index in indexes:
            loc = self.locs[index]
            if self.text:
                start = 0 if index == 0 else self.body.index(b"\n" + loc + b"\n", max(start - 1, 0)) + 1
            else:
                for char, entity in _ESCAPES:
                    if char in loc:
                        loc = loc.replace(char, entity)
                start = self.body.index(_URL_OPEN + loc + _LOC_CLOSE, start)
            found.append(start)
            start += 1
        return found


_URL_OPEN = URL_OPEN.encode("ascii")
_LOC_CLOSE = LOC_CLOSE.encode("ascii")
_XML_PARTS = EntryParts.of(Options(base_url="https://example.org/"))


# Each byte a line may hold as it is (and the tab and line break) becomes 0, any
# other 1: the lines that need encoding are where a search finds a 1.
_UNUSUAL_MASK = bytes(0 if byte in _PLAIN else 1 for byte in range(256))


def _encoded(block: bytes, ascii_only: bool) -> bytes | None:
    """IRIs to URIs, on the few lines of ``block`` that need it: each byte of a
    UTF-8 sequence becomes %XX. None when those lines are not UTF-8."""
    mask = block.translate(_UNUSUAL_MASK)
    starts, ends = [], []
    position = mask.find(1)
    while position >= 0:
        starts.append(block.rfind(b"\n", 0, position) + 1)
        ends.append(block.index(b"\n", position))
        position = mask.find(1, ends[-1])
    odd_lines = b"\n".join(map(block.__getitem__, map(slice, starts, ends)))
    if not ascii_only:
        try:
            odd_lines.decode("utf-8")
        except UnicodeDecodeError:
            return None
    pieces: list[bytes] = []
    previous = 0
    for start, end, line in zip(starts, ends, _NEEDS_ENCODING.sub(_percent, odd_lines).split(b"\n")):
        pieces += (block[previous:start], line)
        previous = end
    pieces.append(block[previous:])
    return b"".join(pieces)


def plain_block(block: bytes, prefix: bytes, parts: EntryParts = _XML_PARTS) -> PlainBlock | None:
    """A block of ``URL[<TAB>DATE]`` lines formatted, or None when a line needs
    the careful path (other hosts, dot segments, fragments, comments, blank or
    overlong lines, control characters, other date forms, repeated URLs, bytes
    that are not UTF-8).

    Everything here runs as whole-block byte operations or C-level maps: no
    Python code runs per line, which is what makes a million URLs cheap.
    """
    if not block:
        return None
    if not block.startswith(prefix):
        if _ABSOLUTE_LINE.search(block) or block.startswith(b"\n") or b"\n\n" in block:
            return None
        # Paths relative to the base URL.
        block = prefix + block[:-1].replace(b"\n", b"\n" + prefix) + b"\n"
    # Every line starts with the prefix, so none is blank.
    lines = block.count(b"\n")
    if block.count(b"\n" + prefix) != lines - 1:
        return None
    # A "%" is found at memchr's speed, a "%2" more slowly: looked for only after one.
    percent = b"%" in block
    if b"#" in block or (
        ((percent and b"%2" in block) or _DOT_ENDING_SEGMENT.search(block)) and _DOT_SEGMENT.search(block)
    ):
        return None
    if percent:
        block = _LONE_PERCENT.sub(b"%25", block)
    unusual = block.translate(None, _PLAIN)
    if unusual:
        if _CONTROL.search(unusual):
            return None
        encoded = _encoded(block, unusual.isascii())
        if encoded is None:
            return None  # not UTF-8: the careful path names the line
        block = encoded
    body = block
    dated = block.count(b"\t")
    if dated == lines:
        # Every line dated, as most lists are: LOC<TAB>DATE on each, so one split
        # gives locs and dates. A line with two tabs and one with none would
        # shift a loc into the dates, which no date form matches.
        fields = block[:-1].replace(b"\n", b"\t").split(b"\t")
        locs, dates = fields[0::2], fields[1::2]
        if not _dates_taken(dates):
            return None  # (an empty date too: the careful path leaves it out)
    elif dated:
        # Dated lines end in \x02 from here on: each line's closing tags follow
        # from that alone.
        body, marked = _DATED_LINE_END.subn(b"\x02", body)
        if marked != dated:
            return None
        # Each line as LOC<TAB>DATE<TAB> (DATE empty on undated lines): one split
        # then gives locs and dates, with no Python call per line.
        fields = body.replace(b"\n", b"\t\t").replace(b"\x02", b"\t").split(b"\t")
        locs, dates = fields[0:-1:2], fields[1::2]
    else:
        locs = block[:-1].split(b"\n")
        dates = [b""] * len(locs)
    if max(map(len, locs)) > MAX_LOC_LENGTH or any(map(operator.eq, locs, itertools.islice(locs, 1, None))):
        return None  # too long, or listed twice in a row: the careful path reports it
    hashes = list(map(crc32, locs))
    if parts.text:
        # "one URL per line ... must not contain anything else": dates go unused.
        return PlainBlock(b"\n".join(locs) + b"\n", locs, hashes, [b""] * len(locs), True)
    for char, entity in _ESCAPES:
        if char in body:
            body = body.replace(char, entity)
    closing = parts.dated_closing if dated == lines else parts.undated_closing
    body = parts.opening + body.replace(b"\t", parts.lastmod_opening).replace(b"\n", closing + b"\n" + parts.opening)
    if dated and dated != lines:
        body = body.replace(b"\x02", parts.dated_closing + b"\n" + parts.opening)
    return PlainBlock(body[: -len(parts.opening)], locs, hashes, dates)


def plain_block_entries(
    block: bytes, prefix: bytes, parts: EntryParts = _XML_PARTS
) -> tuple[list[bytes], list[int]] | None:
    """The quick path's entries and their locs' crc32 (see :func:`plain_block`)."""
    plain = plain_block(block, prefix, parts)
    return None if plain is None else (plain.entries(), plain.hashes)


class _LineError(Exception):
    """Line ``index`` (counted from 0 in its block) cannot be listed: ``message``
    says why, ``kind`` is the error to raise (a bad URL, a bad lastmod). Raised
    in a worker; the main process names the line."""

    def __init__(self, index: int, message: str, kind: type[UrlError] = UrlError) -> None:
        super().__init__(index, message, kind)
        self.index = index
        self.message = message
        self.kind = kind


class BlockFormatter:
    """Formats one block, quickly when it is plain, line by line when it is not."""

    def __init__(self, options: Options) -> None:
        self.options = options
        self.scope = Scope(options.base_url)
        self.prefix = self.scope.prefix.encode("ascii")
        self.planner = ShardPlanner(options)
        self.parts = EntryParts.of(options)
        # The longest entry but its loc: a dated one.
        self.frame = (
            len(self.parts.opening)
            + len(self.parts.lastmod_opening)
            + _LONGEST_DATE
            + max(len(self.parts.dated_closing), len(self.parts.undated_closing))
        )
        # Whether the longest entry the quick path can make (a loc it takes is
        # at most MAX_LOC_LENGTH bytes, each byte escaped to six at most) fits
        # one file: under any real limit it does, and no entry is measured.
        self.any_plain_entry_fits = self.planner.fits_one_file(1, 6 * MAX_LOC_LENGTH + self.frame + 1, False)

    def plain(self, block: bytes) -> PlainBlock | None:
        """The block through the quick path, when it can take it."""
        plain = plain_block(block, self.prefix, self.parts)
        if plain is None:
            return None
        if self.any_plain_entry_fits:
            return plain
        # The longest entry an escaped loc of this length can make (each & and '
        # grows to six bytes at most); only tiny test limits measure them all.
        longest = 6 * max(map(len, plain.locs)) + self.frame
        if self.planner.fits_one_file(1, longest + 1, False) or self.planner.fits_one_file(
            1, max(map(len, plain.entries())) + 1, False
        ):
            return plain
        return None  # an entry too long for one file: the careful path reports it

    def entries(self, block: bytes, result: EncodeResult) -> tuple[list[bytes], list[int]]:
        plain = self.plain(block)
        if plain is not None:
            return plain.entries(), plain.hashes
        formatter = EntryWriter(self.options, self.scope, result)
        entries, hashes = [], []
        try:
            text = block.decode("utf-8")
        except UnicodeDecodeError as error:
            raise _LineError(block.count(b"\n", 0, error.start), f"not UTF-8 text ({error.reason})") from None
        for index, line in enumerate(text.split("\n")):
            line = line.rstrip("\r")
            if not line or line.startswith("#"):
                continue
            # URL<TAB>LASTMOD<TAB>IMAGE<TAB>IMAGE...: the lastmod column may be empty.
            url, _, rest = line.partition("\t")
            lastmod, _, images = rest.partition("\t")
            page = Page(url, lastmod=lastmod or None, images=tuple(filter(None, images.split("\t"))))
            try:
                entry = formatter.entry(page)
            except UrlError as error:
                raise _LineError(index, str(error), type(error)) from None
            if entry is None:
                continue
            if not self.planner.fits_alone(entry):
                result.too_long(url, entry)
                continue
            entries.append(entry)
            hashes.append(formatter.loc_hash())
        return entries, hashes


def read_blocks(source: BinaryIO, size: int | None = None) -> Iterator[bytes]:
    """Blocks of whole lines, each ending in a line break."""
    size = size or BLOCK_BYTES
    rest = b""
    first = True
    while True:
        chunk = source.read(size)
        if not chunk:
            break
        if first:
            first = False
            chunk = chunk.removeprefix(_BOM)
        chunk = rest + chunk
        cut = chunk.rfind(b"\n") + 1
        if cut == 0:
            rest = chunk
            continue
        yield chunk[:cut]
        rest = chunk[cut:]
    if rest:
        yield rest + b"\n"


def file_ranges(source: BinaryIO) -> Iterator[tuple[int, int]] | None:
    """For a regular file: the byte ranges of its blocks, from the current position.

    A block is the lines that *start* in its range (see :func:`read_lines`), so
    any process can read any block on its own: workers read their blocks from
    the file themselves instead of receiving them through a pipe. None for a
    stream (standard input, a pipe), which only this process can read.
    """
    try:
        descriptor = source.fileno()
        info = os.fstat(descriptor)
        start = source.tell()
    except (AttributeError, OSError, ValueError):
        return None
    if not stat.S_ISREG(info.st_mode):
        return None
    size = BLOCK_BYTES
    return ((offset, offset + size) for offset in range(start, info.st_size, size))


def read_lines(descriptor: int, start: int, stop: int) -> bytes:
    """The lines of a file that start in ``[start, stop)``, each ending in a line
    break; empty when none starts there (a line longer than the range)."""
    if start == 0:
        # A byte order mark opens the first line but is no part of it; the range
        # may be shorter than the mark, so it is looked for on its own.
        skip = len(_BOM) if os.pread(descriptor, len(_BOM), 0) == _BOM else 0
        data = os.pread(descriptor, max(stop - skip, 1), skip)
        end = skip + len(data)
    else:
        begin = start - 1
        data = os.pread(descriptor, stop - begin, begin)
        end = begin + len(data)
        # The byte before `start` is read too: a line starts after a break.
        first = data.find(b"\n") + 1
        if first == 0:
            return b""
        data = data[first:]
    # The last line may run past `stop`: read on to its end.
    while data and not data.endswith(b"\n"):
        more = os.pread(descriptor, 1 << 16, end)
        if not more:
            return data + b"\n"  # the file's last line has no break
        cut = more.find(b"\n")
        if cut >= 0:
            return data + more[: cut + 1]
        data += more
        end += len(more)
    return data


def _write(folder: Path, files: list[SitemapFile]) -> list[SitemapFile]:
    """Shards, written under their own (content) names: never a file the
    published index names (see publish.Publication)."""
    return [publish.write_shard(folder, item) for item in files]


class _BlockWorker(NamedTuple):
    """What a process formatting blocks holds (see workers.Workers)."""

    formatter: BlockFormatter
    folder: Path
    #: The input file, for the blocks a process reads itself; None for a stream.
    descriptor: int | None


def _block_worker(options: Options, folder: str, descriptor: int | None) -> _BlockWorker:
    return _BlockWorker(BlockFormatter(options), Path(folder), descriptor)


def _block(worker: _BlockWorker, task: bytes | tuple[int, int]) -> bytes:
    """A block handed over, or read here from the input file's range."""
    return task if isinstance(task, bytes) else read_lines(worker.descriptor, *task)  # type: ignore[arg-type]


class Piece(NamedTuple):
    """Consecutive entries of a run that crosses blocks: joined, not listed, so
    that handing them from process to process copies bytes, not objects."""

    #: The ``<url>`` entries, each followed by a line break.
    body: bytes
    #: How many entries ``body`` holds.
    urls: int
    #: Their newest lastmod, as written.
    newest: str | None

    @classmethod
    def of_entries(cls, entries: list[bytes]) -> Piece:
        body = b"\n".join(entries) + b"\n" if entries else b""
        return cls(body, len(entries), newest_lastmod_in(body))

    def without_first(self) -> Piece:
        rest = self.body[self.body.index(b"\n") + 1 :]
        return Piece(rest, self.urls - 1, newest_lastmod_in(rest))

    def first_entry(self) -> bytes:
        return self.body[: self.body.index(b"\n")]

    def last_entry(self) -> bytes:
        return self.body[self.body.rfind(b"\n", 0, len(self.body) - 1) + 1 : -1]


class BlockWork(NamedTuple):
    """What :func:`_work_on_block` gives back of one block."""

    #: The entries before the block's first boundary after its first entry.
    lead: Piece
    #: Whether the block's first entry is a boundary.
    opens: bool
    #: Whether the block holds a boundary after its first entry.
    bounded: bool
    #: The shards wholly inside the block from there, written.
    inner: list[SitemapFile]
    #: The entries from its last boundary on (empty when the lead is the whole block).
    tail: Piece
    excluded: list[Excluded]
    #: Asked for while a speculation is not yet settled: each entry's size in a
    #: file, and the extensions its head would declare (see _Speculation).
    sizes: list[int] | None = None
    marks: int = 0


def _work_on_block(
    worker: _BlockWorker, task: bytes | tuple[int, int], threshold: int, sizes_wanted: bool = False
) -> BlockWork:
    """A block cut by the boundary rule ``threshold``: the shards wholly inside
    it written, the pieces at its ends returned (see :class:`BlockWork`).

    The block's first entry never goes into a shard written here: it may repeat
    the previous block's last, which only the main process can know."""
    block = _block(worker, task)
    formatter = worker.formatter
    planner = formatter.planner
    planner.threshold = threshold
    plain = formatter.plain(block)
    if plain is None:
        result = EncodeResult()
        entries, hashes = formatter.entries(block, result)
        sizes = list(entry_sizes(entries)) if sizes_wanted else None
        marks = held_marks(entries) if sizes_wanted else 0
        bounds = planner.boundaries(hashes)
        opens = bool(bounds) and bounds[0] == 0
        bounds = [b for b in bounds if b > 0]
        if not bounds:
            empty = Piece(b"", 0, None)
            return BlockWork(Piece.of_entries(entries), opens, False, [], empty, result.excluded, sizes, marks)
        inner = []
        for a, b in zip(bounds, bounds[1:]):
            inner += _write(worker.folder, planner.shards(entries[a:b]))
        lead = Piece.of_entries(entries[: bounds[0]])
        tail = Piece.of_entries(entries[bounds[-1] :])
        return BlockWork(lead, opens, True, inner, tail, result.excluded, sizes, marks)
    body, dates = plain.body, plain.dates
    sizes = list(entry_sizes(plain.entries())) if sizes_wanted else None
    bounds = planner.boundaries(plain.hashes)
    opens = bool(bounds) and bounds[0] == 0
    bounds = [b for b in bounds if b > 0]
    if not bounds:
        lead = Piece(body, len(dates), newest_written(dates))
        return BlockWork(lead, opens, False, [], Piece(b"", 0, None), [], sizes)
    # Shards are cut straight out of the formatted block, whose entries use no
    # extension (the quick path takes no images).
    starts = plain.offsets(bounds)
    inner = []
    for a, b, start, end in zip(bounds, bounds[1:], starts, starts[1:]):
        run = planner.shards_of_body(body[start:end], b - a, newest_written(dates[a:b]), marks=0)
        inner += _write(worker.folder, run)
    lead = Piece(body[: starts[0]], bounds[0], newest_written(dates[: bounds[0]]))
    tail = Piece(body[starts[-1] :], len(dates) - bounds[-1], newest_written(dates[bounds[-1] :]))
    return BlockWork(lead, opens, True, inner, tail, [], sizes)


# How much of a file's first block is formatted to predict its boundary rule.
SAMPLE_BYTES = 1 << 16
# A file is cut into shards from its first block on only when a list this much
# smaller than the sample predicts would still not fit one file.
SPECULATION_MARGIN = 0.8


class _Mispredicted(Exception):
    """The speculation was wrong: the list is formatted again without it."""


class _Speculation:
    """A large file's shards cut from its first block on, by the boundary rule
    a sample of its first lines predicts, instead of holding its first file's
    worth of entries until that rule is known (see :class:`Sequencer`): every
    process then cuts, compresses and writes from the start.

    The rule depends on the entries up to the first that does not fit one file
    (:meth:`ShardPlanner.average_to_overflow`), so it is checked once those are
    known, and the list is written again without speculating when the rule
    differs or everything fits one file after all: the same bytes either way.
    The rule changes only where the average entry crosses a power of two, so a
    prediction is practically never wrong."""

    def __init__(self, planner: ShardPlanner, threshold: int) -> None:
        self.planner = planner
        self.threshold = threshold
        self.sizes: list[int] = []
        self.size = 0
        self.marks = 0
        self.settled = False

    @classmethod
    def of_file(cls, formatter: BlockFormatter, descriptor: int, first: tuple[int, int]) -> _Speculation | None:
        """A speculation for the file whose first block is the range ``first``,
        or None when it may fit one file or its sample cannot be formatted."""
        size = os.fstat(descriptor).st_size
        sample = read_lines(descriptor, first[0], min(first[1], first[0] + SAMPLE_BYTES))
        try:
            entries, _ = formatter.entries(sample, EncodeResult())
        except _LineError:
            return None  # the real pass names the line
        if not entries:
            return None
        planner = formatter.planner
        sizes = list(entry_sizes(entries))
        expected = (size - first[0]) / len(sample) * SPECULATION_MARGIN
        if planner.fits_one_file(int(len(entries) * expected), int(sum(sizes) * expected), held_marks(entries)):
            return None
        return cls(planner, planner.boundary_threshold(planner.average_to_overflow(sizes)))

    def add(self, sizes: list[int], marks: int) -> None:
        """A block's entries, in order: raises :class:`_Mispredicted` once they
        stop fitting one file under another rule than the one predicted."""
        if self.settled:
            return
        self.sizes += sizes
        self.size += sum(sizes)
        self.marks |= marks
        if self.planner.fits_one_file(len(self.sizes), self.size, self.marks):
            return
        self.settled = True
        threshold = self.planner.boundary_threshold(self.planner.average_to_overflow(self.sizes))
        self.sizes = []
        if threshold != self.threshold:
            raise _Mispredicted

    def finish(self) -> None:
        if not self.settled:
            raise _Mispredicted  # the whole list fits one file


def _format_block(worker: _BlockWorker, task: bytes | tuple[int, int]):
    """A block's entries, while the list may still fit one file."""
    result = EncodeResult()
    entries, hashes = worker.formatter.entries(_block(worker, task), result)
    return entries, hashes, result.excluded


def _write_run(worker: _BlockWorker, run: list[bytes]) -> list[SitemapFile]:
    """The shards of a run completed while formatting only."""
    return _write(worker.folder, worker.formatter.planner.shards(run))


def _write_pieces(worker: _BlockWorker, pieces: list[Piece]) -> list[SitemapFile]:
    """The shards of a run that crossed blocks, written."""
    newest = newest_written([p.newest.encode("ascii") for p in pieces if p.newest])
    body = b"".join(p.body for p in pieces)
    return _write(worker.folder, worker.formatter.planner.shards_of_body(body, sum(p.urls for p in pieces), newest))


class _InOrder:
    """What this process knows of the list, in order: the last URL listed, so that
    a line repeating it at the start of the next block is left out as the careful
    path leaves it out inside a block; and where each block starts, to name a line
    that cannot be listed."""

    def __init__(self, options: Options, source: BinaryIO, descriptor: int | None, result: EncodeResult) -> None:
        self.text = options.format == "txt"
        self.result = result
        self.descriptor = descriptor
        name = getattr(source, "name", None)
        self.name = name if isinstance(name, str) and not name.startswith("<") else "standard input"
        self.origin = 0
        # Lines in the blocks handed out so far (for a stream; a file is counted
        # again only when a line is bad).
        self.lines = 0
        self.last: bytes | None = None

    def first_line(self, task: bytes | tuple[int, int]) -> int | None:
        """The number of the block's first line, for a block handed over; counted
        only on error for a range of the file."""
        if not isinstance(task, bytes):
            return None
        first = self.lines + 1
        self.lines += task.count(b"\n")
        return first

    def error(self, error: _LineError, task: bytes | tuple[int, int], first: int | None) -> UrlError:
        if first is None:
            start = task[0]
            first = 1
            if start > self.origin:
                # The lines that start before `start`: the first, and one after each break.
                position, breaks = self.origin, 0
                while position < start - 1:
                    chunk = os.pread(self.descriptor, min(1 << 20, start - 1 - position), position)  # type: ignore[arg-type]
                    if not chunk:
                        break
                    breaks += chunk.count(b"\n")
                    position += len(chunk)
                first = breaks + 2
        return error.kind(f"{self.name} line {first + error.index}: {error.message}")

    def _loc(self, entry: bytes) -> bytes:
        return entry if self.text else entry[len(_URL_OPEN) : entry.index(_LOC_CLOSE)]

    def _repeat(self, entry: bytes) -> bool:
        loc = self._loc(entry)
        if loc != self.last:
            return False
        text = loc.decode("ascii")
        self.result.excluded.append(Excluded(text if self.text else unescape_xml(text), "duplicate"))
        return True

    def entries(self, entries: list[bytes], hashes: list[int]) -> tuple[list[bytes], list[int]]:
        """A block's entries, less a first one repeating the last URL listed."""
        if entries and self._repeat(entries[0]):
            entries, hashes = entries[1:], hashes[1:]
        if entries:
            self.last = self._loc(entries[-1])
        return entries, hashes

    def lead(self, lead: Piece, opens: bool, tail: Piece) -> tuple[Piece, bool]:
        """A block's lead (see _work_on_block), less a first entry repeating the
        last URL listed; the entries after it then continue the open run."""
        if lead.urls and self._repeat(lead.first_entry()):
            lead, opens = lead.without_first(), False
        last = tail if tail.urls else lead
        if last.urls:
            self.last = self._loc(last.last_entry())
        return lead, opens


def generate(source: BinaryIO, options: Options, folder: Path) -> Report:
    """``sitemapkit generate``: the sitemaps for a ``URL[<TAB>LASTMOD]`` list,
    published into ``folder`` as a whole, with everything else a build writes
    (stylesheet, gzip copy, robots.txt, report)."""
    result = EncodeResult()
    with publish.Publication(folder, options) as publication:
        files = write_url_list(source, options, publication, result)
        report = Report(excluded=result.excluded, notices=result.notices)
        return publish.finish(publication, files, result, report)


def write_url_list(
    source: BinaryIO, options: Options, target: Path | publish.Publication, result: EncodeResult
) -> list[SitemapFile]:
    """Write the sitemaps for a ``URL[<TAB>LASTMOD]`` list: shards into the
    folder, indexes staged in the publication (a folder: published at once,
    without robots.txt or the other extras :func:`generate` adds).

    Raises :class:`UrlError` naming the first line that cannot be listed (a
    lastmod that is no date, a control character, bytes that are not UTF-8)."""
    if not isinstance(target, publish.Publication):
        with publish.Publication(target, options) as publication:
            files = write_url_list(source, options, publication, result)
            publication.commit([f.name for f in files] if result.entry_points else None)
            return files
    publication = target
    folder = publication.folder
    formatter = BlockFormatter(options)
    sequencer = Sequencer(formatter.planner)
    ranges = file_ranges(source)
    # Blocks, or for a file the ranges each process reads its blocks from.
    blocks: Iterator = read_blocks(source) if ranges is None else ranges
    descriptor = None if ranges is None else source.fileno()
    in_order = _InOrder(options, source, descriptor, result)
    # Shard files written (lists) or being written (tasks giving lists), in site order.
    ordered: list = []
    pool: workers.Workers | None = None
    try:
        first = next(blocks, None)
        second = None if first is None else next(blocks, None)
        if ranges is not None and first is not None:
            in_order.origin = first[0]
        if not workers.pool_pays(2 if second is not None else 1, least=workers.POOL_FROM_BLOCKS):
            # Most lists are one block: no processes for them.
            if first is not None:
                block = first if ranges is None else read_lines(descriptor, *first)  # type: ignore[arg-type]
                try:
                    entries = formatter.entries(block, result)
                except _LineError as error:
                    raise in_order.error(error, first, 1) from None
                ordered.append(_write(folder, sequencer.feed(*entries)))
        else:
            # Before the fork: the sample's formatting compiles the patterns
            # every worker then has, instead of each compiling them while the
            # others wait for their first block.
            speculation = None if ranges is None else _Speculation.of_file(formatter, descriptor, first)  # type: ignore[arg-type]
            if speculation is not None:
                sequencer.single = False
                formatter.planner.threshold = speculation.threshold
            count = workers.worker_count()
            # A block is big: one a process ahead, and one more, keep them busy.
            pool = workers.Workers(_block_worker, (options, str(folder), descriptor), count, ahead=count + 1)
            excluded = len(result.excluded)
            try:
                _work_in_pool(itertools.chain([first, second], blocks), pool, sequencer, in_order, ordered, speculation)
            except _Mispredicted:
                # Again from the start, without speculating: the shards written
                # so far are named by their content and named by no index, so
                # the publication removes them.
                del result.excluded[excluded:]
                sequencer = Sequencer(formatter.planner)
                in_order = _InOrder(options, source, descriptor, result)
                in_order.origin = first[0]  # type: ignore[index]
                ordered = []
                _work_in_pool(file_ranges(source), pool, sequencer, in_order, ordered, None)  # type: ignore[arg-type]
        written = [
            f for part in ordered for f in (pool.result(part) if pool and isinstance(part, workers.Task) else part)
        ]
        sequencer.shards = list(written)
        written += publication.write(closing_files(sequencer, options, formatter.scope, result))
    except UnicodeDecodeError as error:
        raise UrlError(f"the URL list is not UTF-8 text ({error.reason} at byte {error.start} of a block)") from None
    finally:
        if pool is not None:
            pool.close()
    return written


def _work_in_pool(
    blocks: Iterator,
    pool: workers.Workers,
    sequencer: Sequencer,
    in_order: _InOrder,
    ordered: list,
    speculation: _Speculation | None = None,
) -> None:
    """Hand the blocks to the pool; collect their shards into ``ordered``.

    While the list may still fit one file, workers only format, and this process
    keeps the entries; once it cannot, workers also cut, compress and write the
    shards inside their block, and this process joins the runs that straddle two
    blocks (a worker writes those too), so that it only reads, hands out and
    keeps count.
    """
    result = in_order.result
    # The run open across blocks once workers cut shards: pieces from each block.
    open_run: list[Piece] = []

    def take(kind, handed: workers.Task, task, first_line: int | None) -> None:
        nonlocal open_run
        try:
            outcome = pool.result(handed)
        except _LineError as error:
            raise in_order.error(error, task, first_line) from None
        if kind is _format_block:
            entries, hashes, excluded = outcome
            result.excluded.extend(excluded)
            # Runs go out as entries: rendering them here would hold a whole
            # file's worth of bytes twice.
            for run in sequencer.feed_runs(*in_order.entries(entries, hashes)):
                ordered.append(pool.submit(_write_run, run))
            return
        lead, opens, bounded, inner, tail, excluded, sizes, marks = outcome
        result.excluded.extend(excluded)
        urls = lead.urls
        lead, opens = in_order.lead(lead, opens, tail)
        if speculation is not None and sizes is not None:
            speculation.add(sizes[urls - lead.urls :], marks)
        if sequencer.run:
            # The run the formatting phase left open.
            open_run.append(Piece.of_entries(sequencer.run))
            sequencer.run = []
        if opens:
            # The block's first entry is a boundary: the open run ends before it.
            if any(piece.urls for piece in open_run):
                ordered.append(pool.submit(_write_pieces, open_run))
            open_run = []
        open_run.append(lead)
        if not bounded:
            return
        if any(piece.urls for piece in open_run):
            ordered.append(pool.submit(_write_pieces, open_run))
        ordered.append(inner)
        open_run = [tail]

    pending: collections.deque = collections.deque()
    for block in blocks:
        first_line = in_order.first_line(block)
        if sequencer.single:
            pending.append((_format_block, pool.submit(_format_block, block), block, first_line))
        else:
            sizes_wanted = speculation is not None and not speculation.settled
            handed = pool.submit(_work_on_block, block, sequencer.planner.threshold, sizes_wanted)
            pending.append((_work_on_block, handed, block, first_line))
        # Results are taken in order, a few blocks behind the newest handed out.
        while len(pending) > pool.ahead:
            take(*pending.popleft())
    while pending:
        take(*pending.popleft())
    if speculation is not None:
        speculation.finish()
    if any(piece.urls for piece in open_run):
        ordered.append(pool.submit(_write_pieces, open_run))
