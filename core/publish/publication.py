"""The one module that writes files: atomic, deterministic, inside the output folder.

A sitemap is a set of files, published as a whole (:class:`Publication`): at
every instant a crawler reading the folder from its entry point finds the complete
old set or the complete new one. Shards are named by their content (see
:mod:`~sitemapkit.protocol.filenames`), so a new shard never lands on a name
the published index uses; they are written first, the files that point at them
(index, robots.txt) are staged under temporary names and renamed into place last,
and only then is what the new set no longer names removed. A run that fails or is
killed before that switch leaves the published set as it was; the next run
removes what it left behind. gzip members carry no timestamp and no file name, so
the same input gives the same bytes.
"""

from __future__ import annotations

import errno
import itertools
import os
import re
import struct
import zlib
from collections.abc import Callable, Iterable
from pathlib import Path

from ..protocol import deflate
from ..protocol.encoder import FALLBACK_CSS_NAME, STYLESHEET_NAME, EncodeResult, SitemapFile
from ..protocol.errors import ConfigError, OutputError
from ..protocol.filenames import content_index_name, index_name, own_file_pattern
from ..protocol.hostsettings import is_local_address
from ..protocol.indexnow import key_file_name
from ..protocol.model import Notice, Options, Report
from ..protocol.patterns import deferred
from ..protocol.robots import decode_robots_txt

try:
    import fcntl
except ImportError:  # not on a POSIX system: runs are not serialised there
    fcntl = None  # type: ignore[assignment]


# One below the level gzip(1) and zlib use by default (6): on sitemaps, whose
# locs repeat a few long prefixes, zlib's level 5 writes within a third of a
# percent of level 6's bytes in four fifths of the time, and zlib-ng's level 5
# fewer bytes than zlib's level 6.
GZIP_LEVEL = 5
# RFC 1952 member header: magic, CM=deflate, no flags, MTIME=0 (none), XFL=0,
# OS=255 (unknown), so the bytes do not depend on the clock or the platform.
_GZIP_HEADER = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"


def gzip_bytes(data: bytes, level: int = GZIP_LEVEL, crc: int | None = None) -> bytes:
    """One deterministic gzip member holding ``data`` (``crc``: its crc32, when known)."""
    # zlib-ng's deflate with the `fast` extra (see protocol.deflate).
    compressor = deflate.library.compressobj(level, zlib.DEFLATED, -zlib.MAX_WBITS)
    body = compressor.compress(data) + compressor.flush()
    crc = deflate.crc32(data) if crc is None else crc
    return _GZIP_HEADER + body + struct.pack("<II", crc, len(data) & 0xFFFFFFFF)


ROBOTS_TXT = "robots.txt"
#: Held (flock) by the run that writes into a folder; removed when it ends.
LOCK_NAME = ".sitemapkit.lock"
# A temporary file is named ".NAME." + eight characters of this alphabet + ".tmp"
# (the shape tempfile.mkstemp gives, made here without importing tempfile, whose
# imports cost more than writing a small sitemap).
_TEMPORARY_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789_"
_TEMPORARY_LETTERS = 8
# Names tried before giving up: a clash needs a folder full of temporary files.
_TEMPORARY_TRIES = 100
_TEMPORARY_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
_TEMPORARY = deferred(rf"\.(.+)\.[{re.escape(_TEMPORARY_ALPHABET)}]{{{_TEMPORARY_LETTERS}}}\.tmp\Z")

#: Called before every file operation with the operation (``write``, ``rename``,
#: ``remove``) and the file name; None in normal runs. Tests set it to stop a run
#: between any two file operations (a fault, a full disk, a kill).
fault_hook: Callable[[str, str], None] | None = None


def _step(operation: str, name: str) -> None:
    if fault_hook is not None:
        fault_hook(operation, name)


def _cannot(path: Path, error: OSError) -> OutputError:
    """One line naming the file the user knows, never the temporary one."""
    what = "it is a folder" if isinstance(error, IsADirectoryError) else (error.strerror or str(error))
    return OutputError(f"cannot write {str(path)!r}: {what}")


def _write_temporary(folder: Path, name: str, data: bytes) -> str:
    """``data`` in a new temporary file beside ``folder/name``; its path."""
    if "/" in name or "\\" in name or name in ("", ".", ".."):
        raise OutputError(f"refusing to write {name!r}: not a plain file name")
    fd, tmp = _create_temporary(folder, name)
    try:
        try:
            _step("write", name)
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            # Published files are readable by all, whatever the umask.
            if hasattr(os, "fchmod"):
                os.fchmod(fd, 0o644)
            else:
                os.chmod(tmp, 0o644)
        finally:
            os.close(fd)
    except BaseException as error:
        _unlink(tmp)
        if isinstance(error, OSError):
            raise _cannot(Path(folder) / name, error) from None
        raise
    return tmp


def _create_temporary(folder: Path, name: str) -> tuple[int, str]:
    """A new file beside ``folder/name``, open for writing, readable by its owner
    only until it is written; its descriptor and path."""
    for _ in range(_TEMPORARY_TRIES):
        letters = "".join(
            _TEMPORARY_ALPHABET[byte % len(_TEMPORARY_ALPHABET)] for byte in os.urandom(_TEMPORARY_LETTERS)
        )
        tmp = os.path.join(folder, f".{name}.{letters}.tmp")
        try:
            return os.open(tmp, _TEMPORARY_FLAGS, 0o600), tmp
        except FileExistsError:
            continue
        except OSError as error:
            raise _cannot(Path(folder) / name, error) from None
    raise _cannot(Path(folder) / name, FileExistsError(errno.EEXIST, "no free temporary name"))


def _rename(tmp: str, folder: Path, name: str) -> None:
    try:
        _step("rename", name)
        os.replace(tmp, Path(folder) / name)
    except BaseException as error:
        _unlink(tmp)
        if isinstance(error, OSError):
            raise _cannot(Path(folder) / name, error) from None
        raise


def _unlink(path: str | Path) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def atomic_write(folder: Path, name: str, data: bytes) -> None:
    """Write ``folder/name`` through a temporary file and a rename."""
    _rename(_write_temporary(folder, name, data), folder, name)


def write_shard(folder: Path, item: SitemapFile) -> SitemapFile:
    """Write one shard under its final name; return it without its data.

    A shard's name is made from its content, so a file of that name holds these
    bytes already: it is left as it is (not compressed or written again). Worker
    processes call this; nothing a published index names is changed by it.
    """
    path = Path(folder) / item.name
    if not path.is_file():
        atomic_write(folder, item.name, gzip_bytes(item.data, crc=item.crc) if item.gzip else item.data)
    return SitemapFile(item.name, b"", item.kind, item.count, item.lastmod, item.gzip, item.crc)


def remove_stale(folder: Path, filename: str, keep: Iterable[str], entry_points: Iterable[str] = ()) -> list[str]:
    """Delete shards and extra indexes an earlier build left that this one did not
    write. Only names sitemapkit's naming produces are touched, and the
    ``entry_points`` this set does not use (a text sitemap's ``sitemap.txt``
    when it now has an index, and the other way round, with their gzip copies):
    those first, then the extra indexes, so no index is left pointing at
    removed shards."""
    pattern = own_file_pattern(filename)
    keep = set(keep)
    removed = []
    stale_entries = [name for name in entry_points if name not in keep]
    # Indexes before shards, so that no index is left naming a removed shard.
    index = filename.rpartition(".")[0] + "-index-"
    for entry in stale_entries + sorted(os.listdir(folder), key=lambda name: (not name.startswith(index), name)):
        if entry not in keep and (entry in stale_entries or pattern.match(entry)) and (Path(folder) / entry).is_file():
            _step("remove", entry)
            os.unlink(Path(folder) / entry)
            removed.append(entry)
    return removed


def remove_files(folder: Path, names: Iterable[str]) -> list[str]:
    """Delete the plain files ``names`` of ``folder`` that exist; return those removed."""
    removed = []
    for name in names:
        path = Path(folder) / name
        if "/" not in name and path.is_file():
            _step("remove", name)
            os.unlink(path)
            removed.append(name)
    return removed


def entry_names(options: Options) -> list[str]:
    """The fixed names of the entry point: the one the user names, and the index
    a text sitemap gets when it needs one."""
    return list(dict.fromkeys([options.filename, index_name(options.filename, 1)]))


def index_names(options: Options) -> list[str]:
    """:func:`entry_names` and their gzip copies (written with ``gzip_copy``, and
    rewritten whenever one is there: an older one would describe an older site)."""
    names = entry_names(options)
    return names + [name + ".gz" for name in names]


def key_file(options: Options) -> str | None:
    """The IndexNow key file the run writes (``indexnow_key``), or None."""
    return key_file_name(options.indexnow_key) if options.indexnow_key else None


def check_names(options: Options) -> None:
    """The files one run writes never share a name: ``filename`` and
    ``report_file`` may name neither robots.txt, a shard, the stylesheet files,
    the entry point, the IndexNow key file nor each other. Raised before anything
    is written."""
    reserved = {ROBOTS_TXT: "robots.txt", STYLESHEET_NAME: "the stylesheet", FALLBACK_CSS_NAME: "the stylesheet"}
    key = key_file(options)
    if key is not None:
        reserved[key] = "the IndexNow key file (indexnow_key)"
    if options.filename in reserved:
        raise ConfigError(
            "filename", f"{options.filename!r} is {reserved[options.filename]}, which a sitemap may not replace"
        )
    if options.report_file is None:
        return
    own = own_file_pattern(options.filename)
    taken = {**reserved, **{name: "the sitemap's own name" for name in index_names(options)}}
    if options.report_file in taken or own.match(options.report_file):
        what = taken.get(options.report_file, "the name of a sitemap shard")
        raise ConfigError("report_file", f"{options.report_file!r} is {what}; choose another name for the report")


def _template_dir(options: Options) -> Path | None:
    return Path(options.stylesheet_template) if options.stylesheet_template else None


class _FolderLock:
    """An flock on LOCK_NAME in the folder: one run at a time per folder."""

    def __init__(self, folder: Path) -> None:
        self.path = Path(folder) / LOCK_NAME
        self.fd: int | None = None

    def acquire(self) -> None:
        if fcntl is None:
            return
        while True:
            try:
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
            except OSError as error:
                raise _cannot(self.path, error) from None
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as error:
                os.close(fd)
                if error.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                    raise OutputError(
                        f"another sitemapkit run is writing into {str(self.path.parent)!r} "
                        f"(it holds {LOCK_NAME}); run again when it has finished"
                    ) from None
                raise _cannot(self.path, error) from None
            # The run that held it removes the file before it unlocks: a lock on a
            # file no longer at this path locks nothing.
            try:
                same = os.path.samestat(os.fstat(fd), os.stat(self.path))
            except FileNotFoundError:
                same = False
            if same:
                self.fd = fd
                return
            os.close(fd)

    def release(self) -> None:
        if self.fd is not None:
            _unlink(self.path)
            os.close(self.fd)
            self.fd = None


def _switch_order(name: str, options: Options, robots_first: bool = False) -> int:
    """When a staged file is renamed into place: the numbered extra indexes, then
    the entry point (the switch: until then nothing published has changed), its
    gzip copy and the stylesheet files (the browser view of the new set),
    robots.txt (which names the entry points), the report last. The IndexNow
    key file goes with the browser view: a run stopped before the switch leaves
    the key published before as it was.

    A file is renamed only once every file it names holds its final bytes.
    ``robots_first``: robots.txt names none of the staged files (only indexes
    named by their content, written already, see :func:`finish`), so it goes
    first: it is the switch, and the entry point, the first index alone, follows
    it. Renamed after the entry point, it would for a moment name the new first
    index and an old set's other indexes, or only the first."""
    if name == ROBOTS_TXT:
        return 0 if robots_first else 4
    if name in entry_names(options):
        return 2
    if name in index_names(options) or name in (STYLESHEET_NAME, FALLBACK_CSS_NAME, key_file(options)):
        return 3
    if name == options.report_file:
        return 5
    return 1  # extra indexes


class Publication:
    """One run's files in one output folder, published as a whole.

    ``with Publication(folder, options) as publication:`` checks the names, takes
    the folder's lock (or stops with one line when another run holds it), removes
    the temporary files a killed run left, and reads robots.txt. Shards are
    written under their final (content) names at once; every other file is staged
    under a temporary name. :meth:`commit` renames the staged files into place,
    each once every file it names holds its final bytes (the entry point before
    robots.txt, or robots.txt first when it names several indexes, see
    :func:`_switch_order`), then removes the files the new set no longer names.
    Leaving the block without a commit (an error, an interrupt) removes what
    this run wrote, so the published set stays as it was.
    """

    def __init__(self, folder: Path | str, options: Options, *, read_robots: bool = False) -> None:
        self.folder = Path(folder)
        self.options = options
        self.writes_robots = bool(options.robots_txt or (options.robots_txt is None and options.at_host_root))
        # Read only when used (written, or ``read_robots``: its rules are
        # applied): a robots.txt sitemapkit cannot read stops the run, before
        # anything is written, only if the run needs it.
        self._read_robots = self.writes_robots or read_robots
        self.robots_text: str | None = None
        self._lock = _FolderLock(self.folder)
        self._staged: dict[str, str] = {}  # name -> temporary path
        self._before: set[str] = set()
        self._committed = False

    def __enter__(self) -> Publication:
        check_names(self.options)
        if self.options.stylesheet:
            # Jinja2 only when asked for. A bad template fails here, before
            # anything is written.
            from .stylesheet import render_stylesheet

            render_stylesheet(_template_dir(self.options))
        if not self.folder.is_dir():
            raise OutputError(f"output folder {str(self.folder)!r} does not exist")
        for name in [*index_names(self.options), ROBOTS_TXT, self.options.report_file, key_file(self.options)]:
            if name is not None and (self.folder / name).is_dir() and not (self.folder / name).is_symlink():
                raise OutputError(f"{str(self.folder / name)!r} is a folder; sitemapkit writes a file there")
        self._lock.acquire()
        try:
            own = own_file_pattern(self.options.filename)
            ours = {
                *index_names(self.options),
                ROBOTS_TXT,
                STYLESHEET_NAME,
                FALLBACK_CSS_NAME,
                self.options.report_file,
                key_file(self.options),
            }
            for entry in sorted(os.listdir(self.folder)):
                temporary = _TEMPORARY.match(entry)
                if temporary and (temporary.group(1) in ours or own.match(temporary.group(1))):
                    _step("remove", entry)
                    _unlink(self.folder / entry)  # left by a run that was killed
                elif own.match(entry):
                    self._before.add(entry)
            if self._read_robots:
                self.robots_text = _read_robots_txt(self.folder / ROBOTS_TXT)
        except BaseException:
            self._lock.release()
            raise
        return self

    def __exit__(self, exc_type, exc, traceback) -> None:
        try:
            self._roll_back()  # nothing left to do after a commit
        finally:
            self._lock.release()

    def _roll_back(self) -> None:
        for tmp in self._staged.values():
            _unlink(tmp)
        self._staged.clear()
        if self._committed:
            return
        own = own_file_pattern(self.options.filename)
        for entry in os.listdir(self.folder):
            if own.match(entry) and entry not in self._before:
                _unlink(self.folder / entry)

    def stage(self, name: str, data: bytes) -> None:
        """``data`` to be renamed to ``name`` at :meth:`commit`."""
        if name in self._staged:
            _unlink(self._staged.pop(name))
        self._staged[name] = _write_temporary(self.folder, name, data)

    def staged_bytes(self, name: str) -> bytes:
        return Path(self._staged[name]).read_bytes()

    def unstage(self, name: str) -> None:
        _unlink(self._staged.pop(name))

    def add(self, item: SitemapFile) -> SitemapFile:
        """Write a shard now, or stage an index or a whole single sitemap."""
        if item.kind == "sitemapindex" or item.name in index_names(self.options):
            self.stage(item.name, item.data)
            return SitemapFile(item.name, b"", item.kind, item.count, item.lastmod, item.gzip, item.crc)
        return write_shard(self.folder, item)

    def write(self, files: Iterable[SitemapFile]) -> list[SitemapFile]:
        """:meth:`add` every file of ``files``; return them without their data.

        Compression and writing run on a second thread while the next shard is
        being formatted: zlib releases the GIL, so both cores work. At most two
        shards wait at once, which keeps memory flat however many URLs there are.
        """
        files = iter(files)
        first = list(itertools.islice(files, 2))
        if len(first) < 2:
            # Most sites are one file: no thread (nor its imports) for it.
            return [self.add(item) for item in first]
        import concurrent.futures

        written: list[SitemapFile] = []
        pending: list[concurrent.futures.Future] = []
        # Leaving the pool waits for what is being written, failed or not, so a
        # roll-back sees every file this run wrote.
        with concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="sitemapkit-write") as pool:
            for item in itertools.chain(first, files):
                while len(pending) >= 2:
                    written.append(pending.pop(0).result())
                pending.append(pool.submit(self.add, item))
            written += [future.result() for future in pending]
        return written

    def commit(self, keep: Iterable[str] | None, *, robots_first: bool = False) -> list[str]:
        """Rename the staged files into place (in :func:`_switch_order`), then
        remove the shards and extra indexes not in ``keep`` (nothing when ``keep``
        is None); the removed names."""
        for name in sorted(self._staged, key=lambda n: _switch_order(n, self.options, robots_first)):
            _rename(self._staged.pop(name), self.folder, name)
            # Switched: what the published files name must stay, even if a later
            # step fails.
            self._committed = True
        self._committed = True
        if keep is None:
            return []
        # A text sitemap's entry point is sitemap.txt alone, or the index
        # sitemap.xml: the other one goes, and its gzip copy with it (a copy of a
        # stale index would name removed shards).
        entries = index_names(self.options) if self.options.format == "txt" else []
        return remove_stale(self.folder, self.options.filename, keep, entries)


def finish(publication: Publication, files: list[SitemapFile], result: EncodeResult, report: Report) -> Report:
    """The end of every run, ``build`` and ``generate`` alike: the stylesheet
    files, the gzip copy of the entry point, robots.txt and the report file are
    staged beside the sitemap ``files`` (shards written, indexes staged), then
    the whole set is switched into place and what it no longer names removed.

    With nothing to list, the sitemap published earlier (if any) is left as it
    was, with a warning: an empty result is more often a mistake (a filter that
    drops everything, an empty input) than a site without pages, and no valid
    sitemap lists nothing.
    """
    from ..protocol.robots import merge_sitemap_lines
    from ..protocol.urls import Scope

    options = publication.options
    folder = publication.folder
    scope = Scope(options.base_url)
    key = key_file(options)
    if key is not None:
        # Staged with the set, so the deploy that publishes these sitemaps
        # publishes the key `sitemapkit indexnow` proves the site with. IndexNow:
        # the file holds the key, "UTF-8 encoded", and nothing else.
        publication.stage(key, str(options.indexnow_key).encode("utf-8"))
    report.urls = result.urls
    report.images = result.images
    report.image_hosts = dict(sorted(result.image_hosts.items()))
    report.images_cut = list(result.images_cut)
    report.images_unwritten = result.images_unwritten
    names = [f.name for f in files]
    entry_points = list(result.entry_points)
    robots_txt = publication.writes_robots
    several = len(entry_points) > 1 and robots_txt
    if several:
        # Several indexes (an index may not list indexes): robots.txt is the one
        # file naming them all, so it is the switch. Each is written under a name
        # made from its content, as shards are, before anything is switched, and
        # robots.txt, renamed first (see _switch_order), names the new ones; the
        # entry point then takes the first index's bytes.
        for number, name in enumerate(entry_points):
            data = publication.staged_bytes(name)
            entry_points[number] = content_index_name(options.filename, data)
            if not (folder / entry_points[number]).is_file():
                atomic_write(folder, entry_points[number], data)
            if name != result.entry_points[0]:
                publication.unstage(name)
                names.remove(name)
        names += entry_points
    if not entry_points:
        if (folder / options.filename).is_file():
            report.notices.append(
                Notice(
                    "empty",
                    f"no page to list: the sitemap published earlier ({options.filename}) was left as it was; "
                    "delete it if the site has no pages to list",
                )
            )
        else:
            report.notices.append(Notice("empty", "no page to list, so no sitemap was written"))
        report.files = [key] if key is not None else []
        if options.report_file:
            publication.stage(options.report_file, report.details().encode("utf-8"))
        publication.commit(None)
        return report
    # Of the entry point: the file named `filename`, or a text sitemap's index. A
    # copy another generator (MkDocs' themes) or an earlier run left would
    # describe an older site: it is rewritten from the new entry point.
    entry = result.entry_points[0]
    if options.gzip_copy or (folder / (entry + ".gz")).is_file():
        publication.stage(entry + ".gz", gzip_bytes(publication.staged_bytes(entry)))
        names.append(entry + ".gz")
    if options.stylesheet:
        from .stylesheet import render_fallback_css, render_stylesheet

        template_dir = _template_dir(options)
        counts = {scope.prefix + f.name: f.count for f in files if f.kind in ("urlset", "text")}
        images = {scope.prefix + f.name: f.images for f in files if f.kind == "urlset"}
        publication.stage(STYLESHEET_NAME, render_stylesheet(template_dir, url_counts=counts, image_counts=images))
        publication.stage(FALLBACK_CSS_NAME, render_fallback_css(template_dir))
        names += [STYLESHEET_NAME, FALLBACK_CSS_NAME]
    if key is not None:
        names.append(key)
    report.files = sorted(names, key=lambda n: (n not in entry_points and n not in result.entry_points, n))

    sitemap_urls = [scope.prefix + name for name in entry_points]
    if robots_txt:
        own = own_file_pattern(options.filename)

        entries = entry_names(options)

        def owned(url: str) -> bool:
            return url.startswith(scope.prefix) and (
                url[len(scope.prefix) :] in entries or bool(own.match(url[len(scope.prefix) :]))
            )

        robots_text = publication.robots_text
        merged = merge_sitemap_lines(robots_text, sitemap_urls, owned)
        if merged != robots_text:
            publication.stage(ROBOTS_TXT, merged.encode("utf-8"))
        report.files.append(ROBOTS_TXT)
    elif options.robots_txt is None and not is_local_address(options.base_url):
        # A robots.txt below the host root is never read by crawlers: say what to
        # add (not for a preview on this machine, which publishes nothing).
        report.advice.append(
            "robots.txt is read only at the host root; add "
            + " and ".join(f"'Sitemap: {url}'" for url in sitemap_urls)
            + " to it"
        )
    if options.report_file:
        publication.stage(options.report_file, report.details().encode("utf-8"))
    publication.commit(names, robots_first=several)
    return report


def _read_robots_txt(path: Path) -> str | None:
    """The robots.txt at ``path`` as :func:`decode_robots_txt` reads it, or None
    when there is none."""
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        return None
    return decode_robots_txt(data, str(path))
