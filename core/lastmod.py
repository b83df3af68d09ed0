"""Each source file's last change: one git pass, or file times; never a lie.

Search engines trust ``<lastmod>`` only while it stays accurate, and the usual
sources lie in three ways: the build date on every page, one commit date on every
page of a shallow CI clone, and checkout (or 1970) file times on CI and Nix. This
module returns a date only when it is the real last change, and ``None`` (omit
``<lastmod>``) with one :class:`Notice` saying how to fix it otherwise.

Front-matter dates and W3C Datetime are :mod:`sitemapkit.dates`' business.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO

from .errors import ConfigError
from .model import LASTMOD_SOURCES, Notice

__all__ = ["NOTICE_CODE", "LastmodResult", "resolve_lastmods"]

#: The code of every notice this module gives (Sphinx: ``sitemapkit.lastmod``).
NOTICE_CODE = "lastmod"

# No real page was last edited before 1980: times earlier than this come from tools
# that reset them (Nix sets 1970-01-01T00:00:01, zip cannot store earlier dates).
_EARLIEST_TRUE_MTIME = int(dt.datetime(1980, 1, 1, tzinfo=dt.timezone.utc).timestamp())

# A checkout or an unpacked archive writes every file within a moment, which may
# straddle a second boundary: file times at most this many whole seconds apart
# count as one moment ("flat"), not as real edits.
_FLAT_SPAN_SECONDS = 1

# Notices name a few affected files so users can check; the full list would drown
# the log on a big site.
_EXAMPLES = 3

_UTC = dt.timezone.utc


@dataclasses.dataclass
class LastmodResult:
    #: Every path asked for -> its last change (UTC, timezone-aware) or None (unknown
    #: or untrustworthy: omit lastmod).
    dates: dict[Path, dt.datetime | None]
    notices: list[Notice] = dataclasses.field(default_factory=list)


def resolve_lastmods(sources: Iterable[Path], mode: str = "auto", *, page_dates: str | None = None) -> LastmodResult:
    """Last change of each source file, by ``mode`` (auto | git | mtime | none).

    ``git`` takes the last commit that changed the file (one ``git log`` pass for
    all files, following pure renames); files that git does not track, that have
    uncommitted changes or lie outside the repository get their file time.
    ``auto`` is ``git`` when the sources are in a git work tree and git is
    installed, else ``mtime``. Untrustworthy dates (shallow history, flat or
    pre-1980 file times) come back as ``None``, with one notice per cause; the
    notice offers ``page_dates`` (how the caller's pages state a date of their
    own, in its terms) where it is given. ``git`` where git cannot be asked (no
    work tree, git not installed) is a :class:`ConfigError`.
    """
    if mode not in LASTMOD_SOURCES:
        raise ConfigError("lastmod", f"{mode!r} is not one of {', '.join(LASTMOD_SOURCES)}")
    # dict.fromkeys: the same path given twice is resolved once, in first-seen order.
    paths = list(dict.fromkeys(Path(p) for p in sources))
    if mode == "none" or not paths:
        return LastmodResult({p: None for p in paths})

    dates: dict[Path, dt.datetime | None] = {}
    notices: list[Notice] = []
    use_mtime = paths
    if mode in ("auto", "git"):
        outcome = _git_dates(paths, explicit=(mode == "git"))
        dates.update(outcome.dates)
        notices.extend(outcome.notices)
        use_mtime = outcome.use_mtime
    mtimes, mtime_notice = _file_times(use_mtime, page_dates)
    dates.update(mtimes)
    if mtime_notice:
        notices.append(mtime_notice)
    # Callers get their paths back in the order they gave them.
    return LastmodResult({p: dates.get(p) for p in paths}, notices)


# ---- git -------------------------------------------------------------------------


@dataclasses.dataclass
class _GitOutcome:
    #: Paths git settled: a commit time, or None when the history cannot tell.
    dates: dict[Path, dt.datetime | None]
    #: Paths that get their file time (untracked, uncommitted, outside the repo).
    use_mtime: list[Path]
    notices: list[Notice]


@dataclasses.dataclass
class _Repo:
    top: str
    shallow_commits: frozenset[bytes] | None  # None: not a shallow clone


# git >= 2.35.2 refuses repositories another user owns (CVE-2022-24765); LC_ALL=C
# keeps this wording.
_DUBIOUS_OWNERSHIP = re.compile(r"dubious ownership in repository at '(?P<top>[^\n]*)'")


class _GitRefused(Exception):
    """git ran but would not answer; the message says why, in git's words."""


def _git_env() -> dict[str, str]:
    env = dict(os.environ)
    # Reading history must never prompt for credentials nor, in a partial clone,
    # download objects; and git's own messages are matched in English below.
    env.update(GIT_TERMINAL_PROMPT="0", GIT_NO_LAZY_FETCH="1", GIT_OPTIONAL_LOCKS="0", LC_ALL="C")
    return env


def _run_git(args: list[str], cwd: str) -> bytes:
    done = subprocess.run(
        ["git", *args], cwd=cwd, env=_git_env(), stdin=subprocess.DEVNULL, capture_output=True, check=False
    )
    if done.returncode != 0:
        raise _GitRefused(done.stderr.decode("utf-8", "replace").strip() or f"git {args[0]} failed")
    return done.stdout


def _git_dates(paths: list[Path], *, explicit: bool) -> _GitOutcome:
    folders: dict[str, str] = {}  # one realpath per folder, not per file
    located = {p: _locate(p, folders) for p in paths}
    start = _existing_common_dir(list(located.values()))
    if start is None:
        return _GitOutcome({}, paths, [])
    if shutil.which("git") is None:
        if explicit:
            raise ConfigError("lastmod", "'git' asks for git dates, but git is not installed")
        return _GitOutcome({}, paths, [])
    try:
        repo = _find_repo(start)
    except _GitRefused as refusal:
        return _git_refused(paths, str(refusal), explicit=explicit)
    if repo is None:
        if explicit:
            raise ConfigError("lastmod", f"'git' asks for git dates, but {start} is not in a git work tree")
        return _GitOutcome({}, paths, [])

    # Repository-relative names as git prints them: bytes with "/" separators.
    top_prefix = repo.top.rstrip(os.sep) + os.sep
    in_repo: dict[Path, bytes] = {}
    for path, where in located.items():
        if where.startswith(top_prefix):
            in_repo[path] = os.fsencode(where[len(top_prefix) :].replace(os.sep, "/"))
    outside = [p for p in paths if p not in in_repo]
    if not in_repo:
        return _GitOutcome({}, paths, [])

    scope = os.path.relpath(start, repo.top) if start != repo.top else "."
    try:
        tracked = _tracked_files(repo.top, scope)
        dirty = _uncommitted_files(repo.top, scope)
        wanted: dict[bytes, list[Path]] = {}
        use_mtime = list(outside)
        for path, name in in_repo.items():
            if name in tracked and name not in dirty:
                wanted.setdefault(name, []).append(path)
            else:
                use_mtime.append(path)
        commit_times, cut_short = _last_commits(repo, wanted) if wanted else ({}, [])
    except _GitRefused as refusal:
        # These files are in a checkout whose history git could not read (a damaged
        # or partial clone): their file times are likely the checkout's, so omit.
        reason = str(refusal).splitlines()[0]
        return _GitOutcome(
            {p: None for p in in_repo},
            outside,
            [
                _notice(
                    f"lastmod omitted for {_count_pages(len(in_repo))}: git could not read the "
                    f"history of {repo.top} ({reason})."
                )
            ],
        )

    dates: dict[Path, dt.datetime | None] = {}
    for name, when in commit_times.items():
        for path in wanted[name]:
            dates[path] = None if when is None else dt.datetime.fromtimestamp(when, _UTC)
    notices = []
    if cut_short:
        examples = sorted(os.fsdecode(name) for name in cut_short)
        if repo.shallow_commits is not None:
            why = "this git clone is shallow, and its history is too short to show when they last changed"
        else:
            why = "the git history does not reach back to where they were created"
        notices.append(
            _notice(
                f"lastmod omitted for {_count_pages(len(examples))} ({_examples(examples)}): {why}. "
                "Fetch the full history: 'fetch-depth: 0' for actions/checkout in CI, or "
                "'git fetch --unshallow' locally."
            )
        )
    return _GitOutcome(dates, use_mtime, notices)


def _git_refused(paths: list[Path], why: str, *, explicit: bool) -> _GitOutcome:
    first_line = why.splitlines()[0] if why else "git failed"
    dubious = _DUBIOUS_OWNERSHIP.search(why)
    if dubious:
        # The sources are in a git checkout (git says so) owned by another user, the
        # usual state in CI containers: their file times are the checkout time, so
        # the only true answer is none. safe.directory must name the top folder,
        # which git tells in its message.
        top = dubious.group("top")
        return _GitOutcome(
            {p: None for p in paths},
            [],
            [
                _notice(
                    f"lastmod omitted for {_count_pages(len(paths))}: git refuses to read the "
                    f"repository at {top} because another user owns it. Run "
                    f"'git config --global --add safe.directory {top}' before the build."
                )
            ],
        )
    notices = [_notice(f"lastmod: git cannot be asked ({first_line}); using file times instead.")] if explicit else []
    return _GitOutcome({}, paths, notices)


def _locate(path: Path, folders: dict[str, str]) -> str:
    # The folder is resolved (git prints its top folder with symlinks resolved) but
    # not the file: a symlink tracked in git has the symlink's own history.
    folder, name = os.path.split(os.path.abspath(path))
    if folder not in folders:
        folders[folder] = os.path.realpath(folder)
    return os.path.join(folders[folder], name)


def _existing_common_dir(locations: list[str]) -> str | None:
    try:
        common = os.path.commonpath([os.path.dirname(where) for where in locations])
    except ValueError:  # different drives on Windows: no single repository
        return None
    while not os.path.isdir(common):
        parent = os.path.dirname(common)
        if parent == common:
            return None
        common = parent
    return common


def _find_repo(start: str) -> _Repo | None:
    try:
        out = _run_git(["rev-parse", "--show-toplevel", "--is-shallow-repository", "--git-path", "shallow"], start)
    except _GitRefused as refusal:
        message = str(refusal)
        if "not a git repository" in message or "must be run in a work tree" in message:
            return None
        raise
    lines = os.fsdecode(out).splitlines()
    if len(lines) < 3:
        return None
    top, is_shallow, shallow_file = lines[0], lines[1], lines[2]
    if is_shallow != "true":
        return _Repo(top, None)
    try:
        with open(os.path.join(start, shallow_file), "rb") as handle:
            boundaries = frozenset(line.strip() for line in handle if line.strip())
    except OSError:
        # Shallow but the boundary list is unreadable: any commit may be the cut,
        # and _last_commits treats an empty set of a shallow repo as "trust none".
        boundaries = frozenset()
    return _Repo(top, boundaries)


def _tracked_files(top: str, scope: str) -> set[bytes]:
    # --literal-pathspecs: a folder named "docs[1]" is a name, not a glob.
    out = _run_git(["--literal-pathspecs", "ls-files", "-z", "--", scope], top)
    return {name for name in out.split(b"\0") if name}


def _uncommitted_files(top: str, scope: str) -> set[bytes]:
    out = _run_git(
        [
            "--literal-pathspecs",
            "status",
            "--porcelain=v1",
            "-z",
            "--untracked-files=no",
            "--ignore-submodules=all",
            "--",
            scope,
        ],
        top,
    )
    dirty: set[bytes] = set()
    entries = iter(out.split(b"\0"))
    for entry in entries:
        if len(entry) < 4:
            continue
        # "XY path"; a rename or copy is followed by its source path as one more field.
        dirty.add(entry[3:])
        if b"R" in entry[:2] or b"C" in entry[:2]:
            next(entries, None)
    return dirty


def _last_commits(repo: _Repo, wanted: dict[bytes, list[Path]]) -> tuple[dict[bytes, int | None], list[bytes]]:
    """Commit time of the last change of each wanted name, from one ``git log``.

    Returns the times (None where the history cannot tell) and the names whose
    dates were withheld because the history was cut short.
    """
    # Keys: the name as it is in the work tree. Values of `following`: the name it
    # had at the point of the history being read, which pure renames change.
    following: dict[bytes, list[bytes]] = {name: [name] for name in wanted}
    found: dict[bytes, int | None] = {}
    cut_short: list[bytes] = []
    shallow = repo.shallow_commits

    def settle(old_name: bytes, when: int | None) -> None:
        for name in following.pop(old_name):
            found[name] = when
            if when is None:
                cut_short.append(name)

    command = [
        "git",
        "-c",
        "log.showSignature=false",
        "log",
        "HEAD",
        # Merges show no file list of their own by default; skipping them says so
        # explicitly and keeps user config (log.diffMerges) out of the output.
        "--no-merges",
        # The first commit (and a shallow clone's boundary) lists every file as
        # added, whatever log.showRoot says.
        "--root",
        "--no-color",
        "--no-ext-diff",
        "--name-status",
        # Exact renames only: a pure rename (R100) is followed to the old name;
        # a rename with edits is a change either way, and exact detection compares
        # object ids, so it never reads (or, in a partial clone, downloads) a file.
        "-M100%",
        # NUL-separated names survive spaces, newlines, "&" and non-ASCII.
        "-z",
        # \x01 marks a commit line: it can never start a status letter.
        "--format=%x01%H %ct",
        "--",
    ]
    with tempfile.TemporaryFile() as errors:
        process = subprocess.Popen(
            command, cwd=repo.top, env=_git_env(), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=errors
        )
        stopped_early = False
        try:
            assert process.stdout is not None
            fields = _nul_fields(process.stdout)
            commit_time: int | None = None
            boundary = False
            for field in fields:
                field = field.lstrip(b"\n")
                if field.startswith(b"\x01"):
                    commit_id, _, stamp = field[1:].partition(b" ")
                    commit_time = int(stamp)
                    # A boundary commit of a shallow clone looks as if it created
                    # every file: its time is not the files' last change.
                    boundary = shallow is not None and (not shallow or commit_id in shallow)
                    continue
                if not field:
                    continue
                status = field[:1]
                if status in (b"R", b"C"):
                    old, new = next(fields, b""), next(fields, b"")
                    if new in following:
                        if status == b"R" and field[1:] == b"100":
                            # Not a content change: keep looking for the old name's.
                            names = following.pop(new)
                            following.setdefault(old, []).extend(names)
                        else:
                            settle(new, None if boundary else commit_time)
                else:
                    name = next(fields, b"")
                    # A deletion is skipped: a wanted file exists now, so anything
                    # deleted it was undone by a merge that kept the older content.
                    if status != b"D" and name in following:
                        settle(name, None if boundary else commit_time)
                if not following:
                    # Every file has its date: the rest of history is not needed.
                    stopped_early = True
                    break
        finally:
            if process.poll() is None:
                process.kill()
            if process.stdout is not None:
                process.stdout.close()
            returncode = process.wait()
        if not stopped_early and returncode != 0:
            errors.seek(0)
            raise _GitRefused(errors.read().decode("utf-8", "replace").strip() or "git log failed")

    # Names still unsettled were never created in the history git has: it was cut.
    for old_name in list(following):
        settle(old_name, None)
    return found, cut_short


def _nul_fields(stream: IO[bytes]) -> Iterator[bytes]:
    """The NUL-terminated fields of a stream, as they arrive."""
    rest = b""
    while chunk := stream.read1(1 << 16):  # type: ignore[attr-defined]
        fields = (rest + chunk).split(b"\0")
        rest = fields.pop()
        yield from fields
    if rest:
        yield rest


# ---- file times ------------------------------------------------------------------


def _file_times(
    paths: list[Path], page_dates: str | None = None
) -> tuple[dict[Path, dt.datetime | None], Notice | None]:
    """Modification times, withheld when they cannot be a page's real last change."""
    dates: dict[Path, dt.datetime | None] = {}
    seconds: dict[Path, int] = {}
    for path in paths:
        try:
            seconds[path] = int(os.stat(path).st_mtime)
        except OSError:
            dates[path] = None  # gone or unreadable: nothing to say about it
    plausible = [s for s in seconds.values() if s >= _EARLIEST_TRUE_MTIME]
    flat = flat_file_times(plausible)
    for path, stamp in seconds.items():
        trusted = stamp >= _EARLIEST_TRUE_MTIME and not flat
        dates[path] = dt.datetime.fromtimestamp(stamp, _UTC) if trusted else None
    if not flat and len(plausible) == len(seconds):
        return dates, None
    # Names only now: most sites have nothing to say, and naming every file costs.
    shown = _display_names(list(seconds))
    too_old = sorted(shown[p] for p, s in seconds.items() if s < _EARLIEST_TRUE_MTIME)
    flat_names = sorted(shown[p] for p, s in seconds.items() if s >= _EARLIEST_TRUE_MTIME) if flat else []
    return dates, file_times_notice(flat_names, too_old, page_dates=page_dates)


def trusted_file_time(stamp: int) -> bool:
    """Whether one file time (whole seconds) can be a real edit, before
    :func:`flat_file_times` looks at all of them together."""
    return stamp >= _EARLIEST_TRUE_MTIME


def flat_file_times(plausible: list[int]) -> bool:
    """Whether the plausible file times of a build's sources are one moment's."""
    return len(plausible) >= 2 and max(plausible) - min(plausible) <= _FLAT_SPAN_SECONDS


def file_times_notice(
    flat: list[str], too_old: list[str], flat_count: int | None = None, too_old_count: int | None = None,
    page_dates: str | None = None,
) -> Notice | None:
    """The notice for file times withheld: the names (relative to the sources'
    common folder, sorted; the first few are enough when the counts are given)
    of the sources whose times are one moment's, and of those before 1980;
    ``page_dates`` as :func:`resolve_lastmods` takes it."""
    flat_count = len(flat) if flat_count is None else flat_count
    too_old_count = len(too_old) if too_old_count is None else too_old_count
    reasons = []
    if flat_count:
        reasons.append(
            f"{_count_pages(flat_count)} ({_examples(flat, flat_count)}) all have "
            "the same file time, as after a fresh checkout or an unpacked archive"
        )
    if too_old_count:
        reasons.append(
            f"{_count_pages(too_old_count)} ({_examples(too_old, too_old_count)}) "
            f"{'has a file time' if too_old_count == 1 else 'have file times'} before 1980, "
            "as tools like Nix set them"
        )
    if not reasons:
        return None
    # Only what this user can do: pages state their own date only where the caller
    # reads one (front matter, metadata); the command line reads none.
    remedies = ["Build from a full git clone (lastmod 'auto' or 'git')", page_dates, "set lastmod to 'none'"]
    offered = [remedy for remedy in remedies if remedy]
    return _notice(
        f"lastmod omitted: {'; '.join(reasons)}, so they do not tell when a page changed. "
        f"{', '.join(offered[:-1])}, or {offered[-1]}."
    )


# ---- messages --------------------------------------------------------------------


def _notice(message: str) -> Notice:
    return Notice(NOTICE_CODE, message)


def _display_names(paths: list[Path]) -> dict[Path, str]:
    """Names relative to the files' common folder: the part a user recognises."""
    absolute = {p: os.path.abspath(p) for p in paths}
    try:
        common = os.path.commonpath([os.path.dirname(a) for a in absolute.values()])
    except ValueError:  # no common folder (different drives)
        return {p: str(p) for p in paths}
    return {p: os.path.relpath(a, common).replace(os.sep, "/") for p, a in absolute.items()}


def _count_pages(count: int) -> str:
    return f"{count} page{'s' if count != 1 else ''}"


def _examples(names: list[str], count: int | None = None) -> str:
    shown = ", ".join(names[:_EXAMPLES])
    more = (len(names) if count is None else count) - _EXAMPLES
    return f"{shown} and {more} more" if more > 0 else shown
