"""The one module that writes files: atomic, deterministic, inside the output folder.

Every file goes to a temporary name in the output folder and is renamed into place,
so a crawler or a failed build never sees half a sitemap. gzip members carry no
timestamp and no file name, so the same input gives the same bytes.
"""

from __future__ import annotations

import concurrent.futures
import os
import re
import struct
import tempfile
import zlib
from collections.abc import Iterable
from pathlib import Path

from .errors import OutputError
from .encoder import SitemapFile

try:
    # The optional `fast` extra: zlib-ng deflates the same level about 1.7 times as
    # fast, within a percent of zlib's size. Its bytes differ from zlib's, so the
    # same input gives the same bytes wherever the same library is installed.
    from zlib_ng import zlib_ng as _deflate
except ImportError:  # the standard library's zlib
    _deflate = zlib

# The level gzip(1) and zlib use by default: the usual size/speed trade-off.
GZIP_LEVEL = 6
# RFC 1952 member header: magic, CM=deflate, no flags, MTIME=0 (none), XFL=0,
# OS=255 (unknown), so the bytes do not depend on the clock or the platform.
_GZIP_HEADER = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"


def gzip_bytes(data: bytes, level: int = GZIP_LEVEL) -> bytes:
    """One deterministic gzip member holding ``data``."""
    compressor = _deflate.compressobj(level, zlib.DEFLATED, -zlib.MAX_WBITS)
    body = compressor.compress(data) + compressor.flush()
    return _GZIP_HEADER + body + struct.pack("<II", zlib.crc32(data), len(data) & 0xFFFFFFFF)


def atomic_write(folder: Path, name: str, data: bytes) -> None:
    """Write ``folder/name`` through a temporary file and a rename."""
    if "/" in name or "\\" in name or name in ("", ".", ".."):
        raise OutputError(f"refusing to write {name!r}: not a plain file name")
    fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(tmp, 0o644)
        os.replace(tmp, folder / name)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _encode_and_write(folder: Path, item: SitemapFile) -> None:
    atomic_write(folder, item.name, gzip_bytes(item.data) if item.gzip else item.data)


def write_files(folder: Path, files: Iterable[SitemapFile]) -> list[SitemapFile]:
    """Write every file of ``files`` into ``folder``; return them without their data.

    Compression and writing run on a second thread while the next shard is being
    formatted: zlib releases the GIL, so both cores work. At most two shards wait at
    once, which keeps memory flat however many URLs there are.
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise OutputError(f"output folder {str(folder)!r} does not exist")
    written: list[SitemapFile] = []
    pending: list[concurrent.futures.Future] = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="sitemapkit-write") as pool:
        for item in files:
            while len(pending) >= 2:
                pending.pop(0).result()
            pending.append(pool.submit(_encode_and_write, folder, item))
            written.append(SitemapFile(item.name, b"", item.kind, item.count, item.lastmod, item.gzip))
        for future in pending:
            future.result()
    return written


def own_file_pattern(filename: str) -> re.Pattern[str]:
    """Names that sitemapkit's own naming produces for the entry point ``filename``."""
    stem, _, ext = filename.rpartition(".")
    stem = re.escape(stem)
    return re.compile(
        rf"{stem}-[0-9a-f]{{10}}(?:-\d+)?\.(?:xml|txt)(?:\.gz)?\Z|{stem}-index-\d+\.xml\Z"
    )


def remove_stale(folder: Path, filename: str, keep: Iterable[str]) -> list[str]:
    """Delete shards and extra indexes an earlier build left that this one did not
    write. Only names sitemapkit's naming produces are touched."""
    pattern = own_file_pattern(filename)
    keep = set(keep)
    removed = []
    for entry in sorted(os.listdir(folder)):
        if entry not in keep and pattern.match(entry) and (Path(folder) / entry).is_file():
            os.unlink(Path(folder) / entry)
            removed.append(entry)
    return removed


def remove_files(folder: Path, names: Iterable[str]) -> list[str]:
    """Delete the plain files ``names`` of ``folder`` that exist; return those removed."""
    removed = []
    for name in names:
        path = Path(folder) / name
        if "/" not in name and path.is_file():
            os.unlink(path)
            removed.append(name)
    return removed


def read_text(path: Path) -> str | None:
    """A text file's content, or None when it does not exist."""
    try:
        return Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
