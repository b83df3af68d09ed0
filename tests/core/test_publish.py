"""A sitemap is a set of files, published as a whole or not at all.

Every test here reads the output folder the way a crawler does, from its entry
point (and robots.txt), with the reader ``sitemapkit check`` uses, and compares
what it finds with the complete old set and the complete new set: a run that is
killed, fails, runs out of disk or meets another run may leave one or the other,
never a mix.
"""

from __future__ import annotations

import errno
import gzip
import io
import os
import shutil
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from sitemapkit import Options, OutputError, Page, build_site
from sitemapkit.publish import publication as publish
from sitemapkit.engine import urllist
from sitemapkit.engine import workers
from sitemapkit.audit.check import check_site

from conftest import run_sitemapkit as cli_run

BASE = "https://example.org/"
NS = "{http://www.sitemaps.org/schemas/sitemap/0.9}"


# -- reading a folder as a crawler does ------------------------------------------


def _read(path: Path) -> bytes:
    data = path.read_bytes()
    return gzip.decompress(data) if path.name.endswith(".gz") else data


def _reach(folder: Path, todo: list[str]) -> dict[str, str | None]:
    """Every URL the files ``todo`` lead to (through indexes), with its lastmod.
    Fails when anything they name is missing."""
    urls: dict[str, str | None] = {}
    seen = set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        assert (folder / name).is_file(), f"{name} is named but missing"
        data = _read(folder / name)
        if name.endswith((".txt", ".txt.gz")):
            urls.update((line, None) for line in data.decode().splitlines() if line)
            continue
        root = ElementTree.fromstring(data)
        if root.tag == NS + "sitemapindex":
            todo += [loc.text.removeprefix(BASE) for loc in root.iter(NS + "loc")]
        else:
            for url in root.iter(NS + "url"):
                urls[url.findtext(NS + "loc")] = url.findtext(NS + "lastmod")
    return urls


def views(folder: Path, entry: str = "sitemap.xml") -> tuple[dict | None, dict | None, bool]:
    """What a crawler finds from robots.txt's Sitemap: lines, and from the entry
    point (None where there is nothing to start from); whether the entry point
    is an index."""
    robots = folder / "robots.txt"
    lines = []
    if robots.is_file():
        lines = [
            line.split(":", 1)[1].strip().removeprefix(BASE)
            for line in robots.read_text().splitlines()
            if line.lower().startswith("sitemap:")
        ]
    from_robots = _reach(folder, lines) if lines else None
    if not (folder / entry).is_file():
        return from_robots, None, False
    is_index = b"<sitemapindex" in _read(folder / entry)[:300]
    return from_robots, _reach(folder, [entry]), is_index


def published(folder: Path, entry: str = "sitemap.xml") -> dict[str, str | None]:
    """The set a crawler reads from robots.txt, or else from the entry point; {}
    when nothing is published."""
    from_robots, from_entry, _ = views(folder, entry)
    return from_robots if from_robots is not None else from_entry or {}


def assert_whole(folder: Path, *allowed: dict, pages: bool = False, entry: str = "sitemap.xml") -> dict:
    """From robots.txt and from the entry point alike, the folder serves exactly
    one of the ``allowed`` sets (past one index's limits the entry point is the
    first index: part of one set), and ``check`` finds no problem in it
    (``pages``: the folder holds the pages too).

    With one set allowed (a run has ended), the gzip copy of the entry point is
    a copy of it. Between their two renames, the copy may still be the old one:
    then it must serve the old set as the entry point does the new one (whole,
    or part of it when it is an index).
    """
    from_robots, from_entry, entry_is_index = views(folder, entry)
    if from_robots is not None:
        assert from_robots in allowed, (
            f"a mix from robots.txt: {len(from_robots)} URLs, expected one of {[len(a) for a in allowed]}"
        )
    if from_entry is not None:
        assert serves_one(from_entry, entry_is_index, allowed), (
            f"a mix from {entry}: {len(from_entry)} URLs, expected one of {[len(a) for a in allowed]}"
        )
    urls = published(folder, entry)
    assert urls in allowed
    if urls:
        problems = [str(p) for p in check_site(folder, BASE, entry=entry).problems]
        if not pages:  # a URL list's folder holds no pages
            problems = [p for p in problems if "has no file in the site (looked for" not in p]
        # The entry point, or the index a text sitemap gets.
        for name in {entry, entry.rpartition(".")[0] + ".xml"}:
            copy = f"{name}.gz:0: is not a copy of {name}"
            if len(allowed) > 1 and any(p.startswith(copy) for p in problems):
                copy_is_index = b"<sitemapindex" in _read(folder / (name + ".gz"))[:300]
                assert serves_one(_reach(folder, [name + ".gz"]), copy_is_index, allowed)
                problems = [p for p in problems if not p.startswith(copy)]
        assert problems == []
    if len(allowed) == 1:
        # No gzip copy outlives its entry point (a text sitemap's sitemap.xml.gz
        # once stayed when sitemap.txt replaced sitemap.xml, naming removed shards).
        for name in {entry, entry.rpartition(".")[0] + ".xml"}:
            if (folder / (name + ".gz")).is_file():
                assert _read(folder / (name + ".gz")) == (folder / name).read_bytes(), f"{name}.gz is stale"
    return urls


def serves_one(found: dict, is_index: bool, allowed: tuple[dict, ...]) -> bool:
    """An entry point serves one of the ``allowed`` sets whole, or, when it is an
    index (sitemaps.org: "a Sitemap index file can only specify Sitemaps", so the
    other indexes are entry points of their own), a part of one."""
    return found in allowed or (is_index and any(found.items() <= a.items() for a in allowed))


def leftovers(folder: Path) -> list[str]:
    """Temporary files and the lock: nothing a finished run may leave."""
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp") or p.name == publish.LOCK_NAME)


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


# -- runs ------------------------------------------------------------------------


def site_pages(n: int, shift: int = 0, date_day: int = 1, folder: str = "") -> list[Page]:
    return [Page(f"{folder}p{i:05d}.html", lastmod=f"2024-01-{date_day + i % 20:02d}") for i in range(shift, shift + n)]


def list_bytes(pages: list[Page]) -> bytes:
    return b"".join(f"{p.loc}\t{p.lastmod}\n".encode() for p in pages)


def run_build(folder: Path, pages: list[Page], options: Options) -> None:
    build_site(pages, options, folder)


def run_generate(folder: Path, pages: list[Page], options: Options) -> None:
    urllist.generate(io.BytesIO(list_bytes(pages)), options, folder)


RUNS = {"build": run_build, "generate": run_generate}


class Stop(BaseException):
    """Raised by the fault hook: the run stops between two file operations."""


def count_steps(run, folder: Path, pages: list[Page], options: Options) -> int:
    steps = []
    publish.fault_hook = lambda operation, name: steps.append((operation, name))
    try:
        run(folder, pages, options)
    finally:
        publish.fault_hook = None
    return len(steps)


def killed_at(step: int, run, folder: Path, pages: list[Page], options: Options) -> bool:
    """Run in a forked child that dies (as by SIGKILL: no clean-up runs) before
    its ``step``-th file operation; whether it was killed."""
    pid = os.fork()
    if pid == 0:  # the child
        calls = [0]

        def hook(operation: str, name: str) -> None:
            calls[0] += 1
            if calls[0] == step:
                os.kill(os.getpid(), signal.SIGKILL)

        publish.fault_hook = hook
        try:
            run(folder, pages, options)
        finally:
            os._exit(0)
    _, status = os.waitpid(pid, 0)
    return os.WIFSIGNALED(status)


def failed_at(step: int, run, folder: Path, pages: list[Page], options: Options, fault: BaseException) -> bool:
    """Run with ``fault`` raised before the ``step``-th file operation; whether it
    failed."""
    calls = [0]

    def hook(operation: str, name: str) -> None:
        calls[0] += 1
        if calls[0] == step:
            raise fault

    publish.fault_hook = hook
    try:
        run(folder, pages, options)
    except (type(fault), OutputError):
        return True
    finally:
        publish.fault_hook = None
    return False


@pytest.fixture(autouse=True)
def one_process(monkeypatch):
    """generate's workers in this process, so the hook sees every step in order
    (the subprocess tests below use real workers)."""
    monkeypatch.setattr(workers, "worker_count", lambda: 1)
    monkeypatch.setattr(urllist, "BLOCK_BYTES", 512)
    yield
    publish.fault_hook = None


def prepare(tmp_path: Path, run, old: list[Page], new: list[Page], options: Options) -> tuple[Path, dict, dict]:
    """A folder publishing ``old``; the old and the new set as a crawler reads them."""
    expected = {}
    for label, pages in (("old", old), ("new", new)):
        clean = tmp_path / f"clean-{label}"
        clean.mkdir()
        run(clean, pages, options)
        expected[label] = published(clean, options.filename)
        assert expected[label]
    template = tmp_path / "template"
    template.mkdir()
    for page in old + new:  # every page exists, so check finds each listed URL's file
        (template / page.loc).write_text("<html><head><title>t</title></head></html>")
    (template / "robots.txt").write_text("User-agent: *\nDisallow: /private/\n")
    run(template, old, options)
    return template, expected["old"], expected["new"]


OPTION_SETS = {
    "shards": dict(max_urls=7),
    "gzip-stylesheet-copy-report": dict(
        max_urls=9, gzip=True, stylesheet=True, gzip_copy=True, report_file="report.txt"
    ),
    "single-file": dict(),
    "text": dict(max_urls=8, format="txt"),
}


@pytest.mark.parametrize("command", sorted(RUNS))
@pytest.mark.parametrize("option_set", sorted(OPTION_SETS))
def test_killed_at_every_step_serves_old_or_new(tmp_path: Path, command: str, option_set: str) -> None:
    """SIGKILL before each file operation of a run, in turn: the folder serves the
    whole old set or the whole new one, and the next run publishes the new set
    and leaves no temporary file behind."""
    options = Options(base_url=BASE, lastmod="none" if option_set == "text" else "auto", **OPTION_SETS[option_set])
    # Dates change on every page, a page goes and others come: each shard changes.
    seen, steps = kill_at_every_step(tmp_path, RUNS[command], site_pages(60, 0, 1), site_pages(63, 2, 3), options)
    assert steps >= (5 if option_set != "single-file" else 2)
    # Killed before the switch, and (when stale shards are removed) after it.
    assert seen == ({"old"} if option_set == "single-file" else {"old", "new"})


def kill_at_every_step(tmp_path: Path, run, old: list[Page], new: list[Page], options: Options) -> tuple[set[str], int]:
    """A folder publishing ``old``; a run publishing ``new`` killed before each of
    its file operations in turn, each time in a fresh copy: the folder serves the
    old set or the new one, the lines of the user's robots.txt as they were, and
    the next run publishes the new set and leaves no temporary file behind.
    Which sets were seen after the kills (``old``, ``new``), and how many steps
    the run has."""
    template, old_set, new_set = prepare(tmp_path, run, old, new, options)
    theirs = not_sitemap_lines(template)
    steps = count_steps(run, shutil.copytree(template, tmp_path / "count"), new, options)
    seen = set()
    for step in range(1, steps + 1):
        folder = tmp_path / f"kill-{step}"
        shutil.copytree(template, folder)
        assert killed_at(step, run, folder, new, options)
        urls = assert_whole(folder, old_set, new_set, pages=True, entry=options.filename)
        assert not_sitemap_lines(folder) == theirs
        seen.add("new" if urls == new_set else "old")
        run(folder, new, options)  # the next run
        assert assert_whole(folder, new_set, pages=True, entry=options.filename) == new_set
        assert leftovers(folder) == []
        shutil.rmtree(folder)
    return seen, steps


# Old and new pages for each way the number of entry points can go, with
# max_urls=2 and max_sitemaps=3: one page is a single file, five an index of
# three shards, twenty several indexes (each its own Sitemap: line).
DIRECTIONS = {
    "single-to-several": (site_pages(1), site_pages(20, 1, 2)),
    "one-index-to-several": (site_pages(5), site_pages(20, 1, 2)),
    "several-to-single": (site_pages(20), site_pages(1, 3, 2)),
    "several-to-one-index": (site_pages(20), site_pages(5, 3, 2)),
    # Each index changes: a page goes, two come, every date is new.
    "several-to-several": (site_pages(20), site_pages(22, 1, 2)),
}


@pytest.mark.parametrize("text", [False, True], ids=["xml", "text"])
@pytest.mark.parametrize("direction", sorted(DIRECTIONS))
def test_killed_at_every_step_between_one_entry_point_and_several(tmp_path: Path, direction: str, text: bool) -> None:
    """Past one index's limits every index is an entry point, named in robots.txt.
    From one entry point to several, several to one, and several to several,
    with a gzip copy of the entry point: SIGKILL before each file operation
    leaves robots.txt serving one whole set and the entry point (and its copy)
    one set or part of it (today robots.txt, renamed after sitemap.xml, named
    the new first index alone)."""
    options = Options(
        base_url=BASE,
        max_urls=2,
        max_sitemaps=3,
        gzip_copy=True,
        format="txt" if text else "xml",
        lastmod="none" if text else "auto",
    )
    seen, _ = kill_at_every_step(tmp_path, run_build, *DIRECTIONS[direction], options)
    assert seen == {"old", "new"}


@pytest.mark.parametrize("command", sorted(RUNS))
@pytest.mark.parametrize(
    "fault", [OSError(errno.ENOSPC, "No space left on device"), Stop()], ids=["enospc", "interrupt"]
)
def test_failing_at_every_step_changes_nothing_published(tmp_path: Path, command: str, fault: BaseException) -> None:
    """A run that fails before the switch (a full disk, an interrupt) removes what
    it wrote: the folder is byte for byte as it was. After the switch, it is the
    new set."""
    run = RUNS[command]
    options = Options(base_url=BASE, max_urls=6, gzip=True, stylesheet=True, report_file="report.txt")
    old, new = site_pages(40, 0, 1), site_pages(45, 3, 2)
    template, old_set, new_set = prepare(tmp_path, run, old, new, options)
    before = snapshot(template)
    steps = count_steps(run, shutil.copytree(template, tmp_path / "count"), new, options)
    outcomes = set()
    for step in range(1, steps + 1):
        folder = tmp_path / f"fault-{step}"
        shutil.copytree(template, folder)
        assert failed_at(step, run, folder, new, options, fault)
        urls = assert_whole(folder, old_set, new_set, pages=True)
        if urls == old_set:
            assert snapshot(folder) == before, f"step {step}"
            outcomes.add("unchanged")
        else:
            outcomes.add("switched")  # failed removing a stale file, after the switch
        assert leftovers(folder) == []
        shutil.rmtree(folder)
    assert "unchanged" in outcomes


def test_bad_line_at_the_end_of_a_long_list_changes_nothing(tmp_path: Path) -> None:
    """A bad lastmod on the last line of a list long enough for worker processes:
    exit 2 naming it, every published file as it was (today most old shards were
    rewritten before the error)."""
    folder = "a-section-of-the-site/with-a-subsection/" * 5
    out = tmp_path / "out"
    good = tmp_path / "good.tsv"
    good.write_bytes(list_bytes(site_pages(11_000, 0, 1, folder)))
    flags = ["--out", str(out), "--base-url", BASE, "--max-urls", "3000"]
    assert cli_run("generate", "--input", str(good), *flags).returncode == 0
    before = snapshot(out)
    bad = tmp_path / "bad.tsv"
    bad.write_bytes(list_bytes(site_pages(11_000, 0, 2, folder)) + b"p99999.html\tyesterday\n")
    assert bad.stat().st_size > 2 * urllist.BLOCK_BYTES
    result = cli_run("generate", "--input", str(bad), *flags)
    assert result.returncode == 2 and result.stderr.count("\n") == 1 and "yesterday" in result.stderr, result.stderr
    assert snapshot(out) == before
    assert len(before) > 20


# -- whole runs, fuzzed ---------------------------------------------------------

paths = st.lists(
    st.sampled_from([f"{d}p{i}.html" for d in ("", "a/", "b/") for i in range(40)]), max_size=40, unique=True
)


@settings(
    max_examples=50, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(
    old=paths,
    new=paths,
    command=st.sampled_from(sorted(RUNS)),
    max_urls=st.integers(1, 12),
    max_sitemaps=st.sampled_from([2, 3, 50_000]),
    gzip_shards=st.booleans(),
    text=st.booleans(),
    day=st.integers(1, 9),
    kill=st.floats(0, 1),
    how=st.sampled_from(["kill", "fail"]),
    gzip_copy=st.booleans(),
    user_robots=st.booleans(),
)
# Killed late in the switch from one index to two (each a Sitemap: line): robots.txt
# and the entry point each led to part of the new set.
@example(
    old=["p0.html"],
    new=["p0.html", "p1.html", "p2.html"],
    command="build",
    max_urls=1,
    max_sitemaps=2,
    gzip_shards=False,
    text=False,
    day=1,
    kill=0.9375,
    how="kill",
    gzip_copy=False,
    user_robots=False,
)
@example(
    old=[],
    new=["p0.html", "p1.html", "p2.html"],
    command="build",
    max_urls=1,
    max_sitemaps=2,
    gzip_shards=False,
    text=False,
    day=1,
    kill=0.9375,
    how="kill",
    gzip_copy=False,
    user_robots=False,
)
def test_fuzz_whole_runs(
    tmp_path_factory,
    old,
    new,
    command,
    max_urls,
    max_sitemaps,
    gzip_shards,
    text,
    day,
    kill,
    how,
    gzip_copy,
    user_robots,
) -> None:
    """Random old and new sites or lists, options and kill or fault points: the
    folder always serves one whole set, and the next run the new one; the lines
    of the user's robots.txt stay as they were."""
    tmp = tmp_path_factory.mktemp("fuzz")
    run = RUNS[command]
    options = Options(
        base_url=BASE,
        max_urls=max_urls,
        max_sitemaps=max_sitemaps,
        gzip=gzip_shards,
        format="txt" if text else "xml",
        lastmod="none" if text else "auto",
        gzip_copy=gzip_copy,
    )
    old_pages = [Page(p, lastmod=f"2024-02-0{day}") for p in sorted(old)]
    new_pages = [Page(p, lastmod=f"2024-02-0{1 + (day + len(p)) % 9}") for p in sorted(new)]
    folder = tmp / "site"
    folder.mkdir()
    for page in old_pages + new_pages:
        (folder / page.loc).parent.mkdir(parents=True, exist_ok=True)
        (folder / page.loc).write_text("<html></html>")
    entry = options.filename
    # The user's robots.txt, or the one sitemapkit writes where there is none.
    theirs = "User-agent: *\nDisallow: /private/\n" if user_robots else "User-agent: *\nDisallow:\n"
    if user_robots:
        (folder / "robots.txt").write_text(theirs)
    run(folder, old_pages, options)
    old_set = published(folder, entry)
    clean = tmp / "clean"
    clean.mkdir()
    run(clean, new_pages, options)
    new_set = published(clean, entry) or old_set  # nothing to list: the old set stays
    if not new_pages:
        assert not old_pages or published(folder, entry) == old_set
    steps = count_steps(run, shutil.copytree(folder, tmp / "count"), new_pages, options)
    step = 1 + int(kill * steps)
    if how == "kill":
        killed_at(step, run, folder, new_pages, options)
    else:
        failed_at(step, run, folder, new_pages, options, Stop())
    assert_whole(folder, old_set, new_set, pages=True, entry=entry)
    assert not_sitemap_lines(folder) == theirs
    run(folder, new_pages, options)
    assert assert_whole(folder, new_set, pages=True, entry=entry) == new_set
    assert not_sitemap_lines(folder) == theirs
    assert leftovers(folder) == []
    shutil.rmtree(tmp)


def not_sitemap_lines(folder: Path) -> str:
    """robots.txt without its Sitemap: lines (and the blank line before them);
    sitemapkit's own when there is none yet (nothing was ever published)."""
    if not (folder / "robots.txt").is_file():
        return "User-agent: *\nDisallow:\n"
    text = (folder / "robots.txt").read_text()
    kept = "".join(line for line in text.splitlines(keepends=True) if not line.lower().startswith("sitemap:"))
    return kept[:-1] if kept.endswith("\n\n") else kept


# -- an empty result ---------------------------------------------------------------


@pytest.mark.parametrize("command", sorted(RUNS))
def test_empty_result_keeps_the_published_set_and_says_so(tmp_path: Path, command: str) -> None:
    """Nothing to list (an empty list, every page excluded): the sitemap
    published earlier stays whole, robots.txt keeps its line, and a warning says
    so (today the shards went and sitemap.xml stayed, pointing at nothing)."""
    options = Options(base_url=BASE, max_urls=5)
    RUNS[command](tmp_path, site_pages(30), options)
    before = snapshot(tmp_path)
    if command == "build":
        report = build_site(site_pages(30), Options(base_url=BASE, max_urls=5, exclude=("*",)), tmp_path)
    else:
        report = urllist.generate(io.BytesIO(b""), options, tmp_path)
    assert [n.code for n in report.notices] == ["empty"]
    assert "left as it was" in report.notices[0].message
    assert snapshot(tmp_path) == before
    assert len(published(tmp_path)) == 30


def test_empty_result_in_an_empty_folder_writes_nothing(tmp_path: Path) -> None:
    report = urllist.generate(io.BytesIO(b""), Options(base_url=BASE), tmp_path)
    assert report.notices[0].message == "no page to list, so no sitemap was written"
    assert list(tmp_path.iterdir()) == []


# -- temporary files, names ---------------------------------------------------------


def test_temporaries_of_a_killed_run_are_removed_by_the_next(tmp_path: Path) -> None:
    left = [".sitemap.xml.a1b2c3d4.tmp", ".sitemap-0123456789abcdef01.xml.gz.zz_9abcd.tmp", ".robots.txt.k3j4h5g6.tmp"]
    for name in left:
        (tmp_path / name).write_bytes(b"half")
    (tmp_path / ".theirs.txt.a1b2c3d4.tmp").write_bytes(b"not ours")
    build_site(site_pages(3), Options(base_url=BASE), tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == [".theirs.txt.a1b2c3d4.tmp", "robots.txt", "sitemap.xml"]


def test_unchanged_shards_keep_their_names_bytes_and_files(tmp_path: Path) -> None:
    """Adding a page changes at most two shard files; the others are not even
    rewritten (same inode), so a deploy sends only what changed."""
    options = Options(base_url=BASE, max_urls=5000, max_bytes=4096, lastmod="none")
    pages = [Page(f"p{i:05d}.html") for i in range(0, 4000, 2)]
    build_site(pages, options, tmp_path)
    shards = lambda: {
        p.name: (p.stat().st_ino, p.read_bytes()) for p in tmp_path.glob("sitemap-*.xml") if "-index-" not in p.name
    }
    before = shards()
    build_site(sorted(pages + [Page("p01001.html")], key=lambda p: p.loc), options, tmp_path)
    after = shards()
    assert len(before) > 20
    assert len(set(after) - set(before)) <= 2 and len(set(before) - set(after)) <= 2
    assert all(after[name] == before[name] for name in set(before) & set(after))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--report-file", "robots.txt"], "--report-file: 'robots.txt' is robots.txt"),
        (["--format", "txt", "--filename", "robots.txt"], "--filename: 'robots.txt' is robots.txt"),
        (["--format", "txt", "--report-file", "sitemap.txt"], "--report-file: 'sitemap.txt' is the sitemap's own name"),
        (["--format", "txt", "--report-file", "sitemap-0123456789abcdef01.txt"], "is the name of a sitemap shard"),
    ],
)
@pytest.mark.parametrize("command", ["build", "generate"])
def test_files_of_one_run_never_share_a_name(tmp_path: Path, command: str, args: list[str], message: str) -> None:
    """Refused with one line before anything is written (today --report-file
    robots.txt replaced robots.txt with the report)."""
    folder = tmp_path / "site"
    folder.mkdir()
    (folder / "index.html").write_text("<html></html>")
    (folder / "robots.txt").write_text("User-agent: *\nDisallow: /x\n")
    (tmp_path / "urls.tsv").write_text("a.html\n")
    before = snapshot(folder)
    where = [str(folder)] if command == "build" else ["--input", str(tmp_path / "urls.tsv"), "--out", str(folder)]
    result = cli_run(command, *where, "--base-url", BASE, *args)
    assert result.returncode == 2 and result.stderr.count("\n") == 1 and message in result.stderr, result.stderr
    assert snapshot(folder) == before


@pytest.mark.parametrize("command", ["build", "generate"])
def test_entry_point_that_is_a_folder_is_named(tmp_path: Path, command: str) -> None:
    folder = tmp_path / "site"
    (folder / "sitemap.xml").mkdir(parents=True)
    (folder / "index.html").write_text("<html></html>")
    (tmp_path / "urls.tsv").write_text("a.html\n")
    where = [str(folder)] if command == "build" else ["--input", str(tmp_path / "urls.tsv"), "--out", str(folder)]
    result = cli_run(command, *where, "--base-url", BASE)
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
    assert f"{folder / 'sitemap.xml'}' is a folder" in result.stderr and ".tmp" not in result.stderr
    assert sorted(p.name for p in folder.iterdir()) == ["index.html", "sitemap.xml"]


def test_generate_with_a_missing_input_creates_nothing(tmp_path: Path) -> None:
    result = cli_run(
        "generate",
        "--input",
        str(tmp_path / "missing.tsv"),
        "--out",
        str(tmp_path / "out" / "deeper"),
        "--base-url",
        BASE,
    )
    assert result.returncode == 2 and result.stderr.count("\n") == 1 and "missing.tsv" in result.stderr
    assert list(tmp_path.iterdir()) == []


# -- one emitter ---------------------------------------------------------------------


def test_generate_writes_what_build_writes(tmp_path: Path) -> None:
    """The same pages through `build` and through `generate` give the same files,
    stylesheet, gzip copy, robots.txt and report included (today generate wrote
    the stylesheet line but not the stylesheet, and no robots.txt)."""
    pages = site_pages(200)
    flags = [
        "--max-urls",
        "20",
        "--gzip",
        "--stylesheet",
        "--gzip-copy",
        "--report-file",
        "report.txt",
        "--lastmod",
        "none",
    ]
    site = tmp_path / "site"
    site.mkdir()
    for page in pages:
        (site / page.loc).write_text("<html></html>")
    built = cli_run("build", str(site), "--base-url", BASE, *flags)
    assert built.returncode == 0, built.stderr
    (tmp_path / "urls.tsv").write_text("".join(f"{p.loc}\n" for p in pages))
    out = tmp_path / "out"
    made = cli_run(
        "generate",
        "--input",
        str(tmp_path / "urls.tsv"),
        "--out",
        str(out),
        "--base-url",
        BASE,
        *[f for f in flags if f not in ("--lastmod", "none")],
        "--verbose",
    )
    assert made.returncode == 0, made.stderr
    from_build = {k: v for k, v in snapshot(site).items() if not k.endswith(".html")}
    assert sorted(snapshot(out)) == sorted(from_build)
    assert {"sitemap.xsl", "sitemap.css", "sitemap.xml.gz", "robots.txt", "report.txt"} <= set(from_build)
    for name, data in snapshot(out).items():
        assert data == from_build[name], name
    assert made.stdout.startswith("sitemapkit: 200 URLs in ")  # --verbose: the details


@pytest.mark.parametrize("flag", ["--exclude=*", "--lastmod=git", "--no-check-noindex", "--x-default=en"])
def test_generate_refuses_what_only_build_uses_in_one_line(tmp_path: Path, flag: str) -> None:
    (tmp_path / "urls.tsv").write_text("a.html\n")
    result = cli_run(
        "generate", "--input", str(tmp_path / "urls.tsv"), "--out", str(tmp_path / "out"), "--base-url", BASE, flag
    )
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
    name = flag.split("=")[0].removeprefix("--").removeprefix("no-")
    assert name in result.stderr and "generate" in result.stderr
    assert not (tmp_path / "out").exists()


# -- two runs, real kills -----------------------------------------------------------


def test_a_second_run_stops_while_another_holds_the_folder(tmp_path: Path) -> None:
    import fcntl

    build_site(site_pages(3), Options(base_url=BASE), tmp_path)
    before = snapshot(tmp_path)
    with open(tmp_path / publish.LOCK_NAME, "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        with pytest.raises(OutputError, match="another sitemapkit run is writing into"):
            build_site(site_pages(5), Options(base_url=BASE), tmp_path)
        result = cli_run("build", str(tmp_path), "--base-url", BASE)
        assert result.returncode == 2 and result.stderr.count("\n") == 1
        assert "another sitemapkit run is writing into" in result.stderr
    assert {k: v for k, v in snapshot(tmp_path).items() if k != publish.LOCK_NAME} == before


def test_two_runs_at_once_never_mix(tmp_path: Path) -> None:
    """Two generates on one folder, different max_urls, over and over: each one
    publishes whole or stops with one line; the folder always serves one set."""
    urls = tmp_path / "urls.tsv"
    urls.write_bytes(list_bytes(site_pages(4000)))
    out = tmp_path / "out"
    expected = []
    for max_urls in ("400", "700"):
        clean = tmp_path / f"clean-{max_urls}"
        assert (
            cli_run(
                "generate", "--input", str(urls), "--out", str(clean), "--base-url", BASE, "--max-urls", max_urls
            ).returncode
            == 0
        )
        expected.append(published(clean))
    assert expected[0] == expected[1]  # the same URLs, in different files
    assert cli_run("generate", "--input", str(urls), "--out", str(out), "--base-url", BASE).returncode == 0
    stopped = 0
    for _ in range(4):
        runs = [
            subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "sitemapkit",
                    "generate",
                    "--input",
                    str(urls),
                    "--out",
                    str(out),
                    "--base-url",
                    BASE,
                    "--max-urls",
                    m,
                ],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for m in ("400", "700")
        ]
        for run in runs:
            stdout, stderr = run.communicate(timeout=120)
            if run.returncode:
                assert stderr.count("\n") == 1 and "another sitemapkit run is writing into" in stderr, stderr
                stopped += 1
        # (Read once both have ended: reading takes longer than an instant, and a
        # file this reader has not reached yet may go stale meanwhile. Every
        # instant is checked by the kill tests above.)
        assert_whole(out, expected[0])
        # Every file the index names is there, and nothing else of ours.
        names = {p.name for p in out.iterdir()}
        assert names == {"sitemap.xml", "robots.txt", *[n for n in names if n.startswith("sitemap-")]}
        assert leftovers(out) == []


def _alive(pids: list[int]) -> list[int]:
    alive = []
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            alive.append(pid)
    return alive


def _children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            found += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            pass
    return found


@pytest.mark.skipif(
    not Path(f"/proc/self/task/{os.getpid()}/children").exists(), reason="finds workers in /proc (Linux)"
)
def test_sigkill_during_generate_serves_old_or_new_and_stops_workers(tmp_path: Path) -> None:
    """A real `sitemapkit generate`, with its worker processes, killed by SIGKILL
    at several moments: the folder serves one whole set each time, the workers
    exit with it, and the next run publishes the new set."""
    out = tmp_path / "out"
    old, new = tmp_path / "old.tsv", tmp_path / "new.tsv"
    # Over a megabyte each (a block), so that worker processes do the work.
    folder = "a-section-of-the-site/with-a-subsection/" * 5
    old.write_bytes(list_bytes(site_pages(9_000, 0, 1, folder)))
    new.write_bytes(list_bytes(site_pages(11_000, 5, 2, folder)))
    assert new.stat().st_size > 2 * urllist.BLOCK_BYTES
    flags = ["--out", str(out), "--base-url", BASE, "--max-urls", "3000", "--gzip"]
    started = time.monotonic()
    assert cli_run("generate", "--input", str(new), *flags).returncode == 0
    whole_run = time.monotonic() - started
    new_set = published(out)
    shutil.rmtree(out)
    assert cli_run("generate", "--input", str(old), *flags).returncode == 0
    old_set = published(out)
    outcomes = set()
    watched = 0
    for fraction in (0.0, 0.2, 0.4, 0.6, 0.8, 1.0):
        run = subprocess.Popen(
            [sys.executable, "-m", "sitemapkit", "generate", "--input", str(new), *flags],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        workers: set[int] = set()
        if not fraction:
            # Killed as soon as a worker shows: on a loaded machine the timed
            # kills below can all fall before the workers start or after they end.
            give_up = time.monotonic() + 10 * whole_run
            while not workers and time.monotonic() < give_up and run.poll() is None:
                workers.update(_children(run.pid))
        deadline = time.monotonic() + whole_run * fraction
        while time.monotonic() < deadline and run.poll() is None:
            workers.update(_children(run.pid))
            time.sleep(0.01)
        run.send_signal(signal.SIGKILL)
        run.wait()
        urls = assert_whole(out, old_set, new_set)
        outcomes.add("new" if urls == new_set else "old")
        for _ in range(100):  # the workers notice within moments
            if not _alive(sorted(workers)):
                break
            time.sleep(0.02)
        assert _alive(sorted(workers)) == []
        watched += len(workers)
        if urls == new_set:  # back to the old set
            assert cli_run("generate", "--input", str(old), *flags).returncode == 0
            assert leftovers(out) == []
    assert "old" in outcomes and watched  # some kills found workers running


# -- a full disk ---------------------------------------------------------------------


@pytest.fixture
def small_disk(tmp_path: Path):
    """A 1 MiB tmpfs (root only; skipped elsewhere)."""
    mount = tmp_path / "disk"
    mount.mkdir()
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a small tmpfs needs root")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mount)], capture_output=True)
    if done.returncode:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", str(mount)], check=True)


def test_full_disk_leaves_the_old_set_and_removes_what_it_wrote(small_disk: Path) -> None:
    old = list_bytes(site_pages(2000, 0, 1))
    result = cli_run(
        "generate",
        "--input",
        "-",
        "--out",
        str(small_disk),
        "--base-url",
        BASE,
        "--max-urls",
        "400",
        stdin=old.decode(),
    )
    assert result.returncode == 0, result.stderr
    before = snapshot(small_disk)
    old_set = published(small_disk)
    big = list_bytes(site_pages(30_000, 0, 2))  # far more than the disk holds
    result = cli_run(
        "generate",
        "--input",
        "-",
        "--out",
        str(small_disk),
        "--base-url",
        BASE,
        "--max-urls",
        "400",
        stdin=big.decode(),
    )
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
    assert "No space left on device" in result.stderr and ".tmp" not in result.stderr
    assert snapshot(small_disk) == before
    assert assert_whole(small_disk, old_set) == old_set
